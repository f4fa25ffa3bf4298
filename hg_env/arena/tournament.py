"""Rated round-robin tournaments between agents, resumable, with paired decks.

    hgenv tournament --agents random greedy mcts:sims=200 --players 2 --games 200 --seed 0 --out results/

Schedule
    A *table* is a set of ``--players`` distinct agents; every such set plays
    (all combinations of the listed agents). Each table plays ``--games`` games
    (rounded up to a multiple of ``--players``): deck orders ``d = 0, 1, ...``,
    each replayed once per seating rotation (agent at seat ``s`` moves to seat
    ``s + r``), so every agent meets every deck order from every seat. Deck
    ``d`` is the same order at every table (paired decks cut the variance of
    the comparisons). Games are played deck by deck, all tables in turn, so a
    partial run covers every pairing. Deck and agent seeds derive from
    ``--seed``: a run is reproducible (as long as no agent uses a time budget).

Files in ``--out``
    ``config.json``     the settings and the SHA-256 of each agent's model file; a resumed run must
                        match them (``--games`` may grow): a retrained model is never mixed with the
                        games of the one before
    ``games.jsonl``     one line per finished game, flushed after every game, with
                        scores, ranks, errors, timing and the game record
                        (``Game.to_record``, replay it with ``Game.from_record``);
                        with ``--at-once``, its group (first game, number of games)
    ``summary.md``      ratings, pairwise win rates (95% Wilson intervals), mean scores, time
    ``ratings.csv``, ``winrates.csv``, ``ratings.png``

Parallel games
    ``--workers N`` plays N games at once in processes of this machine; ``--ray
    [ADDRESS]`` plays every game as a Ray task, on a local Ray instance or a
    cluster (hg_env.arena.distributed), writing the same ``games.jsonl`` in
    schedule order.

Games at once
    ``--at-once N`` plays the schedule in groups of whole decks, up to N games
    (every table and seating of those decks; at least one deck), on one
    batched state: at each round every agent decides all the group's games
    where it is to move in one ``act_batch`` call, so a search agent that
    batches across games (``puct``) shares its work among them and its CPU per
    move is what it costs in many games at once. Each agent is reset once per
    group (with its seed in the group's first game it plays), so the games
    differ from those played one at a time, and ``--at-once`` is part of the
    settings a resumed run must match. A call's time counts evenly for every
    game it decided; an agent that raises loses every game of that call.

Resuming
    Run the same command again: finished games are read back from
    ``games.jsonl`` and skipped; a line cut short by a kill is dropped (that
    game is replayed; with ``--at-once``, its whole group, whose finished games
    are not written again). Tables are a pure function of the finished games in
    schedule order, so a resumed run ends with the same tables as an
    uninterrupted one.

Failures
    An agent that raises or returns an illegal action loses that game: it
    ranks last, the others rank by their scores at that moment. The error is
    recorded in the game's line and counted in the tables; the tournament goes on.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
import traceback
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from hg_env.agents.base import Agent, make_agent
from hg_env.arena import ratings
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from hg_env.core.ruleset import RULESETS
from hg_env.fileio import atomic_write_text, read_jsonl
from hg_env.game import Game, check_seed
from hg_env.progress import progress_bar
from hg_env.rule_flags import parse_flags

CONFIG_FILE, GAMES_FILE = "config.json", "games.jsonl"
SUMMARY_EVERY_S = 60.0  # rewrite the tables at most this often while playing


@dataclass(frozen=True)
class TournamentConfig:
    agents: tuple[str, ...]
    players: int = 2
    games: int = 200  # per table, rounded up to a multiple of players
    seed: int = 0
    ruleset: str = "hg2020"  # the game every table plays (docs/rules/)
    flags: dict[str, Any] = field(default_factory=dict)  # its rule flags (--flag NAME=VALUE; Rules checks them)
    at_once: int = 1  # games decided together (--at-once; ``groups``): 1 plays them one at a time

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"--players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {self.players}")
        if len(set(self.agents)) != len(self.agents):
            dup = sorted({a for a in self.agents if self.agents.count(a) > 1})
            raise ValueError(f"agent(s) listed twice: {dup}; every agent spec must be distinct")
        if len(self.agents) < self.players:
            raise ValueError(f"--players {self.players} needs at least {self.players} agents, got {len(self.agents)}")
        if self.games < 1:
            raise ValueError(f"--games must be >= 1, got {self.games}")
        check_seed(self.seed, "--seed")  # deck and agent seeds derive from it: an int 0..2**63-1
        if isinstance(self.at_once, bool) or not isinstance(self.at_once, int) or not 1 <= self.at_once <= 10_000:
            raise ValueError(f"--at-once must be an int 1..10000, got {self.at_once!r}")
        if self.ruleset not in RULESETS:
            raise ValueError(f"--ruleset must be one of {RULESETS}, got {self.ruleset!r}")
        Rules(ruleset=self.ruleset, **self.flags)  # ValueError naming an unknown flag or a bad value

    @property
    def decks(self) -> int:
        """Deck orders per table (each played from every seating rotation)."""
        return math.ceil(self.games / self.players)


@dataclass(frozen=True)
class ScheduledGame:
    index: int  # position in the schedule
    game_id: str  # "t{table}-d{deck}-r{rotation}"
    table: int
    deck: int
    rotation: int
    agents: tuple[str, ...]  # agent spec at each seat
    deck_seed: int
    agent_seeds: tuple[int, ...]
    ruleset: str = "hg2020"
    flags: dict[str, Any] = field(default_factory=dict)  # the rule flags (TournamentConfig.flags)
    explain: bool = False  # store what each agent thought at its decisions (--explain, Agent.explain)


def _derive(*key: int) -> int:
    return int(np.random.SeedSequence([int(k) for k in key]).generate_state(1)[0])


def tables(config: TournamentConfig) -> list[tuple[str, ...]]:
    """Every set of ``players`` distinct agents, in the order the agents are listed."""
    return list(itertools.combinations(config.agents, config.players))


def schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """All games: deck by deck, table by table, rotation by rotation (module docstring)."""
    out = []
    for deck in range(config.decks):
        deck_seed = _derive(config.seed, deck)
        for t, table in enumerate(tables(config)):
            for r in range(config.players):
                seats = tuple(table[(s - r) % config.players] for s in range(config.players))
                seeds = tuple(_derive(config.seed, deck, t, r, s) for s in range(config.players))
                game_id = f"t{t}-d{deck}-r{r}"
                out.append(
                    ScheduledGame(len(out), game_id, t, deck, r, seats, deck_seed, seeds, config.ruleset, config.flags)
                )
    return out


# ---------------------------------------------------------------- one game


def play_game(game_spec: ScheduledGame, agents: dict[str, Agent] | None = None) -> dict:
    """Play one scheduled game; returns its result line (see the module docstring).

    ``agents`` caches built agents by spec between games (each is reset with
    its seed for every game). Agents get a copy of the game as their hook.
    """
    agents = {} if agents is None else agents
    n = len(game_spec.agents)
    game = Game(num_players=n, seed=game_spec.deck_seed, ruleset=game_spec.ruleset, **game_spec.flags)
    seconds, cpu = [0.0] * n, [0.0] * n  # wall-clock and CPU time spent deciding, per seat
    moves = [0] * n  # decisions per seat: CPU seconds per move (hg_env.arena.ladder)
    started, cpu_started = time.perf_counter(), time.process_time()
    seated, error = _seat_agents(game_spec, agents)
    explanations: dict[str, dict] = {}
    while error is None and not game.is_over:
        seat, mask = game.current_player, game.action_mask()
        if game_spec.explain and np.count_nonzero(mask) > 1:  # before its move, outside its clock
            rows = _explain(seated[seat], game)
            if rows is not None:
                explanations[str(len(game.history))] = {"seat": seat, "agent": game_spec.agents[seat], "rows": rows}
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            obs = seat_observation(game, seat) if seated[seat].uses_observation else None
            action = seated[seat].act(obs, mask.copy(), game.copy())
        except Exception as err:
            error = _error(game_spec, seat, len(game.history), _message(err))
            break
        finally:
            seconds[seat] += time.perf_counter() - t0
            cpu[seat] += time.process_time() - c0
            moves[seat] += 1
        error = _illegal(game_spec, game, seat, action, mask)
        if error is not None:
            break
        game.step(int(action))
    wall, cpu_total = time.perf_counter() - started, time.process_time() - cpu_started
    return _result_line(game_spec, game, error, (seconds, cpu, moves), (wall, cpu_total), explanations)


def _result_line(
    game_spec: ScheduledGame,
    game: Game,
    error: dict | None,
    clocks: tuple[list[float], list[float], list[int]],
    whole: tuple[float, float],
    explanations: dict[str, dict],
) -> dict:
    """The result line of a finished game (module docstring): ``clocks`` = (wall seconds, CPU seconds,
    decisions) of each seat's agent, ``whole`` = (wall, CPU) seconds of the whole game, engine included."""
    seconds, cpu, moves = clocks
    ranks = ratings.ranks_from_scores(game.scores, loser=None if error is None else error["seat"])
    meta: dict[str, Any] = {"tournament_game": game_spec.game_id}
    if game_spec.explain:  # hgenv replay --html draws them
        meta["explanations"] = explanations
    return {
        "index": game_spec.index,
        "game": game_spec.game_id,
        "table": game_spec.table,
        "deck": game_spec.deck,
        "rotation": game_spec.rotation,
        "deck_seed": game_spec.deck_seed,
        "agent_seeds": list(game_spec.agent_seeds),
        "agents": list(game_spec.agents),
        "scores": game.scores,
        "ranks": ranks,
        "winners": [s for s, r in enumerate(ranks) if r == 1],
        "error": error,
        "decisions": len(game.history),
        "seconds": round(whole[0], 3),
        "agent_seconds": [round(float(s), 3) for s in seconds],
        "agent_cpu_seconds": [round(float(s), 3) for s in cpu],
        "agent_decisions": [int(m) for m in moves],
        "cpu_seconds": round(whole[1], 3),  # the whole game, engine included
        "record": game.to_record(players=list(game_spec.agents), meta=meta),
    }


