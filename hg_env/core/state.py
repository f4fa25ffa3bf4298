"""The batched game state: fixed-shape numpy arrays with a leading batch axis."""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, fields
from functools import cache

import numpy as np

from hg_env.core.areas import Partition
from hg_env.core.phases import OCCUPY, OVER, PLACE, SHARED_PHASES  # noqa: F401  (re-exported)
from hg_env.core.rules import Board, Rules
from hg_env.core.ruleset import AREA_PIECE, NUM_PIECES, SPECIAL_PIECE, SYSTEM_PIECE, Ruleset  # noqa: F401  (piece ids, re-exported)
from hg_env.core.seats import MAX_PLAYERS, MIN_PLAYERS


@dataclass
class State:
    """B games of one ruleset. Every array's first axis is the game; ``rules`` is shared.

    T below is the ruleset's number of tiles, Z its number of zones, N the board's cells."""

    rules: Rules
    num_players: np.ndarray  # [B] int8 players in the game (2-5)
    phase: np.ndarray  # [B] int8 the phase's code (PLACE, OCCUPY, OVER or a declared one: Ruleset.phases)
    current: np.ndarray  # [B] int8 seat whose decision it is
    tile_to_place: np.ndarray  # [B] int8 drawn tile, -1 when none
    extra_turn: np.ndarray  # [B] bool the current turn is an extra-tile turn (menhir / bonus tile, R3.3)
    last_cell: np.ndarray  # [B] int16 cell of the tile placed last, -1 before any
    decisions: np.ndarray  # [B] int32 decisions taken so far
    board_tile: np.ndarray  # [B, N] int8 tile at each cell, -1 empty
    board_rot: np.ndarray  # [B, N] int8 rotation of that tile
    need: np.ndarray  # [B, N] uint16 need code of each cell (TileSet.COMPAT), + occupied flag
    tile_cell: np.ndarray  # [B, T] int16 cell of each tile, -1 when not on the board
    discarded: np.ndarray  # [B, T] bool tile drawn and discarded as unplaceable (R4.4)
    dealt: np.ndarray  # [B, T] bool tile dealt into one of the decks
    regular_deck: np.ndarray  # [B, R] int8 regular deck in draw order, -1 padding
    regular_len: np.ndarray  # [B] int16 tiles in the regular deck
    regular_next: np.ndarray  # [B] int16 index of the next regular tile to draw
    extra_deck: np.ndarray  # [B, E] int8 extra deck (menhir / bonus tiles) in draw order, -1 padding
    extra_len: np.ndarray  # [B] int16
    extra_next: np.ndarray  # [B] int16
    area: Partition  # forest / meadow / river areas (cities, fields, roads), pawns per seat
    system: Partition | None  # river systems, huts per seat (rulesets with huts)
    ruleset_arrays: dict[str, np.ndarray]  # the ruleset's own arrays by name ([B, ...]: Ruleset.arrays)
    occupant_seat: np.ndarray  # [B, T] int8 owner of the occupant on each tile, -1 none (R5.2)
    occupant_kind: np.ndarray  # [B, T] int8 AREA_PIECE / SYSTEM_PIECE / SPECIAL_PIECE
    occupant_local: np.ndarray  # [B, T] int8 local zone it stands on
    supply: np.ndarray  # [B, 5, 3] int8 pawns, huts and abbots in each seat's supply
    score: np.ndarray  # [B, 5] int32 points per seat
    frontier: np.ndarray  # [B, F] int16 the empty cells next to a tile (where tiles may go), slots 0..len-1; -1 after
    frontier_len: np.ndarray  # [B] int64 cells in the frontier
    frontier_slot: np.ndarray  # [B, N] int16 slot of each cell in the frontier, -1 for cells not in it
    frontier_need: np.ndarray  # [B, F] uint16 need code of each slot's cell (``need`` there), 0 after the frontier
    place_fits: np.ndarray  # [B, F, 4] bool the drawn tile fits frontier slot s with rotation r (place phase)
    occupy_mask: np.ndarray  # [B, K] bool legal occupants on the tile just placed (Ruleset.occupy_width)
    events: list[list[dict]] | None  # per game event log (Appendix B), None when off

    def __getattr__(self, name: str) -> np.ndarray:
        """One of the ruleset's own arrays by name (``Ruleset.arrays``), e.g. ``state.cancelled`` in hg2020."""
        arrays = self.__dict__.get("ruleset_arrays")  # not self.ruleset_arrays: absent while copy builds a State
        if arrays is not None and name in arrays:
            return arrays[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    @property
    def batch_size(self) -> int:
        return len(self.phase)

    @property
    def board(self) -> Board:
        return self.rules.board

    @property
    def spec(self) -> Ruleset:
        """The ruleset of these games (tiles, pieces, points, rule functions)."""
        return self.rules.spec

    def partitions(self) -> dict[str, Partition]:
        """The partitions present: ``area``, and ``system`` for rulesets with huts."""
        return {"area": self.area} if self.system is None else {"area": self.area, "system": self.system}

    def arrays(self) -> dict[str, np.ndarray]:
        """Every batched array, partitions flattened as ``area.parent`` etc."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                out[f.name] = value
            elif isinstance(value, Partition):
                out.update({f"{f.name}.{g.name}": getattr(value, g.name) for g in fields(value)})
        out.update(self.ruleset_arrays)
        return out

    def copy(self) -> State:
        """A deep copy (cheap: a few dozen array copies), e.g. for search."""
        out = _copy.copy(self)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (np.ndarray, Partition)):
                setattr(out, f.name, value.copy())
        out.ruleset_arrays = {name: array.copy() for name, array in self.ruleset_arrays.items()}
        out.events = None if self.events is None else [list(e) for e in self.events]
        return out

    def take(self, games: np.ndarray) -> State:
        """A new state holding copies of the given games, in that order."""
        games = np.asarray(games, dtype=np.intp)
        out = _copy.copy(self)
        # ndarray.take: about 1.6x faster than value[games] over these arrays in a micro-benchmark
        # (search copies thousands of games per call; there the copy is bound by memory bandwidth).
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                setattr(out, f.name, value.take(games, axis=0))
            elif isinstance(value, Partition):
                arrays = {g.name: getattr(value, g.name).take(games, axis=0) for g in fields(value)}
                setattr(out, f.name, Partition(**arrays))
        out.ruleset_arrays = {name: array.take(games, axis=0) for name, array in self.ruleset_arrays.items()}
        out.events = None if self.events is None else [list(self.events[i]) for i in games]
        return out

    def put(self, games: np.ndarray, other: State) -> None:
        """Overwrite the given games with the games of ``other`` (same order), or every one of them with
        ``other``'s single game."""
        games = np.asarray(games, dtype=np.intp)
        mine, theirs = self.arrays(), other.arrays()
        for name, array in mine.items():
            array[games] = theirs[name]
        if self.events is not None:
            for i, game in enumerate(games):
                self.events[game] = [] if other.events is None else list(other.events[i % other.batch_size])

    def nbytes_per_game(self) -> int:
        return sum(a.nbytes for a in self.arrays().values()) // self.batch_size


def deck_tiles(spec: Ruleset, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """The tiles of the regular deck and of the extra deck (menhir / bonus tiles) of a game."""
    return spec.deck_tiles(spec.tiles, rules)


def frontier_size(rules: Rules) -> int:
    """Most cells a frontier can hold: the start tile opens 4, every later tile closes one and opens at
    most 3 (and never more than the board's cells)."""
    return min(rules.board.num_cells, 3 * rules.spec.tiles.num_tiles + 1)


@cache
def deck_of(rules: Rules) -> np.ndarray:
    """[T] int8 the deck each tile is dealt into: 0 regular, 1 extra (menhir / bonus), -1 none (the
    start tile, tiles the rules leave out). Read-only."""
    regular, extra = deck_tiles(rules.spec, rules)
    out = np.full(rules.spec.tiles.num_tiles, -1, dtype=np.int8)
    out[regular], out[extra] = 0, 1
    out.flags.writeable = False
    return out


def player_counts(num_players: object) -> np.ndarray:
    """Player counts as int8; ValueError unless ints in MIN_PLAYERS..MAX_PLAYERS."""
    num_players = np.asarray(num_players)
    if num_players.dtype.kind not in "iu":
        raise ValueError(f"num_players must be ints {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players.tolist()!r}")
    bad = (num_players < MIN_PLAYERS) | (num_players > MAX_PLAYERS)  # checked before the int8 cast
    if bad.any():
        raise ValueError(f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players[bad][0]}")
    return num_players.astype(np.int8)


def empty_state(rules: Rules, num_players: np.ndarray, record_events: bool = True) -> State:
    """B games before setup: empty boards, full supplies, no decks."""
    num_players = player_counts(num_players)
    spec = rules.spec
    tiles = spec.tiles
    regular, extra = deck_tiles(spec, rules)
    b, n, t = len(num_players), rules.board.num_cells, tiles.num_tiles
    frontier = frontier_size(rules)
    supply = np.zeros((b, MAX_PLAYERS, NUM_PIECES), dtype=np.int8)
    seated = np.arange(MAX_PLAYERS)[None, :] < num_players[:, None]
    supply[seated] = spec.pieces_of(rules)
    areas = spec.areas
    return State(
        rules=rules,
        num_players=num_players,
        phase=np.full(b, PLACE, dtype=np.int8),
        current=np.zeros(b, dtype=np.int8),
        tile_to_place=np.full(b, -1, dtype=np.int8),
        extra_turn=np.zeros(b, dtype=bool),
        last_cell=np.full(b, -1, dtype=np.int16),
        decisions=np.zeros(b, dtype=np.int32),
        board_tile=np.full((b, n), -1, dtype=np.int8),
        board_rot=np.zeros((b, n), dtype=np.int8),
        need=np.zeros((b, n), dtype=np.uint16),
        tile_cell=np.full((b, t), -1, dtype=np.int16),
        discarded=np.zeros((b, t), dtype=bool),
        dealt=np.zeros((b, t), dtype=bool),
        regular_deck=np.full((b, len(regular)), -1, dtype=np.int8),
        regular_len=np.zeros(b, dtype=np.int16),
        regular_next=np.zeros(b, dtype=np.int16),
        extra_deck=np.full((b, len(extra)), -1, dtype=np.int8),
        extra_len=np.zeros(b, dtype=np.int16),
        extra_next=np.zeros(b, dtype=np.int16),
        area=Partition.from_template(areas.area_template, b),
        system=Partition.from_template(areas.system_template, b) if spec.has_systems else None,
        ruleset_arrays={a.name: np.zeros((b, *a.game_shape(tiles)), dtype=a.dtype) for a in spec.arrays},
        occupant_seat=np.full((b, t), -1, dtype=np.int8),
        occupant_kind=np.zeros((b, t), dtype=np.int8),
        occupant_local=np.zeros((b, t), dtype=np.int8),
        supply=supply,
        score=np.zeros((b, MAX_PLAYERS), dtype=np.int32),
        frontier=np.full((b, frontier), -1, dtype=np.int16),
        frontier_len=np.zeros(b, dtype=np.int64),
        frontier_slot=np.full((b, n), -1, dtype=np.int16),
        frontier_need=np.zeros((b, frontier), dtype=np.uint16),
        place_fits=np.zeros((b, frontier, 4), dtype=bool),
        occupy_mask=np.zeros((b, spec.occupy_width), dtype=bool),
        events=[[] for _ in range(b)] if record_events else None,
    )


def _is_tile_id(t: object) -> bool:
    """An int (a bool or a float such as 3.7 is no tile id)."""
    return isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_))


