"""The turn flow for B games at once (R3): draw, place, powers, occupy, score, extra turn, end.

Every rule function takes the state and ``g``, an int array of the games it acts
on; a game appears at most once in ``g``. ``step`` takes one flat action per
game (see actions.py) and runs each game on to its next decision, so games in
one batch may be in different phases.

Decision points (R3.7), with ``auto_skip_forced_actions=True`` (the default):

* ``place``    always offered: only a placeable tile is ever drawn (R4.4);
* ``retake``   after the shaman tile, only if the placer has a pawn on the board (Q9);
* ``occupy``   only if some occupant is legal (skipped otherwise, R3.7 / D13);
* ``pit_trap`` only with ``pit_trap_deer_choice="player_choice"``, and only if
  there is more than one choice.

With ``auto_skip_forced_actions=False``, ``occupy`` and ``pit_trap`` are offered
even when the only choice is forced (``none`` / the single choice).
"""

from __future__ import annotations

import numpy as np

from hg_env.core.actions import action_layout
from hg_env.core.areas import WORTH_WEIGHTS, tile_members
from hg_env.core.rules import Rules
from hg_env.core.scoring import (
    deer_eaten,
    forest_value,
    hunting_trap_value,
    logboat_value,
    majority,
    meadow_value,
    pit_trap_bonus,
    pit_trap_eaten_range,
    river_system_value,
    river_value,
)
from hg_env.core.state import (
    HUT,
    OCCUPY,
    OVER,
    PAWN,
    PHASE_NAMES,
    PIT_TRAP,
    PLACE,
    RETAKE,
    State,
    deal_decks,
    empty_state,
)
from hg_env.core.tiles import (
    ANIMALS,
    AUROCHS,
    C_FISH,
    C_LAKES,
    C_MENHIRS,
    C_MUSHROOMS,
    COMPAT,
    DEER,
    HUT_TARGETS,
    MAMMOTH,
    MAX_LOCAL_ZONES,
    NUM_TILES,
    NUM_ZONES,
    PAWN_TARGETS,
    RIVER,
    SIDE_TYPE,
    SIDE_ZONES,
    SPECIAL_TILE,
    SPECIAL_ZONE,
    START_TILE,
    TIGER,
    TILE_ZONE,
    Z_FOREST,
    Z_MEADOW,
    Z_RIVER,
    ZONE_ANIMALS,
    ZONE_TILE,
    ZONE_TYPE,
)

_EARLIER = np.tril(np.ones((MAX_LOCAL_ZONES, MAX_LOCAL_ZONES), dtype=bool), -1)  # [j, k]: k < j
_IMMEDIATE_POWER = np.isin(np.arange(NUM_TILES), [SPECIAL_TILE[p] for p in ("shaman", "logboat", "hunting_trap")])
_CLOSABLE = (TILE_ZONE >= 0) & np.isin(ZONE_TYPE[np.maximum(TILE_ZONE, 0)], [Z_FOREST, Z_RIVER])  # [tile, local]
_COMPAT_ROWS = COMPAT.reshape(-1, 4)  # row tile * _NEED_CODES + need code: fits per rotation
_NEED_CODES = COMPAT.shape[1]
_OPPOSITE_SHIFT = (2 * ((np.arange(4) + 2) % 4)).astype(np.uint16)  # need-code bits of the facing side


# ---------------------------------------------------------------- setup


def new_games(
    num_players: int | list[int] | np.ndarray,
    rules: Rules | None = None,
    seeds: list[int | None] | None = None,
    regular_decks: list | None = None,
    menhir_decks: list | None = None,
    record_events: bool = True,
) -> State:
    """B games, set up and waiting for seat 0 to place its first tile (R1).

    ``num_players`` is one count for all games or one per game; the batch size
    is the longest of the per-game arguments. A game's deck order is taken from
    ``regular_decks[i]`` / ``menhir_decks[i]`` where given, else shuffled from
    ``seeds[i]``.
    """
    rules = rules or Rules()
    sizes = [len(x) for x in (seeds, regular_decks, menhir_decks) if x is not None]
    if np.ndim(num_players):
        sizes.append(len(num_players))  # type: ignore[arg-type]
    batch = max(sizes, default=1)
    if any(n != batch for n in sizes):
        raise ValueError(f"per-game arguments disagree on the batch size: {sizes}")
    state = empty_state(rules, np.broadcast_to(np.asarray(num_players), (batch,)).copy(), record_events)
    deal_decks(state, seeds, regular_decks, menhir_decks)
    games = np.arange(batch)
    origin = np.full(batch, rules.board.origin)
    start = np.full(batch, START_TILE)
    _put_tile(state, games, origin, np.full(batch, rules.start_rotation), start)  # R1.4: not a turn
    _begin_regular_turn(state, games, advance=False)
    return state


