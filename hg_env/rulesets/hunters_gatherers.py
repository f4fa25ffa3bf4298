"""Rule functions shared by both Hunters & Gatherers editions (2020 and the classic 2002).

The editions share the tile model, the turn flow and final scoring; they differ
in point values (``Points``), pieces and powers. Final scoring reads which
powers the edition prints (``Ruleset.powers``): a fire (2020 wildfire, 2002 fire)
stops the tigers of its meadow, the 2020 pit trap and raft add points, the 2002
shrine gives its meadow to the hunter standing on it.
"""

from __future__ import annotations

import numpy as np

from hg_env.core import search
from hg_env.core.areas import ATTACHED_VALUE, COUNTS, TILES, WORTH
from hg_env.core.arrays import nonzero
from hg_env.core.engine import animal_dict, occupied_roots, remove_figures, special_root
from hg_env.core.rules import Rules
from hg_env.core.ruleset import AREA_PIECE, SYSTEM_PIECE, OccupantKind
from hg_env.core.scoring import (
    deer_eaten,
    enclosure_value,
    majority,
    meadow_value,
    path_value,
    system_value,
)
from hg_env.core.state import State
from hg_env.core.tiles import (
    AUROCHS,
    C_BONUS,
    C_FISH,
    C_POOLS,
    DEER,
    ENCLOSURE,
    KIND_REGULAR,
    KIND_START,
    LAND,
    MAMMOTH,
    MAX_LOCAL_ZONES,
    PATH,
    TIGER,
    Z_ENCLOSURE,
    Z_LAND,
    Z_PATH,
    Z_POOL,
    TileSet,
)

# What Hunters & Gatherers calls the core's roles (hg_env.core.ruleset, hg_env.core.tiles).
PAWN, HUT = AREA_PIECE, SYSTEM_PIECE
Z_LAKE = Z_POOL

TERRAINS = {"meadow": LAND, "forest": ENCLOSURE, "river": PATH}
ZONE_TYPES = {"meadow": Z_LAND, "forest": Z_ENCLOSURE, "river": Z_PATH, "lake": Z_LAKE}
AREA_NAMES = {Z_LAND: "meadow", Z_ENCLOSURE: "forest", Z_PATH: "river"}
KINDS = {"start": KIND_START, "regular": KIND_REGULAR}
# Pawns go on a side zone (local 0-7), huts on a water zone (local 0-9): R5.1, R5.7.
OCCUPANTS = (OccupantKind("pawn", PAWN, 8, "area"), OccupantKind("hut", HUT, MAX_LOCAL_ZONES, "system"))
HUT_TARGETS = ("canonical", "all_water_zones")
# Area plane groups of the observation: (name, partition, zone types).
OBSERVED_AREAS = (
    ("forest", "area", (Z_ENCLOSURE,)),
    ("meadow", "area", (Z_LAND,)),
    ("river", "area", (Z_PATH,)),
    ("system", "system", (Z_PATH, Z_LAKE)),
)


def occupant_table(tiles: TileSet, rules: Rules) -> np.ndarray:
    """[tile, 18] pawn targets (any zone but a lake, R5.1) then hut targets (R5.7 / Q10: ``hut_targets``)."""
    table = np.zeros((tiles.num_tiles, 2, MAX_LOCAL_ZONES), dtype=bool)
    z = np.arange(tiles.num_zones)
    t, local, kind = tiles.ZONE_TILE, tiles.ZONE_LOCAL, tiles.ZONE_TYPE
    table[t, 0, local] = kind != Z_LAKE
    if rules.hut_targets == "all_water_zones":
        table[t, 1, local] = (kind == Z_PATH) | (kind == Z_LAKE)
    else:  # canonical: lakes, and rivers flowing into no lake
        table[t, 1, local] = (kind == Z_LAKE) | ((kind == Z_PATH) & (tiles.PATH_POOL[z] < 0))
    return np.concatenate([table[:, 0, :8], table[:, 1]], axis=1)


def meadow_zones_near(state: State, g: np.ndarray, cell: np.ndarray, root: np.ndarray) -> tuple:
    """Meadow zones of meadow ``root`` on tiles in the 3x3 block of ``cell`` (R7.8, R7.14).

    Returns (game row, zone) index arrays of those zones."""
    tiles = state.spec.tiles
    block = state.board.block[cell]  # [G, 9]
    placed = np.where(block >= 0, state.board_tile[g[:, None], np.maximum(block, 0)], -1)
    zones = np.where(placed[:, :, None] >= 0, tiles.TILE_ZONE[np.maximum(placed, 0)], -1).reshape(len(g), -1)
    safe = np.maximum(zones, 0)
    meadow = (zones >= 0) & (tiles.ZONE_TYPE[safe] == Z_LAND)
    inside = meadow & (state.area.find(g[:, None], safe) == root[:, None])
    rows, cols = nonzero(inside)
    return rows, zones[rows, cols]


