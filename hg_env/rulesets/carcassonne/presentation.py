"""How Carcassonne is named and drawn (``hg_env.presentation``)."""

from __future__ import annotations

from hg_env.presentation import DrawnZone, Presentation, plain_zone

LEGEND = (
    "legend: . field  C city  = road (a side: bank=bank)  ~ river (- from a spring)  * corners: last tile\n"
    "        , : ; a tile's 2nd, 3rd, 4th field  c its 2nd city (one zone's sides share a sign)\n"
    "        S coat of arms  M monastery  G garden\n"
    "        m1@C meeple of P1: knight on a city (@= highwayman on a road, @. farmer on a field, @M monk)\n"
    "        a1@G abbot of P1 on a garden (a1@M on a monastery)   x,y: the tile to place fits here"
)
COMPACT_LEGEND = (
    "legend: a tile shows its figure, else its features: C city  M monastery  G garden  = road  ~ river\n"
    "        m1C meeple of P1 on a city (= road, . field, M monk)  a1G abbot  * last tile  [ ] tile fits"
)
OCCUPY_HELP = (
    "  meeple 2      a meeple on zone 2 of the tile just placed: a knight on a city, a highwayman on a\n"
    "                road, a farmer on a field (it lies down), a monk on a monastery\n"
    "  abbot 8       your abbot on zone 8, a monastery or a garden\n"
    "  retake 1 -2   instead of placing a figure, take your abbot back from (1,-2): it scores at once"
)


def drawn_zone(zone: dict, tile: dict) -> DrawnZone:
    """A zone of carcassonne_tiles.json: a city's coats of arms, the cities a field borders, the river
    from its source (a spring) to its lake."""
    plain = plain_zone(zone, tile)
    coats = int(zone.get("pennants", 0))
    notes = [f"with {coats} coat{' of arms' if coats == 1 else 's of arms'}"] * bool(coats)
    if zone.get("cities"):
        notes.append(f"next to city {', '.join(map(str, zone['cities']))}")
    spring = plain.type == "river" and plain.ends and tile["kind"] == "river_source"
    if plain.type == "river" and plain.ends:
        notes.append("from its spring" if spring else "into the lake")
    glyphs = (*plain.glyphs, *["coat"] * coats)
    return DrawnZone(**{**plain.__dict__, "glyphs": glyphs, "notes": tuple(notes), "spring": spring})


PRESENTATION = Presentation(
    listed=2,
    gym_name="Carcassonne",
    factory="carcassonne_env",
    legend=LEGEND,
    compact_legend=COMPACT_LEGEND,
    occupy_help=OCCUPY_HELP,
    zone=drawn_zone,
)
