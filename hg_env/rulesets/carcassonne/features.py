"""The rule functions of base Carcassonne (docs/rules/carcassonne.md): what roads, cities, fields,
monasteries, gardens, the abbot and the river need beyond the shared turn flow.

Roads and cities are the engine's closable areas (river and forest roles): completed ones score in
the shared T5 step (B4.3, B4.4). This module adds monasteries and gardens ("cloisters": their value
is the number of tiles in their 3x3 block, B4.5, B5.2.3), the abbot's return (A1.5), final scoring
with farmers (B5.2, F1.4), the river's placement rule (V1.4, V1.5), the deal, and the Carcassonne
parts of the observation and of the search estimate.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from hg_env.core.areas import ATTACHED_VALUE, OPEN, TILES, tile_members
from hg_env.core.arrays import nonzero
from hg_env.core.engine import log_events, occupied_roots, remove_figures
from hg_env.core.rules import Rules
from hg_env.core.ruleset import AREA_PIECE, SPECIAL_PIECE, Decision
from hg_env.core.scoring import majority
from hg_env.core.search import completion_probability
from hg_env.core.state import OCCUPY, State
from hg_env.core.tiles import (
    C_BONUS,
    DIRECTION_OFFSETS,
    DIVIDER,
    FIRST_OWN_KIND,
    KIND_REGULAR,
    KIND_START,
    Z_BLOCK_A,
    Z_BLOCK_B,
    Z_DIVIDER,
    Z_ENCLOSURE,
    Z_LAND,
    Z_PATH,
    TileSet,
)

# What Carcassonne calls the core's roles (hg_env.core.ruleset, hg_env.core.tiles): its figures, the monastery
# and the garden (scored by their 3x3 block), the river (a divider: it splits fields, nobody stands on it).
MEEPLE, ABBOT = AREA_PIECE, SPECIAL_PIECE
Z_MONASTERY, Z_GARDEN, Z_WATER = Z_BLOCK_A, Z_BLOCK_B, Z_DIVIDER
WATER = DIVIDER  # the river's side terrain
# The river's own tile kinds: its tiles, its source (the start tile with the river) and its lake (dealt last).
KIND_RIVER, KIND_RIVER_SOURCE, KIND_RIVER_LAKE = range(FIRST_OWN_KIND, FIRST_OWN_KIND + 3)

COMPLETE_CLOISTER = 9  # B4.5: a tile and its 8 neighbours
FARMER_CITY = 3  # F1.4: per completed city bordering a field
FILL_HORIZON = 24.0  # search estimate: with this many tiles to come, a cloister's empty neighbours all fill


# ---------------------------------------------------------------- tables


@cache
def cloister_zones(tiles: TileSet) -> np.ndarray:
    """The zones that are monasteries or gardens."""
    return np.flatnonzero(np.isin(tiles.ZONE_TYPE, [Z_MONASTERY, Z_GARDEN]))


@cache
def field_zones(tiles: TileSet) -> np.ndarray:
    """The zones that are fields."""
    return np.flatnonzero(tiles.ZONE_TYPE == Z_LAND)


@cache
def cloister_local(tiles: TileSet) -> np.ndarray:
    """[tile] local id of its monastery or garden, -1 for none (a tile holds at most one)."""
    out = np.full(tiles.num_tiles, -1, dtype=np.int64)
    cloisters = cloister_zones(tiles)
    out[tiles.ZONE_TILE[cloisters]] = tiles.ZONE_LOCAL[cloisters]
    return out


def block_counts(state: State, g: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Tiles in the 3x3 block of each (game, cell): a cloister's value (B4.5, B5.2.3); off-board
    positions stay empty (R4.3)."""
    block = state.board.block[cells]  # [n, 9], -1 off the board
    filled = (block >= 0) & (state.board_tile[g[:, None], np.maximum(block, 0)] >= 0)
    return filled.sum(-1)