def reset_games(state: State, games: np.ndarray, seeds: list[int | None], num_players=None) -> None:
    """Start new games in place of the given games (vector env auto-reset)."""
    games = np.asarray(games, dtype=np.intp)
    players = state.num_players[games] if num_players is None else num_players
    fresh = new_games(players, state.rules, seeds=seeds, record_events=state.events is not None)
    state.put(games, fresh)


# ---------------------------------------------------------------- decisions


def legal_action_mask(state: State, games: np.ndarray | None = None) -> np.ndarray:
    """[B, A] bool: the legal actions of each game (all False once it is over).

    With ``games``, only those games: [len(games), A], rows in that order."""
    layout = action_layout(state.rules.reach)
    if games is None:
        count = state.batch_size
        rows, wanted = np.arange(count), np.zeros(count, dtype=np.int64)
    else:
        games = np.asarray(games, dtype=np.intp)
        count = len(games)
        rows = np.full(state.batch_size, -1, dtype=np.int64)
        rows[games] = np.arange(count)
        wanted = np.where(rows >= 0, 0, -1)  # _by_phase groups the games given a non-negative action
    mask = np.zeros((count, layout.size), dtype=bool)
    for phase, g in _by_phase(state, wanted).items():
        r = rows[g]
        if phase == PLACE:
            mask[r, : layout.pawn] = state.place_mask[g].reshape(len(g), -1)
        elif phase == OCCUPY:
            mask[r, layout.pawn : layout.retake] = state.occupy_mask[g]
        elif phase == RETAKE:
            gi, ti = np.nonzero(_own_pawns(state, g))
            mask[r[gi], layout.retake + state.tile_cell[g[gi], ti]] = True
        elif phase == PIT_TRAP:
            k = np.arange(layout.none - layout.pit)
            mask[r, layout.pit : layout.none] = (k >= state.pit_range[g, :1]) & (k <= state.pit_range[g, 1:])
        if phase in (OCCUPY, RETAKE):
            mask[r, layout.none] = True
    return mask


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
    return {int(p): games[phase == p] for p in np.bincount(phase, minlength=len(PHASE_NAMES)).nonzero()[0]}


def _legal_in_phase(state: State, phase: int, g: np.ndarray, a: np.ndarray) -> np.ndarray:
    """[len(g)] bool: actions ``a`` (all >= 0, see _by_phase) are legal in games g, all in ``phase``."""
    layout = action_layout(state.rules.reach)
    if phase == PLACE:
        place = a < layout.pawn
        return place & state.place_mask.reshape(state.batch_size, -1)[g, np.where(place, a, 0)]
    if phase == OCCUPY:
        occupy = (a >= layout.pawn) & (a < layout.retake)
        return (a == layout.none) | occupy & state.occupy_mask[g, np.where(occupy, a - layout.pawn, 0)]
    if phase == RETAKE:
        retake = (a >= layout.retake) & (a < layout.pit)
        tile = state.board_tile[g, np.where(retake, a - layout.retake, 0)].astype(np.intp)
        own = _own_pawns(state, g)[np.arange(len(g)), np.maximum(tile, 0)]
        return (a == layout.none) | retake & (tile >= 0) & own
    if phase == PIT_TRAP:
        k = a - layout.pit
        return (k >= state.pit_range[g, 0]) & (k <= state.pit_range[g, 1]) & (a < layout.none)
    return np.zeros(len(g), dtype=bool)  # OVER: no action is legal


