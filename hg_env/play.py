"""Play a game of any ruleset in the terminal against agents.

    hgenv play --opponents greedy --players 2 [--seat 0] [--seed 7] [--image board.png] [--ruleset hg2002]
    hgenv play --ruleset carcassonne --flag river=true
    hgenv play --resume games/20240501-120000.json

Each turn shows the board, your tile and the numbered legal moves. Answer with a
move number or with notation (``help`` lists the moves of the game's ruleset):

    41 1 0 r1      place tile 41 at x=1, y=0 turned clockwise once (the tile id is optional)
    pawn 2         put a pawn on zone 2 of the tile you just placed (hut 8: a hut on zone 8)
    meeple 2       Carcassonne: a meeple on zone 2 (abbot 8: your abbot on zone 8)
    retake 1 -2    take back your figure at (1,-2): the shaman's pawn, the Carcassonne abbot
    none           place nothing (or take nothing back)

``board``, ``moves``, ``help`` and ``quit`` do what they say; the board is the compact one (one line per
row) when the full one is wider than the terminal, and ``full`` shows the full one anyway. The game record is
saved at the end, also when you quit or press Ctrl-C; ``hgenv replay`` turns it
into a GIF or PNG, and ``hgenv play --resume`` continues an unfinished one.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from hg_env.core.ruleset import DEFAULT_RULESET
from hg_env.game import Game
from hg_env.presentation import presentation
from hg_env.render import (
    PLAYER_COLOR_NAMES,
    ansi_board_width,
    describe_event,
    occupant_kinds_text,
    occupant_role,
    player_name,
    render_ansi,
    zone_summary,
)
from hg_env.rule_flags import game_title, parse_flags

PLACE_HELP = "  41 1 0 r1     place tile 41 at x=1, y=0 with rotation r1 (the tile id may be left out: 1 0 r1)"
COMMANDS_HELP = (
    "  none          place nothing / take nothing back\n"
    "Zones named by sides: N, E, S, W a whole side; En the north half of the E side (a river or road splits it).\n"
    "Commands: board (the board again, with its legend), full (the full board, however wide), moves (list the\n"
    "moves), help, quit (the game is saved)."
)


def help_text(ruleset: str) -> str:
    """The move notation of a ruleset's game (``help``)."""
    return "\n".join(
        ["Moves: type the number of a move, or", PLACE_HELP, presentation(ruleset).occupy_help, COMMANDS_HELP]
    )


class QuitGame(Exception):
    """The human asked to stop; the record is still saved."""


def default_record_path() -> Path:
    """``games/<date>-<time>.json``, never an existing file."""
    stem = f"{datetime.now():%Y%m%d-%H%M%S}"
    path, n = Path("games") / f"{stem}.json", 1
    while path.exists():
        n += 1
        path = Path("games") / f"{stem}-{n}.json"
    return path


def describe_move(game: Game, action: int) -> str:
    """A readable name for a legal action in the current position."""
    decision = game.layout.decode(action)
    kind = decision[0]
    if kind == "place":
        _, x, y, r = decision
        return f"place tile {game.tile_to_place} at ({x},{y}) r{r}"
    ruleset = game.ruleset
    if kind in _occupant_kinds(game):
        tile, rot = game.tile_at(*game.rules.board.xy(int(game.state.last_cell[0])))
        local = decision[1]
        role = occupant_role(ruleset, tile, kind, local)
        figure = f"a {kind} as a {role}"  # a pawn as a hunter, a meeple as a knight
        if role == kind:  # a hut; your abbot (a player has one of it)
            figure = f"your {kind}" if _one_each(game, kind) else f"a {kind}"
        return f"{kind} {local}: {figure} on the {zone_summary(ruleset, tile, local, rot)}"
    if kind != "none":  # a decision the ruleset declares, in its presentation's words
        words = presentation(ruleset).moves.get(kind)
        return words(game, decision) if words else game.layout.describe(action)
    return "none: place nothing" if game.phase == "occupy" else "none: take nothing back"