def _cloister_event(state: State, tile: int, seat: int, points: int, complete: bool) -> dict:
    tiles = state.spec.tiles
    zone = tiles.TILE_ZONE[tile, cloister_local(tiles)[tile]]
    kind = "MONASTERY" if tiles.ZONE_TYPE[zone] == Z_MONASTERY else "GARDEN"
    return {
        "type": f"{kind}_SCORED",
        "scorers": [seat],
        "points": points,
        "neighbours": points - 1,
        "complete": complete,
        "tile": tile,
    }


# ---------------------------------------------------------------- during the game


def score_turn(state: State, g: np.ndarray) -> None:
    """P4 (B4.1, B4.5, A1.4): occupied monasteries and gardens of the placed tile's 3x3 block that are
    now surrounded score 9 for their figure's owner, who takes the figure back."""
    tiles = state.spec.tiles
    block = state.board.block[state.last_cell[g]]  # [G, 9]
    rows, k = nonzero(block >= 0)
    cell = block[rows, k]
    game = g[rows]
    tile = state.board_tile[game, cell].astype(np.intp)
    local = cloister_local(tiles)[np.maximum(tile, 0)]
    occupied = (tile >= 0) & (local >= 0) & (state.occupant_seat[game, np.maximum(tile, 0)] >= 0)
    occupied &= state.occupant_local[game, np.maximum(tile, 0)] == local
    if not occupied.any():
        return
    game, cell, tile = game[occupied], cell[occupied], tile[occupied]
    complete = block_counts(state, game, cell) == COMPLETE_CLOISTER
    game, tile = game[complete], tile[complete]
    if not len(game):
        return
    seat = state.occupant_seat[game, tile].astype(np.intp)
    np.add.at(state.score, (game, seat), COMPLETE_CLOISTER)
    log_events(
        state, game, (_cloister_event(state, int(t), int(s), COMPLETE_CLOISTER, True) for t, s in zip(tile, seat))
    )
    remove_figures(state, game, tile)


def recallable(state: State, g: np.ndarray) -> np.ndarray:
    """[len(g), T] bool: the deciding seat's abbot, unless its monastery or garden is complete (A1.5, CQ5)."""
    own = (state.occupant_seat[g] == state.current[g, None]) & (state.occupant_kind[g] == ABBOT)
    gi, ti = nonzero(own)
    if len(gi):
        complete = block_counts(state, g[gi], state.tile_cell[g[gi], ti].astype(np.intp)) == COMPLETE_CLOISTER
        own[gi[complete], ti[complete]] = False
    return own


def recall(state: State, g: np.ndarray, cells: np.ndarray) -> None:
    """A1.5: the abbot on ``cells`` goes back to its owner's supply and scores its monastery or garden
    as at the end (1 + neighbours), at once."""
    tile = state.board_tile[g, cells].astype(np.intp)
    points = block_counts(state, g, cells)
    seat = state.current[g].astype(np.intp)
    np.add.at(state.score, (g, seat), points)
    tiles = state.spec.tiles
    zone = tiles.TILE_ZONE[tile, cloister_local(tiles)[tile]]
    feature = np.where(tiles.ZONE_TYPE[zone] == Z_MONASTERY, "monastery", "garden")
    log_events(
        state,
        g,
        (
            {"type": "ABBOT_RETURNED", "player": int(s), "points": int(p), "feature": str(f), "neighbours": int(p) - 1}
            for s, p, f in zip(seat, points, feature)
        ),
    )
    remove_figures(state, g, tile)