def pit_trap_bonus(deer, tigers, deer_out, mammoths_in, aurochs_in, deer_in, fire=False, eaten_in=None):
    """R7.15: the in-range animals score again; deer far from the trap are eaten first.

    ``eaten_in`` overrides how many in-range deer are eaten (the
    ``pit_trap_deer_choice="player_choice"`` option)."""
    eaten = deer_eaten(deer, tigers, fire)
    if eaten_in is None:
        eaten_in = eaten - np.minimum(eaten, deer_out)
    return 3 * np.asarray(mammoths_in) + 2 * np.asarray(aurochs_in) + deer_in - eaten_in


def live_animals(state: State, g: np.ndarray, zone: np.ndarray) -> np.ndarray:
    """[n, 4] non-cancelled animals on (game, zone) pairs (the 2020 hunting trap's ``cancelled``; 2002 has none)."""
    animals = state.spec.tiles.ZONE_ANIMALS[zone]
    cancelled = state.ruleset_arrays.get("cancelled")
    return animals if cancelled is None else animals - cancelled[g, zone]


def pit_stats(state: State, g: np.ndarray, root: np.ndarray) -> tuple:
    """In-range mammoths, aurochs, deer of the pit-trap meadow, and its deer, tigers, fire (R7.14)."""
    cell = state.tile_cell[g, state.spec.tiles.SPECIAL_TILE["pit_trap"]]
    rows, zone = meadow_zones_near(state, g, cell, root)
    inside = np.zeros((len(g), 4), dtype=np.int64)
    np.add.at(inside, rows, live_animals(state, g[rows], zone))
    counts = state.area.counts[g, root].astype(np.int64)
    fire = root == special_root(state, g, "wildfire")
    return inside, counts[:, DEER], counts[:, TIGER], fire


def final_scoring(state: State, g: np.ndarray, choice: np.ndarray | None) -> None:
    """R8.2: drop gatherers and fishers, score meadows and river systems (winners: the engine).

    ``choice``: per game of ``g``, the in-range deer the pit-trap scorer chose to feed
    the tigers (``pit_trap_deer_choice="player_choice"``), None for the automatic rule."""
    spec, tiles, points = state.spec, state.spec.tiles, state.spec.points
    # 1. Gatherers and fishers leave without scoring.
    gi, ti = nonzero((state.occupant_seat[g] >= 0) & (state.occupant_kind[g] == PAWN))
    zone = tiles.TILE_ZONE[ti, state.occupant_local[g[gi], ti]]
    leaving = tiles.ZONE_TYPE[zone] != Z_LAND
    remove_figures(state, g[gi[leaving]], ti[leaving])
    # 2. Meadows with hunters (R8.3), the fire (R7.17, S2), the pit trap (R7.15) and the shrine (S1).
    rows, root = occupied_roots(state, g, systems=False)  # the pawns left stand in meadows
    hunted = tiles.ZONE_TYPE[root] == Z_LAND
    rows, root = rows[hunted], root[hunted]
    counts = state.area.counts[g[rows], root].astype(np.int64)
    m, a, d, t = counts[:, MAMMOTH], counts[:, AUROCHS], counts[:, DEER], counts[:, TIGER]
    fire_name = spec.fire_power
    fire = np.zeros(len(rows), dtype=bool) if fire_name is None else root == special_root(state, g, fire_name)[rows]
    base = meadow_value(m, a, d, t, fire, points)
    bonus = np.zeros_like(base)
    in_range = np.zeros((len(rows), 4), dtype=np.int64)
    if "pit_trap" in spec.powers:
        at_pit = root == special_root(state, g, "pit_trap")[rows]
        if at_pit.any():
            pr = np.flatnonzero(at_pit)
            inside, *_ = pit_stats(state, g[rows[pr]], root[pr])
            in_range[pr] = inside
            chosen = None if choice is None else choice[rows[pr]]
            bonus[pr] = pit_trap_bonus(
                d[pr],
                t[pr],
                d[pr] - inside[:, DEER],
                inside[:, MAMMOTH],
                inside[:, AUROCHS],
                inside[:, DEER],
                fire[pr],
                chosen,
            )
    scorers = majority(state.area.occupants[g[rows], root])
    scorers, shrine = spec.meadow_scorers(state, g[rows], root, scorers)
    np.add.at(state.score, g[rows], (base + bonus)[:, None] * scorers)
    if state.events is not None:
        for i in range(len(rows)):
            who = np.flatnonzero(scorers[i]).tolist()
            if base[i] > 0:
                event = {
                    "type": "MEADOW_SCORED",
                    "scorers": who,
                    "points": int(base[i]),
                    "animals": animal_dict(counts[i, :4]),
                    "deerEaten": int(deer_eaten(d[i], t[i], fire[i])),
                }
                if shrine[i]:
                    event["shrine"] = True  # S1 chose the scorer (2002 KQ22)
                state.events[g[rows[i]]].append(event)
            if bonus[i] > 0:
                state.events[g[rows[i]]].append(
                    {
                        "type": "PIT_TRAP_SCORED",
                        "scorers": who,
                        "points": int(bonus[i]),
                        "animals": animal_dict(in_range[i]),
                    }
                )
    # 3. River systems with huts (R8.2.3), and the raft (R7.18).
    rows, root = occupied_roots(state, g, systems=True)
    counts = state.system.counts[g[rows], root].astype(np.int64)
    fish, lakes = counts[:, C_FISH], counts[:, C_POOLS]
    raft = np.zeros(len(rows), dtype=bool)
    if "raft" in spec.powers:
        raft = root == special_root(state, g, "raft")[rows]
    value = system_value(fish, lakes, raft, points)
    scorers = majority(state.system.occupants[g[rows], root])
    np.add.at(state.score, g[rows], value[:, None] * scorers)
    if state.events is not None:
        for i in range(len(rows)):
            who = np.flatnonzero(scorers[i]).tolist()
            if fish[i] > 0:
                state.events[g[rows[i]]].append(
                    {"type": "RIVER_SYSTEM_SCORED", "scorers": who, "points": int(fish[i]), "fish": int(fish[i])}
                )
            if raft[i]:
                state.events[g[rows[i]]].append(
                    {"type": "RAFT_SCORED", "scorers": who, "points": int(lakes[i]), "lakes": int(lakes[i])}
                )


