"""``hg_env.Game``: one game, for scripts, notebooks, tests and replays.

A thin facade over the batched core with B = 1. ``ruleset`` picks the game:
``"hg2020"`` (default), ``"hg2002"`` or ``"carcassonne"`` (docs/rules/).
Positions are (x, y) with the start tile at (0, 0), x east and y south; local
zone ids are those of the ruleset's tile catalogue (R2.4).

The universal turn is ``place`` then ``occupy``; a decision a ruleset declares beyond them
(``Ruleset.decisions``) is taken with ``decide(name, ...)`` and listed by ``legal_choices(name)``:
hg2020's shaman retake ``decide("retake", x, y)`` / ``decide("retake", None)`` and pit-trap choice
``decide("pit", k)``, Carcassonne's abbot recall ``decide("retake", x, y)`` in the occupy phase.

Skipped decisions (R3.7, ``auto_skip_forced_actions=True``): the ``occupy``
phase is skipped when no occupant is legal (nor a declared decision beside it).
Pass ``auto_skip_forced_actions=False`` to always get the ``occupy`` phase.
"""

from __future__ import annotations

import numpy as np

from hg_env.core import engine
from hg_env.core.actions import ActionLayout, action_layout
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, check_int
from hg_env.core.ruleset import DEFAULT_RULESET, Decision
from hg_env.core.state import OCCUPY, OVER, State
from hg_env.record import check_record, make_record

MAX_SEED = 2**63 - 1


