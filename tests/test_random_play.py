"""Random play at scale with invariants after every step (DESIGN.md test layer 3)."""

from __future__ import annotations

import numpy as np
import pytest

from hg_env.core import engine
from hg_env.core.state import OCCUPY, OVER, PLACE
from hg_env.rulesets.hg2020.powers import RETAKE
from tests.invariants import (
    check_areas,
    check_batch_equals_singles,
    check_frontier,
    check_mask,
    check_pieces,
    check_tiles,
    seed_shares,
)


def play_batch(num_players: int, seeds: list[int], oracle_every: int = 1, **flags) -> engine.State:
    from hg_env.core.rules import Rules

    state = engine.new_games(num_players, Rules(**flags), seeds=seeds)
    rng = np.random.default_rng(seeds[0])
    previous = state.score.copy()
    steps = 0
    while (state.phase != OVER).any():
        mask = engine.legal_action_mask(state)
        actions = np.full(state.batch_size, -1)
        for i in range(state.batch_size):
            check_mask(state, i, mask[i])
            if state.phase[i] != OVER:
                actions[i] = rng.choice(np.flatnonzero(mask[i]))
        engine.step(state, actions)
        steps += 1
        assert (state.score >= previous).all(), "a score decreased"
        previous = state.score.copy()
        for i in np.flatnonzero(actions >= 0):  # the games that moved (a finished game no longer changes)
            check_pieces(state, i)
            check_tiles(state, i)
            check_frontier(state, i)
            if (steps + i) % oracle_every == 0 or state.phase[i] == OVER:  # games take turns: every step is seen
                check_areas(state, i)
    return state


@pytest.mark.parametrize("first, last", seed_shares(20, 50))  # 50 games per player count
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_games_keep_invariants(num_players: int, first: int, last: int) -> None:
    seeds = list(range(100 * num_players + first, 100 * num_players + last))
    state = play_batch(num_players, seeds, oracle_every=3)
    assert (state.phase == OVER).all()


def test_batch_equals_games_stepped_one_by_one() -> None:
    """B games stepped together (2-5 players mixed, each in its own phase) equal the same games alone."""
    players = [2, 3, 4, 5, 2, 3, 4, 5]
    seeds = list(range(900, 900 + len(players)))
    check_batch_equals_singles(players, seeds)


@pytest.mark.parametrize(
    "flags",
    [
        {"pit_trap_deer_choice": "player_choice", "auto_skip_forced_actions": False},  # every phase offered
        {"ruleset": "hg2002"},
        {"ruleset": "carcassonne"},  # the abbot's recall: retake actions in the occupy phase
    ],
    ids=["hg2020-every-phase", "hg2002", "carcassonne"],
)
def test_compressed_legal_actions_equal_the_legality_check(flags: dict) -> None:
    """``legal_actions`` (all games, or a shuffled subset, rows in that order) lists exactly the actions
    the check ``step`` makes accepts, each row in increasing order."""
    from hg_env.core.actions import action_layout
    from hg_env.core.rules import Rules

    rules = Rules(**flags)
    size = action_layout(rules).size
    state = engine.new_games([2, 3, 4, 5] * 3, rules, seeds=list(range(12)))
    rng = np.random.default_rng(1)
    phases = set()
    while (state.phase != OVER).any():
        games = rng.permutation(state.batch_size)[: rng.integers(1, state.batch_size + 1)]
        for subset in (None, games):
            indptr, actions = engine.legal_actions(state, subset)
            for row, game in enumerate(range(state.batch_size) if subset is None else subset):
                every = np.arange(size)  # every action of this game through step's check
                legal = engine._legal_in_phase(state, int(state.phase[game]), np.full(size, game), every)
                assert actions[indptr[row] : indptr[row + 1]].tolist() == every[legal].tolist(), (game, state.phase)
        phases.update(state.phase.tolist())
        mask = engine.legal_action_mask(state)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in mask])
        engine.step(state, actions)
    assert {PLACE, OCCUPY} <= phases and (RETAKE in phases or "ruleset" in flags)  # the shaman's retake in 2020


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_sample_legal_draws_what_sample_rows_draws(ruleset: str) -> None:
    """``engine.sample_legal`` (all games, a subset in any order, one game) picks exactly the action
    ``sample_rows`` picks from the compressed legal actions with the same generator state."""
    from hg_env.core.actions import sample_rows
    from hg_env.core.rules import Rules

    rules = (
        Rules(ruleset=ruleset, pit_trap_deer_choice="player_choice") if ruleset == "hg2020" else Rules(ruleset=ruleset)
    )
    state = engine.new_games([2, 3, 4, 5] * 4, rules, seeds=list(range(16)))
    single = engine.new_games(3, rules, seeds=[5])
    rng = np.random.default_rng(2)
    while (state.phase != OVER).any():
        games = rng.permutation(state.batch_size)[: rng.integers(1, state.batch_size + 1)]
        for subset in (None, games):
            seed = int(rng.integers(2**31))
            expected = sample_rows(*engine.legal_actions(state, subset), np.random.default_rng(seed))
            np.testing.assert_array_equal(engine.sample_legal(state, np.random.default_rng(seed), subset), expected)
        engine.step(state, engine.sample_legal(state, rng))
        if single.phase[0] != OVER:
            seed = int(rng.integers(2**31))
            expected = sample_rows(*engine.legal_actions(single, np.array([0])), np.random.default_rng(seed))
            np.testing.assert_array_equal(engine.sample_legal(single, np.random.default_rng(seed), [0]), expected)
            engine.step(single, engine.sample_legal(single, rng))


@pytest.mark.parametrize("flags", [{}, {"ruleset": "hg2002"}, {"ruleset": "carcassonne", "river": True}])
def test_reset_games_start_the_games_new_games_starts(flags: dict) -> None:
    """Games restarted in place (over games half played, player counts changed) equal the same games
    set up by ``new_games``: every array and event."""
    from hg_env.core.rules import Rules

    rules = Rules(**flags)
    state = engine.new_games([2, 3, 4, 5, 2, 3], rules, seeds=list(range(6)))
    rng = np.random.default_rng(0)
    for _ in range(40):
        engine.step(state, engine.sample_legal(state, rng))
    games, players, seeds = np.array([4, 1, 2]), [5, 2, 3], [70, 71, 72]
    engine.reset_games(state, games, seeds=seeds, num_players=players)
    fresh = engine.new_games(players, rules, seeds=seeds)
    mine = state.take(games)
    for name, array in fresh.arrays().items():
        np.testing.assert_array_equal(mine.arrays()[name], array, err_msg=name)
    assert mine.events == fresh.events
    engine.reset_games(state, [0], seeds=[9])  # the game's own player count
    np.testing.assert_array_equal(state.take([0]).regular_deck, engine.new_games(2, rules, seeds=[9]).regular_deck)
