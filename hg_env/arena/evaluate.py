"""Evaluation games: an agent (a trained policy, your own model or function) against fixed opponents, seats swapped.

    hgenv evaluate --model runs/default/final_model.zip --opponents random greedy --games 200
    hgenv evaluate --agent puct --opponents mcts --games 200 --chunk 25 --workers 2 --out puct_mcts.jsonl

    import hg_env
    results = hg_env.evaluate(model, opponents=["greedy"], games=200)   # model: your MaskablePPO
    print(results["greedy"])   # vs greedy: win rate 0.615 [0.546, 0.680] over 200 games, mean score ...

Each deck order (seeded from ``seed``) is played ``num_players`` times, the
agent sitting once in every seat and the opponent (one agent spec) in all the
others; all games run at once on the batched core, both sides deciding in
batches. A game is won when the agent scores strictly more than every
opponent seat, half won on a tie for first (shared victory, R8.2.4), lost
otherwise. The 95% interval is Wilson's (``win_interval``, which says why).
Each side's CPU seconds per move are measured as it decides (``MoveClock``).
Long evaluations play the decks in chunks, in worker processes or on Ray, and
keep each finished chunk in a record they resume from (``evaluate``).

``evaluate_agent`` (exported as ``hg_env.evaluate``) takes any agent: a spec
string, an ``hg_env.agents.Agent``, a function ``(observation, action_mask) ->
action`` (called per game with that game's board tensor), or a stable-baselines3
model in memory (sb3-contrib ``MaskablePPO`` trained on ``SingleAgentEnv`` or
``HGVecEnv``, with or without ``lookahead``; its ``policy`` plays the most probable
legal move). This module imports torch only for such a model.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from hg_env.agents.base import Agent, FunctionAgent, make_agent
from hg_env.core import engine
from hg_env.core.observation import observe
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from hg_env.core.ruleset import DEFAULT_RULESET, RULESETS
from hg_env.core.state import OVER, State
from hg_env.fileio import atomic_write_text, read_jsonl
from hg_env.rule_flags import parse_flags
from hg_env.tables import render_table

Z_95 = 1.959963984540054  # the standard normal's 97.5% quantile


def win_interval(points: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of a win rate: ``points`` (wins, ties counting half) out of ``games``.

    The one interval of every win rate hg_env reports: ``hgenv evaluate``, ``hg_env.evaluate``,
    training evaluations (``eval.jsonl``) and tournament tables (hg_env.arena.ratings).

    Why Wilson. A normal approximation over decks or a bootstrap over decks (what evaluations and
    tournaments used before) estimates the spread from the outcomes themselves, so it collapses to
    zero width whenever they do not vary: four games split 1-1 on each deck gave
    ``0.500 [0.500, 0.500]``, a 200-0 sweep ``[1.000, 1.000]``, both claiming certainty. Wilson's
    interval comes from the binomial model: it is never empty, stays inside [0, 1], keeps close to
    its nominal coverage from a few games up and at rates near 0 or 1 (Brown, Cai & DasGupta,
    Statistical Science 16(2), 2001), needs no seed and costs nothing in a tournament matrix.

    It counts games as independent. Evaluations and tournaments play every deck order from every
    seat (paired decks): that cancels the seat advantage and the luck of the deal from the *rate*;
    the games of one deck are then correlated, negatively when the deck favours a seat (the
    interval is then a little too wide) and positively when it favours one agent whatever its seat
    (a little too narrow)."""
    if games <= 0:
        raise ValueError(f"a win rate needs at least one game, got {games}")
    if not 0 <= points <= games:
        raise ValueError(f"points must be in [0, games={games}], got {points}")
    rate = points / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class MoveClock:
    """CPU seconds spent deciding and decisions made in evaluation games, per side: [agent, opponent].

    A side's time runs from its observations to its actions (``act_batch``); the legal-move masks and
    the engine's steps count for neither. All of a side's games deciding at once share its calls, so
    an agent that searches many games together (``puct``) pays less per move in a larger batch."""

    cpu: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: list[int] = field(default_factory=lambda: [0, 0])

    def add(self, other: MoveClock) -> None:
        for side in range(2):
            self.cpu[side] += other.cpu[side]
            self.moves[side] += other.moves[side]

    def per_move(self, side: int) -> float | None:
        """CPU seconds per decision of side 0 (the agent) or 1 (the opponent); None before any."""
        return self.cpu[side] / self.moves[side] if self.moves[side] else None


