"""The menhir tiles' special powers (docs/rules/hg2020.md §7): the immediate ones after a placement
(shaman, logboat, hunting trap) and the pit-trap choice before final scoring. The wildfire and the
raft act in final scoring (``hg_env.rulesets.hunters_gatherers``)."""

from __future__ import annotations

from functools import cache

import numpy as np

from hg_env.core.arrays import nonzero
from hg_env.core.engine import (
    animal_dict,
    enter_occupy,
    finish_game,
    log_events,
    own_figures,
    remove_figures,
    special_root,
)
from hg_env.core.ruleset import Decision
from hg_env.core.scoring import deer_eaten, majority, meadow_value
from hg_env.core.state import State
from hg_env.core.tiles import C_POOLS, DEER, MAMMOTH, TIGER, TileSet
from hg_env.rulesets.hunters_gatherers import PAWN, live_animals, meadow_zones_near, pit_stats

IMMEDIATE_POWERS = ("shaman", "logboat", "hunting_trap")
# The phases of its decisions (hg_env.core.phases): the retake between place and occupy, the pit-trap choice
# before the end; these codes order the hunters_gatherers_v0 observation's phase fields.
RETAKE, PIT_TRAP = 1, 3


# ---------------------------------------------------------------- the powers' formulas (R7)


def logboat_value(lakes):
    """R7.5: 2 points per lake of the logboat's river system."""
    return 2 * np.asarray(lakes)


def hunting_trap_value(mammoths, aurochs, deer, tigers, fire=False):
    """R7.9: 3M + 2A + max(0, D - T) over the animals in range."""
    return meadow_value(mammoths, aurochs, deer, tigers, fire)


def pit_trap_eaten_range(deer, tigers, deer_out, deer_in, fire=False):
    """Lowest and highest number of in-range deer the tigers may eat (R7.15)."""
    eaten = deer_eaten(deer, tigers, fire)
    return np.maximum(0, eaten - deer_out), np.minimum(eaten, deer_in)


def after_place(state: State, g: np.ndarray) -> np.ndarray:
    """T3: immediate powers of the tile just placed; returns the games that go on to the occupant decision."""
    tiles = state.spec.tiles
    if len(g) == 1 and not _immediate_power_tile(tiles)[state.board_tile[g[0], state.last_cell[g[0]]]]:
        return g  # one game, and the common case: no power on the tile
    tile = state.board_tile[g, state.last_cell[g]]
    if not _immediate_power_tile(tiles)[tile].any():  # the common case: no power on the tile
        return g
    _logboat(state, g[tile == tiles.SPECIAL_TILE["logboat"]])
    _hunting_trap(state, g[tile == tiles.SPECIAL_TILE["hunting_trap"]])
    shaman = tile == tiles.SPECIAL_TILE["shaman"]
    if shaman.any():
        gs = g[shaman]
        retake = own_figures(state, gs, PAWN).any(1)  # Q9: only with a pawn on the board
        state.phase[gs[retake]] = RETAKE
        shaman[shaman] = retake
    return g[~shaman]


@cache
def _immediate_power_tile(tiles: TileSet) -> np.ndarray:
    """[tile] bool: the tile carries an immediate power."""
    return np.isin(np.arange(tiles.num_tiles), [tiles.SPECIAL_TILE[p] for p in IMMEDIATE_POWERS])


def _logboat(state: State, g: np.ndarray) -> None:
    """R7.4-R7.6: 2 points per lake of the logboat's river system, to the placer."""
    if not len(g):
        return
    root = state.system.find(g, np.full(len(g), state.spec.tiles.SPECIAL_ZONE["logboat"]))
    lakes = state.system.counts[g, root, C_POOLS].astype(np.int64)
    points = logboat_value(lakes)
    state.score[g, state.current[g]] += points
    log_events(
        state,
        g,
        (
            {"type": "LOGBOAT_SCORED", "player": int(state.current[x]), "points": int(p), "lakes": int(n)}
            for x, p, n in zip(g, points, lakes)
        ),
    )