def list_moves(game: Game) -> str:
    """The legal moves, numbered from 1 (placements several to a line)."""
    actions = game.legal_actions()
    if game.phase == "place":
        items = [f"{i:>3}) ({x},{y}) r{r}" for i, (x, y, r) in enumerate(_placements(game, actions), 1)]
        rows = [" ".join(f"{item:<16}" for item in items[i : i + 5]).rstrip() for i in range(0, len(items), 5)]
        return f"Where tile {game.tile_to_place} fits:\n" + "\n".join(rows)
    return "Your choices:\n" + "\n".join(f"{i:>3}) {describe_move(game, a)}" for i, a in enumerate(actions, 1))


def _placements(game: Game, actions: list[int]) -> list[tuple[int, int, int]]:
    return [game.layout.decode(a)[1:] for a in actions]


def parse_move(game: Game, text: str) -> int:
    """The flat action meant by ``text`` (a move number or notation); ValueError explaining what is wrong."""
    actions = game.legal_actions()
    words = re.sub(r"[(),]", " ", text.strip().lower()).split()
    words = [w for w in words if w not in ("place", "tile", "at", "on", "zone", "a")]
    if not words:
        raise ValueError("type a move number or a move; 'help' explains the notation")
    if len(words) == 1 and re.fullmatch(r"\d+", words[0]):
        number = int(words[0])
        if 1 <= number <= len(actions):
            return actions[number - 1]
        raise ValueError(f"there is no move {number}; choose 1..{len(actions)}")
    head = words[0]
    if head in ("none", "pass", "skip", "nothing"):
        return _legal(game, ("none",), "'none' is not a choice now: place the tile first")
    declared = game.rules.spec.decision(head)
    if head in _occupant_kinds(game) or (declared is not None and declared.operand == "count"):
        number = _ints(words[1:], 1, f"{head} needs one number, e.g. '{head} 2'")[0]
        return _legal(game, (head, number), _occupy_hint(game, head, number))
    if declared is not None:  # a cell: the figure to take back (the shaman's pawn, the Carcassonne abbot)
        x, y = _ints(words[1:], 2, f"{head} needs a position, e.g. '{head} 1 -2'")
        return _legal(game, (head, x, y), f"you have no {declared.noun} to take back at ({x},{y})")
    if not re.fullmatch(r"-?\d+|r\d", head):
        raise ValueError(f"'{text.strip()}' is not a move: type a move number, a move like '41 1 0 r1', or 'help'")
    return _parse_placement(game, words)


def _parse_placement(game: Game, words: list[str]) -> int:
    if game.phase != "place":
        raise ValueError(f"you are not placing a tile now ({describe_phase(game)}); 'moves' lists the choices")
    if words[-1].startswith("r"):
        words = [*words[:-1], words[-1][1:]]
    numbers = _ints(words, None, "a placement is 'TILE X Y rR' or 'X Y rR', e.g. '41 1 0 r1'")
    if len(numbers) == 4:
        tile, *numbers = numbers
        if tile != game.tile_to_place:
            raise ValueError(f"you are placing tile {game.tile_to_place}, not tile {tile}")
    if len(numbers) != 3:
        raise ValueError("a placement is 'TILE X Y rR' or 'X Y rR', e.g. '41 1 0 r1'")
    x, y, r = numbers
    if r not in (0, 1, 2, 3):
        raise ValueError(f"the rotation is r0..r3 (quarter turns clockwise), got r{r}")
    legal = game.legal_placements()
    if (x, y, r) in legal:
        return game.layout.encode(("place", x, y, r))
    here = [f"r{rr}" for xx, yy, rr in legal if (xx, yy) == (x, y)]
    if here:
        raise ValueError(f"tile {game.tile_to_place} fits at ({x},{y}) only with {', '.join(here)}")
    spots = sorted({(xx, yy) for xx, yy, _ in legal})
    raise ValueError(
        f"tile {game.tile_to_place} does not fit at ({x},{y}); it fits at " + ", ".join(f"({a},{b})" for a, b in spots)
    )