@dataclass
class EvalResult:
    opponent: str
    games: int
    wins: float  # ties for first count half
    win_rate: float
    ci_low: float
    ci_high: float
    mean_score: float  # the agent's
    mean_opponent_score: float  # the best opponent seat's
    # CPU seconds per decision of each side (MoveClock); timings vary between runs, so results compare without them
    cpu_per_move: float | None = field(default=None, compare=False)
    opponent_cpu_per_move: float | None = field(default=None, compare=False)

    def line(self) -> str:
        text = (
            f"vs {self.opponent}: win rate {self.win_rate:.3f} [{self.ci_low:.3f}, {self.ci_high:.3f}] "
            f"over {self.games} games, mean score {self.mean_score:.1f} vs {self.mean_opponent_score:.1f}"
        )
        if self.cpu_per_move is not None and self.opponent_cpu_per_move is not None:
            text += f", CPU per move {self.cpu_per_move:.3f} s vs {self.opponent_cpu_per_move:.3f} s"
        return text

    __str__ = line

    def outcome(self) -> dict[str, Any]:
        """The result without its timings: what training logs keep, the same on every run of the same games."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.compare}

    @classmethod
    def from_games(
        cls, opponent: str, scores: np.ndarray, seats: np.ndarray, clock: MoveClock | None = None
    ) -> EvalResult:
        """The result of finished games: final scores [G, players] and the agent's seat [G]; ``clock``
        their decisions' CPU seconds."""
        rows = np.arange(len(seats))
        mine = scores[rows, seats]
        others = scores.astype(np.int64)
        others[rows, seats] = np.iinfo(np.int64).min
        best_other = others.max(1)
        points = np.where(mine > best_other, 1.0, np.where(mine == best_other, 0.5, 0.0))
        low, high = win_interval(float(points.sum()), len(points))
        return cls(
            opponent=opponent,
            games=len(points),
            wins=float(points.sum()),
            win_rate=float(points.mean()),
            ci_low=low,
            ci_high=high,
            mean_score=float(mine.mean()),
            mean_opponent_score=float(best_other.mean()),
            cpu_per_move=None if clock is None else clock.per_move(0),
            opponent_cpu_per_move=None if clock is None else clock.per_move(1),
        )


