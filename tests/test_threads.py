"""Torch's threads in a user's script: the README's MaskablePPO example runs one torch thread, and
HGPolicy warns when it is built where torch's idle OpenMP threads would spin (README: Threads)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from hg_env import figures

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_example_builds_its_network_on_one_torch_thread() -> None:
    """The block up to its model, as a plain script where torch would start two spinning threads
    (OMP_NUM_THREADS=2, no OMP_WAIT_POLICY): one torch thread when the network is built, no warning."""
    block = figures.readme_block((ROOT / "README.md").read_text(encoding="utf-8"), figures.SB3_SECTION)
    setup = block[: block.index("model.learn(")]
    assert "MaskablePPO(HGPolicy" in setup
    env = {k: v for k, v in os.environ.items() if k not in figures.PLAIN_SCRIPT_UNSET} | {"OMP_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", setup + "\nprint(torch.get_num_threads())"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "1"


@pytest.fixture
def two_threads():
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(threads)


def _build_policy() -> list[warnings.WarningMessage]:
    from hg_env.single_agent import SingleAgentEnv
    from hg_env.train.policy import HGPolicy

    env = SingleAgentEnv(opponents=[lambda observation, mask: int(mask.nonzero()[0][0])])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        HGPolicy(env.observation_space, env.action_space, lambda _: 1e-3, channels=4, layers=1, hidden=8)
    return [w for w in caught if issubclass(w.category, RuntimeWarning)]


def test_hgpolicy_warns_when_torch_threads_would_spin(two_threads, monkeypatch) -> None:
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    (warning,) = _build_policy()
    message = str(warning.message)
    assert "torch runs 2 threads" in message and "torch.set_num_threads(1)" in message
    assert "OMP_WAIT_POLICY=PASSIVE" in message


def test_hgpolicy_is_quiet_with_passive_threads_or_one_thread(two_threads, monkeypatch) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")  # as hgenv sets it before torch loads
    assert _build_policy() == []
    monkeypatch.delenv("OMP_WAIT_POLICY")
    torch.set_num_threads(1)
    assert _build_policy() == []
