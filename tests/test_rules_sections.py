"""At least one test per rule section R1-R8 of RULES.md, on real tiles through ``hg_env.Game``.

Sketches show ``tile r<rotation>`` at each position (x east, y south, start tile 56 at (0, 0)).
Many scenarios start with the same opening, which closes the start forest (a menhir forest)
and so gives seat 1 an extra turn with a menhir tile (R3.2 T6)::

    y\\x    0       1
     0   56 r0   34 r0      34 (seat 0): forest W end; three separate meadows N, E, S (deer)
     1   36 r2              36 (seat 1): forest N end; meadow E, S, W (aurochs)
"""

from __future__ import annotations

import numpy as np
import pytest

from hg_env import Game
from tests.invariants import check_areas, check_pieces, check_tiles
from tests.oracle import shown_side
from tests.scenario import Scenario, apply_play, check, find_events, new_game, play, run
from tests.test_rules_examples import E1, E2_E3, E4, E5, E6, E8, E10, E11, E12, E13, E17

EXAMPLES = [E1, E2_E3, E4, E5, E6, E8, E10, E11, E12, E13, E17]
OPENING = [play(1, 0, 0, by=0), play(0, 1, 2, by=1)]  # 34, 36: closes the start forest
OPENING_TILES = [34, 36]


# ---------------------------------------------------------------- R1 components and setup


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_r1_setup(num_players: int) -> None:
    """R1.2, R1.4, R1.6, R1.7: full supplies, zero scores, start tile alone at (0,0) r0, seat 0 first."""
    game = Game(num_players, seed=7)
    assert [game.supply(p) for p in range(num_players)] == [(5, 3)] * num_players
    assert game.scores == [0] * num_players
    assert game.placed_tiles() == [(56, 0, 0, 0)]
    assert game.tile_at(0, 0) == (56, 0)
    assert game.occupants() == [] and game.events == []  # placing the start tile triggers nothing
    assert (game.current_player, game.phase, game.extra_turn) == (0, "place", False)
    assert game.tile_to_place in range(79) and game.tile_to_place != 56
    assert game.deck_sizes == (77, 16)  # one regular tile drawn (R1.5)


def test_r1_decks_are_seeded_shuffles() -> None:
    """R1.5: the regular and menhir decks are separate shuffles, reproducible from the seed."""
    a, b, c = (Game(2, seed=s).to_record() for s in (3, 3, 4))
    assert sorted(a["regular_deck"]) == [*range(56), *range(57, 79)]
    assert sorted(a["menhir_deck"]) == list(range(79, 95))
    assert (a["regular_deck"], a["menhir_deck"]) == (b["regular_deck"], b["menhir_deck"])
    assert a["regular_deck"] != c["regular_deck"]


def test_r1_turn_order_is_cyclic() -> None:
    """R1.7 / R3.6: seat 0 starts and play passes in list order (5 players, no menhir tiles)."""
    game = Game(5, seed=11, menhir_deck=[])
    seats = []
    for _ in range(12):
        seats.append(game.current_player)
        game.place(*game.legal_placements()[0])
        if game.phase == "occupy":
            game.occupy(None)
    assert seats == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1]


def test_r1_start_tile_is_never_occupied() -> None:
    """R1.4: the start tile has no placer; occupants only ever go on the tile just placed (R5.2)."""
    game = Game(2, regular_deck=[46, 62], menhir_deck=[])
    game.place(-1, 0, 0)
    # 46's river joins the start river; the choices name 46's zones only, and no lake of 56.
    assert game.legal_occupants() == [("pawn", 0), ("pawn", 1), ("pawn", 2), ("pawn", 3), ("hut", 1)]


# ---------------------------------------------------------------- R2 tile model and areas


def test_r2_13_meadows_cross_at_a_river_side() -> None:
    """R2.13: at a river side meadow1 meets meadow2. 53's north bank joins the start tile's north
    meadow (1 aurochs), its south bank (1 mammoth) joins the start's empty south meadow.

    y\\x   -1      0
     0   53 r0   56 r0      hunter on 53's north bank (zone 0)
    """
    sc = Scenario(regular=[53], plays=[play(-1, 0, 0, pawn=0, by=0)], scores=[2, 0])
    game = check(sc)
    (meadow,) = find_events(game, "MEADOW_SCORED")
    assert meadow["animals"] == {"mammoth": 0, "aurochs": 1, "deer": 0, "tiger": 0}


