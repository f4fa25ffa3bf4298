"""Benchmarks that print numbers (never timed assertions in tests).

``hgenv bench core``: random legal games on the batched core, decisions per CPU-second
at B = 1, 64, 1024 and 4096 (with the sampler and the engine alone), and bytes of state per
game; ``--compare REV`` measures another revision interleaved. ``bench env``: AEC steps per
CPU-second next to PettingZoo's chess and connect four. ``bench calls``: numpy calls per
decision. ``bench fingerprint``: digests of seeded games (tests/test_fingerprint.py). ``bench train``
(hg_env.train.throughput): learner steps per second of PPO, plain and with the lookahead. ``bench agents
--agents A B ...``: CPU and wall seconds per decision of agents deciding the same positions, interleaved
(the first agent's games), and how often each chose the first one's move. ``bench values``: how well
the leaf values of ``puct`` and ``mcts`` (the one-turn lookahead's, the networks') predict who wins.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hg_env.core import engine
from hg_env.core.actions import sample_uniform
from hg_env.core.observation import observe
from hg_env.core.rules import Rules
from hg_env.core.ruleset import get_ruleset
from hg_env.core.state import OVER

if TYPE_CHECKING:
    from hg_env.game import Game

BATCHES = (1, 64, 1024, 4096)


def random_play(batch: int, cpu_seconds: float, ruleset: str = "hg2020", num_players: int = 2, seed: int = 0) -> dict:
    """Random legal games on B games at once for about ``cpu_seconds`` of CPU time, finished games
    restarted. Returns the decisions and finished games, the CPU seconds in all, and the CPU seconds
    inside the engine alone (``engine.step`` and the restarts: not the legal-move sampler).

    CPU time (``time.process_time``), not wall time: on a shared machine another process's load slows
    the wall clock, not the CPU seconds this one spends."""
    rng = np.random.default_rng(seed)
    rules = Rules(ruleset=ruleset)
    state = engine.new_games(num_players, rules, seeds=list(range(seed, seed + batch)), record_events=False)
    next_seed = seed + batch
    decisions = games = 0
    engine_cpu = 0.0
    start = time.process_time()
    while time.process_time() - start < cpu_seconds:
        actions = sample_legal(state, rng)
        t0 = time.process_time()
        engine.step(state, actions)
        over = np.flatnonzero(state.phase == OVER)
        if len(over):
            engine.reset_games(state, over, seeds=list(range(next_seed, next_seed + len(over))))
            next_seed += len(over)
        engine_cpu += time.process_time() - t0
        decisions += int((actions >= 0).sum())
        games += len(over)
    return {"decisions": decisions, "games": games, "cpu_s": time.process_time() - start, "engine_cpu_s": engine_cpu}


def sample_legal(state, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per game (-1 for finished games): ``engine.sample_legal``, the
    same draws as ``sample_uniform`` on the dense mask."""
    return engine.sample_legal(state, rng)


def bench_core(seconds: float = 2.0, batches: tuple[int, ...] = BATCHES, ruleset: str = "hg2020") -> dict:
    """Per batch size: decisions and games per CPU-second with the sampler, decisions per CPU-second of
    the engine alone, and the state's bytes per game."""
    state = engine.new_games(2, Rules(ruleset=ruleset), seeds=[0], record_events=False)
    rows = {}
    for b in batches:
        r = random_play(b, seconds, ruleset)
        rows[str(b)] = {
            "decisions_per_cpu_s": round(r["decisions"] / r["cpu_s"], 1),
            "engine_decisions_per_cpu_s": round(r["decisions"] / max(r["engine_cpu_s"], 1e-9), 1),
            "games_per_cpu_s": round(r["games"] / r["cpu_s"], 2),
        }
    return {"ruleset": ruleset, "batches": rows, "bytes_per_game": state.nbytes_per_game()}