def step(state: State, actions: np.ndarray | list[int]) -> None:
    """Apply one decision per game (negative = skip that game), in place.

    Raises ValueError naming the game, seat, phase and move if any action is
    illegal; the state is then unchanged.
    """
    a = np.asarray(actions, dtype=np.int64)
    if a.shape != (state.batch_size,):
        raise ValueError(f"expected {state.batch_size} actions (one per game), got shape {a.shape}")
    groups = _by_phase(state, a)
    illegal = [g[~_legal_in_phase(state, phase, g, a[g])] for phase, g in groups.items()]
    if any(len(bad) for bad in illegal):
        raise ValueError(illegal_message(state, a, np.sort(np.concatenate(illegal))))
    layout = action_layout(state.rules.reach)
    state.decisions[a >= 0] += 1
    g = groups.get(PLACE)
    if g is not None:
        cell, rot = np.divmod(a[g], 4)
        _put_tile(state, g, cell, rot, state.tile_to_place[g].astype(np.intp))
        state.last_cell[g] = cell
        state.tile_to_place[g] = -1
        _after_place(state, g)
    g = groups.get(RETAKE)
    if g is not None:
        retake = a[g] != layout.none
        _retake(state, g[retake], a[g[retake]] - layout.retake)
        _enter_occupy(state, g)
    g = groups.get(OCCUPY)
    if g is not None:
        chosen = a[g] != layout.none
        _occupy(state, g[chosen], a[g[chosen]] - layout.pawn)
        _finish_tile(state, g)
    g = groups.get(PIT_TRAP)
    if g is not None:
        _final_scoring(state, g, eaten_in=(a[g] - layout.pit).astype(np.int64))


def illegal_message(state: State, actions: np.ndarray, games: np.ndarray) -> str:
    layout = action_layout(state.rules.reach)
    parts = []
    for i in games[:3]:
        a, phase = int(actions[i]), PHASE_NAMES[state.phase[i]]
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
    if advance:
        state.current[g] = (state.current[g] + 1) % state.num_players[g]
    state.extra_turn[g] = False
    found = _draw(state, g, menhir=False)
    state.phase[g[found]] = PLACE
    _end_game(state, g[~found])


def _draw(state: State, g: np.ndarray, menhir: bool) -> np.ndarray:
    """T1: draw until a placeable tile comes up, discarding the others (R4.4).

    Returns [len(g)] bool: a tile was found (it is then ``tile_to_place``)."""
    deck, length, nxt = (
        (state.menhir_deck, state.menhir_len, state.menhir_next)
        if menhir
        else (state.regular_deck, state.regular_len, state.regular_next)
    )
    found = np.zeros(len(g), dtype=bool)
    todo = np.arange(len(g))
    while len(todo):
        todo = todo[nxt[g[todo]] < length[g[todo]]]
        if not len(todo):
            break
        gg = g[todo]
        tile = deck[gg, nxt[gg]].astype(np.intp)
        nxt[gg] += 1
        fits = _COMPAT_ROWS.take(tile[:, None] * _NEED_CODES + state.need[gg], axis=0)  # [G, N, rot]
        ok = fits.reshape(len(gg), -1).any(1)
        if ok.all():  # the common case: every game's first tile fits
            state.tile_to_place[gg] = tile
            state.place_mask[gg] = fits
            found[todo] = True
            break
        state.tile_to_place[gg[ok]] = tile[ok]
        state.place_mask[gg[ok]] = fits[ok]
        found[todo[ok]] = True
        state.discarded[gg[~ok], tile[~ok]] = True
        _log(state, gg[~ok], ({"type": "TILE_DISCARDED", "tile": int(t)} for t in tile[~ok]))
        todo = todo[~ok]
    return found