def test_r2_14_a_lake_splits_rivers_but_joins_the_system() -> None:
    """R2.14: tile 1's two rivers flow into one lake: the east river closes on its own (start lake +
    tile 1's lake: 2 tiles + 1 + 3 fish = 6, R5.11), the west one is another river area, while one
    river system holds both (R5.5: the hut on the lake blocks 46's hut, not its fisher, R5.6).

    y\\x   -2      -1      0
     0   46 r0    1 r0   56 r0
    """
    sc = Scenario(regular=[1, 46, 62], plays=[play(-1, 0, 0, pawn=1, by=0)], scores=[6, 0])
    game = check(sc)
    (river,) = find_events(game, "RIVER_SCORED")
    assert (river["tileIds"], river["fish"], river["points"]) == ([1, 56], 4, 6)

    sc = Scenario(regular=[1, 46, 62], plays=[play(-1, 0, 0, hut=8, by=0)], scores=[0, 0])
    game = check(sc)  # the closed east river has no pawn: nothing scores (R6.5, R6.6)
    game.place(-2, 0, 0)
    assert ("pawn", 1) in game.legal_occupants()  # the west river area holds no pawn
    assert ("hut", 1) not in game.legal_occupants()  # its system holds seat 0's hut


# ---------------------------------------------------------------- R3 turn structure

R3_4 = Scenario(
    # Seat 0 puts all 5 pawns on the board, the last as a gatherer in the start forest (on 34);
    # then it closes that forest with 36 (no pawn left to place), the gatherer returns in T5 and
    # can be used in the extra turn (R3.4).
    #
    #   y\x   -1      0       1       2       3
    #   -3          94 r2                         <- extra turn: seat 0 places a pawn again
    #   -2          33 r0
    #   -1          62 r0   37 r0   30 r2          62: hunter; 37: gatherer (its own forest)
    #    0   46 r0  56 r0   34 r0   61 r0   39 r1  46: fisher; 34: gatherer; 61: hunter
    #    1   41 r1  36 r2   35 r0
    regular=[34, 35, 62, 33, 46, 41, 61, 39, 37, 30, 36, 1],
    menhir=[94],
    plays=[
        play(1, 0, 0, pawn=3, by=0),
        play(1, 1, 0, by=1),
        play(0, -1, 0, pawn=0, by=0),
        play(0, -2, 0, by=1),
        play(-1, 0, 0, pawn=1, by=0),
        play(-1, 1, 1, by=1),
        play(2, 0, 0, pawn=0, by=0),
        play(3, 0, 1, by=1),
        play(1, -1, 0, pawn=0, by=0),
        play(2, -1, 2, by=1),
    ],
)


def test_r3_4_pawns_returned_in_t5_serve_in_the_extra_turn() -> None:
    """R3.4 / R5.3: with no pawn in supply the closing tile gets no pawn; the gatherer scored in T5
    is back for the extra turn."""
    game = run(R3_4)
    assert game.supply(0) == (0, 3)
    game.place(0, 1, 2)  # 36 closes the start forest {56, 34, 36}: 6 points
    assert game.scores == [6, 0]
    assert (game.current_player, game.extra_turn, game.tile_to_place) == (0, True, 94)
    assert game.supply(0) == (1, 3)
    game.place(0, -3, 2)
    assert ("pawn", 1) in game.legal_occupants()
    game.occupy("pawn", 1)
    assert game.supply(0) == (0, 3)

    # With forced decisions exposed, 36 shows that no occupant could be placed (R5.3).
    game = run(Scenario(**{**R3_4.__dict__, "flags": {"auto_skip_forced_actions": False}}))
    game.place(0, 1, 2)
    assert (game.phase, game.legal_occupants()) == ("occupy", [])


def test_r3_3_extra_turn_is_never_chained() -> None:
    """R3.3 / Q18: E3's extra turn closes the menhir forest 31-35-90 (31 is a menhir forest): it
    scores, but the next turn is seat 1's regular turn, though the menhir deck still holds 94."""
    game = run(E2_E3)
    (_, closed) = find_events(game, "FOREST_SCORED")
    assert closed["tileIds"] == [31, 35, 90]
    assert (game.current_player, game.extra_turn, game.tile_to_place, game.deck_sizes) == (1, False, 62, (0, 1))


def test_r3_5_extra_turn_goes_to_the_placer() -> None:
    """R3.5 / Q16: seat 1 closes a menhir forest holding only seat 0's gatherer: seat 0 scores 6,
    seat 1 takes the extra turn."""
    sc = Scenario(
        regular=[*OPENING_TILES, 62],
        menhir=[94],
        plays=[play(1, 0, 0, pawn=3, by=0), play(0, 1, 2, by=1)],
        scores=[6, 0],
        events=[
            {"type": "FOREST_SCORED", "scorers": [0], "points": 6, "tileCount": 3, "tileIds": [34, 36, 56]},
            {"type": "MENHIR_EXTRA_TURN", "player": 1, "tileIds": [34, 36, 56]},
        ],
    )
    game = check(sc)
    assert (game.current_player, game.extra_turn, game.tile_to_place) == (1, True, 94)


def test_r3_3_no_extra_turn_with_an_empty_menhir_deck() -> None:
    """R3.3: with no menhir tile left, closing a menhir forest gives no extra turn."""
    game = run(Scenario(regular=[*OPENING_TILES, 62], menhir=[], plays=OPENING))
    assert (game.current_player, game.extra_turn, game.tile_to_place) == (0, False, 62)


