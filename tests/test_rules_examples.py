"""RULES.md §9: the rulebook examples E1-E17 rebuilt on real tiles, and the formula table §9.2.

Each example is a ``Scenario`` (tests/scenario.py): the exact deck order, one play per
tile, and the numbers RULES.md §9.1 gives. Sketches show ``tile r<rotation>`` at each
position; x grows east, y grows south, the start tile 56 is at (0, 0). Seat names
follow the rulebook's text ("You", "Blue", ...); the seat numbers are given per example.
"""

from __future__ import annotations

import numpy as np
import pytest

from hg_env.core import scoring
from hg_env.rulesets import hunters_gatherers
from hg_env.rulesets.hg2020 import powers
from tests.scenario import Scenario, check, find_events, play, run

# ---------------------------------------------------------------- §9.1 rulebook examples

E1 = Scenario(
    # Start lake (1 fish) <- river <- 46 <- 59's lake (1 fish): a river of 3 tiles and 2 fish.
    #
    #   y\x    -2      -1      0
    #   -1                   61 r0
    #    0   59 r1   46 r0   56 r0
    #    1           73 r1              73: Blue's fisher on an open E-W river
    regular=[46, 73, 61, 59, 62],  # 62 stays in the deck: the game goes on
    plays=[
        play(-1, 0, 0, pawn=1, by=0),  # You: fisher on 46's river
        play(-1, 1, 1, pawn=1, by=1),  # Blue: fisher on another river, open at both ends
        play(0, -1, 0, by=0),
        play(-2, 0, 1, by=1),  # Blue closes your river with 59's lake
    ],
    scores=[5, 0],
    events=[{"type": "RIVER_SCORED", "scorers": [0], "points": 5, "tileCount": 3, "fish": 2}],
    over=False,
)


def test_e1_scoring_a_river() -> None:
    """E1 (R6.3, R6.4): Blue completes your river: you score 5 (3 tiles + 2 fish); your fisher returns,
    Blue's fisher on the unfinished river stays. The completing player need not be the scorer."""
    game = check(E1)
    assert game.supply(0) == (5, 3)  # your fisher is back
    assert game.occupants() == [(1, "pawn", -1, 1, 1)]  # Blue's fisher is still on 73


E2_E3 = Scenario(
    # E2: the start forest (menhir) closed as a 2x2 loop of 4 tiles: 8 points, then an extra turn.
    # E3: in that extra turn the menhir tile 90 closes the 3-tile menhir forest 35-31-90 with your
    #     gatherer on it: 6 points, and no further extra turn.
    #
    #   y\x   -1      0       1
    #   -2          90 r0               <- menhir tile, extra turn; gatherer, closes 35-31-90
    #   -1   35 r0  31 r0
    #    0          56 r0   30 r0       30: your gatherer (start forest, E and S)
    #    1          78 r0   33 r0       33 closes the loop 56-30-33-78
    regular=[30, 31, 35, 78, 33, 62],
    menhir=[90, 94],
    plays=[
        play(1, 0, 0, pawn=1, by=0),
        play(0, -1, 0, by=1),
        play(-1, -1, 0, by=0),
        play(0, 1, 0, by=1),
        play(1, 1, 0, by=0),  # closes the start forest: 4 tiles
        play(0, -2, 0, pawn=1, by=0),  # extra turn (R3.3), gatherer on the forest it closes (R5.11)
    ],
    scores=[14, 0],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0], "points": 8, "tileCount": 4, "mushroomGroups": 0},
        {"type": "MENHIR_EXTRA_TURN", "player": 0, "tileIds": [30, 33, 56, 78]},
        {"type": "FOREST_SCORED", "scorers": [0], "points": 6, "tileCount": 3, "tileIds": [31, 35, 90]},
    ],
    over=False,
)


def test_e2_forest_with_menhir_gives_an_extra_turn() -> None:
    """E2 (R6.2, Q1, R3.2 T6): a 4-tile menhir forest scores 8 (2 per tile; '8 tiles' is an erratum),
    then the completing player draws from the menhir deck."""
    game = run(E2_E3, upto=5)
    assert game.scores == [8, 0]
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 90, True)
    assert game.deck_sizes == (1, 1)


def test_e3_no_extra_turn_from_an_extra_turn() -> None:
    """E3 (R3.3, R5.11): the extra turn closes a 3-tile menhir forest with a new gatherer: 6, and the
    next player's regular turn follows although the menhir deck still holds tile 94."""
    game = check(E2_E3)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (1, 62, False)
    assert game.deck_sizes == (0, 1)
    assert len(find_events(game, "MENHIR_EXTRA_TURN")) == 1


