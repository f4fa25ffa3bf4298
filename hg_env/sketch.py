"""One description of a picture's artwork, drawn by two back ends: Pillow (PNG) and SVG.

The artwork functions (``hg_env.render``'s tiles and figures, the rulesets' glyphs and keys in their
``presentation`` modules) draw on anything with Pillow's ``ImageDraw`` methods. Handed a ``Sketch``,
they leave a list of ``Mark`` shapes instead of pixels; ``paint`` draws those marks with Pillow and
``marks_svg`` writes them as SVG elements, so the PNG and the SVG show the same shapes.

This module draws nothing itself and needs Pillow only to measure text (``Sketch.textbbox``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any
from xml.sax.saxutils import escape

Point = tuple[float, float]
Color = tuple[int, ...] | None


@dataclass(frozen=True)
class Mark:
    """One drawn shape, in the pixels of the surface it was sketched on.

    Besides shapes, a sketch holds ``tile`` marks (a tile's artwork, ``tile_art``, ``size`` pixels wide with its
    NW corner at ``points[0]``) and ``begin`` / ``end`` marks around the shapes of one thing (an occupant, a
    seat's score): the SVG keeps them as ``<g>`` groups with its class and data, Pillow ignores them.

    ``kind``: ``polygon`` / ``line`` (through ``points``), ``ellipse`` / ``rectangle`` / ``rounded`` /
    ``pieslice`` (in the box ``points[0]``-``points[1]``; a pie from ``start`` to ``end`` degrees, clockwise
    from east as Pillow counts) or ``text`` (at ``points[0]``, ``size`` pixels, Pillow's ``anchor``)."""

    kind: str
    points: tuple[Point, ...]
    fill: Color = None
    outline: Color = None
    width: float = 1
    radius: float = 0
    joint: str | None = None
    text: str = ""
    size: float = 0
    anchor: str = "la"
    start: float = 0
    end: float = 0
    data: tuple = ()  # a ``tile`` mark: (ruleset, tile, rotation, cell or None); ``begin``: its (name, value)s
    attrs: tuple = ()  # (name, value)s the SVG element of a shape carries (``Sketch.tag``)


def _attrs(cls: str, data: dict) -> tuple:
    return (("class", cls), *((f"data-{k.replace('_', '-')}", str(v)) for k, v in data.items()))


def _points(xy: Any) -> tuple[Point, ...]:
    """Pillow's ways of giving points (flat numbers, pairs, arrays) as pairs of floats."""
    flat: list[float] = []
    for item in xy:
        if isinstance(item, (int, float)) or (hasattr(item, "__float__") and not hasattr(item, "__len__")):
            flat.append(float(item))
        else:
            flat.extend(float(v) for v in item)
    return tuple(zip(flat[0::2], flat[1::2]))


def _color(value: Any) -> Color:
    return None if value is None else tuple(int(v) for v in value)


class Sketch:
    """A drawing surface with ``ImageDraw``'s drawing methods that keeps what is drawn as ``marks``."""

    def __init__(self) -> None:
        self.marks: list[Mark] = []
        self.texts: list[str] = []  # every string set, in order
        self._tag: tuple = ()

    def _add(self, mark: Mark) -> None:
        if self._tag:
            mark, self._tag = replace(mark, attrs=self._tag), ()
        self.marks.append(mark)

    def tag(self, cls: str, **data: object) -> None:
        """Give the next shape a class and data attributes in the SVG (``<text class="score" data-seat="0">``)."""
        self._tag = _attrs(cls, data)

    def polygon(self, xy: Any, fill: Any = None, outline: Any = None, width: float = 1) -> None:
        self._add(Mark("polygon", _points(xy), _color(fill), _color(outline), width))

    def line(self, xy: Any, fill: Any = None, width: float = 1, joint: str | None = None) -> None:
        self._add(Mark("line", _points(xy), None, _color(fill), width, joint=joint))

    def ellipse(self, xy: Any, fill: Any = None, outline: Any = None, width: float = 1) -> None:
        self._add(Mark("ellipse", _points(xy), _color(fill), _color(outline), width))

    def rectangle(self, xy: Any, fill: Any = None, outline: Any = None, width: float = 1) -> None:
        self._add(Mark("rectangle", _points(xy), _color(fill), _color(outline), width))

    def rounded_rectangle(
        self, xy: Any, radius: float = 0, fill: Any = None, outline: Any = None, width: float = 1
    ) -> None:
        self._add(Mark("rounded", _points(xy), _color(fill), _color(outline), width, radius=radius))

    def pieslice(
        self, xy: Any, start: float, end: float, fill: Any = None, outline: Any = None, width: float = 1
    ) -> None:
        self._add(Mark("pieslice", _points(xy), _color(fill), _color(outline), width, start=start, end=end))

    def tile(
        self, xy: Point, size: int, ruleset: str, tile: int, rotation: int, cell: tuple[int, int] | None = None
    ) -> None:
        """A tile's artwork, ``size`` pixels wide, NW corner at ``xy``; ``cell``: its board position, if placed."""
        self._add(Mark("tile", (xy,), size=size, data=(ruleset, tile, rotation, cell)))

    def begin(self, cls: str, **data: object) -> None:
        """Open a group of marks (an SVG ``<g class=cls data-key=value>``); ``end`` closes it."""
        self.marks.append(Mark("begin", (), data=_attrs(cls, data)))

    def end(self) -> None:
        self.marks.append(Mark("end", ()))

    def text(self, xy: Any, text: str, fill: Any = None, font: Any = None, anchor: str | None = None) -> None:
        size = float(getattr(font, "size", 11))
        # Pillow's width of the text: the SVG stretches its own font to it, so lines end where the PNG's do.
        width = float(font.getlength(text)) if hasattr(font, "getlength") else 0.0
        mark = Mark("text", _points(xy), _color(fill), width=width, text=text, size=size, anchor=anchor or "la")
        self._add(mark)
        self.texts.append(text)

    def textbbox(self, xy: Any, text: str, font: Any = None, anchor: str | None = None) -> tuple[float, ...]:
        """Pillow's measure of the text (the SVG sets the same font size)."""
        from PIL import Image, ImageDraw

        return ImageDraw.Draw(Image.new("L", (1, 1))).textbbox(xy, text, font=font, anchor=anchor)


def paint(draw: Any, marks: list[Mark], fonts: Any, tile: Any = None) -> None:
    """Draw ``marks`` with a Pillow ``ImageDraw``; ``fonts(size)`` gives the font of a text size and
    ``tile(mark)`` draws a ``tile`` mark (groups draw nothing)."""
    for m in marks:
        if m.kind in ("begin", "end"):
            continue
        if m.kind == "tile":
            tile(m)
            continue
        box = [c for p in m.points for c in p]
        width = int(m.width)
        if m.kind == "polygon":
            draw.polygon(m.points, fill=m.fill, outline=m.outline, width=width)
        elif m.kind == "line":
            draw.line(m.points, fill=m.outline, width=width, joint=m.joint)
        elif m.kind == "ellipse":
            draw.ellipse(box, fill=m.fill, outline=m.outline, width=width)
        elif m.kind == "rectangle":
            draw.rectangle(box, fill=m.fill, outline=m.outline, width=width)
        elif m.kind == "rounded":
            draw.rounded_rectangle(box, radius=m.radius, fill=m.fill, outline=m.outline, width=width)
        elif m.kind == "pieslice":
            draw.pieslice(box, m.start, m.end, fill=m.fill, outline=m.outline, width=width)
        elif m.kind == "text":
            draw.text(m.points[0], m.text, fill=m.fill, font=fonts(int(m.size)), anchor=m.anchor)
        else:  # pragma: no cover - a new kind of mark without its drawing
            raise ValueError(f"unknown mark kind {m.kind!r}")


def hex_color(color: Color) -> str:
    """``#rrggbb`` (``none`` for no colour)."""
    return "none" if color is None else "#{:02x}{:02x}{:02x}".format(*color[:3])


def _n(v: float) -> str:
    """A coordinate, short: 12.5, 3."""
    return f"{v:.2f}".rstrip("0").rstrip(".") or "0"


# Pillow's text anchors (horizontal, vertical letter) as SVG's text-anchor and dominant-baseline.
_H_ANCHOR = {"l": "start", "m": "middle", "r": "end"}
_V_ANCHOR = {"a": "hanging", "t": "hanging", "m": "central", "s": "alphabetic", "b": "text-after-edge"}


def _paint_attrs(m: Mark, filled: bool = True) -> str:
    """SVG fill and stroke as Pillow draws them: an outline of ``width`` pixels inside the shape's edge."""
    fill = hex_color(m.fill) if filled else "none"
    if m.outline is None or m.width <= 0:
        return f'fill="{fill}"'
    return f'fill="{fill}" stroke="{hex_color(m.outline)}" stroke-width="{_n(m.width)}"'


def _attr_text(attrs: tuple) -> str:
    return "".join(f' {k}="{escape(v, {chr(34): "&quot;"})}"' for k, v in attrs)


def mark_svg(m: Mark) -> str:
    """One mark as an SVG element (with the attributes it was tagged with)."""
    element = _element(m)
    if m.attrs:
        head = element.index(" ")
        element = element[:head] + _attr_text(m.attrs) + element[head:]
    return element


def _element(m: Mark) -> str:
    if m.kind == "polygon":
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in m.points)
        return f'<polygon points="{pts}" {_paint_attrs(m)}/>'
    if m.kind == "line":
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in m.points)
        join = ' stroke-linejoin="round"' if m.joint == "curve" else ""
        color = hex_color(m.outline)
        return f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="{_n(max(m.width, 1))}"{join}/>'
    if m.kind == "begin":
        return "<g" + _attr_text(m.data) + ">"
    if m.kind == "end":
        return "</g>"
    (x0, y0), (x1, y1) = m.points[0], m.points[-1]
    if m.kind == "ellipse":
        cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
        return f'<ellipse cx="{_n(cx)}" cy="{_n(cy)}" rx="{_n(rx)}" ry="{_n(ry)}" {_paint_attrs(m)}/>'
    if m.kind in ("rectangle", "rounded"):
        corner = f' rx="{_n(m.radius)}"' if m.kind == "rounded" else ""
        w, h = x1 - x0 + (m.kind == "rectangle"), y1 - y0 + (m.kind == "rectangle")  # Pillow's box is inclusive
        return f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(w)}" height="{_n(h)}"{corner} {_paint_attrs(m)}/>'
    if m.kind == "pieslice":
        cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
        a, b = math.radians(m.start), math.radians(m.end)
        sx, sy, ex, ey = cx + rx * math.cos(a), cy + ry * math.sin(a), cx + rx * math.cos(b), cy + ry * math.sin(b)
        large = int((m.end - m.start) % 360 > 180)
        path = f"M{_n(cx)} {_n(cy)}L{_n(sx)} {_n(sy)}A{_n(rx)} {_n(ry)} 0 {large} 1 {_n(ex)} {_n(ey)}Z"
        return f'<path d="{path}" {_paint_attrs(m)}/>'
    if m.kind == "text":
        x, y = m.points[0]
        h = _H_ANCHOR.get(m.anchor[0], "start")
        v = _V_ANCHOR.get(m.anchor[1], "hanging")
        fit = f' textLength="{_n(m.width)}" lengthAdjust="spacingAndGlyphs"' if m.width > 0 else ""
        return (
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(m.size)}" text-anchor="{h}" dominant-baseline="{v}"{fit} '
            f'fill="{hex_color(m.fill or (0, 0, 0))}">{escape(m.text)}</text>'
        )
    raise ValueError(f"unknown mark kind {m.kind!r}")  # pragma: no cover


def marks_svg(marks: list[Mark], tile: Any = None) -> str:
    """The marks as SVG elements, in drawing order; ``tile(mark)`` writes a ``tile`` mark."""
    return "".join(tile(m) if m.kind == "tile" else mark_svg(m) for m in marks)


def mask_path(mask: Any, scale: float = 1.0) -> str:
    """A [h, w] bool pixel mask as SVG path data: one rectangle per run of set pixels, row by row."""
    parts = []
    for row, line in enumerate(mask):
        col, w = 0, len(line)
        while col < w:
            if not line[col]:
                col += 1
                continue
            start = col
            while col < w and line[col]:
                col += 1
            run = _n((col - start) * scale)
            parts.append(f"M{_n(start * scale)} {_n(row * scale)}h{run}v{_n(scale)}h-{run}z")
    return "".join(parts)
