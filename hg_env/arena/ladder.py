"""The ladder: one command places an agent on a fixed rating scale, per ruleset.

    hgenv ladder --agent policy:path=runs/quick/final_model.zip [--ruleset hg2020] [--budget 15]
    hgenv ladder build --ruleset hg2020 [--workers 16 | --ray [ADDRESS]] [--games-per-pair 200] [--only-stale]
    hgenv ladder table --ruleset hg2020
    hgenv ladder pairs --ruleset hg2020 [--rung puct] [--json]

Rungs
    Every ruleset has the same reference agents (``RUNG_NAMES``): ``random``, ``greedy``,
    ``greedy:opponents=0.75``, ``ppo`` (the shipped model ``ppo_<ruleset>.zip`` in ``hg_env/arena/models/``,
    trained by ``configs/quick.toml``, ``configs/hg2002_quick.toml`` or ``configs/carcassonne_quick.toml``),
    a cheap ``mcts`` (``CHEAP_MCTS``) and ``mcts`` at its defaults. A ruleset whose search agent has been
    measured adds ``puct`` after ``mcts`` (``SEARCH_RUNGS``: hg2020), searching with its shipped network
    (``hg_env.agents.puct.default_model``: ``puct_<ruleset>.zip``, else ``ppo_<ruleset>.zip``); its place
    comes from its games like every rung's.

Scale
    Bradley–Terry on the Elo scale (hg_env.arena.bradley_terry), fitted over every current reference
    game plus the placed agent's games, two players, ties counting half. ``random`` = 0 and ``greedy`` =
    1000 are fixed (anchors, no interval); every other rating has a weak prior (mean 500, sd 1000 Elo),
    so a rung or agent that won every game still gets a finite rating, and a 95% Laplace interval.

Reference games (``hgenv ladder build``)
    The rungs in the order above play their neighbours (``games_per_pair`` games) and the rung two
    places up (half as many), on paired decks with seats swapped; when the plan's estimated CPU exceeds
    ``cpu_hours``, the pairings whose games cost over ``EXPENSIVE_S`` are cut (``fit_budget``: skips first).
    Every game is one compact line of
    ``reference/<ruleset>.jsonl`` beside this module (rung names by seat, deck and agent seeds, scores, ranks,
    CPU seconds and decisions per seat, the model files' SHA-256, a digest of each agent's options, the
    engine fingerprint, the code version; no game record), appended as it finishes: a build resumes where
    it stopped, and never plays a game it already has. ``reference/<ruleset>.options.json`` holds the
    options each digest stands for.

Staleness
    A game counts while its rungs' pins hold: the engine fingerprint of the ruleset (``hgenv bench
    fingerprint``), each model file's SHA-256, and each agent's options (``resolved_options``: those its
    spec sets and every other at its default, ``path`` left out), which must agree with today's on every
    option both have. An option added since is assumed to keep the old play at its default, and the next
    build or placement writes that assumption down (``Pins.remember``), so that a later change of that
    default makes the rung stale too; a changed value of an option the games had always does. A line
    without options (written before they were pinned) is taken to have today's. A rung with a pairing
    whose games all have pins that no longer hold is *stale*: ``hgenv ladder`` names it and leaves all
    its games out (never mixing old and new), and ``hgenv ladder build --only-stale`` plays those
    pairings again. Once a pairing has games under today's pins its old games are superseded and left
    out for good, also those a build cut by ``--cpu-hours`` did not play again: they never keep a rung
    stale.

Placing an agent (``hgenv ladder --agent``)
    Batches of games on paired decks (seats swapped) against the rungs nearest the agent's current
    estimate (first ``greedy``; then alternately the nearest rated rung below and above, or the two
    nearest beyond the top or bottom rung), until
    ``games`` games or the ``budget`` in CPU-minutes of play is spent: a batch is cut to the decks the
    budget still pays for, from each rung's measured CPU per game. A rung with the agent's own spec is
    not played. The games go to ``--out`` (``games.jsonl``, ``ladder.json``, ``ladder.md``); running the
    same command again resumes there, and never plays a game twice. ``--at-once N`` plays a batch's
    games in groups of up to N together (``tournament.play_group``): an agent that searches many
    games at once (``puct``) then pays its batched CPU per move, which the table shows beside the
    rungs' (theirs from reference games, played one at a time). Agents are then reset once per group,
    so its games depend on the group; a resumed run must use the same ``--at-once``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hg_env.agents.base import resolved_options
from hg_env.agents.puct import default_model, ppo_model
from hg_env.arena import bradley_terry
from hg_env.core.ruleset import DEFAULT_RULESET, RULESETS
from hg_env.fileio import atomic_write_text, read_jsonl
from hg_env.tables import render_table

HERE = Path(__file__).resolve().parent
REFERENCE_DIR = HERE / "reference"
CHEAP_MCTS = "mcts:sims=16"  # about 1 CPU-s per game (carcassonne 1.4; 24 sims: 1.9), a 20th of the defaults
RUNG_NAMES = ("random", "greedy", "greedy:opponents=0.75", "ppo", CHEAP_MCTS, "mcts")  # every ruleset's
SEARCH_RUNG = "puct"  # information-set PUCT with its shipped network (hg_env.agents.puct), at its defaults
SEARCH_RUNGS = ("hg2020",)  # rulesets whose ladder has the search rung (last in the plan, after mcts)
ALL_RUNG_NAMES = (*RUNG_NAMES, SEARCH_RUNG)
ANCHORS = {"random": 0.0, "greedy": 1000.0}
AGENT = "(agent)"  # the placed agent's name in games.jsonl and the fit (no spec looks like it)
BUILD_SEED = 27  # the reference games' decks
AGENT_SEED = 1  # the placed agent's decks: other decks than the reference's
DEFAULT_GAMES_PER_PAIR = 200  # about ±50 Elo between adjacent rungs (tests/test_ladder.py: 37 to 51)
DEFAULT_GAMES, DEFAULT_BUDGET, DEFAULT_BATCH = 200, 15.0, 20
# CPU seconds per two-player game before a rung has games to measure (measured on the 2-core machine)
GUESS_CPU_PER_GAME = {
    "random": 0.01,
    "greedy": 0.2,
    "greedy:opponents=0.75": 0.2,
    "ppo": 0.5,
    CHEAP_MCTS: 1.2,
    SEARCH_RUNG: 15.0,  # puct at its defaults, hg2020
}
# mcts at its defaults, CPU-s per two-player game, as the first reference builds measured it on a 16-core machine
# (the README's 17 s for hg2020 was measured on an idle 2-core one); a build uses its measured costs once it has games
GUESS_MCTS_CPU_PER_GAME = {"hg2020": 22.0, "hg2002": 20.0, "carcassonne": 30.0}
GUESS_GAME_OVERHEAD = 0.3  # CPU seconds of a game outside the agents (the engine, the copies agents get)
DEFAULT_CPU_HOURS = 2.0  # a reference build's budget per ruleset
EXPENSIVE_S = 5.0  # CPU seconds per game above which a pairing is cut to fit the budget
MIN_GAMES_PER_PAIR = 20
TRAIN_CONFIGS = {"hg2020": "configs/quick.toml", "hg2002": "configs/hg2002_quick.toml"}


def train_config(ruleset: str) -> str:
    """The config that trains a ruleset's ``ppo`` rung."""
    return TRAIN_CONFIGS.get(ruleset, f"configs/{ruleset}_quick.toml")


