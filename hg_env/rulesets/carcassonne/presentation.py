"""How Carcassonne is named and drawn (``hg_env.presentation``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hg_env import render as art
from hg_env.presentation import DrawnZone, Glyph, Presentation, Terrain, plain_zone
from hg_env.rulesets.carcassonne.features import ABBOT, COMPLETE_CLOISTER, KIND_RIVER, KIND_RIVER_LAKE, MEEPLE

if TYPE_CHECKING:
    from PIL import ImageDraw

    from hg_env.render import GameView, Told

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
CARD = """\
``ruleset="carcassonne"``: ``carcassonne_v0``, base Carcassonne with farmers, the abbot and the
river (docs/rules/carcassonne.md). Actions ``Discrete(5N + 21)``, observation ``(74, 25, 25)`` by
default; layout: place 4N | meeple 10 | abbot 10 | take the own abbot back from cell c (N) | none.
"""


COAT_COLOR = (30, 64, 170)
LAKE_COLOR, WATER_EDGE = (96, 172, 240), (26, 86, 160)
CITY_COLOR, CITY_WALL = (222, 188, 128), (116, 92, 70)
ROAD_COLOR, ROAD_EDGE = (247, 243, 230), (128, 118, 100)
# How the pictures draw the landscape (hg_env.presentation.Terrain): fields fill the tile (a farmer lies
# down), walled cities grow from their sides over the ends of the roads that reach their gates, roads end
# at the monastery, the gate or a crossing, the river runs from its spring to its pond.
LANDSCAPE = {
    "field": Terrain("ground", (178, 212, 112), (128, 166, 70), lying=True),
    "city": Terrain("polygon", CITY_COLOR, CITY_WALL, walled=True),
    "road": Terrain("path", ROAD_COLOR, ROAD_EDGE, width=0.11),
    "river": Terrain("stream", (58, 140, 222), WATER_EDGE, width=0.13, spring=0.05, pool=LAKE_COLOR),
    "monastery": Terrain("plot"),
    "garden": Terrain("plot"),
}


def draw_coat_of_arms(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A coat of arms: a blue shield with a white rim and a white cross."""
    s = size / 2
    shield = [(-0.8, -0.9), (0.8, -0.9), (0.8, 0.1), (0.0, 0.95), (-0.8, 0.1)]
    draw.polygon(art._shape(cx, cy, s, shield), fill=COAT_COLOR, outline=(255, 255, 255), width=2)
    w = max(1, int(s * 0.22))
    draw.line(art._shape(cx, cy, s, [(0.0, -0.7), (0.0, 0.65)]), fill=(255, 255, 255), width=w)
    draw.line(art._shape(cx, cy, s, [(-0.6, -0.25), (0.6, -0.25)]), fill=(255, 255, 255), width=w)


