"""Benchmarks that print numbers (never timed assertions in tests).

``hgenv bench core``: random legal games on the batched core, decisions per
second at B = 1 and B = 1024 on one thread, and bytes of state per game.
"""

from __future__ import annotations

import json
import time
import zlib

import numpy as np

from hg_env.core import engine
from hg_env.core.actions import sample_uniform
from hg_env.core.rules import Rules
from hg_env.core.ruleset import get_ruleset
from hg_env.core.state import OVER


def core_decisions_per_second(
    batch: int, seconds: float, num_players: int = 2, seed: int = 0, ruleset: str = "hg2020"
) -> float:
    """Play random legal games on B games at once for about ``seconds``; auto-reset finished games."""
    rng = np.random.default_rng(seed)
    rules = Rules(ruleset=ruleset)
    state = engine.new_games(num_players, rules, seeds=list(range(seed, seed + batch)), record_events=False)
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


def bench_core(seconds: float = 5.0, batches: tuple[int, ...] = (1, 1024), ruleset: str = "hg2020") -> dict:
    state = engine.new_games(2, Rules(ruleset=ruleset), seeds=[0], record_events=False)
    return {
        "ruleset": ruleset,
        "decisions_per_s": {str(b): round(core_decisions_per_second(b, seconds, ruleset=ruleset), 1) for b in batches},
        "bytes_per_game": state.nbytes_per_game(),
    }


def print_core(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    print(f"hg_env core benchmark ({result['ruleset']}): random legal play, one process, one thread")
    for b, rate in result["decisions_per_s"].items():
        print(f"  B = {b:>5}: {rate:>12,.0f} decisions/s")
    print(f"  state memory: {result['bytes_per_game']:,} bytes per game ({result['bytes_per_game'] / 1024:.1f} KiB)")


def aec_steps_per_second(makers: dict, seconds: float, rounds: int = 10, seed: int = 0) -> dict[str, float]:
    """AEC steps per second of each env with uniformly random legal actions (the standard
    ``agent_iter`` loop): all its steps over all its time.

    The envs take turns in ``rounds`` slices of ``seconds / rounds`` each, so that a
    change in machine load falls on all of them alike. Each env has its own generator,
    so the games it plays do not depend on how many draws the others made. (The mean,
    not the best slice: a step's cost depends on the position, by 10-20% for chess, so
    the best slice would measure the cheapest positions rather than the env.)"""
    envs = {name: make() for name, make in makers.items()}
    rngs = {name: np.random.default_rng([seed, zlib.crc32(name.encode())]) for name in envs}
    steps, spent = dict.fromkeys(envs, 0), dict.fromkeys(envs, 0.0)
    for env in envs.values():
        env.reset(seed=seed)
    for _ in range(rounds):
        for name, env in envs.items():
            rng, start = rngs[name], time.perf_counter()
            while time.perf_counter() - start < seconds / rounds:
                if not env.agents:  # the game is over and every agent has left: a new game
                    env.reset(seed=int(rng.integers(2**31)))
                obs, _, terminated, truncated, _ = env.last()
                done = terminated or truncated
                env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps[name] += 1
            spent[name] += time.perf_counter() - start
    return {name: steps[name] / spent[name] for name in envs}


def bench_env(seconds: float = 5.0, ruleset: str = "hg2020") -> dict:
    """Our env (``hunters_gatherers_v0`` by default) against PettingZoo's connect_four_v3 and chess_v6
    (pettingzoo[classic])."""
    import importlib.util

    import hg_env

    if importlib.util.find_spec("chess") is None:
        raise SystemExit("`hgenv bench env` compares with pettingzoo[classic]: pip install 'pettingzoo[classic]'")
    ours = get_ruleset(ruleset).env_name
    makers = {
        ours: lambda: hg_env.env(num_players=2, ruleset=ruleset),
        "connect_four_v3": lambda: _pettingzoo_env("classic/connect_four_v3"),
        "chess_v6": lambda: _pettingzoo_env("classic/chess_v6"),
    }
    rates = aec_steps_per_second(makers, seconds)
    return {"env": ours, "steps_per_s": {name: round(rate, 1) for name, rate in rates.items()}}


def _pettingzoo_env(env_id: str):
    """A PettingZoo env by its registry id: ``pettingzoo.make`` (PettingZoo >= 1.27; importing
    ``pettingzoo.classic.chess_v6`` there warns that the old creation API is deprecated), else
    the versioned module of older releases."""
    import importlib

    import pettingzoo

    if hasattr(pettingzoo, "make"):
        return pettingzoo.make("aec", env_id)
    family, name = env_id.split("/")
    return importlib.import_module(f"pettingzoo.{family}.{name}").env()


def print_env(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    rates, env = result["steps_per_s"], result["env"]
    ours = rates[env]
    print("AEC steps per second, random legal actions, one process")
    for name, rate in rates.items():
        ratio = "" if name == env else f"   ({env} is {ours / rate:.2f}x)"
        print(f"  {name:<22} {rate:>10,.0f}{ratio}")


def fingerprint(num_games: int = 12, seed: int = 0, **rule_flags) -> dict[str, str]:
    """SHA-256 digests of everything a fixed set of seeded random games shows: the observations of
    the acting seat and the legal masks at every decision, the actions, scores and event logs, and
    the lookahead features of every tenth decision. Refactors that must not change the games
    (rulesets, speed work) leave every digest unchanged; ``hgenv bench fingerprint`` prints them."""
    import hashlib

    from hg_env.core import search
    from hg_env.core.observation import observe

    rules = Rules.from_kwargs(**rule_flags)
    players = [2 + i % 4 for i in range(num_games)]  # 2-5 players
    state = engine.new_games(players, rules, seeds=[seed + i for i in range(num_games)])
    rng = np.random.default_rng(seed)
    lookahead_rng = np.random.default_rng([seed, 1])
    digests = {name: hashlib.sha256() for name in ("observations", "masks", "actions", "scores", "events", "lookahead")}
    step = 0
    while (state.phase != OVER).any():
        live = np.flatnonzero(state.phase != OVER)
        digests["observations"].update(observe(state, live, state.current[live]).tobytes())
        mask = engine.legal_action_mask(state)
        digests["masks"].update(np.packbits(mask).tobytes())
        if step % 10 == 0:
            gains, estimates = search.lookahead_features(state, lookahead_rng)
            digests["lookahead"].update(gains.tobytes() + estimates.tobytes())
        actions = sample_uniform(mask, rng)
        digests["actions"].update(actions.astype(np.int64).tobytes())
        engine.step(state, actions)
        digests["scores"].update(state.score.astype(np.int64).tobytes())
        step += 1
    digests["events"].update(json.dumps(state.events, sort_keys=True).encode())
    return {name: d.hexdigest()[:16] for name, d in digests.items()}
