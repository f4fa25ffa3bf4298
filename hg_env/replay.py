"""Replays of saved games: an animated GIF (one frame per decision), a PNG of one position, or an HTML
viewer (``hg_env.replay_html``).

    hgenv replay games/2024-05-01_120000.json --out game.gif
    hgenv replay games/2024-05-01_120000.json --out board.png [--upto 40]
    hgenv replay games/2024-05-01_120000.json --html game.html [--agent mcts:sims=200]
    hgenv replay results/t1/games.jsonl --html games.html      # an index page and one viewer per game

Records are the JSON game records of ``Game.to_record`` (see ``hg_env.record``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from hg_env.fileio import read_jsonl
from hg_env.game import Game
from hg_env.render import board_bounds, render_rgb

FORMATS = (".gif", ".png")
MIN_FPS, MAX_FPS = 0.01, 100.0  # GIF delays: whole centiseconds, at most 65,535 of them


def load_record(path: str | Path, game: str | None = None, ruleset: str | None = None) -> dict:
    """Read a JSON game record, or game ``game`` of a tournament's ``games.jsonl``.

    ValueError naming the problem (missing file, not JSON, no such game, corrupt record)."""
    path = Path(path)
    if path.suffix == ".jsonl":
        record = _tournament_record(path, game)
    elif game is not None:
        raise ValueError("--game picks a game of a tournament's games.jsonl; this is a single record")
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ValueError(f"no such record file: {path}") from None
        except (OSError, UnicodeDecodeError) as err:
            raise ValueError(f"cannot read record {path}: {err}") from None
        try:
            record = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} is not a JSON game record: {err}") from None
        except RecursionError:
            raise ValueError(f"{path} is not a game record: its JSON is nested too deeply") from None
    Game.from_record(record, ruleset=ruleset)  # validates the whole record (ValueError: corrupt / incompatible)
    return record


def _tournament_record(path: Path, game: str | None) -> dict:
    """The record of one game of a tournament's JSONL results (``hgenv tournament``), by id or index."""
    found = _tournament_games(path)
    if game is None:
        raise ValueError(
            f"{path} holds {len(found)} games: pick one with --game (game ids "
            f"{found[0].get('game')}..{found[-1].get('game')})"
        )
    for entry in found:  # by id ("t0-d3-r1") or by index in the schedule ("7")
        if str(entry.get("game")) == str(game) or str(entry.get("index")) == str(game):
            return entry["record"]
    raise ValueError(f"{path} has no game {game}; game ids run {found[0].get('game')}..{found[-1].get('game')}")


def positions(record: dict, upto: int | None = None) -> Iterator[Game]:
    """The game after each decision of the record (the start position if it has none).

    The same ``Game`` object is yielded each time, one decision further on.
    """
    decisions = record["decisions"] if upto is None else record["decisions"][:upto]
    game = Game.from_record(record, upto=0)
    if not decisions:
        yield game
        return
    for i, entry in enumerate(decisions):
        try:
            game.apply_decision(entry)
        except ValueError as err:
            raise ValueError(f"corrupt record: decision {i} {entry!r} cannot be replayed: {err}") from None
        yield game


def replay_frames(record: dict, tile_px: int = 64, upto: int | None = None) -> Iterator[np.ndarray]:
    """One [H, W, 3] picture per decision, all the same size (framed on the last position)."""
    final = Game.from_record(record, upto=upto)
    bounds = board_bounds(final)
    names = record.get("players")
    for game in positions(record, upto):
        yield render_rgb(game, tile_px=tile_px, bounds=bounds, names=names)