def test_r3_3_unplaceable_menhir_tiles_are_discarded() -> None:
    """R3.3 / R4.4 / Q4: tile 83 (four river sides) fits nowhere after the opening (the start river is
    the only river and 59 has closed it): it is discarded and 94 drawn instead; if 83 is the only
    menhir tile left there is no extra turn.

    y\\x   -1      0       1
     0   59 r1   56 r0   34 r0
     1           36 r2
    """
    plays = [play(-1, 0, 1, by=0), play(1, 0, 0, by=1), play(0, 1, 2, by=0)]
    sc = Scenario(regular=[59, *OPENING_TILES, 62], menhir=[83, 94], plays=plays)
    game = check(sc)
    assert find_events(game, "TILE_DISCARDED") == [{"type": "TILE_DISCARDED", "tile": 83}]
    assert (game.current_player, game.extra_turn, game.tile_to_place, game.deck_sizes) == (0, True, 94, (1, 0))

    game = run(Scenario(regular=[59, *OPENING_TILES, 62], menhir=[83], plays=plays))
    assert find_events(game, "MENHIR_EXTRA_TURN") == []
    assert (game.current_player, game.extra_turn, game.tile_to_place) == (1, False, 62)


def test_r3_7_occupy_is_skipped_when_nothing_is_legal() -> None:
    """R3.7 / D13: 62 (one meadow) joins a meadow that already holds a hunter: no occupant is
    possible, so the turn passes straight on."""
    game = Game(2, regular_deck=[33, 62, 61], menhir_deck=[])
    game.place(0, -1, 0)
    game.occupy("pawn", 1)  # hunter on the start meadow
    game.place(1, -1, 0)  # 62 joins 33's meadow
    assert (game.phase, game.current_player, game.tile_to_place) == ("place", 0, 61)


# ---------------------------------------------------------------- R4 placement


def _expected_placements(game: Game) -> set[tuple[int, int, int]]:
    """R4.1 from first principles: empty, on the board, an orthogonal neighbour, all sides match."""
    board = {(x, y): (t, r) for t, x, y, r in game.placed_tiles()}
    reach = game.rules.reach
    steps = [(0, -1), (1, 0), (0, 1), (-1, 0)]
    candidates = {(x + dx, y + dy) for x, y in board for dx, dy in steps} - set(board)
    out = set()
    for x, y in candidates:
        if max(abs(x), abs(y)) > reach:
            continue
        for rot in range(4):
            fits = True
            for d, (dx, dy) in enumerate(steps):
                other = board.get((x + dx, y + dy))
                if other is not None:
                    mine = shown_side(game.tile_to_place, rot, d)[0]
                    theirs = shown_side(*other, (d + 2) % 4)[0]
                    fits &= mine == theirs
            if fits:
                out.add((x, y, rot))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_r4_1_legal_placements_match_first_principles(seed: int) -> None:
    """R4.1 (a)-(d) and R4.2: through two whole random games, legal_placements() is exactly the set of
    (position, rotation) that is empty, on the board, next to a tile and matches every neighbour."""
    game = Game(2, seed=seed, board_reach=4)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        if game.phase == "place":
            legal = game.legal_placements()
            assert set(legal) == _expected_placements(game)
            assert len(set(legal)) == len(legal)
            game.place(*legal[rng.integers(len(legal))])
        elif game.phase == "retake":
            game.decide("retake", None)
        else:
            game.occupy(None)


def test_r4_2_symmetric_rotations_are_distinct_placements() -> None:
    """R4.2: 61 (four meadow sides) fits north of the start tile in all four rotations."""
    game = Game(2, regular_deck=[61], menhir_deck=[])
    assert sorted(game.legal_placements()) == [(0, -1, 0), (0, -1, 1), (0, -1, 2), (0, -1, 3)]


def test_r4_3_board_edge() -> None:
    """R4.3: with board_reach=1 no tile goes beyond |x|, |y| <= 1, and an area facing the edge stays
    open: 38 extends the start forest to the east edge, so 36 does not close it (no score, no
    extra turn)."""
    game = Game(2, regular_deck=[38, 36, 62], menhir_deck=[94], board_reach=1)
    game.place(1, 0, 0)
    game.occupy("pawn", 1)  # gatherer on the start forest
    assert all(max(abs(x), abs(y)) <= 1 for x, y, _ in game.legal_placements())
    game.place(0, 1, 2)
    game.occupy(None)
    assert game.scores == [0, 0] and find_events(game, "MENHIR_EXTRA_TURN") == []
    assert game.current_player == 0 and not game.extra_turn
    with pytest.raises(ValueError, match="off the board"):
        game.place(0, -2, 0)


def test_r4_4_unplaceable_regular_tiles_are_discarded() -> None:
    """R4.4 / R3.2 T1: after 59 closes the start river no river side is free, so 13 (four river sides)
    is discarded face up and the same seat draws 62."""
    game = Game(2, regular_deck=[59, 13, 62], menhir_deck=[])
    game.place(-1, 0, 1)
    game.occupy(None)
    assert find_events(game, "TILE_DISCARDED") == [{"type": "TILE_DISCARDED", "tile": 13}]
    assert (game.current_player, game.tile_to_place, game.deck_sizes) == (1, 62, (0, 0))
    assert bool(game.state.discarded[0, 13])


