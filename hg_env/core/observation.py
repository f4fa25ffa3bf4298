"""Board tensors seen from one seat: [C, H, W] uint8, batched as [G, C, H, W].

Every channel is an integer plane over the board (H = W = 2 * board_reach + 1,
cell (x, y) at row y + reach, column x + reach). ``CHANNELS`` lists the names in
order; ``channel_high(reach)`` the largest value of each; ``CHANNEL_SCALE`` a
factor that brings each channel to about [0, 1] for a network.

Seats are relative to the observer: ``p0`` is the observer, ``p1`` the next
seat in turn order, and so on; seats beyond the number of players stay 0.

Tile planes (painted on the cell of every placed tile)
    tile                    1 where a tile lies
    tile_id                 tile id + 1
    rot0..rot3              rotation one-hot (R2.2)
    {N,E,S,W}_{meadow,forest,river}   terrain of each side as shown (R2.11)
    mammoth, aurochs, deer, tiger     live animals on the tile
    {animal}_cancelled      animals cancelled by the hunting trap (R7.10)
    fish, lakes, menhirs, mushrooms   on the tile (rivers and lakes; menhir / mushroom forests)
    shaman, logboat, hunting_trap, pit_trap, wildfire, raft   special power on the tile
    pawn_p0..p4, hut_p0..p4 owner of the tile's occupant, by relative seat
    occupant_zone           local zone id + 1 of that occupant (0 = none)
Area planes (per area type: forest, meadow, river, system = river system), painted
on every tile holding a zone of the area; if a tile holds several areas of one
type, each feature is the maximum over them. All clipped at 255.
    {type}_open             open connections (R2.15); 0 = closed
    {type}_tiles            distinct tiles (R2.17)
    {type}_value            points it is worth now: forest R6.2, river R6.3,
                            meadow R8.3 (wildfire included), system fish (+ lakes with the raft)
    {type}_occ_p0..p4       pawns (huts for systems) per relative seat
Decision planes
    legal_r0..legal_r3      the tile to place fits here with rotation r (place phase)
    last_placed             the tile placed last
Info planes: the vector ``INFO_FIELDS`` laid out row-major over as many planes as
needed (one for the default board), zeros after its end:
    score_lo_p*, score_hi_p*  score = lo + 256 * hi, per relative seat
    pawns_p*, huts_p*         supplies;  seated_p*  1 for seats in the game
    acting_p*                 one-hot: the seat whose decision it is
    phase_*                   one-hot place / retake / occupy / pit_trap / over
    extra_turn, regular_left, menhir_left   (deck sizes, R1.5)
    pit_lo, pit_hi            pit-trap choice range (player_choice option)
    to_place_t*               one-hot over the 95 tiles: the tile to place (R1.9)
    unseen_t*                 1 for tiles still in a deck (public: set, not order)
"""

from __future__ import annotations

from functools import cache

import numpy as np

from hg_env.core.areas import COUNTS, LAKE_FISH, NUM_SUMS, OCCUPANTS, OPEN, TILES, WORTH
from hg_env.core.rules import MAX_PLAYERS
from hg_env.core.state import OVER, PHASE_NAMES, PLACE, State
from hg_env.core.tiles import (
    ANIMALS,
    C_LAKES,
    DEER,
    DIRECTION_NAMES,
    NUM_TILES,
    NUM_ZONES,
    SIDE_TYPE,
    SPECIAL_TILE,
    SPECIAL_ZONE,
    SPECIALS,
    TIGER,
    TILE_ZONE,
    Z_FOREST,
    Z_LAKE,
    Z_MEADOW,
    Z_RIVER,
    ZONE_ANIMALS,
    ZONE_FISH,
    ZONE_MENHIR,
    ZONE_MUSHROOMS,
    ZONE_SPECIAL,
    ZONE_TILE,
    ZONE_TYPE,
)

SEATS = [f"p{k}" for k in range(MAX_PLAYERS)]
AREA_TYPES = ("forest", "meadow", "river", "system")
AREA_FEATURES = ["open", "tiles", "value"] + [f"occ_{p}" for p in SEATS]

