"""hg_env.evaluate: any agent (spec, Agent, function, SB3 model in memory) against fixed opponents,
seats swapped on paired decks, with the one win-rate interval (Wilson) shared by evaluations,
training logs and tournament tables."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import hg_env
from hg_env.agents.base import FunctionAgent, make_agent
from hg_env.arena.evaluate import (
    EvalResult,
    MoveClock,
    as_agent,
    evaluate,
    evaluation_table,
    play_games,
    win_interval,
)
from hg_env.core import engine
from hg_env.core.observation import observe
from hg_env.core.rules import Rules


def test_wilson_interval_known_values_and_bad_input() -> None:
    assert win_interval(0, 4) == pytest.approx((0.0, 0.48990), abs=1e-5)  # z^2 / (n + z^2)
    assert win_interval(200, 200) == pytest.approx((0.98116, 1.0), abs=1e-5)
    low, high = win_interval(50, 100)
    assert (low, high) == pytest.approx((0.40383, 0.59617), abs=1e-5)
    assert win_interval(2.5, 5)[0] < 0.5 < win_interval(2.5, 5)[1]  # ties count half
    for points, games in ((1, 0), (-1, 4), (5, 4)):
        with pytest.raises(ValueError):
            win_interval(points, games)


def test_an_even_split_over_few_games_no_longer_claims_certainty() -> None:
    """Four games, each deck split 1-1: the old normal approximation over decks printed 0.500 [0.500, 0.500]."""
    scores = np.array([[10, 5]] * 4)  # seat 0 wins every game: the agent (seat g % 2) wins one game per deck
    result = EvalResult.from_games("greedy", scores, np.arange(4) % 2)
    assert result.win_rate == 0.5
    assert result.ci_low < 0.2 and result.ci_high > 0.8
    assert "0.500 [0.150, 0.850] over 4 games" in str(result)


def test_evaluate_takes_a_spec_an_agent_and_a_function_and_returns_one_result_per_opponent() -> None:
    by_spec = hg_env.evaluate("random", opponents=["random", "greedy:opponents=0.5"], games=2, seed=3)
    assert list(by_spec) == ["random", "greedy:opponents=0.5"]
    assert all(r.games == 2 and 0 <= r.ci_low <= r.win_rate <= r.ci_high <= 1 for r in by_spec.values())
    by_agent = hg_env.evaluate(make_agent("random"), opponents="random", games=2, seed=3)
    assert by_agent["random"] == by_spec["random"]  # the same seeds, the same games

    seen = []

    def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        seen.append(observation.shape)
        return int(np.flatnonzero(mask)[0])

    result = hg_env.evaluate(first_legal, opponents=["random"], games=3, ruleset="hg2002", num_players=3)["random"]
    board = hg_env.SingleAgentEnv(ruleset="hg2002", num_players=3).observation_space.shape
    assert result.games == 3 and set(seen) == {board}
    table = evaluation_table({"random": result})
    assert table.splitlines()[0].startswith("| opponent | games | win rate | 95% interval |")
    assert f"| `random` | 3 | {result.win_rate:.3f} |" in table


def test_evaluate_names_bad_arguments_before_playing() -> None:
    for kwargs, words in [
        ({"opponents": ["nobody"]}, "unknown agent"),
        ({"opponents": []}, "non-empty list"),
        ({"games": 0}, "games"),
        ({"num_players": 6}, "num_players"),
        ({"ruleset": "chess"}, "ruleset"),
    ]:
        with pytest.raises(ValueError, match=words):
            hg_env.evaluate("random", **{"opponents": ["random"], "games": 2, **kwargs})
    with pytest.raises(ValueError, match="agent must be"):
        hg_env.evaluate(42, opponents=["random"], games=2)


def test_hg_env_evaluate_imports_no_torch_for_agents_without_it(tmp_path: Path) -> None:
    code = """
        import sys
        import hg_env
        assert "hg_env.arena.evaluate" not in sys.modules   # imported on first use
        print(hg_env.evaluate("greedy", opponents=["random"], games=2)["random"].games, "torch" in sys.modules)
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "False"]