E4 = Scenario(
    # Tile 63 (one forest on three sides) joins three separate forests: the start forest + 37
    # (your gatherer), 36 (your gatherer) and 35 (Blue's gatherer): 5 tiles, 10 points, menhir.
    #
    #   y\x    0       1
    #   -1   62 r0   36 r0     36: your gatherer (forest S end)
    #    0   56 r0   63 r3     63 joins: forest W, N, S
    #    1   37 r0   35 r3     37: your gatherer (start forest);  35: Blue's gatherer (forest N end)
    regular=[37, 62, 36, 35, 63],
    menhir=[94],
    plays=[
        play(0, 1, 0, pawn=0, by=0),
        play(0, -1, 0, by=1),
        play(1, -1, 0, pawn=1, by=0),
        play(1, 1, 3, pawn=1, by=1),
        play(1, 0, 3, by=0),
    ],
    scores=[10, 0],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0], "points": 10, "tileCount": 5, "mushroomGroups": 0},
        {"type": "MENHIR_EXTRA_TURN", "player": 0},
    ],
)


def test_e4_majority_of_gatherers() -> None:
    """E4 (R6.1, R6.4, R3.2 T6): you 2 gatherers vs Blue 1 in a 5-tile menhir forest: you 10, Blue 0;
    all three pawns return and you take an extra turn."""
    game = check(E4)
    assert game.occupants() == []
    assert game.supply(0) == (5, 3) and game.supply(1) == (5, 3)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 94, True)


E5 = Scenario(
    # Your river (start lake 1 + 47 with 1 fish) and Blue's river (tile 1, lake with 3 fish) are
    # joined by 46: 4 tiles, 5 fish, 9 points to each.
    #
    #   y\x    -3      -2      -1      0       1
    #   -1   61 r0   62 r0   37 r0
    #    0    1 r0   46 r0   47 r0   56 r0   34 r0
    #         Blue           You
    regular=[47, 37, 62, 61, 34, 1, 46],
    plays=[
        play(-1, 0, 0, pawn=1, by=0),  # You: fisher on 47
        play(-1, -1, 0, by=1),
        play(-2, -1, 0, by=0),
        play(-3, -1, 0, by=1),
        play(1, 0, 0, by=0),
        play(-3, 0, 0, pawn=1, by=1),  # Blue: fisher on tile 1's east river
        play(-2, 0, 0, by=0),  # 46 joins and closes both
    ],
    scores=[9, 9],
    events=[
        {"type": "RIVER_SCORED", "scorers": [0, 1], "points": 9, "tileCount": 4, "fish": 5},
        {"type": "WINNERS", "players": [0, 1], "points": 9},
    ],
)

E6 = Scenario(
    # 3 players: You (seat 0), Blue (seat 1), Yellow (seat 2). Final scoring of two river systems.
    # Left system (row y=0 and below, with the start lake): huts of You on 5 and 9, Blue on 12,
    #   joined by 46 and 48; fish 1 (56) + 1 (5) + 2 (57) + 1 (12) + 1 (58) + 2 (9) = 8.
    # Right system (row y=-2): huts of Yellow on 1 and Blue on 7, joined by 47;
    #   fish 3 (1) + 2 (0) + 1 (river of 47) + 1 (7) + 1 (3) + 2 (71) = 10.
    # Row y=-1 is a forest row that keeps the two systems apart.
    #
    #   y\x    -5      -4      -3      -2      -1      0
    #   -3                   71 r0
    #   -2           3 r0    7 r3   47 r2    1 r2    0 r3
    #   -1   41 r0  60 r0   40 r0   39 r0   38 r0
    #    0    9 r1  48 r0   12 r3   46 r0    5 r0   56 r0
    #    1                  58 r2           57 r0
    players=3,
    regular=[5, 38, 1, 39, 40, 60, 41, 12, 0, 9, 7, 57, 58, 3, 71, 46, 48, 47],
    plays=[
        play(-1, 0, 0, hut=8, by=0),  # You: hut on 5's lake
        play(-1, -1, 0, by=1),
        play(-1, -2, 2, hut=8, by=2),  # Yellow: hut on 1's lake
        play(-2, -1, 0, by=0),
        play(-3, -1, 0, by=1),
        play(-4, -1, 0, by=2),
        play(-5, -1, 0, by=0),
        play(-3, 0, 3, hut=8, by=1),  # Blue: hut on 12's lake
        play(0, -2, 3, by=2),
        play(-5, 0, 1, hut=8, by=0),  # You: hut on 9's lake
        play(-3, -2, 3, hut=8, by=1),  # Blue: hut on 7's lake
        play(-1, 1, 0, by=2),
        play(-3, 1, 2, by=0),
        play(-4, -2, 0, by=1),
        play(-3, -3, 0, by=2),
        play(-2, 0, 0, by=0),  # joins the systems of 5 and 12
        play(-4, 0, 0, by=1),  # joins in the system of 9
        play(-2, -2, 2, by=2),  # joins the systems of 1 and 7
    ],
    scores=[8, 10, 10],
    events=[
        {"type": "RIVER_SYSTEM_SCORED", "scorers": [1, 2], "points": 10, "fish": 10},
        {"type": "RIVER_SYSTEM_SCORED", "scorers": [0], "points": 8, "fish": 8},
        {"type": "WINNERS", "players": [1, 2], "points": 10},
    ],
)