# ---------------------------------------------------------------- R5 occupants


def test_r5_1_allowed_zones() -> None:
    """R5.1: pawns on meadow, forest and river zones, never on a lake; huts only on water."""
    game = Game(2, regular_deck=[1, 62], menhir_deck=[])
    game.place(-1, 0, 0)  # tile 1: meadows 0, 2, 4; river 1, 5; forest 3; lake 8
    pawns = sorted(z for k, z in game.legal_occupants() if k == "pawn")
    huts = sorted(z for k, z in game.legal_occupants() if k == "hut")
    assert pawns == [0, 1, 2, 3, 4, 5]
    assert huts == [8]  # canonical hut target: the lake (R5.7)
    with pytest.raises(ValueError, match="not legal"):
        game.occupy("pawn", 8)
    with pytest.raises(ValueError, match="not legal"):
        game.occupy("hut", 3)


def test_r5_3_hut_supply() -> None:
    """R5.3: after three huts on the board seat 0 is offered no hut on a fourth lake tile.

    y\\x   -4      -3      -2      -1      0       1
    -1                                   3 r0          hut
     0   61 r0   62 r0   35 r0   59 r1   56 r0    0 r0  hut on 59 and 0
     1                                  57 r1          no hut left
    """
    sc = Scenario(
        regular=[59, 35, 3, 62, 0, 61, 57],
        plays=[
            play(-1, 0, 1, hut=8, by=0),
            play(-2, 0, 0, by=1),
            play(0, -1, 0, hut=8, by=0),
            play(-3, 0, 0, by=1),
            play(1, 0, 0, hut=8, by=0),
            play(-4, 0, 0, by=1),
        ],
    )
    game = run(sc)
    assert game.supply(0) == (5, 0)
    game.place(0, 1, 1)
    assert game.legal_occupants() == [("pawn", 0), ("pawn", 1), ("pawn", 2), ("pawn", 3), ("pawn", 4)]


def test_r5_4_pawn_exclusivity_includes_own_pawns() -> None:
    """R5.4: seat 0's own hunter on the start meadow blocks seat 0 from that meadow later.

    y\\x   -1      0       1
    -1          33 r0   37 r0     33: seat 0's hunter; 37's meadow joins it, its forest is free
     0   46 r0  56 r0
    """
    game = Game(2, regular_deck=[33, 46, 37, 61], menhir_deck=[])
    game.place(0, -1, 0)
    game.occupy("pawn", 1)
    game.place(-1, 0, 0)
    game.occupy(None)
    game.place(1, -1, 0)
    assert game.current_player == 0
    assert game.legal_occupants() == [("pawn", 0)]


def test_r5_5_hut_exclusivity_and_r5_6_independence() -> None:
    """R5.5: a hut blocks huts in its river system; R5.6: a fisher does not block huts and huts do not
    block fishers."""
    game = Game(2, regular_deck=[46, 47, 62], menhir_deck=[])
    game.place(-1, 0, 0)
    game.occupy("pawn", 1)  # seat 0: fisher on the river start-46
    game.place(-2, 0, 0)  # seat 1: 47 extends that river
    assert ("hut", 1) in game.legal_occupants()  # a fisher does not block a hut
    assert ("pawn", 1) not in game.legal_occupants()
    game.occupy("hut", 1)
    assert game.occupants() == [(0, "pawn", -1, 0, 1), (1, "hut", -2, 0, 1)]


def test_r5_10_hunters_stay_on_a_closed_meadow() -> None:
    """R5.10 / R6.7 / Q25: 38 closes the meadow 34(S)+38(N) with seat 1's hunter on it: nothing is
    scored during the game and the hunter stays; at the end the 2 deer score 2.

    y\\x    0       1
     0   56 r0   34 r0
     1           38 r0
    """
    sc = Scenario(regular=[34, 38, 62], plays=[play(1, 0, 0, by=0), play(1, 1, 0, pawn=0, by=1)], scores=[0, 0])
    game = check(sc)
    assert game.occupants() == [(1, "pawn", 1, 1, 0)]
    game.place(0, -1, 0)
    game.occupy(None)
    assert game.is_over and game.scores == [0, 2]


def test_r5_11_a_hut_on_a_closed_river_stays() -> None:
    """R5.11 / R6.6: 59 closes the start river and gets a hut: the river is not scored, the hut
    stays and scores the system at the end (start lake 1 + 59's lake 1)."""
    sc = Scenario(regular=[59, 62], plays=[play(-1, 0, 1, hut=8, by=0)], scores=[0, 0], events=[])
    game = check(sc)
    assert game.occupants() == [(0, "hut", -1, 0, 8)]
    game.place(0, -1, 0)
    game.occupy(None)
    assert game.is_over and game.scores == [2, 0]


# ---------------------------------------------------------------- R6 completion and scoring


