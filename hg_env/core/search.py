"""Helpers for agents that search: hidden-information re-deals, a score estimate, one-turn lookahead.

Everything here works on batched ``State`` objects and only reads public
information (RULES.md R1.5, R1.9): the board, occupants, supplies, scores, the
tile to place, the discarded tiles and the deck *sizes*. The deck *order* is
hidden; ``redeal`` replaces it with a fresh shuffle of the tiles that must
still be in each deck, so a search can sample deck orders consistent with what
the players know.

The estimate (``estimated_final_scores``)
------------------------------------------
Each seat's current score plus what its occupants are expected to bring::

    forest / river with pawns   p_close * value              to the pawn majority (R6.1-R6.3)
    meadow with hunters         meadow value now             to the hunter majority (R8.3, wildfire R7.17)
    river system with huts      fish (+ lakes with the raft)  to the hut majority (R8.2.3, R7.18)
                                + SYSTEM_GROWTH * open * f
    each pawn in supply         FIGURE_VALUE * f             (a free area piece still earns points)

    p_close = CLOSE_PER_OPEN ** open * min(1, R / (TILES_PER_OPEN * open)) * holes
    holes   = product over the area's open sides of min(1, fits / HOLE_FITS)

``fits`` counts the regular tiles still to come that fit the empty position an
open side faces (``tiles.COMPAT``): a forest or river with a hole no remaining
tile fits, or open towards the board edge, can never close and is worth 0.
``open`` is the area's open connections (R2.15), ``R`` the regular tiles not
yet placed or discarded (the one in hand included) and ``f = R / 78`` the
fraction of the game still to play. A forest or river closed by the tile just
placed but not scored yet (mid-turn) has ``p_close = 1`` and its pawns count as
back in supply, so the estimate does not jump when the turn is scored. Every
contribution falls to its current points as the deck runs out, so at the end
of the game the estimate equals the final score; a finished game's estimate is
its score. The pit-trap bonus (R7.14), the menhir extra turn and future
majority fights are ignored. The constants were set by greedy-vs-greedy
matches (a growth term for meadows made greedy weaker: it put hunters on empty
meadows).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np

from hg_env.core import engine
from hg_env.core.actions import action_layout
from hg_env.core.areas import (
    COUNTS,
    OCCUPANTS,
    OPEN,
    TILE_BITS,
    WORTH,
    popcount,
    tile_members,
    tile_sets,
)
from hg_env.core.arrays import nonzero, sorted_unique
from hg_env.core.ruleset import AREA_PIECE
from hg_env.core.scoring import majority
from hg_env.core.seats import MAX_PLAYERS
from hg_env.core.state import OCCUPY, OVER, PLACE, State, deck_of, deck_tiles
from hg_env.core.tiles import (
    C_FISH,
    C_POOLS,
    ENCLOSURE,
    PATH,
    Z_BLOCK_A,
    Z_BLOCK_B,
    Z_ENCLOSURE,
    Z_PATH,
    TileSet,
)

# Constants of the estimate (see the module docstring).
CLOSE_PER_OPEN = 0.8
TILES_PER_OPEN = 3.0
SYSTEM_GROWTH = 0.3
FIGURE_VALUE = 3.0
HOLE_FITS = 2  # an open side facing a hole that fewer undrawn tiles fit scales p_close down (0: off)


@cache
def fits_sets(tiles: TileSet) -> np.ndarray:
    """[need code, TILE_WORDS] bitsets of the tiles that fit a position with this need in some rotation."""
    return tile_sets(tiles.COMPAT.any(-1).T)


def regular_deck_size(state: State) -> int:
    """Tiles in a full regular deck of the ruleset (78 in both Hunters & Gatherers editions)."""
    return len(deck_tiles(state.spec, state.rules)[0])


# ---------------------------------------------------------------- hidden information


def hidden_tiles(state: State, game: int) -> tuple[np.ndarray, np.ndarray]:
    """The regular and extra (menhir, bonus) tiles still in the decks of one game, from public information only.

    A tile is still in its deck iff it is not on the board, not discarded and
    not the tile to place; the counts must equal the public deck sizes.
    """
    deck = deck_of(state.rules)
    unseen = (state.tile_cell[game] < 0) & ~state.discarded[game] & state.dealt[game]
    if state.tile_to_place[game] >= 0:
        unseen[state.tile_to_place[game]] = False
    return np.flatnonzero(unseen & (deck == 0)), np.flatnonzero(unseen & (deck == 1))


def redeal(state: State, rng: np.random.Generator, rows: np.ndarray | None = None) -> None:
    """Reshuffle the undrawn part of every game's regular and extra decks (of games ``rows`` alone when
    given), in place.

    Only public information is used (``hidden_tiles``); the tiles already drawn,
    the deck sizes and everything on the board stay as they are. Tiles with a
    lower deal rank (``Ruleset.deal_rank``: the Carcassonne river before the land
    tiles, its lake last) stay ahead of the others, as the rules deal them.
    """
    spec = state.spec
    deck = deck_of(state.rules)
    rank = spec.deal_rank(spec.tiles, state.rules)
    rows = np.arange(state.batch_size) if rows is None else np.asarray(rows, dtype=np.intp)
    unseen = (state.tile_cell[rows] < 0) & ~state.discarded[rows] & state.dealt[rows]
    placing = np.flatnonzero(state.tile_to_place[rows] >= 0)
    unseen[placing, state.tile_to_place[rows[placing]]] = False
    for which, order_of, nxt, length in (
        (0, state.regular_deck, state.regular_next, state.regular_len),
        (1, state.extra_deck, state.extra_next, state.extra_len),
    ):
        hidden = unseen & (deck == which)
        count = hidden.sum(1)
        first = nxt[rows]
        left = (length[rows] - first).astype(np.int64)
        if not np.array_equal(count, left):
            bad = int(np.flatnonzero(count != left)[0])
            raise ValueError(f"game {rows[bad]}: {count[bad]} unseen tiles but the deck holds {left[bad]}")
        # Random keys, hidden tiles first: each row's first `count` entries are a uniform shuffle (per rank).
        keys = rank + rng.random(hidden.shape)
        keys = np.where(hidden, keys, np.inf)
        order = np.argsort(keys, axis=1, kind="stable")
        g, k = nonzero(np.arange(hidden.shape[1])[None, :] < count[:, None])
        order_of[rows[g], first[g] + k] = order[g, k]


def redraw(state: State, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw the tile to place of games ``rows`` again, in place: each game whose tile was just drawn
    (phase PLACE, the tile last taken from its deck: the extra deck in an extra-tile turn) puts it
    back, its undrawn tiles are reshuffled (``redeal``) and it draws by the rules (T1: tiles that fit
    nowhere are discarded, R4.4). The tile put back fits, so a tile is always found. For searches that
    value a chance draw by several of its outcomes; the re-deal reads public information only.

    Returns the rows drawn again (the others, e.g. on an occupant decision, are left as they were)."""
    rows = np.asarray(rows, dtype=np.intp)
    extra = state.extra_turn[rows]
    tile = state.tile_to_place[rows]
    last = np.full(len(rows), -1)
    for which, deck, nxt in (
        (False, state.regular_deck, state.regular_next),
        (True, state.extra_deck, state.extra_next),
    ):
        at = np.flatnonzero((extra == which) & (nxt[rows] > 0))
        last[at] = deck[rows[at], nxt[rows[at]] - 1]
    drawn = (state.phase[rows] == PLACE) & (tile >= 0) & (last == tile)
    rows, extra = rows[drawn], extra[drawn]
    if not len(rows):
        return rows
    state.extra_next[rows[extra]] -= 1
    state.regular_next[rows[~extra]] -= 1
    state.tile_to_place[rows] = -1
    redeal(state, rng, rows)
    for which in (False, True):
        again = rows[extra == which]
        if len(again) and not engine.draw_tile(state, again, extra=which).all():
            raise RuntimeError("a redrawn game found no placeable tile, though the tile put back fits")
    return rows