def test_e6_huts_keep_their_places() -> None:
    """E6 (R8.2.3, R6.1, R5.10): incomplete systems score; huts never leave the board."""
    game = check(E6)
    assert sorted((p, k) for p, k, *_ in game.occupants()) == [
        (0, "hut"),
        (0, "hut"),
        (1, "hut"),
        (1, "hut"),
        (2, "hut"),
    ]


E7 = Scenario(
    # The start meadow (1 aurochs) extended by 33's empty meadow; Green (seat 0) has the hunter.
    #
    #   y\x    0
    #   -1   33 r0     hunter on 33's meadow (zone 1)
    #    0   56 r0     start meadow: 1 aurochs
    regular=[33],
    plays=[play(0, -1, 0, pawn=1, by=0)],
    scores=[2, 0],
    events=[
        {
            "type": "MEADOW_SCORED",
            "scorers": [0],
            "points": 2,
            "animals": {"mammoth": 0, "aurochs": 1, "deer": 0, "tiger": 0},
        },
        {"type": "WINNERS", "players": [0], "points": 2},
    ],
)

E8 = Scenario(
    # Red (seat 0) hunts 61's mammoth, Violet (seat 1) hunts the meadow of 31 (tiger) and 34 (deer);
    # 33 joins the two meadows: 1 deer, 1 mammoth, 1 tiger, tied 1-1.
    #
    #   y\x    0       1       2
    #    0   56 r0   34 r0   61 r0     61: Red's hunter
    #    1           31 r3   33 r2     31: Violet's hunter; 33 joins
    regular=[34, 31, 61, 33],
    plays=[
        play(1, 0, 0, by=0),
        play(1, 1, 3, pawn=1, by=1),
        play(2, 0, 0, pawn=0, by=0),
        play(2, 1, 2, by=1),
    ],
    scores=[3, 3],
    events=[
        {"type": "MEADOW_SCORED", "scorers": [0, 1], "points": 3, "deerEaten": 1},
        {"type": "WINNERS", "players": [0, 1], "points": 3},
    ],
)

E9 = Scenario(
    # Blue (seat 1) hunts a meadow with 1 deer (34) and 2 tigers (31, 32): worth 0, never negative.
    #
    #   y\x    0       1       2
    #    0   56 r0   34 r0
    #    1           31 r3   32 r2     31: Blue's hunter
    regular=[34, 31, 32],
    plays=[play(1, 0, 0, by=0), play(1, 1, 3, pawn=1, by=1), play(2, 1, 2, by=0)],
    scores=[0, 0],
    events=[{"type": "WINNERS", "players": [0, 1], "points": 0}],  # values of 0 give no event (R8.4)
)

E10 = Scenario(
    # E8's meadow, plus a third meadow (36 aurochs, 35 mammoth, 76 aurochs) with Red's second hunter,
    # joined by 62 (deer): 2 mammoths, 2 aurochs, 2 deer, 1 tiger. Red (seat 0) 2 hunters, Blue 1.
    #
    #   y\x    0       1       2       3       4
    #    0   56 r0   34 r0   61 r0   62 r0           61: Red;  62 joins everything
    #    1           31 r3   33 r2   36 r1   35 r0   31: Blue; 36: Red
    #    2                           76 r0
    regular=[34, 31, 61, 33, 36, 35, 76, 62],
    plays=[
        play(1, 0, 0, by=0),
        play(1, 1, 3, pawn=1, by=1),
        play(2, 0, 0, pawn=0, by=0),
        play(2, 1, 2, by=1),
        play(3, 1, 1, pawn=0, by=0),
        play(4, 1, 0, by=1),
        play(3, 2, 0, by=0),
        play(3, 0, 0, by=1),
    ],
    scores=[11, 0],
    events=[
        {
            "type": "MEADOW_SCORED",
            "scorers": [0],
            "points": 11,
            "animals": {"mammoth": 2, "aurochs": 2, "deer": 2, "tiger": 1},
        },
        {"type": "WINNERS", "players": [0], "points": 11},
    ],
)