def save_replay(
    record: dict,
    out: str | Path,
    tile_px: int | None = None,
    fps: float = 2.0,
    upto: int | None = None,
) -> int:
    """Write ``out`` (.gif: animation; .png: the position after ``upto`` decisions, default all).

    Returns the number of frames written.
    """
    from hg_env.render import _pil

    out = Path(out)
    # Checked for a PNG too, where it is unused: a bad value never passes silently. GIF delays are
    # whole centiseconds (at most 655.35 s), so 100 frames per second is the finest a GIF can hold.
    number = isinstance(fps, (int, float, np.integer, np.floating)) and not isinstance(fps, (bool, np.bool_))
    if not (number and math.isfinite(fps) and MIN_FPS <= fps <= MAX_FPS):
        raise ValueError(f"fps must be a number {MIN_FPS}..{MAX_FPS} (GIF frames per second), got {fps!r}")
    if out.suffix.lower() not in FORMATS:
        raise ValueError(f"--out must end in .gif (animation) or .png (one position), got {out.name!r}")
    Image, _, _ = _pil()
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".png":
        game = Game.from_record(record, upto=upto)
        picture = render_rgb(game, tile_px=tile_px or 80, names=record.get("players"))
        Image.fromarray(picture).save(out)
        return 1
    # One palette for every frame, taken from the final position (it holds nearly every colour):
    # colours stay steady and unchanged areas compress away. Frames are paletted as they come,
    # because a long game's RGB frames would not fit comfortably in memory.
    pictures = replay_frames(record, tile_px or 64, upto)
    final = Game.from_record(record, upto=upto)
    palette = Image.fromarray(
        render_rgb(final, tile_px=tile_px or 64, bounds=board_bounds(final), names=record.get("players"))
    ).quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    frames = [Image.fromarray(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in pictures]
    step_ms = int(1000 / fps)
    durations = [step_ms] * (len(frames) - 1) + [max(3000, step_ms)]  # linger on the final position
    frames[0].save(out, save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=False)
    return len(frames)


def save_html(
    path: str | Path,
    out: str | Path,
    game: str | None = None,
    ruleset: str | None = None,
    agent: str | None = None,
    seats: list[int] | None = None,
) -> list[Path]:
    """Write the HTML viewer of a record (or of game ``game`` of a tournament's ``games.jsonl``) to ``out``;
    a ``games.jsonl`` without ``game``: an index page at ``out`` and one viewer per game beside it
    (``OUT-STEM.GAME.html``). Returns the files written; ValueError naming the problem, nothing written."""
    from hg_env.agents.base import make_agent
    from hg_env.replay_html import index_html, replay_html

    out = Path(out)
    if out.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"--html must end in .html, got {out.name!r}")
    if agent is not None:
        make_agent(agent)  # a bad spec is refused before any work
    if seats is not None and not all(isinstance(s, int) and 0 <= s < 5 for s in seats):
        raise ValueError(f"--seat must be a seat number 0..4, got {seats}")
    path = Path(path)
    if path.suffix == ".jsonl" and game is None:
        entries = _tournament_games(path)
        for entry in entries:
            Game.from_record(entry["record"], ruleset=ruleset)  # every record checked before writing
        pages = [
            (out.with_name(f"{out.stem}.{_file_part(entry.get('game', i))}.html"), entry)
            for i, entry in enumerate(entries)
        ]
        out.parent.mkdir(parents=True, exist_ok=True)
        for page, entry in pages:
            page.write_text(replay_html(entry["record"], agent, seats), encoding="utf-8")
        out.write_text(index_html(path, entries, [page.name for page, _ in pages]), encoding="utf-8")
        return [out] + [page for page, _ in pages]
    record = load_record(path, game, ruleset=ruleset)
    if seats is not None and any(s >= record["num_players"] for s in seats):
        raise ValueError(f"--seat {max(seats)}: the game has seats 0..{record['num_players'] - 1}")
    text = replay_html(record, agent, seats)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return [out]


def _file_part(name: object) -> str:
    """A game id as part of a file name."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(name))


def _tournament_games(path: Path) -> list[dict]:
    """Every complete game entry of a tournament's ``games.jsonl`` (ValueError when there is none); a last
    line cut short by a kill is left out, with a note on stderr (the tournament replays that game)."""
    if not path.exists():
        raise ValueError(f"no such record file: {path}")
    try:
        entries, cut = read_jsonl(path)
    except OSError as err:
        raise ValueError(f"cannot read record {path}: {err}") from None
    if cut:
        print(
            f"hgenv replay: {path}: the last line is incomplete (a tournament stopped while writing it); "
            "reading the complete games before it",
            file=sys.stderr,
        )
    found = [entry for entry in entries if isinstance(entry, dict) and "record" in entry]
    if not found:
        raise ValueError(f"{path} holds no game records")
    return found


def main(args: argparse.Namespace) -> int:
    """``hgenv replay RECORD [--game ID] --out game.gif|board.png [--upto N] [--fps F] [--tile-px P]``, or
    ``--html out.html [--agent SPEC] [--seat S]``."""
    if getattr(args, "html", None):
        try:
            if args.out or args.upto is not None:
                raise ValueError("--html writes the whole game: use it without --out and --upto")
            if args.agent:  # a search explains every decision it is asked about: minutes for a whole game
                print(f"hgenv replay: asking {args.agent} about the decisions of its seats ...", file=sys.stderr)
            written = save_html(args.record, args.html, args.game, args.ruleset, args.agent, args.seat)
        except (ValueError, ImportError) as err:
            print(f"hgenv replay: {err}", file=sys.stderr)
            return 2
        extra = f" and {len(written) - 1} game pages beside it" if len(written) > 1 else ""
        print(f"wrote {written[0]}{extra}")
        return 0
    if getattr(args, "agent", None):
        print("hgenv replay: --agent explains moves in the HTML viewer: add --html out.html", file=sys.stderr)
        return 2
    game_name = None if args.game is None else _file_part(args.game)
    default = Path(args.record).with_suffix(".gif" if args.game is None else f".game{game_name}.gif")
    out = Path(args.out) if args.out else default
    try:
        if args.upto is not None and args.upto < 0:
            raise ValueError(f"--upto must be 0 or more, got {args.upto}")
        if args.tile_px is not None and not 16 <= args.tile_px <= 512:
            raise ValueError(f"--tile-px must be 16..512, got {args.tile_px}")
        record = load_record(args.record, args.game, ruleset=args.ruleset)
        frames = save_replay(record, out, tile_px=args.tile_px, fps=args.fps, upto=args.upto)
    except (ValueError, ImportError) as err:
        print(f"hgenv replay: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({frames} frame{'' if frames == 1 else 's'})")
    return 0
