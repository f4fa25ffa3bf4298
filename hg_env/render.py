"""Pictures of a game: a text board (``render_ansi``) and an image (``render_rgb``).

Both are drawn from the tile catalogue's facts (sides, zones, animals, fish,
lakes, specials), never from copied artwork. Directions follow RULES.md R2.2: a
tile placed with rotation r shows its printed side (d - r) % 4 in direction d,
and the clockwise order of zones along a side is unchanged.

Text block of one tile (5 rows x 9 columns; ``compact`` blocks are 3 x 7)::

    +..~~~..+     N side: . meadow  # forest  ~ river (meadow, river, meadow)
    #57     #     W side, tile id, E side
    #  ^o2  #     contents: menhir forest, lake with 2 fish (animals M A D T ...)
    # h1@o  #     occupant: hut of player 1 on the lake
    +#######+     S side; '*' corners mark the tile placed last

The picture draws the same facts as shapes: meadows green, forests dark green,
rivers as blue bands, lakes as blue discs with their fish, animals as lettered
tokens, pawns and huts in the players' colours.

The image needs Pillow, an optional extra (``pip install hg-env[render]``); it
is imported only when an image is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from hg_env.core.ruleset import get_ruleset
from hg_env.core.tiles import ANIMALS, DIRECTION_NAMES, FOREST, MEADOW, RIVER, load_catalogue

if TYPE_CHECKING:
    from PIL import Image, ImageDraw, ImageFont

    from hg_env.game import Game

# ---------------------------------------------------------------- catalogue views


@cache
def _catalogue_tiles() -> dict[int, dict]:
    return {t["id"]: t for t in load_catalogue(get_ruleset("hg2020").data_file)["tiles"]}


def tile_zones(tile: int) -> dict[int, dict]:
    """Local zone id -> the catalogue's zone record for one tile."""
    return {z["zone"]: z for z in _catalogue_tiles()[tile]["zones"]}


def side_zones(tile: int, rotation: int, direction: int) -> list[int]:
    """Local zones along the side shown in ``direction`` (clockwise order, R2.11)."""
    printed = DIRECTION_NAMES[(direction - rotation) % 4]
    return list(_catalogue_tiles()[tile]["sides"][printed]["zones"])


def zone_directions(tile: int, rotation: int, local: int) -> list[int]:
    """Directions (as placed, N=0 E=1 S=2 W=3) of the sides a zone touches."""
    edges = tile_zones(tile)[local].get("edges", [])
    return sorted((DIRECTION_NAMES.index(e) + rotation) % 4 for e in edges)


ROLE_NAMES = {"meadow": "hunter", "forest": "gatherer", "river": "fisher"}
SPECIAL_LABELS = {
    "shaman": "shaman",
    "logboat": "logboat",
    "hunting_trap": "hunting trap",
    "pit_trap": "pit trap",
    "wildfire": "wildfire",
    "raft": "raft",
}


def zone_summary(tile: int, local: int, rotation: int | None = None) -> str:
    """A readable description, e.g. ``meadow (N, W) with deer, tiger`` or ``lake with 2 fish``."""
    zone = tile_zones(tile)[local]
    kind = zone["type"]
    text = kind
    if kind == "forest" and zone.get("forest_kind") in ("menhir", "mushrooms"):
        text = f"{zone['forest_kind']} forest"
    if rotation is not None and kind != "lake":
        text += " (" + ", ".join(DIRECTION_NAMES[d] for d in zone_directions(tile, rotation, local)) + ")"
    extras = []
    if zone.get("animals"):
        extras.append("with " + ", ".join(zone["animals"]))
    if zone.get("fish"):
        extras.append(f"with {zone['fish']} fish")
    if kind == "river":
        if zone.get("lake") is not None:
            extras.append("into a lake")
        elif zone.get("ends_on_tile_without_lake"):
            extras.append("from a spring")
    if zone.get("special"):
        extras.append(SPECIAL_LABELS[zone["special"]])
    return " ".join([text, *extras])


def occupant_role(tile: int, kind: str, local: int) -> str:
    """``hunter`` / ``gatherer`` / ``fisher`` for a pawn, ``hut`` for a hut (R5.1)."""
    return "hut" if kind == "hut" else ROLE_NAMES[tile_zones(tile)[local]["type"]]


def player_name(seat: int, names: list[str] | None = None) -> str:
    return f"P{seat}" if not names else f"P{seat} ({names[seat]})"


def describe_event(event: dict, names: list[str] | None = None) -> str:
    """One scoring event (RULES.md Appendix B) as a short sentence."""
    kind = event["type"]

    def who(key: str) -> str:
        return " & ".join(player_name(p, names) for p in event.get(key, []))

    if kind == "FOREST_SCORED":
        mushrooms = f", {event['mushroomGroups']} mushroom groups" if event.get("mushroomGroups") else ""
        return f"{who('scorers')} +{event['points']}: forest of {event['tileCount']} tiles{mushrooms}"
    if kind == "RIVER_SCORED":
        return f"{who('scorers')} +{event['points']}: river of {event['tileCount']} tiles, {event['fish']} fish"
    if kind == "MEADOW_SCORED":
        animals = ", ".join(f"{n} {a}" for a, n in event["animals"].items() if n)
        return f"{who('scorers')} +{event['points']}: meadow ({animals})"
    if kind == "PIT_TRAP_SCORED":
        return f"{who('scorers')} +{event['points']}: pit trap bonus"
    if kind == "RIVER_SYSTEM_SCORED":
        return f"{who('scorers')} +{event['points']}: huts on {event['fish']} fish"
    if kind == "RAFT_SCORED":
        return f"{who('scorers')} +{event['points']}: raft, {event['lakes']} lakes"
    if kind == "LOGBOAT_SCORED":
        return f"{player_name(event['player'], names)} +{event['points']}: logboat, {event['lakes']} lakes"
    if kind == "HUNTING_TRAP_SCORED":
        return f"{player_name(event['player'], names)} +{event['points']}: hunting trap"
    if kind == "MENHIR_EXTRA_TURN":
        return f"{player_name(event['player'], names)} closed a menhir forest: extra turn"
    if kind == "TILE_DISCARDED":
        return f"tile {event['tile']} fits nowhere: discarded"
    if kind == "WINNERS":
        return f"winner: {who('players')} with {event['points']} points"
    return kind


def board_bounds(game: Game, margin: int = 1) -> tuple[int, int, int, int]:
    """(xmin, xmax, ymin, ymax), inclusive: the occupied positions plus ``margin`` cells."""
    placed = game.placed_tiles()
    xs = [x for _, x, _, _ in placed] or [0]
    ys = [y for _, _, y, _ in placed] or [0]
    reach = game.rules.reach  # positions off the board (R4.3) are never shown
    return (
        max(min(xs) - margin, -reach),
        min(max(xs) + margin, reach),
        max(min(ys) - margin, -reach),
        min(max(ys) + margin, reach),
    )