STATIC_CHANNELS = (
    ["tile", "tile_id"]
    + [f"rot{r}" for r in range(4)]
    + [f"{d}_{t}" for d in DIRECTION_NAMES for t in ("meadow", "forest", "river")]
    + ["fish", "lakes", "menhirs", "mushrooms"]
    + list(SPECIALS[1:])
)
TILE_CHANNELS = (
    list(ANIMALS)
    + [f"{a}_cancelled" for a in ANIMALS]
    + [f"pawn_{p}" for p in SEATS]
    + [f"hut_{p}" for p in SEATS]
    + ["occupant_zone"]
    + [f"{t}_{f}" for t in AREA_TYPES for f in AREA_FEATURES]
)
DECISION_CHANNELS = [f"legal_r{r}" for r in range(4)] + ["last_placed"]
INFO_FIELDS = (
    [f"score_lo_{p}" for p in SEATS]
    + [f"score_hi_{p}" for p in SEATS]
    + [f"pawns_{p}" for p in SEATS]
    + [f"huts_{p}" for p in SEATS]
    + [f"seated_{p}" for p in SEATS]
    + [f"acting_{p}" for p in SEATS]
    + [f"phase_{name}" for name in PHASE_NAMES]
    + ["extra_turn", "regular_left", "menhir_left", "pit_lo", "pit_hi"]
    + [f"to_place_t{t}" for t in range(NUM_TILES)]
    + [f"unseen_t{t}" for t in range(NUM_TILES)]
)
_INFO = {name: i for i, name in enumerate(INFO_FIELDS)}
_TC = {name: i for i, name in enumerate(TILE_CHANNELS)}
BOARD_CHANNELS = STATIC_CHANNELS + TILE_CHANNELS + DECISION_CHANNELS