def test_a_function_gets_each_games_own_observation() -> None:
    """In a batch of games, the function is called per game with that game's board and mask."""
    calls = []
    agent = FunctionAgent(lambda obs, mask: calls.append((obs.copy(), mask.copy())) or int(np.flatnonzero(mask)[-1]))
    state = engine.new_games(2, Rules(), seeds=[1, 2, 3])
    rows = np.arange(3)
    obs, masks = observe(state, rows, state.current), engine.legal_action_mask(state)
    actions = agent.act_batch(obs, masks, state)
    assert [a for a in actions] == [int(np.flatnonzero(m)[-1]) for m in masks]
    assert all(np.array_equal(o, obs[i]) and np.array_equal(m, masks[i]) for i, (o, m) in enumerate(calls))


# ---------------------------------------------------------------- SB3 models in memory

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")


def _models() -> dict[str, object]:
    """Untrained MaskablePPO models on our envs: the decisions, not the strength, are under test."""
    from hg_env.agents.features import BoardCNN
    from hg_env.train.policy import HGPolicy
    from hg_env.train.vec_env import HGVecEnv

    small = dict(channels=8, layers=1, hidden=16)
    cnn = dict(features_extractor_class=BoardCNN, features_extractor_kwargs=dict(channels=8), net_arch=[16])
    torch.manual_seed(0)
    return {
        "HGPolicy on SingleAgentEnv": sb3_contrib.MaskablePPO(HGPolicy, hg_env.SingleAgentEnv(), policy_kwargs=small),
        "BoardCNN on SingleAgentEnv": sb3_contrib.MaskablePPO("MlpPolicy", hg_env.SingleAgentEnv(), policy_kwargs=cnn),
        "HGPolicy, lookahead": sb3_contrib.MaskablePPO(
            HGPolicy, HGVecEnv(2, lookahead=True), policy_kwargs=dict(small, lookahead=True)
        ),
        "MultiInputPolicy, lookahead": sb3_contrib.MaskablePPO(
            "MultiInputPolicy", HGVecEnv(2, lookahead=True), policy_kwargs=dict(net_arch=[16])
        ),
    }


@pytest.fixture(scope="module")
def models() -> dict[str, object]:
    return _models()


@pytest.mark.parametrize(
    "name",
    ["HGPolicy on SingleAgentEnv", "BoardCNN on SingleAgentEnv", "HGPolicy, lookahead", "MultiInputPolicy, lookahead"],
)
def test_an_sb3_model_plays_what_its_policy_predicts(models, name: str) -> None:
    """The agent made from a model decides as model.predict(deterministic=True) on the same observation
    (with lookahead: the Dict observation built as hg_env.vector.lookahead_observation does)."""
    from hg_env.vector import lookahead_observation

    model = models[name]
    agent = as_agent(model, seed=5)
    state = engine.new_games(2, Rules(), seeds=[4, 5, 6])
    rows = np.arange(3)
    for _ in range(7):  # a few decisions into the games
        engine.step(state, agent.act_batch(observe(state, rows, state.current), engine.legal_action_mask(state), state))
    board, masks = observe(state, rows, state.current), engine.legal_action_mask(state)
    agent.reset(11)
    mine = agent.act_batch(board, masks, state)
    obs = board
    if agent.net.lookahead:
        obs = lookahead_observation(board, state, np.random.default_rng(11))
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert np.array_equal(mine, expected)
    assert all(masks[i, a] for i, a in enumerate(mine))


def test_evaluate_takes_a_model_or_its_policy(models) -> None:
    model = models["BoardCNN on SingleAgentEnv"]
    from_model = hg_env.evaluate(model, opponents=["random"], games=2)["random"]
    from_policy = hg_env.evaluate(model.policy, opponents=["random"], games=2)["random"]
    assert from_model == from_policy and from_model.games == 2
    with pytest.raises(ValueError, match="does not play 'hg2002'"):  # HGPolicy knows its ruleset
        hg_env.evaluate(models["HGPolicy, lookahead"], opponents=["random"], games=2, ruleset="hg2002")
    with pytest.raises(ValueError, match="reads observations of shape"):  # BoardCNN: the board's shape
        hg_env.evaluate(model, opponents=["random"], games=2, ruleset="carcassonne")