def _legal_positions(game: Game) -> set[tuple[int, int]]:
    return {(x, y) for x, y, _ in game.legal_placements()}


def _last_position(game: Game) -> tuple[int, int] | None:
    cell = int(game.state.last_cell[0])
    return None if cell < 0 else game.rules.board.xy(cell)


# ---------------------------------------------------------------- text board

SIDE_CHAR = {MEADOW: ".", FOREST: "#", RIVER: "~"}
ZONE_CHAR = {"meadow": ".", "forest": "#", "river": "~", "lake": "o"}
ANIMAL_CHAR = {"mammoth": "M", "aurochs": "A", "deer": "D", "tiger": "T"}
SPECIAL_CODES = {
    "shaman": "Sh",
    "logboat": "Lb",
    "hunting_trap": "Ht",
    "pit_trap": "Pt",
    "wildfire": "Wf",
    "raft": "Rf",
}
ANSI_COLORS = ("\x1b[31m", "\x1b[34m", "\x1b[32m", "\x1b[33m", "\x1b[35m")  # red blue green yellow purple
ANSI_RESET = "\x1b[0m"

ANSI_LEGEND = (
    "legend: . meadow  # forest  ~ river (a river side reads meadow~river~meadow)  * corners: the tile placed last\n"
    "        M mammoth  A aurochs  D deer  T tiger  x cancelled animal  o2 lake with 2 fish  f1 fish in a river\n"
    "        ^ menhir  % mushrooms  Sh shaman  Lb logboat  Ht hunting trap  Pt pit trap  Wf wildfire  Rf raft\n"
    "        p1@# pawn of P1 on a forest (@. meadow, @~ river)  h1@o hut of P1   x,y: the tile to place fits here"
)
COMPACT_LEGEND = (
    "legend: . meadow  # forest  ~ river   * corners: the tile placed last   x,y: the tile to place fits here\n"
    "        61p1# tile 61 with a pawn of P1 on its forest (. meadow, ~ river); h1o hut of P1 on a lake"
)


@dataclass(frozen=True)
class BlockStyle:
    """Size of one tile's character block: ``inner`` columns between the W and E sides."""

    inner: int  # characters between the corners (N/S side length)
    rows: int  # rows between the corners (E/W side length)

    @property
    def width(self) -> int:
        return self.inner + 2

    @property
    def height(self) -> int:
        return self.rows + 2


FULL, COMPACT = BlockStyle(7, 3), BlockStyle(5, 1)


def _side_text(tile: int, rotation: int, direction: int, style: BlockStyle = FULL) -> str:
    """The side's terrain, west to east for N/S and north to south for E/W."""
    terrain = int(get_ruleset("hg2020").tiles.SIDE_TYPE[tile, rotation, direction])
    length = style.inner if direction in (0, 2) else style.rows
    if terrain != RIVER:
        return SIDE_CHAR[terrain] * length
    river = "~" * (1 if length < 7 else 3)  # meadow, river, meadow
    return f"{river:.^{length}}"


def _contents_text(game: Game | None, tile: int) -> str:
    cancelled = _cancelled_by_zone(game, tile) if game is not None else {}
    parts = []
    for local, zone in sorted(tile_zones(tile).items()):
        crossed = cancelled.get(local, {})
        for animal in zone.get("animals", []):
            if crossed.get(animal, 0) > 0:
                crossed[animal] -= 1
                parts.append("x")
            else:
                parts.append(ANIMAL_CHAR[animal])
        if zone["type"] == "lake":
            parts.append(f"o{zone['fish']}")
        elif zone["type"] == "river" and zone.get("fish"):
            parts.append(f"f{zone['fish']}")
        elif zone.get("forest_kind") == "menhir":
            parts.append("^")
        elif zone.get("forest_kind") == "mushrooms":
            parts.append("%")
        if zone.get("special"):
            parts.append(SPECIAL_CODES[zone["special"]])
    text = "".join(parts)
    return text if len(text) <= 7 else text.replace("o", "")[:7]


def _tile_block(
    game: Game | None,
    tile: int,
    rotation: int,
    occupant: tuple[int, str] | None = None,
    last: bool = False,
    color: bool = False,
    style: BlockStyle = FULL,
) -> list[str]:
    """The character block of a tile; ``occupant`` is (seat, text) such as (1, "p1@#")."""
    corner = "*" if last else "+"
    north, east, south, west = (_side_text(tile, rotation, d, style) for d in range(4))
    seat, who = occupant or (None, "")
    if style == COMPACT:
        who = who.replace("@", "")
        inner = [f"{tile:<2}{who:>3}"]
        at = 0
    else:
        inner = [f"{tile:<7}", f"{_contents_text(game, tile):^7}", f"{who:^7}"]
        at = 2
    if color and who:
        inner[at] = inner[at].replace(who, ANSI_COLORS[seat] + who + ANSI_RESET)
    rows = [corner + north + corner]
    rows += [west[i] + inner[i] + east[i] for i in range(style.rows)]
    rows.append(corner + south[::-1] + corner)
    return rows