# ---------------------------------------------------------------- rungs and pins


@dataclass(frozen=True)
class Rung:
    name: str  # what the tables and the reference files call it
    spec: str  # what make_agent builds
    model: Path | None = None  # its model file, pinned by SHA-256

    @property
    def sha256(self) -> str | None:
        return None if self.model is None else file_sha256(self.model)

    @property
    def options(self) -> dict[str, Any]:
        """What its agent plays with (``resolved_options``), pinned by ``options_digest``."""
        return resolved_options(self.spec)


def rung_names(ruleset: str) -> tuple[str, ...]:
    """The rung names of a ruleset, weakest first."""
    return ALL_RUNG_NAMES if ruleset in SEARCH_RUNGS else RUNG_NAMES


def rungs(ruleset: str) -> list[Rung]:
    """The rungs of a ruleset, weakest first (the order of the reference pairings)."""
    _check_ruleset(ruleset)
    out = []
    model = ppo_model(ruleset)
    for name in rung_names(ruleset):
        if name == "ppo":
            out.append(Rung(name, f"policy:path={model},ruleset={ruleset}", model))
        elif name == SEARCH_RUNG:
            search_model = default_model(ruleset)
            out.append(Rung(name, f"{SEARCH_RUNG}:path={search_model}", search_model))
        else:
            out.append(Rung(name, name))
    return out