def check_deck(deck: object, allowed: np.ndarray, name: str, spec: Ruleset | None = None) -> np.ndarray:
    """A user-given deck as an int8 array; ValueError naming what is wrong (with ``spec``, what the
    tiles that do not belong in it are)."""
    try:
        tiles = list(deck)  # type: ignore[call-overload]
    except TypeError:
        tiles = None
    if tiles is None or isinstance(deck, (str, bytes, dict)) or not all(_is_tile_id(t) for t in tiles):
        raise ValueError(f"{name} must be a list of tile ids, got {deck!r}")
    tiles = [int(t) for t in tiles]
    allowed_set = set(allowed.tolist())
    wrong = [t for t in tiles if t not in allowed_set]
    if wrong:
        what = "" if spec is None else f" ({_tile_kinds(spec, wrong)})"
        raise ValueError(f"{name} holds tile(s) {wrong} that are not {name.split('_')[0]} tiles of this game{what}")
    if len(set(tiles)) != len(tiles):
        dup = sorted({t for t in tiles if tiles.count(t) > 1})
        raise ValueError(f"{name} holds tile(s) {dup} more than once")
    return np.array(tiles, dtype=np.int8)


def _tile_kinds(spec: Ruleset, wrong: list[int]) -> str:
    """What the tiles ``wrong`` are, e.g. ``"80: menhir tile, 95: no such tile"`` (the ruleset's kind names)."""
    names = {kind: name.replace("_", " ") for name, kind in spec.vocabulary.kinds.items()}
    kinds = spec.tiles.TILE_KIND
    return ", ".join(
        f"{t}: {names[int(kinds[t])]} tile" if 0 <= t < len(kinds) else f"{t}: no such tile" for t in wrong
    )


