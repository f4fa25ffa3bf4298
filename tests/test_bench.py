"""`hgenv bench` prints its figures in the documented shapes (numbers only, no timed assertions)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hg_env
from hg_env import bench
from hg_env.agents.base import REGISTRY, Agent
from hg_env.agents.puct import ppo_model
from hg_env.cli import main


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_bench_core_json_line(capsys, ruleset: str) -> None:
    assert main(["bench", "core", "--json", "--seconds", "0.1", "--ruleset", ruleset]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"ruleset", "batches", "bytes_per_game"} and result["ruleset"] == ruleset
    assert set(result["batches"]) == {"1", "64", "1024", "4096"}
    for row in result["batches"].values():
        assert row["decisions_per_cpu_s"] > 0 and row["engine_decisions_per_cpu_s"] >= row["decisions_per_cpu_s"]
    assert 0 < result["bytes_per_game"] <= 64 * 1024  # issue target: at most 64 KiB of state per game


def test_bench_calls_counts_numpy_calls_per_decision(capsys) -> None:
    result = bench.numpy_calls_per_decision(decisions=50)
    assert result["decisions"] == 50 and result["step"] > 0 and result["sampler"] > 0


def test_bench_compare_measures_another_revision_interleaved() -> None:
    """``--compare HEAD``: this tree against its own last commit, both measured, a ratio near 1."""
    result = bench.compare("HEAD", seconds=0.2, batches=(1,), rounds=2)
    row = result["batches"]["1"]
    assert row["new_per_cpu_s"] > 0 and row["old_per_cpu_s"] > 0 and row["ratio"] > 0


def test_bench_agents_times_agents_on_the_same_positions(capsys) -> None:
    """``bench agents``: every agent decides each position of the first agent's game; a copy of the
    first agent (same seed) chooses its move every time, and every decision is timed."""
    assert main(["bench", "agents", "--agents", "greedy", "random", "greedy", "--games", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 1 and result["decisions"] > 20
    first, other, copy = result["agents"]
    assert [row["spec"] for row in result["agents"]] == ["greedy", "random", "greedy"]
    assert first["same_move"] == copy["same_move"] == result["decisions"] > other["same_move"]
    assert first["cpu_ratio"] == 1.0 and all(row["cpu_s_per_decision"] > 0 for row in result["agents"])
    assert main(["bench", "agents", "--agents", "greedy", "--games", "1"]) == 0
    assert "decisions with a choice" in capsys.readouterr().out
    assert main(["bench", "agents"]) == 2
    assert "needs --agents" in capsys.readouterr().err
    with pytest.raises(ValueError, match="games must be"):
        bench.bench_agents(["greedy"], games=0)


def test_bench_agents_at_once_decides_the_games_positions_together(capsys, monkeypatch) -> None:
    """``--at-once N``: the games N at a time on one batched state, every agent deciding all their
    positions with a choice in one ``act_batch``; a copy of the first agent still chooses its moves."""
    asked = []

    class Recorder(Agent):
        name = "recorder"

        def act_batch(self, observations, action_masks, state=None):
            asked.append(len(action_masks))
            assert np.asarray(action_masks).sum(1).min() > 1 and state.batch_size == len(action_masks)
            return np.asarray([np.flatnonzero(mask)[-1] for mask in action_masks])

    monkeypatch.setitem(REGISTRY, "recorder", Recorder)
    result = bench.bench_agents(["greedy", "recorder", "greedy"], games=3, at_once=2)
    assert result["at_once"] == 2 and result["decisions"] == sum(asked) > 40 and max(asked) == 2
    first, _, copy = result["agents"]
    assert first["same_move"] == copy["same_move"] == result["decisions"]
    assert main(["bench", "agents", "--agents", "greedy", "--games", "2", "--at-once", "2"]) == 0
    assert "2 at once" in capsys.readouterr().out
    with pytest.raises(ValueError, match="at_once must be"):
        bench.bench_agents(["greedy"], at_once=0)


def test_bench_values_scores_each_leaf_value_against_the_mover_s_result(capsys) -> None:
    """``bench values``: every predictor values the same positions (one row each: the lookahead at each
    spread, each network alone and mixed with each lookahead), and a perfect or a coin-flip predictor
    would score as the cross-entropy says; bad options are refused."""
    assert main(["bench", "values", "--games", "1", "--look-scales", "10", "40", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    names = [row["value"] for row in result["values"]]
    assert names[:2] == ["lookahead, spread 10", "lookahead, spread 40"]
    assert "puct_hg2020.zip" in names and "ppo_hg2020.zip mixed with the lookahead at 40" in names
    assert len(names) == 2 + 2 * 3 and result["positions"] > 10 and result["agent"] == "greedy"
    for row in result["values"]:
        assert 0 < row["brier"] < 1 and 0 < row["cross_entropy"] < 9.3  # clipped at 1e-4: at most -log(1e-4)
    assert main(["bench", "values", "--games", "1", "--models", str(ppo_model("hg2020"))]) == 0
    assert "how well each value predicts" in capsys.readouterr().out
    with pytest.raises(ValueError, match="look scales must be > 0"):
        bench.bench_values(look_scales=(0.0,), games=1)
    assert main(["bench", "values", "--agents", "greedy", "random"]) == 2
    assert "one agent" in capsys.readouterr().err


def test_bench_env_json_line(capsys) -> None:
    pytest.importorskip("chess")  # pettingzoo[classic], from the dev extra
    assert main(["bench", "env", "--json", "--seconds", "0.3"]) == 0
    rates = json.loads(capsys.readouterr().out)["steps_per_s"]
    assert set(rates) == {"hunters_gatherers_v0", "connect_four_v3", "chess_v6"}
    assert all(rate > 0 for rate in rates.values())


def test_aec_rates_count_every_step_of_every_env() -> None:
    """Each env plays its own games: the same seed gives the same games whatever else is measured."""
    played = []

    def recording_env():
        env = hg_env.env(num_players=2)
        step = env.step
        env.step = lambda action: (played.append(action), step(action))[1]
        return env

    bench.aec_steps_per_second({"a": recording_env}, seconds=0.05, rounds=1, seed=3)
    alone = list(played)
    played.clear()
    bench.aec_steps_per_second({"other": lambda: hg_env.env(num_players=3), "a": recording_env}, 0.1, 1, seed=3)
    shared = min(len(alone), len(played))
    assert shared > 5 and np.array_equal(alone[:shared], played[:shared])


def test_bench_env_uses_pettingzoos_current_creation_api(tmp_path) -> None:
    """PettingZoo 1.27 deprecates importing pettingzoo.classic.chess_v6; bench env goes through pettingzoo.make."""
    import subprocess
    import sys

    pytest.importorskip("chess")
    code = "from hg_env.cli import main; main(['bench', 'env', '--json', '--seconds', '0.1'])"
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["steps_per_s"]) == {"hunters_gatherers_v0", "connect_four_v3", "chess_v6"}


def test_bench_train_reports_learner_steps_with_and_without_lookahead(tmp_path) -> None:
    """hgenv bench train's measurement on a tiny config: both rows, steps per wall and CPU second."""
    pytest.importorskip("sb3_contrib")
    from hg_env.train.throughput import bench_train

    config = tmp_path / "t.toml"
    config.write_text(
        "[run]\ntorch_threads = 2\n[env]\nnum_envs = 4\n[policy]\nchannels = 8\nlayers = 1\nhidden = 16\n"
        "[ppo]\nn_steps = 16\nbatch_size = 32\nn_epochs = 1\n[opponents]\ngreedy_weight = 0.0\n"
        "[eval]\nevery = 0\nfinal_games = 0\n"
    )
    rows = bench_train(config, 64, threads=1)  # --threads overrides the config's 2
    assert [row["lookahead"] for row in rows] == [False, True]
    for row in rows:
        assert row["steps"] == 64 and row["torch_threads"] == 1
        assert row["steps_per_s"] > 0 and row["steps_per_cpu_s"] > 0