def draw_monastery(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A monastery: a white church with a red roof and a bell tower with a cross."""
    s = size / 2
    wall, roof = (246, 240, 226), (190, 52, 40)
    draw.rectangle((cx - 0.85 * s, cy - 0.1 * s, cx + 0.45 * s, cy + 0.85 * s), fill=wall, outline=art.INK)
    draw.polygon(art._shape(cx, cy, s, [(-0.98, -0.05), (-0.2, -0.6), (0.58, -0.05)]), fill=roof, outline=art.INK)
    draw.rectangle((cx + 0.45 * s, cy - 0.55 * s, cx + 0.9 * s, cy + 0.85 * s), fill=wall, outline=art.INK)
    draw.polygon(art._shape(cx, cy, s, [(0.38, -0.5), (0.675, -0.9), (0.97, -0.5)]), fill=roof, outline=art.INK)
    draw.line(art._shape(cx, cy, s, [(0.675, -0.9), (0.675, -1.15)]), fill=art.INK, width=2)
    draw.line(art._shape(cx, cy, s, [(0.57, -1.05), (0.78, -1.05)]), fill=art.INK, width=2)
    draw.rectangle((cx - 0.32 * s, cy + 0.35 * s, cx - 0.08 * s, cy + 0.85 * s), fill=(110, 70, 40))


def draw_garden(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A garden: a hedged square with a fountain and flower beds."""
    s = size / 2
    draw.rounded_rectangle((cx - s, cy - s, cx + s, cy + s), radius=s * 0.3, fill=(92, 160, 60), outline=(24, 80, 30))
    draw.rounded_rectangle(
        (cx - 0.72 * s, cy - 0.72 * s, cx + 0.72 * s, cy + 0.72 * s), radius=s * 0.2, fill=(214, 196, 150)
    )
    for (fx, fy), color in zip(
        ((-0.4, -0.4), (0.4, -0.4), (-0.4, 0.4), (0.4, 0.4)), ((235, 60, 120),) * 2 + ((250, 210, 40),) * 2
    ):
        draw.ellipse(art._shape(cx, cy, s, [(fx - 0.24, fy - 0.24), (fx + 0.24, fy + 0.24)]), fill=(40, 120, 40))
        draw.ellipse(art._shape(cx, cy, s, [(fx - 0.09, fy - 0.09), (fx + 0.09, fy + 0.09)]), fill=color)
    draw.ellipse(art._shape(cx, cy, s, [(-0.2, -0.2), (0.2, 0.2)]), fill=LAKE_COLOR, outline=WATER_EDGE)


GLYPHS = {
    "coat": Glyph("S", "", draw_coat_of_arms, 0.21, (0.1, 0.11)),
    "monastery": Glyph("M", "", draw_monastery, 0.3),
    "garden": Glyph("G", "", draw_garden, 2 * art.PLOT_HALF),
}


def drawn_zone(zone: dict, tile: dict) -> DrawnZone:
    """A zone of carcassonne_tiles.json: a city's coats of arms, the cities a field borders, the river
    from its source (a spring) to its lake."""
    plain = plain_zone(zone, tile)
    coats = int(zone.get("pennants", 0))
    notes = [f"with {coats} coat{' of arms' if coats == 1 else 's of arms'}"] * bool(coats)
    if zone.get("cities"):
        notes.append(f"next to city {', '.join(map(str, zone['cities']))}")
    spring = plain.type == "river" and plain.ends and tile["kind"] == "river_source"
    pond = plain.type == "river" and plain.ends and tile["kind"] == "river_lake"
    if plain.type == "river" and plain.ends:
        notes.append("from its spring" if spring else "into the lake")
    glyphs = (plain.type,) if plain.type in ("monastery", "garden") else ("coat",) * coats
    return DrawnZone(**{**plain.__dict__, "glyphs": glyphs, "notes": tuple(notes), "spring": spring, "pond": pond})


def draw_abbot(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple, lying: bool = False) -> None:
    """An abbot centred on (cx, cy): a long robe, a hood, and a white rope belt (he never lies down)."""
    s = size / 2
    robe = [(-0.62, 0.95), (-0.4, 0.1), (-0.3, -0.45), (0.3, -0.45), (0.4, 0.1), (0.62, 0.95)]
    draw.polygon(art._shape(cx, cy, s, robe), fill=fill, outline=art.INK, width=2)
    draw.ellipse(art._shape(cx, cy, s, [(-0.36, -1.05), (0.36, -0.35)]), fill=fill, outline=art.INK, width=2)
    draw.ellipse(art._shape(cx, cy, s, [(-0.18, -0.82), (0.18, -0.5)]), fill=(240, 205, 170))
    draw.line(art._shape(cx, cy, s, [(-0.42, 0.3), (0.42, 0.3)]), fill=(255, 255, 255), width=max(1, int(s * 0.15)))


def draw_key(draw: ImageDraw.ImageDraw, game: GameView, x0: int, key_top: int) -> int:
    """The picture's key: cities, coats of arms, roads, monasteries and gardens with their points (left),
    the figures (right); returns the y below."""
    points, font = game.rules.spec.points, art._font(12)
    ky = key_top
    draw.rectangle((x0 + 1, ky + 1, x0 + 17, ky + 15), fill=CITY_COLOR, outline=CITY_WALL, width=2)
    draw.text((x0 + 24, ky + 2), f"city  {points.enclosure_tile} a tile", fill=art.INK, font=font)
    ky += 22
    draw_coat_of_arms(draw, x0 + 9, ky + 8, 15)
    draw.text((x0 + 24, ky + 2), f"coat of arms  +{points.enclosure_bonus}", fill=art.INK, font=font)
    ky += 22
    draw.line((x0, ky + 8, x0 + 18, ky + 8), fill=ROAD_EDGE, width=7)
    draw.line((x0, ky + 8, x0 + 18, ky + 8), fill=ROAD_COLOR, width=4)
    draw.text((x0 + 24, ky + 2), f"road  {points.path_tile} a tile", fill=art.INK, font=font)
    ky += 22
    draw_monastery(draw, x0 + 9, ky + 9, 17)
    draw.text((x0 + 24, ky + 2), f"monastery  {COMPLETE_CLOISTER}", fill=art.INK, font=font)
    ky += 22
    draw_garden(draw, x0 + 9, ky + 9, 16)
    draw.text((x0 + 24, ky + 2), f"garden  {COMPLETE_CLOISTER} (abbot)", fill=art.INK, font=font)
    abbot = game.rules.spec.pieces_of(game.rules)[ABBOT] > 0
    figures = [(("knight (city), monk,", "highwayman (road)"), False, MEEPLE), (("farmer (field)",), True, MEEPLE)]
    figures += [(("abbot (monastery,", "garden)"), False, ABBOT)] * abbot
    for i, (lines, lying, piece) in enumerate(figures):
        fy = key_top + 12 + 34 * i
        art._figure(draw, game.ruleset, piece, lying, x0 + 135, fy, 18, (120, 120, 120))
        for k, line in enumerate(lines):
            draw.text((x0 + 150, fy - 7 + 13 * k - 6 * (len(lines) - 1)), line, fill=art.INK, font=font)
    return ky + 26


def _city(told: Told) -> str:
    coats = f", {art._count(told['coats'], 'coat of arms', 'coats of arms')}" if told.get("coats") else ""
    tiles = art._count(told["tileCount"], "tile")
    return f"{told.who('scorers')} +{told['points']}: {told.state} city of {tiles}{coats}"


def _cloister(told: Told) -> str:
    feature = told["type"].split("_")[0].lower()
    around = "" if told.get("complete", True) else f" with {art._count(told['neighbours'], 'neighbour')}"
    return f"{told.who('scorers')} +{told['points']}: {told.state} {feature}{around}"


def _abbot(told: Told) -> str:
    around = art._count(told["neighbours"], "neighbour")
    return f"{told.player()} took the abbot back from a {told['feature']}: +{told['points']} ({around})"


def _field(told: Told) -> str:
    cities = art._count(told["cities"], "completed city", "completed cities")
    return f"{told.who('scorers')} +{told['points']}: farmers of a field next to {cities}"


EVENTS = {
    "CITY_SCORED": _city,
    "ROAD_SCORED": lambda t: (
        f"{t.who('scorers')} +{t['points']}: {t.state} road of {art._count(t['tileCount'], 'tile')}"
    ),
    "MONASTERY_SCORED": _cloister,
    "GARDEN_SCORED": _cloister,
    "ABBOT_RETURNED": _abbot,
    "FIELD_SCORED": _field,
}


def river_left(game: GameView) -> str:
    """The text's note on the deck: ``, the next 8 river tiles`` while river tiles are to come (V1.1)."""
    s = game.state
    left = s.regular_deck[0, s.regular_next[0] : s.regular_len[0]]
    river = int(np.isin(game.rules.spec.tiles.TILE_KIND[left], [KIND_RIVER, KIND_RIVER_LAKE]).sum())
    return f", the next {river} river tiles" if river else ""


def recall_move(game: GameView, decision: tuple) -> str:
    """``hgenv play``'s line for taking the abbot back (A1.5): its feature and what it scores now
    (1 + the neighbouring tiles)."""
    _, x, y = decision
    tile, _ = game.tile_at(x, y)
    feature = art.tile_zones(game.ruleset, tile)[int(game.state.occupant_local[0, tile])].type
    points = sum(game.tile_at(x + dx, y + dy) is not None for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    return f"retake {x} {y}: take your abbot back from the {feature} at ({x},{y}), scoring {points} now"


PRESENTATION = Presentation(
    card=CARD,
    listed=2,
    gym_name="Carcassonne",
    factory="carcassonne_env",
    legend=LEGEND,
    compact_legend=COMPACT_LEGEND,
    occupy_help=OCCUPY_HELP,
    zone=drawn_zone,
    figures={MEEPLE: art.person, ABBOT: draw_abbot},
    key=draw_key,
    glyphs=GLYPHS,
    terrains=LANDSCAPE,
    # A city running through a tile (tile 18) never reads like two city caps (tile 19): one zone's sides share
    # its sign, a tile's second city reads c. Roads and the river read apart by their banks.
    signs={"field": ".,:;", "city": "Cc", "road": "=", "river": "~", "monastery": "M", "garden": "G"},
    compact_signs=("city", "monastery", "garden", "road", "river"),  # a compact tile's order (the rest is field)
    events=EVENTS,
    roles={"city": "knight", "road": "highwayman", "field": "farmer", "monastery": "monk"},  # B3.10
    moves={"retake": recall_move},
    offers={"retake": "take back their abbot"},  # A1.5, instead of a meeple
    deck_note=river_left,
)