def test_hgenv_evaluate_plays_the_models_own_ruleset(tmp_path: Path, capsys) -> None:
    """`hgenv evaluate` used to play hg2020 whatever the model: a hg2002 model was refused."""
    from hg_env.agents.model_file import export_sb3
    from hg_env.cli import main
    from hg_env.train.policy import HGPolicy

    small = dict(channels=8, layers=1, hidden=16, ruleset="hg2002")
    model = sb3_contrib.MaskablePPO(HGPolicy, hg_env.SingleAgentEnv(ruleset="hg2002"), policy_kwargs=small)
    path = str(tmp_path / "classic.zip")
    export_sb3(model, path, ruleset="hg2002")
    assert main(["evaluate", "--model", path, "--games", "2", "--opponents", "random", "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["opponent"] == "random" and line["games"] == 2 and line["ci_low"] <= line["win_rate"] <= line["ci_high"]
    assert main(["evaluate", "--model", path, "--games", "2", "--opponents", "random"]) == 0
    out = capsys.readouterr().out
    assert "vs random: win rate" in out and "| `random` | 2 |" in out


def test_play_games_plays_the_opening_before_the_agents() -> None:
    """``opening`` moves first (expert iteration's gate: greedy's first decisions): here it finishes
    every game, so agents that refuse to be asked never are, and the scores are the opening's."""
    from hg_env.agents.greedy import greedy_actions
    from hg_env.core.state import OVER

    class Refuses(FunctionAgent):
        def act_batch(self, observations, action_masks, state=None):
            raise AssertionError("an agent was asked to move after the opening finished the games")

    seen = []

    def opening(state) -> None:
        seen.append(len(state.phase))
        rng = np.random.default_rng(0)
        while (state.phase != OVER).any():
            engine.step(state, np.where(state.phase != OVER, greedy_actions(state, rng), -1))

    agent, opponent = Refuses(lambda obs, mask: 0), Refuses(lambda obs, mask: 0)
    scores, seats = play_games(agent, opponent, 4, seed=3, opening=opening)
    assert seen == [4] and scores.shape == (4, 2) and list(seats) == [0, 1, 0, 1]
    assert (scores > 0).any()


def test_play_games_keeps_its_arguments() -> None:
    """play_games(agent, opponent, games, seed, num_players, rules): another evaluation path builds on it."""
    scores, seats = play_games(make_agent("random"), make_agent("random"), 3, 0, 3, Rules(ruleset="carcassonne"))
    assert scores.shape == (3, 3) and list(seats) == [0, 1, 2]
    assert evaluate(make_agent("random"), "random", 3, 0, 3, Rules(ruleset="carcassonne")).games == 3


class Counting(FunctionAgent):
    """Random legal moves, counting the decisions it is asked for."""

    def __init__(self) -> None:
        super().__init__(lambda obs, mask: int(np.flatnonzero(mask)[0]))
        self.asked = 0

    def act_batch(self, observations, action_masks, state=None):
        self.asked += int(np.asarray(action_masks).any(1).sum())
        return super().act_batch(observations, action_masks, state)


def test_play_games_clocks_each_sides_decisions() -> None:
    agent, opponent = Counting(), make_agent("greedy")
    clock = MoveClock()
    play_games(agent, opponent, 4, seed=1, clock=clock)
    assert clock.moves[0] == agent.asked > 0 and clock.moves[1] > 0
    assert all(c >= 0 for c in clock.cpu) and clock.per_move(1) == clock.cpu[1] / clock.moves[1]
    result = evaluate(make_agent("greedy"), "random", 4, seed=1)
    assert result.cpu_per_move > 0 and result.opponent_cpu_per_move > 0
    assert "CPU per move" in result.line() and "| CPU s per move |" in evaluation_table({"random": result})
    assert MoveClock().per_move(0) is None


@pytest.mark.parametrize("model", ["ppo_hg2002.zip", "ppo_carcassonne.zip", "puct_hg2020.zip"])
def test_agents_holding_a_loaded_network_pickle_for_worker_processes(model: str) -> None:
    """``puct:path=`` and ``policy:path=`` load their network when made, with the ruleset's spec; ``hgenv
    evaluate --workers`` sends the agent to spawned processes, so all of it pickles (a searchnet's
    per-thread tap, the rulesets' decision hooks) and comes back with the same weights."""
    import pickle

    import torch

    path = Path(hg_env.__file__).parent / "arena" / "models" / model
    for kind in ("puct", "policy"):
        agent = make_agent(f"{kind}:path={path}", seed=0)
        copy = pickle.loads(pickle.dumps(agent))
        nets = [[a.net] if kind == "policy" else [net for net, _ in a._nets.values()] for a in (agent, copy)]
        weights = [[w for net in held for w in net.state_dict().values()] for held in nets]
        assert weights[0] and len(weights[0]) == len(weights[1])
        assert all(torch.equal(a, b) for a, b in zip(*weights))


def test_a_searchnet_agent_plays_the_same_chunks_in_worker_processes() -> None:
    """``hgenv evaluate --agent puct:path=<searchnet> --workers 2``: the chunks played in two spawned
    processes are those played here."""
    path = Path(hg_env.__file__).parent / "arena" / "models" / "puct_hg2020.zip"
    agent = make_agent(f"puct:path={path},sims=4,deals=2", seed=0)
    here = evaluate(agent, "random", 4, seed=3, chunk=1)
    assert evaluate(agent, "random", 4, seed=3, chunk=1, workers=2) == here


def test_chunks_play_their_own_decks_wherever_they_are_played(tmp_path: Path) -> None:
    """A chunk's games depend on its decks alone: chunked, in two processes, or resumed from a record."""
    agent, games = make_agent("greedy"), 10  # 5 decks: chunks of 2, 2 and 1
    whole = evaluate(agent, "random", games, seed=2, chunk=2)
    parts = [play_games(agent, make_agent("random"), games, 2, decks=slice(a, min(a + 2, 5))) for a in (0, 2, 4)]
    expected = EvalResult.from_games("random", *(np.concatenate(p) for p in zip(*parts)))
    assert whole == expected
    assert evaluate(agent, "random", games, seed=2, chunk=2, workers=2) == whole
    record = tmp_path / "eval.jsonl"
    assert evaluate(agent, "random", games, seed=2, chunk=2, record=record) == whole
    lines = record.read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["chunk"] == 2
    # Killed while writing the third chunk: the two before it are kept, the cut line dropped and played again.
    record.write_text("\n".join(lines[:3]) + "\n" + lines[3][:25])
    assert evaluate(agent, "random", games, seed=2, chunk=2, record=record) == whole
    resumed = record.read_text().splitlines()
    assert resumed[:3] == lines[:3] and len(resumed) == 4
    assert json.loads(resumed[3])["scores"] == json.loads(lines[3])["scores"]
    # A finished record plays nothing more.
    refuses = FunctionAgent(lambda obs, mask: (_ for _ in ()).throw(AssertionError("a recorded chunk played")))
    refuses.spec = agent.spec
    assert evaluate(refuses, "random", games, seed=2, chunk=2, record=record) == whole


def test_a_record_of_another_evaluation_or_damaged_is_refused(tmp_path: Path) -> None:
    record = tmp_path / "eval.jsonl"
    hg_env.evaluate("greedy", opponents=["random"], games=4, seed=0, chunk=1, record=record)
    kept = record.read_text()
    with pytest.raises(ValueError, match="its seed is 0, this one's 1"):
        hg_env.evaluate("greedy", opponents=["random"], games=4, seed=1, chunk=1, record=record)
    with pytest.raises(ValueError, match="its agent is 'greedy', this one's 'random'"):
        hg_env.evaluate("random", opponents=["random"], games=4, seed=0, chunk=1, record=record)
    assert record.read_text() == kept
    header, first, second = kept.splitlines()
    for damaged, words in [
        (first.replace('"seats": [0, 1]', '"seats": [1, 0]'), "seats must be"),
        (first.replace('"decks": [0, 1]', '"decks": [0, 2]'), "not a chunk of 1 decks"),
        (first.replace('"scores": [[', '"scores": [[-'), "non-negative points"),
        (first.replace('"cpu": [', '"cpu": ["x", '), "must be numbers"),
        (second.replace('"decks": [1, 2]', '"decks": [0, 1]').replace("[1, 0]", "[0, 1]"), "recorded twice"),
    ]:
        record.write_text("\n".join([header, first if "twice" in words else damaged, damaged]) + "\n")
        with pytest.raises(ValueError, match=words):
            hg_env.evaluate("greedy", opponents=["random"], games=4, seed=0, chunk=1, record=record)
    record.write_text("[1, 2]\n")
    with pytest.raises(ValueError, match="not an evaluation record"):
        hg_env.evaluate("greedy", opponents=["random"], games=4, seed=0, chunk=1, record=record)
    for kwargs, words in [({"chunk": 0}, "chunk must be"), ({"workers": 0}, "workers must be")]:
        with pytest.raises(ValueError, match=words):
            hg_env.evaluate("greedy", opponents=["random"], games=4, **kwargs)


def test_hgenv_evaluate_takes_any_agent_spec_and_resumes_its_record(tmp_path: Path, capsys) -> None:
    from hg_env.cli import main

    out = tmp_path / "eval.jsonl"
    argv = ["evaluate", "--agent", "greedy", "--opponents", "random", "--games", "4", "--chunk", "1"]
    assert main([*argv, "--out", str(out), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["opponent"] == "random" and line["games"] == 4 and line["cpu_per_move"] > 0
    assert main([*argv, "--out", str(out), "--json"]) == 0  # resumed: nothing left to play, the same result
    again = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in again.items() if "cpu" not in k} == {k: v for k, v in line.items() if "cpu" not in k}
    assert len(out.read_text().splitlines()) == 3
    # --summary-only reports the games recorded so far, playing none: half the record, half the games.
    header, first, _ = out.read_text().splitlines()
    out.write_text(header + "\n" + first + "\n")
    assert main([*argv, "--out", str(out), "--json", "--summary-only"]) == 0
    half = json.loads(capsys.readouterr().out)
    assert half["games"] == 2 and len(out.read_text().splitlines()) == 2
    for bad, words in [
        (["evaluate", "--opponents", "random"], "give --model"),
        (["evaluate", "--agent", "greedy", "--model", "m.zip"], "give --model"),
        (["evaluate", "--agent", "nobody"], "unknown agent"),
        (["evaluate", "--agent", "greedy", "--ruleset", "chess"], "--ruleset must be"),
        ([*argv, "--workers", "2", "--ray"], "exclude each other"),
        ([*argv, "--summary-only"], "give its --out"),
        ([*argv[:4], "greedy", *argv[5:], "--out", str(out), "--summary-only"], "no finished games against 'greedy'"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            main(bad)
        assert exit_info.value.code == 2 and words in capsys.readouterr().err


def test_a_record_pins_the_model_files_both_sides_play_with(tmp_path: Path, monkeypatch) -> None:
    """A changed model never mixes with its old games: the agent's is in the header, each opponent's in its chunks."""
    from hg_env.agents.base import REGISTRY, RandomAgent
    from hg_env.agents.puct import PUCTAgent, default_model

    assert PUCTAgent().model_file("hg2020") == str(default_model("hg2020"))
    shipped = str(default_model("hg2020"))
    assert PUCTAgent(path=shipped).model_file("hg2020") == shipped and RandomAgent().model_file("hg2020") is None
    files = {"agent": tmp_path / "agent.zip", "opponent": tmp_path / "opponent.zip"}
    for path in files.values():
        path.write_bytes(b"first")

    def pinned(role: str) -> type:
        class Pinned(RandomAgent):
            name = role

            def model_file(self, ruleset: str) -> str | None:
                return str(files[role])

        return Pinned

    for role in files:
        monkeypatch.setitem(REGISTRY, role, pinned(role))
    record = tmp_path / "eval.jsonl"
    hg_env.evaluate("agent", opponents=["opponent", "random"], games=2, chunk=1, record=record)
    assert json.loads(record.read_text().splitlines()[0])["model"] is not None
    files["opponent"].write_bytes(b"second")
    with pytest.raises(ValueError, match="against 'opponent' were played with the model of SHA-256"):
        hg_env.evaluate("agent", opponents=["opponent"], games=2, chunk=1, record=record)
    assert hg_env.evaluate("agent", opponents=["random"], games=2, chunk=1, record=record)["random"].games == 2
    files["agent"].write_bytes(b"second")
    with pytest.raises(ValueError, match="its model is"):
        hg_env.evaluate("agent", opponents=["random"], games=2, chunk=1, record=record)
