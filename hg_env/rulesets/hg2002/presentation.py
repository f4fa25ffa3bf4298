"""How classic Hunters & Gatherers (2002/2014) is named and drawn (``hg_env.presentation``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hg_env import render as art
from hg_env.presentation import DrawnZone, Glyph, Presentation
from hg_env.rulesets.hunters_gatherers_presentation import (
    COMPACT_LEGEND,
    COMPACT_SIGNS,
    EVENTS,
    FIGURES,
    LANDSCAPE,
    MUSHROOMS,
    ROLES,
    SIGNS,
    count,
    draw_key,
    hunters_zone,
)

if TYPE_CHECKING:
    from PIL import ImageDraw


LEGEND = (
    "legend: . meadow  # forest  ~ river (a side reads bank~bank; - from a spring)  * corners: last tile\n"
    "        , : ; a tile's 2nd, 3rd, 4th meadow  & H its 2nd, 3rd forest (one zone's sides share a sign)\n"
    "        M mammoth  A aurochs  D deer  T tiger  o2 lake with 2 fish  Vo the volcano (start tile)\n"
    "        $ gold nugget (closing its forest earns a bonus tile)  % mushrooms  Sr shrine  Fi fire\n"
    "        p1@# pawn of P1 on a forest (@. meadow, @~ river)  h1@o hut of P1   x,y: the tile fits here"
)
OCCUPY_HELP = "  pawn 2        a pawn on zone 2 of the tile just placed;  hut 8  a hut on zone 8"
CARD = """\
``ruleset="hg2002"``: ``hunters_gatherers_classic_v0``, the classic edition of Hunters & Gatherers
(docs/rules/hg2002.md). Actions ``Discrete(4N + 19)``, observation ``(77, 25, 25)`` by default;
layout: place 4N | pawn 8 | hut 10 | none.
"""


GOLD_COLOR = (246, 196, 30)


def draw_gold(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A gold nugget: a lumpy yellow stone with a glint."""
    s = size / 2
    lump = [(-0.9, 0.2), (-0.6, -0.45), (-0.1, -0.7), (0.5, -0.55), (0.95, -0.05), (0.7, 0.55), (0.0, 0.7), (-0.6, 0.6)]
    draw.polygon(art._shape(cx, cy, s, lump), fill=GOLD_COLOR, outline=(120, 80, 0), width=2)
    draw.polygon(art._shape(cx, cy, s, [(-0.4, -0.3), (0.0, -0.45), (0.2, -0.2), (-0.2, 0.0)]), fill=(255, 240, 150))


def draw_shrine(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A small stone shrine: a pointed roof on two pillars, on a step."""
    s = size / 2
    stone, dark = (236, 232, 220), (110, 100, 90)
    draw.polygon(
        art._shape(cx, cy, s, [(-0.95, -0.25), (0.0, -0.95), (0.95, -0.25)]), fill=(170, 60, 40), outline=art.INK
    )
    for x in (-0.6, 0.4):
        draw.rectangle((cx + x * s, cy - 0.25 * s, cx + (x + 0.2) * s, cy + 0.6 * s), fill=stone, outline=dark)
    draw.rectangle((cx - 0.95 * s, cy + 0.6 * s, cx + 0.95 * s, cy + 0.9 * s), fill=stone, outline=art.INK)
    draw.ellipse((cx - 0.16 * s, cy + 0.05 * s, cx + 0.16 * s, cy + 0.37 * s), fill=(250, 200, 40))


def draw_fire(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A camp fire: an orange flame with a yellow heart over two logs."""
    s = size / 2
    flame = [(0.0, -1.0), (0.45, -0.35), (0.6, 0.15), (0.35, 0.6), (-0.35, 0.6), (-0.6, 0.15), (-0.3, -0.3)]
    draw.line(art._shape(cx, cy, s, [(-0.7, 0.9), (0.7, 0.55)]), fill=(110, 60, 20), width=max(2, int(s * 0.25)))
    draw.line(art._shape(cx, cy, s, [(-0.7, 0.55), (0.7, 0.9)]), fill=(90, 50, 15), width=max(2, int(s * 0.25)))
    draw.polygon(art._shape(cx, cy, s, flame), fill=(235, 90, 20), outline=(150, 30, 10))
    draw.polygon(
        art._shape(cx, cy, s, [(0.0, -0.35), (0.3, 0.15), (0.15, 0.5), (-0.15, 0.5), (-0.3, 0.15)]), fill=(255, 215, 60)
    )


def draw_volcano(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A volcano: a brown cone with a glowing crater and a plume of smoke."""
    s = size / 2
    draw.ellipse(art._shape(cx, cy, s, [(-0.45, -1.0), (0.15, -0.55)]), fill=(150, 150, 150))
    draw.ellipse(art._shape(cx, cy, s, [(-0.05, -1.15), (0.55, -0.7)]), fill=(175, 175, 175))
    draw.polygon(
        art._shape(cx, cy, s, [(-1.0, 0.8), (-0.3, -0.45), (0.3, -0.45), (1.0, 0.8)]),
        fill=(112, 78, 52),
        outline=art.INK,
    )
    draw.polygon(
        art._shape(cx, cy, s, [(-0.3, -0.45), (0.3, -0.45), (0.12, 0.1), (-0.05, -0.1), (-0.15, 0.2)]),
        fill=(235, 70, 20),
    )


GLYPHS = {  # in the key's order
    "gold": Glyph("$", "gold nugget", draw_gold, 0.24, (0.12, 0.1)),
    "mushrooms": MUSHROOMS,
    "shrine": Glyph("Sr", "shrine", draw_shrine, 0.26, (0.13, 0.13)),
    "fire": Glyph("Fi", "fire", draw_fire, 0.25, (0.1, 0.13)),
    "volcano": Glyph("Vo", "volcano", draw_volcano, 0.36, (0.18, 0.15)),
}


def drawn_zone(zone: dict, tile: dict) -> DrawnZone:
    """A zone of hg2002_tiles.json: gold nuggets and mushrooms in forests, the shrine and the fire on
    meadows, and the volcano on the start tile's first meadow (the catalogue names it only in prose)."""
    gold = int(zone.get("gold", 0))
    specials = [name for name in ("shrine", "fire") if zone.get(name)]
    glyphs = ["gold"] * gold + ["mushrooms"] * bool(zone.get("mushrooms")) + specials
    first_meadow = min(z["zone"] for z in tile["zones"] if z["type"] == "meadow")
    if tile["kind"] == "start" and zone["zone"] == first_meadow:
        glyphs.append("volcano")
    notes = ["with " + count(gold, "gold nugget")] * bool(gold) + ["with mushrooms"] * bool(zone.get("mushrooms"))
    notes += [f"by the {name}" for name in specials]
    return hunters_zone(zone, tile, glyphs, notes)


PRESENTATION = Presentation(
    card=CARD,
    listed=1,
    gym_name="HuntersGatherersClassic",
    factory="classic_env",
    legend=LEGEND,
    compact_legend=COMPACT_LEGEND,
    occupy_help=OCCUPY_HELP,
    zone=drawn_zone,
    figures=FIGURES,
    key=draw_key,
    roles=ROLES,
    signs=SIGNS,
    compact_signs=COMPACT_SIGNS,
    glyphs=GLYPHS,
    terrains=LANDSCAPE,
    events={**EVENTS, "BONUS_EXTRA_TURN": lambda t: f"{t.player()} closed a forest with gold: a bonus tile turn"},
)
