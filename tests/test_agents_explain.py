"""``Agent.explain`` (issue #31): each agent's view of a decision, as ``hgenv replay --agent`` draws it."""

from __future__ import annotations

import numpy as np
import pytest

from hg_env.agents.base import FunctionAgent, make_agent
from hg_env.game import Game
from hg_env.replay import positions


def position(ruleset: str = "hg2020", decisions: int = 6) -> Game:
    """A game a few greedy decisions in."""
    game = Game(2, seed=4, ruleset=ruleset)
    greedy = make_agent("greedy", seed=0)
    for _ in range(decisions):
        game.step(greedy.act(None, game.action_mask(), game.copy()))
    return game


def check_rows(rows: list[dict], game: Game, top: int) -> None:
    legal = set(game.legal_actions())
    assert 1 <= len(rows) <= top and len({r["action"] for r in rows}) == len(rows)
    assert all(r["action"] in legal and 0.0 <= r["weight"] <= 1.0 for r in rows)
    assert rows[0]["weight"] == 1.0


def test_random_explains_a_uniform_choice() -> None:
    game = position()
    rows = make_agent("random").explain(game, top=100)
    assert [r["action"] for r in rows] == sorted(game.legal_actions())
    assert all(r["p"] == pytest.approx(1 / len(rows), abs=1e-4) for r in rows)


def test_greedy_gains_rank_its_own_choice_first() -> None:
    game = position()
    agent = make_agent("greedy", seed=3)
    rows = agent.explain(game.copy(), top=50)
    check_rows(rows, game, 50)
    assert [r["gain"] for r in rows] == sorted((r["gain"] for r in rows), reverse=True)
    best = {r["action"] for r in rows if r["gain"] == rows[0]["gain"]}
    assert agent.act(None, game.action_mask(), game.copy()) in best  # explaining left its generator alone


def test_mcts_visits_and_values_and_unchanged_play() -> None:
    game = position("carcassonne", 4)
    explaining, plain = make_agent("mcts:sims=24", seed=5), make_agent("mcts:sims=24", seed=5)
    rows = explaining.explain(game.copy(), top=5)
    check_rows(rows, game, 5)
    assert [r["visits"] for r in rows] == sorted((r["visits"] for r in rows), reverse=True)
    assert sum(r["visits"] for r in explaining.explain(game.copy(), top=10_000)) == 24
    assert all(0.0 <= r["value"] <= 1.0 for r in rows)  # a win chance
    mask = game.action_mask()
    assert explaining.act(None, mask, game.copy()) == plain.act(None, mask, game.copy())


def test_policy_probabilities_sum_to_one() -> None:
    game = position("hg2002", 3)
    agent = make_agent("policy:path=hg_env/arena/models/ppo_hg2002.zip")
    rows = agent.explain(game, top=10_000)
    check_rows(rows, game, 10_000)
    assert sum(r["p"] for r in rows) == pytest.approx(1.0)
    assert len(rows) == len(game.legal_actions())


def test_an_agent_without_an_explanation_says_so() -> None:
    agent = FunctionAgent(lambda obs, mask: int(np.flatnonzero(mask)[0]))
    with pytest.raises(NotImplementedError, match="cannot explain"):
        agent.explain(next(positions({"decisions": []} | Game(2, seed=0).to_record())))
