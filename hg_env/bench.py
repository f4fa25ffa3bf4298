"""Benchmarks that print numbers (never timed assertions in tests).

``hgenv bench core``: random legal games on the batched core, decisions per
second at B = 1 and B = 1024 on one thread, and bytes of state per game.
"""

from __future__ import annotations

import json
import time

import numpy as np

from hg_env.core import engine
from hg_env.core.actions import sample_uniform
from hg_env.core.state import OVER


def core_decisions_per_second(batch: int, seconds: float, num_players: int = 2, seed: int = 0) -> float:
    """Play random legal games on B games at once for about ``seconds``; auto-reset finished games."""
    rng = np.random.default_rng(seed)
    state = engine.new_games(num_players, seeds=list(range(seed, seed + batch)), record_events=False)
    next_seed = seed + batch
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = sample_uniform(engine.legal_action_mask(state), rng)
        engine.step(state, actions)
        decisions += int((actions >= 0).sum())
        over = np.flatnonzero(state.phase == OVER)
        if len(over):
            engine.reset_games(state, over, seeds=list(range(next_seed, next_seed + len(over))))
            next_seed += len(over)
    return decisions / (time.perf_counter() - start)


def bench_core(seconds: float = 5.0, batches: tuple[int, ...] = (1, 1024)) -> dict:
    state = engine.new_games(2, seeds=[0], record_events=False)
    return {
        "decisions_per_s": {str(b): round(core_decisions_per_second(b, seconds), 1) for b in batches},
        "bytes_per_game": state.nbytes_per_game(),
    }


def print_core(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    print("hg_env core benchmark: random legal play, one process, one thread")
    for b, rate in result["decisions_per_s"].items():
        print(f"  B = {b:>5}: {rate:>12,.0f} decisions/s")
    print(f"  state memory: {result['bytes_per_game']:,} bytes per game ({result['bytes_per_game'] / 1024:.1f} KiB)")
