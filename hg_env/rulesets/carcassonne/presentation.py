"""How Carcassonne is named and drawn (``hg_env.presentation``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hg_env.core.ruleset import ABBOT, PAWN
from hg_env.presentation import DrawnZone, Presentation, plain_zone
from hg_env.rulesets.carcassonne.features import COMPLETE_CLOISTER

if TYPE_CHECKING:
    from PIL import ImageDraw

    from hg_env.render import GameView

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


def draw_key(draw: ImageDraw.ImageDraw, game: GameView, x0: int, key_top: int) -> int:
    """The picture's key: cities, coats of arms, roads, monasteries and gardens with their points (left),
    the figures (right); returns the y below."""
    from hg_env import render as art

    points, font = game.rules.spec.points, art._font(12)
    ky = key_top
    draw.rectangle((x0 + 1, ky + 1, x0 + 17, ky + 15), fill=art.CITY_COLOR, outline=art.CITY_WALL, width=2)
    draw.text((x0 + 24, ky + 2), f"city  {points.forest_tile} a tile", fill=art.INK, font=font)
    ky += 22
    art._coat_of_arms(draw, x0 + 9, ky + 8, 15)
    draw.text((x0 + 24, ky + 2), f"coat of arms  +{points.forest_bonus}", fill=art.INK, font=font)
    ky += 22
    draw.line((x0, ky + 8, x0 + 18, ky + 8), fill=art.ROAD_EDGE, width=7)
    draw.line((x0, ky + 8, x0 + 18, ky + 8), fill=art.ROAD_COLOR, width=4)
    draw.text((x0 + 24, ky + 2), f"road  {points.river_tile} a tile", fill=art.INK, font=font)
    ky += 22
    art._monastery(draw, x0 + 9, ky + 9, 17)
    draw.text((x0 + 24, ky + 2), f"monastery  {COMPLETE_CLOISTER}", fill=art.INK, font=font)
    ky += 22
    art._garden(draw, x0 + 9, ky + 9, 16)
    draw.text((x0 + 24, ky + 2), f"garden  {COMPLETE_CLOISTER} (abbot)", fill=art.INK, font=font)
    abbot = game.rules.spec.pieces_of(game.rules)[ABBOT] > 0
    figures = [(("knight (city), monk,", "highwayman (road)"), False, PAWN), (("farmer (field)",), True, PAWN)]
    figures += [(("abbot (monastery,", "garden)"), False, ABBOT)] * abbot
    for i, (lines, lying, piece) in enumerate(figures):
        fy = key_top + 12 + 34 * i
        art._figure(draw, piece, lying, x0 + 135, fy, 18, (120, 120, 120))
        for k, line in enumerate(lines):
            draw.text((x0 + 150, fy - 7 + 13 * k - 6 * (len(lines) - 1)), line, fill=art.INK, font=font)
    return ky + 26


PRESENTATION = Presentation(
    listed=2,
    gym_name="Carcassonne",
    factory="carcassonne_env",
    legend=LEGEND,
    compact_legend=COMPACT_LEGEND,
    occupy_help=OCCUPY_HELP,
    zone=drawn_zone,
    key=draw_key,
    roles={"city": "knight", "road": "highwayman", "field": "farmer", "monastery": "monk"},  # B3.10
)
