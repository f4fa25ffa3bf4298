"""The turn flow for B games at once (R3): draw, place, powers, occupy, score, extra turn, end.

Every rule function takes the state and ``g``, an int array of the games it acts
on; a game appears at most once in ``g``. ``step`` takes one flat action per
game (see actions.py) and runs each game on to its next decision, so games in
one batch may be in different phases. All games of a state share one ruleset;
the steps where rulesets differ call its rule functions (``Ruleset``; their
signatures and defaults are in ``hg_env.core.hooks``, and every one is called,
the default doing nothing more than the shared flow):

* ``filter_placements`` (T1): placements beyond edge matching (the Carcassonne river);
* ``after_place`` (T3): immediate powers (2020: logboat, hunting trap, shaman);
* ``decisions``: the ruleset's declared decisions (``Ruleset.decisions``: 2020's shaman retake and
  pit-trap choice, the Carcassonne abbot's recall), each offered, checked and applied in its phase;
* ``score_turn`` (T5): in-turn scoring beyond completed forests and rivers (monasteries);
* ``end_game`` / ``final_scoring`` (R8): what happens when the last tile is played.

Decision points (R3.7), with ``auto_skip_forced_actions=True`` (the default):

* ``place``    always offered: only a placeable tile is ever drawn (R4.4);
* ``occupy``   only if some occupant (or a declared decision of the occupy phase) is legal
  (skipped otherwise, R3.7);
* a declared decision's own phase: when the ruleset's rule functions put a game in it (2020: the
  shaman's retake after ``after_place``, the pit-trap choice from ``end_game``).

With ``auto_skip_forced_actions=False``, ``occupy`` is offered even when the only choice is ``none``.

Speed notes: a batch of one game (the AEC env, ``Game``) takes scalar paths (``*_one``); hot
paths test small arrays with ``np.count_nonzero``, whose fixed cost is a fifth of ``.any()``'s.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from hg_env.core.actions import ActionLayout, action_layout, pick_rows, sample_rows
from hg_env.core.areas import ATTACHED_VALUE, COUNTS, NUM_SUMS, OCCUPANTS, OPEN, TILE_BITS, TILES, tile_members
from hg_env.core.arrays import nonzero, sorted_unique
from hg_env.core.rules import Rules
from hg_env.core.ruleset import SYSTEM_PIECE, Decision, Ruleset
from hg_env.core.scoring import majority
from hg_env.core.state import (
    OCCUPY,
    OVER,
    PLACE,
    State,
    deal_decks,
    empty_state,
    player_counts,
)
from hg_env.core.tiles import ANIMALS, C_BONUS, C_FISH, C_TRIGGER, MAX_LOCAL_ZONES, Z_ENCLOSURE, Z_PATH, Z_POOL

_EARLIER = np.tril(np.ones((MAX_LOCAL_ZONES, MAX_LOCAL_ZONES), dtype=bool), -1)  # [j, k]: k < j
_ROW_ZERO = np.zeros(1, dtype=np.int64)  # the one game of a single-game state (read-only use)


# ---------------------------------------------------------------- setup


def new_games(
    num_players: int | list[int] | np.ndarray,
    rules: Rules | None = None,
    seeds: list[int | None] | None = None,
    regular_decks: list | None = None,
    extra_decks: list | None = None,
    record_events: bool = True,
) -> State:
    """B games, set up and waiting for seat 0 to place its first tile (R1).

    ``num_players`` is one count for all games or one per game; the batch size
    is the longest of the per-game arguments. A game's deck order is taken from
    ``regular_decks[i]`` / ``extra_decks[i]`` (menhir or bonus tiles) where
    given, else shuffled from ``seeds[i]``.
    """
    rules = rules or Rules()
    sizes = [len(x) for x in (seeds, regular_decks, extra_decks) if x is not None]
    if np.ndim(num_players):
        sizes.append(len(num_players))  # type: ignore[arg-type]
    batch = max(sizes, default=1)
    if any(n != batch for n in sizes):
        raise ValueError(f"per-game arguments disagree on the batch size: {sizes}")
    players = player_counts(np.broadcast_to(np.asarray(num_players), (batch,)))
    counts = np.unique(players)
    games = np.arange(batch)
    if len(counts) == 1:  # the common case: copies of the one set-up game
        state = _start_tile_placed(rules, int(counts[0])).take(np.zeros(batch, dtype=np.intp))
        state.events = [[] for _ in range(batch)] if record_events else None
    else:
        state = empty_state(rules, players, record_events)
        _place_start_tiles(state, games, players)
    deal_decks(state, seeds, regular_decks, extra_decks)
    _begin_regular_turn(state, games, advance=False)
    return state


def reset_games(state: State, games: np.ndarray, seeds: list[int | None], num_players=None) -> None:
    """Start new games in place of the given games (vector env auto-reset): the games ``new_games``
    would start from these seeds."""
    games = np.asarray(games, dtype=np.intp)
    players = state.num_players[games] if num_players is None else num_players
    _place_start_tiles(state, games, player_counts(np.broadcast_to(players, len(games))))
    deal_decks(state, seeds, games=games)
    _begin_regular_turn(state, games, advance=False)


def _place_start_tiles(state: State, games: np.ndarray, players: np.ndarray) -> None:
    """Empty boards with the start tile, full supplies, no decks yet, in the given games (these player counts)."""
    for count in np.unique(players):
        state.put(games[players == count], _start_tile_placed(state.rules, int(count)))


@cache
def _start_tile_placed(rules: Rules, num_players: int) -> State:
    """One game of ``num_players`` with its start tile on the board and no deck dealt yet (R1.2): the
    same for every game of these rules, so games start from a copy. Not a turn; read only."""
    state = empty_state(rules, np.array([num_players]), record_events=False)
    spec = rules.spec
    start = spec.start_tile(spec.tiles, rules)
    _put_tile(state, _ROW_ZERO, np.array([rules.board.origin]), np.array([rules.start_rotation]), np.array([start]))
    return state


# ---------------------------------------------------------------- decisions


def legal_actions(state: State, games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The legal actions of each game (or of ``games``, in that order) as compressed rows: game i's
    actions, in increasing order, are ``actions[indptr[i]:indptr[i + 1]]`` (none once it is over).

    A game has tens of legal actions, not thousands: this is what samplers and searches read;
    ``legal_action_mask`` spreads it over the flat action space."""
    layout = action_layout(state.rules)
    if games is None and state.batch_size == 1 and state.phase[0] == PLACE:  # one game placing: the common call
        slot, rot = state.place_fits[0, : state.frontier_len[0]].nonzero()
        action = np.sort(4 * state.frontier[0, slot].astype(np.int64) + rot)
        return np.array([0, len(action)]), action
    if games is None:
        count = state.batch_size
        rows, wanted = (
            _ROW_ZERO if count == 1 else np.arange(count),
            _ROW_ZERO if count == 1 else np.zeros(count, np.int64),
        )
    else:
        games = np.asarray(games, dtype=np.intp)
        count = len(games)
        rows = np.full(state.batch_size, -1, dtype=np.int64)
        rows[games] = np.arange(count)
        wanted = np.where(rows >= 0, 0, -1)  # _by_phase groups the games given a non-negative action
    # Parts, each ordered by row and then by action, appended in the order of their action ranges
    # (place < occupy < declared decisions < none): a stable sort by row alone then orders every row's actions.
    parts_rows, parts_actions = [], []
    for phase, g in _by_phase(state, wanted).items():
        r = rows[g]
        if phase == PLACE:
            gi, cell, rot = _placements_by_cell(state, g)
            parts_rows.append(r[gi])
            parts_actions.append(4 * cell + rot)
        elif phase == OCCUPY:
            gi, k = nonzero(state.occupy_mask[g])
            parts_rows.append(r[gi])
            parts_actions.append(layout.occupy + k)
        offers_none = phase == OCCUPY
        for decision, first, _ in _declared(layout, phase):
            gi, operand = decision.options(state, g)
            parts_rows.append(r[gi])
            parts_actions.append(first + operand.astype(np.int64))
            offers_none |= decision.offers_none
        if offers_none:
            parts_rows.append(r)
            parts_actions.append(np.full(len(g), layout.none, dtype=np.int64))
    if not parts_rows:
        return np.zeros(count + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if count == 1:  # one game: its actions in order
        action = np.sort(np.concatenate(parts_actions) if len(parts_actions) > 1 else parts_actions[0])
        return np.array([0, len(action)]), action
    row = np.concatenate(parts_rows)
    action = np.concatenate(parts_actions)
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=count), out=indptr[1:])
    if len(parts_rows) == 1 and games is None:  # one part (all games placing, say): rows already in order
        return indptr, action
    return indptr, action[np.argsort(row, kind="stable")]  # a merge of the parts' sorted runs