E11 = Scenario(
    # Hunting trap 94 at (1,1), placed in the extra turn earned by closing the start forest.
    # In range in its meadow: mammoth (35), deer (34, 62), tiger (31). The mammoth of 53 (zone 2) is
    # in range too but in a separate meadow (south of 53's river); Blue's hunter there. (The rulebook's
    # separate mammoth lies "far right"; here it sits inside the 3x3 block, so R7.8 (i) is shown too.)
    #
    #   y\x    0       1       2
    #    0   56 r0   34 r0   31 r1
    #    1   35 r3   94 r2   62 r0     35 closes the start forest -> extra turn -> 94; your hunter on 94
    #    2                   53 r0     Blue's hunter on the mammoth meadow (zone 2)
    regular=[34, 31, 62, 53, 35],
    menhir=[94],
    plays=[
        play(1, 0, 0, by=0),
        play(2, 0, 1, by=1),
        play(2, 1, 0, by=0),
        play(2, 2, 0, pawn=2, by=1),
        play(0, 1, 3, by=0),
        play(1, 1, 2, pawn=1, by=0),
    ],
    scores=[4, 3],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 0},
        {
            "type": "HUNTING_TRAP_SCORED",
            "player": 0,
            "points": 4,
            "animals": {"mammoth": 1, "aurochs": 0, "deer": 2, "tiger": 1},
        },
        {"type": "MEADOW_SCORED", "scorers": [1], "points": 3},  # the separate mammoth is unaffected
        {"type": "WINNERS", "players": [0], "points": 4},
    ],
)


def test_e11_hunting_trap() -> None:
    """E11 (R7.8-R7.10): the placer scores 3 + (2 - 1) = 4 and the animals in range are covered:
    your hunter in the trap meadow scores nothing at the end; the mammoth of the separate meadow
    still scores 3 for Blue."""
    game = check(E11)
    assert not [e for e in game.events if e["type"] == "MEADOW_SCORED" and 0 in e["scorers"]]


E12 = Scenario(
    # Pit trap 92 at (1,1), placed in an extra turn, then surrounded. Its meadow: mammoths (35, 61),
    # aurochs (36, 76), deer (34), tiger (31), all in range. The deer of 37 is in a separate meadow.
    #
    #   y\x    0       1       2
    #    0   56 r0   34 r0   37 r2     37: your hunter (separate meadow, 1 deer)
    #    1   35 r3   92 r1   31 r0     35 closes the start forest -> extra turn -> 92; Blue's hunter on 92
    #    2   61 r0   36 r2   76 r3
    regular=[34, 35, 61, 36, 31, 76, 37],
    menhir=[92],
    plays=[
        play(1, 0, 0, by=0),
        play(0, 1, 3, by=1),
        play(1, 1, 1, pawn=1, by=1),
        play(0, 2, 0, by=0),
        play(1, 2, 2, by=1),
        play(2, 1, 0, by=0),
        play(2, 2, 3, by=1),
        play(2, 0, 2, pawn=1, by=0),
    ],
    scores=[1, 20],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "MEADOW_SCORED", "scorers": [0], "points": 1},
        {"type": "MEADOW_SCORED", "scorers": [1], "points": 10, "deerEaten": 1},
        {"type": "PIT_TRAP_SCORED", "scorers": [1], "points": 10},
        {"type": "WINNERS", "players": [1], "points": 20},
    ],
)

