"""``hgenv serve``: play a game against agents in the browser (needs the [web] extra: starlette, uvicorn).

    hgenv serve --ruleset carcassonne --agents greedy            # then open http://127.0.0.1:8000
    hgenv serve --resume 20261126-190000.json --games games      # continue a saved game

``hg_env.web.server.GameServer`` is the game (one human against agents, the record saved in the games folder
after every move); ``hg_env.web.app`` is the Starlette app and its JSON API; ``static/`` is the page.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys


def main(args: argparse.Namespace) -> int:
    """``hgenv serve``: see the module docstring."""
    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise ValueError(f"needs {' and '.join(missing)} from the [web] extra: pip install -e '.[web]'")
    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    from hg_env.rule_flags import parse_flags
    from hg_env.web.app import serve
    from hg_env.web.server import GameServer

    if args.resume and args.flags:
        raise ValueError("--flag cannot change a resumed game: its rules come from the record")
    server = GameServer(
        args.games,
        opponents=args.agents,
        num_players=args.players,
        seat=args.seat,
        seed=args.seed,
        ruleset=args.ruleset,
        rule_flags=parse_flags(args.ruleset, args.flags),
        resume=args.resume,
    )
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"hgenv serve: {server.state()['title']} at http://{host}:{args.port}/ (Ctrl-C stops)", file=sys.stderr)
    print(f"  games saved in {server.folder}; this one: {server.session.record_path.name}", file=sys.stderr)
    serve(server, host=args.host, port=args.port)
    return 0
