"""Tournaments and evaluation on Ray (hg_env.arena.distributed): the same files and tables as one process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from hg_env.agents.base import Agent, RandomAgent, make_agent, register
from hg_env.arena.evaluate import evaluate, play_games
from hg_env.arena.tournament import GAMES_FILE, TournamentConfig, read_results, run_tournament
from hg_env.cli import main as cli_main

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")

ROOT = Path(__file__).resolve().parents[1]


@register
class DieOnceAgent(RandomAgent):
    """Test agent: random moves, but the first process to play it dies on its first decision
    (the marker file tells later processes it already happened)."""

    name = "test-die-once"

    def __init__(self, seed: int | None = None, marker: str = "") -> None:
        super().__init__(seed)
        self.marker = Path(marker)

    def act(self, observation, action_mask, game=None) -> int:
        try:
            self.marker.touch(exist_ok=False)
        except FileExistsError:
            return super().act(observation, action_mask, game)
        os._exit(1)  # as a worker killed by the system: no exception, no result


def _register_test_agents() -> None:
    """Ray's worker setup hook: the test agents exist in every worker."""
    register(DieOnceAgent)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level="WARNING",
        runtime_env={"worker_process_setup_hook": _register_test_agents, "env_vars": {"PYTHONPATH": str(ROOT)}},
    )
    yield
    ray.shutdown()


def _games(folder: Path) -> list[tuple]:
    """Every line of games.jsonl in file order, without its timings."""
    timings = ("seconds", "agent_seconds", "agent_cpu_seconds", "cpu_seconds")
    return [{k: v for k, v in r.items() if k not in timings} for r in read_results(folder / GAMES_FILE)]


def _tables(folder: Path) -> tuple[str, str]:
    return (folder / "ratings.csv").read_text(), (folder / "winrates.csv").read_text()


def test_ray_tournament_writes_the_single_process_file_and_tables(tmp_path: Path, local_ray) -> None:
    config = TournamentConfig(agents=("random", "greedy", "mcts:sims=2"), players=2, games=2, seed=5)
    run_tournament(config, tmp_path / "one", progress=False, plot=False)
    run_tournament(config, tmp_path / "ray", progress=False, plot=False, ray_address="")
    one, on_ray = _games(tmp_path / "one"), _games(tmp_path / "ray")
    assert len(one) == 6 and [r["index"] for r in on_ray] == list(range(6))  # schedule order
    assert on_ray == one
    assert _tables(tmp_path / "ray") == _tables(tmp_path / "one")
    # Games decided together (--at-once): a group is one task, its games come back in schedule order.
    grouped = replace(config, at_once=4)
    run_tournament(grouped, tmp_path / "one4", progress=False, plot=False)
    run_tournament(grouped, tmp_path / "ray4", progress=False, plot=False, ray_address="")
    assert _games(tmp_path / "ray4") == _games(tmp_path / "one4") and len(_games(tmp_path / "ray4")) == 6


def test_ray_and_workers_exclude_each_other(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--workers and --ray"):
        run_tournament(TournamentConfig(("random", "greedy"), games=2), tmp_path, workers=2, ray_address="")


@pytest.mark.slow
def test_a_killed_worker_is_played_again_and_written_once(tmp_path: Path, local_ray) -> None:
    marker = tmp_path / "died"
    config = TournamentConfig(agents=("random", f"test-die-once:marker={marker}"), games=6, seed=1)
    run_tournament(config, tmp_path / "ray", progress=False, plot=False, ray_address="")
    assert marker.exists(), "a worker should have died"
    run_tournament(config, tmp_path / "one", progress=False, plot=False)  # marker there: nobody dies
    assert _games(tmp_path / "ray") == _games(tmp_path / "one")
    assert all(r["error"] is None for r in _games(tmp_path / "ray"))


@pytest.mark.slow
def test_resume_after_killing_the_ray_driver(tmp_path: Path) -> None:
    args = ["--agents", "random", "greedy", "--games", "24", "--seed", "2", "--no-plot"]
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert cli_main(["tournament", *args, "--out", str(whole)]) == 0

    cmd = [sys.executable, "-m", "hg_env.cli", "tournament", *args, "--out", str(killed), "--ray"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games_file = killed / GAMES_FILE
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if games_file.exists() and games_file.read_text().count("\n") >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(read_results(games_file))
    assert 3 <= done < 24, "the run should have been killed part way"

    assert cli_main(["tournament", *args, "--out", str(killed), "--ray"]) == 0
    assert _games(killed) == _games(whole)
    assert _tables(killed) == _tables(whole)


def test_ray_evaluation_is_the_chunked_evaluation(local_ray, monkeypatch) -> None:
    from hg_env.arena import distributed

    per_task = 2
    monkeypatch.setattr(distributed, "DECKS_PER_TASK", per_task)  # the driver cuts the chunks
    agent = make_agent("random")
    # One chunk: exactly the single-process evaluation.
    assert evaluate(agent, "greedy", 4, seed=3, ray_address="") == evaluate(agent, "greedy", 4, seed=3)
    # More chunks: each plays its decks, agents seeded from its first deck; scores come back in deck order.
    games = 2 * (2 * per_task + 1)  # 2 players: 2 full chunks and one of a single deck
    scores, seats = distributed.evaluation_games(agent, make_agent("greedy"), games, seed=3)
    chunks = [slice(0, per_task), slice(per_task, 2 * per_task), slice(2 * per_task, None)]
    parts = [play_games(agent, make_agent("greedy"), games, 3, decks=c) for c in chunks]
    assert np.array_equal(scores, np.concatenate([p[0] for p in parts]))
    assert np.array_equal(seats, np.concatenate([p[1] for p in parts]))
    assert len(scores) == games


def test_agents_are_sent_to_ray_workers_as_objects(local_ray) -> None:
    """An agent object (e.g. a policy in memory) travels to the workers: no file needs to be on every node."""
    from hg_env.arena import distributed

    class Constant(Agent):  # defined here: not in any registry a worker could build it from
        name = "first-legal"

        def act(self, observation, action_mask, game=None) -> int:
            return int(np.flatnonzero(action_mask)[0])

    scores, _ = distributed.evaluation_games(Constant(), make_agent("random"), 4, seed=0)
    expected, _ = play_games(Constant(), make_agent("random"), 4, seed=0)
    assert np.array_equal(scores, expected)