def print_core(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    print(f"hg_env core benchmark ({result['ruleset']}): random legal play, one process, one thread, per CPU-second")
    print(f"  {'B':>5} {'decisions/s':>13} {'engine only':>13} {'games/s':>10}")
    for b, row in result["batches"].items():
        print(
            f"  {b:>5} {row['decisions_per_cpu_s']:>13,.0f} {row['engine_decisions_per_cpu_s']:>13,.0f} "
            f"{row['games_per_cpu_s']:>10,.1f}"
        )
    print(f"  state memory: {result['bytes_per_game']:,} bytes per game ({result['bytes_per_game'] / 1024:.1f} KiB)")


# A worker measuring random play in one tree of the repository (``compare``), for one round: argv
# names the tree and the round's seed; it reads lines "B s SECONDS" (play for that many CPU seconds)
# or "B n STEPS" (play exactly that many batched steps) and answers with the steps and decisions played
# and the CPU seconds spent, keeping its games between lines ("aec" for B: steps of the PettingZoo env).
# Every revision plays the same games from the same seeds (the fingerprints hold), so two workers given
# the same steps stay at the same point of the same games. It uses only the core API every revision has
# (new_games, legal_action_mask or legal_actions, sample_uniform, step, reset_games).
_WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from hg_env.core import engine
from hg_env.core.actions import sample_uniform
from hg_env.core.state import OVER
from hg_env import bench
sample = getattr(bench, "sample_legal", None) or (lambda s, rng: sample_uniform(engine.legal_action_mask(s), rng))
seed = int(sys.argv[2])
rngs, states, seeds = {}, {}, {}
env = None
for line in sys.stdin:
    batch, mode, amount = line.split()
    seconds, limit = (float(amount), None) if mode == "s" else (float("inf"), int(amount))
    rng = rngs.setdefault(batch, np.random.default_rng(seed))
    steps = decisions = 0
    if batch == "aec":  # AEC steps of the PettingZoo env, random legal actions
        import hg_env
        env = env or hg_env.env(num_players=2)
        if not getattr(env, "agents", None):
            env.reset(seed=int(rng.integers(2**31)))
        start = time.process_time()
        while steps != limit and time.process_time() - start < seconds:
            if not env.agents:
                env.reset(seed=int(rng.integers(2**31)))
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        print(json.dumps({"steps": steps, "decisions": steps, "cpu_s": time.process_time() - start}), flush=True)
        continue
    batch = int(batch)
    if batch not in states:
        first = seed * 10**6
        states[batch] = engine.new_games(2, None, seeds=list(range(first, first + batch)), record_events=False)
        seeds[batch] = first + batch
    state, start = states[batch], time.process_time()
    while steps != limit and time.process_time() - start < seconds:
        actions = sample(state, rng)
        engine.step(state, actions)
        decisions += int((actions >= 0).sum())
        steps += 1
        over = np.flatnonzero(state.phase == OVER)
        if len(over):
            engine.reset_games(state, over, seeds=list(range(seeds[batch], seeds[batch] + len(over))))
            seeds[batch] += len(over)
    print(json.dumps({"steps": steps, "decisions": decisions, "cpu_s": time.process_time() - start}), flush=True)
"""


REPO_ROOT = Path(__file__).resolve().parent.parent  # the working tree (an installed package has no other)


@contextmanager
def revision_tree(revision: str) -> Iterator[Path]:
    """A checkout of git revision ``revision`` of this repository in a scratch folder (a detached
    worktree), removed afterwards; ValueError if git cannot check it out."""
    import shutil
    import subprocess
    import tempfile

    tree = Path(tempfile.mkdtemp(prefix="hgenv-compare-")) / "tree"
    added = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", str(tree), revision],
        capture_output=True,
        text=True,
    )
    try:
        if added.returncode:
            raise ValueError(f"cannot check out revision {revision!r}: {added.stderr.strip()}")
        yield tree
    finally:
        if not added.returncode:
            subprocess.run(
                ["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True
            )
        shutil.rmtree(tree.parent, ignore_errors=True)  # the scratch folder the worktree sat in


def compare(
    revision: str, seconds: float = 2.0, batches: tuple[int | str, ...] = (1, 1024, "aec"), rounds: int = 6
) -> dict:
    """Random play of the working tree against another revision of the repository, interleaved in one
    run, so machine load falls on both alike. Each round starts a fresh worker process per tree (one
    process's memory layout can make it run some 10% faster or slower for its whole life, so rounds
    average that out) with the round's own seeded games. In each round and batch size (``"aec"``:
    steps of the PettingZoo env instead) one tree plays ``seconds / rounds`` CPU seconds and the other
    then plays exactly as many steps: both play the same games, move for move, and a game's later,
    dearer moves count alike for both (the trees take turns leading). Returns decisions (steps) per
    CPU-second of both and their ratio (new / old)."""
    import subprocess
    import sys

    totals = {(name, b): [0, 0.0] for name in ("new", "old") for b in batches}
    workers: dict[str, subprocess.Popen] = {}
    with revision_tree(revision) as old_tree:
        trees = {"new": REPO_ROOT, "old": old_tree}
        try:
            for round_ in range(rounds):
                workers = {
                    name: subprocess.Popen(
                        [sys.executable, "-c", _WORKER, str(tree), str(round_)],
                        cwd=tree,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                    for name, tree in trees.items()
                }
                order = ["new", "old"] if round_ % 2 == 0 else ["old", "new"]
                for b in batches:
                    request = f"{b} s {seconds / rounds}"
                    for name in order:
                        proc = workers[name]
                        proc.stdin.write(request + "\n")
                        proc.stdin.flush()
                        answer = json.loads(proc.stdout.readline())
                        totals[(name, b)][0] += answer["decisions"]
                        totals[(name, b)][1] += answer["cpu_s"]
                        request = f"{b} n {answer['steps']}"  # the follower plays the leader's steps
                _stop(workers)
        finally:
            _stop(workers)
    out = {"revision": revision, "batches": {}}
    for b in batches:
        new = totals[("new", b)][0] / totals[("new", b)][1]
        old = totals[("old", b)][0] / totals[("old", b)][1]
        out["batches"][str(b)] = {
            "new_per_cpu_s": round(new, 1),
            "old_per_cpu_s": round(old, 1),
            "ratio": round(new / old, 3),
        }
    return out


def _stop(workers: dict) -> None:
    for proc in workers.values():
        proc.kill()
        proc.wait()


def print_compare(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    print(f"random play per CPU-second: this tree vs {result['revision']} (interleaved, one run)")
    for b, row in result["batches"].items():
        what = "AEC env steps" if b == "aec" else f"B = {b:>4} decisions"
        print(f"  {what:<18}: {row['new_per_cpu_s']:>12,.0f} vs {row['old_per_cpu_s']:>12,.0f}  = {row['ratio']:.2f}x")


def numpy_calls_per_decision(decisions: int = 2000, ruleset: str = "hg2020", seed: int = 0) -> dict:
    """C-level calls into numpy per decision of one game (B = 1) in ``engine.step`` and in the sampler:
    numpy's functions and the methods of its arrays and ufuncs (``sys.setprofile`` "c_call" events).
    Applying a ufunc or an operator (``a + b``) is not such an event and is not counted."""
    import sys

    rng = np.random.default_rng(seed)
    state = engine.new_games(2, Rules(ruleset=ruleset), seeds=[seed], record_events=False)
    counts = {"step": 0, "sampler": 0}
    where = ["sampler"]

    def profile(frame, event, arg) -> None:
        if event == "c_call":
            owner = getattr(arg, "__self__", None)
            module = getattr(arg, "__module__", None) or type(owner).__module__
            if module and module.startswith("numpy"):
                counts[where[0]] += 1

    done = 0
    sys.setprofile(profile)
    try:
        while done < decisions:
            where[0] = "sampler"
            actions = sample_legal(state, rng)
            where[0] = "step"
            engine.step(state, actions)
            done += 1
            if state.phase[0] == OVER:
                sys.setprofile(None)
                engine.reset_games(state, np.zeros(1, dtype=np.intp), seeds=[seed + done])
                sys.setprofile(profile)
    finally:
        sys.setprofile(None)
    return {"ruleset": ruleset, "decisions": done, **{k: round(v / done, 1) for k, v in counts.items()}}


def aec_steps_per_second(makers: dict, seconds: float, rounds: int = 10, seed: int = 0) -> dict[str, float]:
    """AEC steps per CPU-second of each env with uniformly random legal actions (the standard
    ``agent_iter`` loop): all its steps over all its CPU time (another process's load slows the
    wall clock, not the CPU seconds; every env here runs in this one thread).

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
            rng, start = rngs[name], time.process_time()
            while time.process_time() - start < seconds / rounds:
                if not env.agents:  # the game is over and every agent has left: a new game
                    env.reset(seed=int(rng.integers(2**31)))
                obs, _, terminated, truncated, _ = env.last()
                done = terminated or truncated
                env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps[name] += 1
            spent[name] += time.process_time() - start
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
    print("AEC steps per CPU-second, random legal actions, one process")
    for name, rate in rates.items():
        ratio = "" if name == env else f"   ({env} is {ours / rate:.2f}x)"
        print(f"  {name:<22} {rate:>10,.0f}{ratio}")