def _put_tile(state: State, g: np.ndarray, cell: np.ndarray, rot: np.ndarray, tile: np.ndarray) -> None:
    """T2: put tiles on cells and join their zones to their neighbours' (R2.13)."""
    state.board_tile[g, cell] = tile
    state.board_rot[g, cell] = rot
    state.tile_cell[g, tile] = cell
    state.need[g, cell] |= 256
    gg = g[:, None]
    neighbor = state.board.neighbor[cell]  # [G, dir], -1 off the board
    on_board = neighbor >= 0
    target = np.where(on_board, neighbor, cell[:, None])  # off-board updates land on the (occupied) cell
    state.need[gg, target] |= SIDE_TYPE[tile, rot].astype(np.uint16) << _OPPOSITE_SHIFT
    there = np.where(on_board, state.board_tile[gg, target], -1).astype(np.intp)
    gi, d = (there >= 0).nonzero()
    if not len(gi):
        return
    nb = there[gi, d]
    mine = SIDE_ZONES[tile[gi], rot[gi], d]  # [pairs, slot]
    theirs = SIDE_ZONES[nb, state.board_rot[g[gi], neighbor[gi, d]], (d + 2) % 4]
    river = SIDE_TYPE[tile[gi], rot[gi], d] == RIVER
    ri = river.nonzero()[0]
    # slot 1 meets slot 1; on river sides the meadows cross: 0 meets 2 and 2 meets 0
    a = np.concatenate([mine[:, 1], mine[ri, 0], mine[ri, 2]])
    b = np.concatenate([theirs[:, 1], theirs[ri, 2], theirs[ri, 0]])
    state.area.union(g[np.concatenate([gi, gi[ri], gi[ri]])], a, b)
    state.system.union(g[gi[ri]], mine[ri, 1], theirs[ri, 1])


def _after_place(state: State, g: np.ndarray) -> None:
    """T3: immediate powers, then the shaman's retake or the occupant decision."""
    tile = state.board_tile[g, state.last_cell[g]]
    if not _IMMEDIATE_POWER[tile].any():  # the common case: no power on the tile
        _enter_occupy(state, g)
        return
    _logboat(state, g[tile == SPECIAL_TILE["logboat"]])
    _hunting_trap(state, g[tile == SPECIAL_TILE["hunting_trap"]])
    shaman = tile == SPECIAL_TILE["shaman"]
    if shaman.any():
        gs = g[shaman]
        retake = _own_pawns(state, gs).any(1)  # Q9: only with a pawn on the board
        state.phase[gs[retake]] = RETAKE
        shaman[shaman] = retake
    _enter_occupy(state, g[~shaman])


def _enter_occupy(state: State, g: np.ndarray) -> None:
    """T4: offer the legal occupants (R5.8), or skip straight to scoring."""
    if not len(g):
        return
    mask = _occupy_targets(state, g)
    state.occupy_mask[g] = mask
    skip = ~mask.any(1) if state.rules.auto_skip_forced_actions else np.zeros(len(g), dtype=bool)
    state.phase[g[~skip]] = OCCUPY
    _finish_tile(state, g[skip])


def _finish_tile(state: State, g: np.ndarray) -> None:
    """T5 scoring, then T6 and the next turn."""
    if not len(g):
        return
    menhir_forests = _score_closed(state, g)
    _end_of_turn(state, g, menhir_forests)


def _end_of_turn(state: State, g: np.ndarray, menhir_forests: list[list[int]] | None) -> None:
    """T6 (R3.2, R3.3): a menhir forest closed in a regular turn earns one extra turn."""
    if not any(menhir_forests):  # the common case: no menhir forest closed anywhere
        _begin_regular_turn(state, g)
        return
    closed = np.array([bool(m) for m in menhir_forests], dtype=bool)
    extra = closed & ~state.extra_turn[g]
    ge = g[extra]
    if len(ge) and not state.rules.extra_turn_after_last_tile:
        ge = ge[_regular_tile_left(state, ge)]  # Q3 option: the last tile's extra turn is lost
    found = _draw(state, ge, menhir=True)  # R3.3: none placeable -> no extra turn
    gx = ge[found]
    state.extra_turn[gx] = True
    state.phase[gx] = PLACE
    if state.events is not None and len(gx):
        where = {int(x): i for i, x in enumerate(g)}
        for game in gx:
            tiles = sorted(set().union(*menhir_forests[where[int(game)]]))
            state.events[game].append(
                {"type": "MENHIR_EXTRA_TURN", "player": int(state.current[game]), "tileIds": tiles}
            )
    in_extra = np.zeros(state.batch_size, dtype=bool)
    in_extra[gx] = True
    _begin_regular_turn(state, g[~in_extra[g]])


def _regular_tile_left(state: State, g: np.ndarray) -> np.ndarray:
    """[len(g)] bool: the regular deck still holds a tile placeable on the board."""
    idx = np.arange(state.regular_deck.shape[1])
    live = (idx >= state.regular_next[g, None]) & (idx < state.regular_len[g, None])
    tiles = np.where(live, state.regular_deck[g], 0).astype(np.intp)
    fits = COMPAT[tiles[:, :, None], state.need[g][:, None, :]].any(axis=(2, 3))
    return (fits & live).any(1)


