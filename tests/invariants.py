"""Invariants checked after every step of random play (DESIGN.md test layer 3)."""

from __future__ import annotations

import numpy as np

from hg_env.core.areas import WORTH_WEIGHTS, lake_members, popcount
from hg_env.core.state import HUT, OVER, PAWN, State
from hg_env.core.tiles import C_FISH, C_LAKES, C_MENHIRS, C_MUSHROOMS, LAKE_FISH, NUM_TILES, START_TILE, TILE_ZONE
from tests.oracle import areas


def check_pieces(state: State, game: int) -> None:
    """R1.2 / R5.3: supply + board = 5 pawns and 3 huts per seat; one occupant per tile."""
    for seat in range(state.num_players[game]):
        mine = state.occupant_seat[game] == seat
        pawns = int((mine & (state.occupant_kind[game] == PAWN)).sum())
        huts = int((mine & (state.occupant_kind[game] == HUT)).sum())
        assert state.supply[game, seat, PAWN] + pawns == 5, (seat, pawns)
        assert state.supply[game, seat, HUT] + huts == 3, (seat, huts)
        assert state.supply[game, seat].min() >= 0
    assert (state.occupant_seat[game, state.tile_cell[game] < 0] < 0).all(), "occupant on a tile not on the board"


def check_tiles(state: State, game: int) -> None:
    """Every tile is exactly one of: on the board, discarded, to place, still in a deck."""
    on_board = state.tile_cell[game] >= 0
    assert on_board[START_TILE]
    in_deck = np.zeros(NUM_TILES, dtype=bool)
    for deck, nxt, n in (
        (state.regular_deck, state.regular_next, state.regular_len),
        (state.menhir_deck, state.menhir_next, state.menhir_len),
    ):
        in_deck[deck[game, nxt[game] : n[game]]] = True
    drawn = np.zeros(NUM_TILES, dtype=bool)
    for deck, nxt in ((state.regular_deck, state.regular_next), (state.menhir_deck, state.menhir_next)):
        drawn[deck[game, : nxt[game]]] = True
    to_place = np.zeros(NUM_TILES, dtype=bool)
    if state.tile_to_place[game] >= 0:
        to_place[state.tile_to_place[game]] = True
    status = on_board.astype(int) + state.discarded[game] + to_place + in_deck
    dealt = np.zeros(NUM_TILES, dtype=bool)
    for deck, n in ((state.regular_deck, state.regular_len), (state.menhir_deck, state.menhir_len)):
        dealt[deck[game, : n[game]]] = True
    dealt[START_TILE] = True
    assert (status[dealt] == 1).all(), np.flatnonzero(status[dealt] != 1)
    assert (status[~dealt] == 0).all()
    assert (drawn == (on_board | state.discarded[game] | to_place))[dealt & (np.arange(NUM_TILES) != START_TILE)].all()
    assert int(on_board.sum()) == int((state.board_tile[game] >= 0).sum())


def check_areas(state: State, game: int) -> None:
    """Union-find accumulators equal a BFS recomputation over the board."""
    oracle = areas(state, game)
    g = np.array([game])
    for name, part in (("area", state.area), ("system", state.system)):
        roots_seen = set()
        for a in oracle[name]:
            zones = np.array([TILE_ZONE[t, z] for t, z in a["zones"]])
            roots = part.find(np.full(len(zones), game), zones)
            assert len(set(roots.tolist())) == 1, f"{name} area split in the union-find: {a['zones']}"
            r = int(roots[0])
            assert r not in roots_seen, f"two {name} areas share root {r}"
            roots_seen.add(r)
            counts = part.counts[game, r]
            assert part.open[game, r] == a["open"], (name, a["zones"], part.open[game, r], a["open"])
            assert popcount(part.tiles[g, [r]])[0] == len(a["tiles"]), (name, a["tiles"])
            assert part.tile_count[game, r] == len(a["tiles"]), (name, a["tiles"], part.tile_count[game, r])
            assert part.worth[game, r] == part.counts[game, r] @ WORTH_WEIGHTS  # the additive value column
            assert (part.occupants[game, r] == a["occupants"]).all(), (name, part.occupants[game, r], a["occupants"])
            if name == "area":
                lake_fish = int(lake_members(part.lakes[game, r]) @ LAKE_FISH)
                assert part.lake_fish[game, r] == lake_fish
                if a["type"] == "meadow":
                    assert (counts[:4] == a["animals"]).all(), (counts[:4], a["animals"])
                if a["type"] == "river":
                    assert counts[C_FISH] + lake_fish == a["fish"]
                assert counts[C_MUSHROOMS] == a["mushrooms"] and counts[C_MENHIRS] == a["menhirs"]
            else:
                assert counts[C_FISH] == a["fish"] and counts[C_LAKES] == a["lakes"]


def check_mask(state: State, game: int, mask: np.ndarray) -> None:
    """Masks are never empty while the game runs, and all-False once it is over."""
    if state.phase[game] == OVER:
        assert not mask.any()
    else:
        assert mask.any(), "empty action mask in a running game"