def test_r6_majority_with_three_players() -> None:
    """R6.1 / R6.4: 2 huts beat 1 (E6 left), 1-1 ties share in full (E6 right); the minority scores 0."""
    game = check(E6)
    assert game.scores == [8, 10, 10]


def test_r6_4_all_pawns_of_a_scored_area_return() -> None:
    """R6.4: majority and minority gatherers all return (E4); pawns elsewhere stay (E1)."""
    game = check(E4)
    assert game.occupants() == [] and game.supply(1) == (5, 3)


def test_r6_5_closed_area_without_pawn_scores_nothing() -> None:
    """R6.5 / Q17: the opening closes the start forest with nobody on it: no points, still a menhir
    extra turn."""
    game = check(Scenario(regular=[*OPENING_TILES, 62], menhir=[94], plays=OPENING, scores=[0, 0]))
    assert find_events(game, "FOREST_SCORED") == []
    assert find_events(game, "MENHIR_EXTRA_TURN") == [
        {"type": "MENHIR_EXTRA_TURN", "player": 1, "tileIds": [34, 36, 56]}
    ]


def test_r6_8_closed_areas_span_two_tiles() -> None:
    """R6.8: every forest or river scored in the examples covers at least 2 tiles."""
    for sc in EXAMPLES:
        for e in run(sc).events:
            if e["type"] in ("FOREST_SCORED", "RIVER_SCORED"):
                assert e["tileCount"] >= 2 and len(e["tileIds"]) == e["tileCount"]


# ---------------------------------------------------------------- R7 special powers

SHAMAN_PLAYS = [
    # Seat 0 has a hut on 59 and a hunter on 36's meadow (aurochs); seat 1 a hunter on 34's deer
    # meadow. Seat 0 closes the start forest with 36 and places the shaman 88 in its extra turn.
    #
    #   y\x   -1      0       1
    #    0   59 r1   56 r0   34 r0     59: seat 0's hut;  34: seat 1's hunter (zone 2)
    #    1           36 r2             36: seat 0's hunter
    #    2           88 r1             88's shaman meadow faces north: it joins 36's meadow
    play(-1, 0, 1, hut=8, by=0),
    play(1, 0, 0, pawn=2, by=1),
    play(0, 1, 2, pawn=0, by=0),
]


def shaman_game(no_pawn: bool = False) -> Game:
    plays = list(SHAMAN_PLAYS)
    if no_pawn:
        plays[2] = play(0, 1, 2, by=0)
    game = run(Scenario(regular=[59, *OPENING_TILES], menhir=[88], plays=plays))
    assert (game.current_player, game.extra_turn, game.tile_to_place) == (0, True, 88)
    game.place(0, 2, 1)
    return game


def test_r7_1_shaman_retake_is_a_decision_over_own_pawns() -> None:
    """R7.1 / R7.2 / R3.7: after 88 the placer may take back one of its own pawns (not the hut, not
    seat 1's hunter); the pawn is free again and its meadow can be re-occupied through 88."""
    game = shaman_game()
    assert game.phase == "retake"
    assert game.legal_choices("retake") == [(0, 1, 0)]
    for wrong in ((1, 0, 2), (-1, 0, 8)):
        with pytest.raises(ValueError, match="no pawn there"):
            game.decide("retake", *wrong)
    game.decide("retake", 0, 1, 0)
    assert game.supply(0) == (5, 2)
    assert ("pawn", 0) in game.legal_occupants()  # the shaman meadow joins the emptied meadow
    game.occupy("pawn", 0)
    # End: seat 0's hunter on 88 scores the aurochs (2) and its hut the system (2 fish); seat 1 the deer.
    assert game.is_over and game.scores == [4, 1]


def test_r7_1_shaman_retake_none_keeps_the_pawn() -> None:
    """R7.1: the retake is optional; the meadow then still holds the hunter (R5.4)."""
    game = shaman_game()
    game.decide("retake", None)
    assert game.supply(0) == (4, 2)
    assert ("pawn", 0) not in game.legal_occupants() and ("pawn", 1) in game.legal_occupants()
    game.occupy(None)
    assert game.scores == [4, 1]


def test_r7_19_shaman_retrieved_hunter_is_not_scored() -> None:
    """R7.19: a hunter taken back by the shaman is not scored at the end."""
    game = shaman_game()
    game.decide("retake", 0, 1, 0)
    game.occupy(None)
    assert game.scores == [2, 1]  # the hut's 2 fish only


def test_r7_1_no_retake_without_a_pawn_on_the_board() -> None:
    """Q9 / R3.7: seat 0 has only a hut on the board: no retake phase, straight to occupy."""
    game = shaman_game(no_pawn=True)
    assert game.phase == "occupy" and game.legal_choices("retake") == []