def bench_agents(
    specs: list[str],
    games: int = 2,
    seed: int = 0,
    ruleset: str = "hg2020",
    num_players: int = 2,
    at_once: int = 1,
) -> dict:
    """CPU (``time.process_time``) and wall seconds per decision of agents ``specs`` on the same
    positions: the first agent plays every seat of ``games`` games (deck seeds ``seed``, ``seed + 1``,
    ...; every agent reset with the game's seed), and at each of its decisions with more than one
    legal move every agent decides too, in an order that rotates from one decision to the next so
    that none always goes first. Also counts the decisions where each chose the first agent's move.
    Agents that keep state between decisions see the first agent's moves, not their own.

    ``at_once=N > 1`` plays the games N at a time on one batched state: every agent decides all of
    the N games' positions with a choice together (``act_batch``, as ``hgenv evaluate`` asks it), so
    an agent that searches many games at once (``puct``) shows what a move costs it there."""
    from hg_env.agents.base import make_agent
    from hg_env.arena.tournament import seat_observation
    from hg_env.game import Game

    if not specs:
        raise ValueError("bench agents needs at least one agent spec")
    if not 1 <= games <= 10_000:
        raise ValueError(f"games must be 1..10000, got {games}")
    if not 1 <= at_once <= 10_000:
        raise ValueError(f"at_once must be 1..10000, got {at_once}")
    agents = [make_agent(spec) for spec in specs]
    cpu, wall = np.zeros(len(specs)), np.zeros(len(specs))
    same = np.zeros(len(specs), dtype=np.int64)
    decisions = 0
    # Games N at a time on one batched state (at_once > 1), or one at a time through Game.
    batches, singles = (range(0, games, at_once), ()) if at_once > 1 else ((), range(games))
    for first in batches:
        seeds = list(range(seed + first, seed + min(first + at_once, games)))
        state = engine.new_games(num_players, Rules(ruleset=ruleset), seeds=seeds, record_events=False)
        for agent in agents:
            agent.reset(seed + first)
        while (state.phase != OVER).any():
            rows = np.flatnonzero(state.phase != OVER)
            masks = engine.legal_action_mask(state, rows)
            choice = masks.sum(1) > 1
            actions = np.full(state.batch_size, -1, dtype=np.int64)
            actions[rows[~choice]] = masks[~choice].argmax(1)
            if choice.any():
                deciding, masks = rows[choice], masks[choice]
                chosen = np.zeros((len(specs), len(deciding)), dtype=np.int64)
                for i in np.roll(np.arange(len(specs)), -decisions):
                    agent = agents[i]
                    w0, c0 = time.perf_counter(), time.process_time()
                    obs = observe(state, deciding, state.current[deciding]) if agent.uses_observation else None
                    chosen[i] = agent.act_batch(obs, masks.copy(), state.take(deciding))
                    cpu[i] += time.process_time() - c0
                    wall[i] += time.perf_counter() - w0
                same += (chosen == chosen[0]).sum(1)
                decisions += len(deciding)
                actions[deciding] = chosen[0]
            engine.step(state, actions)
    for g in singles:
        game = Game(num_players=num_players, seed=seed + g, ruleset=ruleset)
        for agent in agents:
            agent.reset(seed + g)
        while not game.is_over:
            mask = game.action_mask()
            if np.count_nonzero(mask) == 1:
                game.step(int(np.flatnonzero(mask)[0]))
                continue
            chosen = np.zeros(len(specs), dtype=np.int64)
            for i in np.roll(np.arange(len(specs)), -decisions):
                agent = agents[i]
                w0, c0 = time.perf_counter(), time.process_time()
                obs = seat_observation(game, game.current_player) if agent.uses_observation else None
                chosen[i] = agent.act(obs, mask.copy(), game.copy())
                cpu[i] += time.process_time() - c0
                wall[i] += time.perf_counter() - w0
            same += chosen == chosen[0]
            decisions += 1
            game.step(int(chosen[0]))
    per = max(decisions, 1)
    return {
        "ruleset": ruleset,
        "games": games,
        "at_once": at_once,
        "decisions": decisions,
        "agents": [
            {
                "spec": spec,
                "cpu_s_per_decision": round(float(cpu[i]) / per, 5),
                "wall_s_per_decision": round(float(wall[i]) / per, 5),
                "cpu_ratio": round(float(cpu[i] / max(cpu[0], 1e-12)), 3),
                "same_move": int(same[i]),
            }
            for i, spec in enumerate(specs)
        ],
    }