E13 = Scenario(
    # Logboat 93 at (-1,-1). Its river system: the logboat lake, both lakes of 83 ("2 lakes!") and the
    # start lake = 4 lakes -> 8. Then your fisher on 93's south river, closed by the lakes of 93 and
    # 83 (lake 8, 2 fish): 2 tiles + 3 fish = 5. Two extra turns bring the two menhir tiles:
    # 36 closes the start forest (-> 83), 35 closes the menhir forest 33-37-35 (-> 93).
    #
    #   y\x    -2      -1      0       1       2
    #   -2                           37 r2
    #   -1   15 r0   93 r2           33 r1   35 r2
    #    0   25 r0   83 r0   56 r0   34 r0
    #    1                   36 r2
    #
    # 83's lake 8 (rivers N, E) reaches the start lake east and 93 north; its lake 9 (rivers S, W)
    # reaches 93 through 25 and 15.
    regular=[34, 36, 25, 15, 33, 37, 35],
    menhir=[83, 93],
    plays=[
        play(1, 0, 0, by=0),
        play(0, 1, 2, by=1),
        play(-1, 0, 0, by=1),  # extra turn: 83
        play(-2, 0, 0, by=0),
        play(-2, -1, 0, by=1),
        play(1, -1, 1, by=0),
        play(1, -2, 2, by=1),
        play(2, -1, 2, by=0),
        play(-1, -1, 2, pawn=1, by=0),  # extra turn: the logboat, then a fisher
    ],
    scores=[13, 0],
    events=[
        {"type": "MENHIR_EXTRA_TURN", "player": 1},
        {"type": "MENHIR_EXTRA_TURN", "player": 0},
        {"type": "LOGBOAT_SCORED", "player": 0, "points": 8, "lakes": 4},
        {"type": "RIVER_SCORED", "scorers": [0], "points": 5, "tileCount": 2, "fish": 3, "tileIds": [83, 93]},
        {"type": "WINNERS", "players": [0], "points": 13},
    ],
)

E14 = Scenario(
    # A river of 3 tiles between the start lake (1 fish) and tile 0's lake (2 fish).
    #
    #   y\x    -2      -1      0
    #    0    0 r1   46 r0   56 r0     your fisher on 46
    regular=[46, 0],
    plays=[play(-1, 0, 0, pawn=1, by=0), play(-2, 0, 1, by=1)],
    scores=[6, 0],
    events=[
        {"type": "RIVER_SCORED", "scorers": [0], "points": 6, "tileCount": 3, "fish": 3},
        {"type": "WINNERS", "players": [0], "points": 6},
    ],
)

E15 = Scenario(
    # Blue (seat 0) has a gatherer on 39 (start forest, still open south). Red (seat 1) has a fisher on
    # 59's river (lake, 1 fish). Blue places 14: its west forest extends his forest, its spring river
    # closes Red's river: 2 tiles + 1 fish = 3 for Red.
    #
    #   y\x    0       1
    #    0   56 r0   14 r2
    #    1   39 r1   59 r0
    regular=[39, 59, 14],
    plays=[play(0, 1, 1, pawn=1, by=0), play(1, 1, 0, pawn=1, by=1), play(1, 0, 2, by=0)],
    scores=[0, 3],
    events=[
        {"type": "RIVER_SCORED", "scorers": [1], "points": 3, "tileCount": 2, "fish": 1},
        {"type": "WINNERS", "players": [1], "points": 3},
    ],
)

E16 = Scenario(
    # A 2-tile forest (34 + 35, seat 0's gatherer) and a 4-tile forest (the start forest as a 2x2
    # loop, seat 1's gatherer). The menhir deck is empty, so the start forest gives no extra turn.
    #
    #   y\x   -1      0       1
    #   -1   35 r0  34 r0
    #    0          56 r0   30 r0
    #    1          78 r0   33 r0
    regular=[34, 30, 35, 78, 33],
    plays=[
        play(0, -1, 0, pawn=3, by=0),
        play(1, 0, 0, pawn=1, by=1),
        play(-1, -1, 0, by=0),
        play(0, 1, 0, by=1),
        play(1, 1, 0, by=0),
    ],
    scores=[4, 8],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0], "points": 4, "tileCount": 2},
        {"type": "FOREST_SCORED", "scorers": [1], "points": 8, "tileCount": 4},
        {"type": "WINNERS", "players": [1], "points": 8},
    ],
)

E17 = Scenario(
    # Red (seat 0) has a gatherer on 75, Blue (seat 1) on 31; 30 joins their forests and 42 closes
    # the 2x2 loop: 4 tiles, tied 1-1, 8 each.
    #
    #   y\x    0       1       2
    #   -2   37 r0   75 r0   30 r0
    #   -1   62 r0   42 r0   31 r0
    #    0   56 r0   34 r0   61 r0
    regular=[34, 61, 62, 37, 75, 31, 30, 42],
    plays=[
        play(1, 0, 0, by=0),
        play(2, 0, 0, by=1),
        play(0, -1, 0, by=0),
        play(0, -2, 0, by=1),
        play(1, -2, 0, pawn=1, by=0),
        play(2, -1, 0, pawn=0, by=1),
        play(2, -2, 0, by=0),
        play(1, -1, 0, by=1),
    ],
    scores=[8, 8],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0, 1], "points": 8, "tileCount": 4},
        {"type": "WINNERS", "players": [0, 1], "points": 8},
    ],
)