LOGBOAT = Scenario(
    # Seat 1's hut sits on 24's lake (system: start lake + 24's lake). Seat 0 closes the start forest
    # and places the logboat 93 in its extra turn: 3 lakes -> 6 points to seat 0, the hut does not
    # matter (R7.6). Then seat 1 joins 59's lake to the system: no more logboat points.
    #
    #   y\x   -2      -1      0       1
    #   -1   59 r1   93 r2
    #    0           24 r1   56 r0   34 r0
    #    1                   36 r2
    regular=[34, 24, 36, 59],
    menhir=[93],
    plays=[
        play(1, 0, 0, by=0),
        play(-1, 0, 1, hut=8, by=1),
        play(0, 1, 2, by=0),
        play(-1, -1, 2, by=0),
        play(-2, -1, 1, by=1),
    ],
    scores=[6, 4],  # seat 1's hut: fish of the start lake, 24, 93 and 59 = 4 (no raft)
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 0},
        {"type": "LOGBOAT_SCORED", "player": 0, "points": 6, "lakes": 3},
        {"type": "RIVER_SYSTEM_SCORED", "scorers": [1], "points": 4, "fish": 4},
        {"type": "WINNERS", "players": [0], "points": 6},
    ],
)


def test_r7_4_logboat() -> None:
    """R7.4-R7.7: 2 x lakes of the logboat's system to the placer, once, whoever has huts."""
    game = check(LOGBOAT)
    assert len(find_events(game, "LOGBOAT_SCORED")) == 1


def test_r7_5_logboat_alone_scores_its_own_lake() -> None:
    """R7.5: the minimum is 2 points (the logboat's own lake)."""
    sc = Scenario(
        regular=[*OPENING_TILES],
        menhir=[93],
        plays=[*OPENING, play(0, 2, 2, by=1)],  # 93's rivers face empty positions
        scores=[0, 2],
    )
    check(sc)


HUNTING_TRAP_LATER_ANIMAL = Scenario(
    # Seat 1 places the hunting trap 94 in the opening's extra turn: in range in its meadow are the
    # deer of 34 and the aurochs of 36: 2 + 1 = 3, both cancelled. Seat 0 then adds 62 (deer) in
    # range: placed later, it is not cancelled (R7.11, Q19).
    #
    #   y\x    0       1       2
    #    0   56 r0   34 r0
    #    1   36 r2   94 r2   62 r0     seat 1's hunter on 94
    regular=[*OPENING_TILES, 62],
    menhir=[94],
    plays=[*OPENING, play(1, 1, 2, pawn=1, by=1), play(2, 1, 0, by=0)],
    scores=[0, 4],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "HUNTING_TRAP_SCORED", "player": 1, "points": 3},
        {
            "type": "MEADOW_SCORED",
            "scorers": [1],
            "points": 1,
            "animals": {"mammoth": 0, "aurochs": 0, "deer": 1, "tiger": 0},
        },
        {"type": "WINNERS", "players": [1], "points": 4},
    ],
)


def test_r7_8_hunting_trap_cancels_only_animals_present() -> None:
    """R7.8-R7.11: the trap scores and cancels what is in range now; later animals still count."""
    check(HUNTING_TRAP_LATER_ANIMAL)


PIT_TRAP_FAR_DEER = Scenario(
    # Seat 1 places the pit trap 92 in the opening's extra turn and hunts its meadow. Final meadow:
    # deer of 34 and aurochs of 36 in range, tiger of 18 in range, deer of 62 out of range (x = -1).
    # The tiger eats the far deer (R7.15): base 2 + 1 = 3, bonus 2 + 1 = 3.
    #
    #   y\x   -1      0       1
    #    0           56 r0   34 r0
    #    1   62 r0   36 r2   92 r1     seat 1's hunter on 92
    #    2           18 r0
    regular=[*OPENING_TILES, 62, 18],
    menhir=[92],
    plays=[*OPENING, play(1, 1, 1, pawn=1, by=1), play(-1, 1, 0, by=0), play(0, 2, 0, by=1)],
    scores=[0, 6],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "MEADOW_SCORED", "scorers": [1], "points": 3, "deerEaten": 1},
        {
            "type": "PIT_TRAP_SCORED",
            "scorers": [1],
            "points": 3,
            "animals": {"mammoth": 0, "aurochs": 1, "deer": 1, "tiger": 1},
        },
        {"type": "WINNERS", "players": [1], "points": 6},
    ],
)


def test_r7_15_pit_trap_far_deer_are_eaten_first() -> None:
    """R7.14 / R7.15 / Q7: in-range animals score double; the tiger eats the deer far from the trap."""
    check(PIT_TRAP_FAR_DEER)


WILDFIRE = Scenario(
    # Seat 1 places the wildfire 85 in the opening's extra turn and hunts its meadow: deer (34),
    # aurochs (36) and tiger (18). The fire chases the tiger: 2 + 1 = 3 instead of 2.
    #
    #   y\x    0       1
    #    0   56 r0   34 r0
    #    1   36 r2   85 r0     seat 1's hunter on 85
    #    2   18 r0
    regular=[*OPENING_TILES, 18],
    menhir=[85],
    plays=[*OPENING, play(1, 1, 0, pawn=0, by=1), play(0, 2, 0, by=0)],
    scores=[0, 3],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {
            "type": "MEADOW_SCORED",
            "scorers": [1],
            "points": 3,
            "deerEaten": 0,
            "animals": {"mammoth": 0, "aurochs": 1, "deer": 1, "tiger": 1},  # 85's drawn tiger is no animal
        },
        {"type": "WINNERS", "players": [1], "points": 3},
    ],
)