def _empty_block(label: str = "", style: BlockStyle = FULL) -> list[str]:
    rows = [" " * style.width] * style.height
    rows[style.height // 2] = f"{label:^{style.width}}"
    return rows


def _occupant_texts(game: Game) -> dict[tuple[int, int], tuple[int, str]]:
    out = {}
    for seat, kind, x, y, local in game.occupants():
        tile, _ = game.tile_at(x, y)
        out[(x, y)] = (seat, f"{kind[0]}{seat}@{ZONE_CHAR[tile_zones(tile)[local]['type']]}")
    return out


def ansi_board(game: Game, color: bool = False, compact: bool = False) -> str:
    """Only the board: tile blocks with x / y rulers, cropped to the occupied part plus one cell.

    ``compact`` uses 3 x 7 blocks (tile id and occupant only) instead of 5 x 9.
    """
    style = COMPACT if compact else FULL
    xmin, xmax, ymin, ymax = board_bounds(game)
    occupants = _occupant_texts(game)
    legal = _legal_positions(game)
    last = _last_position(game)
    lines = [(" " * 6 + "".join(f"{f'x={x}':^{style.width}}" for x in range(xmin, xmax + 1))).rstrip()]
    for y in range(ymin, ymax + 1):
        blocks = []
        for x in range(xmin, xmax + 1):
            placed = game.tile_at(x, y)
            if placed is None:
                blocks.append(_empty_block(f"{x},{y}" if (x, y) in legal else "", style))
            else:
                who = occupants.get((x, y))
                blocks.append(_tile_block(game, *placed, who, last=(x, y) == last, color=color, style=style))
        for row in range(style.height):
            label = f"y={y}" if row == style.height // 2 else ""
            lines.append((f"{label:>5} " + "".join(b[row] for b in blocks)).rstrip())
    return "\n".join(lines)


def ansi_board_width(game: Game, compact: bool = False) -> int:
    """Characters per line of ``ansi_board`` (to choose the compact form on narrow terminals)."""
    xmin, xmax, _, _ = board_bounds(game)
    return 6 + (xmax - xmin + 1) * (COMPACT if compact else FULL).width


def ansi_status(game: Game, names: list[str] | None = None, color: bool = False) -> str:
    """Scores, supplies, whose turn it is, and the tile to place in its four rotations."""
    lines = []
    for seat in range(game.num_players):
        pawns, huts = game.supply(seat)
        mark = ">" if seat == game.current_player and not game.is_over else " "
        name = player_name(seat, names)
        if color:
            name = ANSI_COLORS[seat] + name + ANSI_RESET
        lines.append(f"{mark} {name}: {game.scores[seat]} points, supply {pawns} pawns, {huts} huts")
    regular, menhir = game.deck_sizes
    lines.append(f"decks: {regular} regular tiles, {menhir} menhir tiles left")
    if game.is_over:
        lines.append("game over; winner(s): " + ", ".join(player_name(p, names) for p in game.winners))
        return "\n".join(lines)
    who = player_name(game.current_player, names)
    extra = " (menhir extra turn)" if game.extra_turn else ""
    tile = game.tile_to_place
    if game.phase == "place" and tile is not None:
        lines.append(f"{who} to place tile {tile}{extra}:")
        blocks = [_tile_block(None, tile, r) for r in range(4)]
        lines.append(("   " + "   ".join(f"{f'r{r}':^{FULL.width}}" for r in range(4))).rstrip())
        lines += ["   " + "   ".join(b[row] for b in blocks) for row in range(FULL.height)]
        lines.append("zones: " + "; ".join(f"{z} {zone_summary(tile, z)}" for z in sorted(tile_zones(tile))))
    elif game.phase == "occupy":
        x, y = _last_position(game)
        placed, rot = game.tile_at(x, y)
        lines.append(f"{who} may put a pawn or a hut on tile {placed}, just placed at ({x},{y}){extra}")
        zones = "; ".join(f"{z} {zone_summary(placed, z, rot)}" for z in sorted(tile_zones(placed)))
        lines.append(f"zones of tile {placed}: {zones}")
    elif game.phase == "retake":
        lines.append(f"{who} may take back one of their pawns (shaman){extra}")
    else:
        lines.append(f"{who} chooses how many deer the tigers eat near the pit trap")
    return "\n".join(lines)


def render_ansi(
    game: Game, names: list[str] | None = None, color: bool = False, compact: bool = False, legend: bool = True
) -> str:
    """The text board with a legend, scores, supplies and the tile to place.

    Plain text unless ``color`` (ANSI colours for the players); ``compact`` draws smaller tile blocks.
    """
    parts = [ansi_board(game, color, compact), ""]
    if legend:
        parts += [COMPACT_LEGEND if compact else ANSI_LEGEND, ""]
    return "\n".join([*parts, ansi_status(game, names, color)]) + "\n"


# ---------------------------------------------------------------- image: geometry in unit squares
#
# A tile is the unit square, x east, y south, (0, 0) its NW corner. Shapes are
# written for one canonical direction and turned clockwise a quarter at a time.

CENTER = np.array([0.5, 0.5])
DIR_VECTORS = np.array([(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)])  # N E S W
LAKE_RADIUS = 0.16
RIVER_WIDTH = 0.13

# Forest shapes, drawn for the directions named and turned for the others.
FOREST_CAP_N = [(0, 0), (1, 0), (0.78, 0.26), (0.22, 0.26)]
FOREST_CORNER_NE = [(0, 0), (1, 0), (1, 1), (0.74, 0.78), (0.62, 0.52), (0.48, 0.38), (0.22, 0.26)]
FOREST_BAND_NS = [
    (0, 0), (1, 0), (0.78, 0.26), (0.64, 0.36), (0.64, 0.64), (0.78, 0.74),
    (1, 1), (0, 1), (0.22, 0.74), (0.36, 0.64), (0.36, 0.36), (0.22, 0.26),
]  # fmt: skip
FOREST_ALL_BUT_W = [(0, 0), (1, 0), (1, 1), (0, 1), (0.26, 0.78), (0.42, 0.5), (0.26, 0.22)]


def _turn(points: list | np.ndarray, quarters: int) -> np.ndarray:
    """Turn unit-square points clockwise about the centre by ``quarters`` quarter turns."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    for _ in range(quarters % 4):
        p = np.stack([1.0 - p[:, 1], p[:, 0]], axis=1)
    return p


def forest_polygon(directions: list[int]) -> np.ndarray:
    """Outline of a forest zone touching the given sides (as placed)."""
    ds = sorted(directions)
    if len(ds) == 1:
        return _turn(FOREST_CAP_N, ds[0])
    if len(ds) == 2 and (ds[1] - ds[0]) == 2:
        return _turn(FOREST_BAND_NS, ds[0])
    if len(ds) == 2:
        first = ds[0] if (ds[0] + 1) % 4 == ds[1] else ds[1]  # the side clockwise before the other
        return _turn(FOREST_CORNER_NE, first)
    if len(ds) == 3:
        missing = ({0, 1, 2, 3} - set(ds)).pop()
        return _turn(FOREST_ALL_BUT_W, missing - 3)
    return np.array([(0, 0), (1, 0), (1, 1), (0, 1)], dtype=float)


@dataclass(frozen=True)
class TileGeometry:
    """Where each zone of a placed tile is drawn, in unit-square coordinates."""

    lakes: dict[int, np.ndarray]  # lake zone -> centre
    rivers: dict[int, np.ndarray]  # river zone -> polyline from its side(s) to a lake, spring or other side
    forests: dict[int, np.ndarray]  # forest zone -> polygon
    contents: dict[int, list[np.ndarray]]  # zone -> spots for its sign, glyph and animals (_content_spots)
    occupant_at: dict[int, np.ndarray]  # zone -> where an occupant stands


def _bezier(p0: np.ndarray, control: np.ndarray, p1: np.ndarray, steps: int = 12) -> np.ndarray:
    t = np.linspace(0.0, 1.0, steps)[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t**2 * p1


def _shapes(tile: int, rotation: int) -> tuple[dict, dict, dict]:
    """Lake centres, river polylines and forest polygons of a tile as placed."""
    zones = tile_zones(tile)
    dirs = {z: zone_directions(tile, rotation, z) for z in zones}
    lake_zones = [z for z in zones if zones[z]["type"] == "lake"]
    lakes = {}
    for z in lake_zones:
        # Lakes sit towards the rivers that feed them; two lakes (tile 83) move further apart.
        pull = np.mean([DIR_VECTORS[d] for r in zones[z]["rivers"] for d in dirs[r]], axis=0)
        lakes[z] = CENTER + (0.35 if len(lake_zones) > 1 else 0.18) * pull
    rivers, forests = {}, {}
    for z, zone in zones.items():
        mids = [CENTER + 0.5 * DIR_VECTORS[d] for d in dirs[z]]
        if zone["type"] == "forest":
            forests[z] = forest_polygon(dirs[z])
        elif zone["type"] == "river" and len(mids) == 2:
            rivers[z] = _bezier(mids[0], CENTER, mids[1])
        elif zone["type"] == "river":
            spring = CENTER + 0.2 * DIR_VECTORS[dirs[z][0]]
            rivers[z] = np.array([mids[0], lakes[zone["lake"]] if zone.get("lake") is not None else spring])
    return lakes, rivers, forests


def zone_raster(tile: int, rotation: int, size: int) -> np.ndarray:
    """[size, size] local zone id of every pixel of a tile as placed.

    Forests, rivers and lakes are their drawn shapes. Meadow pixels go to the
    meadow whose side stretches they are nearest to *without crossing* a river,
    lake or forest (a breadth-first fill from the tile border), so two meadows
    meet exactly where the artwork leaves them touching.
    """
    return _zone_raster(tile, rotation, size).copy()


@cache
def _zone_raster(tile: int, rotation: int, size: int) -> np.ndarray:
    Image, ImageDraw, _ = _pil()
    lakes, rivers, forests = _shapes(tile, rotation)
    canvas = Image.new("L", (size, size), 0)
    draw = ImageDraw.Draw(canvas)
    for z, poly in forests.items():
        draw.polygon([tuple(p) for p in poly * size], fill=z + 1)
    for z, line in rivers.items():
        draw.line([tuple(p) for p in line * size], fill=z + 1, width=max(1, int(RIVER_WIDTH * size)), joint="curve")
    r = LAKE_RADIUS * size
    for z, (x, y) in lakes.items():
        draw.ellipse((x * size - r, y * size - r, x * size + r, y * size + r), fill=z + 1)
    labels = np.asarray(canvas, dtype=np.int16) - 1  # -1: meadow not yet assigned
    meadow = labels < 0
    along = (np.arange(size) + 0.5) / size
    for d in range(4):
        on_side = side_zones(tile, rotation, d)
        # Border pixels of side d in clockwise order, and the zone each one meets.
        rows, cols = {
            0: (np.zeros(size, int), np.arange(size)),
            1: (np.arange(size), np.full(size, size - 1)),
            2: (np.full(size, size - 1), np.arange(size)[::-1]),
            3: (np.arange(size)[::-1], np.zeros(size, int)),
        }[d]
        slot = np.zeros(size, int) if len(on_side) == 1 else np.searchsorted([0.4, 0.6], along, side="right")
        zone = np.array(on_side)[slot]
        seed = meadow[rows, cols] & (labels[rows, cols] < 0)
        labels[rows[seed], cols[seed]] = zone[seed]
    while True:  # breadth-first: each round grows every meadow by one pixel, only through meadow
        grown = labels.copy()
        spread = np.where(meadow, labels, -1)
        for axis, step in ((0, 1), (0, -1), (1, 1), (1, -1)):
            neighbour = np.roll(spread, step, axis=axis)
            edge = [slice(None), slice(None)]
            edge[axis] = 0 if step == 1 else -1
            neighbour[tuple(edge)] = -1
            take = meadow & (grown < 0) & (neighbour >= 0)
            grown[take] = neighbour[take]
        if (grown == labels).all():
            return labels
        labels = grown


def _depth(mask: np.ndarray) -> np.ndarray:
    """Pixels to the nearest pixel outside ``mask`` (chessboard distance, never more than the
    true distance; the tile border counts as outside)."""
    depth = np.zeros(mask.shape, dtype=np.int16)
    inside = mask.copy()
    while inside.any():
        depth += inside
        padded = np.pad(inside, 1)
        shrunk = inside.copy()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                shrunk &= padded[1 + dy : 1 + dy + mask.shape[0], 1 + dx : 1 + dx + mask.shape[1]]
        inside = shrunk
    return depth


def _fits(mask: np.ndarray, half_w: int, half_h: int) -> np.ndarray:
    """[n, n] bool: a rectangle of the given half sizes (pixels) centred here lies inside ``mask``."""
    n = mask.shape[0]
    total = np.zeros((n + 1, n + 1), dtype=np.int32)
    total[1:, 1:] = mask.cumsum(0).cumsum(1)
    ys, xs = np.mgrid[0:n, 0:n]
    y0, y1, x0, x1 = ys - half_h, ys + half_h + 1, xs - half_w, xs + half_w + 1
    inside = (y0 >= 0) & (x0 >= 0) & (y1 <= n) & (x1 <= n)
    y0, y1, x0, x1 = (np.clip(a, 0, n) for a in (y0, y1, x0, x1))
    count = total[y1, x1] - total[y0, x1] - total[y1, x0] + total[y0, x0]
    return inside & (count == (2 * half_h + 1) * (2 * half_w + 1))


@dataclass(frozen=True)
class _Item:
    zone: int
    half_w: float  # unit-square half sizes of the item's box
    half_h: float
    occupant: bool = False


def _place_items(labels: np.ndarray, items: list[_Item], fixed: list[tuple[np.ndarray, _Item]]) -> list[np.ndarray]:
    """Greedy spots (unit coordinates) for boxes, each inside its own zone and clear of all others.

    Each item goes where its box fits inside its zone, as close to the zone's
    middle as possible and apart from the items (and ``fixed`` boxes) before it;
    failing that, where it has the most room.
    """
    n = labels.shape[0]
    placed = list(fixed)
    spots = []
    depths: dict[int, np.ndarray] = {}
    for item in items:
        mask = labels == item.zone
        if not mask.any():  # too thin to show at this resolution
            spots.append(np.array([0.5, 0.5]))
            continue
        if item.zone not in depths:
            depths[item.zone] = _depth(mask)
        ys, xs = np.nonzero(mask)
        points = np.stack([(xs + 0.5) / n, (ys + 0.5) / n], axis=1)
        low, high = np.array([item.half_w, item.half_h]) + 0.01, 0.99 - np.array([item.half_w, item.half_h])
        on_tile = ((points >= low) & (points <= high)).all(axis=1)  # the item would not hang over the edge
        fits = _fits(mask, int(item.half_w * n), int(item.half_h * n))[ys, xs]
        clear = np.ones(len(points), dtype=bool)
        for at, other in placed:
            gap = 0.04
            clear &= (np.abs(points[:, 0] - at[0]) >= item.half_w + other.half_w + gap) | (
                np.abs(points[:, 1] - at[1]) >= item.half_h + other.half_h + gap
            )
        room = np.minimum(depths[item.zone][ys, xs] / n, min(item.half_w, item.half_h))
        near = -np.linalg.norm(points - points.mean(axis=0), axis=1)
        score = np.where(fits & clear, 10.0, np.where(clear, 5.0, 0.0)) + 20.0 * on_tile + 3.0 * room + near
        spot = np.clip(points[int(np.argmax(score))], low, high)
        spots.append(spot)
        placed.append((spot, item))
    return spots


ANIMAL_RADIUS, OCCUPANT_RADIUS = 0.1, 0.13
GEOMETRY_GRID = 64  # resolution at which content spots are chosen


def _label_half_size(special: str) -> tuple[float, float]:
    """Unit-square half sizes of a special power's sign (one word per line)."""
    words = SPECIAL_LABELS[special].split()
    return 0.04 + 0.036 * max(len(w) for w in words), 0.03 + 0.06 * len(words)


@cache
def tile_geometry(tile: int, rotation: int) -> TileGeometry:
    """Zone shapes and the spots for contents and occupants, derived from the catalogue entry.

    Contents are placed biggest first (signs, glyphs, animals), then one spot per
    zone for an occupant, all apart from each other so that nothing hides anything.
    """
    lakes, rivers, forests = _shapes(tile, rotation)
    zones = tile_zones(tile)
    labels = _zone_raster(tile, rotation, GEOMETRY_GRID)
    contents: dict[int, list[np.ndarray]] = {z: [] for z in zones}
    occupant_at: dict[int, np.ndarray] = {}
    fixed = []  # lakes: the fish in the middle, a sign below, a hut on the shore
    for z, centre in lakes.items():
        if zones[z].get("special"):
            contents[z].append(centre + np.array([0.0, LAKE_RADIUS + 0.1]))
            fixed.append((contents[z][-1], _Item(z, *_label_half_size(zones[z]["special"]))))
        contents[z].append(centre)
        fixed.append((centre, _Item(z, LAKE_RADIUS, LAKE_RADIUS)))
        occupant_at[z] = np.clip(centre + np.array([0.17, -0.16]), 0.14, 0.86)  # a hut on the shore
        fixed.append((occupant_at[z], _Item(z, 0.1, 0.1, occupant=True)))
    wanted: list[_Item] = []
    for z, zone in zones.items():
        if zone["type"] != "lake" and zone.get("special"):
            wanted.append(_Item(z, *_label_half_size(zone["special"])))
    for z, zone in zones.items():
        if zone["type"] == "river" and zone.get("fish"):
            wanted.append(_Item(z, 0.13, 0.07))  # a fish and its count
        elif zone.get("forest_kind") == "menhir":
            wanted.append(_Item(z, 0.06, 0.13))
        elif zone.get("forest_kind") == "mushrooms":
            wanted.append(_Item(z, 0.13, 0.13))
    for z, zone in zones.items():
        wanted += [_Item(z, ANIMAL_RADIUS, ANIMAL_RADIUS)] * len(zone.get("animals", []))
    wanted += [_Item(z, OCCUPANT_RADIUS, OCCUPANT_RADIUS, occupant=True) for z in zones if z not in occupant_at]
    for item, spot in zip(wanted, _place_items(labels, wanted, fixed)):
        if item.occupant:
            occupant_at[item.zone] = spot
        else:
            contents[item.zone].append(spot)
    return TileGeometry(lakes, rivers, forests, contents, occupant_at)


# ---------------------------------------------------------------- image: drawing

PLAYER_COLORS = ((214, 39, 40), (31, 97, 214), (0, 158, 115), (240, 200, 0), (148, 60, 190))
PLAYER_COLOR_NAMES = ("red", "blue", "green", "yellow", "purple")
MEADOW_COLOR = (178, 212, 112)
MEADOW_BORDER = (128, 166, 70)  # where two meadows of one tile meet
FOREST_COLOR = (34, 96, 48)
FOREST_EDGE = (20, 62, 30)
RIVER_COLOR = (58, 140, 222)
LAKE_COLOR = (96, 172, 240)
WATER_EDGE = (26, 86, 160)
TABLE_COLOR = (238, 232, 218)
GRID_COLOR = (214, 206, 188)
INK = (30, 30, 30)
HIGHLIGHT = (255, 128, 0)  # frame of the tile placed last
CANCEL_COLOR = (200, 0, 0)  # the cross over animals cancelled by the hunting trap
ANIMAL_STYLE = {  # fill, letter colour
    "mammoth": ((120, 72, 40), (255, 255, 255)),
    "aurochs": ((45, 45, 45), (255, 255, 255)),
    "deer": ((222, 170, 96), (40, 25, 10)),
    "tiger": ((245, 130, 20), (0, 0, 0)),
}
ANIMAL_POINTS = {"mammoth": "3", "aurochs": "2", "deer": "1", "tiger": "eats a deer"}
SUPERSAMPLE = 3  # shapes are drawn larger and scaled down, for smooth edges
PANEL_WIDTH = 300


def _pil() -> tuple:
    """Pillow's modules, or a clear error naming the optional extra."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("drawing the board needs Pillow, an optional extra: pip install 'hg-env[render]'") from err
    return Image, ImageDraw, ImageFont


@cache
def _font(size: int) -> ImageFont.ImageFont:
    _, _, ImageFont = _pil()
    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1 with FreeType: a scalable font
    except (TypeError, ValueError, OSError):
        return ImageFont.load_default()


def _text_centered(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: tuple) -> None:
    draw.text(xy, text, fill=fill, font=_font(size), anchor="mm")


def _fish(draw: ImageDraw.ImageDraw, cx: float, cy: float, length: float, fill: tuple) -> None:
    """A fish facing right: an oval body and a triangular tail."""
    h = length * 0.45
    draw.ellipse((cx - length * 0.35, cy - h / 2, cx + length * 0.5, cy + h / 2), fill=fill)
    draw.polygon([(cx - length * 0.3, cy), (cx - length * 0.6, cy - h / 2), (cx - length * 0.6, cy + h / 2)], fill=fill)


def _menhir(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A standing stone: a tall grey slab with a rounded top."""
    w, h = size * 0.42, size
    draw.rounded_rectangle((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), radius=w * 0.45, fill=(170, 170, 165))
    draw.rounded_rectangle((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), radius=w * 0.45, outline=INK, width=2)
    draw.line((cx - w * 0.1, cy - h * 0.2, cx + w * 0.15, cy + h * 0.1), fill=(110, 110, 105), width=2)


def _mushroom(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A red cap with white dots on a pale stem."""
    r = size * 0.5
    draw.rectangle((cx - r * 0.28, cy - r * 0.1, cx + r * 0.28, cy + r * 0.8), fill=(245, 235, 215), outline=INK)
    draw.pieslice((cx - r, cy - r * 0.9, cx + r, cy + r * 0.9), 180, 360, fill=(215, 35, 35), outline=INK)
    for dx, dy in ((-0.5, -0.35), (0.1, -0.6), (0.5, -0.25)):
        d = r * 0.14
        draw.ellipse((cx + dx * r - d, cy + dy * r - d, cx + dx * r + d, cy + dy * r + d), fill=(255, 255, 255))


def _pawn(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple) -> None:
    """A meeple-like figure centred on (cx, cy): head, arms and legs."""
    s = size / 2
    body = [
        (-0.22, -0.55), (0.22, -0.55), (0.3, -0.3), (0.95, -0.18), (0.95, 0.08), (0.35, 0.12),
        (0.6, 0.95), (0.12, 0.95), (0.0, 0.55), (-0.12, 0.95), (-0.6, 0.95), (-0.35, 0.12),
        (-0.95, 0.08), (-0.95, -0.18), (-0.3, -0.3),
    ]  # fmt: skip
    draw.polygon([(cx + x * s, cy + y * s) for x, y in body], fill=fill, outline=INK, width=2)
    draw.ellipse((cx - 0.33 * s, cy - 1.0 * s, cx + 0.33 * s, cy - 0.4 * s), fill=fill, outline=INK, width=2)


def _hut(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple) -> None:
    """A hut centred on (cx, cy): a pointed roof over walls."""
    s = size / 2
    shape = [(-0.8, 0.75), (-0.8, -0.1), (0.0, -0.85), (0.8, -0.1), (0.8, 0.75)]
    draw.polygon([(cx + x * s, cy + y * s) for x, y in shape], fill=fill, outline=INK, width=2)
    draw.rectangle((cx - 0.2 * s, cy + 0.2 * s, cx + 0.2 * s, cy + 0.75 * s), fill=INK)


def _animal_token(draw: ImageDraw.ImageDraw, cx: float, cy: float, radius: float, animal: str) -> None:
    fill, letter = ANIMAL_STYLE[animal]
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=fill, outline=INK, width=1)
    if animal == "tiger":  # stripes, so the tiger reads apart from the deer
        for dx in (-0.45, 0.45):
            draw.line((cx + dx * radius, cy - radius * 0.85, cx + dx * radius * 0.7, cy - radius * 0.4), fill=INK)
    _text_centered(draw, (cx, cy + 0.5), ANIMAL_CHAR[animal], max(8, int(radius * 1.45)), letter)


def _content_spots(tile: int, rotation: int, local: int) -> dict[str, list[np.ndarray]]:
    """Unit-square spots of a zone's ``label`` (special power), ``glyph`` (menhir, mushrooms, fish) and
    ``animals``, in the order ``tile_geometry`` placed them."""
    zone = tile_zones(tile)[local]
    spots = list(tile_geometry(tile, rotation).contents[local])
    out: dict[str, list[np.ndarray]] = {"label": [], "glyph": [], "animals": []}
    if zone.get("special"):
        out["label"].append(spots.pop(0))
    if zone.get("forest_kind") in ("menhir", "mushrooms") or zone.get("fish"):
        out["glyph"].append(spots.pop(0))
    out["animals"] = spots
    return out


def _animal_positions(tile: int, rotation: int, local: int, px: int) -> list[tuple[str, float, float]]:
    """(animal, x, y) in tile pixels."""
    animals = tile_zones(tile)[local].get("animals", [])
    spots = _content_spots(tile, rotation, local)["animals"]
    return [(a, p[0] * px, p[1] * px) for a, p in zip(animals, spots)]


def _draw_tile_shapes(draw: ImageDraw.ImageDraw, tile: int, rotation: int, size: int) -> None:
    """Meadow, forests, rivers and lakes, at ``size`` pixels (supersampled)."""
    lakes, rivers, forests = _shapes(tile, rotation)
    draw.rectangle((0, 0, size, size), fill=MEADOW_COLOR)
    for poly in forests.values():
        draw.polygon([tuple(p) for p in poly * size], fill=FOREST_COLOR, outline=FOREST_EDGE, width=SUPERSAMPLE)
    zones = tile_zones(tile)
    width = int(RIVER_WIDTH * size)
    for z, line in rivers.items():
        points = [tuple(p) for p in line * size]
        draw.line(points, fill=RIVER_COLOR, width=width, joint="curve")
        if zones[z].get("ends_on_tile_without_lake"):  # a spring: the river starts here
            x, y = points[-1]
            r = width * 0.6
            draw.ellipse((x - r, y - r, x + r, y + r), fill=WATER_EDGE)
    r = LAKE_RADIUS * size
    for centre in lakes.values():
        x, y = centre * size
        draw.ellipse((x - r, y - r, x + r, y + r), fill=LAKE_COLOR, outline=WATER_EDGE, width=2 * SUPERSAMPLE)


def _meadow_borders(tile: int, rotation: int, px: int) -> np.ndarray:
    """[px, px] bool: pixels where two different meadows of the tile touch."""
    labels = _zone_raster(tile, rotation, px)
    meadow = np.isin(labels, [z for z, zone in tile_zones(tile).items() if zone["type"] == "meadow"])
    border = np.zeros(labels.shape, dtype=bool)
    across = meadow[:, 1:] & meadow[:, :-1] & (labels[:, 1:] != labels[:, :-1])
    down = meadow[1:, :] & meadow[:-1, :] & (labels[1:, :] != labels[:-1, :])
    border[:, 1:] |= across
    border[:, :-1] |= across
    border[1:, :] |= down
    border[:-1, :] |= down
    return border


def _draw_tile_marks(draw: ImageDraw.ImageDraw, tile: int, rotation: int, px: int) -> None:
    """Animals, fish, menhirs, mushrooms and special powers, at the final size (crisp)."""
    for z, zone in tile_zones(tile).items():
        spots = _content_spots(tile, rotation, z)
        for spot in spots["glyph"]:
            x, y = spot * px
            if zone.get("fish"):
                _fish(draw, x - px * 0.05, y, px * 0.13, (255, 255, 255))
                _text_centered(draw, (x + px * 0.06, y), str(zone["fish"]), max(10, px // 6), (255, 255, 255))
            elif zone.get("forest_kind") == "menhir":
                _menhir(draw, x, y, px * 0.26)
            else:
                _mushroom(draw, x, y, px * 0.26)
        for animal, ax, ay in _animal_positions(tile, rotation, z, px):
            _animal_token(draw, ax, ay, px * ANIMAL_RADIUS * 0.95, animal)
        for spot in spots["label"]:
            _special_label(draw, spot * px, SPECIAL_LABELS[zone["special"]], max(9, px // 9), px)


def _special_label(draw: ImageDraw.ImageDraw, at: np.ndarray, text: str, size: int, tile_px: int) -> None:
    """A special power's name on a small sign, one word per line."""
    font = _font(size)
    words = text.upper().split()
    line_h = size + 1
    top = at[1] - line_h * len(words) / 2
    boxes = [draw.textbbox((at[0], top + (i + 0.5) * line_h), w, font=font, anchor="mm") for i, w in enumerate(words)]
    left, right = min(b[0] for b in boxes) - 3, max(b[2] for b in boxes) + 3
    shift = max(0.0, 2 - left) - max(0.0, right - (tile_px - 3))  # keep the sign on the tile
    box = (left + shift, min(b[1] for b in boxes) - 2, right + shift, max(b[3] for b in boxes) + 2)
    draw.rounded_rectangle(box, radius=3, fill=(255, 250, 230), outline=(150, 40, 20))
    for i, word in enumerate(words):
        draw.text((at[0] + shift, top + (i + 0.5) * line_h), word, fill=(150, 40, 20), font=font, anchor="mm")


@cache
def _tile_image(tile: int, rotation: int, px: int) -> Image.Image:
    """A placed tile without occupants, cached per (tile, rotation, size)."""
    Image, ImageDraw, _ = _pil()
    big = Image.new("RGB", (px * SUPERSAMPLE, px * SUPERSAMPLE))
    _draw_tile_shapes(ImageDraw.Draw(big), tile, rotation, px * SUPERSAMPLE)
    image = big.resize((px, px), Image.Resampling.LANCZOS)
    pixels = np.asarray(image).copy()
    pixels[_meadow_borders(tile, rotation, px)] = MEADOW_BORDER
    image = Image.fromarray(pixels)
    draw = ImageDraw.Draw(image)
    _draw_tile_marks(draw, tile, rotation, px)
    draw.rectangle((0, 0, px - 1, px - 1), outline=(90, 110, 60))
    return image


def _cancelled_by_zone(game: Game, tile: int) -> dict[int, dict[str, int]]:
    """Local zone -> {animal: count cancelled by the hunting trap} (R7.10)."""
    tile_zone = game.rules.spec.tiles.TILE_ZONE
    out = {}
    for local in tile_zones(tile):
        z = int(tile_zone[tile, local])
        counts = game.state.cancelled[0, z]
        if counts.any():
            out[local] = {a: int(n) for a, n in zip(ANIMALS, counts) if n}
    return out


@dataclass(frozen=True)
class BoardLayout:
    """Pixel geometry of a board picture: which positions it shows and where."""

    bounds: tuple[int, int, int, int]  # xmin, xmax, ymin, ymax (inclusive)
    tile_px: int
    left: int  # pixel of the board's west edge
    top: int  # pixel of the board's north edge

    @property
    def columns(self) -> int:
        return self.bounds[1] - self.bounds[0] + 1

    @property
    def rows(self) -> int:
        return self.bounds[3] - self.bounds[2] + 1

    def cell_origin(self, x: int, y: int) -> tuple[int, int]:
        """Pixel of the NW corner of position (x, y)."""
        return self.left + (x - self.bounds[0]) * self.tile_px, self.top + (y - self.bounds[2]) * self.tile_px

    def point(self, x: int, y: int, unit: np.ndarray) -> tuple[int, int]:
        """Pixel of a unit-square point on the tile at (x, y)."""
        ox, oy = self.cell_origin(x, y)
        return round(ox + unit[0] * self.tile_px), round(oy + unit[1] * self.tile_px)

    def occupant_pixel(self, game: Game, x: int, y: int, local: int) -> tuple[int, int]:
        """Where the occupant on local zone ``local`` of the tile at (x, y) is drawn (its body's centre)."""
        tile, rot = game.tile_at(x, y)
        return self.point(x, y, tile_geometry(tile, rot).occupant_at[local])


def board_layout(game: Game, tile_px: int = 80, bounds: tuple[int, int, int, int] | None = None) -> BoardLayout:
    """The layout ``render_rgb`` uses for this game (same arguments)."""
    ruler = max(18, tile_px // 4)
    return BoardLayout(bounds or board_bounds(game), tile_px, left=ruler, top=ruler)


def render_rgb(
    game: Game,
    tile_px: int = 80,
    bounds: tuple[int, int, int, int] | None = None,
    names: list[str] | None = None,
    show_zone_numbers: bool = True,
) -> np.ndarray:
    """[H, W, 3] uint8 picture: the board (cropped, with a one-cell margin) and a side panel.

    ``bounds`` fixes the shown positions (e.g. the final board's, for an animation);
    ``show_zone_numbers`` labels the zones of the tile just placed while it awaits an occupant.
    """
    Image, ImageDraw, _ = _pil()
    layout = board_layout(game, tile_px, bounds)
    board_w = layout.left + layout.columns * tile_px + 8
    board_h = layout.top + layout.rows * tile_px + 8
    height = max(board_h, 600)
    image = Image.new("RGB", (board_w + PANEL_WIDTH, height), TABLE_COLOR)
    draw = ImageDraw.Draw(image)
    _draw_board(image, draw, game, layout, show_zone_numbers)
    _draw_panel(image, draw, game, board_w, names)
    return np.asarray(image, dtype=np.uint8).copy()


def _draw_board(image: Image.Image, draw: ImageDraw.ImageDraw, game: Game, layout: BoardLayout, numbers: bool) -> None:
    px = layout.tile_px
    xmin, xmax, ymin, ymax = layout.bounds
    legal = _legal_positions(game)
    for x in range(xmin, xmax + 1):
        cx, _ = layout.cell_origin(x, ymin)
        _text_centered(draw, (cx + px / 2, layout.top / 2), f"x={x}", max(9, px // 7), (90, 80, 60))
    for y in range(ymin, ymax + 1):
        _, cy = layout.cell_origin(xmin, y)
        _text_centered(draw, (layout.left / 2, cy + px / 2), str(y), max(9, px // 7), (90, 80, 60))
    for y in range(ymin, ymax + 1):
        for x in range(xmin, xmax + 1):
            ox, oy = layout.cell_origin(x, y)
            placed = game.tile_at(x, y)
            if placed is not None:
                image.paste(_tile_image(placed[0], placed[1], px), (ox, oy))
            elif (x, y) in legal:  # where the tile to place fits
                draw.rectangle((ox + 3, oy + 3, ox + px - 4, oy + px - 4), outline=(150, 140, 115), width=2)
                _text_centered(draw, (ox + px / 2, oy + px / 2), f"{x},{y}", max(9, px // 7), (130, 120, 95))
            else:
                draw.rectangle((ox, oy, ox + px - 1, oy + px - 1), outline=GRID_COLOR)
    _draw_cancelled(draw, game, layout)
    for seat, kind, x, y, local in game.occupants():
        cx, cy = layout.occupant_pixel(game, x, y, local)
        if kind == "hut":
            _hut(draw, cx, cy, px * 0.26, PLAYER_COLORS[seat])
        else:
            _pawn(draw, cx, cy, px * 0.3, PLAYER_COLORS[seat])
    last = _last_position(game)
    if last is not None:
        ox, oy = layout.cell_origin(*last)
        draw.rectangle((ox - 2, oy - 2, ox + px + 1, oy + px + 1), outline=INK, width=1)
        draw.rectangle((ox - 1, oy - 1, ox + px, oy + px), outline=HIGHLIGHT, width=4)
        if numbers and game.phase == "occupy":
            _draw_zone_numbers(draw, game, layout, last)


def _draw_cancelled(draw: ImageDraw.ImageDraw, game: Game, layout: BoardLayout) -> None:
    """Cross out animals cancelled by the hunting trap (R7.10)."""
    px = layout.tile_px
    for tile, x, y, rot in game.placed_tiles():
        for local, counts in _cancelled_by_zone(game, tile).items():
            left = dict(counts)
            for animal, ax, ay in _animal_positions(tile, rot, local, px):
                if left.get(animal, 0) <= 0:
                    continue
                left[animal] -= 1
                ox, oy = layout.cell_origin(x, y)
                cx, cy, r = ox + ax, oy + ay, px * ANIMAL_RADIUS * 0.95
                # A faded token under a red cross: still readable, clearly out of the game.
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(215, 215, 210), outline=(150, 150, 150))
                _text_centered(draw, (cx, cy + 0.5), ANIMAL_CHAR[animal], max(8, int(r * 1.45)), (130, 130, 130))
                r *= 1.15
                for sign in (1, -1):
                    draw.line((cx - r, cy - sign * r, cx + r, cy + sign * r), fill=CANCEL_COLOR, width=3)


def _draw_zone_numbers(draw: ImageDraw.ImageDraw, game: Game, layout: BoardLayout, at: tuple[int, int]) -> None:
    """Label the zones a pawn or hut may go on with their local ids (``pawn 2``, ``hut 8``)."""
    tile, rot = game.tile_at(*at)
    geo = tile_geometry(tile, rot)
    r = layout.tile_px * 0.08
    for local in sorted({z for _, z in game.legal_occupants()}):
        cx, cy = layout.point(*at, geo.occupant_at[local])
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 255, 255), outline=INK, width=2)
        _text_centered(draw, (cx, cy + 0.5), str(local), max(9, int(r * 1.5)), INK)


def _draw_panel(image: Image.Image, draw: ImageDraw.ImageDraw, game: Game, left: int, names: list[str] | None) -> None:
    """Scores, supplies, the tile to place, deck counts, recent scoring and a key."""
    x0, y = left + 12, 14
    draw.rectangle((left, 0, image.width, image.height), fill=(250, 247, 240))
    draw.line((left, 0, left, image.height), fill=GRID_COLOR, width=2)
    draw.text((x0, y), "Hunters & Gatherers", fill=INK, font=_font(18))
    y += 30
    for seat in range(game.num_players):
        color = PLAYER_COLORS[seat]
        turn = seat == game.current_player and not game.is_over
        if turn:
            draw.polygon([(x0 - 10, y + 4), (x0 - 3, y + 10), (x0 - 10, y + 16)], fill=INK)
        draw.rectangle((x0, y + 2, x0 + 16, y + 18), fill=color, outline=INK)
        name = player_name(seat, names)
        draw.text((x0 + 24, y + 1), f"{name}: {game.scores[seat]}", fill=INK, font=_font(16))
        pawns, huts = game.supply(seat)
        sx = x0 + 30
        for _ in range(pawns):
            _pawn(draw, sx, y + 32, 15, color)
            sx += 15
        sx += 8
        for _ in range(huts):
            _hut(draw, sx, y + 32, 15, color)
            sx += 17
        draw.text((x0 + 180, y + 25), f"{pawns} pawns, {huts} huts", fill=(90, 90, 90), font=_font(11))
        y += 50
    y += 4
    regular, menhir = game.deck_sizes
    if game.is_over:
        winners = " & ".join(player_name(p, names) for p in game.winners)
        draw.text((x0, y), f"Game over. Winner: {winners}", fill=INK, font=_font(14))
        y += 24
    else:
        who = player_name(game.current_player, names)
        extra = " (extra turn)" if game.extra_turn else ""
        verb = {"place": "to place", "occupy": "may add a pawn or hut", "retake": "may take back a pawn"}
        draw.text((x0, y), f"{who} {verb.get(game.phase, game.phase)}{extra}", fill=INK, font=_font(14))
        y += 22
        tile = game.tile_to_place
        if game.phase == "place" and tile is not None:
            size = 96
            image.paste(_tile_image(tile, 0, size), (x0, y))
            draw.rectangle((x0 - 1, y - 1, x0 + size, y + size), outline=INK)
            draw.text((x0 + size + 10, y + 4), f"tile {tile}", fill=INK, font=_font(16))
            for i, line in enumerate(("shown as r0;", "r1, r2, r3 turn it", "clockwise by quarters")):
                draw.text((x0 + size + 10, y + 28 + 15 * i), line, fill=(90, 90, 90), font=_font(11))
            y += size + 10
    draw.text((x0, y), f"Tiles left: {regular} regular, {menhir} menhir", fill=INK, font=_font(13))
    y += 24
    recent = [e for e in game.events if e["type"] not in ("TILE_DISCARDED",)][-5:]
    if recent:
        draw.text((x0, y), "Latest:", fill=INK, font=_font(13))
        y += 18
        for event in recent:
            text = describe_event(event)
            draw.text((x0 + 4, y), text if len(text) <= 38 else text[:37] + "…", fill=(60, 60, 60), font=_font(11))
            y += 15
        y += 8
    key_top = max(y, image.height - 118)
    for i, animal in enumerate(ANIMALS):
        ky = key_top + i * 22
        _animal_token(draw, x0 + 9, ky + 9, 9, animal)
        draw.text((x0 + 24, ky + 2), f"{animal}  {ANIMAL_POINTS[animal]}", fill=INK, font=_font(12))
    ky = key_top + 4 * 22
    _fish(draw, x0 + 9, ky + 8, 16, WATER_EDGE)
    draw.text((x0 + 24, ky + 2), "fish", fill=INK, font=_font(12))
    _menhir(draw, x0 + 120, key_top + 10, 18)
    draw.text((x0 + 132, key_top + 2), "menhir", fill=INK, font=_font(12))
    _mushroom(draw, x0 + 120, key_top + 34, 18)
    draw.text((x0 + 132, key_top + 26), "mushrooms", fill=INK, font=_font(12))


def save_image(array: np.ndarray, path: str) -> None:
    """Write an [H, W, 3] picture (PNG, or whatever the suffix says)."""
    Image, _, _ = _pil()
    Image.fromarray(array).save(path)