def shrine_scorers(state: State, g: np.ndarray, root: np.ndarray, scorers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S1 (2002): in the meadows (game ``g[i]``, root ``root[i]``), a hunter standing on the shrine's own
    meadow zone makes its owner the sole scorer of the meadow holding it, whatever the majority.

    Returns the scorers and, per meadow, whether the shrine chose them. The final scoring and the search's
    estimate (``Ruleset.meadow_scorers``) both ask it."""
    tiles = state.spec.tiles
    zone, tile = tiles.SPECIAL_ZONE["shrine"], tiles.SPECIAL_TILE["shrine"]
    seat = state.occupant_seat[g, tile]
    held = (
        (seat >= 0)
        & (state.occupant_kind[g, tile] == PAWN)
        & (state.occupant_local[g, tile] == tiles.ZONE_LOCAL[zone])
        & (root == state.area.find(g, np.full(len(g), zone)))
    )
    if held.any():
        scorers = scorers.copy()
        scorers[held] = False
        scorers[np.flatnonzero(held), seat[held]] = True
    return scorers, held


def estimate_areas(state: State, g: np.ndarray, z: np.ndarray, left: np.ndarray) -> np.ndarray:
    """``Ruleset.estimate_areas``: expected value of the (game, root) areas of the area partition to their
    pawn majority: a forest or river its value by its chance of completion, a meadow its animals now."""
    spec = state.spec
    tiles, points = spec.tiles, spec.points
    kind = tiles.ZONE_TYPE[z]
    sums = state.area.sum_rows(g, z).astype(np.float64)
    counts, count = sums[:, COUNTS:WORTH], sums[:, TILES]  # distinct tiles
    fish = counts[:, C_FISH] + sums[:, ATTACHED_VALUE]  # its own fish and the fish of the lakes it flows into
    fire = (
        np.zeros(len(z), dtype=bool)
        if spec.fire_power is None
        else z == search.special_root(state, state.area, spec.fire_power)[g]
    )
    meadow = meadow_value(counts[:, MAMMOTH], counts[:, AUROCHS], counts[:, DEER], counts[:, TIGER], fire, points)
    p = np.zeros(len(z))
    closable = (kind == Z_ENCLOSURE) | (kind == Z_PATH)  # meadows never close: their value is final
    p[closable] = search.completion_probability(state, g[closable], z[closable], left[closable])
    return np.select(
        [kind == Z_ENCLOSURE, kind == Z_PATH, kind == Z_LAND],
        [p * enclosure_value(count, counts[:, C_BONUS], points), p * path_value(count, fish, points), meadow],
        0.0,
    )
