"""The ``hgenv`` command line.

Commands (``hgenv <command> --help`` for options)::

    demo        a seeded game between random agents: scoring events and final scores
    agents      the agents of spec strings, their options and defaults
    bench       benchmarks that print numbers: ``bench core`` (batched engine), ``bench env`` (AEC env),
                ``bench agents`` (CPU per decision of agents on the same positions), ``bench values`` (how
                well search leaf values predict the winner)
    tournament  rated round-robin between agents, resumable (needs the [train] extra)
    ladder      an agent's rating on the ruleset's fixed scale; ``ladder build``, ``ladder table``: its reference games
    replay      a saved game record as an animated GIF, a PNG of the board or an HTML viewer
    play        play against agents in the terminal
    serve       play against agents in the browser (needs the [web] extra)
    train       PPO self-play from a config file, resumable (needs the [train] extra)
    evaluate    a trained policy or any agent against fixed agents, seats swapped
    quickstart  set-up check: train configs/quick.toml, rate it in a tournament, draw a final board
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn


def _single_thread() -> None:
    """Benchmarks run on one core (set before numpy loads its BLAS)."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def cmd_demo(args: argparse.Namespace) -> int:
    import numpy as np

    from hg_env.game import Game
    from hg_env.render import describe_event
    from hg_env.rule_flags import game_title, parse_flags

    game = Game(num_players=args.players, seed=args.seed, ruleset=args.ruleset, **parse_flags(args.ruleset, args.flags))
    rng = np.random.default_rng(args.seed)
    print(f"{game_title(game.rules)}: {args.players} random players, seed {args.seed}")
    shown = 0
    while not game.is_over:
        game.step(int(rng.choice(game.legal_actions())))
        for event in game.events[shown:]:
            print("  " + describe_event(event))
        shown = len(game.events)
    print(f"final scores: {game.scores}; winner(s): {game.winners}; decisions: {len(game.history)}")
    return 0


def cmd_agents(args: argparse.Namespace) -> int:
    print(describe_agents(), end="")
    return 0


def describe_agents() -> str:
    """Every registered agent (hg_env.agents.base.REGISTRY): its one-line doc and its options
    (the keyword arguments of its constructor) with their defaults, as a spec takes them, and what
    each means (the agent's own ``option_docs``)."""
    import inspect

    from hg_env.agents.base import REGISTRY, _load_builtin_agents, agent_options

    _load_builtin_agents()
    lines = ["Agents (a spec is name or name:key=value,key=value; e.g. mcts:sims=200):", ""]
    for name, cls in REGISTRY.items():
        doc = inspect.getdoc(cls) or ""
        summary = doc.split("\n\n")[0].replace("\n", " ").replace(" (module docstring)", "")
        lines.append(f"{name:<8} {summary} ({cls.__module__})")
        options = [option for _, option in agent_options(cls)]
        for option in options:
            kind = option.annotation if isinstance(option.annotation, str) else option.annotation.__name__
            default = "(required)" if option.default in ("", inspect.Parameter.empty) else f"= {option.default!r}"
            meaning = cls.option_docs.get(option.name, "(undocumented)")
            lines.append(f"    {option.name:<13} {kind:<10} {default:<12} {meaning}")
        if not options:
            lines.append("    (no options)")
    return "\n".join(lines) + "\n"


