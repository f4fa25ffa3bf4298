"""A ruleset's own per-game arrays (``Ruleset.arrays``): the state carries, copies, takes and puts them,
and the observation's info fields show the ones that ask for it; rulesets without them carry nothing."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from hg_env.core import engine
from hg_env.core.observation import Observer
from hg_env.core.rules import Rules
from hg_env.core.ruleset import GameArray
from hg_env.core.state import deal_decks, empty_state


@pytest.mark.parametrize("ruleset", ["hg2002", "carcassonne"])
def test_a_ruleset_without_arrays_carries_none(ruleset):
    state = engine.new_games(2, Rules(ruleset), seeds=[0])
    assert state.ruleset_arrays == {}
    assert "cancelled" not in state.arrays() and "pit_range" not in state.arrays()
    with pytest.raises(AttributeError, match="'pit_range'"):
        state.pit_range  # noqa: B018


def test_hg2020_declares_the_hunting_trap_and_pit_trap_arrays():
    state = engine.new_games([2, 3], Rules("hg2020"), seeds=[0, 1])
    zones = state.spec.tiles.num_zones
    assert {name: a.shape for name, a in state.ruleset_arrays.items()} == {
        "cancelled": (2, zones, 4),
        "pit_range": (2, 2),
    }
    assert state.cancelled is state.ruleset_arrays["cancelled"]


def test_copy_take_and_put_carry_the_arrays():
    state = engine.new_games([2, 3, 4], Rules("hg2020"), seeds=[0, 1, 2])
    state.pit_range[:] = [[1, 2], [3, 4], [5, 6]]
    copied = state.copy()
    copied.pit_range[0] = 9
    assert state.pit_range[0].tolist() == [1, 2]  # a copy, not a view
    taken = state.take(np.array([2, 0]))
    assert taken.pit_range.tolist() == [[5, 6], [1, 2]]
    state.put(np.array([1]), taken.take(np.array([0])))
    assert state.pit_range.tolist() == [[1, 2], [5, 6], [5, 6]]


def test_an_array_of_a_new_ruleset_is_in_the_state_and_the_observation():
    """A made-up ruleset (the 2002 rules plus harvest tokens per seat, shown in the observation)."""
    rules = copy.copy(Rules("hg2002"))
    tokens = GameArray("tokens", ("seats",), np.int16, info=tuple(f"tokens_p{k}" for k in range(5)))
    spec = dataclasses.replace(rules.spec, arrays=(tokens,))
    object.__setattr__(rules, "spec", spec)  # this state only: caches keyed by Rules are not used here
    state = empty_state(rules, np.array([3, 2]))  # set up as new_games does, without its caches keyed by Rules
    games = np.arange(2)
    start = np.full(2, spec.start_tile(spec.tiles, rules))
    engine._put_tile(state, games, np.full(2, rules.board.origin), np.zeros(2, dtype=np.int64), start)
    deal_decks(state, seeds=[0, 1])
    engine._begin_regular_turn(state, games, advance=False)
    assert state.tokens.shape == (2, 5) and state.tokens.dtype == np.int16
    state.tokens[1] = [7, 0, 2, 0, 0]
    observer = Observer(spec)
    fields = observer.info_fields
    first = fields.index("tokens_p0")
    assert fields[first : first + 5] == list(tokens.info)
    assert "pit_lo" not in fields
    for games in (np.array([1]), np.array([0, 1])):  # the single-game path and the batched one
        obs = observer.observe(state, games, np.zeros(len(games), dtype=np.int64))
        info = observer.decode_board(obs[-1], rules.reach)["info"]
        assert [info[name] for name in tokens.info] == [7, 0, 2, 0, 0]