def _ints(words: list[str], count: int | None, message: str) -> list[int]:
    try:
        numbers = [int(w) for w in words]
    except ValueError:
        raise ValueError(message) from None
    if count is not None and len(numbers) != count:
        raise ValueError(message)
    return numbers


def _legal(game: Game, decision: tuple, message: str) -> int:
    try:
        action = game.layout.encode(decision)
    except ValueError:
        raise ValueError(message) from None
    if not game.action_mask()[action]:
        raise ValueError(message)
    return action


def _occupant_kinds(game: Game) -> list[str]:
    """The occupant kinds of the game's ruleset: pawn and hut, or meeple and abbot."""
    return [kind.name for kind in game.rules.spec.occupants]


def _one_each(game: Game, kind: str) -> bool:
    """A player has one figure of this occupant kind (the Carcassonne abbot): "your abbot"."""
    spec = game.rules.spec
    piece = next(k.piece for k in spec.occupants if k.name == kind)
    return spec.pieces_of(game.rules)[piece] == 1


def _occupy_hint(game: Game, kind: str, number: int) -> str:
    if game.phase == "place":
        return f"first place tile {game.tile_to_place}; then you may put {occupant_kinds_text(game)} on it"
    if game.phase != "occupy":
        offered = [" ".join(map(str, d)) for d in map(game.layout.decode, game.legal_actions()) if d[0] == kind]
        if offered:  # a count of this phase's own decision (the pit trap's deer) out of its range
            return f"'{kind} {number}' is not a choice; you can choose: {', '.join(offered)}"
        return f"'{kind}' is not a choice now ({describe_phase(game)})"
    legal = [f"{k} {z}" for k, z in game.legal_occupants()] + ["none"]
    return f"'{kind} {number}' is not possible on this tile; you can choose: {', '.join(legal)}"


def describe_phase(game: Game) -> str:
    shared = {
        "place": f"place tile {game.tile_to_place}",
        "occupy": f"you may put {occupant_kinds_text(game)} on the tile you placed",
        "over": "the game is over",
    }
    if game.phase in shared:
        return shared[game.phase]
    words = presentation(game.ruleset).phases.get(game.phase)  # a declared decision's phase
    return words.prompt if words else game.phase


