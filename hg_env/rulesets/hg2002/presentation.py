"""How classic Hunters & Gatherers (2002/2014) is named and drawn (``hg_env.presentation``)."""

from __future__ import annotations

from hg_env.presentation import DrawnZone, Presentation
from hg_env.rulesets.hunters_gatherers_presentation import COMPACT_LEGEND, ROLES, count, draw_key, hunters_zone

LEGEND = (
    "legend: . meadow  # forest  ~ river (a side reads bank~bank; - from a spring)  * corners: last tile\n"
    "        , : ; a tile's 2nd, 3rd, 4th meadow  & H its 2nd, 3rd forest (one zone's sides share a sign)\n"
    "        M mammoth  A aurochs  D deer  T tiger  o2 lake with 2 fish  Vo the volcano (start tile)\n"
    "        $ gold nugget (closing its forest earns a bonus tile)  % mushrooms  Sr shrine  Fi fire\n"
    "        p1@# pawn of P1 on a forest (@. meadow, @~ river)  h1@o hut of P1   x,y: the tile fits here"
)
OCCUPY_HELP = "  pawn 2        a pawn on zone 2 of the tile just placed;  hut 8  a hut on zone 8"


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
    listed=1,
    gym_name="HuntersGatherersClassic",
    factory="classic_env",
    legend=LEGEND,
    compact_legend=COMPACT_LEGEND,
    occupy_help=OCCUPY_HELP,
    zone=drawn_zone,
    key=draw_key,
    roles=ROLES,
)