def plain_copy(state: State, rows: np.ndarray | None = None) -> State:
    """``state.take(rows)`` (all games by default) without the event log, which search does not need."""
    events, state.events = state.events, None
    try:
        return state.take(np.arange(state.batch_size) if rows is None else rows)
    finally:
        state.events = events


def position_key(state: State, row: int) -> bytes:
    """What identifies game ``row``'s position for keeping a subtree: its public arrays (the board,
    occupants, scores, supplies, decisions taken and whose decision it is), not the deck order."""
    parts = (
        state.decisions,
        state.current,
        state.phase,
        state.tile_to_place,
        state.board_tile,
        state.board_rot,
        state.occupant_seat,
        state.occupant_local,
        state.score,
        state.supply,
    )
    return b"".join(np.ascontiguousarray(part[row]).tobytes() for part in parts)


# ---------------------------------------------------------------- the estimate


def special_root(state: State, part, power: str) -> np.ndarray:
    """[B] root of a special power's zone, -1 where its tile is not on the board."""
    tiles = state.spec.tiles
    zone = tiles.SPECIAL_ZONE[power]
    games = np.arange(state.batch_size)
    placed = state.tile_cell[:, tiles.SPECIAL_TILE[power]] >= 0
    return np.where(placed, part.find(games, np.full(state.batch_size, zone)), -1)


