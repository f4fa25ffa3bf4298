"""Decisions a ruleset declares (``Ruleset.decisions``): the engine offers, checks and applies them from
the declaration alone. A made-up ruleset (the 2002 rules plus "bank k points instead of an occupant")
gets its own action segment, legal moves, move strings and effect without any edit to the core."""

from __future__ import annotations

import dataclasses
import sys
import types

import numpy as np
import pytest

from hg_env.core import engine
from hg_env.core import ruleset as ruleset_module
from hg_env.core.rules import Rules
from hg_env.core.ruleset import Decision, get_ruleset
from hg_env.core.state import OCCUPY
from hg_env.game import Game
from hg_env.play import describe_move, parse_move

BANK = "hg2002_bank"


def bank_options(state, g):
    """Every game may bank 1 or 2 points (never 0: the operands offered are the declaration's)."""
    return np.repeat(np.arange(len(g)), 2), np.tile(np.array([1, 2], dtype=np.int64), len(g))


def bank(state, g, points):
    state.score[g, state.current[g].astype(np.intp)] += points.astype(state.score.dtype)
    return g  # the tile is done


BANK_DECISION = Decision(
    name="bank",
    phase=OCCUPY,
    operand="count",
    width=3,
    options=bank_options,
    apply=bank,
    describe=lambda d: f"bank {d[1]} points",
)


@pytest.fixture
def bank_ruleset(monkeypatch: pytest.MonkeyPatch):
    spec = dataclasses.replace(get_ruleset("hg2002"), name=BANK, decisions=(BANK_DECISION,))
    module = types.ModuleType(f"hg_env.rulesets.{BANK}")
    module.RULESET = spec
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(ruleset_module, "RULESETS", (*ruleset_module.RULESETS, BANK))
    yield BANK
    get_ruleset.cache_clear()


def occupy_position(ruleset: str) -> Game:
    game = Game(2, seed=3, ruleset=ruleset)
    game.step(game.legal_actions()[0])  # the first placement; banking makes the occupy phase always offered
    assert game.phase == "occupy"
    return game


def test_the_layout_gives_a_declared_decision_its_segment(bank_ruleset: str) -> None:
    layout = Game(2, seed=3, ruleset=bank_ruleset).layout
    plain = Game(2, seed=3, ruleset="hg2002").layout
    first = plain.none  # after the occupants, before "none"
    assert layout.segment("bank") == (first, first + 3)
    assert (layout.none, layout.size) == (plain.none + 3, plain.size + 3)
    assert layout.encode(("bank", 2)) == first + 2 and layout.decode(first + 2) == ("bank", 2)
    assert layout.describe(first + 1) == "bank 1 points"
    with pytest.raises(ValueError, match=r"a bank choice must be 0..2, got 3"):
        layout.encode(("bank", 3))


def test_the_engine_offers_checks_and_applies_it(bank_ruleset: str) -> None:
    game = occupy_position(bank_ruleset)
    first = game.layout.segment("bank")[0]
    legal = game.legal_actions()
    assert first + 1 in legal and first + 2 in legal and first not in legal and game.layout.none in legal
    with pytest.raises(ValueError, match="not legal"):
        game.step(first)  # not offered: the game is unchanged
    seat = game.current_player
    declined = occupy_position(bank_ruleset)
    declined.step(declined.layout.none)
    game.step(first + 2)
    assert game.scores[seat] == declined.scores[seat] + 2  # banked, then the tile scored as without it
    assert game.phase == declined.phase and game.current_player == declined.current_player


def test_a_batch_takes_it_beside_the_other_phases(bank_ruleset: str) -> None:
    state = engine.new_games(2, Rules(bank_ruleset), seeds=[3, 4, 5])
    first = engine.action_layout(state.rules).segment("bank")[0]
    engine.step(state, engine.sample_legal(state, np.random.default_rng(0)))  # all games place
    assert (state.phase == OCCUPY).all()
    none = engine.action_layout(state.rules).none
    declined = state.copy()
    actions = np.array([first + 1, none, -1])
    assert engine.check_actions(state, actions).all()
    assert not engine.check_actions(state, np.array([first, none, -1]))[0]
    indptr, legal = engine.legal_actions(state)
    assert all({first + 1, first + 2} <= set(legal[indptr[i] : indptr[i + 1]].tolist()) for i in range(3))
    seat = int(state.current[0])
    engine.step(state, actions)
    engine.step(declined, np.array([none, none, -1]))
    assert state.phase[2] == OCCUPY  # skipped, untouched
    assert state.score[0, seat] == declined.score[0, seat] + 1 and (state.score[1:] == declined.score[1:]).all()


def test_hgenv_play_lists_and_reads_it(bank_ruleset: str) -> None:
    """Without words in a presentation, ``hgenv play`` shows the declaration's own description."""
    game = occupy_position(bank_ruleset)
    first = game.layout.segment("bank")[0]
    assert describe_move(game, first + 2) == "bank 2 points"
    assert parse_move(game, "bank 2") == first + 2
    with pytest.raises(ValueError, match="'bank 0' is not possible"):
        parse_move(game, "bank 0")


def test_a_record_names_it_and_replays_it(bank_ruleset: str) -> None:
    game = occupy_position(bank_ruleset)
    game.step(game.layout.encode(("bank", 2)))
    record = game.to_record()
    assert record["decisions"][-1] == ["bank", 2]
    again = Game.from_record(record)
    assert again.scores == game.scores and again.history == game.history
    record["decisions"][-1] = ["bank", 0]  # never offered
    with pytest.raises(ValueError, match=r"decision 1 \['bank', 0\] cannot be replayed"):
        Game.from_record(record)


def test_a_decision_in_a_phase_of_its_own_names_it_and_the_phases_follow() -> None:
    """``Ruleset.phases``: place, occupy, over and the own phases of the declared decisions, by code; a decision
    may not take the place or over phase, nor give one code two names."""
    base = dataclasses.replace(get_ruleset("hg2002"), observed_phases=())  # not its released v0 phase fields
    assert base.phases == {0: "place", 2: "occupy", 4: "over"}
    own = dataclasses.replace(BANK_DECISION, phase=3, phase_name="banking")
    assert dataclasses.replace(base, decisions=(own,)).phases == {0: "place", 2: "occupy", 3: "banking", 4: "over"}
    with pytest.raises(ValueError, match="its phase must be OCCUPY or one of its own"):
        dataclasses.replace(base, decisions=(dataclasses.replace(own, phase=0),))
    with pytest.raises(ValueError, match="phase 3 has two names: 'banking', 'other'"):
        dataclasses.replace(base, decisions=(own, dataclasses.replace(own, name="b2", phase_name="other")))
    with pytest.raises(ValueError, match="must have distinct names, all observed"):
        dataclasses.replace(base, decisions=(own,), observed_phases=("place", "occupy", "over"))
