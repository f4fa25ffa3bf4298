"""What both Hunters & Gatherers editions show alike: the compact board's legend, their rivers' words and
the picture's key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hg_env import render as art
from hg_env.core.tiles import ANIMALS
from hg_env.presentation import DrawnZone, Glyph, Terrain, plain_zone, presentation
from hg_env.rulesets.hunters_gatherers import HUT, PAWN

if TYPE_CHECKING:
    from PIL import ImageDraw

    from hg_env.render import GameView, Told

COMPACT_LEGEND = (
    "legend: a tile shows its figure, else its features: # forest  ~ river  o lake (. meadow) * last tile\n"
    "        p1# pawn of P1 on a forest (p1. meadow, p1~ river)  h1o hut of P1 on a lake  [ ] tile fits"
)


def draw_mushroom(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A red cap with white dots on a pale stem."""
    r = size * 0.5
    draw.rectangle((cx - r * 0.28, cy - r * 0.1, cx + r * 0.28, cy + r * 0.8), fill=(245, 235, 215), outline=art.INK)
    draw.pieslice((cx - r, cy - r * 0.9, cx + r, cy + r * 0.9), 180, 360, fill=(215, 35, 35), outline=art.INK)
    for dx, dy in ((-0.5, -0.35), (0.1, -0.6), (0.5, -0.25)):
        d = r * 0.14
        draw.ellipse((cx + dx * r - d, cy + dy * r - d, cx + dx * r + d, cy + dy * r + d), fill=(255, 255, 255))


MUSHROOMS = Glyph("%", "mushrooms", draw_mushroom, 0.26, (0.13, 0.13))
WATER_EDGE = (26, 86, 160)  # the lakes' shore, a spring, the fish of the key
# How the pictures draw the landscape (hg_env.presentation.Terrain): meadows fill the tile, forests grow from
# their sides, rivers run side to side or into a lake (or from a spring), lakes lie inside the tile.
LANDSCAPE = {
    "meadow": Terrain("ground", (178, 212, 112), (128, 166, 70)),
    "forest": Terrain("polygon", (34, 96, 48), (20, 62, 30)),
    "river": Terrain("stream", (58, 140, 222), WATER_EDGE, width=0.13, spring=0.2),
    "lake": Terrain("pool", (96, 172, 240), WATER_EDGE),
}
# The sides of one zone share its sign, so two meadows cut apart by a forest never read like one; rivers
# and lakes read apart by their banks and contents.
SIGNS = {"meadow": ".,:;", "forest": "#&H", "river": "~", "lake": "o"}
COMPACT_SIGNS = ("forest", "lake", "river")  # a compact tile's order (the rest is meadow)
ROLES = {"meadow": "hunter", "forest": "gatherer", "river": "fisher"}  # what a pawn is on its zone (R5.1)


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``1 gold nugget``, ``2 gold nuggets``."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def hunters_zone(zone: dict, tile: dict, glyphs: list[str], notes: list[str], name: str = "") -> DrawnZone:
    """A Hunters & Gatherers zone: a river runs into a lake or from a spring; ``glyphs`` and ``notes`` are
    the edition's own signs and words, after the river's."""
    plain = plain_zone(zone, tile)
    flow = []
    if plain.type == "river":
        if plain.lake is not None:
            flow.append("into a lake")
        elif plain.spring:
            flow.append("from a spring")
    return DrawnZone(
        **{
            **plain.__dict__,
            "glyphs": tuple(glyphs),
            "name": name or plain.type,
            "notes": (*flow, *notes),
            "ends": False,
        }
    )


def draw_hut(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple, lying: bool = False) -> None:
    """A hut centred on (cx, cy): a pointed roof over walls (it never lies down)."""
    s = size / 2
    shape = [(-0.8, 0.75), (-0.8, -0.1), (0.0, -0.85), (0.8, -0.1), (0.8, 0.75)]
    draw.polygon([(cx + x * s, cy + y * s) for x, y in shape], fill=fill, outline=art.INK, width=2)
    draw.rectangle((cx - 0.2 * s, cy + 0.2 * s, cx + 0.2 * s, cy + 0.75 * s), fill=art.INK)


FIGURES = {PAWN: art.person, HUT: draw_hut}  # Presentation.figures: a pawn stands like a meeple


def draw_key(draw: ImageDraw.ImageDraw, game: GameView, x0: int, key_top: int) -> int:
    """The picture's key: the animals with their points and the fish (left), the forest and meadow signs
    (right), then the pawn and the hut; returns the y below them."""
    points, glyph_art = game.rules.spec.points, presentation(game.ruleset).glyphs
    for i, animal in enumerate(ANIMALS):
        ky = key_top + i * 22
        value = "eats a deer" if animal == "tiger" else str(getattr(points, animal))
        art._animal_token(draw, x0 + 9, ky + 9, 9, animal)
        draw.text((x0 + 24, ky + 2), f"{animal}  {value}", fill=art.INK, font=art._font(12))
    ky = key_top + 4 * 22
    art._fish(draw, x0 + 9, ky + 8, 16, WATER_EDGE)
    draw.text((x0 + 24, ky + 2), "fish", fill=art.INK, font=art._font(12))
    glyphs = art._ruleset_glyphs(game.ruleset)
    right = x0 + (120 if len(glyphs) <= 3 else 140)  # a long column moves clear of the tiger's label
    for i, glyph in enumerate(glyphs):
        glyph_art[glyph].draw(draw, right, key_top + 10 + 24 * i, 18)
        draw.text((right + 12, key_top + 2 + 24 * i), glyph_art[glyph].name, fill=art.INK, font=art._font(12))
    y = max(ky + 24, key_top + 24 * len(glyphs)) + 4
    end = x0 + art.PANEL_WIDTH - 22
    figures = [
        (PAWN, "pawn: a hunter on a meadow, a gatherer on a forest, a fisher on a river"),
        (HUT, "hut on a river or lake: scores the fish of its river system at the end"),
    ]
    for piece, text in figures:
        art._figure(draw, game.ruleset, piece, False, x0 + 9, y + 9, 17, (120, 120, 120))
        y = art._text_lines(draw, (x0 + 24, y + 2), text, 12, art.INK, end) + 4
    return y


def _forest(told: Told) -> str:
    mushrooms = f", {told['mushroomGroups']} mushroom groups" if told.get("mushroomGroups") else ""
    return f"{told.who('scorers')} +{told['points']}: forest of {told['tileCount']} tiles{mushrooms}"


def _meadow(told: Told) -> str:
    animals = ", ".join(f"{n} {a}" for a, n in told["animals"].items() if n)
    shrine = ", the shrine's hunter" if told.get("shrine") else ""
    return f"{told.who('scorers')} +{told['points']}: meadow ({animals}){shrine}"


EVENTS = {  # what both editions score (RULES.md Appendix B)
    "FOREST_SCORED": _forest,
    "RIVER_SCORED": lambda t: f"{t.who('scorers')} +{t['points']}: river of {t['tileCount']} tiles, {t['fish']} fish",
    "MEADOW_SCORED": _meadow,
    "RIVER_SYSTEM_SCORED": lambda t: f"{t.who('scorers')} +{t['points']}: huts on {t['fish']} fish",
}