def _occupied_roots(state: State, systems: bool, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(game, root) pairs, each once, of the areas holding a figure (or the systems holding a system piece)
    in the ``live`` games."""
    games = np.flatnonzero(live)
    rows, roots = engine.occupied_roots(state, games, systems)
    return games[rows], roots


@cache
def close_powers(count: int) -> np.ndarray:
    """[count] ``CLOSE_PER_OPEN ** k``, correctly rounded from exact rationals. ``np.power`` rounds
    differently from one CPU to the next (its AVX-512 path is not libm's), and the estimate must
    give the same numbers on every machine (the lookahead fingerprint, greedy's ties)."""
    base = Fraction(CLOSE_PER_OPEN)
    return np.array([float(base**k) for k in range(count)])


def close_probability(open_connections: np.ndarray, tiles_left: np.ndarray) -> np.ndarray:
    """Estimated chance that a forest or river with these open connections (whole numbers) gets closed."""
    open_connections = np.asarray(open_connections, dtype=np.float64)
    room = np.minimum(1.0, tiles_left / np.maximum(TILES_PER_OPEN * open_connections, 1.0))
    k = np.maximum(open_connections, 0).astype(np.intp)
    powers = close_powers(64 << (int(k.max(initial=0)) >> 6))  # 64, 128, 256, ... entries, each table built once
    return np.where(open_connections <= 0, 1.0, powers[k] * room)


def tiles_left(state: State) -> np.ndarray:
    """[B] regular tiles not yet placed or discarded, the one in hand included.

    Counting the tile in hand keeps the estimate the same just before and just
    after a turn ends (the next draw does not change it)."""
    held = state.tile_to_place >= 0
    in_hand = held & (deck_of(state.rules)[np.maximum(state.tile_to_place, 0)] == 0)
    return (state.regular_len - state.regular_next + in_hand).astype(np.float64)


def hole_factors(state: State, games: np.ndarray) -> np.ndarray:
    """[len(games), Z] per area root: product over its open forest/river sides of min(1, fits / HOLE_FITS).

    ``fits`` counts the regular tiles not yet placed (hand included) that fit
    the empty position the side faces; a side facing a hole no such tile fits
    (or the board edge) can never close, which makes the factor 0.
    """
    tiles = state.spec.tiles
    num_zones = tiles.num_zones
    factor = np.ones((len(games), num_zones))
    if HOLE_FITS <= 0:
        return factor
    row, t = nonzero(state.tile_cell[games] >= 0)
    b = games[row]
    cell = state.tile_cell[b, t].astype(np.intp)
    rot = state.board_rot[b, cell]
    rows, zones, holes = [], [], []
    for d in range(4):
        nb = state.board.neighbor[cell, d]
        kind = tiles.SIDE_TYPE[t, rot, d]
        empty = (nb < 0) | (state.board_tile[b, np.maximum(nb, 0)] < 0)
        sel = ((kind == ENCLOSURE) | (kind == PATH)) & empty
        rows.append(row[sel])
        zones.append(tiles.SIDE_ZONES[t[sel], rot[sel], d, 1])
        holes.append(nb[sel])
    r, z, hole = np.concatenate(rows), np.concatenate(zones), np.concatenate(holes)
    if not len(r):
        return factor
    root = state.area.find(games[r], z)
    cells = state.board.num_cells + 1
    keys = sorted_unique((r.astype(np.int64) * num_zones + root) * cells + hole + 1)  # each side's hole once
    hole = keys % cells - 1
    r, root = np.divmod(keys // cells, num_zones)
    # Tiles still to come as bitsets, per game (hand tile included); fits = popcount(unseen & fits the hole).
    unseen = tile_sets((state.tile_cell[games] < 0) & ~state.discarded[games] & (deck_of(state.rules) == 0))
    fits = popcount(unseen[r] & fits_sets(tiles)[state.need[games[r], np.maximum(hole, 0)]])
    fits = np.where(hole < 0, 0, fits)  # open towards the board edge
    np.multiply.at(factor, (r, root), np.minimum(1.0, fits / HOLE_FITS))
    return factor


def area_hole_factors(state: State, g: np.ndarray, z: np.ndarray) -> np.ndarray:
    """[n] ``hole_factors`` of the (game, root) areas alone: only their own tiles' sides are looked at
    (the same sides, holes and products, in the same order, as ``hole_factors`` of their games)."""
    tiles = state.spec.tiles
    num_cells, num_tiles, num_zones = state.board.num_cells, tiles.num_tiles, tiles.num_zones
    factor = np.ones(len(g))
    pair, t = nonzero(tile_members(state.area.bit_rows(g, z)[:, TILE_BITS], num_tiles))  # each area's tiles
    b = g[pair]
    # Flat reads (a 2-d fancy index costs about twice as much); the four sides of every tile at once, [m, 4].
    cell = state.tile_cell.reshape(-1).take(b * num_tiles + t).astype(np.intp)
    tile_rot = t * 4 + state.board_rot.reshape(-1).take(b * num_cells + cell)
    nb = state.board.neighbor[cell]
    at_nb = b[:, None] * num_cells + np.maximum(nb, 0)
    empty = (nb < 0) | (state.board_tile.reshape(-1).take(at_nb) < 0)
    kind = tiles.SIDE_TYPE.reshape(-1, 4).take(tile_rot, axis=0)
    side, d = nonzero(((kind == ENCLOSURE) | (kind == PATH)) & empty)
    zone = tiles.SIDE_ZONES[tile_rot[side] >> 2, tile_rot[side] & 3, d, 1]
    own = state.area.parent.reshape(-1).take(b[side] * num_zones + zone) == z.take(pair[side])  # this area's side
    p, hole = pair[side[own]], nb[side[own], d[own]]
    if not len(p):
        return factor
    cells = num_cells + 1
    keys = sorted_unique(p.astype(np.int64) * cells + hole + 1)  # each side's hole once per area
    hole, p = keys % cells - 1, keys // cells
    # Tiles still to come as bitsets, per game (hand tile included); fits = popcount(unseen & fits the hole).
    games, game_of = np.unique(g, return_inverse=True)
    unseen = tile_sets((state.tile_cell[games] < 0) & ~state.discarded[games] & (deck_of(state.rules) == 0))
    need = state.need.reshape(-1).take(g.take(p) * num_cells + np.maximum(hole, 0))
    fits = popcount(unseen[game_of[p]] & fits_sets(tiles)[need])
    fits = np.where(hole < 0, 0, fits)  # open towards the board edge
    np.multiply.at(factor, p, np.minimum(1.0, fits / HOLE_FITS))
    return factor


def completion_probability(state: State, g: np.ndarray, z: np.ndarray, left: np.ndarray) -> np.ndarray:
    """Estimated chance that the (game, root) forests / rivers (cities, roads) get completed."""
    p = close_probability(state.area.sum_rows(g, z)[:, OPEN].astype(np.float64), left)
    if HOLE_FITS > 0:
        p = p * area_hole_factors(state, g, z)
    return p


def _system_values(state: State, g: np.ndarray, z: np.ndarray, left: np.ndarray) -> np.ndarray:
    """Expected value of the (game, root) river systems to their hut majority."""
    sums = state.system.sum_rows(g, z)
    counts = sums[:, COUNTS:WORTH].astype(np.float64)
    value = state.spec.points.system_fish * counts[:, C_FISH]
    if state.spec.pool_power:  # its path system scores its pools too (2020's raft)
        pool = z == special_root(state, state.system, state.spec.pool_power)[g]
        value = value + np.where(pool, counts[:, C_POOLS], 0.0)
    return value + SYSTEM_GROWTH * sums[:, OPEN] * left / regular_deck_size(state)


def _returns_to_supply(state: State, g: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The (game, root) areas are scored at the end of this turn and their pawns come back: closed
    forests or rivers (cities, roads), and monasteries with a monk whose 3x3 block is full."""
    tiles = state.spec.tiles
    kind = tiles.ZONE_TYPE[z]
    done = (state.area.sum_rows(g, z)[:, OPEN] == 0) & ((kind == Z_ENCLOSURE) | (kind == Z_PATH))
    cloister = (kind == Z_BLOCK_A) | (kind == Z_BLOCK_B)
    if cloister.any():
        gc, tc = g[cloister], tiles.ZONE_TILE[z[cloister]]
        block = state.board.block[state.tile_cell[gc, tc].astype(np.intp)]  # [n, 9]
        full = ((block >= 0) & (state.board_tile[gc[:, None], np.maximum(block, 0)] >= 0)).all(-1)
        done[cloister] = full & (state.occupant_kind[gc, tc] == AREA_PIECE)  # an abbot is not valued in the supply
    return done


def estimated_final_scores(state: State, rows: np.ndarray | None = None) -> np.ndarray:
    """[B, 5] float (or [len(rows), 5]): each seat's score plus the expected value of its occupants.

    See the module docstring. Finished games: their scores.
    """
    keep = np.ones(state.batch_size, dtype=bool)
    if rows is not None:
        keep[:] = False
        keep[rows] = True
    est = state.score.astype(np.float64)
    live = (state.phase != OVER) & keep
    left = tiles_left(state)
    frac = left / regular_deck_size(state)

    # Pawns: forests, rivers (expected completion) and meadows (final scoring).
    g, z = _occupied_roots(state, False, live)
    if len(g):
        figures = state.area.sum_rows(g, z)[:, OCCUPANTS:]
        scorers = majority(figures)
        scorers, _ = state.spec.meadow_scorers(state, g, z, scorers)  # e.g. the 2002 shrine's hunter alone
        np.add.at(est, g, state.spec.estimate_areas(state, g, z, left[g])[:, None] * scorers)
        # Pawns of a just-closed forest or river go back to supply when the turn is scored (T5).
        closed = _returns_to_supply(state, g, z)
        np.add.at(est, g[closed], FIGURE_VALUE * frac[g[closed], None] * figures[closed])

    # Huts: river systems score at the end whatever their state.
    if state.system is not None:
        g, z = _occupied_roots(state, True, live)
        if len(g):
            holders = state.system.sum_rows(g, z)[:, OCCUPANTS:]
            np.add.at(est, g, _system_values(state, g, z, left[g])[:, None] * majority(holders))

    est += FIGURE_VALUE * state.supply[:, :, AREA_PIECE] * (frac * live)[:, None]
    seated = np.arange(MAX_PLAYERS)[None, :] < state.num_players[:, None]
    est = np.where(seated, est, 0.0)
    return est if rows is None else est[rows]


def occupant_estimates(state: State, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimated final scores after each occupant choice of games waiting to occupy, without stepping.

    ``rows`` are games in the occupy phase. An occupant goes on an area (or
    river system) with no occupant of its kind (R5.4, R5.5), so it makes the
    placer the sole majority: the placer gains that area's value, and a pawn
    leaves the supply unless its forest or river is closed (it comes back in
    T5). Equals the estimate after stepping the choice, up to the pit-trap bonus.
    Taking a figure back (the Carcassonne abbot) is valued by stepping it.

    Returns ``(games, actions, estimates)``, one row per (game, choice), ``none`` included.
    """
    rows = np.asarray(rows, dtype=np.intp)
    tiles = state.spec.tiles
    layout = action_layout(state.rules)
    piece_of, local_of, system_of, _ = engine.occupant_columns(state.spec)
    base = estimated_final_scores(state, rows)
    local, target = nonzero(state.occupy_mask[rows])
    g = rows[local]
    actor = state.current[g]
    tile = state.board_tile[g, state.last_cell[g]].astype(np.intp)
    left = tiles_left(state)[g]
    gain = np.zeros(len(g))
    zone = tiles.TILE_ZONE[tile, local_of[target]]
    in_area = ~system_of[target]
    if in_area.any():
        ga = g[in_area]
        root = state.area.find(ga, zone[in_area])
        closed = _returns_to_supply(state, ga, root)
        pays = (piece_of[target[in_area]] == AREA_PIECE) & ~closed
        supply = np.where(pays, FIGURE_VALUE * left[in_area] / regular_deck_size(state), 0.0)
        gain[in_area] = state.spec.estimate_areas(state, ga, root, left[in_area]) - supply
    if (~in_area).any():
        gh = g[~in_area]
        gain[~in_area] = _system_values(state, gh, state.system.find(gh, zone[~in_area]), left[~in_area])
    est = base[local]
    est[np.arange(len(g)), actor] += gain
    games = [rows, g]
    actions = [np.full(len(rows), layout.none), layout.occupy + target]
    estimates = [base, est]
    for decision, first, _ in layout.decisions:  # one of the occupy phase (the abbot's recall): step it on copies
        if decision.phase != OCCUPY:
            continue
        gi, operand = decision.options(state, rows)
        if len(gi):
            chosen = first + operand.astype(np.int64)
            kids = plain_copy(state, rows[gi])
            engine.step(kids, chosen)
            games.append(rows[gi])
            actions.append(chosen)
            estimates.append(estimated_final_scores(kids))
    games, actions, estimates = np.concatenate(games), np.concatenate(actions), np.concatenate(estimates)
    order = np.argsort(games, kind="stable")
    return games[order], actions[order], estimates[order]


def win_transform(est: np.ndarray, state: State, rows: np.ndarray, scale: float = 10.0) -> np.ndarray:
    """[n, 5] values in [0, 1] from estimated final scores ``est`` of games ``rows``: see ``win_values``."""
    over = state.phase[rows] == OVER
    frac = tiles_left(state)[rows] / regular_deck_size(state)
    spread = scale * (1.0 + 2.0 * frac) / 3.0
    diff = est[:, :, None] - est[:, None, :]  # [n, p, q]
    soft = 1.0 / (1.0 + np.exp(-diff / spread[:, None, None]))
    exact = 0.5 + 0.5 * np.sign(diff)
    pairwise = np.where(over[:, None, None], exact, soft)
    n = state.num_players[rows].astype(np.int64)
    seated = np.arange(MAX_PLAYERS)[None, :] < n[:, None]
    both = seated[:, :, None] & seated[:, None, :] & ~np.eye(MAX_PLAYERS, dtype=bool)
    values = (pairwise * both).sum(-1) / np.maximum(n - 1, 1)[:, None]
    return np.where(seated, values, 0.0)


def win_values(state: State, rows: np.ndarray | None = None, scale: float = 10.0) -> np.ndarray:
    """[B, 5] values in [0, 1]: the mean, over opponents, of a soft "I finish ahead of them".

    Finished games give exact results (1 ahead, 0.5 tied, 0 behind). Running
    games compare estimated final scores through a logistic with a spread that
    shrinks as the deck runs out (``scale`` points at the start, a third of it
    at the end).
    """
    rows = np.arange(state.batch_size) if rows is None else np.asarray(rows, dtype=np.intp)
    return win_transform(estimated_final_scores(state, rows), state, rows, scale)


# ---------------------------------------------------------------- one-turn lookahead


def _identity(est: np.ndarray, state: State, rows: np.ndarray) -> np.ndarray:
    return est


def turn_lookahead(
    state: State, transform=None, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal action of every running game, valued after the actor's best follow-up on the same tile.

    Positions are valued by ``transform(estimates, state, rows) -> [n, 5]`` of
    their estimated final scores (default: the estimates themselves; e.g.
    ``win_transform``). Each legal placement or retake is stepped on its own
    copy (all copies at once). When the same seat then still decides on the
    same tile, the follow-up best for that seat is taken: occupants are valued
    without stepping (``occupant_estimates``), the occupant after the shaman's
    retake by recursion. Hidden tiles drawn when a turn ends do not enter the
    estimate; pass re-dealt states to stay clear of the real deck order.
    ``rows`` limits the search to those games.

    Returns ``(games, actions, values)``: flat arrays, one row per (game, legal
    action), games in increasing order, ``values`` [n, 5].
    """
    transform = transform or _identity
    rows = np.arange(state.batch_size) if rows is None else np.asarray(rows, dtype=np.intp)
    occupy = rows[state.phase[rows] == OCCUPY]
    rows = rows[state.phase[rows] != OCCUPY]
    parts = []
    if len(occupy):
        g, a, est = occupant_estimates(state, occupy)
        parts.append((g, a, transform(est, state, g)))
    indptr, actions = engine.legal_actions(state, rows)
    local = np.repeat(np.arange(len(rows)), np.diff(indptr))
    if len(local):
        games = rows[local]
        kids = plain_copy(state, games)
        actor = state.current[games]
        engine.step(kids, actions.astype(np.int64))
        values = np.zeros((len(games), MAX_PLAYERS))
        same = kids.current == actor
        before = [d.phase for d in state.spec.decisions if d.same_tile]  # still on the tile (the shaman's retake)
        occ, ret = np.flatnonzero(same & (kids.phase == OCCUPY)), np.flatnonzero(same & np.isin(kids.phase, before))
        done = np.flatnonzero(~(same & ((kids.phase == OCCUPY) | np.isin(kids.phase, before))))
        if len(done):
            values[done] = transform(estimated_final_scores(kids, done), kids, done)
        for follow in (occ, ret):
            if len(follow):
                sub_games, _, sub_values = turn_lookahead(kids, transform, follow)
                group = np.searchsorted(follow, sub_games)
                best = best_rows(group, sub_values[np.arange(len(sub_games)), actor[sub_games]], len(follow))
                values[follow] = sub_values[best]
        parts.append((games, actions, values))
    if not parts:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros((0, MAX_PLAYERS))
    games = np.concatenate([p[0] for p in parts])
    order = np.argsort(games, kind="stable")
    return games[order], np.concatenate([p[1] for p in parts])[order], np.concatenate([p[2] for p in parts])[order]


def best_rows(groups: np.ndarray, scores: np.ndarray, num_groups: int, rng: np.random.Generator | None = None):
    """Index of the highest score within each group (groups sorted, every group present).

    Ties are broken uniformly at random with ``rng``, else by the first row.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if rng is not None:
        scores = scores + rng.random(len(scores)) * 1e-9
    order = np.lexsort((-scores, groups))  # by group, best first
    first = np.searchsorted(groups[order], np.arange(num_groups))
    return order[first]


def own_and_opponents(values: np.ndarray, seats: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """([n], [n]) from [n, 5] per-seat values: the seat's own and the mean over its opponents."""
    rows = np.arange(len(values))
    own = values[rows, seats]
    players = players.astype(np.int64)
    seated = np.arange(MAX_PLAYERS)[None, :] < players[:, None]
    opponents = (np.where(seated, values, 0.0).sum(1) - own) / np.maximum(players - 1, 1)
    return own, opponents


def move_values(
    state: State, rng: np.random.Generator, seats: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every legal action of every running game valued by ``turn_lookahead`` on a re-deal drawn
    from ``rng`` (the deck order is never read), from ``seats``' view (default: the seat to move).

    Returns ``(games, actions, own, opponents)``, one row per (game, legal action), games in
    increasing order: the seat's estimated final score after the action and its opponents' mean.
    """
    plain = plain_copy(state)
    redeal(plain, rng)
    games, actions, values = turn_lookahead(plain)
    seats = state.current if seats is None else np.asarray(seats)
    own, opponents = own_and_opponents(values, seats[games], state.num_players[games])
    return games, actions, own, opponents


# ---------------------------------------------------------------- features for a learned policy

LOOKAHEAD_FEATURES = ("own_gain", "opponents_gain")  # rows of ``lookahead_features``' gains
ESTIMATE_FEATURES = ("own_estimate", "opponents_estimate")  # columns of its estimates


def lookahead_features(
    state: State, rng: np.random.Generator, seats: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """What the one-turn lookahead knows about every game's decision, from the deciding seat's view
    (``seats`` [B]: whose view, default the seat to move; finished games have no decider).

    Returns ``(gains, estimates)``:

    * ``gains`` [B, 2, A] float32: for every legal action, the change of the
      decider's estimated final score (row 0) and of its opponents' mean (row 1)
      that ``turn_lookahead`` predicts, in points; 0 for illegal actions and
      finished games. ``greedy`` plays the argmax of row 0.
    * ``estimates`` [B, 2] float32: the decider's and its opponents' mean
      estimated final score now (``estimated_final_scores``), in points.

    The lookahead runs on a re-deal drawn from ``rng``, so the deck order is never read.
    """
    seats = (state.current if seats is None else np.asarray(seats)).astype(np.int64)
    games, actions, own, opponents = move_values(state, rng, seats)
    # The estimate reads which tiles are left, not their order: the real state gives the re-deal's.
    own_now, opponents_now = own_and_opponents(estimated_final_scores(state), seats, state.num_players)
    gains = np.zeros((state.batch_size, len(LOOKAHEAD_FEATURES), action_layout(state.rules).size), np.float32)
    gains[games, 0, actions] = own - own_now[games]
    gains[games, 1, actions] = opponents - opponents_now[games]
    return gains, np.stack([own_now, opponents_now], 1).astype(np.float32)