@pytest.mark.slow  # four fresh processes, each importing torch and SB3: about 30 s
def test_bench_train_compare_trains_each_tree_with_its_own_code() -> None:
    """``bench train --compare HEAD`` on a shrunken config: both trees trained, plain and with the
    lookahead, in fresh processes running their own tree's hg_env.train (checked inside), and the
    ratio is old wall time over new."""
    pytest.importorskip("sb3_contrib")
    from hg_env.train.throughput import compare_train

    tiny = {
        "env": {"num_envs": 4},
        "policy": {"channels": 8, "layers": 1, "hidden": 16},
        "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1},
    }
    result = compare_train("HEAD", steps=64, rounds=1, threads=1, overrides=tiny)
    assert set(result["modes"]) == {"plain", "lookahead"} and result["revision"] == "HEAD"
    for row in result["modes"].values():
        assert row["new_steps_per_s"] > 0 and row["old_steps_per_s"] > 0 and len(row["round_ratios"]) == 1
        assert row["ratio"] == pytest.approx(row["new_steps_per_s"] / row["old_steps_per_s"], rel=1e-3)


def test_bench_train_compare_names_a_revision_it_cannot_check_out() -> None:
    pytest.importorskip("sb3_contrib")
    from hg_env.train.throughput import compare_train

    with pytest.raises(ValueError, match="cannot check out revision 'no-such-revision'"):
        compare_train("no-such-revision", steps=64, rounds=1)
