"""Invariants checked after every step of random play (DESIGN.md test layer 3), for every ruleset."""

from __future__ import annotations

import numpy as np
import pytest

from hg_env.core import engine
from hg_env.core.areas import pool_members, popcount, tile_members
from hg_env.core.rules import Rules
from hg_env.core.ruleset import NUM_PIECES
from hg_env.core.state import OVER, State
from hg_env.core.tiles import C_BONUS, C_FISH, C_POOLS, C_TRIGGER
from tests.oracle import areas


def seed_shares(default: int, total: int) -> list:
    """``(first, last)`` seed ranges of a random-play suite: the first ``default`` seeds in the default test
    run, the rest up to ``total`` with the slow suites (``make test-slow``), so both together play them all."""
    return [pytest.param(0, default, id="default"), pytest.param(default, total, marks=pytest.mark.slow, id="rest")]


def check_pieces(state: State, game: int) -> None:
    """R1.2 / R5.3: supply + board = the ruleset's pieces per seat (pawns, huts, abbots); one occupant
    per tile, only on tiles on the board."""
    for seat in range(state.num_players[game]):
        mine = state.occupant_seat[game] == seat
        for piece in range(NUM_PIECES):
            on_board = int((mine & (state.occupant_kind[game] == piece)).sum())
            assert state.supply[game, seat, piece] + on_board == state.spec.pieces_of(state.rules)[piece], (
                seat,
                piece,
                on_board,
            )
        assert state.supply[game, seat].min() >= 0
    assert (state.occupant_seat[game, state.tile_cell[game] < 0] < 0).all(), "occupant on a tile not on the board"


def check_tiles(state: State, game: int) -> None:
    """Every tile is exactly one of: on the board, discarded, to place, still in a deck."""
    num_tiles = state.spec.tiles.num_tiles
    start = int(state.board_tile[game, state.board.origin])
    on_board = state.tile_cell[game] >= 0
    assert start >= 0 and on_board[start]
    decks = (
        (state.regular_deck, state.regular_next, state.regular_len),
        (state.extra_deck, state.extra_next, state.extra_len),
    )
    in_deck = np.zeros(num_tiles, dtype=bool)
    drawn = np.zeros(num_tiles, dtype=bool)
    dealt = np.zeros(num_tiles, dtype=bool)
    for deck, nxt, n in decks:
        in_deck[deck[game, nxt[game] : n[game]]] = True
        drawn[deck[game, : nxt[game]]] = True
        dealt[deck[game, : n[game]]] = True
    to_place = np.zeros(num_tiles, dtype=bool)
    if state.tile_to_place[game] >= 0:
        to_place[state.tile_to_place[game]] = True
    status = on_board.astype(int) + state.discarded[game] + to_place + in_deck
    dealt[start] = True
    assert (status[dealt] == 1).all(), np.flatnonzero(status[dealt] != 1)
    assert (status[~dealt] == 0).all()
    assert (drawn == (on_board | state.discarded[game] | to_place))[dealt & (np.arange(num_tiles) != start)].all()
    assert int(on_board.sum()) == int((state.board_tile[game] >= 0).sum())


def check_areas(state: State, game: int) -> None:
    """Union-find accumulators equal a BFS recomputation over the board."""
    oracle = areas(state, game)
    tiles, tables = state.spec.tiles, state.spec.areas
    g = np.array([game])
    for name, part in state.partitions().items():
        roots_seen = set()
        for a in oracle[name]:
            zones = np.array([tiles.TILE_ZONE[t, z] for t, z in a["zones"]])
            roots = part.find(np.full(len(zones), game), zones)
            assert len(set(roots.tolist())) == 1, f"{name} area split in the union-find: {a['zones']}"
            r = int(roots[0])
            assert r not in roots_seen, f"two {name} areas share root {r}"
            roots_seen.add(r)
            counts = part.counts[game, r]
            assert part.open[game, r] == a["open"], (name, a["zones"], part.open[game, r], a["open"])
            assert popcount(part.tiles[g, [r]])[0] == len(a["tiles"]), (name, a["tiles"])
            assert part.tile_count[game, r] == len(a["tiles"]), (name, a["tiles"], part.tile_count[game, r])
            assert part.worth[game, r] == part.counts[game, r] @ tables.worth_weights  # the additive value column
            assert (part.occupants[game, r] == a["occupants"]).all(), (name, part.occupants[game, r], a["occupants"])
            if name == "area":
                pool_fish = int(pool_members(part.pools[game, r], tiles.num_pools) @ tiles.POOL_FISH)
                assert part.attached_value[game, r] == pool_fish
                if a["type"] == "meadow":
                    assert (counts[:4] == a["animals"]).all(), (counts[:4], a["animals"])
                if a["type"] == "river":
                    assert counts[C_FISH] + pool_fish == a["fish"]
                assert counts[C_BONUS] == a["bonus"] and counts[C_TRIGGER] == a["trigger"], (counts, a)
                if tables.border_words:
                    numbers = np.flatnonzero(tile_members(part.borders[game, r], len(tables.forest_zones)))
                    zones = tables.forest_zones[numbers]
                    borders = {(int(tiles.ZONE_TILE[z]), int(tiles.ZONE_LOCAL[z])) for z in zones}
                    assert borders == a["borders"], (a["zones"], borders, a["borders"])
            else:
                assert counts[C_FISH] == a["fish"] and counts[C_POOLS] == a["lakes"]


def check_frontier(state: State, game: int) -> None:
    """The frontier holds exactly the empty cells next to a tile, each once, its slots and need codes
    consistent."""
    n = int(state.frontier_len[game])
    cells = state.frontier[game, :n]
    assert (state.frontier[game, n:] == -1).all()
    expected = np.flatnonzero((state.board_tile[game] < 0) & (state.need[game] != 0))
    assert sorted(cells.tolist()) == expected.tolist()
    assert (state.frontier_slot[game, cells] == np.arange(n)).all()
    assert (state.frontier_slot[game] >= 0).sum() == n
    assert (state.frontier_need[game, :n] == state.need[game, cells]).all()
    assert (state.frontier_need[game, n:] == 0).all()


def check_mask(state: State, game: int, mask: np.ndarray) -> None:
    """Masks are never empty while the game runs, and all-False once it is over."""
    if state.phase[game] == OVER:
        assert not mask.any()
    else:
        assert mask.any(), "empty action mask in a running game"


def check_batch_equals_singles(players: list[int], seeds: list[int], rules: Rules | None = None) -> None:
    """Games stepped together (player counts mixed, each in its own phase, some sitting a step out)
    equal the same games stepped alone: every state array and every event, after every step."""
    batch = engine.new_games(players, rules, seeds=seeds)
    singles = [engine.new_games(p, rules, seeds=[s]) for p, s in zip(players, seeds)]
    rngs = [np.random.default_rng(s) for s in seeds]
    while (batch.phase != OVER).any():
        mask = engine.legal_action_mask(batch)
        actions = np.full(batch.batch_size, -1)
        for i, rng in enumerate(rngs):
            if batch.phase[i] != OVER and rng.random() < 0.8:  # some games sit a step out
                actions[i] = rng.choice(np.flatnonzero(mask[i]))
        engine.step(batch, actions)
        for i, single in enumerate(singles):
            if actions[i] >= 0:
                engine.step(single, actions[i : i + 1])
            mine = batch.take([i]).arrays()
            for name, array in single.arrays().items():
                np.testing.assert_array_equal(mine[name], array, err_msg=f"game {i}: {name}")
            assert batch.events[i] == single.events[0]