# ---------------------------------------------------------------- occupants


def _own_pawns(state: State, g: np.ndarray) -> np.ndarray:
    """[len(g), 95] bool: tiles holding a pawn of the deciding seat."""
    return (state.occupant_seat[g] == state.current[g, None]) & (state.occupant_kind[g] == PAWN)


def _occupy_targets(state: State, g: np.ndarray) -> np.ndarray:
    """[len(g), 18] bool legal occupants on the tile just placed (R5.3-R5.8)."""
    tile = state.board_tile[g, state.last_cell[g]].astype(np.intp)
    zones = np.maximum(TILE_ZONE[tile], 0)
    gg, seat = g[:, None], state.current[g]
    area_free = state.area.occupants[gg, state.area.find(gg, zones)].sum(-1) == 0  # R5.4
    pawn = PAWN_TARGETS[tile] & area_free[:, :8] & (state.supply[g, seat, PAWN] > 0)[:, None]
    hut = HUT_TARGETS[state.rules.hut_targets][tile] & (state.supply[g, seat, HUT] > 0)[:, None]
    if hut.any():  # most tiles hold no water: skip the river-system lookups
        hut &= state.system.occupants[gg, state.system.find(gg, zones)].sum(-1) == 0  # R5.5
    return np.concatenate([pawn, hut], axis=1)


def _occupy(state: State, g: np.ndarray, target: np.ndarray) -> None:
    """T4: put a pawn (target 0-7) or a hut (target 8-17) on the tile just placed."""
    if not len(g):
        return
    tile = state.board_tile[g, state.last_cell[g]].astype(np.intp)
    kind = (target >= 8).astype(np.int8)
    local = np.where(kind == HUT, target - 8, target)
    zone = TILE_ZONE[tile, local]
    seat = state.current[g]
    for k, part in ((PAWN, state.area), (HUT, state.system)):
        sel = kind == k
        if sel.any():
            gk = g[sel]
            part.occupants[gk, part.find(gk, zone[sel]), seat[sel]] += 1
            state.supply[gk, seat[sel], k] -= 1
    state.occupant_seat[g, tile] = seat
    state.occupant_kind[g, tile] = kind
    state.occupant_local[g, tile] = local


def _remove_pawns(state: State, g: np.ndarray, tile: np.ndarray) -> None:
    """Return the pawns on (game, tile) pairs to their owners' supplies."""
    if not len(g):
        return
    seat = state.occupant_seat[g, tile]
    zone = TILE_ZONE[tile, state.occupant_local[g, tile]]
    np.add.at(state.area.occupants, (g, state.area.find(g, zone), seat), -1)
    np.add.at(state.supply, (g, seat, PAWN), 1)
    state.occupant_seat[g, tile] = -1


def _retake(state: State, g: np.ndarray, cell: np.ndarray) -> None:
    """R7.1: the shaman's placer takes one own pawn back, without scoring it."""
    _remove_pawns(state, g, state.board_tile[g, cell].astype(np.intp))


# ---------------------------------------------------------------- immediate powers


def _logboat(state: State, g: np.ndarray) -> None:
    """R7.4-R7.6: 2 points per lake of the logboat's river system, to the placer."""
    if not len(g):
        return
    root = state.system.find(g, np.full(len(g), SPECIAL_ZONE["logboat"]))
    lakes = state.system.counts[g, root, C_LAKES].astype(np.int64)
    points = logboat_value(lakes)
    state.score[g, state.current[g]] += points
    _log(
        state,
        g,
        (
            {"type": "LOGBOAT_SCORED", "player": int(state.current[x]), "points": int(p), "lakes": int(n)}
            for x, p, n in zip(g, points, lakes)
        ),
    )