def file_sha256(path: str | Path) -> str | None:
    """SHA-256 of a file (None if it does not exist), cached while its size and time stay."""
    path = Path(path)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return _sha256(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@functools.lru_cache(maxsize=8)
def engine_fingerprint(ruleset: str) -> str:
    """One digest of ``hgenv bench fingerprint --ruleset R`` (its seeded games: rules, observations, masks)."""
    from hg_env.bench import fingerprint

    digests = fingerprint(ruleset=ruleset)
    return hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``0.1.0`` and, in a git checkout, ``+g<commit>`` (``.dirty`` with uncommitted changes)."""
    from hg_env import __version__

    try:
        head = subprocess.run(
            ["git", "-C", str(HERE), "describe", "--always", "--dirty=.dirty", "--abbrev=10", "--exclude=*"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return __version__
    return f"{__version__}+g{head.stdout.strip()}" if head.returncode == 0 and head.stdout.strip() else __version__


def _check_ruleset(ruleset: str) -> None:
    if ruleset not in RULESETS:
        raise ValueError(f"ruleset must be one of {RULESETS}, got {ruleset!r}")


def reference_path(ruleset: str) -> Path:
    return REFERENCE_DIR / f"{ruleset}.jsonl"


# ---------------------------------------------------------------- pins: what a game's players must still be


def options_digest(options: dict[str, Any] | None) -> str | None:
    """A short digest of an agent's options (``resolved_options``); None for an agent given as an object."""
    if options is None:
        return None
    return hashlib.sha256(json.dumps(options, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:12]


def options_path(path: Path) -> Path:
    """The options file beside a games file: ``hg2020.jsonl`` -> ``hg2020.options.json`` (digest -> options)."""
    return path.with_name(f"{path.stem}.options.json")


def read_options(path: Path) -> dict[str, dict[str, Any]]:
    """The options a games file's digests stand for ({} when there is no options file); ValueError if damaged."""
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(
            f"{path} is damaged ({err}): restore it from git, or delete it (its games are then stale)"
        ) from None
    if not isinstance(known, dict) or not all(isinstance(v, dict) for v in known.values()):
        raise ValueError(f"{path} is damaged: expected an object of digest -> options")
    return known


@dataclass
class Pins:
    """What the players of a stored game must still be for it to count (module docstring, Staleness): the engine
    (``fingerprint``), each player's model file (SHA-256) and options (``resolved_options``, by digest)."""

    fingerprint: str
    models: dict[str, str | None]  # name -> SHA-256 of its model file (None: it has none)
    options: dict[str, dict[str, Any] | None]  # name -> its options today (None: an agent object, not known)
    known: dict[str, dict[str, Any]] = field(default_factory=dict)  # digest -> options, from the options file

    def stamp(self, seats: Sequence[str]) -> dict[str, Any]:
        """The pin fields of a new game line."""
        return {
            "sha256": [self.models.get(name) for name in seats],
            "options": [options_digest(self.options.get(name)) for name in seats],
            "fingerprint": self.fingerprint,
        }

    def broken(self, line: dict) -> list[str]:
        """The players of ``line`` whose pins no longer hold (all of them when the engine changed)."""
        if line.get("fingerprint") != self.fingerprint:
            return list(line["seats"])
        seats = line["seats"]
        digests = line.get("options") or [None] * len(seats)  # none: written before options were pinned
        if not len(line["sha256"]) == len(digests) == len(seats):  # a damaged line pins nothing
            return list(seats)
        return [
            name
            for name, sha, digest in zip(seats, line["sha256"], digests)
            if self.models.get(name) != sha or not self._same_options(name, digest)
        ]

    def hold(self, line: dict) -> bool:
        """The line's game counts."""
        return not self.broken(line)

    def _same_options(self, name: str, digest: str | None) -> bool:
        """The options behind ``digest`` agree with today's on every option both have: an option added since,
        or dropped, is taken to keep the old play (it changes the digest, not the games)."""
        today = self.options.get(name)
        if digest is None or today is None or digest == options_digest(today):
            return True
        then = self.known.get(digest)
        return then is not None and _agree(then, today)

    def remember(self, path: Path, names: Iterable[str]) -> None:
        """Write the options of ``names`` to the options file beside ``path`` (before their games are appended).

        An older digest whose options agree with one of today's on every option both have is taken to have
        had today's value of each option it lacks (an option added since): that is written down too, so
        that a later change of such a default breaks its games' pins as well."""
        mine = {options_digest(self.options[n]): self.options[n] for n in names if self.options.get(n) is not None}
        known = {**read_options(options_path(path)), **self.known}
        updated = {**known, **mine}
        for digest, then in known.items():
            for today in mine.values():
                added = today.keys() - then.keys()
                if added and _agree(then, today):
                    updated[digest] = {**then, **{key: today[key] for key in sorted(added)}}
                    break
        if updated != self.known:
            atomic_write_text(options_path(path), json.dumps(updated, indent=1, sort_keys=True) + "\n")
            self.known = updated


def _agree(then: dict[str, Any], today: dict[str, Any]) -> bool:
    """Two agents' options have the same value for every option both have."""
    return all(then[key] == today[key] for key in then.keys() & today.keys())


# ---------------------------------------------------------------- game lines


def pairing(line: dict) -> tuple[str, ...]:
    """The two players of a game, in name order (either seating)."""
    return tuple(sorted(line["seats"]))


def game_key(line: dict) -> tuple:
    """What makes a game the same game: its two players, deck, seating and the decks' seed."""
    return (pairing(line), line["deck"], tuple(line["seats"]), line["deck_seed"])


def points(line: dict, name: str) -> float:
    """1 for a win of ``name``, 1/2 for a tie, 0 for a loss (ranks; an agent's error loses)."""
    mine, theirs = (line["ranks"][s] for s in ((0, 1) if line["seats"][0] == name else (1, 0)))
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def _compact(result: dict, seats: Sequence[str], pins: Pins) -> dict:
    """The ladder's line of a tournament.play_game result (module docstring)."""
    error = result["error"]
    return {
        "seats": list(seats),
        "deck": result["deck"],
        "deck_seed": result["deck_seed"],
        "agent_seeds": result["agent_seeds"],
        "scores": result["scores"],
        "ranks": result["ranks"],
        "cpu": result["agent_cpu_seconds"],
        "moves": result["agent_decisions"],
        "cpu_seconds": result["cpu_seconds"],
        "error": None if error is None else f"{error['agent']}: {error['message'].splitlines()[0]}"[:300],
        **pins.stamp(seats),
        "version": code_version(),
    }


def read_lines(path: Path) -> list[dict]:
    """The game lines of a file; a last line cut short by a kill is dropped from the file too."""
    lines, cut = read_jsonl(path)
    if cut:
        atomic_write_text(path, "".join(json.dumps(line) + "\n" for line in lines))
    return lines


def _append(f, line: dict) -> None:
    f.write(json.dumps(line, separators=(",", ":")) + "\n")
    f.flush()
    os.fsync(f.fileno())


def _scheduled(index: int, specs: Sequence[str], deck: int, rotation: int, seed: int, ruleset: str):
    """One two-player game on deck ``deck`` (the same order in every pairing: paired decks)."""
    from hg_env.arena import tournament

    seeds = tuple(tournament._derive(seed, deck, 1 + rotation, 1 + s) for s in range(2))  # no trailing 0s: the
    # SeedSequence of [seed, deck, 0, 0] is that of [seed, deck], the deck's own seed
    game_id = f"{specs[0]}|{specs[1]}|d{deck}"
    return tournament.ScheduledGame(
        index, game_id, 0, deck, rotation, tuple(specs), tournament._derive(seed, deck), seeds, ruleset
    )


def _play(
    todo: list, workers: int = 1, ray_address: str | None = None, agents: dict | None = None, at_once: int = 1
) -> Iterable[dict]:
    """Results of the scheduled games (any order with ``workers`` > 1): the tournament's game loop, one
    game at a time or (``at_once > 1``) in groups of that many played together."""
    from hg_env.arena import tournament

    work = [todo[i : i + at_once] for i in range(0, len(todo), at_once)] if at_once > 1 else todo
    yield from tournament._results(work, workers, ray_address, agents)


# ---------------------------------------------------------------- the reference state of a ruleset


@dataclass
class Reference:
    """The stored games of a ruleset, sorted by whether they count now."""

    ruleset: str
    rungs: list[Rung]
    lines: list[dict]
    pins: Pins
    stale: dict[str, int] = field(default_factory=dict)  # rung -> games to play again
    current: list[dict] = field(default_factory=list)  # counting games of rungs that are not stale

    @classmethod
    def load(cls, ruleset: str, path: str | Path | None = None, rung_list: list[Rung] | None = None) -> Reference:
        rung_list = rungs(ruleset) if rung_list is None else rung_list
        # read only: a build may be appending to the file right now (its cut last line is not ours to drop)
        path = Path(path) if path is not None else reference_path(ruleset)
        lines = read_jsonl(path)[0]
        models, options = {r.name: r.sha256 for r in rung_list}, {r.name: r.options for r in rung_list}
        ref = cls(
            ruleset,
            rung_list,
            lines,
            Pins(engine_fingerprint(ruleset), models, options, read_options(options_path(path))),
        )
        names = set(models)
        ours = [line for line in lines if set(line["seats"]) <= names]
        fresh = [line for line in ours if ref.pins.hold(line)]
        replayed, counted = {game_key(line) for line in fresh}, {id(line) for line in fresh}
        renewed = {pairing(line) for line in fresh}  # pairings with games under today's pins
        for line in ours:
            if id(line) in counted or game_key(line) in replayed or pairing(line) in renewed:
                continue  # counts, or superseded: its pairing was played again (maybe fewer games)
            for name in ref.pins.broken(line):
                ref.stale[name] = ref.stale.get(name, 0) + 1
        ref.current = [line for line in fresh if not set(line["seats"]) & set(ref.stale)]
        return ref

    def rated(self) -> list[str]:
        """Rungs with a rating now: the anchors, and every rung with current games."""
        played = {name for line in self.current for name in line["seats"]}
        return [r.name for r in self.rungs if r.name in ANCHORS or (r.name in played and r.name not in self.stale)]

    def cpu_per_game(self, name: str) -> float:
        """CPU seconds a rung spends per game (its measured share; a guess before it has games)."""
        spent = [line["cpu"][line["seats"].index(name)] for line in self.lines if name in line["seats"]]
        if spent:
            return sum(spent) / len(spent)
        return GUESS_CPU_PER_GAME.get(name, GUESS_MCTS_CPU_PER_GAME[self.ruleset])

    def game_cost(self, a: str, b: str) -> float:
        """CPU seconds of one game between two rungs: their shares and the engine's (measured, or guesses)."""
        rest = [line["cpu_seconds"] - sum(line["cpu"]) for line in self.lines]
        overhead = sum(rest) / len(rest) if rest else GUESS_GAME_OVERHEAD
        return self.cpu_per_game(a) + self.cpu_per_game(b) + overhead

    def cpu_per_move(self, name: str) -> float | None:
        cpu = moves = 0.0
        for line in self.current:
            if name in line["seats"]:
                seat = line["seats"].index(name)
                cpu, moves = cpu + line["cpu"][seat], moves + line["moves"][seat]
        return cpu / moves if moves else None


def pairings(lines: Iterable[dict]) -> list[bradley_terry.Pairing]:
    """Games between every two players, as points of the first (sorted) name."""
    total: dict[tuple[str, str], list[float]] = {}
    for line in lines:
        a, b = sorted(line["seats"])
        entry = total.setdefault((a, b), [0.0, 0.0])
        entry[0] += 1
        entry[1] += points(line, a)
    return [bradley_terry.Pairing(a, b, n, w) for (a, b), (n, w) in total.items()]


def fit_lines(lines: Iterable[dict], players: Iterable[str] = ()) -> bradley_terry.Fit:
    return bradley_terry.fit(pairings(lines), ANCHORS, players=players)


# ---------------------------------------------------------------- building the reference


def plan(rung_list: Sequence[Rung], games_per_pair: int) -> list[tuple[str, str, int]]:
    """The reference pairings: each rung against the next (``games_per_pair``) and the one after (half)."""
    names = [r.name for r in rung_list]
    skip = max(2, 2 * round(games_per_pair / 4))
    out = [(names[k], names[k + 1], games_per_pair) for k in range(len(names) - 1)]
    return out + [(names[k], names[k + 2], skip) for k in range(len(names) - 2)]


def fit_budget(
    pairs: list[tuple[str, str, int]], cost, seconds: float, skips: Iterable[tuple[str, str]] = ()
) -> list[tuple[str, str, int]]:
    """The plan's pairings cut so that the whole plan costs at most ``seconds``: only those whose game costs over
    ``EXPENSIVE_S`` CPU seconds (``cost(a, b)``), the ``skips`` first (neighbours' precision comes first), each
    set in one proportion, and none under ``MIN_GAMES_PER_PAIR`` games (which may leave the plan over)."""
    skips = set(skips)
    pairs = _cut(pairs, cost, seconds, lambda a, b: (a, b) in skips)
    return _cut(pairs, cost, seconds, lambda a, b: True)


def _cut(pairs: list[tuple[str, str, int]], cost, seconds: float, which) -> list[tuple[str, str, int]]:
    """``pairs`` with the expensive ones that ``which(a, b)`` picks scaled down together to fit ``seconds``."""
    picked = [cost(a, b) >= EXPENSIVE_S and which(a, b) for a, b, _ in pairs]
    fixed = sum(n * cost(a, b) for (a, b, n), p in zip(pairs, picked) if not p)
    scaled = sum(n * cost(a, b) for (a, b, n), p in zip(pairs, picked) if p)
    if fixed + scaled <= seconds or not scaled:
        return pairs
    factor = max(0.0, (seconds - fixed) / scaled)
    return [(a, b, max(MIN_GAMES_PER_PAIR, 2 * int(n * factor / 2)) if p else n) for (a, b, n), p in zip(pairs, picked)]


def build(
    ruleset: str,
    games_per_pair: int = DEFAULT_GAMES_PER_PAIR,
    cpu_hours: float = DEFAULT_CPU_HOURS,
    workers: int = 1,
    ray_address: str | None = None,
    only_stale: bool = False,
    reference: str | Path | None = None,
    only: Sequence[str] | None = None,
    max_games: int | None = None,
    log=print,
) -> Reference:
    """Play the reference games still missing (module docstring), appending each to the reference file.

    ``cpu_hours`` bounds the whole plan's estimated CPU (``fit_budget``); ``only`` builds only those rungs
    (a small test build); ``max_games`` stops after that many."""
    _check_ruleset(ruleset)
    if not (isinstance(cpu_hours, (int, float)) and math.isfinite(cpu_hours) and cpu_hours > 0):
        raise ValueError(f"--cpu-hours must be a positive number, got {cpu_hours!r}")
    if isinstance(games_per_pair, bool) or not isinstance(games_per_pair, int) or games_per_pair < 2:
        raise ValueError(f"--games-per-pair must be an integer >= 2, got {games_per_pair!r}")
    if ray_address is not None and workers > 1:
        raise ValueError("--workers and --ray exclude each other: Ray uses every CPU of its cluster")
    rung_list = rungs(ruleset)
    if only is not None:
        unknown = sorted(set(only) - {r.name for r in rung_list})
        if unknown:
            raise ValueError(f"unknown rung(s) {unknown} in {ruleset}; its rungs are {[r.name for r in rung_list]}")
        rung_list = [r for r in rung_list if r.name in only]
    for r in rung_list:
        if r.model is not None and r.sha256 is None:
            raise ValueError(f"{r.model} is missing: train it with hgenv train --config {train_config(ruleset)}")
        _buildable(r)  # fails before any game: a rung that cannot be built would lose every game
    path = Path(reference) if reference is not None else reference_path(ruleset)
    read_lines(path)  # the writer drops a line cut short by a kill before appending (that game is played again)
    ref = Reference.load(ruleset, path, rung_list)
    done = {game_key(line) for line in ref.lines if ref.pins.hold(line)}
    specs = {r.name: r.spec for r in rung_list}
    todo, meta, rows = [], {}, []
    full = plan(rung_list, games_per_pair)
    skips = [(a, b) for a, b, _ in full[len(rung_list) - 1 :]]  # plan(): the neighbours first, then the skips
    pairs = fit_budget(full, ref.game_cost, cpu_hours * 3600, skips)
    if pairs != full:
        cut = ", ".join(f"`{a}` vs `{b}` {n}" for (a, b, n), old in zip(pairs, full) if n != old[2])
        log(f"cut to fit --cpu-hours {cpu_hours:g}: {cut} games (a game over {EXPENSIVE_S:g} CPU-s)")
    if only_stale:
        pairs = [p for p in pairs if p[0] in ref.stale or p[1] in ref.stale]
    for a, b, games in pairs:
        missing = 0
        for deck in range(games // 2):
            for rotation, seats in enumerate(((a, b), (b, a))):
                key = (tuple(sorted(seats)), deck, seats, _deck_seed(BUILD_SEED, deck))
                if key in done:
                    continue
                missing += 1
                game = _scheduled(len(todo), [specs[s] for s in seats], deck, rotation, BUILD_SEED, ruleset)
                todo.append((deck, game))
                meta[game.game_id + f"|r{rotation}"] = seats
        cost = ref.game_cost(a, b)
        rows.append([f"`{a}` vs `{b}`", games, games - missing, missing, f"{cost:.2f}", f"{missing * cost / 60:.1f}"])
    todo = [g for _, g in sorted(todo, key=lambda item: (item[0], item[1].index))]  # deck by deck: partial covers all
    total, missing = sum(float(row[-1]) for row in rows), len(todo)
    if max_games is not None:
        todo = todo[:max_games]
    now = "" if len(todo) == missing else f" (this run plays {len(todo)})"
    log(f"ladder build {ruleset}: {len(pairs)} pairings, {missing} games to play{now}, about {total:.0f} CPU-minutes")
    log(render_table(("pairing", "games", "done", "to play", "CPU-s per game", "CPU-min"), rows, align="lrrrrr"))
    if ref.stale:
        log(f"stale rungs (their games are played again): {', '.join(sorted(ref.stale))}")
    path.parent.mkdir(parents=True, exist_ok=True)
    ref.pins.remember(path, specs)  # also with nothing to play: what an option added since is taken to be
    if not todo:
        return Reference.load(ruleset, path, rung_list)
    started, last, played, spent = time.monotonic(), time.monotonic(), 0, 0.0
    with path.open("a", encoding="utf-8") as f:
        for result in _play(todo, workers, ray_address):
            seats = meta[f"{result['game']}|r{result['rotation']}"]
            line = _compact(result, seats, ref.pins)
            _append(f, line)
            played, spent = played + 1, spent + line["cpu_seconds"]
            if time.monotonic() - last > 60 or played == len(todo):
                last = time.monotonic()
                log(
                    f"  {played}/{len(todo)} games, {spent / 60:.1f} CPU-min of games, "
                    f"{(last - started) / 60:.1f} min -> {path}"
                )
    return Reference.load(ruleset, path, rung_list)


def _buildable(rung: Rung) -> None:
    """ValueError naming the rung when its agent cannot be built here (a missing extra, a bad model file)."""
    from hg_env.agents.base import make_agent

    try:
        make_agent(rung.spec)
    except Exception as err:
        raise ValueError(f"rung {rung.name} ({rung.spec}) cannot be built: {type(err).__name__}: {err}") from None


def _deck_seed(seed: int, deck: int) -> int:
    from hg_env.arena import tournament

    return tournament._derive(seed, deck)


# ---------------------------------------------------------------- placing an agent


@dataclass
class LadderResult:
    """A placed agent: its rating and every rung's (``markdown()`` for the table)."""

    ruleset: str
    agent: str
    rating: float
    interval: tuple[float, float]
    games: int
    cpu_seconds: float  # CPU seconds of the agent's games (both players, engine included)
    rows: list[dict]  # one per rated rung and the agent, strongest first
    stale: dict[str, int]
    unrated: list[str]
    out: str | None = None

    def markdown(self) -> str:
        header = ("player", "rating", "95% interval", "games vs agent", "agent's score", "CPU s per move")
        table = []
        for row in self.rows:
            name = f"**{self.agent}**" if row["agent"] else f"`{row['name']}`"
            low, high = row["interval"]
            bounds = "anchor" if row["name"] in ANCHORS else f"[{low:.0f}, {high:.0f}]"
            score = "" if row["agent"] or not row["games"] else f"{row['agent_score']:.2f}"
            cpu = "" if row["cpu_per_move"] is None else f"{row['cpu_per_move']:.4f}"
            table.append([name, f"{row['rating']:.0f}", bounds, row["games"] or "", score, cpu])
        low, high = self.interval
        lines = [
            f"## Ladder {self.ruleset}: {self.agent}",
            "",
            f"Rating {self.rating:.0f}, 95% interval [{low:.0f}, {high:.0f}], from {self.games} games "
            f"({self.cpu_seconds / 60:.1f} CPU-minutes); random = 0 and greedy = 1000 are fixed.",
            "",
            render_table(header, table, align="lrrrrr").rstrip("\n"),
        ]
        lines += _notes(self.ruleset, self.stale, self.unrated)
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.markdown()


def _notes(ruleset: str, stale: dict[str, int], unrated: Sequence[str]) -> list[str]:
    notes = []
    if stale:
        what = ", ".join(f"`{name}` ({n} games)" for name, n in sorted(stale.items()))
        notes.append(
            "\nStale rungs, left out (the engine, their model file or their options changed since their games): "
            f"{what}; refresh them with `hgenv ladder build --ruleset {ruleset} --only-stale`."
        )
    if unrated:
        names = ", ".join(f"`{n}`" for n in unrated)
        notes.append(f"\nRungs without reference games yet: {names} (`hgenv ladder build --ruleset {ruleset}`).")
    return notes


def _label(agent: Any, name: str | None) -> str:
    if name:
        return name
    return agent if isinstance(agent, str) else "agent"


def model_pin(player: Any, ruleset: str) -> str | None:
    """SHA-256 of the model file an agent plays ``ruleset`` with (``Agent.model_file``: its ``path=``, or the
    shipped network it loads without one), so a changed model is never mixed with its old games; None
    without one (or for a player that is not an ``Agent``)."""
    model_file = getattr(player, "model_file", None)
    path = model_file(ruleset) if callable(model_file) else None
    return None if path is None else file_sha256(path)


def default_out(agent_label: str, ruleset: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._=-]+", "_", agent_label).strip("_")[:80] or "agent"
    return f"results/ladder/{ruleset}/{slug}"


def _check_run_config(out: Path, config: dict) -> None:
    path = out / "config.json"
    if path.exists():
        try:
            theirs = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ValueError(f"{path} is damaged ({err}); delete it (the settings are written again)") from None
        theirs.setdefault("at_once", 1)  # runs from before --at-once
        differ = [k for k in ("agent", "ruleset", "seed", "at_once") if theirs.get(k) != config[k]]
        if differ:
            detail = ", ".join(f"{k}: {theirs.get(k)!r} there, {config[k]!r} now" for k in differ)
            raise ValueError(f"{out} holds another ladder run ({detail}); use another --out")
    atomic_write_text(path, json.dumps(config, indent=2) + "\n")


def choose_rung(
    estimate: float, ratings: dict[str, float], played: dict[str, int], cost: dict[str, float], left: float
) -> tuple[str, int] | None:
    """The next rung and how many decks the CPU seconds ``left`` pay for (module docstring); None: stop.

    The nearest rated rung below and above ``estimate`` (beyond every rung: the two nearest), the one with fewer
    games against the agent first (a tie: the cheaper); the other, or then the rest nearest first, when the
    budget cannot pay a deck."""
    if not any(played.values()) and "greedy" in ratings:
        order = ["greedy"]
    else:
        below = [n for n in ratings if ratings[n] <= estimate]
        above = [n for n in ratings if ratings[n] > estimate]
        if below and above:
            near = [max(below, key=ratings.get), min(above, key=ratings.get)]
        else:  # beyond every rung: the two nearest, so that one rung's quirks do not make the rating
            near = sorted(ratings, key=lambda n: abs(ratings[n] - estimate))[:2]
        near.sort(key=lambda n: (played.get(n, 0), cost[n]))
        order = near
    rest = sorted((n for n in ratings if n not in order), key=lambda n: abs(ratings[n] - estimate))
    for name in order + rest:
        decks = int(left // (2 * cost[name])) if cost[name] > 0 else DEFAULT_BATCH // 2
        if decks >= 1:
            return name, decks
    return None


def ladder(
    agent: Any,
    ruleset: str = DEFAULT_RULESET,
    games: int = DEFAULT_GAMES,
    budget: float = DEFAULT_BUDGET,
    ray_address: str | None = None,
    out: str | Path | None = None,
    seed: int = AGENT_SEED,
    name: str | None = None,
    batch: int = DEFAULT_BATCH,
    reference: str | Path | None = None,
    log=None,
    at_once: int = 1,
) -> LadderResult:
    """Place ``agent`` on the ruleset's ladder (module docstring) and return its rating among the rungs.

    ``agent``: what ``hg_env.evaluate`` takes (a spec string, an ``Agent``, a function
    ``(observation, action_mask) -> action`` or a stable-baselines3 model). ``budget``: CPU-minutes of
    play. ``out``: a folder for games.jsonl, ladder.json and ladder.md (resumed when it holds this
    agent's games; ``None`` keeps nothing). ``reference``: another reference file (tests). ``at_once``:
    a batch's games played in groups of that many together (module docstring).
    ValueError naming a bad argument before any game."""
    from hg_env.arena.evaluate import as_agent

    _check_ruleset(ruleset)
    if isinstance(games, bool) or not isinstance(games, int) or games < 2:
        raise ValueError(f"games must be an integer >= 2, got {games!r}")
    if not (isinstance(budget, (int, float)) and math.isfinite(budget) and budget > 0):
        raise ValueError(f"budget must be a positive number of CPU-minutes, got {budget!r}")
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 2:
        raise ValueError(f"batch must be an integer >= 2, got {batch!r}")
    if isinstance(at_once, bool) or not isinstance(at_once, int) or not 1 <= at_once <= 10_000:
        raise ValueError(f"at_once must be an integer 1..10000, got {at_once!r}")
    batch = max(batch, at_once)  # a batch holds a whole group
    if ray_address is not None and not isinstance(agent, str):
        raise ValueError("--ray plays agents given by spec strings only: Ray workers build the agent from it")
    label = _label(agent, name)
    player = as_agent(agent, seed=seed)  # a bad spec or object fails here
    own = getattr(player, "ruleset", None)  # a policy plays its model's ruleset only: elsewhere it would lose
    if own is not None and own != ruleset:
        raise ValueError(f"the agent plays {own} (its model file), not {ruleset}: use --ruleset {own}")
    ref = Reference.load(ruleset, reference)
    specs = {r.name: r.spec for r in ref.rungs}
    own_options = resolved_options(agent) if isinstance(agent, str) else None
    pins = Pins(
        ref.pins.fingerprint,
        {**ref.pins.models, AGENT: model_pin(player, ruleset)},
        {**ref.pins.options, AGENT: own_options},
    )
    say = log or (lambda _: None)
    rated = []
    for rung in ref.rungs:
        if rung.name not in ref.rated() or (isinstance(agent, str) and rung.spec == agent):
            continue
        try:
            _buildable(rung)
            rated.append(rung.name)
        except ValueError as err:  # e.g. the ppo rung without torch: the other rungs still place the agent
            say(f"  not played: {err}")
    unrated = [r.name for r in ref.rungs if r.name not in ref.rated() and r.name not in ref.stale]
    run: list[dict] = []
    path = None
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        config = {"agent": label, "ruleset": ruleset, "seed": seed, "at_once": at_once}
        _check_run_config(out, config)
        path = out / "games.jsonl"
        everything = read_lines(path)
        pins.known = read_options(options_path(path))
        run = [line for line in everything if pins.hold(line)]
        pins.remember(path, [AGENT, *rated])
    done = {game_key(line) for line in run}
    if path is not None and len(everything) > len(run):
        say(
            f"  {len(everything) - len(run)} games in {path} were played by another model file, engine or agent "
            "options: left out"
        )
    f = path.open("a", encoding="utf-8") if path is not None else None
    cache = {AGENT: player}
    try:
        while len(run) < games:
            fit = fit_lines(ref.current + run, players=[AGENT])
            played = {n: sum(n in line["seats"] for line in run) for n in rated}
            # the agent's share of a game and the engine's, measured (before its first game: the engine's guess)
            rest = [line["cpu_seconds"] - line["cpu"][line["seats"].index(AGENT) ^ 1] for line in run]
            cost = {n: ref.cpu_per_game(n) + (sum(rest) / len(rest) if rest else GUESS_GAME_OVERHEAD) for n in rated}
            left = budget * 60 - sum(line["cpu_seconds"] for line in run)
            choice = choose_rung(fit.ratings[AGENT], {n: fit.ratings[n] for n in rated}, played, cost, left)
            if choice is None:
                break
            rung, decks = choice
            decks = min(decks, max(1, batch // 2), math.ceil((games - len(run)) / 2))
            todo, seats_of = [], {}
            deck = 0
            while len(todo) < 2 * decks:  # the rung's next decks this agent has not played
                for rotation, seats in enumerate(((AGENT, rung), (rung, AGENT))):
                    key = (tuple(sorted(seats)), deck, seats, _deck_seed(seed, deck))
                    if key in done:
                        continue
                    spec = [agent if s == AGENT and ray_address is not None else specs.get(s, s) for s in seats]
                    game = _scheduled(len(todo), spec, deck, rotation, seed, ruleset)
                    todo.append(game)
                    seats_of[(game.game_id, rotation)] = seats
                deck += 1
            before = len(run)
            cached = cache if ray_address is None else None
            for result in _play(todo, 1, ray_address, agents=cached, at_once=at_once):
                line = _compact(result, seats_of[(result["game"], result["rotation"])], pins)
                run.append(line)
                done.add(game_key(line))
                if f is not None:
                    _append(f, line)
            score = sum(points(line, AGENT) for line in run[before:]) / (len(run) - before)
            fit = fit_lines(ref.current + run, players=[AGENT])
            low, high = fit.interval(AGENT)
            say(
                f"  vs {rung}: {len(run) - before} games, agent's score {score:.2f}; "
                f"rating {fit.ratings[AGENT]:.0f} [{low:.0f}, {high:.0f}] after {len(run)} games, "
                f"{sum(line['cpu_seconds'] for line in run) / 60:.1f} of {budget:g} CPU-min"
            )
    finally:
        if f is not None:
            f.close()
    result = _result(ref, run, rated, unrated, label)
    if out is not None:
        result.out = str(out)
        atomic_write_text(out / "ladder.json", json.dumps(asdict(result), indent=2) + "\n")
        atomic_write_text(out / "ladder.md", result.markdown())
    return result


def _result(ref: Reference, run: list[dict], rated: list[str], unrated: list[str], label: str) -> LadderResult:
    fit = fit_lines(ref.current + run, players=[AGENT, *rated])
    rows = []
    for n in [*rated, AGENT]:
        mine = [line for line in run if n in line["seats"]] if n != AGENT else run
        agent_cpu = sum(line["cpu"][line["seats"].index(AGENT)] for line in run)
        agent_moves = sum(line["moves"][line["seats"].index(AGENT)] for line in run)
        rows.append(
            {
                "name": label if n == AGENT else n,
                "agent": n == AGENT,
                "rating": fit.ratings[n],
                "interval": list(fit.interval(n)),
                "games": len(mine),
                "agent_score": sum(points(line, AGENT) for line in mine) / len(mine) if mine else None,
                "cpu_per_move": (agent_cpu / agent_moves if agent_moves else None)
                if n == AGENT
                else ref.cpu_per_move(n),
            }
        )
    rows.sort(key=lambda row: -row["rating"])
    return LadderResult(
        ruleset=ref.ruleset,
        agent=label,
        rating=fit.ratings[AGENT],
        interval=fit.interval(AGENT),
        games=len(run),
        cpu_seconds=sum(line["cpu_seconds"] for line in run),
        rows=rows,
        stale=dict(ref.stale),
        unrated=unrated,
    )


# ---------------------------------------------------------------- the reference table


def reference_table(ruleset: str, reference: str | Path | None = None) -> str:
    """The rungs' ratings, intervals and CPU seconds per move from the stored games (the README's table)."""
    ref = Reference.load(ruleset, reference)
    rated = ref.rated()
    fit = fit_lines(ref.current, players=rated)
    rows = []
    for n in sorted(rated, key=lambda n: -fit.ratings[n]):
        low, high = fit.interval(n)
        cpu = ref.cpu_per_move(n)
        games = sum(n in line["seats"] for line in ref.current)
        bounds = "anchor" if n in ANCHORS else f"[{low:.0f}, {high:.0f}]"
        rows.append([f"`{n}`", f"{fit.ratings[n]:.0f}", bounds, games, "" if cpu is None else f"{cpu:.4f}"])
    header = ("rung", "rating", "95% interval", "games", "CPU s per move")
    text = render_table(header, rows, align="lrrrr")
    unrated = [r.name for r in ref.rungs if r.name not in rated and r.name not in ref.stale]
    return text + "".join(note + "\n" for note in _notes(ruleset, ref.stale, unrated))


def pair_results(ruleset: str, reference: str | Path | None = None, rung: str | None = None) -> list[dict]:
    """Every stored pairing of current games (or those of ``rung``), the higher rung first as ``a``:
    ``games``, ``points`` of ``a`` (ties half), ``win_rate`` with its 95% Wilson interval ``low``/``high``,
    mean ``scores`` and CPU seconds per move ``cpu_per_move`` of (a, b)."""
    ref = Reference.load(ruleset, reference)
    names = [r.name for r in ref.rungs]
    if rung is not None and rung not in names:
        raise ValueError(f"unknown rung {rung!r} in {ruleset}; its rungs are {names}")
    order = {name: k for k, name in enumerate(names)}
    games: dict[tuple[str, str], list[dict]] = {}
    for line in ref.current:
        a, b = sorted(line["seats"], key=lambda n: -order[n])
        if rung is None or rung in (a, b):
            games.setdefault((a, b), []).append(line)
    pairs = sorted(games.items(), key=lambda item: (-order[item[0][0]], -order[item[0][1]]))
    return [pair_summary(lines, a, b) for (a, b), lines in pairs]


def pair_summary(lines: Sequence[dict], a: str, b: str) -> dict:
    """``a`` against ``b`` over two-player game lines (``seats``, ``ranks``, ``scores``, ``cpu``, ``moves`` by
    seat, as the reference files store them): one entry of ``pair_results``."""
    from hg_env.arena.evaluate import win_interval

    won = sum(points(line, a) for line in lines)
    low, high = win_interval(won, len(lines))
    seat = [[line["seats"].index(n) for line in lines] for n in (a, b)]
    scores = [sum(line["scores"][k] for line, k in zip(lines, ks)) / len(lines) for ks in seat]
    cpu = [sum(line["cpu"][k] for line, k in zip(lines, ks)) for ks in seat]
    moves = [sum(line["moves"][k] for line, k in zip(lines, ks)) for ks in seat]
    return {
        "a": a,
        "b": b,
        "games": len(lines),
        "points": won,
        "win_rate": won / len(lines),
        "low": low,
        "high": high,
        "scores": scores,
        "cpu_per_move": [c / max(1, m) for c, m in zip(cpu, moves)],
    }


def reference_pairs(ruleset: str, reference: str | Path | None = None, rung: str | None = None) -> str:
    """``pair_results`` as a table (``hgenv ladder pairs``)."""
    rows = [
        [
            f"`{p['a']}` vs `{p['b']}`",
            p["games"],
            f"{100 * p['win_rate']:.1f}% [{100 * p['low']:.1f}, {100 * p['high']:.1f}]",
            "{:.1f} – {:.1f}".format(*p["scores"]),
            "{:.4f} – {:.4f}".format(*p["cpu_per_move"]),
        ]
        for p in pair_results(ruleset, reference, rung)
    ]
    header = ("pairing (A vs B)", "games", "win rate of A, 95% interval", "mean scores", "CPU s per move")
    return render_table(header, rows, align="lrrrr")


# ---------------------------------------------------------------- command line


def main(args) -> int:
    """Entry point of ``hgenv ladder`` (args from hg_env.cli)."""
    action = getattr(args, "ladder_command", None)
    if action == "build":
        build(
            args.ruleset,
            games_per_pair=args.games_per_pair,
            cpu_hours=args.cpu_hours,
            workers=args.workers,
            ray_address=args.ray,
            only_stale=args.only_stale,
            reference=args.reference,
            only=args.rungs,
            max_games=args.max_games,
        )
        print(reference_table(args.ruleset, args.reference))
        return 0
    if action == "table":
        print(reference_table(args.ruleset, args.reference))
        return 0
    if action == "pairs":
        if args.json:
            for pair in pair_results(args.ruleset, args.reference, args.rung):
                print(json.dumps(pair))
        else:
            print(reference_pairs(args.ruleset, args.reference, args.rung))
        return 0
    if not args.agent:
        raise ValueError("--agent SPEC is needed (or: hgenv ladder build | table)")
    out = args.out or default_out(args.agent, args.ruleset)
    print(f"ladder {args.ruleset}: placing {args.agent} ({args.games} games at most, {args.budget:g} CPU-min) -> {out}")
    result = ladder(
        args.agent,
        ruleset=args.ruleset,
        games=args.games,
        budget=args.budget,
        ray_address=args.ray,
        out=out,
        seed=args.seed,
        reference=args.reference,
        log=print,
        at_once=args.at_once,
    )
    print(result.markdown())
    return 0