class Session:
    """One human against agents; writes to ``out`` and reads moves from ``read``."""

    def __init__(
        self,
        opponents: list[str],
        num_players: int = 2,
        seat: int = 0,
        seed: int | None = None,
        record_path: Path | None = None,
        image_path: Path | None = None,
        color: bool = False,
        out: TextIO | None = None,
        ruleset: str = DEFAULT_RULESET,
        rule_flags: dict[str, Any] | None = None,
    ) -> None:
        """``rule_flags``: the game's rule flags beyond the ruleset (``hg_env.rule_flags.parse_flags``)."""
        from hg_env.agents.base import make_agent

        if not 2 <= num_players <= 5:
            raise ValueError(f"--players must be 2..5, got {num_players}")
        if not 0 <= seat < num_players:
            raise ValueError(f"--seat must be 0..{num_players - 1}, got {seat}")
        if len(opponents) == 1:
            opponents = opponents * (num_players - 1)
        if len(opponents) != num_players - 1:
            raise ValueError(f"{num_players} players need 1 or {num_players - 1} opponent specs, got {len(opponents)}")
        if image_path is not None and Path(image_path).suffix.lower() != ".png":
            raise ValueError(f"--image must be a .png file, got {image_path}")
        self.seed = secrets.randbelow(2**31) if seed is None else seed
        self.seat = seat
        self.game = Game(num_players, seed=self.seed, ruleset=ruleset, **(rule_flags or {}))
        self.agents = {}
        specs = iter(opponents)
        for s in range(num_players):
            if s != seat:
                self.agents[s] = make_agent(next(specs), seed=self.seed + s)
        self.names = ["you" if s == seat else self.agents[s].spec for s in range(num_players)]
        self.record_path = Path(record_path) if record_path else default_record_path()
        self.image_path = Path(image_path) if image_path else None
        self.color = color
        self.out = out or sys.stdout
        self._events_shown = 0
        self._legend_shown = False  # the legend comes with the first board, and after 'board' or 'help'
        self._compact = False

    @classmethod
    def resume(
        cls,
        path: str | Path,
        record_path: Path | None = None,
        image_path: Path | None = None,
        color: bool = False,
        out: TextIO | None = None,
    ) -> Session:
        """Continue an unfinished game saved by ``hgenv play``: its ruleset, rules, seats and decks, the
        opponents named in its ``players``; it is saved back to ``path`` unless ``record_path`` is given.
        ValueError with one clear line for a finished, corrupt or foreign record."""
        from hg_env.replay import load_record

        record = load_record(path)  # checks and replays the whole record (ValueError: corrupt)
        game = Game.from_record(record)
        if game.is_over:
            raise ValueError(f"{path} is a finished game (scores {game.scores}): nothing to resume")
        players = record.get("players") or []
        seat = (record.get("meta") or {}).get("human_seat", players.index("you") if "you" in players else None)
        if not players or not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(players):
            raise ValueError(f"{path} names no human seat: only games saved by hgenv play can be resumed")
        opponents = [name for s, name in enumerate(players) if s != seat]
        try:
            session = cls(
                opponents,
                num_players=game.num_players,
                seat=seat,
                seed=record["seed"],
                record_path=Path(record_path or path),
                image_path=image_path,
                color=color,
                out=out,
                ruleset=game.ruleset,
            )
        except ValueError as err:  # a seat played by someone who is not an agent spec
            raise ValueError(f"cannot resume {path}: its opponents {opponents} must be agent specs: {err}") from None
        session.game = game
        session.names = list(players)
        session._events_shown = len(game.events)
        return session

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def who(self, seat: int) -> str:
        return player_name(seat, self.names)

    def run(self, read: Callable[[str], str] = input) -> int:
        """Play to the end; save the record whatever happens. Returns a process exit code."""
        game = self.game
        resumed = f", resumed after {len(game.history)} decisions" if game.history else ""
        self.say(f"{game_title(game.rules)}, {game.num_players} players, seed {self.seed}{resumed}.")
        for s in range(game.num_players):
            self.say(f"  {self.who(s)} plays {PLAYER_COLOR_NAMES[s]}")
        self.say("Type 'help' for the move notation.")
        code = 0
        try:
            self._refresh_image()
            while not game.is_over:
                if game.current_player == self.seat:
                    action = self._ask(read)
                    self.say(f"{self.who(self.seat)}: {describe_move(game, action)}")
                else:
                    action = self.opponent_move()
                game.step(action)
                self.report_events()
                self._refresh_image()
            self.say(self._board())
            self.say(
                "Game over. Scores: "
                + ", ".join(f"{self.who(s)} {game.scores[s]}" for s in range(game.num_players))
                + ". Winner(s): "
                + ", ".join(self.who(s) for s in game.winners)
            )
        except QuitGame:
            self.say("You left the game.")
        except (EOFError, KeyboardInterrupt) as stop:
            self.say("\nInput ended." if isinstance(stop, EOFError) else "\nInterrupted.")
            code = 1 if isinstance(stop, EOFError) else 130
        finally:
            self._save()
        return code

    def _ask(self, read: Callable[[str], str]) -> int:
        game = self.game
        self.say(self._board())
        self.say(list_moves(game))
        while True:
            text = read(f"{self.who(self.seat)}, your move> ").strip()
            command = text.lower()
            if command in ("quit", "exit", "q"):
                raise QuitGame
            if command in ("help", "h", "?"):
                self.say(help_text(game.ruleset))
                continue
            if command in ("board", "b", "legend"):
                self.say(self._board(legend=True))
                continue
            if command in ("full", "f"):  # the sides of every tile, when the terminal got the compact board
                self.say(render_ansi(game, self.names, self.color, compact=False))
                continue
            if command in ("moves", "m", "list"):
                self.say(list_moves(game))
                continue
            try:
                return parse_move(game, text)
            except ValueError as err:
                self.say(f"  ? {err}")

    def _board(self, legend: bool = False) -> str:
        """The text board; the compact form when the full one is wider than the terminal."""
        columns = shutil.get_terminal_size().columns
        compact = ansi_board_width(self.game) > columns
        legend = legend or not self._legend_shown or compact != self._compact
        self._legend_shown, self._compact = True, compact
        return render_ansi(self.game, self.names, self.color, compact=compact, legend=legend)

    def opponent_move(self) -> int:
        """The action of the agent whose turn it is, said in words (not stepped: the caller steps it)."""
        game = self.game
        seat = game.current_player
        agent = self.agents[seat]
        action = int(agent.act(_observation(agent, game), game.action_mask(), game=game))
        if not game.action_mask()[action]:
            raise RuntimeError(f"agent {agent.spec!r} chose an illegal action {action}")
        self.say(f"{self.who(seat)}: {describe_move(game, action)}")
        return action

    def report_events(self) -> None:
        """Say the game's events since the last report, in sentences."""
        for event in self.game.events[self._events_shown :]:
            self.say(f"  * {describe_event(event, self.names, self.game.ruleset)}")
        self._events_shown = len(self.game.events)

    def _refresh_image(self) -> None:
        if self.image_path is None:
            return
        from hg_env.render import render_rgb, save_image

        self.image_path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.image_path.with_name(self.image_path.stem + ".partial.png")
        save_image(render_rgb(self.game, names=self.names), str(partial))
        os.replace(partial, self.image_path)  # viewers never see a half-written picture

    def _save(self) -> None:
        import json

        record = self.game.to_record(players=self.names, meta={"mode": "play", "human_seat": self.seat})
        self.record_path.parent.mkdir(parents=True, exist_ok=True)
        self.record_path.write_text(json.dumps(record), encoding="utf-8")
        done = "" if self.game.is_over else f" after {len(self.game.history)} decisions"
        self.say(f"Game record saved{done} to {self.record_path}")
        self.say(f"Replay it with: hgenv replay {self.record_path} --out game.gif")


