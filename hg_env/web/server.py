"""The game behind ``hgenv serve``: one human against agents, saved after every move (no web framework here).

``GameServer`` holds a ``hg_env.play.Session`` (the terminal game's agents, seats, names, move words and
event lines) and answers the JSON API of ``hg_env.web.app``: the state for the page, a human move, one agent
move, new and resumed games. Every move is checked against the game's legal actions before anything changes;
a bad request raises ``RequestError`` (a one-line message and an HTTP status) and leaves the game as it was.
Records are read and written only inside the games folder, under plain file names.
"""

from __future__ import annotations

import io
import json
import os
import re
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from hg_env.core.ruleset import DEFAULT_RULESET
from hg_env.game import Game, check_action
from hg_env.play import Session, describe_move, describe_phase, parse_move
from hg_env.render import PLAYER_COLOR_NAMES, PLAYER_COLORS
from hg_env.rule_flags import game_title

# A record name: a plain file name in the games folder (no folders, no "..", no hidden files).
RECORD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.json")
MAX_LOG_LINES = 2000  # the page shows the latest lines; a game has a few hundred


class RequestError(ValueError):
    """A request the server refuses, with the HTTP status to answer; nothing was changed."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class _Log(io.TextIOBase):
    """The lines a ``Session`` says (moves and scoring events), kept for the page."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *done, self._partial = (self._partial + text).split("\n")
        self.lines += [line for line in done if line.strip()]
        del self.lines[:-MAX_LOG_LINES]
        return len(text)