def test_r7_17_wildfire() -> None:
    """R7.17 / R2.8: in the wildfire's meadow tigers eat no deer at final scoring."""
    check(WILDFIRE)


RAFT = Scenario(
    # Seat 1 places the raft 91 in the opening's extra turn with a hut on its lake; seat 0 joins
    # 59's lake: system fish 2, plus 1 per lake (2) for the raft.
    #
    #   y\x    0       1
    #    0   56 r0   34 r0
    #    1   36 r2
    #    2   91 r2   59 r3
    regular=[*OPENING_TILES, 59],
    menhir=[91],
    plays=[*OPENING, play(0, 2, 2, hut=8, by=1), play(1, 2, 3, by=0)],
    scores=[0, 4],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "RIVER_SYSTEM_SCORED", "scorers": [1], "points": 2, "fish": 2},
        {"type": "RAFT_SCORED", "scorers": [1], "points": 2, "lakes": 2},
        {"type": "WINNERS", "players": [1], "points": 4},
    ],
)


def test_r7_18_raft() -> None:
    """R7.18: the raft adds 1 per lake to the hut majority of its system."""
    check(RAFT)


def test_r7_18_raft_without_huts_scores_nothing() -> None:
    """R7.18: no huts in the raft's system, nobody scores."""
    sc = Scenario(regular=RAFT.regular, menhir=[91], plays=[*OPENING, play(0, 2, 2, by=1), play(1, 2, 3, by=0)])
    game = check(Scenario(**{**sc.__dict__, "scores": [0, 0]}))
    assert find_events(game, "RAFT_SCORED") == []


SECOND_MENHIR_FOREST = [
    # After the opening: 33, 37, 35 close the menhir forest north-east of the start (seat 0 closes
    # it with 35 and takes the second extra turn).
    #
    #   y\x    0       1       2
    #   -2           37 r2
    #   -1           33 r1   35 r2
    #    0   56 r0   34 r0
    play(1, -1, 1, by=0),
    play(1, -2, 2, by=1),
    play(2, -1, 2, by=0),
]
SECOND_MENHIR_TILES = [33, 37, 35]

TRAP_THEN_PIT = Scenario(
    # R7.19: seat 1's pit trap 92 (first extra turn) shares its meadow with the aurochs of 36, which
    # seat 0's hunting trap 94 (second extra turn, at (0,2), range x -1..1, y 1..3) scores (2) and
    # cancels. The pit meadow keeps only the deer of 34: base 1 + bonus 1.
    #
    #   y\x    0       1       2
    #    0   56 r0   34 r0
    #    1   36 r2   92 r1
    #    2   94 r2
    regular=[*OPENING_TILES, *SECOND_MENHIR_TILES],
    menhir=[92, 94],
    plays=[*OPENING, play(1, 1, 1, pawn=1, by=1), *SECOND_MENHIR_FOREST, play(0, 2, 2, by=0)],
    scores=[2, 2],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "MENHIR_EXTRA_TURN", "player": 0},
        {"type": "HUNTING_TRAP_SCORED", "player": 0, "points": 2},
        {"type": "MEADOW_SCORED", "scorers": [1], "points": 1},
        {"type": "PIT_TRAP_SCORED", "scorers": [1], "points": 1},
        {"type": "WINNERS", "players": [0, 1], "points": 2},
    ],
)

FIRE_AND_PIT = Scenario(
    # R7.19: wildfire 85 in the pit trap's meadow: nothing is eaten, the bonus is the full in-range
    # value: deer (34) and aurochs (36) in range, the tiger of 18 out of range (x = -1).
    # Base 2 + 1 = 3, bonus 2 + 1 = 3.
    #
    #   y\x   -1      0       1
    #    0           56 r0   34 r0
    #    1           36 r2   92 r1
    #    2   18 r1   85 r0
    regular=[*OPENING_TILES, *SECOND_MENHIR_TILES, 18],
    menhir=[92, 85],
    plays=[*OPENING, play(1, 1, 1, pawn=1, by=1), *SECOND_MENHIR_FOREST, play(0, 2, 0, by=0), play(-1, 2, 1, by=1)],
    scores=[0, 6],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "MENHIR_EXTRA_TURN", "player": 0},
        {"type": "MEADOW_SCORED", "scorers": [1], "points": 3, "deerEaten": 0},
        {"type": "PIT_TRAP_SCORED", "scorers": [1], "points": 3},
        {"type": "WINNERS", "players": [1], "points": 6},
    ],
)

