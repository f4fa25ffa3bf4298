"""`hgenv bench` prints its figures in the documented shapes (numbers only, no timed assertions)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hg_env
from hg_env import bench
from hg_env.cli import main


def test_bench_core_json_line(capsys) -> None:
    assert main(["bench", "core", "--json", "--seconds", "0.2"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"ruleset", "decisions_per_s", "bytes_per_game"}
    assert set(result["decisions_per_s"]) == {"1", "1024"}
    assert all(rate > 0 for rate in result["decisions_per_s"].values())
    assert 0 < result["bytes_per_game"] <= 64 * 1024  # issue target: at most 64 KiB of state per game


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