def print_agents(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    n = result["decisions"]
    games = f"{result['games']} game" + ("s" if result["games"] != 1 else "")
    together = f", {result['at_once']} at once" if result.get("at_once", 1) > 1 else ""
    print(f"{n} decisions with a choice, {games} of {result['ruleset']}{together} (the first agent's moves)")
    print(f"  {'agent':<48} {'CPU s/decision':>14} {'wall s':>8} {'CPU / first':>11} {'same move':>10}")
    for row in result["agents"]:
        print(
            f"  {row['spec']:<48} {row['cpu_s_per_decision']:>14.4f} {row['wall_s_per_decision']:>8.4f} "
            f"{row['cpu_ratio']:>11.2f} {row['same_move']:>6}/{n}"
        )


def bench_values(
    models: list[str] | None = None,
    look_scales: tuple[float, ...] = (10.0, 40.0),
    games: int = 20,
    seed: int = 0,
    ruleset: str = "hg2020",
    agent: str = "greedy",
    every: int = 4,
) -> dict:
    """How well ``puct``'s and ``mcts``' leaf values predict who wins. ``agent`` plays ``games``
    two-player games against itself (deck seeds ``seed``, ``seed + 1``, ...); at every ``every``-th
    decision with a choice the position is re-dealt (its hidden tiles) and valued for its mover by the
    one-turn lookahead at each spread of ``look_scales`` (``puct:look_scale``; ``mcts``' is 40), by
    each model's network (``puct``'s ``NetworkEvaluator``: a searchnet's win value, a PPO model's value
    turned into one) and by each network mixed half and half with each lookahead (``puct``'s leaf value
    at ``mix=0.5``). For each: the cross-entropy and Brier score against the mover's result (1 a win,
    1/2 a tie, 0 a loss) over all the positions; a game's positions share its result, so the games,
    not the positions, are the sample. ``models``: model files (default: the ruleset's ``puct``
    network and its PPO model, when they differ)."""
    from hg_env.agents.base import make_agent
    from hg_env.agents.model_file import load_model
    from hg_env.agents.puct import NetworkEvaluator, default_model, ppo_model
    from hg_env.game import Game

    if not 1 <= games <= 10_000 or every < 1:
        raise ValueError(f"games must be 1..10000 and every >= 1, got games={games}, every={every}")
    if not look_scales or min(look_scales) <= 0:
        raise ValueError(f"look scales must be > 0, got {list(look_scales)}")
    if models is None:
        models = list(dict.fromkeys(str(p) for p in (default_model(ruleset), ppo_model(ruleset))))
    evaluators = {}
    for path in models:
        loaded = load_model(path, ruleset=ruleset)
        evaluators[Path(path).name] = NetworkEvaluator(loaded.net, loaded.metadata, mix=0.0, scale=40.0)
    rng = np.random.default_rng(seed)
    columns: dict[str, list[float]] = {}
    results: list[float] = []
    positions = 0
    for g in range(games):
        game = Game(num_players=2, seed=seed + g, ruleset=ruleset)
        player = make_agent(agent, seed=seed + g)
        movers: list[int] = []
        decision = 0
        while not game.is_over:
            mask = game.action_mask()
            if np.count_nonzero(mask) > 1:
                if decision % every == 0:
                    movers.append(_value_position(game, evaluators, look_scales, rng, columns))
                decision += 1
            game.step(int(player.act(None, mask.copy(), game.copy())))
        score = game.state.score[0]
        results += [float(np.sign(score[m] - score[1 - m]) + 1) / 2 for m in movers]
        positions += len(movers)
    outcome = np.array(results)
    rows = []
    for name, values in columns.items():
        p = np.clip(np.array(values), 1e-4, 1 - 1e-4)
        cross_entropy = -(outcome * np.log(p) + (1 - outcome) * np.log(1 - p)).mean()
        rows.append(
            {
                "value": name,
                "cross_entropy": round(float(cross_entropy), 4),
                "brier": round(float(((p - outcome) ** 2).mean()), 4),
            }
        )
    return {"ruleset": ruleset, "agent": agent, "games": games, "positions": positions, "values": rows}


def _value_position(
    game: Game, evaluators: dict, look_scales: tuple[float, ...], rng: np.random.Generator, columns: dict
) -> int:
    """Append the values of ``game``'s position (re-dealt) for its mover to ``columns``; the mover."""
    from hg_env.agents.search_net import network_inputs
    from hg_env.core import search

    state = search.plain_copy(game.state, np.array([0]))
    search.redeal(state, rng)  # never the real deck order, as in the searches
    row, mover = np.array([0]), int(state.current[0])
    look, inputs = {}, None
    for scale in look_scales:  # the first call also builds what every network reads (a PPO one ignores score_now)
        at_scale = network_inputs(state, row, board=inputs is None, look_scale=scale)
        inputs = inputs or at_scale
        look[scale] = float(at_scale["heuristic"][0, mover])
        columns.setdefault(f"lookahead, spread {scale:g}", []).append(look[scale])
    for name, evaluator in evaluators.items():
        net = float(evaluator.from_inputs(inputs, state, row)[0][2][mover])  # mix 0: the network's alone
        columns.setdefault(f"{name}", []).append(net)
        for scale in look_scales:
            columns.setdefault(f"{name} mixed with the lookahead at {scale:g}", []).append((net + look[scale]) / 2)
    return mover


def print_values(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    print(
        f"{result['positions']} positions of {result['games']} {result['agent']} games ({result['ruleset']}): "
        "how well each value predicts the mover's result"
    )
    print(f"  {'value':<58} {'cross-entropy':>13} {'Brier':>7}")
    for row in result["values"]:
        print(f"  {row['value']:<58} {row['cross_entropy']:>13.4f} {row['brier']:>7.4f}")


def fingerprint(num_games: int = 12, seed: int = 0, one_state_per_game: bool = False, **rule_flags) -> dict[str, str]:
    """SHA-256 digests of everything a fixed set of seeded random games shows: the observations of
    the acting seat and the legal masks at every decision, the actions, scores and event logs, and
    the lookahead features of every tenth decision. Refactors that must not change the games
    (rulesets, speed work) leave every digest unchanged; ``hgenv bench fingerprint`` prints them.

    ``one_state_per_game`` plays each game in a state of its own (the single-game paths the AEC env
    and ``Game`` take) and must give the same digests, the lookahead's aside (it draws from one
    generator across the batch, so it is left out)."""
    import hashlib

    from hg_env.core import search
    from hg_env.core.observation import observe

    rules = Rules.from_kwargs(**rule_flags)
    players = [2 + i % 4 for i in range(num_games)]  # 2-5 players
    seeds = [seed + i for i in range(num_games)]
    if one_state_per_game:
        states = [engine.new_games(p, rules, seeds=[s]) for p, s in zip(players, seeds)]
    else:
        states = [engine.new_games(players, rules, seeds=seeds)]
    rng = np.random.default_rng(seed)
    lookahead_rng = np.random.default_rng([seed, 1])
    names = ["observations", "masks", "actions", "scores", "events"] + ([] if one_state_per_game else ["lookahead"])
    digests = {name: hashlib.sha256() for name in names}
    step = 0
    while any((state.phase != OVER).any() for state in states):
        for state in states:  # the batch's order: game by game
            live = np.flatnonzero(state.phase != OVER)
            if len(live):
                digests["observations"].update(observe(state, live, state.current[live]).tobytes())
        mask = np.concatenate([engine.legal_action_mask(state) for state in states])
        digests["masks"].update(np.packbits(mask).tobytes())
        if step % 10 == 0 and not one_state_per_game:
            gains, estimates = search.lookahead_features(states[0], lookahead_rng)
            digests["lookahead"].update(gains.tobytes() + estimates.tobytes())
        actions = sample_uniform(mask, rng)
        digests["actions"].update(actions.astype(np.int64).tobytes())
        first = 0
        for state in states:
            engine.step(state, actions[first : first + state.batch_size])
            first += state.batch_size
        digests["scores"].update(np.concatenate([state.score for state in states]).astype(np.int64).tobytes())
        step += 1
    events = [game for state in states for game in state.events]
    digests["events"].update(json.dumps(events, sort_keys=True).encode())
    return {name: d.hexdigest()[:16] for name, d in digests.items()}