def cmd_bench(args: argparse.Namespace) -> int:
    import math

    from hg_env import bench

    if not (math.isfinite(args.seconds) and 0 < args.seconds <= 3600):
        raise ValueError(f"--seconds must be a number in (0, 3600], got {args.seconds}")
    if args.rounds is not None and not 1 <= args.rounds <= 1000:
        raise ValueError(f"--rounds must be 1..1000, got {args.rounds}")
    if args.compare and args.what not in ("core", "train"):
        raise ValueError(f"--compare measures core or train, not {args.what}")
    if args.what == "core" and args.compare:
        rounds = 6 if args.rounds is None else args.rounds
        bench.print_compare(bench.compare(args.compare, seconds=args.seconds, rounds=rounds), args.json)
        return 0
    if args.what == "core":
        bench.print_core(bench.bench_core(seconds=args.seconds, ruleset=args.ruleset), args.json)
        return 0
    if args.what == "calls":
        result = bench.numpy_calls_per_decision(ruleset=args.ruleset)
        print(json.dumps(result) if args.json else f"numpy calls per decision (B = 1, {args.ruleset}): {result}")
        return 0
    if args.what == "env":
        bench.print_env(bench.bench_env(seconds=args.seconds, ruleset=args.ruleset), args.json)
        return 0
    if args.what == "train":
        if args.threads is not None and not 1 <= args.threads <= 256:
            raise ValueError(f"--threads must be 1..256, got {args.threads}")
        if not 1 <= args.steps <= 10**9:
            raise ValueError(f"--steps must be 1..10**9, got {args.steps}")
        module = _train_module("throughput")  # imports torch: after the checks, so a typo is told at once
        if args.compare:
            rounds = 3 if args.rounds is None else args.rounds
            result = module.compare_train(args.compare, steps=args.steps, rounds=rounds, threads=args.threads)
            module.print_compare_train(result, args.json)
        else:
            module.print_train(module.bench_train(steps=args.steps, threads=args.threads), args.json)
        return 0
    if args.what == "agents":
        if not args.agents:
            raise ValueError("bench agents needs --agents SPEC [SPEC ...]")
        result = bench.bench_agents(args.agents, args.games, args.seed, args.ruleset, at_once=args.at_once)
        bench.print_agents(result, args.json)
        return 0
    if args.what == "values":
        agents = args.agents or ["greedy"]
        if len(agents) != 1:
            raise ValueError(f"bench values plays its games with one agent (--agents SPEC), got {len(agents)}")
        scales = tuple(args.look_scales or (10.0, 40.0))
        result = bench.bench_values(args.models, scales, args.games, args.seed, args.ruleset, agents[0])
        bench.print_values(result, args.json)
        return 0
    if args.what == "fingerprint":
        digests = bench.fingerprint(ruleset=args.ruleset)
        print(json.dumps(digests) if args.json else "\n".join(f"{k:<13} {v}" for k, v in digests.items()))
        return 0
    raise SystemExit(f"unknown benchmark {args.what!r}")


def cmd_tournament(args: argparse.Namespace) -> int:
    import importlib.util

    missing = [m for m in ("openskill", "matplotlib", "tqdm") if importlib.util.find_spec(m) is None]
    if missing:
        raise SystemExit(
            f"hgenv tournament needs {', '.join(missing)} from the [train] extra: pip install -e '.[train]'"
        )
    from hg_env.arena import tournament

    try:
        return tournament.main(args)
    except ValueError as err:
        raise SystemExit(f"hgenv tournament: {err}") from None


def cmd_ladder(args: argparse.Namespace) -> int:
    import importlib.util

    if importlib.util.find_spec("openskill") is None:  # the tournament's game loop ranks with it
        _fail("ladder", "needs openskill from the [train] extra: pip install -e '.[train]'")
    from hg_env.arena.ladder import main

    try:
        return main(args)
    except (ValueError, OSError) as err:
        _fail("ladder", str(err))


