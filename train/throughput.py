"""``hgenv bench train``: learner steps per second of PPO training, with and without the lookahead.

A short run of ``configs/throughput.toml`` (the default network and PPO settings against random
opponents: the learner's own cost, env + network + update), once as it is and once with
``policy.lookahead = true``, in a temporary folder. Reported per wall-clock second and per CPU
second of the process (a loaded machine slows the first, not the second), with the torch threads
and OpenMP's wait policy in use (OMP_WAIT_POLICY=PASSIVE: threads sleep rather than spin while
they wait, so two threads do not collapse when the machine is busy).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import torch
from hg_env.train.config import load_config
from hg_env.train.train import train


def learner_throughput(config_path: str | Path, steps: int, lookahead: bool, threads: int | None = None) -> dict:
    """Train ``steps`` learner steps of the config in a temporary folder; the steps per second."""
    overrides = {"run": {"total_timesteps": steps, "checkpoint_every": 10**9}, "policy": {"lookahead": lookahead}}
    if threads is not None:
        overrides["run"]["torch_threads"] = threads
    # The process's first optimizer imports torch._dynamo (~2 s): paid here, outside the timing.
    torch.optim.Adam([torch.zeros(1, requires_grad=True)])
    with tempfile.TemporaryDirectory() as out:
        overrides["run"]["out_dir"] = out
        config = load_config(config_path, overrides)
        start, cpu = time.perf_counter(), time.process_time()
        train(config, progress=False)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "lookahead": lookahead,
        "steps": steps,
        "steps_per_s": round(steps / wall, 1),
        "steps_per_cpu_s": round(steps / cpu, 1),
        "torch_threads": config.run.torch_threads,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset)"),
    }


def bench_train(
    config_path: str | Path = "configs/throughput.toml", steps: int = 8192, threads: int | None = None
) -> list[dict]:
    """The throughput config as it is and with ``policy.lookahead = true`` (on ``threads`` torch threads)."""
    return [learner_throughput(config_path, steps, lookahead, threads) for lookahead in (False, True)]


def print_train(rows: list[dict], as_json: bool) -> None:
    import json

    if as_json:
        print(json.dumps(rows))
        return
    print(f"PPO learner steps per second (torch {torch.__version__}, OMP_WAIT_POLICY={rows[0]['omp_wait_policy']})")
    for row in rows:
        kind = "lookahead" if row["lookahead"] else "plain    "
        print(
            f"  {kind}  {row['steps_per_s']:>8,.0f} steps/s  {row['steps_per_cpu_s']:>8,.0f} steps/CPU-s  "
            f"({row['steps']} steps, {row['torch_threads']} torch thread{'s' if row['torch_threads'] > 1 else ''})"
        )
