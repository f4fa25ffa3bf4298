"""The board as SVG: the same picture as ``render_rgb`` (one sketch, ``render.sketch_picture``), written as
vector shapes with classes and data a page can read and click.

    from hg_env import Game
    game = Game(2, seed=0, ruleset="carcassonne")
    game.render("svg")       # a standalone <svg> string; notebooks show a Game as SVG (Game._repr_svg_)

What the SVG holds (the contract with ``hgenv serve``'s page, ``hg_env/web``):

* every placed tile ``<g class="tile" data-x data-y data-tile data-rotation>`` (board coordinates as in
  ``Game.placed_tiles``), with one ``<path class="zone" data-x data-y data-zone>`` per zone of the tile
  (``zones_of=(x, y)``: that tile's zones are ``zone selectable``, the others plain ``zone``);
* every occupant ``<g class="occupant" data-seat data-kind data-x data-y data-zone>`` (``Game.occupants``);
* ``legal_cells=True``: ``<rect class="legal-cell" data-x data-y data-rotations="0 1 3">`` for each empty
  cell where the tile to place fits, with its legal rotations;
* the scores ``<text class="score" data-seat data-score>``, the tile to place ``<g class="next-tile"
  data-tile>``, the key ``<g class="legend">``;
* ``candidates`` (an agent's view of a placement, ``hgenv replay --agent``): ``[{"x", "y", "rotation",
  "weight" (0..1), "label"}]`` drawn as a heat overlay ``<rect class="candidate" data-x data-y
  data-rotation data-weight>`` with the label as its tooltip.

Needs Pillow, like the PNG (the tiles' geometry and text measures come from it).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from xml.sax.saxutils import escape

from hg_env.render import (
    SUPERSAMPLE,
    TABLE_COLOR,
    GameView,
    Picture,
    _zone_raster,
    ground,
    sketch_picture,
    tile_art,
    tile_zones,
)
from hg_env.sketch import Mark, hex_color, marks_svg, mask_path

ZONE_GRID = 20  # a zone's clickable outline follows its pixels on a grid this fine
CANDIDATE_COLOR = (255, 40, 160)
STYLE = (
    ".zone{fill:#fff;fill-opacity:0}"
    ".zone.selectable{cursor:pointer;fill-opacity:.18;stroke:#ff8000;stroke-width:.15}"
    ".zone.selectable:hover{fill-opacity:.5}"
    ".legal-cell{cursor:pointer;fill:#ff8000;fill-opacity:.08}"
    ".legal-cell:hover{fill-opacity:.3}"
)


@cache
def zone_paths(ruleset: str, tile: int, rotation: int) -> dict[int, str]:
    """Local zone -> SVG path data of its pixels on a ``ZONE_GRID`` grid (units of one grid step)."""
    labels = _zone_raster(ruleset, tile, rotation, ZONE_GRID)
    return {z: mask_path(labels == z) for z in tile_zones(ruleset, tile) if (labels == z).any()}


def tile_svg(mark: Mark, selectable: tuple[int, int] | None = None) -> str:
    """A ``tile`` mark's artwork (``render.tile_art``) as SVG, with its zones as paths when it is on the board."""
    ruleset, tile, rotation, cell = mark.data
    px = int(mark.size)
    art = tile_art(ruleset, tile, rotation, px)
    x, y = mark.points[0]
    parts = [f'<g transform="translate({x:g} {y:g})">']
    parts.append(f'<g transform="scale({1 / SUPERSAMPLE:.6f})">{marks_svg(list(art.shapes))}</g>')
    border = mask_path(art.border)
    if border:
        parts.append(f'<path d="{border}" fill="{hex_color(ground(ruleset, tile).edge)}"/>')
    parts.append(marks_svg(list(art.marks)))
    if cell is not None:
        kind = "zone selectable" if selectable == cell else "zone"
        parts.append(f'<g transform="scale({px / ZONE_GRID:g})">')
        for z, path in zone_paths(ruleset, tile, rotation).items():
            parts.append(f'<path class="{kind}" data-x="{cell[0]}" data-y="{cell[1]}" data-zone="{z}" d="{path}"/>')
        parts.append("</g>")
    parts.append("</g>")
    return "".join(parts)


def _legal_cells(game: GameView, picture: Picture) -> str:
    rotations: dict[tuple[int, int], list[int]] = defaultdict(list)
    for x, y, r in game.legal_placements():
        rotations[(x, y)].append(r)
    px, parts = picture.layout.tile_px, []
    for (x, y), rots in sorted(rotations.items()):
        if not picture.layout.shows(x, y):
            continue
        ox, oy = picture.layout.cell_origin(x, y)
        parts.append(
            f'<rect class="legal-cell" data-x="{x}" data-y="{y}" data-rotations="{" ".join(map(str, sorted(rots)))}" '
            f'x="{ox}" y="{oy}" width="{px}" height="{px}"/>'
        )
    return "".join(parts)


def _candidates(candidates: list[dict], picture: Picture) -> str:
    """The heat overlay: each candidate placement's cell tinted by its weight, its label as a tooltip."""
    px, parts = picture.layout.tile_px, []
    for c in candidates:
        x, y = int(c["x"]), int(c["y"])
        if not picture.layout.shows(x, y):
            continue
        weight = min(1.0, max(0.0, float(c.get("weight", 0.0))))
        ox, oy = picture.layout.cell_origin(x, y)
        label = escape(str(c.get("label", "")))
        parts.append(
            f'<rect class="candidate" data-x="{x}" data-y="{y}" data-rotation="{int(c.get("rotation", 0))}" '
            f'data-weight="{weight:.3f}" x="{ox + 2}" y="{oy + 2}" width="{px - 4}" height="{px - 4}" '
            f'fill="{hex_color(CANDIDATE_COLOR)}" fill-opacity="{0.12 + 0.6 * weight:.3f}" '
            f'stroke="{hex_color(CANDIDATE_COLOR)}" stroke-width="2"><title>{label}</title></rect>'
        )
    return "".join(parts)


def board_svg(
    game: GameView,
    *,
    legal_cells: bool = False,
    zones_of: tuple[int, int] | None = None,
    candidates: list[dict] | None = None,
    names: list[str] | None = None,
    tile_px: int = 80,
    bounds: tuple[int, int, int, int] | None = None,
) -> str:
    """The picture of ``game`` (board and panel, as ``render_rgb`` draws it) as one standalone SVG string;
    see the module docstring for its classes. ``tile_px`` and ``bounds`` as in ``render_rgb``."""
    picture = sketch_picture(game, tile_px, bounds, names)
    selectable = None if zones_of is None else (int(zones_of[0]), int(zones_of[1]))
    body = marks_svg(picture.sketch.marks, tile=lambda mark: tile_svg(mark, selectable))
    overlay = (_legal_cells(game, picture) if legal_cells else "") + _candidates(candidates or [], picture)
    if overlay:  # inside the board group, drawn over the tiles
        end = body.index('<g class="panel"') - len("</g>")
        body = body[:end] + overlay + body[end:]
    w, h = picture.size
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        "font-family=\"Aileron, 'DejaVu Sans', Arial, sans-serif\">"
        f"<style>{STYLE}</style>"
        f'<rect width="{w}" height="{h}" fill="{hex_color(TABLE_COLOR)}"/>'
        f"{body}</svg>"
    )