def check_given_decks(
    spec: Ruleset, rules: Rules, regular: object | None, extra: object | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The one check of a user-given deck pair (Game, the envs' reset options, records, ``new_games``):
    tile ids of the right deck, each once, and the order the ruleset's rules impose (carcassonne with
    the river: V1.2, V1.3). Returns them as int8 arrays (None where not given); ValueError otherwise."""
    regular_tiles, extra_tiles = deck_tiles(spec, rules)
    out_regular = out_extra = None
    if regular is not None:
        out_regular = check_deck(regular, regular_tiles, "regular_deck", spec)
        spec.check_deck_order(spec.tiles, rules, out_regular)
    if extra is not None:
        out_extra = check_deck(extra, extra_tiles, f"{spec.extra_deck or 'extra'}_deck", spec)
    return out_regular, out_extra


def deal_decks(
    state: State,
    seeds: list[int | None] | None = None,
    regular_decks: list | None = None,
    extra_decks: list | None = None,
    games: np.ndarray | None = None,
) -> None:
    """Fill each game's decks (or those of ``games``, the i-th from ``seeds[i]`` etc.): given orders
    where given, else shuffled from its seed (R1.5). The decks are empty before."""
    spec, rules = state.spec, state.rules
    for i, game in enumerate(range(state.batch_size) if games is None else games.tolist()):
        rng = np.random.default_rng(None if seeds is None else seeds[i])
        regular, extra = spec.deal(spec.tiles, rules, rng)
        given = check_given_decks(
            spec,
            rules,
            None if regular_decks is None else regular_decks[i],
            None if extra_decks is None else extra_decks[i],
        )
        regular = regular if given[0] is None else given[0]
        extra = extra if given[1] is None else given[1]
        state.regular_deck[game, : len(regular)] = regular
        state.regular_len[game] = len(regular)
        state.extra_deck[game, : len(extra)] = extra
        state.extra_len[game] = len(extra)
        state.dealt[game, regular] = True
        state.dealt[game, extra] = True