LOGBOAT_AND_RAFT = Scenario(
    # R7.19: raft 91 (seat 1's hut) and logboat 93 (placed by seat 0) in one system of 2 lakes:
    # the logboat gives its placer 2 x 2 once; the raft gives the hut majority fish 2 + lakes 2.
    #
    #   y\x    0       1
    #    0   56 r0   34 r0
    #    1   36 r2
    #    2   91 r2   93 r0
    regular=[*OPENING_TILES, *SECOND_MENHIR_TILES],
    menhir=[91, 93],
    plays=[*OPENING, play(0, 2, 2, hut=8, by=1), *SECOND_MENHIR_FOREST, play(1, 2, 0, by=0)],
    scores=[4, 4],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "MENHIR_EXTRA_TURN", "player": 0},
        {"type": "LOGBOAT_SCORED", "player": 0, "points": 4, "lakes": 2},
        {"type": "RIVER_SYSTEM_SCORED", "scorers": [1], "points": 2, "fish": 2},
        {"type": "RAFT_SCORED", "scorers": [1], "points": 2, "lakes": 2},
        {"type": "WINNERS", "players": [0, 1], "points": 4},
    ],
)

INTERACTIONS = {
    "trap then pit trap": TRAP_THEN_PIT,
    "fire and pit trap": FIRE_AND_PIT,
    "logboat and raft": LOGBOAT_AND_RAFT,
}


@pytest.mark.parametrize("scenario", INTERACTIONS.values(), ids=INTERACTIONS.keys())
def test_r7_19_interactions(scenario: Scenario) -> None:
    """R7.19: cancellations reach the pit trap; fire + pit trap; logboat + raft in one system."""
    check(scenario)


# ---------------------------------------------------------------- R8 end of game and final scoring


def test_r8_1_game_ends_when_the_regular_deck_runs_out() -> None:
    """R8.1: the game ends after the last regular tile; menhir tiles left over are never used."""
    game = Game(2, regular_deck=[37], menhir_deck=[94, 85])
    game.place(1, 0, 3)
    game.occupy(None)
    assert game.is_over and game.phase == "over" and game.deck_sizes == (0, 2)
    assert game.tile_to_place is None and game.legal_placements() == [] and game.legal_occupants() == []
    assert game.winners == [0, 1]


def test_r8_1_the_last_tile_still_earns_its_extra_turn() -> None:
    """R8.1 / Q3 (default): the last regular tile closes the start forest; its extra turn is played,
    then the game ends."""
    game = run(Scenario(regular=OPENING_TILES, menhir=[94, 85], plays=OPENING))
    assert (game.phase, game.current_player, game.extra_turn, game.tile_to_place) == ("place", 1, True, 94)
    game.place(1, 1, 2)
    game.occupy(None)
    assert game.is_over and game.deck_sizes == (0, 1)


def test_r8_2_final_scoring_removes_gatherers_and_fishers() -> None:
    """R8.2.1: incomplete forests and rivers score nothing; their pawns leave; hunters and huts stay."""
    sc = Scenario(
        regular=[46, 33, 34, 59],
        plays=[
            play(-1, 0, 0, pawn=1, by=0),  # fisher on an open river
            play(0, -1, 0, pawn=1, by=1),  # hunter on the start meadow (1 aurochs)
            play(1, 0, 0, pawn=3, by=0),  # gatherer on the open start forest
            play(2, 0, 0, hut=8, by=1),  # hut on 59's lake: its own system (its river is open)
        ],
        scores=[0, 3],  # seat 1: aurochs 2 + 59's lake 1 fish
    )
    game = check(sc)
    assert game.occupants() == [(1, "hut", 2, 0, 8), (1, "pawn", 0, -1, 1)]
    assert game.supply(0) == (5, 3)


def test_r8_2_4_shared_victory() -> None:
    """R8.2.4 / Q23: tied players share the victory (E5, E17); otherwise one winner (E10)."""
    assert check(E5).winners == [0, 1]
    assert check(E17).winners == [0, 1]
    assert check(E10).winners == [0]


# ---------------------------------------------------------------- R2 areas against the oracle

ORACLE_SCENARIOS = {
    **{f"E{i}": sc for i, sc in zip((1, 2, 4, 5, 6, 8, 10, 11, 12, 13, 17), EXAMPLES)},
    "R3.4": R3_4,
    "logboat": LOGBOAT,
    "hunting trap": HUNTING_TRAP_LATER_ANIMAL,
    "pit trap": PIT_TRAP_FAR_DEER,
    "wildfire": WILDFIRE,
    "raft": RAFT,
    **INTERACTIONS,
}


@pytest.mark.parametrize("scenario", ORACLE_SCENARIOS.values(), ids=ORACLE_SCENARIOS.keys())
def test_r2_area_accumulators_match_the_bfs_oracle(scenario: Scenario) -> None:
    """R2.14-R2.17: after every play of the worked examples, the union-find areas (open connections,
    distinct tiles, fish, lakes, animals, occupants) equal a BFS recomputation; pieces are conserved."""
    game = new_game(scenario)
    for i, p in enumerate(scenario.plays):
        apply_play(game, p, i)
        check_areas(game.state, 0)
        check_pieces(game.state, 0)
        check_tiles(game.state, 0)