def _meadow_zones_near(state: State, g: np.ndarray, cell: np.ndarray, root: np.ndarray) -> tuple:
    """Meadow zones of meadow ``root`` on tiles in the 3x3 block of ``cell`` (R7.8, R7.14).

    Returns (game row, zone) index arrays of those zones."""
    block = state.board.block[cell]  # [G, 9]
    tiles = np.where(block >= 0, state.board_tile[g[:, None], np.maximum(block, 0)], -1)
    zones = np.where(tiles[:, :, None] >= 0, TILE_ZONE[np.maximum(tiles, 0)], -1).reshape(len(g), -1)
    safe = np.maximum(zones, 0)
    meadow = (zones >= 0) & (ZONE_TYPE[safe] == Z_MEADOW)
    inside = meadow & (state.area.find(g[:, None], safe) == root[:, None])
    rows, cols = np.nonzero(inside)
    return rows, zones[rows, cols]


def _live_animals(state: State, g: np.ndarray, zone: np.ndarray) -> np.ndarray:
    """[n, 4] non-cancelled animals on (game, zone) pairs."""
    return ZONE_ANIMALS[zone] - state.cancelled[g, zone]


def _hunting_trap(state: State, g: np.ndarray) -> None:
    """R7.8-R7.13: the placer scores the animals in range, which are then cancelled."""
    if not len(g):
        return
    root = state.area.find(g, np.full(len(g), SPECIAL_ZONE["hunting_trap"]))
    rows, zone = _meadow_zones_near(state, g, state.last_cell[g], root)
    animals = _live_animals(state, g[rows], zone)
    totals = np.zeros((len(g), 4), dtype=np.int64)
    np.add.at(totals, rows, animals)
    m, a, d, t = totals.T
    fire = np.zeros(len(g), dtype=bool)
    if state.rules.wildfire_affects_hunting_trap:
        fire = root == _special_root(state, g, "wildfire")
    points = hunting_trap_value(m, a, d, t, fire)
    state.score[g, state.current[g]] += points
    _log(
        state,
        g[points > 0],
        (
            {
                "type": "HUNTING_TRAP_SCORED",
                "player": int(state.current[x]),
                "points": int(p),
                "animals": _animal_dict(c),
            }
            for x, p, c in zip(g[points > 0], points[points > 0], totals[points > 0])
        ),
    )
    cancel = animals.copy()
    if state.rules.hunting_trap_cancel == "scored_and_pairs":  # Q5: excess tigers stay uncovered
        pairs = deer_eaten(d, t, fire)[rows]
        tigers = animals[:, TIGER].astype(np.int64)
        before = np.cumsum(tigers) - tigers  # tigers met earlier, in zone order...
        group_start = np.searchsorted(rows, rows)
        before -= before[group_start]  # ...within the same game
        cancel[:, TIGER] = np.clip(pairs - before, 0, tigers)
    state.cancelled[g[rows], zone] += cancel.astype(np.int8)
    removed = np.zeros((len(g), 4), dtype=np.int64)
    np.add.at(removed, rows, cancel)
    state.area.counts[g, root, MAMMOTH : TIGER + 1] -= removed.astype(np.int16)
    state.area.worth[g, root] -= (removed @ WORTH_WEIGHTS[MAMMOTH : TIGER + 1]).astype(np.int16)


def _special_root(state: State, g: np.ndarray, power: str) -> np.ndarray:
    """Area (or system, for lakes) root of a special power's zone; -1 if its tile is not placed."""
    zone = SPECIAL_ZONE[power]
    part = state.system if power in ("raft", "logboat") else state.area
    placed = state.tile_cell[g, ZONE_TILE[zone]] >= 0
    return np.where(placed, part.find(g, np.full(len(g), zone)), -1)


# ---------------------------------------------------------------- T5 scoring