def recall_options(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells of the abbots the deciding seats may take back (``recallable``), by game: a seat has one
    abbot (A1.1), so a game offers at most one cell and no sort is needed."""
    gi, ti = nonzero(recallable(state, g))
    return gi, state.tile_cell[g[gi], ti].astype(np.int64)


def recall_decision(state: State, g: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The abbot taken back instead of placing an occupant (``recall``): the tile is done."""
    recall(state, g, cells)
    return g


def describe_recall(decoded: tuple) -> str:
    return f"retake abbot at ({decoded[1]},{decoded[2]})"


RECALL = Decision(
    name="retake",
    phase=OCCUPY,
    operand="cell",
    width=0,
    options=recall_options,
    apply=recall_decision,
    describe=describe_recall,  # a named function, not a lambda: agents holding the spec pickle (worker processes)
    noun="abbot",
)


# ---------------------------------------------------------------- final scoring


def completed_bordering_cities(state: State, games: np.ndarray, roots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For (game, field root) pairs: the number of distinct completed cities bordering each field
    (F1.5-F1.7), and the pairs' incomplete bordering city roots as (pair index, city root) arrays."""
    tables = state.spec.areas
    count = np.zeros(len(games), dtype=np.int64)
    if not len(games) or not tables.border_words:
        return count, (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))
    members = tile_members(state.area.borders[games, roots], len(tables.forest_zones))  # [K, cities]
    k, number = nonzero(members)
    city = state.area.find(games[k], tables.forest_zones[number])
    keys = np.sort(k.astype(np.int64) * state.spec.tiles.num_zones + city)
    keys = keys[np.diff(keys, prepend=-1) != 0]  # each city once per field
    k, city = np.divmod(keys, state.spec.tiles.num_zones)
    closed = state.area.open[games[k], city] == 0
    count += np.bincount(k[closed], minlength=len(games))
    return count, (k[~closed], city[~closed])


def final_scoring(state: State, g: np.ndarray, choice: np.ndarray | None) -> None:
    """B5.2: every figure left scores its feature by majority: incomplete roads 1 per tile, incomplete
    cities 1 per tile and coat of arms, monasteries and gardens 1 + neighbours, fields 3 per
    completed bordering city (farmers, F1.4)."""
    tiles = state.spec.tiles
    kind = tiles.ZONE_TYPE
    rows, root = occupied_roots(state, g, systems=False)
    held = np.isin(kind[root], [Z_ENCLOSURE, Z_PATH, Z_LAND])  # cloisters below
    rows, root = rows[held], root[held]
    game = g[rows]
    count = state.area.tile_count[game, root].astype(np.int64)
    coats = state.area.counts[game, root, C_BONUS].astype(np.int64)
    cities, _ = completed_bordering_cities(state, game, root)
    value = np.select(
        [kind[root] == Z_ENCLOSURE, kind[root] == Z_PATH],
        [count + coats, count],  # B5.2.1, B5.2.2: half a completed city's value
        FARMER_CITY * cities,
    )
    scorers = majority(state.area.occupants[game, root])
    np.add.at(state.score, game, value[:, None] * scorers)
    if state.events is not None:
        for i, x in enumerate(game):
            who = np.flatnonzero(scorers[i]).tolist()
            if kind[root[i]] == Z_LAND:
                if value[i] > 0:
                    state.events[x].append(
                        {"type": "FIELD_SCORED", "scorers": who, "points": int(value[i]), "cities": int(cities[i])}
                    )
                continue
            name = "CITY" if kind[root[i]] == Z_ENCLOSURE else "ROAD"
            event = {"type": f"{name}_SCORED", "scorers": who, "points": int(value[i]), "tileCount": int(count[i])}
            if name == "CITY":
                event["coats"] = int(coats[i])
            event["complete"] = False
            event["tileIds"] = np.flatnonzero(tile_members(state.area.tiles[x, root[i]], tiles.num_tiles)).tolist()
            state.events[x].append(event)
    # Monasteries and gardens with a monk or an abbot (B5.2.3, A1.6).
    local = cloister_local(tiles)
    gi, ti = nonzero((state.occupant_seat[g] >= 0) & (local >= 0)[None, :])
    on_cloister = state.occupant_local[g[gi], ti] == local[ti]
    gi, ti = gi[on_cloister], ti[on_cloister]
    game = g[gi]
    value = block_counts(state, game, state.tile_cell[game, ti].astype(np.intp))
    seat = state.occupant_seat[game, ti].astype(np.intp)
    np.add.at(state.score, (game, seat), value)
    log_events(
        state,
        game,
        (
            _cloister_event(state, int(t), int(s), int(v), bool(v == COMPLETE_CLOISTER))
            for t, s, v in zip(ti, seat, value)
        ),
    )


# ---------------------------------------------------------------- the river


def river_placements(state: State, gg: np.ndarray, tile: np.ndarray, words: np.ndarray) -> np.ndarray:
    """V1.4, V1.5: a river tile goes only at the river's open end, and never so that its river leaves
    towards a tile already placed further in that direction. Other tiles: unchanged.

    ``words`` [G, L] are the edge-matching fits of the frontier slots (``hooks.FilterPlacements``)."""
    tiles = state.spec.tiles
    kind = tiles.TILE_KIND[tile]
    river = np.flatnonzero((kind == KIND_RIVER) | (kind == KIND_RIVER_LAKE))
    if not len(river):
        return words
    words = words.copy()
    fits = words.view(bool).reshape(*words.shape, 4)  # [G, L, rot], a view: writes change ``words``
    cells = state.frontier[gg, : words.shape[1]]  # [G, L], -1 after each game's frontier
    bits, board = tiles.need_bits, state.board
    mask = (1 << bits) - 1
    for i in river:
        game = gg[i]
        need = state.need[game, np.maximum(cells[i], 0)].astype(np.int64)  # [L]
        faces_water = ((need[:, None] >> (bits * np.arange(4))) & mask) == WATER  # [L, dir]
        fits[i, ~faces_water.any(1)] = False  # V1.4: the open end is the empty cell a river side faces
        placed = np.flatnonzero(state.board_tile[game] >= 0)
        xs, ys = board.xs[placed], board.ys[placed]
        for slot, rot in zip(*np.nonzero(fits[i])):
            cell = cells[i, slot]
            water = np.flatnonzero(tiles.SIDE_TYPE[tile[i], rot] == WATER)
            leaving = [d for d in water if not faces_water[slot, d]]  # the lake has none
            for d in leaving:
                dx, dy = DIRECTION_OFFSETS[d]
                if (((xs - board.xs[cell]) * dx + (ys - board.ys[cell]) * dy) > 0).any():
                    fits[i, slot, rot] = False
    return words


# ---------------------------------------------------------------- decks


def deck_tiles(tiles: TileSet, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """The land deck (B1.5; with the river also its tiles, and the base start tile, V1.2, CQ2); no extra deck."""
    land = tiles.tiles_of_kind(KIND_REGULAR)
    if rules.river:
        river = np.flatnonzero(np.isin(tiles.TILE_KIND, [KIND_RIVER, KIND_RIVER_LAKE])).astype(np.int8)
        land = np.concatenate([river, tiles.tiles_of_kind(KIND_START), land])
    return land, np.zeros(0, dtype=np.int8)


@cache
def deal_rank(tiles: TileSet, rules: Rules) -> np.ndarray:
    """[tile] the order in which tiles are dealt: the river's tiles (rank 0), its lake (1), then the land
    tiles (2); tiles of one rank are shuffled together (V1.2, V1.3)."""
    rank = np.full(tiles.num_tiles, 2.0)
    if rules.river:
        rank[tiles.TILE_KIND == KIND_RIVER] = 0.0
        rank[tiles.TILE_KIND == KIND_RIVER_LAKE] = 1.0
    rank.flags.writeable = False
    return rank


def deal(tiles: TileSet, rules: Rules, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Shuffle the land deck (with the river: its tiles first, the lake last, then the land tiles)."""
    land, extra = deck_tiles(tiles, rules)
    keys = deal_rank(tiles, rules)[land] + rng.random(len(land))
    return land[np.argsort(keys, kind="stable")], extra


def check_deck_order(tiles: TileSet, rules: Rules, deck: np.ndarray) -> None:
    """V1.2, V1.3: with the river a given land deck draws the river tiles first, the lake last of them, then
    the land tiles (the source lies at (0,0): no deck holds it). ValueError naming the first tile out of order."""
    rank = deal_rank(tiles, rules)[deck]
    late = np.flatnonzero(rank[1:] < rank[:-1])
    if not len(late):
        return
    i = int(late[0])
    names = {0.0: "river tile", 1.0: "the lake", 2.0: "land tile"}
    first, then = (f"{names[float(rank[j])]} {int(deck[j])}" for j in (i, i + 1))
    raise ValueError(
        f"regular_deck draws {first} before {then}: with river=True the river tiles come first, the lake "
        "last of them, then the land tiles (carcassonne V1.2, V1.3)"
    )


def start_tile(tiles: TileSet, rules: Rules) -> int:
    """B1.4: the start tile; with the river its source (V1.2)."""
    kind = KIND_RIVER_SOURCE if rules.river else KIND_START
    return int(np.flatnonzero(kind == tiles.TILE_KIND)[0])


# ---------------------------------------------------------------- observation and estimate


def observe_areas(state: State, g: np.ndarray, roots: np.ndarray, sums: np.ndarray) -> None:
    """The observation's Carcassonne values, written into the zones' root rows ``sums`` [G, Z, NUM_SUMS]
    (column ATTACHED_VALUE holds the value): fields 3 per completed bordering city; monasteries and gardens
    open = empty neighbours, tiles = value = tiles in their 3x3 block."""
    tiles = state.spec.tiles
    fields = field_zones(tiles)
    field_roots = roots[:, fields]  # [G, fields]
    rows, j = nonzero((field_roots == fields) & (state.tile_cell[g][:, tiles.ZONE_TILE[fields]] >= 0))
    value = np.zeros((len(g), tiles.num_zones), dtype=np.int16)  # of the placed fields' roots
    if len(rows):
        cities, _ = completed_bordering_cities(state, g[rows], fields[j])
        value[rows, fields[j]] = FARMER_CITY * cities
    sums[:, fields, ATTACHED_VALUE] = value[np.arange(len(g))[:, None], field_roots]
    cloisters = cloister_zones(tiles)
    cell = state.tile_cell[g][:, tiles.ZONE_TILE[cloisters]]  # [G, cloisters]
    gi, ci = nonzero(cell >= 0)
    if len(gi):
        count = block_counts(state, g[gi], cell[gi, ci].astype(np.intp)).astype(np.int16)
        zc = cloisters[ci]
        sums[gi, zc, TILES] = count
        sums[gi, zc, ATTACHED_VALUE] = count
        sums[gi, zc, OPEN] = COMPLETE_CLOISTER - count


def estimate_areas(state: State, g: np.ndarray, z: np.ndarray, left: np.ndarray) -> np.ndarray:
    """Expected final value of (game, root) areas to their majority: a city between its incomplete and
    completed value by its chance of completion; a road 1 per tile either way; a field 3 per bordering
    city, completed or weighted by its chance; a cloister its block now plus its empty neighbours as
    they are likely to fill (``FILL_HORIZON``)."""
    tiles = state.spec.tiles
    kind = tiles.ZONE_TYPE[z]
    count = state.area.tile_count[g, z].astype(np.float64)
    coats = state.area.counts[g, z, C_BONUS].astype(np.float64)
    value = np.zeros(len(z))
    city = kind == Z_ENCLOSURE
    if city.any():
        p = completion_probability(state, g[city], z[city], left[city])
        done = state.spec.points.enclosure(count[city], coats[city])  # completed (B4.4); incomplete: 1 + 1 (B5.2)
        value[city] = p * done + (1 - p) * (count[city] + coats[city])
    road = kind == Z_PATH
    value[road] = state.spec.points.path(count[road], 0)  # 1 per tile, completed or not
    field = kind == Z_LAND
    if field.any():
        done, (k, open_city) = completed_bordering_cities(state, g[field], z[field])
        expected = done.astype(np.float64)
        if len(k):
            gf = g[field][k]
            np.add.at(expected, k, completion_probability(state, gf, open_city, left[field][k]))
        value[field] = FARMER_CITY * expected
    cloister = (kind == Z_MONASTERY) | (kind == Z_GARDEN)
    if cloister.any():
        cell = state.tile_cell[g[cloister], tiles.ZONE_TILE[z[cloister]]].astype(np.intp)
        filled = block_counts(state, g[cloister], cell)
        value[cloister] = filled + (COMPLETE_CLOISTER - filled) * np.minimum(1.0, left[cloister] / FILL_HORIZON)
    return value