def _observation(agent: object, game: Game) -> np.ndarray | None:
    """The agent's observation, built only for agents that read it."""
    if not getattr(agent, "uses_observation", False):
        return None
    try:
        from hg_env.core.observation import observe
    except ImportError:
        raise ValueError(f"opponent {agent.spec!r} needs observations, which this hg_env cannot build") from None
    return observe(game.state, np.array([0]), np.array([game.current_player]))[0]


def use_color(choice: str, stream: TextIO) -> bool:
    """``--color auto|always|never``: auto colours a terminal unless NO_COLOR is set."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    return stream.isatty() and not os.environ.get("NO_COLOR")


def main(args: argparse.Namespace) -> int:
    """``hgenv play``: see the module docstring."""
    color = use_color(args.color, sys.stdout)
    try:
        if args.resume:
            if args.flags:
                raise ValueError("--flag cannot change a resumed game: its rules come from the record")
            session = Session.resume(args.resume, record_path=args.record, image_path=args.image, color=color)
        else:
            session = Session(
                args.opponents,
                num_players=args.players,
                seat=args.seat,
                seed=args.seed,
                record_path=args.record,
                image_path=args.image,
                color=color,
                ruleset=args.ruleset,
                rule_flags=parse_flags(args.ruleset, args.flags),
            )
    except (ValueError, ImportError) as err:
        print(f"hgenv play: {err}", file=sys.stderr)
        return 2
    return session.run()