def _score_closed(state: State, g: np.ndarray) -> list[list[set[int]]]:
    """T5 (R6.4): score the forests and rivers the tile just closed; return their pawns.

    Returns, per game, the tile-id sets of closed forests holding a menhir (T6)."""
    tile = state.board_tile[g, state.last_cell[g]].astype(np.intp)
    gg = g[:, None]
    roots = state.area.find(gg, np.maximum(TILE_ZONE[tile], 0))
    closed = _CLOSABLE[tile] & (state.area.open[gg, roots] == 0)
    menhir_forests: list[list[set[int]]] = [[] for _ in g]
    if not closed.any():
        return menhir_forests
    same = (roots[:, :, None] == roots[:, None, :]) & closed[:, None, :] & _EARLIER
    first = closed & ~same.any(-1)
    rows, cols = first.nonzero()
    sg, root = g[rows], roots[rows, cols]
    tiles = state.area.tile_count[sg, root].astype(np.int64)
    counts = state.area.counts[sg, root].astype(np.int64)
    forest = ZONE_TYPE[root] == Z_FOREST
    fish = counts[:, C_FISH] + state.area.lake_fish[sg, root]  # R2.17 riverFish
    value = np.where(forest, forest_value(tiles, counts[:, C_MUSHROOMS]), river_value(tiles, fish))
    scorers = majority(state.area.occupants[sg, root])
    np.add.at(state.score, sg, value[:, None] * scorers)
    members = tile_members(state.area.tiles[sg, root])
    if state.events is not None:
        for i, x in enumerate(sg):
            if not scorers[i].any():
                continue
            ids = np.flatnonzero(members[i]).tolist()
            if forest[i]:
                event = {"type": "FOREST_SCORED", "mushroomGroups": int(counts[i, C_MUSHROOMS])}
            else:
                event = {"type": "RIVER_SCORED", "fish": int(fish[i])}
            event.update(
                scorers=np.flatnonzero(scorers[i]).tolist(), points=int(value[i]), tileCount=int(tiles[i]), tileIds=ids
            )
            state.events[x].append(event)
    for i in np.flatnonzero(forest & (counts[:, C_MENHIRS] > 0)):
        menhir_forests[rows[i]].append(set(np.flatnonzero(members[i]).tolist()))
    # R6.4: every pawn of a scored area returns, majority and minority alike.
    pawn = members & (state.occupant_seat[sg] >= 0) & (state.occupant_kind[sg] == PAWN)
    pi, pt = pawn.nonzero()
    zone = TILE_ZONE[pt, state.occupant_local[sg[pi], pt]]
    inside = state.area.find(sg[pi], zone) == root[pi]
    _remove_pawns(state, sg[pi[inside]], pt[inside])
    return menhir_forests


# ---------------------------------------------------------------- end of game


def _end_game(state: State, g: np.ndarray) -> None:
    """R8.1: no placeable regular tile left; final scoring (or the pit-trap choice first)."""
    if not len(g):
        return
    state.tile_to_place[g] = -1
    if state.rules.pit_trap_deer_choice == "player_choice":
        root = _special_root(state, g, "pit_trap")
        has = root >= 0
        if has.any():
            gp, rp = g[has], root[has]
            occupants = state.area.occupants[gp, rp]
            hunted = occupants.sum(-1) > 0
            lo, hi = _pit_eaten_range(state, gp, rp)
            ask = hunted & ((hi > lo) | (not state.rules.auto_skip_forced_actions))
            if ask.any():
                ga = gp[ask]
                state.phase[ga] = PIT_TRAP
                state.current[ga] = majority(occupants[ask]).argmax(-1)  # the first scorer in seat order
                state.pit_range[ga] = np.stack([lo[ask], hi[ask]], axis=1)
                done = np.zeros(state.batch_size, dtype=bool)
                done[ga] = True
                g = g[~done[g]]
    _final_scoring(state, g, eaten_in=None)


def _pit_stats(state: State, g: np.ndarray, root: np.ndarray) -> tuple:
    """In-range mammoths, aurochs, deer of the pit-trap meadow, and its deer, tigers, fire."""
    cell = state.tile_cell[g, SPECIAL_TILE["pit_trap"]]
    rows, zone = _meadow_zones_near(state, g, cell, root)
    inside = np.zeros((len(g), 4), dtype=np.int64)
    np.add.at(inside, rows, _live_animals(state, g[rows], zone))
    counts = state.area.counts[g, root].astype(np.int64)
    fire = root == _special_root(state, g, "wildfire")
    return inside, counts[:, DEER], counts[:, TIGER], fire