def deck_seeds(seed: int, decks: int) -> list[int]:
    """Deck seeds of an evaluation: the same for every opponent, so comparisons are paired."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(decks, dtype=np.uint64) >> np.uint64(1)]


def play_games(
    agent: Agent,
    opponent: Agent,
    games: int,
    seed: int = 0,
    num_players: int = 2,
    rules: Rules | None = None,
    decks: slice = slice(None),
    opening: Callable[[State], None] | None = None,
    clock: MoveClock | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``games`` (rounded up to a multiple of ``num_players``) at once.

    ``decks`` plays only those deck orders of the evaluation (a task of ``hgenv evaluate
    --ray``); the agents' generators then start from the chunk's first deck. ``opening`` plays
    the first moves of the new games before the agents do (expert iteration's gate: greedy's).
    ``clock`` adds the CPU seconds and decisions of each side.
    Returns the final scores [G, players] and the agent's seat [G]."""
    rules = rules or Rules()
    seeds = deck_seeds(seed, math.ceil(games / num_players))[decks]
    total = len(seeds) * num_players
    state = engine.new_games(
        num_players, rules, seeds=[seeds[g // num_players] for g in range(total)], record_events=False
    )
    seats = np.arange(total) % num_players
    first = 2 * (decks.start or 0)  # 0 for the whole evaluation: its seeds as they always were
    agent.reset(seed + first)
    opponent.reset(seed + first + 1)
    if opening is not None:
        opening(state)
    while True:
        live = state.phase != OVER
        if not live.any():
            break
        actions = np.full(total, -1, dtype=np.int64)
        mine = live & (state.current == seats)
        for side, (who, rows) in enumerate(((agent, np.flatnonzero(mine)), (opponent, np.flatnonzero(live & ~mine)))):
            if len(rows):
                masks = engine.legal_action_mask(state, rows)
                started = time.process_time()
                obs = observe(state, rows, state.current[rows]) if who.uses_observation else None
                actions[rows] = who.act_batch(obs, masks, state.take(rows))
                if clock is not None:
                    clock.cpu[side] += time.process_time() - started
                    clock.moves[side] += len(rows)
        engine.step(state, actions)  # ValueError naming the game if an agent chose an illegal move
    return state.score[:, :num_players].astype(np.int64), seats


def evaluate(
    agent: Agent,
    opponent_spec: str,
    games: int,
    seed: int = 0,
    num_players: int = 2,
    rules: Rules | None = None,
    ray_address: str | None = None,
    chunk: int | None = None,
    record: str | Path | None = None,
    workers: int = 1,
    play: bool = True,
) -> EvalResult:
    """Win rate of ``agent`` against the agent ``opponent_spec`` (module docstring), with each side's
    CPU seconds per move.

    All games are played at once, unless ``chunk`` (deck orders per chunk, ``num_players`` games
    each) plays them chunk by chunk: each chunk's agents are seeded from its first deck, so a
    chunk's games do not depend on where or in which order it is played. ``workers`` plays chunks
    in that many processes; ``ray_address`` plays them as Ray tasks ("" for a local Ray instance;
    hg_env.arena.distributed). Either, or a ``record``, plays chunks of ``distributed.DECKS_PER_TASK``
    decks unless ``chunk`` says otherwise. ``record`` (a JSON Lines file) keeps every finished
    chunk, and the same call resumes from it: only the missing chunks are played (``read_record``).
    ``play=False`` plays nothing: the result of the record's finished chunks so far (ValueError if none)."""
    if not play and record is None:
        raise ValueError("play=False reports a record's finished games: it needs the record")
    opponent = make_agent(opponent_spec, seed=seed + 1)
    rules = rules or Rules()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ValueError(f"workers must be 1..256, got {workers!r}")
    if ray_address is not None and workers > 1:
        raise ValueError("workers and Ray exclude each other: Ray uses every CPU of its cluster")
    decks = math.ceil(games / num_players)
    if chunk is None:
        if ray_address is None and record is None and workers == 1:
            clock = MoveClock()
            scores, seats = play_games(agent, opponent, games, seed, num_players, rules, clock=clock)
            return EvalResult.from_games(opponent_spec, scores, seats, clock)
        from hg_env.arena.distributed import DECKS_PER_TASK  # Ray is imported there only when used

        chunk = DECKS_PER_TASK  # the same chunks on Ray, in worker processes and in a record
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a whole number of decks, 1 or more, got {chunk!r}")
    from hg_env.arena.ladder import model_pin

    header = {
        "evaluation": RECORD_VERSION,
        "agent": agent.spec,
        "model": model_pin(agent, rules.ruleset),
        "games": games,
        "seed": seed,
        "players": num_players,
        "rules": rules.as_dict(),
        "chunk": chunk,
    }
    done = {} if record is None else read_record(record, header)
    opponent_model = model_pin(opponent, rules.ruleset)
    for part in done.get(opponent_spec, []):
        if part.get("opponent_model") != opponent_model:
            raise ValueError(
                f"{record}: the games against {opponent_spec!r} were played with the model of SHA-256 "
                f"{part.get('opponent_model')}, which is now {opponent_model}; use another file"
            )
    parts = {c["decks"][0]: c for c in done.get(opponent_spec, [])}
    todo = [slice(a, min(a + chunk, decks)) for a in range(0, decks, chunk) if a not in parts and play]
    if not parts and not todo:
        raise ValueError(f"{record}: no finished games against {opponent_spec!r} yet")
    plays = [(agent, opponent, games, seed, num_players, rules, span) for span in todo]
    with _appender(record, header) as write:
        for part in _chunk_results(plays, workers, ray_address):
            part["opponent"], part["opponent_model"] = opponent_spec, opponent_model
            write(part)
            parts[part["decks"][0]] = part
    clock = MoveClock()
    for part in parts.values():
        clock.add(MoveClock(list(part["cpu"]), list(part["moves"])))
    ordered = [parts[a] for a in sorted(parts)]
    scores = np.concatenate([np.asarray(p["scores"], dtype=np.int64) for p in ordered])
    seats = np.concatenate([np.asarray(p["seats"], dtype=np.int64) for p in ordered])
    return EvalResult.from_games(opponent_spec, scores, seats, clock)


RECORD_VERSION = 1  # of an evaluation record (``evaluate(record=...)``, ``hgenv evaluate --out``)


def play_chunk(
    agent: Agent, opponent: Agent, games: int, seed: int, num_players: int, rules: Rules, decks: slice
) -> dict:
    """One chunk of an evaluation (``play_games`` on ``decks``) as a record line: its decks, final
    scores, the agent's seats and each side's CPU seconds and decisions."""
    clock = MoveClock()
    scores, seats = play_games(agent, opponent, games, seed, num_players, rules, decks=decks, clock=clock)
    return {
        "decks": [decks.start, decks.stop],
        "scores": scores.tolist(),
        "seats": seats.tolist(),
        "cpu": [round(c, 4) for c in clock.cpu],
        "moves": clock.moves,
    }


def _play_chunk_task(args: tuple) -> dict:
    return play_chunk(*args)


def _chunk_results(plays: list[tuple], workers: int, ray_address: str | None) -> Iterator[dict]:
    """``play_chunk`` of every argument tuple, as each finishes: here, in worker processes, or on Ray."""
    if ray_address is not None:
        from hg_env.arena import distributed

        yield from distributed.evaluation_chunks(plays, ray_address)
    elif workers <= 1 or len(plays) <= 1:
        for args in plays:
            yield play_chunk(*args)
    else:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # no fork: agents may hold torch threads
        with ctx.Pool(min(workers, len(plays))) as pool:
            yield from pool.imap_unordered(_play_chunk_task, plays)


class _appender:
    """Context manager giving ``write(line)``: appends a JSON line to the record (its header first when
    the file is new), each line flushed and fsynced, so a killed run keeps every finished chunk."""

    def __init__(self, record: str | Path | None, header: dict) -> None:
        self.path, self.header, self.file = None if record is None else Path(record), header, None

    def __enter__(self):
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fresh = not self.path.exists() or not self.path.read_text(encoding="utf-8").strip()
                self.file = self.path.open("w" if fresh else "a", encoding="utf-8")
            except OSError as err:
                raise ValueError(f"{self.path}: cannot write the evaluation record ({err.strerror or err})") from None
            if fresh:
                self._write(self.header)
        return self._write if self.file is not None else (lambda line: None)

    def _write(self, line: dict) -> None:
        self.file.write(json.dumps(line) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def __exit__(self, *exc) -> None:
        if self.file is not None:
            self.file.close()


def read_record(record: str | Path, header: dict) -> dict[str, list[dict]]:
    """The finished chunks of an evaluation record, by opponent spec: ``{}`` for a missing file.

    The record must be of the same evaluation (``header``: agent spec, the SHA-256 of its model file,
    games, seed, players, rules, chunk; each chunk line names its opponent and that one's model);
    ValueError naming the file, line and problem otherwise, or for a damaged chunk line. A last line
    cut short by a kill is dropped (the file is rewritten without it: that chunk is played again)."""
    path = Path(record)
    lines, cut = read_jsonl(path)
    if not lines:
        return {}
    if not isinstance(lines[0], dict) or lines[0].get("evaluation") != RECORD_VERSION:
        raise ValueError(f"{path}: not an evaluation record of version {RECORD_VERSION} (its first line)")
    for key, value in header.items():
        if lines[0].get(key) != value:
            raise ValueError(
                f"{path} records another evaluation: its {key} is {lines[0].get(key)!r}, this one's {value!r}; "
                "use another file, or the same settings to resume it"
            )
    players, chunk = header["players"], header["chunk"]
    decks = math.ceil(header["games"] / players)
    seats_of = np.arange(decks * players) % players
    done: dict[str, list[dict]] = {}
    for number, line in enumerate(lines[1:], start=2):
        where = f"{path}, line {number}"
        if not isinstance(line, dict) or not isinstance(line.get("opponent"), str):
            raise ValueError(f"{where}: a chunk line needs its opponent spec")
        span = line.get("decks")
        if not (isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span)):
            raise ValueError(f"{where}: decks must be [first, end], got {span!r}")
        start, stop = span
        if start % chunk or not 0 <= start < decks or stop != min(start + chunk, decks):
            raise ValueError(f"{where}: decks {span} is not a chunk of {chunk} decks of {decks}")
        n = (stop - start) * players
        try:
            scores = np.asarray(line.get("scores"), dtype=np.int64)
            seats = np.asarray(line.get("seats"), dtype=np.int64)
            cpu = [float(c) for c in line.get("cpu")]
            moves = [int(m) for m in line.get("moves")]
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{where}: scores, seats, cpu and moves must be numbers") from None
        if scores.shape != (n, players) or (scores < 0).any():
            raise ValueError(f"{where}: scores must be {n} rows of {players} non-negative points")
        if seats.shape != (n,) or (seats != seats_of[start * players : stop * players]).any():
            raise ValueError(f"{where}: seats must be the agent's seat of each game, 0..{players - 1} in turn")
        if len(cpu) != 2 or len(moves) != 2 or not all(math.isfinite(c) and c >= 0 for c in cpu) or min(moves) < 0:
            raise ValueError(f"{where}: cpu and moves must be two non-negative numbers (agent, opponent)")
        chunks = done.setdefault(line["opponent"], [])
        if any(c["decks"][0] == start for c in chunks):
            raise ValueError(f"{where}: decks {span} against {line['opponent']!r} are recorded twice")
        chunks.append(line)
    if cut:
        atomic_write_text(path, "".join(json.dumps(line) + "\n" for line in lines))
    return done


def evaluate_agent(
    agent: Any,
    opponents: Sequence[str] | str = ("greedy", "mcts"),
    games: int = 200,
    ruleset: str = DEFAULT_RULESET,
    num_players: int = 2,
    seed: int = 0,
    chunk: int | None = None,
    record: str | Path | None = None,
    workers: int = 1,
    play: bool = True,
) -> dict[str, EvalResult]:
    """Win rate of ``agent`` against each opponent spec, seats swapped on paired decks (``hg_env.evaluate``),
    with each side's CPU seconds per move.

    ``agent``: a spec string (``"greedy"``), an ``hg_env.agents.Agent``, a function
    ``(observation, action_mask) -> action``, or a stable-baselines3 model (or its policy) in
    memory (module docstring). Every opponent plays the same deck orders (seeded from ``seed``).
    ``chunk``, ``record`` (one file for all opponents), ``workers`` and ``play``: see ``evaluate``.
    Returns ``{opponent spec: EvalResult}`` in the order given; ``print`` a result for its line,
    ``evaluation_table`` for a Markdown table. ValueError naming a bad argument before any game."""
    opponents = [opponents] if isinstance(opponents, str) else list(opponents)
    if not opponents or not all(isinstance(spec, str) for spec in opponents):
        raise ValueError(f"opponents must be a non-empty list of agent specs, got {opponents!r}")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 1 <= games <= 1_000_000:
        raise ValueError(f"games must be an integer in 1..1000000, got {games!r}")
    if isinstance(num_players, bool) or num_players not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        raise ValueError(f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
    if ruleset not in RULESETS:
        raise ValueError(f"ruleset must be one of {RULESETS}, got {ruleset!r}")
    for spec in opponents:  # a bad spec is named before any game is played
        make_agent(spec)
    player = as_agent(agent, seed=seed)
    rules = Rules(ruleset=ruleset)
    return {
        spec: evaluate(player, spec, int(games), seed, num_players, rules, None, chunk, record, workers, play)
        for spec in opponents
    }


def as_agent(agent: Any, seed: int | None = None) -> Agent:
    """An ``Agent`` from anything ``evaluate_agent`` takes (its docstring)."""
    if isinstance(agent, str):
        return make_agent(agent, seed=seed)
    if isinstance(agent, Agent):
        return agent
    policy = _sb3_policy(agent)
    if policy is not None:
        from hg_env.agents.policy import PolicyAgent

        return PolicyAgent.from_policy(policy, seed=seed)
    if callable(agent):
        return FunctionAgent(agent, seed=seed)
    raise ValueError(
        "agent must be a spec string, an hg_env.agents.Agent, a function (observation, action_mask) -> action "
        f"or a stable-baselines3 model, got {agent!r}"
    )


def _sb3_policy(obj: Any) -> Any:
    """The actor-critic policy of an SB3 model, or the policy itself; None for anything else.

    Only a live torch module can be one, so torch is never imported here for other agents."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    policy = getattr(obj, "policy", obj)
    if isinstance(policy, torch.nn.Module) and hasattr(policy, "observation_space"):
        if not (hasattr(policy, "net") or hasattr(policy, "action_net")):
            raise ValueError(f"{type(policy).__name__} is not an actor-critic policy: hg_env plays those")
        return policy
    return None


def evaluation_table(results: dict[str, EvalResult], style: str = "markdown") -> str:
    """The results of ``evaluate_agent`` as a table (hg_env.tables.render_table)."""
    header = ("opponent", "games", "win rate", "95% interval", "mean score", "opponent's mean score")
    header += ("CPU s per move", "opponent's CPU s per move")
    rows = [
        [
            *(f"`{r.opponent}`", r.games, f"{r.win_rate:.3f}", f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"),
            *(f"{r.mean_score:.1f}", f"{r.mean_opponent_score:.1f}"),
            *("–" if cpu is None else f"{cpu:.4f}" for cpu in (r.cpu_per_move, r.opponent_cpu_per_move)),
        ]
        for r in results.values()
    ]
    return render_table(header, rows, style=style, align="lrrrrrrr")


def main(args) -> int:
    """Entry point of ``hgenv evaluate`` (args from hg_env.cli)."""
    if (args.model is None) == (args.agent is None):
        raise ValueError("give --model (a trained policy's file) or --agent (any agent spec), one of them")
    if not 1 <= args.games <= 1_000_000:
        raise ValueError(f"--games must be 1..1000000, got {args.games}")
    if not 1 <= args.threads <= 256:
        raise ValueError(f"--threads must be 1..256, got {args.threads}")
    if not 0 <= args.seed < 2**63:
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")
    if args.chunk is not None and not 1 <= args.chunk <= 1_000_000:
        raise ValueError(f"--chunk must be 1..1000000 decks, got {args.chunk}")
    if not 1 <= args.workers <= 256:
        raise ValueError(f"--workers must be 1..256, got {args.workers}")
    if args.ray is not None and args.workers > 1:
        raise ValueError("--workers and --ray exclude each other: Ray uses every CPU of its cluster")
    if args.summary_only and args.out is None:
        raise ValueError("--summary-only reports the finished games of a record: give its --out")
    for spec in args.opponents:  # a bad spec is named before any game is played
        make_agent(spec)
    if args.model is not None:
        import torch

        torch.set_num_threads(args.threads)
        if "," in args.model:
            raise ValueError(f"--model {args.model!r}: a model file name may not contain ','")
        agent = make_agent(f"policy:path={args.model}" + (f",ruleset={args.ruleset}" if args.ruleset else ""))
        reach = (agent.board_shape[-1] - 1) // 2  # the board the model was trained on
        ruleset = agent.ruleset or DEFAULT_RULESET
        flags = parse_flags(ruleset, args.flags)
        if flags.pop("board_reach", reach) != reach:
            raise ValueError(
                f"--flag board_reach: {args.model} plays on the board it was trained on, board_reach={reach}"
            )
        rules = Rules(ruleset=ruleset, board_reach=reach, **flags)
        name = args.model
    else:
        ruleset = args.ruleset or DEFAULT_RULESET
        if ruleset not in RULESETS:
            raise ValueError(f"--ruleset must be one of {RULESETS}, got {ruleset!r}")
        rules = Rules(ruleset=ruleset, **parse_flags(ruleset, args.flags))
        agent = make_agent(args.agent, seed=args.seed)
        name = args.agent
        torch = sys.modules.get("torch")  # imported by the agents that think with a network (puct, policy)
        if torch is not None:
            torch.set_num_threads(args.threads)
    where = "" if args.ray is None else f", on Ray ({args.ray or 'a local instance'})"
    if args.chunk is not None:
        where += f", in chunks of {args.chunk} decks"
    if args.summary_only:
        where += f", the finished games of {args.out} so far"
    if not args.json:
        print(f"evaluating {name}: {args.games} games per opponent, seats swapped, seed {args.seed}{where}")
    results = {}
    for spec in args.opponents:
        results[spec] = evaluate(
            agent,
            spec,
            args.games,
            seed=args.seed,
            num_players=args.players,
            rules=rules,
            ray_address=args.ray,
            chunk=args.chunk,
            record=args.out,
            workers=args.workers,
            play=not args.summary_only,
        )
        print(json.dumps(asdict(results[spec])) if args.json else "  " + results[spec].line(), flush=True)
    if not args.json:
        print("\n" + evaluation_table(results), end="")
    return 0