def check_action(action: object, size: int | None = None) -> int:
    """A flat action as a Python int: an int, a numpy integer or a 0-d integer array (not a bool,
    float or string), inside [0, size) when a size is given; ValueError naming what is wrong."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action must be an int, got {action!r} ({type(action).__name__})")
    if size is not None and not 0 <= action < size:
        raise ValueError(f"action {action} is outside the action space [0, {size})")
    return int(action)


def check_seed(seed: object, name: str = "seed") -> int | None:
    """None or an int 0..2**63-1 (numpy integers accepted), as a Python int."""
    return None if seed is None else check_int(name, seed, 0, MAX_SEED)


class Game:
    """One game of the Carcassonne family (default: Hunters & Gatherers 2020); see the module docstring."""

    def __init__(
        self,
        num_players: int = 2,
        seed: int | None = None,
        regular_deck: list[int] | None = None,
        menhir_deck: list[int] | None = None,
        record_events: bool = True,
        ruleset: str = DEFAULT_RULESET,
        bonus_deck: list[int] | None = None,
        **rule_flags: object,
    ) -> None:
        num_players = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
        self.seed = check_seed(seed)
        self.rules = Rules(ruleset=ruleset, **rule_flags)
        extra_deck = _extra_deck(self.rules.spec.extra_deck, menhir_deck=menhir_deck, bonus_deck=bonus_deck)
        self.state: State = engine.new_games(
            num_players,
            self.rules,
            seeds=[self.seed],
            regular_decks=[regular_deck],
            extra_decks=[extra_deck],
            record_events=record_events,
        )
        s = self.state
        self._regular_deck = s.regular_deck[0, : s.regular_len[0]].tolist()
        self._extra_deck = s.extra_deck[0, : s.extra_len[0]].tolist()
        self.history: list[int] = []  # flat actions taken, in order
        self._retaken_zone: dict[int, int] = {}  # history index -> local zone of the figure taken back

    # ------------------------------------------------------------ reading

    @property
    def ruleset(self) -> str:
        return self.rules.ruleset

    @property
    def layout(self) -> ActionLayout:
        return action_layout(self.rules)

    @property
    def num_players(self) -> int:
        return int(self.state.num_players[0])

    @property
    def current_player(self) -> int:
        return int(self.state.current[0])

    @property
    def phase(self) -> str:
        return self.rules.spec.phases[int(self.state.phase[0])]

    @property
    def tile_to_place(self) -> int | None:
        t = int(self.state.tile_to_place[0])
        return None if t < 0 else t

    @property
    def is_over(self) -> bool:
        return bool(self.state.phase[0] == OVER)

    @property
    def scores(self) -> list[int]:
        return self.state.score[0, : self.num_players].tolist()

    @property
    def winners(self) -> list[int]:
        """Seats sharing the highest score (R8.2.4); empty until the game is over."""
        return engine.winners(self.state)[0] if self.is_over else []

    @property
    def events(self) -> list[dict]:
        return [] if self.state.events is None else self.state.events[0]

    @property
    def deck_sizes(self) -> tuple[int, int]:
        """Tiles left in the regular and the extra (menhir / bonus) deck (public, R1.5)."""
        s = self.state
        return int(s.regular_len[0] - s.regular_next[0]), int(s.extra_len[0] - s.extra_next[0])

    @property
    def extra_turn(self) -> bool:
        return bool(self.state.extra_turn[0])

    def supply(self, player: int) -> tuple[int, ...]:
        """The pieces in the player's supply, per occupant kind of the ruleset: (pawns, huts) in
        Hunters & Gatherers, (meeples, abbots) in Carcassonne (R1.2)."""
        self._check_player(player)
        pieces = [kind.piece for kind in self.rules.spec.occupants]
        return tuple(int(n) for n in self.state.supply[0, player, pieces])

    def tile_at(self, x: int, y: int) -> tuple[int, int] | None:
        """(tile id, rotation) at (x, y), or None for an empty or off-board position."""
        _check_ints(f"tile_at({x!r}, {y!r})", x=x, y=y)
        board = self.rules.board
        if abs(x) > board.reach or abs(y) > board.reach:
            return None
        cell = board.cell(x, y)
        t = int(self.state.board_tile[0, cell])
        return None if t < 0 else (t, int(self.state.board_rot[0, cell]))

    def placed_tiles(self) -> list[tuple[int, int, int, int]]:
        """(tile, x, y, rotation) of every tile on the board."""
        s, board = self.state, self.rules.board
        cells = np.flatnonzero(s.board_tile[0] >= 0)
        return [(int(s.board_tile[0, c]), *board.xy(c), int(s.board_rot[0, c])) for c in cells]

    def occupants(self) -> list[tuple[int, str, int, int, int]]:
        """(player, kind, x, y, local zone) of every occupant on the board; kind is the occupant
        kind's name ("pawn", "hut"; "meeple", "abbot")."""
        s, board = self.state, self.rules.board
        names = {kind.piece: kind.name for kind in self.rules.spec.occupants}
        out = []
        for t in np.flatnonzero(s.occupant_seat[0] >= 0):
            x, y = board.xy(s.tile_cell[0, t])
            kind = names[int(s.occupant_kind[0, t])]
            out.append((int(s.occupant_seat[0, t]), kind, x, y, int(s.occupant_local[0, t])))
        return sorted(out)

    # ------------------------------------------------------------ legal decisions

    def action_mask(self) -> np.ndarray:
        """[A] bool mask over the flat action space (see hg_env.core.actions)."""
        return engine.legal_action_mask(self.state)[0]

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.action_mask()).tolist()

    def legal_placements(self) -> list[tuple[int, int, int]]:
        """(x, y, rotation) for the tile to place; empty outside the place phase."""
        if self.phase != "place":
            return []
        board = self.rules.board
        cells, rots = np.nonzero(engine.placements(self.state, np.zeros(1, dtype=np.intp))[0])
        return [(*board.xy(c), int(r)) for c, r in zip(cells, rots)]

    def legal_choices(self, name: str) -> list:
        """The operands the ruleset's declared decision ``name`` (``Ruleset.decisions``) takes now, as
        ``decide`` takes them: ``(x, y, local zone)`` of each figure for a decision naming a figure on the
        board, each count ``k`` for a count; empty when it is not asked now (declining, ``None``, is not
        listed). ValueError for a name the ruleset does not declare."""
        decision = self._declared(name, f"legal_choices({name!r})")
        if decision.phase != self.state.phase[0]:
            return []
        s, board = self.state, self.rules.board
        _, operands = decision.options(s, np.zeros(1, dtype=np.intp))
        if decision.operand == "cell":
            return sorted((*board.xy(c), int(s.occupant_local[0, s.board_tile[0, c]])) for c in operands)
        return sorted(int(k) for k in operands)

    def legal_occupants(self) -> list[tuple[str, int]]:
        """(kind, local zone) choices on the tile just placed (R5.8); ``None`` is always allowed too."""
        if self.phase != "occupy":
            return []
        mask = self.state.occupy_mask[0]
        out, first = [], 0
        for kind in self.rules.spec.occupants:
            out += [(kind.name, int(z)) for z in np.flatnonzero(mask[first : first + kind.slots])]
            first += kind.slots
        return out

    # ------------------------------------------------------------ decisions

    def place(self, x: int, y: int, rotation: int) -> None:
        """T2: place the drawn tile at (x, y) with the given rotation."""
        _check_ints(f"place({x!r}, {y!r}, {rotation!r})", x=x, y=y, rotation=rotation)
        self._expect("place", f"place({x}, {y}, {rotation})")
        if (x, y, rotation) not in self.legal_placements():
            ints = all(isinstance(v, (int, np.integer)) for v in (x, y))
            where = "off the board" if ints and max(abs(x), abs(y)) > self.rules.reach else "not a legal placement"
            raise ValueError(
                f"place({x}, {y}, {rotation}): tile {self.tile_to_place} at ({x},{y}) r{rotation} is {where} (R4.1)"
            )
        self.step(self.layout.encode(("place", x, y, rotation)))

    def occupy(self, kind: str | None, local_zone: int | None = None) -> None:
        """T4: put an occupant ("pawn"/"hut"; "meeple"/"abbot") on a local zone of the tile just
        placed, or nothing with ``occupy(None)``."""
        self._expect("occupy", f"occupy({kind!r}, {local_zone})")
        if kind is None:
            self.step(self.layout.none)
            return
        _check_ints(f"occupy({kind!r}, {local_zone!r})", local_zone=local_zone)
        if (kind, local_zone) not in self.legal_occupants():
            raise ValueError(
                f"occupy({kind!r}, {local_zone}): not legal on tile "
                f"{self._last_tile()} (R5); legal: {self.legal_occupants()} or None"
            )
        self.step(self.layout.encode((kind, local_zone)))

    def decide(self, name: str, *operand: int | None) -> None:
        """Take the ruleset's declared decision ``name`` (``Ruleset.decisions``, e.g. hg2020's
        ``decide("retake", x, y)`` / ``decide("pit", k)``, Carcassonne's ``decide("retake", x, y)``): a figure
        on the board by its cell, ``(x, y)`` or ``(x, y, local_zone)``; a count ``k``; or ``None`` to decline
        it in its own phase where it may be declined. ValueError naming the problem if it is not legal now
        (``legal_choices(name)`` lists what is), and the game is then unchanged."""
        call = f"decide({', '.join(repr(a) for a in (name, *operand))})"
        decision = self._declared(name, call)
        self._expect(self.rules.spec.phases[decision.phase], call)
        if operand == (None,):
            if not (decision.offers_none and decision.phase != OCCUPY):  # beside the occupants: occupy(None)
                raise ValueError(f"{call}: {name} cannot be declined here")
            self.step(self.layout.none)
            return
        legal = self.legal_choices(name)
        if decision.operand == "cell":
            if len(operand) not in (2, 3):
                raise ValueError(f"{call}: {name} takes x, y and optionally the local zone")
            x, y, *zone = operand
            _check_ints(call, x=x, y=y, **({"local_zone": zone[0]} if zone else {}))
            if not any((lx, ly) == (x, y) and zone in ([], [lz]) for lx, ly, lz in legal):
                figure = decision.noun or "figure"
                raise ValueError(f"{call}: seat {self.current_player} has no {figure} there to {name}; legal: {legal}")
            self.step(self.layout.encode((name, x, y)))
            return
        if len(operand) != 1:
            raise ValueError(f"{call}: {name} takes one count")
        _check_ints(call, k=operand[0])
        if operand[0] not in legal:
            raise ValueError(f"{call}: choose one of {legal}")
        self.step(self.layout.encode((name, operand[0])))

    def step(self, action: int) -> None:
        """Apply one flat action (hg_env.core.actions); ValueError if it is not an int or not legal,
        and the game is then unchanged."""
        action = check_action(action, self.layout.size)  # the batched core reads a negative action as "skip"
        retaken = None
        for decision, first, width in self.layout.decisions:
            if decision.operand == "cell" and first <= action < first + width:
                # records name the figure's zone: read it before it leaves
                tile = self.state.board_tile[0, action - first]
                retaken = int(self.state.occupant_local[0, tile]) if tile >= 0 else None
        engine.step(self.state, np.array([action], dtype=np.int64))
        self.history.append(action)
        if retaken is not None:
            self._retaken_zone[len(self.history) - 1] = retaken

    def describe(self, action: int) -> str:
        return self.layout.describe(action, self.tile_to_place)

    def render(self, mode: str = "ansi") -> str | np.ndarray:
        """``"ansi"``: the text board; ``"rgb_array"``: an [H, W, 3] uint8 picture; ``"svg"``: the same picture
        as an SVG string (``hg_env.svg.board_svg``; both need Pillow)."""
        from hg_env import render

        if mode == "ansi":
            return render.render_ansi(self)
        if mode == "rgb_array":
            return render.render_rgb(self)
        if mode == "svg":
            from hg_env.svg import board_svg

            return board_svg(self)
        raise ValueError(f"render mode must be 'ansi', 'rgb_array' or 'svg', got {mode!r}")

    def _repr_svg_(self) -> str | None:
        """The board as SVG, for notebooks (None without Pillow)."""
        try:
            import PIL  # noqa: F401
        except ImportError:
            return None
        return self.render("svg")

    def _repr_png_(self) -> bytes | None:
        """The board as a PNG, for notebooks (None without Pillow)."""
        try:
            import io

            from PIL import Image
        except ImportError:
            return None
        buffer = io.BytesIO()
        Image.fromarray(self.render("rgb_array")).save(buffer, format="PNG")
        return buffer.getvalue()

    def copy(self) -> Game:
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.state = self.state.copy()
        other.history = list(self.history)
        other._retaken_zone = dict(self._retaken_zone)
        return other

    # ------------------------------------------------------------ records

    def decisions(self) -> list[list]:
        """The decisions taken so far, as record entries (see hg_env.record)."""
        out = []
        for i, action in enumerate(self.history):
            entry = list(self.layout.decode(action))
            if i in self._retaken_zone:  # a figure named by its cell (the shaman's, the abbot's): its zone too
                entry.append(self._retaken_zone[i])
            out.append(entry)
        return out

    def to_record(self, players: list[str] | None = None, meta: dict | None = None) -> dict:
        """A JSON-serialisable record; ``Game.from_record`` replays it to the identical state."""
        spec = self.rules.spec
        decks = {"regular_deck": list(self._regular_deck)}
        if spec.extra_deck:
            decks[f"{spec.extra_deck}_deck"] = list(self._extra_deck)
        return make_record(
            self.rules, self.num_players, self.seed, decks, self.decisions(), self.scores, self.is_over, players, meta
        )

    @classmethod
    def from_record(cls, record: dict, upto: int | None = None, ruleset: str | None = None) -> Game:
        """Replay a record (all decisions, or the first ``upto``); ValueError naming the field if it is
        corrupt, or if ``ruleset`` is given and the record is of another ruleset."""
        rec = check_record(record)
        if ruleset is not None and rec["ruleset"] != ruleset:
            raise ValueError(
                f"the record is a game of {rec['ruleset']!r}, not {ruleset!r}: it never replays under another ruleset"
            )
        if upto is not None:
            upto = check_int("upto", upto, 0, len(rec["decisions"]))
        game = cls(
            rec["num_players"],
            seed=rec["seed"],
            regular_deck=rec["regular_deck"],
            **{f"{rec['extra_name']}_deck": rec["extra_deck"]} if rec["extra_name"] else {},
            **rec["rules"],
        )
        entries = rec["decisions"] if upto is None else rec["decisions"][:upto]
        for i, entry in enumerate(entries):
            try:
                game.apply_decision(entry)
            except ValueError as err:
                raise ValueError(f"corrupt record: decision {i} {entry!r} cannot be replayed: {err}") from None
        if upto is None:
            if rec.get("scores") is not None and game.scores != rec["scores"]:
                raise ValueError(f"corrupt record: replay gives scores {game.scores}, the record says {rec['scores']}")
            if rec.get("is_over") is not None and game.is_over != rec["is_over"]:
                raise ValueError(
                    f"corrupt record: 'is_over' is {rec['is_over']}, but the replayed game's is {game.is_over}"
                )
        return game

    def apply_decision(self, entry: list) -> None:
        """Apply one record entry: ["place", x, y, r], [kind, z] for an occupant kind ("pawn", "hut",
        "meeple", "abbot"), a declared decision: [name, x, y, z] for a figure on a cell (["retake", x, y, z]),
        [name, k] for a count (["pit", k]), or ["none"]."""
        if not isinstance(entry, (list, tuple)) or not entry:
            raise ValueError(f"a decision must be a non-empty list, got {entry!r}")
        kind, args = entry[0], list(entry[1:])
        occupants = [k.name for k in self.rules.spec.occupants]
        declared = {d.name: d for d in self.rules.spec.decisions}
        known = {"place": 3, "none": 0, **dict.fromkeys(occupants, 1)}
        known |= {name: 3 if d.operand == "cell" else 1 for name, d in declared.items()}
        if not isinstance(kind, str) or kind not in known:
            raise ValueError(f"unknown decision kind {kind!r}; known: {sorted(known)}")
        if len(args) != known[kind]:
            raise ValueError(f"decision {entry!r}: {kind!r} takes {known[kind]} argument(s), got {len(args)}")
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            raise ValueError(f"decision {entry!r}: arguments must be ints")
        if kind == "place":
            self.place(*args)
        elif kind in occupants:
            self.occupy(kind, *args)
        elif kind in declared:  # a decision the ruleset declares: a figure's cell with its zone, or a count
            self.decide(kind, *args)
        elif any(d.offers_none and d.phase == self.state.phase[0] for d in declared.values()):
            self.step(self.layout.none)  # declining a declared decision in its own phase
        else:
            self.occupy(None)

    # ------------------------------------------------------------ helpers

    def _declared(self, name: object, call: str) -> Decision:
        """The ruleset's declared decision called ``name``; ValueError naming the declared ones otherwise."""
        decision = self.rules.spec.decision(name) if isinstance(name, str) else None
        if decision is None:
            names = [d.name for d in self.rules.spec.decisions]
            raise ValueError(f"{call}: {self.ruleset} declares no decision {name!r}; its decisions: {names}")
        return decision

    def _expect(self, phase: str, call: str) -> None:
        if self.phase != phase:
            now = (
                "the game is over" if self.is_over else f"the game waits for seat {self.current_player} to {self.phase}"
            )
            raise ValueError(f"{call}: not the {phase} phase ({now})")

    def _check_player(self, player: int) -> None:
        if isinstance(player, bool) or not (isinstance(player, (int, np.integer)) and 0 <= player < self.num_players):
            raise ValueError(f"player must be a seat 0..{self.num_players - 1}, got {player!r}")

    def _last_tile(self) -> int:
        return int(self.state.board_tile[0, self.state.last_cell[0]])

    def __repr__(self) -> str:
        return (
            f"Game(ruleset={self.ruleset!r}, num_players={self.num_players}, phase={self.phase!r}, "
            f"current_player={self.current_player}, tile_to_place={self.tile_to_place}, scores={self.scores})"
        )


def _check_ints(call: str, **values: object) -> None:
    """Coordinates, rotations and zones are ints (numpy integers too; not bools, floats or None):
    ``1.0`` would match a legal move and then become an encoded action the caller never passed."""
    for name, value in values.items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{call}: {name} must be an int, got {value!r} ({type(value).__name__})")


def _extra_deck(extra: str | None, **given: list[int] | None) -> list[int] | None:
    """The extra deck among ``menhir_deck`` / ``bonus_deck``: only the one this ruleset has may be given."""
    out = None
    for name, deck in given.items():
        if deck is None:
            continue
        if name != f"{extra}_deck":
            has = f"a {extra} deck ({extra}_deck)" if extra else "no extra deck"
            raise ValueError(f"{name} given, but this ruleset has {has}")
        out = deck
    return out