def _placements_by_cell(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(position in g, cell, rotation) of every legal placement of games g (place phase), ordered by
    game, then cell, then rotation."""
    cell, fits = _fits_by_cell(state, g)
    gi, j, rot = nonzero(fits.view(bool).reshape(*fits.shape, 4))
    return gi, cell[gi, j].astype(np.int64), rot


def _fits_by_cell(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[G, W] the frontier cells of games g (place phase) in increasing order, and their fit words
    (``_fit_words``): each game's slots sorted by cell, one row sort. Padding (cell -1) comes first.

    Slots at or past a game's frontier length fit nothing: ``_store_fits`` clears them."""
    width, slots = int(state.frontier_len[g].max()), state.frontier.shape[1]
    bits = slots.bit_length()  # a slot number fits in the low bits
    key = state.frontier[g, :width].astype(np.int32)  # -1 past each game's frontier: sorts first
    key <<= bits
    key |= np.arange(width, dtype=np.int32)
    key.sort(axis=1)
    slot = key & ((1 << bits) - 1)
    slot += (g * slots).astype(slot.dtype)[:, None]  # flat; B * F < 2**31 (2**31 / F games need ~400 GB)
    fits = _fit_words(state).take(slot)
    key >>= bits
    return key, fits


def sample_legal(state: State, rng: np.random.Generator, games: np.ndarray | None = None) -> np.ndarray:
    """One uniformly random legal action per game (or per game of ``games``: distinct, in that order),
    -1 for finished games: exactly the draw ``sample_rows(*legal_actions(state, games), rng)`` makes,
    without listing the placements (a game placing has tens of them; it needs one)."""
    if games is None and state.batch_size == 1:
        return sample_rows(*legal_actions(state), rng)
    rows = np.arange(state.batch_size) if games is None else np.asarray(games, dtype=np.intp)
    u = rng.random(len(rows))
    out = np.full(len(rows), -1, dtype=np.int64)
    phase = state.phase[rows]
    place = np.flatnonzero(phase == PLACE)
    if len(place):
        out[place] = _sample_placements(state, rows[place], u[place])
    other = np.flatnonzero((phase != PLACE) & (phase != OVER))
    if len(other):
        out[other] = pick_rows(*legal_actions(state, rows[other]), u[other])
    return out


def _sample_placements(state: State, g: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``pick_rows`` of games g's legal placements (place phase): the ``floor(u * count)``-th in action
    order, found from the fits per slot counted along the cells, then the rotations of that slot."""
    cell, fits = _fits_by_cell(state, g)
    per_slot = np.bitwise_count(fits)  # each rotation is a 0/1 byte of the word
    total = np.cumsum(per_slot, axis=1, dtype=np.int32)
    pick = (u * total[:, -1]).astype(np.int32)
    rows = np.arange(len(g))
    j = np.minimum((total <= pick[:, None]).sum(1), fits.shape[1] - 1)  # the slot holding the pick
    k = pick - (total[rows, j] - per_slot[rows, j])  # which of its fitting rotations
    rot = (np.cumsum(fits[rows, j].view(np.uint8).reshape(-1, 4), 1) <= k[:, None]).sum(1)
    return np.where(total[:, -1] > 0, 4 * cell[rows, j].astype(np.int64) + rot, -1)


def _fit_words(state: State) -> np.ndarray:
    """[B * F] uint32 view of ``place_fits``: a slot's four rotations as one word, for flat takes
    (numpy gathers a 4-byte trailing row per index many times slower than one word; tiles.COMPAT_WORDS)."""
    return state.place_fits.view(np.uint32).reshape(-1)


def legal_action_mask(state: State, games: np.ndarray | None = None) -> np.ndarray:
    """[B, A] bool: the legal actions of each game (all False once it is over).

    With ``games``, only those games: [len(games), A], rows in that order."""
    if games is None and state.batch_size == 1 and state.phase[0] == PLACE:  # one game placing: no sort
        mask = np.zeros((1, action_layout(state.rules).size), dtype=bool)
        slot, rot = state.place_fits[0, : state.frontier_len[0]].nonzero()
        mask[0, 4 * state.frontier[0, slot].astype(np.int64) + rot] = True
        return mask
    indptr, actions = legal_actions(state, games)
    count = len(indptr) - 1
    mask = np.zeros((count, action_layout(state.rules).size), dtype=bool)
    if count == 1:
        mask[0, actions] = True
    else:
        mask[np.repeat(np.arange(count), np.diff(indptr)), actions] = True
    return mask


def placements(state: State, games: np.ndarray) -> np.ndarray:
    """[len(games), N, 4] bool: where the drawn tile fits, per cell and rotation (place phase)."""
    games = np.asarray(games, dtype=np.intp)
    out = np.zeros((len(games), state.board.num_cells, 4), dtype=bool)
    width = int(state.frontier_len[games].max(initial=0))
    gi, slot = nonzero(state.frontier[games, :width] >= 0)
    out[gi, state.frontier[games[gi], slot]] = state.place_fits[games[gi], slot]
    return out


def check_actions(state: State, actions: np.ndarray) -> np.ndarray:
    """[B] bool legal, where a negative action means "leave this game alone"."""
    a = np.asarray(actions, dtype=np.int64)
    if a.shape != (state.batch_size,):
        raise ValueError(f"expected {state.batch_size} actions (one per game), got shape {a.shape}")
    legal = a < 0
    for phase, g in _by_phase(state, a).items():
        legal[g] = _legal_in_phase(state, phase, g, a[g])
    return legal


def _by_phase(state: State, actions: np.ndarray) -> dict[int, np.ndarray]:
    """{phase: games} for the games that get an action (non-negative)."""
    if state.batch_size == 1:  # the single-game fast path
        return {int(state.phase[0]): np.zeros(1, dtype=np.intp)} if actions[0] >= 0 else {}
    games = (actions >= 0).nonzero()[0]
    phase = state.phase[games]
    return {int(p): games[phase == p] for p in np.bincount(phase).nonzero()[0]}


@cache
def _declared_by_phase(layout: ActionLayout) -> dict[int, tuple[tuple[Decision, int, int], ...]]:
    out: dict[int, tuple[tuple[Decision, int, int], ...]] = {}
    for entry in layout.decisions:
        out[entry[0].phase] = (*out.get(entry[0].phase, ()), entry)
    return out


def _declared(layout: ActionLayout, phase: int) -> tuple[tuple[Decision, int, int], ...]:
    """(decision, first action, width) of the ruleset's declared decisions asked in ``phase``."""
    return _declared_by_phase(layout).get(phase, ()) if layout.decisions else ()


def _declared_legal(state: State, g: np.ndarray, a: np.ndarray, entry: tuple[Decision, int, int]) -> np.ndarray:
    """[len(g)] bool: action a is one of the declared decision's legal options in games g."""
    decision, first, width = entry
    inside = (a >= first) & (a < first + width)
    if not np.count_nonzero(inside):
        return inside
    gi, operand = decision.options(state, g)
    offered = gi * width + operand  # increasing: options are ordered by game, then operand
    wanted = np.arange(len(g)) * width + (a - first)
    at = np.minimum(np.searchsorted(offered, wanted), max(len(offered) - 1, 0))
    return inside & (offered[at] == wanted) if len(offered) else inside & False


def declared_options(state: State, g: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The declared decision ``name``'s legal operands in games g (in its phase): ``(position, operand)``."""
    decision = state.spec.decision(name)
    if decision is None:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)
    return decision.options(state, g)


def _legal_in_phase(state: State, phase: int, g: np.ndarray, a: np.ndarray) -> np.ndarray:
    """[len(g)] bool: actions ``a`` (all >= 0, see _by_phase) are legal in games g, all in ``phase``."""
    layout = action_layout(state.rules)
    if phase == PLACE:
        place = a < layout.occupy
        cell, rot = np.divmod(np.where(place, a, 0), 4)
        slot = state.frontier_slot[g, cell].astype(np.intp)
        return place & (slot >= 0) & state.place_fits[g, np.maximum(slot, 0), rot]
    if phase == OCCUPY:
        occupy = (a >= layout.occupy) & (a < layout.occupy_end)
        legal = (a == layout.none) | occupy & state.occupy_mask[g, np.where(occupy, a - layout.occupy, 0)]
    else:
        legal = np.zeros(len(g), dtype=bool)  # OVER: no action is legal
    for entry in _declared(layout, phase):
        legal |= _declared_legal(state, g, a, entry)
        if entry[0].offers_none:
            legal |= a == layout.none
    return legal


def _legal_one(state: State, action: int) -> bool:
    """``_legal_in_phase`` for the one game of a single-game state, action >= 0: the common phases
    with Python scalars."""
    phase, layout = int(state.phase[0]), action_layout(state.rules)
    if phase == PLACE:
        if action >= layout.occupy:
            return False
        cell, rot = divmod(action, 4)
        slot = int(state.frontier_slot[0, cell])
        return slot >= 0 and bool(state.place_fits[0, slot, rot])
    if phase == OCCUPY and not _declared(layout, OCCUPY):
        if action == layout.none:
            return True
        return layout.occupy <= action < layout.occupy_end and bool(state.occupy_mask[0, action - layout.occupy])
    return bool(_legal_in_phase(state, phase, _ROW_ZERO, np.array([action]))[0])


def step(state: State, actions: np.ndarray | list[int]) -> None:
    """Apply one decision per game (negative = skip that game), in place.

    Raises ValueError naming the game, seat, phase and move if any action is
    illegal; the state is then unchanged.
    """
    a = np.asarray(actions, dtype=np.int64)
    if a.shape != (state.batch_size,):
        raise ValueError(f"expected {state.batch_size} actions (one per game), got shape {a.shape}")
    groups = _by_phase(state, a)
    if state.batch_size == 1:  # one game: a scalar check
        if groups and not _legal_one(state, int(a[0])):
            raise ValueError(illegal_message(state, a, _ROW_ZERO))
    else:
        illegal = [g[~_legal_in_phase(state, phase, g, a[g])] for phase, g in groups.items()]
        if any(len(bad) for bad in illegal):
            raise ValueError(illegal_message(state, a, np.sort(np.concatenate(illegal))))
    layout = action_layout(state.rules)
    if state.batch_size == 1:
        state.decisions[0] += len(groups)
    else:
        state.decisions[a >= 0] += 1
    finish = []  # games whose tile is done (T5 on): finished together, one pass for the whole batch
    g = groups.get(PLACE)
    if g is not None:
        cell, rot = np.divmod(a[g], 4)
        _put_tile(state, g, cell, rot, state.tile_to_place[g].astype(np.intp))
        state.last_cell[g] = cell
        state.tile_to_place[g] = -1
        finish.append(_after_place(state, g))
    g = groups.get(OCCUPY)
    if g is not None:
        chosen = (a[g] >= layout.occupy) & (a[g] < layout.occupy_end)
        _occupy(state, g[chosen], a[g[chosen]] - layout.occupy)
        declared = _declared(layout, OCCUPY)
        if not declared:
            finish.append(g)
        else:  # a declared decision taken instead of an occupant (the Carcassonne abbot's recall)
            rest = np.ones(len(g), dtype=bool)
            for decision, first, width in declared:
                picked = (a[g] >= first) & (a[g] < first + width)
                if np.count_nonzero(picked):
                    finish.append(decision.apply(state, g[picked], a[g[picked]] - first))
                    rest &= ~picked
            finish.append(g[rest])
    for phase, g in groups.items():  # the ruleset's own phases: each decision applies, "none" too
        if phase in (PLACE, OCCUPY):
            continue
        for decision, first, width in _declared(layout, phase):
            picked = ((a[g] >= first) & (a[g] < first + width)) | (decision.offers_none & (a[g] == layout.none))
            if np.count_nonzero(picked):
                operand = np.where(a[g[picked]] == layout.none, -1, a[g[picked]] - first)
                finish.append(decision.apply(state, g[picked], operand))
    if finish:
        _finish_tile(state, finish[0] if len(finish) == 1 else np.sort(np.concatenate(finish)))


def illegal_message(state: State, actions: np.ndarray, games: np.ndarray) -> str:
    layout = action_layout(state.rules)
    parts = []
    for i in games[:3]:
        a, phase = int(actions[i]), state.spec.phases[int(state.phase[i])]
        if 0 <= a < layout.size:
            move = f"{a} ({layout.describe(a, int(state.tile_to_place[i]))})"
        else:
            move = f"{a} (outside the action space [0, {layout.size}))"
        who = "the game is over" if phase == "over" else f"seat {state.current[i]} to {phase}"
        parts.append(f"game {i}: action {move} is not legal ({who})")
    more = f" (and {len(games) - 3} more)" if len(games) > 3 else ""
    return "illegal action: " + "; ".join(parts) + more


# ---------------------------------------------------------------- turn flow


def _begin_regular_turn(state: State, g: np.ndarray, advance: bool = True) -> None:
    """Next player (R3.6) draws a placeable regular tile (T1), or the game ends (R8.1)."""
    if not len(g):
        return
    if len(g) == 1:  # one game: scalar bookkeeping
        game = int(g[0])
        if advance:
            state.current[game] = (int(state.current[game]) + 1) % int(state.num_players[game])
        state.extra_turn[game] = False
        if _draw_one(state, g, state.regular_deck, state.regular_len, state.regular_next):
            state.phase[game] = PLACE
        else:
            _end_game(state, g)
        return
    if advance:
        state.current[g] = (state.current[g] + 1) % state.num_players[g]
    state.extra_turn[g] = False
    found = draw_tile(state, g, extra=False)
    state.phase[g[found]] = PLACE
    _end_game(state, g[~found])


def draw_tile(state: State, g: np.ndarray, extra: bool) -> np.ndarray:
    """T1: draw until a placeable tile comes up, discarding the others (R4.4); from the extra deck
    (menhir, gold) where ``extra``. The turn flow's draw, and ``search.redraw``'s.

    Returns [len(g)] bool: a tile was found (it is then ``tile_to_place``)."""
    deck, length, nxt = (
        (state.extra_deck, state.extra_len, state.extra_next)
        if extra
        else (state.regular_deck, state.regular_len, state.regular_next)
    )
    tiles, restrict = state.spec.tiles, state.spec.filter_placements
    num_codes = tiles.COMPAT.shape[1]
    if len(g) == 1:  # one game: scalars and one lookup per tile drawn
        return np.array([_draw_one(state, g, deck, length, nxt)])
    found = np.zeros(len(g), dtype=bool)
    todo = np.arange(len(g))
    while len(todo):
        todo = todo[nxt[g[todo]] < length[g[todo]]]
        if not len(todo):
            break
        gg = g[todo]
        tile = deck[gg, nxt[gg]].astype(np.intp)
        nxt[gg] += 1
        # Only frontier cells can take a tile: look the tile up against their need codes alone (code 0
        # past a game's frontier, which no tile fits).
        width = int(state.frontier_len[gg].max())
        need = state.frontier_need[gg, :width]
        fits = restrict(state, gg, tile, tiles.COMPAT_WORDS.take(tile[:, None] * num_codes + need))  # [G, L] words
        ok = fits.any(1)
        if ok.all():  # the common case: every game's first tile fits
            state.tile_to_place[gg] = tile
            _store_fits(state, gg, fits)
            found[todo] = True
            break
        state.tile_to_place[gg[ok]] = tile[ok]
        _store_fits(state, gg[ok], fits[ok])
        found[todo[ok]] = True
        state.discarded[gg[~ok], tile[~ok]] = True
        log_events(state, gg[~ok], ({"type": "TILE_DISCARDED", "tile": int(t)} for t in tile[~ok]))
        todo = todo[~ok]
    return found


def _store_fits(state: State, g: np.ndarray, fits: np.ndarray) -> None:
    """``place_fits`` of games g from their [G, L] fit words (frontier slots 0..L-1), and slot L cleared.

    Slots at or past a game's frontier length fit nothing (``_fits_by_cell`` relies on it). The
    last draw left that true for the old length; a placement shortens the frontier by at most one and
    L is at least the new length, so slot L is the only one past it that may hold an old fit."""
    words = _fit_words(state).reshape(state.batch_size, -1)
    width = fits.shape[1]
    words[g, :width] = fits
    if width < words.shape[1]:
        words[g, width] = 0


def _draw_one(state: State, g: np.ndarray, deck: np.ndarray, length: np.ndarray, nxt: np.ndarray) -> bool:
    """``draw_tile`` for the one game of ``g``: the same tiles drawn, discarded and fitted, with scalar bookkeeping."""
    tiles, restrict = state.spec.tiles, state.spec.filter_placements
    game = int(g[0])
    num_codes = tiles.COMPAT.shape[1]
    width = int(state.frontier_len[game])
    need = state.frontier_need[game, :width]
    while nxt[game] < length[game]:
        tile = int(deck[game, nxt[game]])
        nxt[game] += 1
        fits = tiles.COMPAT_WORDS.take(np.intp(tile * num_codes) + need)  # [L] words (a wide index)
        fits = restrict(state, g, np.array([tile]), fits[None])[0]
        if np.count_nonzero(fits):
            state.tile_to_place[game] = tile
            words = state.place_fits[game].view(np.uint32)[:, 0]
            words[:width] = fits
            words[width:] = 0
            return True
        state.discarded[game, tile] = True
        log_events(state, [game], [{"type": "TILE_DISCARDED", "tile": tile}])
    return False


def _put_tile(state: State, g: np.ndarray, cell: np.ndarray, rot: np.ndarray, tile: np.ndarray) -> None:
    """T2: put tiles on cells and join their zones to their neighbours' (R2.13)."""
    if state.batch_size == 1:
        _put_one_tile(state, int(cell[0]), int(rot[0]), int(tile[0]))
        return
    tiles = state.spec.tiles
    state.board_tile[g, cell] = tile
    state.board_rot[g, cell] = rot
    state.tile_cell[g, tile] = cell
    state.need[g, cell] |= tiles.occupied_flag
    neighbor = state.board.neighbor[cell]  # [G, dir], -1 off the board
    on_board = neighbor >= 0
    target = np.where(on_board, neighbor, cell[:, None])  # off-board: or 0 into the (occupied) cell itself
    flat = target + (g * state.board.num_cells)[:, None]  # flat reads and writes: [G, 4] of them
    shown = tiles.SHOWN_NEED[tile, rot]
    need = state.need.reshape(-1)
    need[flat] |= np.where(on_board, shown, 0).astype(np.uint16)
    there = np.where(on_board, state.board_tile.reshape(-1)[flat], -1).astype(np.intp)
    _update_frontier(state, g, cell, target, on_board & (there < 0))
    gi, d = nonzero(there >= 0)
    if not len(gi):
        return
    nb = there[gi, d]
    mine = tiles.SIDE_ZONES[tile[gi], rot[gi], d]  # [pairs, slot]
    theirs = tiles.SIDE_ZONES[nb, state.board_rot[g[gi], neighbor[gi, d]], (d + 2) % 4]
    split = tiles.SIDE_SPLIT[tile[gi], rot[gi], d]
    ri = split.nonzero()[0]
    # slot 1 meets slot 1; on split sides (rivers, roads) the banks cross: 0 meets 2 and 2 meets 0
    a = np.concatenate([mine[:, 1], mine[ri, 0], mine[ri, 2]])
    b = np.concatenate([theirs[:, 1], theirs[ri, 2], theirs[ri, 0]])
    tables = state.spec.areas
    state.area.union(g[np.concatenate([gi, gi[ri], gi[ri]])], a, b, tables)
    if state.system is not None:
        state.system.union(g[gi[ri]], mine[ri, 1], theirs[ri, 1], tables)


def _put_one_tile(state: State, cell: int, rot: int, tile: int) -> None:
    """``_put_tile`` in a batch of one game, with Python scalars (the same arrays, the same unions)."""
    tiles = state.spec.tiles
    board_tile, board_rot, need = state.board_tile[0], state.board_rot[0], state.need[0]
    board_tile[cell] = tile
    board_rot[cell] = rot
    state.tile_cell[0, tile] = cell
    need[cell] |= tiles.occupied_flag
    neighbors = state.board.neighbor[cell].tolist()
    shown = tiles.SHOWN_NEED[tile, rot].tolist()
    targets, empty, joined = [], [], []
    for d, nb in enumerate(neighbors):
        if nb < 0:
            targets.append(cell)
            empty.append(False)
            continue
        need[nb] |= shown[d]
        there = int(board_tile[nb])
        targets.append(nb)
        empty.append(there < 0)
        if there >= 0:
            joined.append((d, there, int(board_rot[nb])))
    _update_one_frontier(state, 0, cell, targets, empty)
    if not joined:
        return
    mine = tiles.SIDE_ZONES[tile, rot].tolist()  # [dir][slot]
    middle_a, middle_b, banks_a, banks_b, split_a, split_b = [], [], [], [], [], []
    for d, there, there_rot in joined:
        ours, theirs = mine[d], tiles.SIDE_ZONES[there, there_rot, (d + 2) % 4].tolist()
        middle_a.append(ours[1])
        middle_b.append(theirs[1])
        if ours[0] >= 0:  # a split side (river banks, road sides): the banks cross, 0 meets 2
            banks_a.append((ours[0], ours[2]))
            banks_b.append((theirs[2], theirs[0]))
            split_a.append(ours[1])
            split_b.append(theirs[1])
    # the order of _put_tile: every middle slot, then slot 0 of the split sides, then slot 2
    a = middle_a + [x for x, _ in banks_a] + [y for _, y in banks_a]
    b = middle_b + [x for x, _ in banks_b] + [y for _, y in banks_b]
    tables = state.spec.areas
    state.area.union_one(a, b, tables)
    if state.system is not None and split_a:
        state.system.union_one(split_a, split_b, tables)


def _update_frontier(state: State, g: np.ndarray, cell: np.ndarray, neighbor: np.ndarray, empty: np.ndarray) -> None:
    """The placed cells leave the frontier (the last slot moves into theirs), their empty neighbours
    not yet in it join at the end. ``neighbor`` [G, 4] cells, ``empty`` [G, 4] on the board and empty."""
    if len(g) == 1:  # one game (the single-game env): a few scalar updates cost less than array calls
        _update_one_frontier(state, int(g[0]), int(cell[0]), neighbor[0].tolist(), empty[0].tolist())
        return
    slot = state.frontier_slot[g, cell]
    inside = slot >= 0  # the start tile is placed on no frontier
    gr, sr = g[inside], slot[inside]
    last = state.frontier_len[gr] - 1
    moved = state.frontier[gr, last]
    state.frontier[gr, sr] = moved
    state.frontier_need[gr, sr] = state.frontier_need[gr, last]
    state.frontier_slot[gr, moved] = sr
    state.frontier[gr, last] = -1
    state.frontier_need[gr, last] = 0
    state.frontier_slot[g, cell] = -1
    state.frontier_len[gr] -= 1
    joins = empty & (state.frontier_slot[g[:, None], neighbor] < 0)
    gi, d = nonzero(joins)
    if len(gi):
        new = neighbor[gi, d]
        rank = np.arange(len(gi)) if len(g) == 1 else np.arange(len(gi)) - np.searchsorted(gi, gi)  # within its game
        slots = state.frontier_len[g[gi]] + rank
        state.frontier[g[gi], slots] = new
        state.frontier_slot[g[gi], new] = slots
        state.frontier_len[g] += joins.sum(1)
    gi, d = nonzero(empty)  # every empty neighbour's need changed (the new tile shows it a side)
    game, nb = g[gi], neighbor[gi, d]
    state.frontier_need[game, state.frontier_slot[game, nb]] = state.need[game, nb]


def _update_one_frontier(state: State, game: int, cell: int, neighbor: list[int], empty: list[bool]) -> None:
    """``_update_frontier`` for one game, with Python scalars (the same slots, the same order)."""
    frontier, slots, length = state.frontier[game], state.frontier_slot[game], state.frontier_len
    frontier_need, need = state.frontier_need[game], state.need[game]
    slot = int(slots[cell])
    if slot >= 0:
        last = int(length[game]) - 1
        moved = int(frontier[last])
        frontier[slot] = moved
        frontier_need[slot] = frontier_need[last]
        slots[moved] = slot
        frontier[last] = -1
        frontier_need[last] = 0
        length[game] = last
    slots[cell] = -1
    for nb, free in zip(neighbor, empty):
        if not free:
            continue
        if slots[nb] < 0:
            n = int(length[game])
            frontier[n] = nb
            slots[nb] = n
            length[game] = n + 1
        frontier_need[slots[nb]] = need[nb]  # the new tile shows it a side


def _after_place(state: State, g: np.ndarray) -> np.ndarray:
    """T3: the ruleset's immediate powers (which may ask a decision first), then the occupant decision.
    Returns the games with nothing to decide: their tile is done (``_finish_tile``)."""
    return enter_occupy(state, state.spec.after_place(state, g))


def enter_occupy(state: State, g: np.ndarray) -> np.ndarray:
    """T4: offer the legal occupants (R5.8). Returns the games that skip the decision (none legal):
    the caller goes straight on to scoring them (``_finish_tile``)."""
    if not len(g):
        return g
    mask = _occupy_targets(state, g)
    state.occupy_mask[g] = mask
    declared = state.spec.decisions_in.get(OCCUPY, ())  # chosen instead of an occupant
    if len(g) == 1 and not declared and state.rules.auto_skip_forced_actions:  # one game
        if np.count_nonzero(mask):
            state.phase[g] = OCCUPY
            return g[:0]
        return g
    if state.rules.auto_skip_forced_actions:
        offered = mask.any(1)
        for decision in declared:  # a choice too (the Carcassonne abbot's recall)
            offered[decision.options(state, g)[0]] = True
        skip = ~offered
    else:
        skip = np.zeros(len(g), dtype=bool)
    state.phase[g[~skip]] = OCCUPY
    return g[skip]


def _finish_tile(state: State, g: np.ndarray) -> None:
    """T5 scoring, then T6 and the next turn."""
    if not len(g):
        return
    trigger_areas = _score_closed(state, g)
    state.spec.score_turn(state, g)
    _end_of_turn(state, g, trigger_areas)


def _end_of_turn(state: State, g: np.ndarray, trigger_areas: dict[int, list[set[int]]]) -> None:
    """T6 (R3.2, R3.3): a completed forest with a trigger (menhir, gold) earns one extra-tile turn.
    ``trigger_areas`` is ``_score_closed``'s: {position in g: the tile-id sets of those forests}."""
    if not trigger_areas:  # the common case: no such forest closed anywhere
        _begin_regular_turn(state, g)
        return
    closed = np.zeros(len(g), dtype=bool)
    closed[list(trigger_areas)] = True
    extra = closed & ~state.extra_turn[g]  # no chain: an extra-tile turn earns none (R3.3, K2)
    ge = g[extra]
    if len(ge) and not state.rules.extra_turn_after_last_tile:
        ge = ge[_regular_tile_left(state, ge)]  # Q3 option: the last tile's extra turn is lost
    found = draw_tile(state, ge, extra=True)  # R3.3: none placeable -> no extra turn
    gx = ge[found]
    state.extra_turn[gx] = True
    state.phase[gx] = PLACE
    if state.events is not None and len(gx):
        where = {int(x): i for i, x in enumerate(g)}
        kind = f"{state.spec.extra_deck.upper()}_EXTRA_TURN"
        for game in gx:
            tiles = sorted(set().union(*trigger_areas[where[int(game)]]))
            state.events[game].append({"type": kind, "player": int(state.current[game]), "tileIds": tiles})
    in_extra = np.zeros(state.batch_size, dtype=bool)
    in_extra[gx] = True
    _begin_regular_turn(state, g[~in_extra[g]])


def _regular_tile_left(state: State, g: np.ndarray) -> np.ndarray:
    """[len(g)] bool: the regular deck still holds a tile placeable on the board."""
    idx = np.arange(state.regular_deck.shape[1])
    live = (idx >= state.regular_next[g, None]) & (idx < state.regular_len[g, None])
    tiles = np.where(live, state.regular_deck[g], 0).astype(np.intp)
    fits = state.spec.tiles.COMPAT[tiles[:, :, None], state.need[g][:, None, :]].any(axis=(2, 3))
    return (fits & live).any(1)


# ---------------------------------------------------------------- occupants


def own_figures(state: State, g: np.ndarray, piece: int) -> np.ndarray:
    """[len(g), T] bool: tiles holding a figure of this piece kind of the deciding seat."""
    return (state.occupant_seat[g] == state.current[g, None]) & (state.occupant_kind[g] == piece)


@cache
def occupant_table(rules: Rules) -> np.ndarray:
    """[tile, occupy_width] bool: the occupant targets each tile offers (R5.1, R5.7), by the ruleset."""
    spec = rules.spec
    return spec.occupant_table(spec.tiles, rules)


@cache
def occupant_columns(spec: Ruleset) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per occupy-mask column: its piece, its local zone, whether it counts in the system partition,
    and the kind's index."""
    piece, local, system, kind = [], [], [], []
    for k, occupant in enumerate(spec.occupants):
        piece += [occupant.piece] * occupant.slots
        local += list(range(occupant.slots))
        system += [occupant.partition == "system"] * occupant.slots
        kind += [k] * occupant.slots
    return np.array(piece), np.array(local), np.array(system, dtype=bool), np.array(kind)


def _occupy_targets(state: State, g: np.ndarray) -> np.ndarray:
    """[len(g), K] bool legal occupants on the tile just placed (R5.3-R5.8)."""
    spec, tiles = state.spec, state.spec.tiles
    piece, local, system, _ = occupant_columns(spec)
    if len(g) == 1:  # one game: look the few candidates up one by one
        game = int(g[0])
        tile = int(state.board_tile[game, state.last_cell[game]])
        mask = occupant_table(state.rules)[tile] & (state.supply[game, state.current[game], piece] > 0)
        for k in mask.nonzero()[0].tolist():
            part = state.system if system[k] else state.area  # R5.5 a hut's river system, R5.4 an area
            zone = tiles.TILE_ZONE[tile, local[k]]
            if np.count_nonzero(part.sums[game, part.parent[game, zone], OCCUPANTS:]):
                mask[k] = False
        return mask[None]
    tile = state.board_tile[g, state.last_cell[g]].astype(np.intp)
    mask = occupant_table(state.rules)[tile] & (state.supply[g, state.current[g]][:, piece] > 0)
    gi, k = nonzero(mask)  # look up only the candidates: most columns are no target on a given tile
    if not len(gi):
        return mask
    game, zone = g[gi], tiles.TILE_ZONE[tile[gi], local[k]]
    in_system = system[k]
    taken = np.zeros(len(gi), dtype=bool)
    area = ~in_system
    taken[area] = state.area.occupied(game[area], zone[area])  # R5.4
    if in_system.any():  # R5.5: a hut needs a river system without huts
        taken[in_system] = state.system.occupied(game[in_system], zone[in_system])
    mask[gi[taken], k[taken]] = False
    return mask


def _occupy(state: State, g: np.ndarray, target: np.ndarray) -> None:
    """T4: put the chosen occupant (a column of the occupy mask) on the tile just placed."""
    if not len(g):
        return
    tile = state.board_tile[g, state.last_cell[g]].astype(np.intp)
    piece_of, local_of, system_of, _ = occupant_columns(state.spec)
    piece, local = piece_of[target], local_of[target]
    zone = state.spec.tiles.TILE_ZONE[tile, local]
    seat = state.current[g]
    for in_system, part in ((False, state.area), (True, state.system)):
        sel = system_of[target] == in_system
        if np.count_nonzero(sel):
            gk = g[sel]
            part.occupants[gk, part.find(gk, zone[sel]), seat[sel]] += 1
    state.supply[g, seat, piece] -= 1
    state.occupant_seat[g, tile] = seat
    state.occupant_kind[g, tile] = piece
    state.occupant_local[g, tile] = local


def remove_figures(state: State, g: np.ndarray, tile: np.ndarray) -> None:
    """Return the figures on (game, tile) pairs to their owners' supplies."""
    if not len(g):
        return
    seat = state.occupant_seat[g, tile]
    kind = state.occupant_kind[g, tile]
    zone = state.spec.tiles.TILE_ZONE[tile, state.occupant_local[g, tile]]
    on_system = kind == SYSTEM_PIECE
    for sel, part in ((~on_system, state.area), (on_system, state.system)):
        if sel.any():
            np.add.at(part.occupants, (g[sel], part.find(g[sel], zone[sel]), seat[sel]), -1)
    np.add.at(state.supply, (g, seat, kind), 1)
    state.occupant_seat[g, tile] = -1


# ---------------------------------------------------------------- helpers for rule functions


def occupied_roots(state: State, g: np.ndarray, systems: bool) -> tuple[np.ndarray, np.ndarray]:
    """(position in g, root) of the areas holding a figure in games g (or, with ``systems``, the path
    systems holding a system piece: 2020's huts), each once, ordered by game and root: found from the
    figures, not the zones."""
    kind = state.occupant_kind[g]
    rows, t = nonzero((state.occupant_seat[g] >= 0) & ((kind == SYSTEM_PIECE) if systems else (kind != SYSTEM_PIECE)))
    if not len(rows):
        return rows, t
    part, num_zones = (state.system if systems else state.area), state.spec.tiles.num_zones
    roots = part.find(g[rows], state.spec.tiles.TILE_ZONE[t, state.occupant_local[g[rows], t]])
    pairs = sorted_unique(rows.astype(np.int64) * num_zones + roots)
    return pairs // num_zones, pairs % num_zones


def special_root(state: State, g: np.ndarray, power: str) -> np.ndarray:
    """Area (or system, for lakes) root of a special power's zone; -1 if its tile is not placed."""
    tiles = state.spec.tiles
    zone = tiles.SPECIAL_ZONE[power]
    part = state.system if tiles.ZONE_TYPE[zone] == Z_POOL else state.area  # a lake's power acts on its river system
    placed = state.tile_cell[g, tiles.ZONE_TILE[zone]] >= 0
    return np.where(placed, part.find(g, np.full(len(g), zone)), -1)


def animal_dict(counts: np.ndarray) -> dict[str, int]:
    return {name: int(c) for name, c in zip(ANIMALS, counts)}


def log_events(state: State, games: np.ndarray, events) -> None:
    """Append one event per game (an iterable of dicts), when the state records events."""
    if state.events is None:
        return
    for game, event in zip(games, events):
        state.events[game].append(event)


# ---------------------------------------------------------------- T5 scoring


def _score_closed(state: State, g: np.ndarray) -> dict[int, list[set[int]]]:
    """T5 (R6.4): score the forests and rivers (cities, roads) the tile just closed; return their pawns.

    Returns {position in g: the tile-id sets of its closed forests holding a trigger (menhir, gold;
    T6)}, for the games that closed any (the sets are empty when the state records no events)."""
    if len(g) == 1:
        triggers = _score_closed_one(state, int(g[0]))
        return {0: triggers} if triggers else {}
    spec = state.spec
    tiles, points = spec.tiles, spec.points
    tile = state.board_tile[g, state.last_cell[g]].astype(np.intp)
    trigger_areas: dict[int, list[set[int]]] = {}
    zone = tiles.CLOSABLE_TABLE[tile]  # [G, C] the tile's forests and rivers, -1 after them
    base = (g * tiles.num_zones)[:, None]
    roots = state.area.parent.reshape(-1).take(base + np.maximum(zone, 0))
    closed = (zone >= 0) & (state.area.sums.reshape(-1).take((base + roots) * NUM_SUMS + OPEN) == 0)
    if not closed.any():  # the common case: most tiles close nothing
        return trigger_areas
    some = closed.any(1).nonzero()[0]
    roots, closed = roots[some], closed[some]
    width = closed.shape[1]
    same = (roots[:, :, None] == roots[:, None, :]) & closed[:, None, :] & _EARLIER[:width, :width]
    rows, cols = nonzero(closed & ~same.any(-1))  # each closed area once
    sg, root = g[some[rows]], roots[rows, cols]
    rows = some[rows]
    count = state.area.tile_count[sg, root].astype(np.int64)
    counts = state.area.counts[sg, root].astype(np.int64)
    enclosed = tiles.ZONE_TYPE[root] == Z_ENCLOSURE
    fish = counts[:, C_FISH] + state.area.attached_value[sg, root]  # R2.17 riverFish
    value = np.where(enclosed, points.enclosure(count, counts[:, C_BONUS]), points.path(count, fish))
    scorers = majority(state.area.occupants[sg, root])
    np.add.at(state.score, sg, value[:, None] * scorers)
    members = tile_members(state.area.tiles[sg, root], tiles.num_tiles)
    if state.events is not None:
        for i, x in enumerate(sg):
            if not scorers[i].any():
                continue
            event = _closed_event(spec, bool(enclosed[i]), int(counts[i, C_BONUS]), int(fish[i]))
            event.update(
                scorers=np.flatnonzero(scorers[i]).tolist(),
                points=int(value[i]),
                tileCount=int(count[i]),
                tileIds=np.flatnonzero(members[i]).tolist(),
            )
            state.events[x].append(event)
    for i in np.flatnonzero(enclosed & (counts[:, C_TRIGGER] > 0)).tolist():  # the tile sets only name tiles in events
        tile_ids = set() if state.events is None else set(np.flatnonzero(members[i]).tolist())
        trigger_areas.setdefault(int(rows[i]), []).append(tile_ids)
    # R6.4: every pawn of a scored area returns, majority and minority alike.
    figure = members & (state.occupant_seat[sg] >= 0) & (state.occupant_kind[sg] != SYSTEM_PIECE)
    pi, pt = nonzero(figure)
    zone = tiles.TILE_ZONE[pt, state.occupant_local[sg[pi], pt]]
    inside = state.area.find(sg[pi], zone) == root[pi]
    remove_figures(state, sg[pi[inside]], pt[inside])
    return trigger_areas


def _score_closed_one(state: State, game: int) -> list[set[int]]:
    """``_score_closed`` for one game, with Python scalars: most tiles close nothing, and a closed
    forest or river is scored from one row of its root's sums. Returns that game's trigger sets."""
    spec, area = state.spec, state.area
    tiles, points = spec.tiles, spec.points
    zones = tiles.CLOSABLE_ZONES[int(state.board_tile[game, state.last_cell[game]])]
    if not len(zones):
        return []
    roots = area.parent[game, zones].tolist()
    is_open = area.sums[game, roots, OPEN].tolist()
    closed = list(dict.fromkeys(root for root, left in zip(roots, is_open) if not left))  # distinct, in order
    triggers: list[set[int]] = []
    for root in closed:
        row = area.sums[game, root].tolist()
        count, bonus, trigger = row[TILES], row[COUNTS + C_BONUS], row[COUNTS + C_TRIGGER]
        fish = row[COUNTS + C_FISH] + row[ATTACHED_VALUE]  # R2.17 riverFish
        enclosed = tiles.ZONE_TYPE[root] == Z_ENCLOSURE
        value = points.enclosure(count, bonus) if enclosed else points.path(count, fish)  # the batched path's formulas
        occupants = row[OCCUPANTS:]
        top = max(occupants)
        scorers = [seat for seat, n in enumerate(occupants) if top > 0 and n == top]  # R6.1
        for seat in scorers:
            state.score[game, seat] += value
        members = _bit_ids(area.bits[game, root, TILE_BITS].tolist())
        if state.events is not None and scorers:
            event = _closed_event(spec, bool(enclosed), bonus, fish)
            event.update(scorers=scorers, points=value, tileCount=count, tileIds=members)
            state.events[game].append(event)
        if enclosed and trigger > 0:
            triggers.append(set(members))
        # R6.4: every pawn of a scored area returns, majority and minority alike.
        seat, kind, local = (
            state.occupant_seat[game, members],
            state.occupant_kind[game, members],
            state.occupant_local[game, members],
        )
        figure = ((seat >= 0) & (kind != SYSTEM_PIECE)).nonzero()[0]
        if len(figure):
            pt = np.asarray(members)[figure]
            inside = area.parent[game, tiles.TILE_ZONE[pt, local[figure]]] == root
            remove_figures(state, np.full(int(inside.sum()), game), pt[inside])
    return triggers


def _bit_ids(words: list[int]) -> list[int]:
    """The numbers of the set bits of a bitset given as 64-bit words, ascending."""
    ids = []
    for w, word in enumerate(words):
        while word:
            low = word & -word
            ids.append(64 * w + low.bit_length() - 1)
            word ^= low
    return ids


def _closed_event(spec: Ruleset, enclosed: bool, bonus: int, fish: int) -> dict:
    """The start of a completed forest's / river's scoring event (Appendix B names, per ruleset)."""
    name = spec.area_names[Z_ENCLOSURE if enclosed else Z_PATH].upper()
    if enclosed:
        return {"type": f"{name}_SCORED", spec.bonus_event_key: bonus}
    return {"type": f"{name}_SCORED", "fish": fish} if spec.points.path_fish else {"type": f"{name}_SCORED"}


# ---------------------------------------------------------------- end of game


def _end_game(state: State, g: np.ndarray) -> None:
    """R8.1: no placeable regular tile left; final scoring (the ruleset may ask a decision first)."""
    if not len(g):
        return
    state.tile_to_place[g] = -1
    finish_game(state, state.spec.end_game(state, g), choice=None)


def finish_game(state: State, g: np.ndarray, choice: np.ndarray | None) -> None:
    """R8.2: the ruleset's final scoring, then the winners (shared victory, R8.2.4)."""
    if not len(g):
        return
    state.spec.final_scoring(state, g, choice)
    state.phase[g] = OVER
    if state.events is not None:
        for x in g:
            scores = state.score[x, : state.num_players[x]]
            top = int(scores.max())
            state.events[x].append(
                {"type": "WINNERS", "players": np.flatnonzero(scores == top).tolist(), "points": top}
            )


def winners(state: State) -> list[list[int]]:
    """Seats sharing the highest score in each game (meaningful once it is over)."""
    out = []
    for x in range(state.batch_size):
        scores = state.score[x, : state.num_players[x]]
        out.append(np.flatnonzero(scores == scores.max()).tolist())
    return out