class GameServer:
    """One game at a time in ``folder``; a new game takes the settings given here. Thread-safe."""

    def __init__(
        self,
        folder: str | Path = "games",
        opponents: list[str] | tuple[str, ...] = ("greedy",),
        num_players: int = 2,
        seat: int = 0,
        seed: int | None = None,
        ruleset: str = DEFAULT_RULESET,
        rule_flags: dict[str, Any] | None = None,
        resume: str | None = None,
    ) -> None:
        """``resume``: the name of a record in ``folder`` to continue instead of starting a game.
        ValueError naming the problem for bad settings or a record that cannot be resumed."""
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.settings = {
            "opponents": list(opponents),
            "num_players": num_players,
            "seat": seat,
            "ruleset": ruleset,
            "rule_flags": dict(rule_flags or {}),
        }
        self.lock = threading.Lock()
        if resume is not None:
            self.resume(resume)
        else:
            self.new_game(seed)

    # ------------------------------------------------------------ games and records

    def record_path(self, name: object) -> Path:
        """The file of record ``name`` inside the games folder; RequestError for anything else."""
        if not isinstance(name, str):
            raise RequestError(f"a record name is a string, got {type(name).__name__}")
        if not RECORD_NAME.fullmatch(name) or ".." in name:
            raise RequestError(
                f"bad record name {name[:120]!r}: a file name in the games folder such as 20261126-190000.json "
                "(letters, digits, '.', '_', '-'; no folders)"
            )
        path = (self.folder / name).resolve()
        if path.parent != self.folder:  # a link that leads out of the folder
            raise RequestError(f"record {name!r} is not inside the games folder", 403)
        return path

    def new_game(self, seed: int | None = None) -> None:
        """A new game with the server's settings, saved at once under a fresh name."""
        s = self.settings
        log = _Log()
        session = Session(
            s["opponents"],
            num_players=s["num_players"],
            seat=s["seat"],
            seed=seed,
            record_path=self._fresh_path(),
            out=log,
            ruleset=s["ruleset"],
            rule_flags=s["rule_flags"],
        )
        self._start(session, log, f"New game: {game_title(session.game.rules)}, seed {session.seed}.")

    def resume(self, name: object) -> None:
        """Continue the unfinished game saved as ``name`` in the games folder (it is saved back there)."""
        path = self.record_path(name)
        if not path.is_file():
            raise RequestError(f"no record {name!r} in the games folder", 404)
        log = _Log()
        try:
            session = Session.resume(path, out=log)
        except ValueError as err:
            raise RequestError(f"cannot resume {name}: {err}".replace(str(path), str(name)), 409) from None
        self._start(session, log, f"Resumed {name} after {len(session.game.history)} decisions.")

    def _start(self, session: Session, log: _Log, first_line: str) -> None:
        self.session, self.log = session, log
        log.write(first_line + "\n")
        for s in range(session.game.num_players):
            log.write(f"  {session.who(s)} plays {PLAYER_COLOR_NAMES[s]}\n")
        self._save()

    def _fresh_path(self) -> Path:
        """``<date>-<time>.json`` in the folder, never an existing file."""
        stem = f"{datetime.now():%Y%m%d-%H%M%S}"
        path, n = self.folder / f"{stem}.json", 1
        while path.exists():
            n += 1
            path = self.folder / f"{stem}-{n}.json"
        return path

    def _save(self) -> None:
        """The record, written whole (a reader never sees half a file)."""
        session = self.session
        record = session.game.to_record(players=session.names, meta={"mode": "serve", "human_seat": session.seat})
        partial = session.record_path.with_name(session.record_path.name + ".partial")
        partial.write_text(json.dumps(record), encoding="utf-8")
        os.replace(partial, session.record_path)

    def games(self) -> list[dict]:
        """The records in the games folder, newest first: name, ruleset, players, decisions, scores, over."""
        out = []
        for path in sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
            if not RECORD_NAME.fullmatch(path.name) or path.resolve().parent != self.folder:
                continue
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
                item = {
                    "name": path.name,
                    "ruleset": record.get("ruleset"),
                    "players": record.get("players"),
                    "decisions": len(record.get("decisions") or []),
                    "scores": record.get("scores"),
                    "over": bool(record.get("is_over")),
                }
            except (OSError, ValueError, AttributeError, TypeError, RecursionError):
                item = {"name": path.name, "error": "not a readable game record"}
            out.append(item)
        return out

    def record(self, name: object) -> dict:
        """The saved record ``name`` (for download, ``hgenv replay``)."""
        path = self.record_path(name)
        if not path.is_file():
            raise RequestError(f"no record {name!r} in the games folder", 404)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            raise RequestError(f"record {name!r} is not a readable JSON game record", 422) from None

    # ------------------------------------------------------------ the page's view

    @property
    def game(self) -> Game:
        return self.session.game

    def your_turn(self) -> bool:
        return not self.game.is_over and self.game.current_player == self.session.seat

    def state(self) -> dict:
        """Everything the page draws, except the board picture (``board_svg``)."""
        game, session = self.game, self.session
        regular, extra = game.deck_sizes
        players = []
        for s in range(game.num_players):
            kinds = [kind.name for kind in game.rules.spec.occupants]
            players.append(
                {
                    "seat": s,
                    "name": session.who(s),
                    "color": "rgb({},{},{})".format(*PLAYER_COLORS[s]),
                    "score": game.scores[s],
                    "supply": dict(zip(kinds, game.supply(s))),
                    "human": s == session.seat,
                }
            )
        moves = []
        if self.your_turn() and game.phase != "place":  # placements: the page's legal cells
            moves = [
                {"action": a, "move": list(game.layout.decode(a)), "text": describe_move(game, a)}
                for a in game.legal_actions()
            ]
        last = None
        if game.history:
            last = list(game.rules.board.xy(int(game.state.last_cell[0])))
        return {
            "title": game_title(game.rules),
            "ruleset": game.ruleset,
            "record": session.record_path.name,
            "decisions": len(game.history),
            "players": players,
            "occupant_kinds": [kind.name for kind in game.rules.spec.occupants],
            "seat": session.seat,
            "current": None if game.is_over else game.current_player,
            "phase": game.phase,
            "prompt": describe_phase(game) if self.your_turn() else "",
            "your_turn": self.your_turn(),
            "over": game.is_over,
            "winners": game.winners,
            "tile_to_place": game.tile_to_place,
            "tiles_left": {
                "regular": regular,
                **({game.rules.spec.extra_deck: extra} if game.rules.spec.extra_deck else {}),
            },
            "placements": [list(p) for p in game.legal_placements()] if self.your_turn() else [],
            "moves": moves,
            "last_tile": last,
            "log": self.log.lines[-200:],
        }

    def board_svg(self) -> str:
        """The board (``hg_env.svg.board_svg``): legal cells while the human places, the zones of the tile just
        placed while the human chooses an occupant."""
        from hg_env.svg import board_svg

        game = self.game
        yours = self.your_turn()
        zones_of = None
        if yours and game.phase != "place" and game.history:
            zones_of = tuple(game.rules.board.xy(int(game.state.last_cell[0])))
        return board_svg(game, legal_cells=yours and game.phase == "place", zones_of=zones_of, names=self.session.names)

    # ------------------------------------------------------------ moves

    def human_move(self, body: object) -> None:
        """Apply the human's move: ``{"action": N}`` (a flat action) or ``{"move": [...]}`` (a decision as
        ``Game.layout.decode`` gives it: ``["place", x, y, r]``, ``["meeple", zone]``, ``["retake", x, y]``,
        ``["pit", k]``, ``["none"]``). RequestError, and nothing changed, for a malformed or illegal move."""
        game, session = self.game, self.session
        action = self._parse_move(body)
        session.say(f"{session.who(session.seat)}: {describe_move(game, action)}")
        self._step(action)

    def agent_move(self) -> None:
        """One decision of the agent whose turn it is (the page calls it until the human's turn)."""
        if self.game.is_over:
            raise RequestError("the game is over", 409)
        if self.your_turn():
            raise RequestError("it is your turn, not an agent's", 409)
        self._step(self.session.opponent_move())

    def _step(self, action: int) -> None:
        session = self.session
        session.game.step(action)
        session.report_events()
        if session.game.is_over:
            game = session.game
            scores = ", ".join(f"{session.who(s)} {game.scores[s]}" for s in range(game.num_players))
            session.say(f"Game over. Scores: {scores}. Winner(s): {', '.join(session.who(s) for s in game.winners)}")
        self._save()

    def _parse_move(self, body: object) -> int:
        game, session = self.game, self.session
        if not isinstance(body, dict):
            raise RequestError(f'a move is a JSON object {{"move": [...]}} or {{"action": N}}, got {_kind(body)}')
        unknown = sorted(set(body) - {"move", "action"})
        if unknown or len(body) != 1:
            raise RequestError(f'a move has exactly one field, "move" or "action"; got {sorted(body)}')
        if game.is_over:
            raise RequestError("the game is over: start a new game or resume another", 409)
        if game.current_player != session.seat:
            raise RequestError(f"it is {session.who(game.current_player)}'s turn, not yours", 409)
        if "action" in body:
            try:
                action = check_action(body["action"], game.layout.size)
            except ValueError as err:
                raise RequestError(str(err)) from None
            if not game.action_mask()[action]:
                raise RequestError(f"action {action} is not legal now ({describe_phase(game)})", 409)
            return action
        move = body["move"]
        if not isinstance(move, list) or not move or not isinstance(move[0], str):
            raise RequestError(f'"move" is a list such as ["place", 1, 0, 2] or ["none"], got {_kind(move)}')
        kind, args = move[0], move[1:]
        kinds = ["place", "none"] + [k.name for k in game.rules.spec.occupants]
        kinds += [d.name for d in game.rules.spec.decisions]
        if kind not in kinds:
            raise RequestError(f"unknown move kind {kind[:40]!r}; this game's moves: {', '.join(kinds)}")
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in args) or len(args) > 3:
            raise RequestError(f"the numbers of a move are at most 3 ints, got {json.dumps(args)[:80]}")
        if kind == "place" and len(args) != 3:
            raise RequestError('a placement is ["place", x, y, rotation]')
        if kind == "none" and args:
            raise RequestError('"none" takes no numbers')
        # The terminal game's notation, so the answers are its messages ("tile 12 fits at ... only with r1").
        text = f"{args[0]} {args[1]} r{args[2]}" if kind == "place" else " ".join([kind, *map(str, args)])
        try:
            return parse_move(game, text)
        except ValueError as err:
            raise RequestError(str(err), 409) from None


def _kind(value: object) -> str:
    """A short description of a JSON value for an error message."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)
