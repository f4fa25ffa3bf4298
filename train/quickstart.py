"""``hgenv quickstart`` (``make run``): train a small policy, rate it, draw one of its games.

1. ``hgenv train --config configs/quick.toml`` (a few minutes on two CPU cores; a
   finished run in ``runs/quick`` is reused, an interrupted one resumed);
2. a rated tournament (hg_env.arena.tournament) between ``random``, ``greedy`` and the
   trained ``policy:path=runs/quick/final_model.zip``, two players, seats swapped;
3. prints the rating table and where ``ratings.png`` and ``final_board.png`` (the
   final board of the policy's last tournament game against greedy) were written;
4. ends with the trained agent's final evaluation, the figure the README quotes
   (``quickstart-eval``): the training run's ``final_eval.json``, ``eval.final_games``
   games against each of ``eval.opponents``, seats swapped.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from hg_env.arena import tournament
from hg_env.figures import percent, quickstart_eval
from hg_env.train.config import load_config
from hg_env.train.train import checkpoint_paths, train


def main(args) -> int:
    """Entry point of ``hgenv quickstart`` (args from hg_env.cli)."""
    started = time.perf_counter()
    config = load_config(args.config)
    run_dir = Path(config.run.out_dir) / config.run.name
    model = run_dir / "final_model.zip"
    if model.exists():
        print(f"[1/3] using the trained policy {model} (delete {run_dir} to train it again)", flush=True)
    else:
        resume = bool(checkpoint_paths(run_dir))
        print(f"[1/3] {'resuming' if resume else 'training'} {args.config} -> {run_dir}", flush=True)
        train(config, resume=resume)

    out = Path(args.out)
    policy = f"policy:path={model}"
    agents = ("random", "greedy", policy)
    print(f"[2/3] rating tournament: {', '.join(agents)}; {args.games} games per pair -> {out}", flush=True)
    setup = tournament.TournamentConfig(
        agents=agents, players=2, games=args.games, seed=0, ruleset=config.env.ruleset, flags=dict(config.env.rules)
    )
    summary = tournament.run_tournament(setup, out)

    print("[3/3] results", flush=True)
    print(f"Rating tournament ({args.games} games per pair; its win rates are these games', not the evaluation below):")
    print((out / "summary.md").read_text(encoding="utf-8"))
    board = draw_final_board(out, policy)
    print(f"ratings plot:      {out / 'ratings.png'}")
    print(f"final board:       {board}")
    print(f"all games:         {out / tournament.GAMES_FILE} (hgenv replay {out / tournament.GAMES_FILE} --game ID)")
    print(f"training logs:     tensorboard --logdir {run_dir / 'tensorboard'}")
    best = summary.rows[0].agent
    print(f"best rated: {best}; quickstart took {time.perf_counter() - started:.0f} s")
    print()
    print("\n".join(final_evaluation(run_dir)), flush=True)  # last: the figure the README quotes
    return 0


def final_evaluation(run_dir: Path) -> list[str]:
    """The closing lines: the trained agent's final evaluation, as its training run wrote it
    (``final_eval.json``), one line per opponent and, last, the README's ``quickstart-eval`` text."""
    path = run_dir / "final_eval.json"
    if not path.exists():
        return [f"Evaluation of the trained agent: none ({path} is missing: the config's eval.final_games is 0)"]
    final = json.loads(path.read_text(encoding="utf-8"))
    lines = [f"Evaluation of the trained agent ({path}, seats swapped):"]
    for spec, r in final.items():
        lines.append(
            f"  vs {spec}: won {percent(r['win_rate'], r['ci_low'], r['ci_high'])} of {r['games']} games, "
            f"mean score {r['mean_score']:.1f} vs {r['mean_opponent_score']:.1f}"
        )
        if r.get("warning"):
            lines.append(f"  {r['warning']}")
    lines.append(f"quickstart evaluation: {quickstart_eval(final)}")
    return lines


def draw_final_board(out: Path, policy: str) -> Path:
    """PNG of the final board of the policy's last tournament game against greedy; its panel names the
    agent of each seat by the seat's colour (``P0 (policy)``)."""
    from hg_env.game import Game
    from hg_env.render import PLAYER_COLOR_NAMES, render_rgb, save_image

    results = tournament.read_results(out / tournament.GAMES_FILE)
    games = [r for r in results if policy in r["agents"] and "greedy" in r["agents"]] or results
    last = max(games, key=lambda r: r["index"])
    game = Game.from_record(last["record"])
    labels = [agent.split(":")[0] for agent in last["agents"]]  # seat by seat: policy, greedy
    path = out / "final_board.png"
    save_image(render_rgb(game, names=labels), str(path))
    (out / "final_board.json").write_text(json.dumps(last["record"]) + "\n", encoding="utf-8")
    seats = ", ".join(
        f"P{seat} {label} ({PLAYER_COLOR_NAMES[seat]}) {score}"
        for seat, (label, score) in enumerate(zip(labels, last["scores"]))
    )
    print(f"final board of game {last['game']}: {seats}")
    return path
