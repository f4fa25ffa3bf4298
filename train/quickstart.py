"""``hgenv quickstart`` (``make run``): train a small policy, rate it, draw one of its games.

1. ``hgenv train --config configs/quick.toml`` (a few minutes on two CPU cores; a
   finished run in ``runs/quick`` is reused, an interrupted one resumed);
2. a rated tournament (hg_env.arena.tournament) between ``random``, ``greedy`` and the
   trained ``policy:path=runs/quick/final_model.zip``, two players, seats swapped;
3. prints the rating table and where ``ratings.png`` and ``final_board.png`` (the
   final board of the policy's last tournament game against greedy) were written.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from hg_env.train.config import load_config
from hg_env.train.train import checkpoint_paths, train

from hg_env.arena import tournament


def main(args) -> int:
    """Entry point of ``hgenv quickstart`` (args from hg_env.cli)."""
    started = time.perf_counter()
    config = load_config(args.config)
    run_dir = Path(config.run.out_dir) / config.run.name
    model = run_dir / "final_model.zip"
    if model.exists():
        print(f"[1/3] using the trained policy {model} (delete {run_dir} to train it again)")
    else:
        resume = bool(checkpoint_paths(run_dir))
        print(f"[1/3] {'resuming' if resume else 'training'} {args.config} -> {run_dir}")
        train(config, resume=resume)

    out = Path(args.out)
    policy = f"policy:path={model}"
    agents = ("random", "greedy", policy)
    print(f"[2/3] tournament: {', '.join(agents)}; {args.games} games per pair -> {out}")
    setup = tournament.TournamentConfig(agents=agents, players=2, games=args.games, seed=0, ruleset=config.env.ruleset)
    summary = tournament.run_tournament(setup, out)

    print("[3/3] results")
    print((out / "summary.md").read_text(encoding="utf-8"))
    board = draw_final_board(out, policy)
    print(f"ratings plot:      {out / 'ratings.png'}")
    print(f"final board:       {board}")
    print(f"all games:         {out / tournament.GAMES_FILE} (hgenv replay {out / tournament.GAMES_FILE} --game ID)")
    print(f"training logs:     tensorboard --logdir {run_dir / 'tensorboard'}")
    best = summary.rows[0].agent
    print(f"best rated: {best}; quickstart took {time.perf_counter() - started:.0f} s")
    return 0


def draw_final_board(out: Path, policy: str) -> Path:
    """PNG of the final board of the policy's last tournament game against greedy."""
    from PIL import Image

    from hg_env.game import Game

    results = tournament.read_results(out / tournament.GAMES_FILE)
    games = [r for r in results if policy in r["agents"] and "greedy" in r["agents"]] or results
    last = max(games, key=lambda r: r["index"])
    game = Game.from_record(last["record"])
    path = out / "final_board.png"
    Image.fromarray(game.render("rgb_array")).save(path)
    (out / "final_board.json").write_text(json.dumps(last["record"]) + "\n", encoding="utf-8")
    seats = ", ".join(f"{a.split(':')[0]} {s}" for a, s in zip(last["agents"], last["scores"]))
    print(f"final board of game {last['game']}: {seats}")
    return path
