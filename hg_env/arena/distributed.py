"""Tournaments and evaluation games as Ray tasks: the cores of one machine, or a cluster's.

    hgenv tournament --agents random greedy --games 200 --out results/t --ray    # a local Ray instance
    hgenv tournament ... --ray auto                  # the running cluster this machine belongs to
    hgenv tournament ... --ray ray://head:10001      # Ray Client, from outside the cluster
    hgenv evaluate --model runs/quick/final_model.zip --ray

What runs where. The driver (the ``hgenv`` process) builds the schedule, reads
and writes ``games.jsonl``, the tables and the progress bar, exactly as the
single-process run (hg_env.arena.tournament). Every game is one Ray task running
``tournament.play_game`` (the same function, the same seeds) in a worker, which
keeps its built agents between games. Results come back in any order; the
driver buffers them and appends them to ``games.jsonl`` in schedule order, each
line fsynced, so the file of a Ray run is line for line that of a
single-process run (but for the timings), and so is every table.

Failures. A worker that dies (killed, out of memory, node lost) loses its game:
Ray plays that task again (up to ``MAX_RETRIES`` times), and it is written once.
A killed driver loses only the games not yet written (buffered or in flight);
the same command resumes as without Ray. An agent that raises loses its game,
as without Ray.

Evaluation (``hgenv evaluate --ray``) splits the deck orders into chunks of
``DECKS_PER_TASK`` decks, each chunk one task of ``evaluate.play_games`` (the
batched games of that chunk); the agent is sent to the workers with it, so the
model file need not be on every node. The chunks do not depend on the cluster:
the same command gives the same numbers on any number of CPUs.

On a cluster every node needs the same environment as the driver (this package,
its [train] extra, the same Python): ``pip install -e '.[train,ray]'`` on each,
``ray start --head`` on one and ``ray start --address=HEAD:6379`` on the others.

Benchmark (docs/scaling_out.md): ``python -m hg_env.arena.distributed --bench``
plays one tournament single-process and on local Ray instances of 1 and 2 CPUs
and prints games per second, wall and CPU seconds.

Ray is imported only here, and only when used: the core install and the
[train] extra do not need it (``pip install -e '.[ray]'``).

Addresses. ``ray.init`` has no connection timeout: given an address where no
cluster answers it waits for the cluster's GCS for minutes (measured: over 120 s
for 127.0.0.1 on a closed port). So ``check_address`` runs first: the form must
be ``auto``, ``HOST:PORT`` or ``ray://HOST:PORT`` (a host name or a valid IP
address, a port 1..65535), and something must accept a TCP connection there
within ``CONNECT_TIMEOUT_S``; otherwise one ValueError names the address.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import math
import os
import re
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from hg_env.agents.base import Agent
from hg_env.arena import evaluate, tournament
from hg_env.core.rules import Rules

MAX_RETRIES = 3  # times Ray plays a task again after its worker died
IN_FLIGHT_PER_CPU = 16  # tasks submitted or buffered per CPU of the cluster: bounds the driver's memory
DECKS_PER_TASK = 8  # deck orders per evaluation task (num_players games each)
CONNECT_TIMEOUT_S = 5.0  # a cluster's head answers a TCP connection at once; this allows a slow network
_HOST_NAME = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
)


def import_ray() -> Any:
    """The ``ray`` module, or a clear error naming the extra that installs it."""
    try:
        import ray
    except ModuleNotFoundError:
        raise ValueError("--ray needs Ray: pip install -e '.[ray]'") from None
    return ray


def connect(address: str | None = None) -> Any:
    """Join Ray (``address``: "auto", "ray://host:10001", "host:6379"; empty: a local instance).

    Does nothing if Ray is already initialized in this process (a caller may set it up itself,
    e.g. ``ray.init(num_cpus=2)`` in a test or notebook)."""
    ray = import_ray()
    if not ray.is_initialized():
        if address:
            check_address(address)
        ray.init(address=address or None, logging_level="WARNING", log_to_driver=True)
    return ray


def check_address(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """ValueError naming ``address`` unless it is "auto", or HOST:PORT / ray://HOST:PORT where
    something accepts a TCP connection within ``timeout`` seconds (module docstring: Addresses)."""
    if address == "auto":  # Ray reads the running cluster's address from this machine; it fails fast
        return
    form = "--ray ADDRESS must be auto, HOST:PORT or ray://HOST:PORT (e.g. 10.0.0.5:6379, ray://head:10001)"
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if host.startswith("[") and host.endswith("]"):  # [IPv6]:port
        host = host[1:-1]
    if not (port.isdigit() and 1 <= int(port) <= 65535):
        raise ValueError(f"{form}; got {address!r}: the port must be 1..65535")
    if re.fullmatch(r"[0-9.]+", host) or ":" in host:  # an IP address: each number in range
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"{form}; got {address!r}: {host!r} is not an IP address") from None
    elif not _HOST_NAME.match(host):
        raise ValueError(f"{form}; got {address!r}: {host!r} is not a host name")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as err:
        reason = f"no answer within {timeout:g} s" if isinstance(err, TimeoutError) else (err.strerror or str(err))
        raise ValueError(
            f"--ray {address}: no Ray cluster answers there ({reason.lower()}); "
            "start one with ray start --head, or give --ray alone for a local instance"
        ) from None


def _cluster_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# ---------------------------------------------------------------- tournaments


def tournament_results(
    todo: list[tournament.ScheduledGame] | list[list[tournament.ScheduledGame]], address: str | None = None
) -> Iterator[dict]:
    """The result of every game of ``todo`` (scheduled games, or groups of them played together:
    ``tournament.play_group``), played as Ray tasks, yielded in ``todo``'s order."""
    ray = connect(address)
    play = ray.remote(tournament._play_in_worker).options(max_retries=MAX_RETRIES, num_cpus=1)
    window = IN_FLIGHT_PER_CPU * _cluster_cpus(ray)
    pending: dict[Any, int] = {}  # task -> position in todo
    finished: dict[int, dict] = {}  # results that arrived before an earlier game's
    submitted = written = 0
    try:
        while written < len(todo):
            while submitted < len(todo) and len(pending) + len(finished) < window:
                pending[play.remote(todo[submitted])] = submitted
                submitted += 1
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                finished[pending.pop(ref)] = ray.get(ref)
            while written in finished:
                done = finished.pop(written)
                yield from done if isinstance(done, list) else [done]
                written += 1
    finally:
        for ref in pending:  # interrupted: nothing left running for a driver that stopped listening
            ray.cancel(ref)