def _illegal(game_spec: ScheduledGame, game: Game, seat: int, action: Any, mask: np.ndarray) -> dict | None:
    """The error of ``action`` if it is not a legal action of ``mask`` (None if it is)."""
    in_range = isinstance(action, (int, np.integer)) and 0 <= action < len(mask)
    if in_range and mask[action]:
        return None
    what = f" ({game.describe(int(action))})" if in_range else ""
    return _error(game_spec, seat, len(game.history), f"illegal action {action!r}{what}")


# ---------------------------------------------------------------- games decided together


def groups(planned: list[ScheduledGame], at_once: int) -> list[list[ScheduledGame]]:
    """The schedule in the groups ``play_group`` plays together: whole decks (every table, every
    seating), as many as hold at most ``at_once`` games, at least one. A group depends on the deck
    numbers alone, so it stays the same when ``--games`` grows or a run resumes."""
    per_deck = sum(g.deck == planned[0].deck for g in planned) if planned else 1
    decks = max(1, at_once // per_deck)
    by_block: dict[int, list[ScheduledGame]] = {}
    for game_spec in planned:
        by_block.setdefault(game_spec.deck // decks, []).append(game_spec)
    return list(by_block.values())


def play_group(group: list[ScheduledGame], agents: dict[str, Agent] | None = None) -> Iterator[dict]:
    """Play scheduled games together, yielding each one's result line (``play_game``'s) as it ends.

    Round by round, every agent decides all the games of the group where it is to move in one
    ``act_batch`` call, with the batched state of those games as its hook: an agent that searches
    many games at once (``puct``) shares its work across them. Each agent is reset once, with its
    seed in the first game of the group it plays, so a group plays the same whatever else runs.
    A call's time counts evenly for every game it decided. An agent that raises, or answers with
    the wrong number of actions, loses every game of that call; an illegal action loses its game.
    """
    from hg_env.core.observation import observe
    from hg_env.core.search import plain_copy

    agents = {} if agents is None else agents
    count, players = len(group), len(group[0].agents)
    games = [Game(num_players=players, seed=g.deck_seed, ruleset=g.ruleset, **g.flags) for g in group]
    seconds, cpu = np.zeros((count, players)), np.zeros((count, players))
    moves = np.zeros((count, players), dtype=np.int64)
    own_wall, own_cpu = np.zeros(count), np.zeros(count)  # each game's share of the group's time
    errors: list[dict | None] = [None] * count
    explanations: list[dict[str, dict]] = [{} for _ in range(count)]
    seeded: set[str] = set()
    broken: dict[str, str] = {}  # spec -> why it could not be built: every game it plays loses
    for i, game_spec in enumerate(group):
        for seat, spec in enumerate(game_spec.agents):
            if spec not in seeded and spec not in broken:
                try:
                    if spec not in agents:
                        agents[spec] = make_agent(spec)
                    agents[spec].reset(game_spec.agent_seeds[seat])
                    seeded.add(spec)
                except Exception as err:
                    broken[spec] = _message(err)
            if spec in broken and errors[i] is None:
                errors[i] = _error(game_spec, seat, 0, broken[spec])
    ended = [False] * count
    while True:
        for i in range(count):
            if not ended[i] and (errors[i] is not None or games[i].is_over):
                ended[i] = True
                clocks, whole = (seconds[i], cpu[i], moves[i]), (own_wall[i], own_cpu[i])
                line = _result_line(group[i], games[i], errors[i], clocks, whole, explanations[i])
                # played in a group: its agents were seeded in the group's first game, not by agent_seeds
                yield line | {"group": {"first": group[0].game_id, "games": count}}
        live = [i for i in range(count) if not ended[i]]
        if not live:
            return
        deciding: dict[str, list[int]] = {}
        for i in live:
            deciding.setdefault(group[i].agents[games[i].current_player], []).append(i)
        for spec, rows in deciding.items():
            agent, seats = agents[spec], [games[i].current_player for i in rows]
            masks = np.stack([games[i].action_mask() for i in rows])
            for i, seat, mask in zip(rows, seats, masks):
                if group[i].explain and np.count_nonzero(mask) > 1:  # before its move, outside its clock
                    said = _explain(agent, games[i])
                    if said is not None:
                        explanations[i][str(len(games[i].history))] = {"seat": seat, "agent": spec, "rows": said}
            t0, c0 = time.perf_counter(), time.process_time()
            failure = None
            try:
                state = plain_copy(games[rows[0]].state, np.zeros(len(rows), dtype=np.intp))
                for j, i in enumerate(rows[1:], 1):
                    state.put(np.array([j]), games[i].state)
                obs = observe(state, np.arange(len(rows)), np.asarray(seats)) if agent.uses_observation else None
                actions = np.asarray(agent.act_batch(obs, masks.copy(), state))
                if actions.shape != (len(rows),):
                    failure = f"act_batch answered {actions.shape} actions for {len(rows)} games"
            except Exception as err:
                failure = _message(err)
            wall, used = (time.perf_counter() - t0) / len(rows), (time.process_time() - c0) / len(rows)
            for j, (i, seat) in enumerate(zip(rows, seats)):
                seconds[i, seat] += wall
                cpu[i, seat] += used
                moves[i, seat] += 1
                own_wall[i] += wall
                own_cpu[i] += used
                error = _error(group[i], seat, len(games[i].history), failure) if failure else None
                error = error or _illegal(group[i], games[i], seat, actions[j].item(), masks[j])
                if error is not None:
                    errors[i] = error
                    continue
                t1, c1 = time.perf_counter(), time.process_time()
                games[i].step(int(actions[j]))
                own_wall[i] += time.perf_counter() - t1
                own_cpu[i] += time.process_time() - c1


EXPLAINED_MOVES = 8  # the moves --explain keeps of each decision


def _explain(agent: Agent, game: Game) -> list[dict] | None:
    """``agent.explain`` of the position (None for an agent that cannot explain, or fails to)."""
    try:
        return agent.explain(game.copy(), EXPLAINED_MOVES)
    except NotImplementedError:
        return None


def _seat_agents(game_spec: ScheduledGame, agents: dict[str, Agent]) -> tuple[list[Agent], dict | None]:
    """The agent of every seat, reset with its seed; an agent that cannot be built loses the game."""
    seated = []
    for seat, spec in enumerate(game_spec.agents):
        try:
            if spec not in agents:
                agents[spec] = make_agent(spec)
            agents[spec].reset(game_spec.agent_seeds[seat])
        except Exception as err:
            return [], _error(game_spec, seat, 0, _message(err))
        seated.append(agents[spec])
    return seated, None


def _error(game_spec: ScheduledGame, seat: int, decision: int, message: str) -> dict:
    return {"seat": seat, "agent": game_spec.agents[seat], "decision": decision, "message": message}


def _message(err: BaseException) -> str:
    tail = traceback.format_exception(type(err), err, err.__traceback__)[-3:]
    return f"{type(err).__name__}: {err}\n" + "".join(tail)


def seat_observation(game: Game, seat: int) -> np.ndarray:
    """What an agent that reads observations (``Agent.uses_observation``) sees of ``game`` from ``seat``."""
    from hg_env.core.observation import observe

    return observe(game.state, np.array([0]), np.array([seat]))[0]


# ---------------------------------------------------------------- results on disk


def read_results(path: Path) -> list[dict]:
    """The finished games of a ``games.jsonl``; a last line cut short by a kill is ignored
    (that game is simply played again)."""
    return read_jsonl(path)[0]


def _rewrite(path: Path, results: list[dict]) -> None:
    """Replace the results file atomically (drops a cut-off last line before appending)."""
    atomic_write_text(path, "".join(json.dumps(r) + "\n" for r in results))


def _check_config(out: Path, config: TournamentConfig, models: dict[str, str]) -> None:
    """The settings in ``out`` are this run's, and every agent plays the model file its games there were
    played with (``models``: spec -> SHA-256, agents with a model file only; configs from before the pins
    have none to compare); then writes them."""
    path = out / CONFIG_FILE
    mine = asdict(config)
    mine["agents"] = list(config.agents)
    mine["models"] = models
    if path.exists():
        try:
            theirs = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ValueError(f"{path} is damaged ({err}); delete it (the settings are written again)") from None
        if not isinstance(theirs, dict):
            raise ValueError(f"{path} is damaged (not a JSON object); delete it (the settings are written again)")
        theirs.setdefault("ruleset", "hg2020")  # tournaments from before rulesets
        theirs.setdefault("flags", {})  # and from before rule flags
        theirs.setdefault("at_once", 1)  # and from before --at-once
        differ = [k for k in ("agents", "players", "seed", "ruleset", "flags", "at_once") if theirs.get(k) != mine[k]]
        if differ:
            detail = ", ".join(f"{k}: {theirs.get(k)!r} there, {mine[k]!r} now" for k in differ)
            raise ValueError(f"{out} holds a tournament with other settings ({detail}); use another --out")
        pinned = theirs.get("models") if isinstance(theirs.get("models"), dict) else {}
        changed = [spec for spec in config.agents if spec in pinned and pinned[spec] != models.get(spec)]
        if changed:
            raise ValueError(
                f"{out} holds games of {', '.join(map(repr, changed))} played with another model file (SHA-256 "
                f"{pinned[changed[0]]!r} there, {models.get(changed[0])!r} now); use another --out"
            )
    atomic_write_text(path, json.dumps(mine, indent=2) + "\n")


def write_summary(out: Path, config: TournamentConfig, results: list[dict], plot: bool = True) -> ratings.Summary:
    """Write summary.md, ratings.csv, winrates.csv (and ratings.png) from the finished games."""
    summary = ratings.summarize(results, config.agents)
    title = f"Tournament: {config.players} players, seed {config.seed}"
    (out / "summary.md").write_text(ratings.markdown(summary, title), encoding="utf-8")
    (out / "ratings.csv").write_text(ratings.ratings_csv(summary), encoding="utf-8")
    (out / "winrates.csv").write_text(ratings.winrates_csv(summary), encoding="utf-8")
    if plot and results:
        ratings.plot(summary, str(out / "ratings.png"))
    return summary


# ---------------------------------------------------------------- running


_WORKER_AGENTS: dict[str, Agent] = {}


def _play_in_worker(work: ScheduledGame | list[ScheduledGame]) -> dict | list[dict]:
    """One game's result line, or a group's (``play_group``), in a worker process or Ray task."""
    if isinstance(work, list):
        return list(play_group(work, _WORKER_AGENTS))
    return play_game(work, _WORKER_AGENTS)


def _results(
    todo: list[ScheduledGame] | list[list[ScheduledGame]],
    workers: int,
    ray_address: str | None,
    agents: dict[str, Agent] | None = None,
) -> Iterator[dict]:
    """Result lines of ``todo``: scheduled games played one at a time, or groups played together.
    ``agents``: built agents by spec, kept between games when they are played in this process."""
    if ray_address is not None:
        from hg_env.arena import distributed

        yield from distributed.tournament_results(todo, ray_address)
        return
    if workers <= 1:
        agents = {} if agents is None else agents
        for work in todo:
            if isinstance(work, list):
                yield from play_group(work, agents)
            else:
                yield play_game(work, agents)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # no fork: agents may hold torch threads
    with ctx.Pool(workers) as pool:
        for done in pool.imap_unordered(_play_in_worker, todo):
            yield from done if isinstance(done, list) else [done]


def run_tournament(
    config: TournamentConfig,
    out: str | Path,
    workers: int = 1,
    progress: bool = True,
    plot: bool = True,
    max_games: int | None = None,
    ray_address: str | None = None,
    explain: bool = False,
) -> ratings.Summary:
    """Play the scheduled games not yet in ``out``, writing each as it finishes; then the tables.

    ``max_games`` stops after that many new games (the rest can be resumed). ``ray_address``
    plays them as Ray tasks ("" for a local Ray instance; hg_env.arena.distributed). ``explain``
    stores in each record's meta what every agent thought at its decisions (``Agent.explain``; not
    timed with its moves), which ``hgenv replay --html`` draws.
    """
    if ray_address is not None and workers > 1:
        raise ValueError("--workers and --ray exclude each other: Ray uses every CPU of its cluster")
    out = _check_out(out)
    if ray_address:  # a malformed or silent address fails here, not after a long wait inside ray.init
        from hg_env.arena import distributed

        distributed.check_address(ray_address)
    models = check_agents(config)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--out {out}: cannot create the folder ({err.strerror or err})") from None
    _check_config(out, config, models)
    games_path = out / GAMES_FILE
    planned = schedule(config)
    by_id = {g.game_id: g for g in planned}
    results = []
    for r in read_results(games_path):
        spec = by_id.get(r.get("game"))
        if spec is not None and r.get("agents") != list(spec.agents):
            raise ValueError(
                f"{games_path}: game {r['game']} was played by {r['agents']}, the schedule says {spec.agents}"
            )
        results.append(r)
    _rewrite(games_path, results)
    finished = {r["game"] for r in results}
    todo: list[ScheduledGame] | list[list[ScheduledGame]]
    if config.at_once > 1:  # a group with a missing game is played whole (its games play as one), the rest kept
        todo = [
            [replace(g, explain=explain) for g in group]
            for group in groups(planned, config.at_once)
            if any(g.game_id not in finished for g in group)
        ]
    else:
        todo = [replace(g, explain=explain) for g in planned if g.game_id not in finished]
        if max_games is not None:
            todo = todo[:max_games]
    in_schedule = [r for r in results if r["game"] in by_id]
    bar = progress_bar(  # a log file gets plain lines, no redraws
        total=len(planned),
        initial=sum(g.game_id in finished for g in planned),
        unit="game",
        desc="tournament",
        disable=not progress,
        dynamic_ncols=True,
        mininterval=0.5,
    )
    last_summary = time.monotonic()
    try:
        with games_path.open("a", encoding="utf-8") as f:
            new = 0
            for result in _results(todo, workers, ray_address):
                if result["game"] in finished:  # replayed with its group: kept as it was
                    continue
                if max_games is not None and new >= max_games:
                    break
                new += 1
                f.write(json.dumps(result) + "\n")
                f.flush()
                os.fsync(f.fileno())
                in_schedule.append(result)
                bar.update(1)
                bar.set_postfix_str(_short(result), refresh=False)
                if time.monotonic() - last_summary > SUMMARY_EVERY_S:
                    write_summary(out, config, in_schedule, plot=False)
                    last_summary = time.monotonic()
    finally:
        bar.close()
        write_summary(out, config, in_schedule, plot=plot)
    return ratings.summarize(in_schedule, config.agents)


def check_agents(config: TournamentConfig) -> dict[str, str]:
    """Build every agent and check it can play this game before any game is played: a policy of
    another ruleset or board would otherwise lose every one of its games as an error. Returns the
    SHA-256 of each agent's model file (``ladder.model_pin``), for the agents that have one."""
    from hg_env.arena.ladder import model_pin

    game = Game(num_players=config.players, seed=0, ruleset=config.ruleset, **config.flags)
    board = seat_observation(game, 0).shape
    models = {}
    for spec in config.agents:
        agent = make_agent(spec)  # ValueError naming a bad spec or an unreadable model
        plays = getattr(agent, "ruleset", None)
        if plays is not None and plays != config.ruleset:
            raise ValueError(
                f"agent {spec!r} plays ruleset {plays!r}, but this tournament plays {config.ruleset!r} (--ruleset)"
            )
        reads = getattr(agent, "board_shape", None)
        if agent.uses_observation and reads is not None and tuple(reads) != board:
            raise ValueError(
                f"agent {spec!r} reads boards of shape {tuple(reads)}, but this tournament's board "
                f"(board_reach {game.rules.reach}) gives {board}: play it with --flag board_reach=... "
                "as it was trained"
            )
        sha = model_pin(agent, config.ruleset)
        if sha is not None:
            models[spec] = sha
    return models


def _check_out(out: str | Path) -> Path:
    """``--out`` is a folder (or not there yet): the tournament writes games.jsonl and its tables in it."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(
            f"--out {out} is a file, not a folder: the tournament writes games.jsonl and its tables in a folder"
        )
    return out


def _short(result: dict) -> str:
    parts = [f"{a.split(':')[0]} {s}" for a, s in zip(result["agents"], result["scores"])]
    return " – ".join(parts) + (" (error)" if result["error"] else "")


def main(args) -> int:
    """Entry point of ``hgenv tournament`` (args from hg_env.cli)."""
    config = TournamentConfig(
        agents=tuple(args.agents),
        players=args.players,
        games=args.games,
        seed=args.seed,
        ruleset=args.ruleset,
        flags=parse_flags(args.ruleset, args.flags),
        at_once=args.at_once,
    )
    out = _check_out(args.out)
    if args.summary_only:
        results = read_results(out / GAMES_FILE)
        write_summary(out, config, results, plot=not args.no_plot)
        print((out / "summary.md").read_text(encoding="utf-8"))
        return 0
    planned = len(schedule(config))
    where = "" if args.ray is None else f" on Ray ({args.ray or 'a local instance'})"
    together = f", up to {config.at_once} at once" if config.at_once > 1 else ""
    print(
        f"tournament: {len(tables(config))} table(s) x {config.decks * config.players} games "
        f"({config.decks} decks x {config.players} seatings) = {planned} games{where}{together} -> {out}"
    )
    try:
        run_tournament(
            config,
            out,
            workers=args.workers,
            plot=not args.no_plot,
            ray_address=args.ray,
            explain=getattr(args, "explain", False),
        )
    except KeyboardInterrupt:
        done = len(read_results(out / GAMES_FILE))
        print(f"\ninterrupted: {done} finished games are kept in {out / GAMES_FILE}; run the same command to resume")
        return 130
    print((out / "summary.md").read_text(encoding="utf-8"))
    return 0