def _hunting_trap(state: State, g: np.ndarray) -> None:
    """R7.8-R7.13: the placer scores the animals in range, which are then cancelled."""
    if not len(g):
        return
    root = state.area.find(g, np.full(len(g), state.spec.tiles.SPECIAL_ZONE["hunting_trap"]))
    rows, zone = meadow_zones_near(state, g, state.last_cell[g], root)
    animals = live_animals(state, g[rows], zone)
    totals = np.zeros((len(g), 4), dtype=np.int64)
    np.add.at(totals, rows, animals)
    m, a, d, t = totals.T
    fire = np.zeros(len(g), dtype=bool)
    if state.rules.wildfire_affects_hunting_trap:
        fire = root == special_root(state, g, "wildfire")
    points = hunting_trap_value(m, a, d, t, fire)
    state.score[g, state.current[g]] += points
    scored = points > 0
    log_events(
        state,
        g[scored],
        (
            {
                "type": "HUNTING_TRAP_SCORED",
                "player": int(state.current[x]),
                "points": int(p),
                "animals": animal_dict(c),
            }
            for x, p, c in zip(g[scored], points[scored], totals[scored])
        ),
    )
    cancel = animals.copy()
    if state.rules.hunting_trap_cancel == "scored_and_pairs":  # Q5: excess tigers stay uncovered
        pairs = deer_eaten(d, t, fire)[rows]
        tigers = animals[:, TIGER].astype(np.int64)
        before = np.cumsum(tigers) - tigers  # tigers met earlier, in zone order...
        group_start = np.searchsorted(rows, rows)
        before -= before[group_start]  # ...within the same game
        cancel[:, TIGER] = np.clip(pairs - before, 0, tigers)
    state.cancelled[g[rows], zone] += cancel.astype(np.int8)
    removed = np.zeros((len(g), 4), dtype=np.int64)
    np.add.at(removed, rows, cancel)
    state.area.counts[g, root, MAMMOTH : TIGER + 1] -= removed.astype(np.int16)
    weights = state.spec.areas.worth_weights[MAMMOTH : TIGER + 1]
    state.area.worth[g, root] -= (removed @ weights).astype(np.int16)


def end_game(state: State, g: np.ndarray) -> np.ndarray:
    """R7.15 option ``pit_trap_deer_choice="player_choice"``: ask the pit trap's scorer first where
    there is a choice; returns the games to score now."""
    if state.rules.pit_trap_deer_choice != "player_choice":
        return g
    root = special_root(state, g, "pit_trap")
    has = root >= 0
    if not has.any():
        return g
    gp, rp = g[has], root[has]
    occupants = state.area.occupants[gp, rp]
    hunted = occupants.sum(-1) > 0
    inside, deer, tigers, fire = pit_stats(state, gp, rp)
    lo, hi = pit_trap_eaten_range(deer, tigers, deer - inside[:, DEER], inside[:, DEER], fire)
    ask = hunted & ((hi > lo) | (not state.rules.auto_skip_forced_actions))
    if not ask.any():
        return g
    ga = gp[ask]
    state.phase[ga] = PIT_TRAP
    state.current[ga] = majority(occupants[ask]).argmax(-1)  # the first scorer in seat order
    state.pit_range[ga] = np.stack([lo[ask], hi[ask]], axis=1)
    asked = np.zeros(state.batch_size, dtype=bool)
    asked[ga] = True
    return g[~asked[g]]


# ---------------------------------------------------------------- the decisions 2020 adds

MAX_PIT_DEER = 17  # choices 0..16: a 3x3 block holds at most 8 tiles x 2 deer


def retake_options(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R7.1: the cells of the placer's pawns on the board, by game then cell."""
    gi, ti = nonzero(own_figures(state, g, PAWN))
    cell = state.tile_cell[g[gi], ti].astype(np.int64)
    order = np.lexsort((cell, gi))
    return gi[order], cell[order]


def retake(state: State, g: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """R7.1: the pawn on ``cells`` goes back to its owner (-1: none taken back), then the occupant
    decision (T4). Returns the games that skip it: their tile is done."""
    taken = cells >= 0
    remove_figures(state, g[taken], state.board_tile[g[taken], cells[taken]].astype(np.intp))
    return enter_occupy(state, g)


def pit_options(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R7.15: every count of deer from the lowest to the highest the tigers may eat (``pit_range``)."""
    lo, hi = state.pit_range[g, 0].astype(np.int64), state.pit_range[g, 1].astype(np.int64)
    choices = hi - lo + 1
    gi = np.repeat(np.arange(len(g)), choices)
    return gi, lo[gi] + np.arange(len(gi)) - np.repeat(np.cumsum(choices) - choices, choices)


def pit_choice(state: State, g: np.ndarray, eaten: np.ndarray) -> np.ndarray:
    """R7.15: final scoring with the chosen count of deer eaten; the games are over."""
    finish_game(state, g, choice=eaten.astype(np.int64))
    return g[:0]


def describe_retake(decoded: tuple) -> str:
    return f"retake pawn at ({decoded[1]},{decoded[2]})"


def describe_pit(decoded: tuple) -> str:
    return f"pit trap: eat {decoded[1]} deer in range"


# The describe hooks are named functions, not lambdas: agents holding the spec pickle (worker processes).
RETAKE_DECISION = Decision(
    name="retake",
    phase=RETAKE,
    operand="cell",
    width=0,
    options=retake_options,
    apply=retake,
    describe=describe_retake,
    noun="pawn",
    offers_none=True,
    same_tile=True,
)
PIT_DECISION = Decision(
    name="pit",
    phase=PIT_TRAP,
    operand="count",
    width=MAX_PIT_DEER,
    options=pit_options,
    apply=pit_choice,
    describe=describe_pit,
    phase_name="pit_trap",
)
