"""``hgenv bench train``: learner steps per second of PPO training, with and without the lookahead.

A short run of ``configs/throughput.toml`` (the default network and PPO settings against random
opponents: the learner's own cost, env + network + update), once as it is and once with
``policy.lookahead = true``, in a temporary folder. Reported per wall-clock second and per CPU
second of the process (a loaded machine slows the first, not the second), with the torch threads
and OpenMP's wait policy in use (OMP_WAIT_POLICY=PASSIVE: threads sleep rather than spin while
they wait, so two threads do not collapse when the machine is busy).

``hgenv bench train --compare REV`` measures git revision REV the same way, interleaved with this
tree in one run: each round trains every tree once, plain and with the lookahead, each time in a
fresh process (the trees take turns going first), with each tree's own ``configs/throughput.toml``
and code. The ratio is this tree's steps per second over REV's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


# One measurement of ``compare_train`` in one tree, in a fresh process: argv is the tree and a JSON
# object {"lookahead", "steps", "threads", "overrides"}; it prints {"wall_s", "cpu_s", "module"}. It
# imports the tree's hg_env, and its hg_env.agents / hg_env.train from the tree's agents/ and train/
# (explicitly: older revisions have no links hg_env/agents, hg_env/train, and an editable install
# would map them to the working tree), and
# trains the tree's configs/throughput.toml through config_from_dict and train(config, progress=False),
# which every revision since the speed work began (905ff51) has. The first optimizer's one-time import
# is paid outside the timing.
_TRAIN_WORKER = """
import importlib.util, json, os, sys, tempfile, time, tomllib
tree, job = sys.argv[1], json.loads(sys.argv[2])
sys.path.insert(0, tree)
import hg_env
for sub in ("agents", "train"):
    spec = importlib.util.spec_from_file_location(
        "hg_env." + sub, os.path.join(tree, sub, "__init__.py"), submodule_search_locations=[os.path.join(tree, sub)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    setattr(hg_env, sub, module)
import torch
from hg_env.train import train as train_module
from hg_env.train.config import config_from_dict
torch.optim.Adam([torch.zeros(1, requires_grad=True)])
with open(os.path.join(tree, "configs", "throughput.toml"), "rb") as file:
    raw = tomllib.load(file)
for section, values in job["overrides"].items():
    raw.setdefault(section, {}).update(values)
raw.setdefault("policy", {})["lookahead"] = job["lookahead"]
if job["threads"] is not None:
    raw["run"]["torch_threads"] = job["threads"]
with tempfile.TemporaryDirectory() as out:
    raw["run"].update(total_timesteps=job["steps"], checkpoint_every=10**9, out_dir=out)
    config = config_from_dict(raw)
    start, cpu = time.perf_counter(), time.process_time()
    train_module.train(config, progress=False)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"wall_s": wall, "cpu_s": cpu, "module": train_module.__file__}))
"""


def compare_train(
    revision: str,
    steps: int = 8192,
    rounds: int = 3,
    threads: int | None = None,
    overrides: dict | None = None,
) -> dict:
    """Learner steps per second of this tree and of git revision ``revision``, plain and with the
    lookahead, interleaved in one run (module docstring); ``overrides`` of both configs (tests)."""
    from hg_env.bench import REPO_ROOT, revision_tree

    totals = {(name, la): [0.0, 0.0] for name in ("new", "old") for la in (False, True)}
    ratios: dict[bool, list[float]] = {False: [], True: []}
    with revision_tree(revision) as old_tree:
        trees = {"new": REPO_ROOT, "old": old_tree}
        for round_ in range(rounds):
            order = ["new", "old"] if round_ % 2 == 0 else ["old", "new"]
            for lookahead in (False, True):
                job = {"lookahead": lookahead, "steps": steps, "threads": threads, "overrides": overrides or {}}
                walls = {}
                for name in order:
                    done = subprocess.run(
                        [sys.executable, "-c", _TRAIN_WORKER, str(trees[name]), json.dumps(job)],
                        cwd=trees[name],
                        capture_output=True,
                        text=True,
                    )
                    if done.returncode:
                        raise RuntimeError(f"training in {name} tree {trees[name]} failed:\n{done.stderr[-3000:]}")
                    answer = json.loads(done.stdout.strip().splitlines()[-1])
                    if not Path(answer["module"]).resolve().is_relative_to(Path(trees[name]).resolve()):
                        raise RuntimeError(f"the {name} tree ran {answer['module']}, not its own code")
                    totals[(name, lookahead)][0] += answer["wall_s"]
                    totals[(name, lookahead)][1] += answer["cpu_s"]
                    walls[name] = answer["wall_s"]
                ratios[lookahead].append(walls["old"] / walls["new"])
    out: dict = {"revision": revision, "steps": steps, "rounds": rounds, "torch_threads": threads, "modes": {}}
    for lookahead in (False, True):
        (new_wall, new_cpu), (old_wall, old_cpu) = totals[("new", lookahead)], totals[("old", lookahead)]
        total = steps * rounds
        out["modes"]["lookahead" if lookahead else "plain"] = {
            "new_steps_per_s": round(total / new_wall, 1),
            "old_steps_per_s": round(total / old_wall, 1),
            "ratio": round(old_wall / new_wall, 3),
            "new_steps_per_cpu_s": round(total / new_cpu, 1),
            "old_steps_per_cpu_s": round(total / old_cpu, 1),
            "cpu_ratio": round(old_cpu / new_cpu, 3),
            "round_ratios": [round(r, 3) for r in ratios[lookahead]],
        }
    return out


def print_compare_train(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    threads = result["torch_threads"] or "the configs'"
    rounds = f"{result['rounds']} round{'s' if result['rounds'] > 1 else ''}"
    print(
        f"PPO learner steps per second: this tree vs {result['revision']} (interleaved, {rounds} "
        f"of {result['steps']} steps, torch threads: {threads})"
    )
    for mode, row in result["modes"].items():
        print(
            f"  {mode:<9}  {row['new_steps_per_s']:>7,.0f} vs {row['old_steps_per_s']:>7,.0f} steps/s = "
            f"{row['ratio']:.2f}x"
            f"   {row['new_steps_per_cpu_s']:>7,.0f} vs {row['old_steps_per_cpu_s']:>7,.0f} steps/CPU-s = "
            f"{row['cpu_ratio']:.2f}x   (rounds: {', '.join(f'{r:.2f}x' for r in row['round_ratios'])})"
        )


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
