"""Long soaks (``make test-slow``, ``pytest -m slow``): many random games of every ruleset with random
rule flags, and kill -9 / resume loops of tournaments and training.

* 10,000+ random games across the three rulesets, 2-5 players and random flags (board_reach=None
  included), the invariants after every step and the BFS oracle on a sample of steps;
* a tournament killed with SIGKILL at random moments until it finishes: every game once, the same
  tables as an uninterrupted run;
* a training run killed with SIGKILL at random moments and resumed until it finishes: the same
  final weights, evaluations and logs as an uninterrupted run (one torch thread: bit for bit).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from hg_env.core import engine
from hg_env.core.actions import sample_uniform
from hg_env.core.rules import Rules
from hg_env.core.ruleset import RULESETS, get_ruleset
from hg_env.core.state import OVER
from tests.invariants import check_areas, check_mask, check_pieces, check_tiles

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow
ONE_THREAD_ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}  # command-line runs of this tree


def random_rules(rng: np.random.Generator) -> Rules:
    """A ruleset and random values of its flags (a third of the boards unbounded)."""
    ruleset = RULESETS[rng.integers(len(RULESETS))]
    flags = {}
    for name, flag in get_ruleset(ruleset).flags.items():
        choices = [True, False] if isinstance(flag.default, bool) else list(flag.choices)
        flags[name] = choices[rng.integers(len(choices))]
    reach = [None, 12, 30, 4][rng.integers(4)]
    return Rules(
        ruleset=ruleset,
        board_reach=reach,
        start_rotation=int(rng.integers(4)),
        **flags,
        auto_skip_forced_actions=bool(rng.random() < 0.8),
    )


def test_ten_thousand_random_games_keep_every_invariant() -> None:
    rng = np.random.default_rng(2026)
    games = 0
    while games < 10_000:
        rules = random_rules(rng)
        players = rng.integers(2, 6, size=64)
        state = engine.new_games(players, rules, seeds=rng.integers(2**62, size=64).tolist())
        previous = state.score.copy()
        step = 0
        while (state.phase != OVER).any():
            mask = engine.legal_action_mask(state)
            for i in range(state.batch_size):
                check_mask(state, i, mask[i])
            engine.step(state, sample_uniform(mask, rng))
            assert (state.score >= previous).all(), "a score decreased"
            previous = state.score.copy()
            step += 1
            for i in range(state.batch_size):
                check_pieces(state, i)
                check_tiles(state, i)
            if step % 25 == 0:  # the BFS oracle on a sample of steps and games
                check_areas(state, int(rng.integers(state.batch_size)))
        for i in range(state.batch_size):
            check_areas(state, i)
        games += state.batch_size


def _kill_loop(cmd: list[str], done: callable, seconds: float, rng: np.random.Generator) -> int:
    """Run ``cmd`` again and again, killing it with SIGKILL after a random time, until ``done()``;
    returns how many times it was killed. Kills are timed in fractions of ``seconds``, what one
    uninterrupted run takes (machines differ): the first three at 30%, which leaves each of them more
    than that to do, so at least three kills land."""
    kills, deadline = 0, time.monotonic() + 1800
    while not done():
        assert time.monotonic() < deadline, "the killed run never finished"
        proc = subprocess.Popen(cmd, cwd=ROOT, env=ONE_THREAD_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            proc.wait(timeout=seconds * (0.3 if kills < 3 else float(rng.uniform(0.3, 1.2))))
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
            continue
        assert proc.returncode == 0, proc.stderr.read().decode()
    return kills


def test_a_tournament_killed_again_and_again_ends_as_an_uninterrupted_one(tmp_path: Path) -> None:
    from hg_env.arena.tournament import GAMES_FILE, read_results
    from hg_env.cli import main

    args = ["--agents", "random", "greedy", "greedy:opponents=0.75", "--games", "40", "--seed", "5", "--no-plot"]
    cmd = [sys.executable, "-m", "hg_env.cli", "tournament", *args, "--out"]
    started = time.monotonic()
    uncut = subprocess.run(
        [*cmd, str(tmp_path / "whole")], cwd=ROOT, env=ONE_THREAD_ENV, capture_output=True, text=True
    )
    assert uncut.returncode == 0, uncut.stderr
    seconds = time.monotonic() - started  # as the killed runs go: a process started from the command line
    killed = tmp_path / "killed"
    total = len(read_results(tmp_path / "whole" / GAMES_FILE))
    kills = _kill_loop(
        [*cmd, str(killed)], lambda: len(read_results(killed / GAMES_FILE)) >= total, seconds, np.random.default_rng(1)
    )
    assert kills >= 3
    assert main(["tournament", *args, "--out", str(killed)]) == 0  # complete: rebuilds the tables only
    ids = [r["game"] for r in read_results(killed / GAMES_FILE)]
    assert len(ids) == len(set(ids)) == total
    for name in ("summary.md", "ratings.csv", "winrates.csv"):
        # the same tables, but for the summary's last one: the seconds each agent spent deciding
        mine, whole = (
            (folder / name).read_text().split("| agent | seconds deciding")[0]
            for folder in (killed, tmp_path / "whole")
        )
        assert mine == whole, name


def test_training_killed_again_and_again_ends_as_an_uninterrupted_run(tmp_path: Path) -> None:
    import torch

    from hg_env.train.train import checkpoint_paths

    config = (ROOT / "configs" / "tiny.toml").read_text().replace('name = "tiny"', 'name = "soak"')
    config = config.replace("total_timesteps = 512", "total_timesteps = 2048")
    for out in ("whole", "killed"):
        (tmp_path / out).mkdir()
        (tmp_path / out / "c.toml").write_text(config.replace("[run]", f'[run]\nout_dir = "{tmp_path / out}"'))
    base = [sys.executable, "-m", "hg_env.cli", "train", "--no-progress", "--config"]
    started = time.monotonic()
    whole = subprocess.run([*base, str(tmp_path / "whole" / "c.toml")], cwd=ROOT, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    seconds = time.monotonic() - started  # kills are timed in fractions of the whole run: machines differ
    run = tmp_path / "killed" / "soak"
    first = [*base, str(tmp_path / "killed" / "c.toml")]

    def finished() -> bool:
        return (run / "final_eval.json").exists()

    def command() -> list[str]:  # resume once a checkpoint exists
        return first + (["--resume"] if run.exists() and checkpoint_paths(run) else [])

    rng, kills, deadline = np.random.default_rng(3), 0, time.monotonic() + 3600
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    while not finished():
        assert time.monotonic() < deadline
        proc = subprocess.Popen(command(), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:  # the first two attempts are cut at 40% of a whole run: each has more than that left
            proc.wait(timeout=seconds * (0.4 if kills < 2 else float(rng.uniform(0.4, 1.2))))
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
            continue
        assert proc.returncode == 0, proc.stderr.read().decode()
    assert kills >= 2
    same = tmp_path / "whole" / "soak"
    assert (run / "eval.jsonl").read_text() == (same / "eval.jsonl").read_text()
    assert json.loads((run / "final_eval.json").read_text()) == json.loads((same / "final_eval.json").read_text())
    from hg_env.agents.model_file import load_model

    mine, theirs = (
        load_model(run / "final_model.zip").net.state_dict(),
        load_model(same / "final_model.zip").net.state_dict(),
    )
    assert all(torch.equal(mine[k], theirs[k]) for k in theirs)