def _ladder_parser(sub) -> None:
    """``hgenv ladder --agent SPEC``, ``hgenv ladder build``, ``table``, ``pairs`` (hg_env.arena.ladder)."""
    from hg_env.arena.ladder import ALL_RUNG_NAMES, DEFAULT_BUDGET, DEFAULT_GAMES, DEFAULT_GAMES_PER_PAIR

    ray_help = "play the games as Ray tasks: a local Ray instance, or the cluster at ADDRESS (auto, ray://host:10001)"
    lad = sub.add_parser("ladder", help="place an agent on the ruleset's rating scale (random = 0, greedy = 1000)")
    lad.add_argument("--agent", help="agent spec, e.g. policy:path=runs/quick/final_model.zip")
    lad.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games at most")
    lad.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="CPU-minutes of play at most")
    lad.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help=ray_help)
    lad.add_argument("--out", help="folder for games.jsonl, ladder.json, ladder.md (default results/ladder/R/AGENT)")
    lad.add_argument("--seed", type=int, default=1, help="the agent's decks derive from it")
    lad.add_argument(
        "--at-once",
        type=int,
        default=1,
        metavar="N",
        help="play each batch's games in groups of up to N together (a search agent such as puct then "
        "decides them in one call; hgenv tournament --at-once)",
    )
    reference_help = "a reference file of your own instead of the stored one (hg_env/arena/reference/R.jsonl)"
    lad.add_argument("--reference", help=reference_help)
    _ruleset_option(lad)
    lad.set_defaults(func=cmd_ladder, ladder_command=None)
    what = lad.add_subparsers(dest="ladder_command", parser_class=_Parser)
    build = what.add_parser("build", help="play the reference games still missing (resumable, appends as it goes)")
    build.add_argument("--games-per-pair", type=int, default=DEFAULT_GAMES_PER_PAIR, help="adjacent rungs; skips half")
    build.add_argument("--cpu-hours", type=float, default=2.0, help="the plan's CPU budget: costly pairings are cut")
    build.add_argument("--workers", type=int, default=1, help="processes playing games in parallel")
    build.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help=ray_help)
    build.add_argument("--only-stale", action="store_true", help="only the pairings of stale rungs")
    build.add_argument("--rungs", nargs="+", choices=ALL_RUNG_NAMES, help="only these rungs (a small build)")
    build.add_argument("--max-games", type=int, help="stop after this many games (resume later)")
    build.add_argument("--reference", help=reference_help)
    _ruleset_option(build)
    table = what.add_parser("table", help="the rungs' ratings from the stored reference games")
    table.add_argument("--reference", help=reference_help)
    _ruleset_option(table)
    pairs = what.add_parser(
        "pairs", help="win rates with 95%% intervals and CPU per move of the stored pairings (paired decks)"
    )
    pairs.add_argument("--rung", help="only the pairings of this rung, e.g. puct")
    pairs.add_argument("--json", action="store_true", help="one line of JSON per pairing")
    pairs.add_argument("--reference", help=reference_help)
    _ruleset_option(pairs)


def cmd_replay(args: argparse.Namespace) -> int:
    from hg_env import replay

    return replay.main(args)


def cmd_play(args: argparse.Namespace) -> int:
    from hg_env import play

    return play.main(args)


def cmd_serve(args: argparse.Namespace) -> int:
    from hg_env import web

    return web.main(args)


def _train_module(name: str, package: str = "train"):
    """A module of hg_env.train (or hg_env.arena) that needs the [train] extra (torch, sb3-contrib), with a clear
    error without it."""
    import importlib
    import importlib.util

    missing = [m for m in ("torch", "sb3_contrib", "tqdm") if importlib.util.find_spec(m) is None]
    if missing:
        _fail(name, f"needs {', '.join(missing)} from the [train] extra: pip install -e '.[train]'")
    return importlib.import_module(f"hg_env.{package}.{name}")