def _pit_eaten_range(state: State, g: np.ndarray, root: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    inside, deer, tigers, fire = _pit_stats(state, g, root)
    return pit_trap_eaten_range(deer, tigers, deer - inside[:, DEER], inside[:, DEER], fire)


def _final_scoring(state: State, g: np.ndarray, eaten_in: np.ndarray | None) -> None:
    """R8.2: drop gatherers and fishers, score meadows and river systems, name the winners."""
    if not len(g):
        return
    # 1. Gatherers and fishers leave without scoring.
    gi, ti = np.nonzero((state.occupant_seat[g] >= 0) & (state.occupant_kind[g] == PAWN))
    zone = TILE_ZONE[ti, state.occupant_local[g[gi], ti]]
    leaving = ZONE_TYPE[zone] != Z_MEADOW
    _remove_pawns(state, g[gi[leaving]], ti[leaving])
    # 2. Meadows with hunters (R8.3), the wildfire (R7.17) and the pit trap (R7.15).
    roots = state.area.all_roots(g)
    occupants = state.area.occupants[g]
    hunted = (roots == np.arange(NUM_ZONES)) & (ZONE_TYPE == Z_MEADOW) & (occupants.sum(-1) > 0)
    rows, root = np.nonzero(hunted)
    counts = state.area.counts[g[rows], root].astype(np.int64)
    m, a, d, t = counts[:, MAMMOTH], counts[:, AUROCHS], counts[:, DEER], counts[:, TIGER]
    fire = root == _special_root(state, g, "wildfire")[rows]
    base = meadow_value(m, a, d, t, fire)
    bonus = np.zeros_like(base)
    pit_root = _special_root(state, g, "pit_trap")
    at_pit = root == pit_root[rows]
    in_range = np.zeros((len(rows), 4), dtype=np.int64)
    if at_pit.any():
        pr = np.flatnonzero(at_pit)
        inside, *_ = _pit_stats(state, g[rows[pr]], root[pr])
        in_range[pr] = inside
        chosen = None if eaten_in is None else eaten_in[rows[pr]]
        bonus[pr] = pit_trap_bonus(
            d[pr],
            t[pr],
            d[pr] - inside[:, DEER],
            inside[:, MAMMOTH],
            inside[:, AUROCHS],
            inside[:, DEER],
            fire[pr],
            chosen,
        )
    scorers = majority(occupants[rows, root])
    np.add.at(state.score, g[rows], (base + bonus)[:, None] * scorers)
    if state.events is not None:
        for i in range(len(rows)):
            who = np.flatnonzero(scorers[i]).tolist()
            if base[i] > 0:
                state.events[g[rows[i]]].append(
                    {
                        "type": "MEADOW_SCORED",
                        "scorers": who,
                        "points": int(base[i]),
                        "animals": _animal_dict(counts[i, :4]),
                        "deerEaten": int(deer_eaten(d[i], t[i], fire[i])),
                    }
                )
            if bonus[i] > 0:
                state.events[g[rows[i]]].append(
                    {
                        "type": "PIT_TRAP_SCORED",
                        "scorers": who,
                        "points": int(bonus[i]),
                        "animals": _animal_dict(in_range[i]),
                    }
                )
    # 3. River systems with huts, and the raft (R7.18).
    roots = state.system.all_roots(g)
    huts = state.system.occupants[g]
    with_huts = (roots == np.arange(NUM_ZONES)) & (huts.sum(-1) > 0)
    rows, root = np.nonzero(with_huts)
    counts = state.system.counts[g[rows], root].astype(np.int64)
    fish, lakes = counts[:, C_FISH], counts[:, C_LAKES]
    raft = root == _special_root(state, g, "raft")[rows]
    value = river_system_value(fish, lakes, raft)
    scorers = majority(huts[rows, root])
    np.add.at(state.score, g[rows], value[:, None] * scorers)
    if state.events is not None:
        for i in range(len(rows)):
            who = np.flatnonzero(scorers[i]).tolist()
            if fish[i] > 0:
                state.events[g[rows[i]]].append(
                    {"type": "RIVER_SYSTEM_SCORED", "scorers": who, "points": int(fish[i]), "fish": int(fish[i])}
                )
            if raft[i]:
                state.events[g[rows[i]]].append(
                    {"type": "RAFT_SCORED", "scorers": who, "points": int(lakes[i]), "lakes": int(lakes[i])}
                )
    # 4. Shared victory (R8.2.4).
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


# ---------------------------------------------------------------- events


def _animal_dict(counts: np.ndarray) -> dict[str, int]:
    return {name: int(c) for name, c in zip(ANIMALS, counts)}


def _log(state: State, games: np.ndarray, events) -> None:
    if state.events is None:
        return
    for game, event in zip(games, events):
        state.events[game].append(event)