def info_planes(reach: int) -> int:
    cells = (2 * reach + 1) ** 2
    return -(-len(INFO_FIELDS) // cells)


def channel_names(reach: int = 12) -> list[str]:
    """Names of the observation channels, in order, for a board of this reach."""
    return BOARD_CHANNELS + [f"info_{i}" for i in range(info_planes(reach))]


def _static_table() -> np.ndarray:
    """STATIC[tile * 4 + rot] -> static channel values; the last row (no tile) is zeros."""
    table = np.zeros((NUM_TILES * 4 + 1, len(STATIC_CHANNELS)), dtype=np.uint8)
    col = {name: i for i, name in enumerate(STATIC_CHANNELS)}
    per_tile = {
        "fish": np.bincount(ZONE_TILE, weights=ZONE_FISH, minlength=NUM_TILES),
        "lakes": np.bincount(ZONE_TILE, weights=ZONE_TYPE == Z_LAKE, minlength=NUM_TILES),
        "menhirs": np.bincount(ZONE_TILE, weights=ZONE_MENHIR, minlength=NUM_TILES),
        "mushrooms": np.bincount(ZONE_TILE, weights=ZONE_MUSHROOMS, minlength=NUM_TILES),
    }
    for tile in range(NUM_TILES):
        for rot in range(4):
            row = table[tile * 4 + rot]
            row[col["tile"]] = 1
            row[col["tile_id"]] = tile + 1
            row[col[f"rot{rot}"]] = 1
            for d, name in enumerate(DIRECTION_NAMES):
                terrain = ("meadow", "forest", "river")[SIDE_TYPE[tile, rot, d] - 1]
                row[col[f"{name}_{terrain}"]] = 1
            for name, counts in per_tile.items():
                row[col[name]] = counts[tile]
    for z in np.flatnonzero(ZONE_SPECIAL):
        for rot in range(4):
            table[ZONE_TILE[z] * 4 + rot, col[SPECIALS[ZONE_SPECIAL[z]]]] = 1
    return table


STATIC = _static_table()
_ZONE_STARTS = np.searchsorted(ZONE_TILE, np.arange(NUM_TILES))  # zones are sorted by tile
_PRINTED_ANIMALS = np.add.reduceat(ZONE_ANIMALS, _ZONE_STARTS, axis=0)  # [tile, animal]


def _zones_by_type() -> np.ndarray:
    """``[tile, k, type]`` the tile's k-th zone of each area type, as an index into the
    stacked zone table of ``_area_features``.

    The stacked table has the area partition's zones at 0..Z-1, the system
    partition's zones at Z..2Z-1 and a zero row at 2Z, where missing zones point.
    Types: forest, meadow, river, system."""
    groups = [((Z_FOREST,), 0), ((Z_MEADOW,), 0), ((Z_RIVER,), 0), ((Z_RIVER, Z_LAKE), NUM_ZONES)]
    lists = [
        [[z + offset for z in TILE_ZONE[t] if z >= 0 and ZONE_TYPE[z] in kinds] for kinds, offset in groups]
        for t in range(NUM_TILES)
    ]
    width = max(len(zs) for per_tile in lists for zs in per_tile)
    table = np.empty((NUM_TILES, width, len(groups)), dtype=np.intp)
    for t, per_tile in enumerate(lists):
        for i, zs in enumerate(per_tile):
            table[t, :, i] = zs + [2 * NUM_ZONES] * (width - len(zs))
    return table


_ZONE_SLOTS = _zones_by_type()
# Value of an area (R6.2, R6.3, R8.3) or river system (R8.2.3, R7.18), over the stacked zones:
#   worth (areas.WORTH) + tiles * _VALUE_TILES + lake fish - eaten deer (meadows) + lakes (raft system).
_VALUE_TILES = np.zeros(2 * NUM_ZONES + 1, dtype=np.int16)  # systems and the zero row: 0
_VALUE_TILES[:NUM_ZONES] = np.select([ZONE_TYPE == Z_FOREST, ZONE_TYPE == Z_RIVER], [2, 1], 0)


@cache
def channel_high(reach: int = 12) -> np.ndarray:
    """[C] largest value each channel can take (for the observation space bounds)."""
    high = {name: 1 for name in channel_names(reach)}
    high.update(zip(STATIC_CHANNELS, STATIC.max(axis=0).tolist()))  # from the tile data
    high.update(occupant_zone=10)
    most = int(_PRINTED_ANIMALS.max())
    high.update({a: most for a in ANIMALS} | {f"{a}_cancelled": most for a in ANIMALS})
    for t in AREA_TYPES:
        high.update({f"{t}_{f}": 255 for f in ("open", "tiles", "value")})
        high.update({f"{t}_occ_{p}": 5 if t != "system" else 3 for p in SEATS})
    high.update({f"info_{i}": 255 for i in range(info_planes(reach))})
    return np.array([high[name] for name in channel_names(reach)], dtype=np.uint8)


@cache
def channel_scale(reach: int = 12) -> np.ndarray:
    """[C] float32 factors bringing each channel to about [0, 1] (info planes: 1/255)."""
    high = channel_high(reach).astype(np.float32)
    scale = 1.0 / high
    names = channel_names(reach)
    for i, name in enumerate(names):
        if name.endswith(("_open", "_tiles", "_value")):
            scale[i] = 1.0 / 32.0
    return scale


def observe(state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """[G, C, H, W] uint8 observations of the given games from the given seats."""
    g = np.asarray(games, dtype=np.intp)
    seats = np.asarray(seats, dtype=np.intp)
    board = state.board
    n, cells = len(g), board.num_cells
    d0 = len(STATIC_CHANNELS) + len(TILE_CHANNELS)  # first decision plane
    out = np.zeros((n, len(channel_names(board.reach)), cells), dtype=np.uint8)
    # Tile and area planes are zero off the placed tiles: build one row per placed
    # (game, tile) pair and scatter the rows onto the tiles' cells.
    tile_cell = state.tile_cell[g]
    gi, ti = (tile_cell >= 0).nonzero()  # pair k: tile ti[k] of observation gi[k], game g[gi[k]]
    cell, game = tile_cell[gi, ti].astype(np.intp), g[gi]
    order = _seat_order(state, g, seats)
    rows = np.empty((len(gi), d0), dtype=np.uint8)
    rows[:, : len(STATIC_CHANNELS)] = STATIC[ti * 4 + state.board_rot[game, cell]]
    rows[:, len(STATIC_CHANNELS) :] = _tile_features(state, g, order, gi, ti, game)
    out[gi, :d0, cell] = rows
    in_place = (state.phase[g] == PLACE).nonzero()[0]
    out[in_place, d0 : d0 + 4] = state.place_mask[g[in_place]].transpose(0, 2, 1)
    last = state.last_cell[g]
    has_last = (last >= 0).nonzero()[0]
    out[has_last, d0 + 4, last[has_last]] = 1
    info = out.reshape(n, -1)[:, len(BOARD_CHANNELS) * cells :]  # a view: info planes, row-major
    _fill_info(info[:, : len(INFO_FIELDS)], state, g, seats, order)
    return out.reshape(n, -1, board.size, board.size)


def _seat_order(state: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """[G, 5] absolute seat shown at each relative position; positions past the player
    count point at unseated seats, whose supplies, scores and occupants are all zero."""
    return _SEAT_ORDER[state.num_players[g], seats]


def _seat_order_table() -> np.ndarray:
    """[players, observer, relative position] -> absolute seat (see _seat_order)."""
    k = np.arange(MAX_PLAYERS)
    table = np.tile(k, (MAX_PLAYERS + 1, MAX_PLAYERS, 1))
    for n in range(1, MAX_PLAYERS + 1):
        table[n, :n, :n] = (np.arange(n)[:, None] + k[:n]) % n
    return table


_SEAT_ORDER = _seat_order_table()
_SEAT_RELATIVE = np.argsort(_SEAT_ORDER, axis=2)  # [players, observer, absolute seat] -> relative position


def _tile_features(
    state: State, g: np.ndarray, order: np.ndarray, gi: np.ndarray, ti: np.ndarray, game: np.ndarray
) -> np.ndarray:
    """[K, len(TILE_CHANNELS)] dynamic features of tile ``ti[k]`` in ``game[k] = g[gi[k]]``."""
    feats = np.zeros((len(gi), len(TILE_CHANNELS)), dtype=np.uint8)
    animals = slice(_TC["mammoth"], _TC["tiger"] + 1)
    feats[:, animals] = _PRINTED_ANIMALS[ti]
    if (state.tile_cell[g, SPECIAL_TILE["hunting_trap"]] >= 0).any():  # only the trap cancels animals
        cancelled = np.add.reduceat(state.cancelled[g], _ZONE_STARTS, axis=1)[gi, ti]  # [K, 4]
        feats[:, animals] -= cancelled.astype(np.uint8)
        feats[:, _TC["mammoth_cancelled"] : _TC["tiger_cancelled"] + 1] = cancelled
    seat = state.occupant_seat[game, ti]
    k = (seat >= 0).nonzero()[0]
    gk, tk = game[k], ti[k]
    relative = _SEAT_RELATIVE[state.num_players[gk], order[gi[k], 0], seat[k]]
    feats[k, _TC["pawn_p0"] + MAX_PLAYERS * state.occupant_kind[gk, tk] + relative] = 1  # hut_p* follow pawn_p*
    feats[k, _TC["occupant_zone"]] = state.occupant_local[gk, tk] + 1
    feats[:, _TC["forest_open"] :] = _area_features(state, g, order, gi, ti)
    return feats


def _area_features(state: State, g: np.ndarray, order: np.ndarray, gi: np.ndarray, ti: np.ndarray) -> np.ndarray:
    """[K, 4 * len(AREA_FEATURES)] area features of tile ``ti[k]`` in game ``g[gi[k]]``, per area type."""
    n, z = len(g), NUM_ZONES
    area_roots, system_roots = state.area.all_roots(g), state.system.all_roots(g)
    # The root accumulators of every zone, areas then systems, then a zero row (see _zones_by_type).
    sums = np.empty((n, 2 * z + 1, NUM_SUMS), dtype=np.int16)
    sums[:, -1] = 0
    offsets = g[:, None] * z
    state.area.sums.reshape(-1, NUM_SUMS).take(offsets + area_roots, axis=0, out=sums[:, :z], mode="clip")
    state.system.sums.reshape(-1, NUM_SUMS).take(offsets + system_roots, axis=0, out=sums[:, z:-1], mode="clip")
    value = sums[..., LAKE_FISH]  # a view: the column becomes the value (AREA_FEATURES order)
    value += sums[..., WORTH] + sums[..., TILES] * _VALUE_TILES
    eaten = np.minimum(sums[:, :z, COUNTS + DEER], sums[:, :z, COUNTS + TIGER])
    fire = _special_root(state, g, area_roots, "wildfire")
    if fire is not None:  # R7.17: tigers eat no deer in the wildfire's meadow
        eaten[area_roots == fire[:, None]] = 0
    value[:, :z] -= eaten
    raft = _special_root(state, g, system_roots, "raft")
    if raft is not None:  # R7.18: the raft's system scores its lakes too
        value[:, z:-1] += np.where(system_roots == raft[:, None], sums[:, z:-1, COUNTS + C_LAKES], 0)
    # Columns OPEN: now hold the AREA_FEATURES, occupants by absolute seat.
    slots = (gi * (2 * z + 1))[:, None, None] + _ZONE_SLOTS[ti]  # [K, slot, type]
    per_type = sums.reshape(-1, NUM_SUMS).take(slots, axis=0).max(axis=1)  # [K, type, NUM_SUMS]
    # Occupants by relative seat: one gather over the flat [K, type, NUM_SUMS] block.
    row_starts = np.arange(0, per_type.size, NUM_SUMS).reshape(len(gi), -1, 1)
    per_type[..., OCCUPANTS:] = per_type.reshape(-1)[row_starts + (order[gi] + OCCUPANTS)[:, None, :]]
    return np.minimum(per_type[..., OPEN:], 255).reshape(len(gi), -1).astype(np.uint8)


def _special_root(state: State, g: np.ndarray, roots: np.ndarray, power: str) -> np.ndarray | None:
    """[G] root of a special power's zone (-1 where its tile is not placed); None if nowhere placed."""
    zone = SPECIAL_ZONE[power]
    placed = state.tile_cell[g, ZONE_TILE[zone]] >= 0
    return np.where(placed, roots[:, zone], -1) if placed.any() else None


def _fill_info(info: np.ndarray, state: State, g: np.ndarray, seats: np.ndarray, order: np.ndarray) -> None:
    """Write the INFO_FIELDS of games g, in order, into the zeroed uint8 rows ``info`` [G, >= fields]."""
    rows = np.arange(len(g))
    score = np.minimum(state.score[g[:, None], order], 255 * 256 + 255)
    info[:, _INFO["score_lo_p0"] : _INFO["score_hi_p0"]] = score & 255
    info[:, _INFO["score_hi_p0"] : _INFO["pawns_p0"]] = score >> 8
    supply = state.supply[g[:, None], order]  # [G, seat, pawns / huts]
    info[:, _INFO["pawns_p0"] : _INFO["seated_p0"]] = supply.transpose(0, 2, 1).reshape(len(g), -1)
    num_players = state.num_players[g].astype(np.intp)
    info[:, _INFO["seated_p0"] : _INFO["acting_p0"]] = num_players[:, None] > _SEAT_IDS
    phase = state.phase[g]
    info[rows, _INFO["acting_p0"] + (state.current[g] - seats) % num_players] = phase != OVER  # no one acts once over
    info[rows, _INFO["phase_" + PHASE_NAMES[0]] + phase] = 1
    info[:, _INFO["extra_turn"]] = state.extra_turn[g]
    info[:, _INFO["regular_left"]] = state.regular_len[g] - state.regular_next[g]
    info[:, _INFO["menhir_left"]] = state.menhir_len[g] - state.menhir_next[g]
    info[:, _INFO["pit_lo"] : _INFO["pit_hi"] + 1] = state.pit_range[g]
    info[:, _INFO["unseen_t0"] :] = state.dealt[g] & (state.tile_cell[g] < 0) & ~state.discarded[g]
    tile = state.tile_to_place[g].astype(np.intp)
    drawn = tile >= 0  # the tile to place is public: no longer unseen
    info[rows[drawn], _INFO["to_place_t0"] + tile[drawn]] = 1
    info[rows[drawn], _INFO["unseen_t0"] + tile[drawn]] = 0


_SEAT_IDS = np.arange(MAX_PLAYERS)


def decode_board(obs: np.ndarray, reach: int = 12) -> dict:
    """Read a single [C, H, W] observation back: tiles, occupants and the info fields.

    Returns ``{"tiles": [(tile, x, y, rot)], "occupants": [(rel_seat, kind, x, y, local)], "info": {...}}``."""
    names = {name: i for i, name in enumerate(channel_names(reach))}
    tiles, occupants = [], []
    for y, x in zip(*np.nonzero(obs[names["tile"]])):
        tile = int(obs[names["tile_id"], y, x]) - 1
        rot = int(np.argmax([obs[names[f"rot{r}"], y, x] for r in range(4)]))
        tiles.append((tile, int(x) - reach, int(y) - reach, rot))
        for kind in ("pawn", "hut"):
            for k, p in enumerate(SEATS):
                if obs[names[f"{kind}_{p}"], y, x]:
                    occupants.append(
                        (k, kind, int(x) - reach, int(y) - reach, int(obs[names["occupant_zone"], y, x]) - 1)
                    )
    info_raw = obs[len(BOARD_CHANNELS) :].reshape(-1)[: len(INFO_FIELDS)]
    info = dict(zip(INFO_FIELDS, info_raw.tolist()))
    return {"tiles": sorted(tiles), "occupants": sorted(occupants), "info": info}