# ---------------------------------------------------------------- evaluation


def evaluation_chunks(plays: list[tuple], address: str | None = None) -> Iterator[dict]:
    """``evaluate.play_chunk(*args)`` of each argument tuple as a Ray task, each result as it finishes."""
    ray = connect(address)
    play = ray.remote(evaluate.play_chunk).options(max_retries=MAX_RETRIES, num_cpus=1)
    shared: dict[int, Any] = {}  # one object per agent, sent once: the model file need not be on every node
    pending = {}
    for args in plays:
        refs = [shared.setdefault(id(a), ray.put(a)) for a in args[:2]]
        pending[play.remote(*refs, *args[2:])] = args
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                pending.pop(ref)
                yield ray.get(ref)
    finally:
        for ref in pending:  # interrupted: nothing left running for a driver that stopped listening
            ray.cancel(ref)


def evaluation_games(
    agent: Agent,
    opponent: Agent,
    games: int,
    seed: int = 0,
    num_players: int = 2,
    rules: Rules | None = None,
    address: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``evaluate.play_games`` with the decks split into tasks of ``DECKS_PER_TASK`` decks each.

    Returns the final scores [G, players] and the agent's seat [G], in deck order."""
    decks = math.ceil(games / num_players)
    rules = rules or Rules()
    plays = [
        (agent, opponent, games, seed, num_players, rules, slice(start, min(start + DECKS_PER_TASK, decks)))
        for start in range(0, decks, DECKS_PER_TASK)
    ]
    parts = sorted(evaluation_chunks(plays, address), key=lambda part: part["decks"][0])
    scores = np.concatenate([np.asarray(p["scores"], dtype=np.int64) for p in parts])
    return scores, np.concatenate([np.asarray(p["seats"], dtype=np.int64) for p in parts])


# ---------------------------------------------------------------- benchmark


def _descendants_cpu_seconds() -> float:
    """CPU seconds (user + system) of every process this one started, directly or not (Ray's)."""
    import psutil  # ships with Ray (ray/thirdparty_files)

    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue  # ended meanwhile
        total += times.user + times.system
    return total


def _timed_tournament(config: tournament.TournamentConfig, ray_cpus: int | None) -> dict[str, Any]:
    """One tournament in a fresh folder: wall and CPU seconds (driver plus Ray's processes)."""
    out = Path(tempfile.mkdtemp(prefix="hg_bench_"))
    ray = None
    try:
        init_s = 0.0
        if ray_cpus is not None:
            ray = import_ray()
            t0 = time.perf_counter()
            ray.init(num_cpus=ray_cpus, include_dashboard=False, logging_level="WARNING")
            init_s = time.perf_counter() - t0
        cpu0, children0, t0 = time.process_time(), _descendants_cpu_seconds() if ray else 0.0, time.perf_counter()
        tournament.run_tournament(
            config, out, progress=False, plot=False, ray_address="" if ray_cpus is not None else None
        )
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0 + (_descendants_cpu_seconds() - children0 if ray else 0.0)
        games = tournament.read_results(out / tournament.GAMES_FILE)
    finally:
        if ray is not None:
            ray.shutdown()
        shutil.rmtree(out, ignore_errors=True)
    return {
        "how": "single process" if ray_cpus is None else f"Ray, local, num_cpus={ray_cpus}",
        "games": len(games),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "games_per_s": round(len(games) / wall, 2),
        "ray_init_s": round(init_s, 2),
        "results": [(g["game"], g["scores"], g["ranks"]) for g in games],
    }


def bench(agents: list[str], games: int, seed: int = 0) -> list[dict[str, Any]]:
    """The same tournament single-process and on local Ray instances of 1 and 2 CPUs."""
    config = tournament.TournamentConfig(agents=tuple(agents), players=2, games=games, seed=seed)
    rows = []
    for ray_cpus in (None, 1, 2):
        load = os.getloadavg()[0]  # other work on the machine takes CPUs from the runs
        rows.append({**_timed_tournament(config, ray_cpus), "load_before": round(load, 2)})
    for row in rows[1:]:
        row["same_results_as_single_process"] = row["results"] == rows[0]["results"]
    return rows


def print_bench(rows: list[dict[str, Any]], as_json: bool = False) -> None:
    if as_json:
        print(json.dumps([{k: v for k, v in r.items() if k != "results"} for r in rows]))
        return
    one_cpu = rows[1]["games_per_s"]
    header = f"{'':<28} {'games':>5} {'wall s':>7} {'CPU s':>7} {'games/s':>8} {'vs 1 CPU':>8} {'Ray init s':>10}"
    print(header + f" {'load before':>11}")
    for r in rows:
        ratio = f"{r['games_per_s'] / one_cpu:.2f}x" if r["how"].startswith("Ray") else ""
        print(
            f"{r['how']:<28} {r['games']:>5} {r['wall_s']:>7.1f} {r['cpu_s']:>7.1f} {r['games_per_s']:>8.2f} "
            f"{ratio:>8} {r['ray_init_s']:>10.1f} {r['load_before']:>11.2f}"
        )
    same = all(r.get("same_results_as_single_process", True) for r in rows)
    print(f"games.jsonl results identical across the three runs: {'yes' if same else 'NO'}")
    print(
        f"(machine: {os.cpu_count()} CPUs; CPU s counts the driver and every Ray process it started; "
        "load before: the 1-minute load average as the run started, others' work included)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hg_env.arena.distributed", description=__doc__.splitlines()[0])
    parser.add_argument("--bench", action="store_true", help="tournament games/s: single process vs local Ray")
    parser.add_argument("--agents", nargs="+", default=["random", "greedy"])
    parser.add_argument("--games", type=int, default=80, help="games per table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one line of JSON")
    args = parser.parse_args(argv)
    if not args.bench:
        parser.print_help()
        return 2
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # as hgenv tournament: one thread per game
    print_bench(bench(args.agents, args.games, args.seed), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
