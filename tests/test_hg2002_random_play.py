"""Random play of the classic ruleset at scale (DESIGN.md test layer 3): tests/invariants.py after every
step, the BFS oracle on a sample of steps, the classic turn structure (K1, K2, K9, K10, K15), and a
batch of games equal to the same games stepped one by one."""

from __future__ import annotations

import numpy as np
import pytest

from hg_env.core import engine
from hg_env.core.rules import Rules
from hg_env.core.state import OCCUPY, OVER, PLACE, State
from hg_env.core.tiles import KIND_EXTRA, KIND_REGULAR
from tests.invariants import (
    check_areas,
    check_batch_equals_singles,
    check_frontier,
    check_mask,
    check_pieces,
    check_tiles,
    seed_shares,
)

RULES = Rules(ruleset="hg2002")
GAMES_PER_COUNT = 50  # x 4 player counts = 200 games
ORACLE_EVERY = 8  # the BFS oracle is most of the time: every 8th step of each game (staggered) and at its end


def check_turn(state: State, game: int, placed: int, was_extra: bool, last_extra: bool) -> None:
    """K1, K2, K15: a bonus turn places a bonus tile, a land turn a land tile, and no bonus turn follows
    a bonus turn."""
    kind = state.spec.tiles.TILE_KIND[placed]
    assert kind == (KIND_EXTRA if was_extra else KIND_REGULAR), (game, placed, was_extra)
    assert not (was_extra and last_extra), f"game {game}: a bonus turn earned a bonus turn (K2)"


def check_end(state: State, game: int) -> None:
    """K9, K10, K1: over only when no land tile is left to draw; no animal was ever cancelled; one
    BONUS_EXTRA_TURN event per bonus tile on the board, each for the seat that placed the tile before."""
    assert state.regular_next[game] == state.regular_len[game]
    assert "cancelled" not in state.ruleset_arrays  # no hunting trap: nothing can be cancelled
    tiles = state.spec.tiles
    on_board = np.flatnonzero(state.tile_cell[game] >= 0)
    bonus_on_board = int((tiles.TILE_KIND[on_board] == KIND_EXTRA).sum())
    bonus_events = [e for e in state.events[game] if e["type"] == "BONUS_EXTRA_TURN"]
    assert len(bonus_events) == bonus_on_board
    assert not [e for e in state.events[game] if e["type"] in ("MENHIR_EXTRA_TURN", "RETAKE", "PIT_TRAP_SCORED")]


def play_classic(num_players: int, seeds: list[int]) -> State:
    """Random legal play of a batch of hg2002 games to the end, checking everything after every step."""
    state = engine.new_games(num_players, RULES, seeds=seeds)
    rng = np.random.default_rng(seeds[0])
    previous = state.score.copy()
    last_extra = np.zeros(state.batch_size, dtype=bool)
    steps = 0
    while (state.phase != OVER).any():
        running = np.flatnonzero(state.phase != OVER)
        mask = engine.legal_action_mask(state)
        actions = np.full(state.batch_size, -1)
        for i in range(state.batch_size):
            check_mask(state, i, mask[i])
            if state.phase[i] != OVER:
                assert state.phase[i] in (PLACE, OCCUPY), "K9: only place and occupy decisions exist"
                actions[i] = rng.choice(np.flatnonzero(mask[i]))
        placing = np.flatnonzero(state.phase == PLACE)
        tiles, extra = state.tile_to_place[placing].copy(), state.extra_turn[placing].copy()
        engine.step(state, actions)
        steps += 1
        for i, tile, was_extra in zip(placing, tiles, extra):
            check_turn(state, i, int(tile), bool(was_extra), bool(last_extra[i]))
            last_extra[i] = was_extra
        assert (state.score >= previous).all(), "a score decreased"
        previous = state.score.copy()
        for i in running:  # the games this step played on
            check_pieces(state, i)
            check_tiles(state, i)
            check_frontier(state, i)
            if (steps + i) % ORACLE_EVERY == 0 or state.phase[i] == OVER:
                check_areas(state, i)
    for i in range(state.batch_size):
        check_end(state, i)
    return state


@pytest.mark.parametrize("first, last", seed_shares(20, GAMES_PER_COUNT))
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_classic_games_keep_invariants(num_players: int, first: int, last: int) -> None:
    """50 random games per player count (the first 20 in the default run, the rest with the slow suites):
    pieces (5 pawns, 2 huts), tiles, frontier, masks, non-decreasing scores after every step, the BFS oracle
    every 8th step (staggered over the games) and at the end, the turn structure."""
    seeds = list(range(2002 + 100 * num_players + first, 2002 + 100 * num_players + last))
    state = play_classic(num_players, seeds)
    assert (state.phase == OVER).all()
    bonus_turns = sum(e["type"] == "BONUS_EXTRA_TURN" for events in state.events for e in events)
    assert bonus_turns > len(seeds)  # the gold check fires in these games


def test_batch_equals_games_stepped_one_by_one() -> None:
    """B hg2002 games stepped together (2-5 players mixed, each in its own phase) equal the same games alone."""
    players = [2, 3, 4, 5, 2, 3, 4, 5]
    seeds = list(range(2900, 2900 + len(players)))
    check_batch_equals_singles(players, seeds, RULES)