def _fail(command: str, message: str) -> NoReturn:
    """One line ``hgenv <command>: <message>`` on stderr, exit status 2 (bad input, nothing done)."""
    print(f"hgenv {command}: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(2)


def cmd_train(args: argparse.Namespace) -> int:
    module = _train_module("train")
    try:
        if _is_expert_config(args.config):  # [run] backend = "expert": expert iteration (train/expert.py)
            return _train_module("expert").main(args)
        return module.main(args)
    except (ValueError, OSError, module.CheckpointError) as err:  # ConfigError, TrainingDiverged: ValueErrors
        _fail("train", str(err))


def _is_expert_config(path: str) -> bool:
    """True for a config of expert iteration; a file that cannot be read is left to ``hgenv train``'s own checks."""
    from pathlib import Path

    from hg_env.train.config import ConfigError, read_toml
    from hg_env.train.expert import is_expert_config

    try:
        return is_expert_config(read_toml(Path(path)))
    except ConfigError:
        return False


def cmd_evaluate(args: argparse.Namespace) -> int:
    if args.model is None:  # any agent spec: torch only if the agent needs it
        import importlib

        module = importlib.import_module("hg_env.arena.evaluate")
    else:
        module = _train_module("evaluate", "arena")
    try:
        return module.main(args)
    except (ValueError, OSError) as err:
        _fail("evaluate", str(err))


def cmd_quickstart(args: argparse.Namespace) -> int:
    return _train_module("quickstart").main(args)


def _ruleset_option(parser: argparse.ArgumentParser) -> None:
    from hg_env.core.ruleset import DEFAULT_RULESET, RULESETS

    parser.add_argument(
        "--ruleset", default=DEFAULT_RULESET, choices=RULESETS, help="the game (docs/rules/): %(choices)s"
    )


def _shows_default(action: argparse.Action) -> bool:
    """An option whose default --help should state (None and a flag's False say nothing)."""
    return action.default is not None and action.default is not False and action.default != argparse.SUPPRESS


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Adds "(default: ...)" to every option with a default, unless its help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if not _shows_default(action) or "default" in (action.help or ""):
            return action.help or ""
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """Every hgenv parser and subcommand parser shows the defaults of its options in --help."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if action.help is None and _shows_default(action):  # argparse prints no default without a help text
            action.help = "(default: %(default)s)"
        return action


def build_parser() -> argparse.ArgumentParser:
    from hg_env import __version__
    from hg_env.core.ruleset import DEFAULT_RULESET, get_ruleset, rulesets
    from hg_env.rule_flags import add_flag_option

    # the rulesets found (hg_env/rulesets/, registered ones), each by its own title
    default = {DEFAULT_RULESET: ", the default"}
    listed = "; ".join(f"{name} ({get_ruleset(name).title}{default.get(name, '')})" for name in rulesets())
    parser = _Parser(
        prog="hgenv",
        description="The Carcassonne family of tile-laying games for reinforcement learning: a batched rules "
        "engine, PettingZoo and Gymnasium envs, agents, training, tournaments and pictures. Rulesets "
        f"(--ruleset): {listed}.",
    )
    parser.add_argument("--version", action="version", version=f"hgenv (hg_env) {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    demo = sub.add_parser("demo", help="play a seeded game between random agents and print what scored")
    demo.add_argument("--players", type=int, default=2, choices=range(2, 6), help="players (random agents)")
    demo.add_argument("--seed", type=int, default=0, help="deck and players' seed")
    _ruleset_option(demo)
    add_flag_option(demo)
    demo.set_defaults(func=cmd_demo)
    agents = sub.add_parser("agents", help="list the agents, their options and defaults")
    agents.set_defaults(func=cmd_agents)
    bench = sub.add_parser("bench", help="benchmarks that print numbers")
    bench.add_argument(
        "what", choices=["core", "env", "train", "fingerprint", "calls", "agents", "values"], help="%(choices)s"
    )
    bench.add_argument(
        "--agents",
        nargs="+",
        help="agents: specs deciding the same positions (the first one's games); values: the one agent playing "
        "the games (default greedy)",
    )
    bench.add_argument("--games", type=int, default=2, help="agents, values: games played")
    bench.add_argument(
        "--at-once",
        type=int,
        default=1,
        help="agents: games played together, every agent deciding their positions at once (act_batch) (default: 1)",
    )
    bench.add_argument("--seed", type=int, default=0, help="agents, values: the first game's deck seed and agent seed")
    bench.add_argument(
        "--models", nargs="+", help="values: model files whose networks value the positions (default: the shipped ones)"
    )
    bench.add_argument(
        "--look-scales",
        nargs="+",
        type=float,
        help="values: spreads in points of the lookahead's win values (default: 10 40; puct:look_scale)",
    )
    bench.add_argument("--steps", type=int, default=8192, help="train: learner steps per measurement")
    bench.add_argument(
        "--compare", metavar="REV", help="core, train: also measure git revision REV, interleaved (ratio new/old)"
    )
    _ruleset_option(bench)
    bench.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    bench.add_argument(
        "--rounds",
        type=int,
        help="--compare: rounds, each with a fresh process per tree (default: core 6, train 3)",
    )
    bench.add_argument(
        "--threads", type=int, help="train: torch threads (default: the config's); OMP_WAIT_POLICY is left to you"
    )
    bench.add_argument("--json", action="store_true", help="print one line of JSON")
    bench.set_defaults(func=cmd_bench)
    tour = sub.add_parser("tournament", help="rated round-robin between agents (resumable; hg_env.arena.tournament)")
    tour.add_argument("--agents", nargs="+", required=True, help="agent specs, e.g. random greedy mcts:sims=200")
    tour.add_argument("--players", type=int, default=2, help="players per game, 2..5")
    tour.add_argument("--games", type=int, default=200, help="games per table of agents (all seatings, paired decks)")
    tour.add_argument("--seed", type=int, default=0, help="deck and agent seeds derive from it")
    tour.add_argument("--out", default="results/tournament", help="folder for games.jsonl and the tables")
    tour.add_argument("--workers", type=int, default=1, help="processes playing games in parallel")
    tour.add_argument(
        "--at-once",
        type=int,
        default=1,
        metavar="N",
        help="play the games in groups of up to N (whole decks), each agent deciding all of a group's games "
        "where it is to move in one call: a search agent (puct) then shares its work across them",
    )
    tour.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="play the games as Ray tasks: a local Ray instance, or the cluster at ADDRESS (auto, ray://host:10001)",
    )
    tour.add_argument("--no-plot", action="store_true", help="skip ratings.png")
    tour.add_argument(
        "--explain",
        action="store_true",
        help="store what each agent thought at its decisions in the records (hgenv replay --html draws it)",
    )
    tour.add_argument("--summary-only", action="store_true", help="only rebuild the tables from games.jsonl")
    _ruleset_option(tour)
    add_flag_option(tour)
    tour.set_defaults(func=cmd_tournament)
    _ladder_parser(sub)
    rep = sub.add_parser(
        "replay", help="turn a saved game record into an animated GIF, a PNG of the board or an HTML replay viewer"
    )
    rep.add_argument("record", help="a JSON game record (Game.to_record, hgenv play) or a tournament's games.jsonl")
    rep.add_argument("--game", help="with games.jsonl: the game to replay, by id (t0-d3-r1) or index (7)")
    rep.add_argument("--out", help="game.gif: one frame per decision; board.png: one position (default RECORD.gif)")
    rep.add_argument("--upto", type=int, help="stop after this many decisions (default: all)")
    rep.add_argument("--fps", type=float, default=2.0, help="GIF frames per second, 0.01..100")
    rep.add_argument("--tile-px", type=int, help="pixels per tile (default 64 in a GIF, 80 in a PNG)")
    rep.add_argument("--ruleset", help="refuse a record of another ruleset (default: the record's own)")
    rep.add_argument(
        "--html",
        help="write a self-contained HTML replay viewer here (games.jsonl without --game: an index of its games)",
    )
    rep.add_argument(
        "--agent",
        help="with --html: show what this agent (spec) thought at each decision of its seats, e.g. mcts:sims=200",
    )
    rep.add_argument(
        "--seat",
        type=int,
        action="append",
        help="with --agent: the seat(s) it explains (default: the seats the record names it at, else all)",
    )
    rep.set_defaults(func=cmd_replay)
    play = sub.add_parser("play", help="play against agents in the terminal")
    play.add_argument("--opponents", nargs="+", default=["greedy"], help="agent specs: one for all, or one each")
    play.add_argument("--players", type=int, default=2, choices=range(2, 6))
    play.add_argument("--seat", type=int, default=0, help="your seat; seat 0 plays first")
    play.add_argument("--seed", type=int, help="deck seed (default: a random one, printed)")
    play.add_argument("--record", help="where to save the game record (default games/<timestamp>.json)")
    play.add_argument("--image", help="a PNG file refreshed with the board after every move")
    play.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour the text board")
    play.add_argument(
        "--resume",
        metavar="RECORD",
        help="continue an unfinished game saved by hgenv play (ruleset, "
        "seats, opponents and decks come from the record; it is saved back there unless --record)",
    )
    _ruleset_option(play)
    add_flag_option(play)
    play.set_defaults(func=cmd_play)
    srv = sub.add_parser("serve", help="play against agents in the browser, on a local page (the [web] extra)")
    srv.add_argument("--agents", nargs="+", default=["greedy"], help="agent specs: one for all, or one each")
    srv.add_argument("--players", type=int, default=2, choices=range(2, 6))
    srv.add_argument("--seat", type=int, default=0, help="your seat; seat 0 plays first")
    srv.add_argument("--seed", type=int, help="deck seed of the first game (default: a random one)")
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (another than 127.0.0.1 opens it up)")
    srv.add_argument("--port", type=int, default=8000, help="port to listen on")
    srv.add_argument("--games", default="games", help="folder of the game records (the only files it touches)")
    srv.add_argument(
        "--resume",
        metavar="NAME",
        help="continue the unfinished game saved as NAME (e.g. 20261126-190000.json) in the games folder",
    )
    _ruleset_option(srv)
    add_flag_option(srv)
    srv.set_defaults(func=cmd_serve)
    tr = sub.add_parser(
        "train", help="PPO self-play, or expert iteration (configs/expert.toml), from a config file (train/, configs/)"
    )
    tr.add_argument("--config", required=True, help="a TOML config, e.g. configs/quick.toml")
    tr.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    tr.add_argument("--name", help="override run.name (the run directory)")
    tr.add_argument("--total-timesteps", type=int, help="override run.total_timesteps")
    tr.add_argument("--seed", type=int, help="override run.seed (games, network and PPO)")
    tr.add_argument("--no-progress", action="store_true", help="no progress bars")
    tr.set_defaults(func=cmd_train)
    ev = sub.add_parser("evaluate", help="win rates of a trained policy or any agent against others, seats swapped")
    ev.add_argument("--model", help="a model saved by hgenv train, e.g. runs/default/final_model.zip")
    ev.add_argument("--agent", help="any agent spec instead of --model, e.g. puct or mcts:sims=100 (hgenv agents)")
    ev.add_argument("--opponents", nargs="+", default=["random", "greedy"], help="agent specs")
    ev.add_argument("--games", type=int, default=200, help="games per opponent (each deck from every seat)")
    ev.add_argument("--players", type=int, default=2, choices=range(2, 6), help="players per game")
    ev.add_argument("--seed", type=int, default=0, help="deck seeds derive from it (the same for every opponent)")
    ev.add_argument("--threads", type=int, default=2, help="torch threads")
    ev.add_argument(
        "--ruleset",
        help="the model's ruleset (default: the one in the model file; another is refused); with --agent the game "
        "(default: hg2020)",
    )
    ev.add_argument(
        "--chunk",
        type=int,
        help="play the decks in chunks of this many (players games each, all at once), each chunk's agents seeded "
        "from its first deck (default: all at once; with --ray, --workers or --out 8)",
    )
    ev.add_argument("--workers", type=int, default=1, help="play chunks in this many processes")
    ev.add_argument(
        "--out",
        help="a JSON Lines record of every finished chunk: the same command resumes it, playing only what is missing",
    )
    add_flag_option(ev)
    ev.add_argument("--json", action="store_true", help="one line of JSON per opponent")
    ev.add_argument(
        "--summary-only",
        action="store_true",
        help="play nothing: the result of the finished games of the --out record so far (the same settings)",
    )
    ev.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="play the games as Ray tasks: a local Ray instance, or the cluster at ADDRESS (auto, ray://host:10001)",
    )
    ev.set_defaults(func=cmd_evaluate)
    qs = sub.add_parser("quickstart", help="train configs/quick.toml, rate it against random and greedy, draw a board")
    qs.add_argument("--config", default="configs/quick.toml", help="the training config")
    qs.add_argument("--games", type=int, default=40, help="tournament games per pair of agents")
    qs.add_argument("--out", default="results/quickstart", help="folder for the tournament and the board picture")
    qs.set_defaults(func=cmd_quickstart)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command in ("bench", "tournament", "ladder"):
        _single_thread()
    # torch's OpenMP threads sleep rather than spin while waiting: with two threads on a busy machine
    # spinning made training collapse (~10x slower); set before torch is imported, never overriding the user.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        return args.func(args)
    except ValueError as err:  # bad input: one line naming the problem, exit status 2, no traceback
        print(f"hgenv {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `hgenv demo | head`: the reader left; say nothing more, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by the broken pipe


if __name__ == "__main__":
    sys.exit(main())