SIMPLE_EXAMPLES = {
    "E5 tied fishers": E5,
    "E7 grassland 1": E7,
    "E8 grassland 2": E8,
    "E9 grassland 3": E9,
    "E10 grassland 4": E10,
    "E12 pit trap": E12,
    "E13 logboat": E13,
    "E14 river 3 tiles": E14,
    "E15 river completed by another": E15,
    "E16 two forests": E16,
    "E17 tied gatherers": E17,
}


@pytest.mark.parametrize("scenario", SIMPLE_EXAMPLES.values(), ids=SIMPLE_EXAMPLES.keys())
def test_rulebook_example(scenario: Scenario) -> None:
    """RULES.md §9.1: the rebuilt example gives exactly the rulebook's scores and events."""
    check(scenario)


# ---------------------------------------------------------------- §9.2 formula table

FORMULAS = [
    ("forest(tiles=3, mushrooms=0)", lambda: scoring.enclosure_value(3, 0), 6),
    ("forest(tiles=4, mushrooms=1)", lambda: scoring.enclosure_value(4, 1), 11),
    ("river(tiles=3, fish=2)", lambda: scoring.path_value(3, 2), 5),
    ("river(tiles=4, fish=5)", lambda: scoring.path_value(4, 5), 9),
    ("meadow(M=2, A=2, D=2, T=1, fire=no)", lambda: scoring.meadow_value(2, 2, 2, 1, False), 11),
    ("meadow(M=0, A=0, D=1, T=2)", lambda: scoring.meadow_value(0, 0, 1, 2), 0),
    ("meadow(M=0, A=0, D=3, T=5, fire=yes)", lambda: scoring.meadow_value(0, 0, 3, 5, True), 3),
    ("riverSystem(fish=8, raft=no)", lambda: scoring.system_value(8, 0, False), 8),
    ("riverSystem(fish=4, lakes=3, raft=yes)", lambda: scoring.system_value(4, 3, True), 7),
    ("logboat(lakes=1)", lambda: powers.logboat_value(1), 2),
    ("logboat(lakes=4)", lambda: powers.logboat_value(4), 8),
    ("huntingTrap(M=1, A=0, D=2, T=1 in range)", lambda: powers.hunting_trap_value(1, 0, 2, 1), 4),
]


@pytest.mark.parametrize(("call", "value", "expected"), FORMULAS, ids=[f[0] for f in FORMULAS])
def test_formula_table(call: str, value, expected: int) -> None:
    """RULES.md §9.2."""
    assert int(value()) == expected


def test_formulas_are_vectorised() -> None:
    """The formulas take arrays (the batched engine scores many areas at once)."""
    values = scoring.meadow_value(np.array([2, 0]), np.array([2, 0]), np.array([2, 1]), np.array([1, 2]))
    assert values.tolist() == [11, 0]
    assert scoring.majority(np.array([[2, 1, 0], [1, 1, 0], [0, 0, 0]])).tolist() == [
        [True, False, False],
        [True, True, False],
        [False, False, False],
    ]


def test_pit_trap_formula() -> None:
    """R7.15: deer far from the trap are eaten first; the wildfire makes the bonus the full in-range value."""
    # 2 deer in range, 1 out of range, 1 tiger: the tiger eats the far deer, both near deer score again.
    assert hunters_gatherers.pit_trap_bonus(deer=3, tigers=1, deer_out=1, mammoths_in=0, aurochs_in=0, deer_in=2) == 2
    # 2 tigers: one eats the far deer, one a near deer.
    assert hunters_gatherers.pit_trap_bonus(deer=3, tigers=2, deer_out=1, mammoths_in=0, aurochs_in=0, deer_in=2) == 1
    # E12: 2 M, 2 A, 1 D, 1 T all in range; the tiger eats the only deer: bonus 6 + 4 + 0 = 10.
    assert hunters_gatherers.pit_trap_bonus(deer=1, tigers=1, deer_out=0, mammoths_in=2, aurochs_in=2, deer_in=1) == 10
    assert hunters_gatherers.pit_trap_bonus(1, 1, 0, 2, 2, 1, fire=True) == 11  # R7.19: fire, nothing eaten
