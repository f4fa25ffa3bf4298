"""docs/rules/hg2002.md §5: the classic examples X1-X20 rebuilt on real 2002 tiles, and the formula table §5.3.

Each example is a ``Scenario`` (tests/scenario.py) of ruleset ``hg2002``: the exact land deck, the
bonus deck (``menhir=`` is the scenario's extra deck), one play per tile, and the numbers of the
page. Sketches show ``tile r<rotation>`` at each position; x grows east, y grows south, the volcano
start tile 0 is at (0, 0) with rotation 0: meadow N (zone 0, a mammoth), forest E and S (zone 1, a
gold nugget), river W into its lake (1 fish). Seat 0 is Red unless an example says otherwise.
"""

from __future__ import annotations

import pytest

from hg_env.core import scoring
from hg_env.core.ruleset import get_ruleset
from tests.scenario import Scenario, check, find_events, play, run

RULESET = "hg2002"
POINTS = get_ruleset(RULESET).points


def classic(**kwargs) -> Scenario:
    return Scenario(ruleset=RULESET, **kwargs)


# ---------------------------------------------------------------- §5.1 rulebook and online-rules examples

X1 = classic(
    # The start lake (1 fish) <- 27's river <- 60's lake (2 fish): a river of 3 tiles and 3 fish.
    #
    #   y\x    -2      -1      0
    #    0   60 r2   27 r0    0         Red's fisher on 27
    regular=[27, 60],
    plays=[play(-1, 0, 0, pawn=1, by=0), play(-2, 0, 2, by=1)],
    scores=[6, 0],
    events=[
        {"type": "RIVER_SCORED", "scorers": [0], "points": 6, "tileCount": 3, "fish": 3, "tileIds": [0, 27, 60]},
        {"type": "WINNERS", "players": [0], "points": 6},
    ],
)

X2 = classic(
    # Red's fisher on 59's river (lake, 1 fish), open east. Blue's gatherer on 13 joins the start
    # forest; Blue's 54 extends that forest south-to-north and its spring river closes Red's river.
    #
    #   y\x    0       1
    #   -2     2 r0
    #   -1    59 r1   54 r0     54: forest S joins 13's forest; river W ends at a spring
    #    0     0      13 r0     13: Blue's gatherer (start forest)
    regular=[59, 13, 2, 54],
    plays=[
        play(0, -1, 1, pawn=1, by=0),
        play(1, 0, 0, pawn=0, by=1),
        play(0, -2, 0, by=0),
        play(1, -1, 0, by=1),
    ],
    scores=[3, 0],
    events=[
        {"type": "RIVER_SCORED", "scorers": [0], "points": 3, "tileCount": 2, "fish": 1, "tileIds": [54, 59]},
        {"type": "WINNERS", "players": [0], "points": 3},
    ],
)

X3 = classic(
    # Red's gatherer on 3's forest (one side), closed by Blue's 4: 2 tiles.
    #
    #   y\x    0       1
    #   -1     3 r0    4 r1
    #    0     0
    regular=[3, 4],
    plays=[play(0, -1, 0, pawn=1, by=0), play(1, -1, 1, by=1)],
    scores=[4, 0],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0], "points": 4, "tileCount": 2, "tileIds": [3, 4]},
        {"type": "WINNERS", "players": [0], "points": 4},
    ],
)


def x4(closer: int) -> Scenario:
    """X4: the start forest closed as a 2x2 loop (4 tiles, 4 gold nuggets) with Red's gatherer on 15;
    ``closer`` (0 Red, 1 Blue) places the closing tile 13.

    ::

        y\\x    0       1
        -1     2 r0                2: Red's filler when Blue closes
         0     0      15 r0        15: Red's gatherer
         1    14 r0   13 r0        13 closes the loop
    """
    plays = [play(1, 0, 0, pawn=1, by=0), play(0, 1, 0, by=1)]
    if closer == 0:
        regular = [15, 14, 13, 2]
        plays.append(play(1, 1, 0, by=0))
    else:
        regular = [15, 14, 2, 13, 1]
        plays += [play(0, -1, 0, by=0), play(1, 1, 0, by=1)]
    return classic(
        regular=regular,
        menhir=[87, 88],
        plays=plays,
        scores=[8, 0],
        events=[
            {"type": "FOREST_SCORED", "scorers": [0], "points": 8, "tileCount": 4, "tileIds": [0, 13, 14, 15]},
            {"type": "BONUS_EXTRA_TURN", "player": closer, "tileIds": [0, 13, 14, 15]},
        ],
        over=False,
    )


@pytest.mark.parametrize(("closer", "name"), [(0, "Red"), (1, "Blue")])
def test_x4_gold_forest_bonus_turn_goes_to_the_placer(closer: int, name: str) -> None:
    """X4 (K1, K3, KQ3): a 4-tile forest with gold scores Red 8; the placer of the completing tile,
    whoever scored, plays the bonus turn with the first bonus tile."""
    game = check(x4(closer))
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (closer, 87, True), name
    assert game.deck_sizes[1] == 1


X5 = classic(
    # The start forest through 8 and 9 (gold nuggets on 0, 8 and 9) closed by 4 and 3: 5 tiles.
    # Blue closes it and plays one bonus turn (the fire tile 87 north of the start); then Red's
    # regular turn follows although the forest held 3 nuggets and the bonus deck holds 88.
    #
    #   y\x    0       1       2       3
    #   -1    87 r0                          87: Blue's bonus tile
    #    0     0       8 r0    9 r0    3 r2  8: Red's gatherer; 3 closes
    #    1     4 r2
    regular=[8, 9, 4, 3, 1],
    menhir=[87, 88],
    plays=[
        play(1, 0, 0, pawn=1, by=0),
        play(2, 0, 0, by=1),
        play(0, 1, 2, by=0),
        play(3, 0, 2, by=1),
        play(0, -1, 0, by=1),  # the bonus turn
    ],
    scores=[10, 0],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0], "points": 10, "tileCount": 5, "tileIds": [0, 3, 4, 8, 9]},
        {"type": "BONUS_EXTRA_TURN", "player": 1, "tileIds": [0, 3, 4, 8, 9]},
    ],
    over=False,
)


def test_x5_several_nuggets_still_one_bonus_tile() -> None:
    """X5 (K1, K2, KQ6): 5 tiles and 3 nuggets: Red 10; one bonus turn, then the next seat's land turn."""
    game = check(X5)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 1, False)
    assert game.deck_sizes == (0, 1)
    assert len(find_events(game, "BONUS_EXTRA_TURN")) == 1


X6 = classic(
    # Red's gatherer on 3 (start forest), Blue's on 6 (a forest of its own); 14 joins and closes them:
    # 4 tiles, one gatherer each. The bonus deck is empty: the gold earns no bonus turn (K2).
    #
    #   y\x    0       1
    #    0     0       3 r2     3: Red's gatherer
    #    1    14 r0    6 r2     6: Blue's gatherer; 14 joins both
    regular=[3, 6, 14],
    plays=[play(1, 0, 2, pawn=1, by=0), play(1, 1, 2, pawn=1, by=1), play(0, 1, 0, by=0)],
    scores=[8, 8],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0, 1], "points": 8, "tileCount": 4, "tileIds": [0, 3, 6, 14]},
        {"type": "WINNERS", "players": [0, 1], "points": 8},
    ],
)

X7 = classic(
    # Red's gatherers on 3 (start forest) and 4 (its own forest), Blue's on 6; 24 joins all three:
    # 5 tiles, Red 2 gatherers against 1.
    #
    #   y\x   -1       0       1
    #   -1             2 r0
    #    0   27 r0     0       3 r2     3: Red
    #    1    4 r3    24 r0    6 r2     4: Red; 6: Blue; 24 joins
    regular=[3, 6, 27, 2, 4, 24],
    plays=[
        play(1, 0, 2, pawn=1, by=0),
        play(1, 1, 2, pawn=1, by=1),
        play(-1, 0, 0, by=0),
        play(0, -1, 0, by=1),
        play(-1, 1, 3, pawn=1, by=0),
        play(0, 1, 0, by=1),
    ],
    scores=[10, 0],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0], "points": 10, "tileCount": 5, "tileIds": [0, 3, 4, 6, 24]},
        {"type": "WINNERS", "players": [0], "points": 10},
    ],
)

X8 = classic(
    # The start lake (1 fish), 78's lake (2 fish) and 60's lake (2 fish), linked by rivers: one river
    # system of 5 fish with Blue's only hut (on 60's lake).
    #
    #   y\x    -2      -1      0
    #    0   60 r2   78 r0    0
    regular=[78, 60],
    plays=[play(-1, 0, 0, by=0), play(-2, 0, 2, hut=8, by=1)],
    scores=[0, 5],
    events=[
        {"type": "RIVER_SYSTEM_SCORED", "scorers": [1], "points": 5, "fish": 5},
        {"type": "WINNERS", "players": [1], "points": 5},
    ],
)

X9 = classic(
    # 16's meadow (1 deer), kept apart from the start meadow by the forest; Green's hunter on it.
    #
    #   y\x    0       1
    #    0     0      16 r0
    regular=[16],
    plays=[play(1, 0, 0, pawn=0, by=0)],
    scores=[2, 0],
    events=[
        {
            "type": "MEADOW_SCORED",
            "scorers": [0],
            "points": 2,
            "animals": {"mammoth": 0, "aurochs": 0, "deer": 1, "tiger": 0},
        },
        {"type": "WINNERS", "players": [0], "points": 2},
    ],
)

X10 = classic(
    # Red's hunter on 2 (deer) joins the start meadow (mammoth); Yellow's hunter on 18 (tiger); 13
    # joins the two meadows: 1 mammoth, 1 deer, 1 tiger, hunters tied 1-1.
    #
    #   y\x    0       1
    #   -1     2 r0   13 r1     2: Red; 13 joins
    #    0     0      18 r3     18: Yellow
    regular=[2, 18, 13],
    plays=[play(0, -1, 0, pawn=0, by=0), play(1, 0, 3, pawn=1, by=1), play(1, -1, 1, by=0)],
    scores=[2, 2],
    events=[
        {
            "type": "MEADOW_SCORED",
            "scorers": [0, 1],
            "points": 2,
            "animals": {"mammoth": 1, "aurochs": 0, "deer": 1, "tiger": 1},
            "deerEaten": 1,
        },
        {"type": "WINNERS", "players": [0, 1], "points": 2},
    ],
)

X11 = classic(
    # Red's hunters on 14 (an empty meadow) and 18 (tiger), Blue's on 6 (mammoth). Red closes the
    # start forest with 4 (3 tiles, gold) and places the bonus tile 83 (aurochs), which joins 6's
    # meadow with 4's (deer); 2 (deer) extends it; 1 (mammoth) joins everything at the end.
    #
    #   y\x    0       1
    #   -2    11 r0   18 r0     18: Red
    #   -1    14 r3    1 r0     14: Red (its east meadow); 1 joins
    #    0     0       6 r2     6: Blue
    #    1     4 r2   83 r2     4 closes the start forest -> bonus tile 83
    #    2     2 r0
    regular=[14, 6, 4, 11, 18, 2, 1],
    menhir=[83],
    plays=[
        play(0, -1, 3, pawn=1, by=0),
        play(1, 0, 2, pawn=0, by=1),
        play(0, 1, 2, by=0),
        play(1, 1, 2, by=0),  # the bonus turn
        play(0, -2, 0, by=1),
        play(1, -2, 0, pawn=1, by=0),
        play(0, 2, 0, by=1),
        play(1, -1, 0, by=0),
    ],
    scores=[8, 0],
    events=[
        {"type": "BONUS_EXTRA_TURN", "player": 0, "tileIds": [0, 4, 6]},
        {
            "type": "MEADOW_SCORED",
            "scorers": [0],
            "points": 8,
            "animals": {"mammoth": 2, "aurochs": 1, "deer": 2, "tiger": 1},
            "deerEaten": 1,
        },
        {"type": "WINNERS", "players": [0], "points": 8},
    ],
)

X12 = classic(
    # 16's meadow (1 deer) joined by 18 and 19 (a tiger each); Blue's hunter on 18.
    #
    #   y\x    0       1       2
    #   -1            18 r1              18: Blue
    #    0     0      16 r0   19 r2
    regular=[16, 18, 19],
    plays=[play(1, 0, 0, by=0), play(1, -1, 1, pawn=1, by=1), play(2, 0, 2, by=0)],
    scores=[0, 0],
    events=[{"type": "WINNERS", "players": [0, 1], "points": 0}],  # a meadow worth 0 gives no event
)

SIMPLE_EXAMPLES = {
    "X1 river of 3 tiles (K4)": X1,
    "X2 river completed by another (K4, K5)": X2,
    "X3 forest of 2 tiles (K3)": X3,
    "X6 tied gatherers (K3)": X6,
    "X7 majority of gatherers (K3)": X7,
    "X8 hut on a river system (K6, K8)": X8,
    "X9 meadow 1 (K7)": X9,
    "X10 meadow 2, tied hunters (K7, K12)": X10,
    "X11 meadow 3 with aurochs (K7, S4)": X11,
    "X12 meadow 4, tigers never negative (K7)": X12,
}


@pytest.mark.parametrize("scenario", SIMPLE_EXAMPLES.values(), ids=SIMPLE_EXAMPLES.keys())
def test_rulebook_example(scenario: Scenario) -> None:
    """docs/rules/hg2002.md §5.1: the rebuilt example gives exactly the page's scores and events."""
    check(scenario)


def test_x7_all_gatherers_return() -> None:
    """X7 (K3, R6.4): the outnumbered gatherer returns too; each player has all 5 pawns again."""
    game = check(X7)
    assert game.occupants() == []
    assert game.supply(0) == (5, 2) and game.supply(1) == (5, 2)


# ---------------------------------------------------------------- §5.2 the project's examples


def shrine_meadow(red_on_shrine: bool) -> Scenario:
    """X13 / X14: a meadow of 1 mammoth (6), 2 deer (16, 2) and the shrine's tiger (89).

    Blue's hunters stand on 14 (its empty east meadow) and 6; Red closes the start forest with 5
    and places the shrine 89 in the bonus turn, on its meadow (X13) or with no figure (X14, where
    Red's one hunter stands on 13 instead). Blue's 2 joins the four meadows at the end.

    ::

        y\\x   -1       0       1       2
        -2            11 r0   13 r0              13: Red's hunter in X14
        -1            14 r3    2 r0   89 r0      14: Blue; 2 joins; 89: the shrine
         0    28 r0    0       6 r2   16 r2      6: Blue
         1             5 r2                      5 closes the start forest -> bonus tile 89
    """
    return classic(
        regular=[28, 14, 11, 6, 13, 16, 5, 2],
        menhir=[89],
        plays=[
            play(-1, 0, 0, by=0),
            play(0, -1, 3, pawn=1, by=1),
            play(0, -2, 0, by=0),
            play(1, 0, 2, pawn=0, by=1),
            play(1, -2, 0, pawn=None if red_on_shrine else 1, by=0),
            play(2, 0, 2, by=1),
            play(0, 1, 2, by=0),
            play(2, -1, 0, pawn=0 if red_on_shrine else None, by=0),  # the bonus turn
            play(1, -1, 0, by=1),
        ],
    )


def test_x13_the_shrine_hunter_scores_alone() -> None:
    """X13 (S1, KQ9, KQ10): Red's hunter on the shrine zone 890 makes Red the meadow's only scorer at
    its full value 2 + 2 x (2 - 1) = 4, although Blue has 2 hunters in it; the event says so."""
    game = check(shrine_meadow(red_on_shrine=True))
    assert game.scores == [4, 0]
    (meadow,) = find_events(game, "MEADOW_SCORED")
    assert meadow["scorers"] == [0] and meadow["points"] == 4 and meadow.get("shrine") is True
    assert meadow["animals"] == {"mammoth": 1, "aurochs": 0, "deer": 2, "tiger": 1}
    assert game.winners == [0]


def test_x14_without_a_hunter_on_the_shrine_the_majority_scores() -> None:
    """X14 (S1, R6.1): the same meadow with Red's hunter elsewhere: Blue's 2 hunters outnumber Red's 1."""
    game = check(shrine_meadow(red_on_shrine=False))
    assert game.scores == [0, 4]
    (meadow,) = find_events(game, "MEADOW_SCORED")
    assert meadow["scorers"] == [1] and "shrine" not in meadow


def fire_meadow(fire_in_meadow: bool) -> Scenario:
    """X15: 16, 2 and 4 (a deer each) and 18, 19 (a tiger each) in one meadow with Green's hunter
    on 16. Blue closes the start forest with 13 (a 2x2 loop) and places the fire 87 in the bonus
    turn, unoccupied: in the meadow (X15), or west of 17, in 17's meadow.

    ::

        y\\x   -1       0       1       2       3
        -2                    18 r1
        -1                     2 r0   87 r0    4 r0     87 in the meadow (else 4 r3 at (2,-1))
         0             0      16 r0   19 r2             16: Green's hunter
         1   (87)     17 r0   13 r0                     13 closes the start forest -> bonus tile 87
    """
    plays = [
        play(1, 0, 0, pawn=0, by=0),
        play(1, -1, 0, by=1),
        play(2, 0, 2, by=0),
        play(1, -2, 1, by=1),
        play(0, 1, 0, by=0),
        play(1, 1, 0, by=1),
    ]
    if fire_in_meadow:
        plays += [play(2, -1, 0, by=1), play(3, -1, 0, by=0)]
    else:
        plays += [play(-1, 1, 0, by=1), play(2, -1, 3, by=0)]
    return classic(regular=[16, 2, 19, 18, 17, 13, 4], menhir=[87], plays=plays)


@pytest.mark.parametrize(("fire_in_meadow", "points"), [(True, 6), (False, 2)])
def test_x15_fire_stops_the_tigers_of_its_meadow_only(fire_in_meadow: bool, points: int) -> None:
    """X15 (S2, KQ11): 3 deer and 2 tigers score 2 x 3 = 6 when the meadow holds the fire, although
    nobody stands on the fire tile; with the fire in another meadow the tigers eat 2 deer: 2."""
    game = check(fire_meadow(fire_in_meadow))
    assert game.scores == [points, 0]
    (meadow,) = [e for e in find_events(game, "MEADOW_SCORED") if e["scorers"] == [0]]
    assert meadow["animals"] == {"mammoth": 0, "aurochs": 0, "deer": 3, "tiger": 2}
    assert meadow["deerEaten"] == (0 if fire_in_meadow else 2)
    assert [game.tile_at(x, y)[0] for _, _, x, y, _ in game.occupants()] == [16]  # nobody on the fire


X16 = classic(
    # Red closes the start forest (3 tiles, gold) and places the mushroom tile 80 in the bonus turn
    # with a gatherer, joining 6's forest; Blue's 5 closes it: 3 tiles and 1 mushroom patch.
    #
    #   y\x    0       1
    #   -2             5 r0     5 closes 6-80-5
    #   -1     6 r0   80 r2     80: the bonus tile, Red's gatherer
    #    0     0       3 r2
    #    1     4 r2             4 closes the start forest -> bonus tile 80
    regular=[3, 6, 4, 5],
    menhir=[80],
    plays=[
        play(1, 0, 2, by=0),
        play(0, -1, 0, by=1),
        play(0, 1, 2, by=0),
        play(1, -1, 2, pawn=1, by=0),  # the bonus turn
        play(1, -2, 0, by=1),
    ],
    scores=[8, 0],
    events=[
        {"type": "BONUS_EXTRA_TURN", "player": 0, "tileIds": [0, 3, 4]},
        {
            "type": "FOREST_SCORED",
            "scorers": [0],
            "points": 8,
            "tileCount": 3,
            "mushroomGroups": 1,
            "tileIds": [5, 6, 80],
        },
        {"type": "WINNERS", "players": [0], "points": 8},
    ],
)


def test_x16_a_mushroom_patch_adds_two() -> None:
    """X16 (K3, S3, KQ19): 3 tiles with one mushroom patch: 2 x 3 + 2 = 8."""
    check(X16)


X17_X18 = classic(
    # X17: Red's gatherer on 3 in the start forest; Blue's 4 closes it (3 tiles, gold): Red 6, and
    #      Blue plays the bonus turn.
    # X18: Blue's bonus tile 89 (a gold nugget) closes the forest 6-5-89 with Blue's gatherer on 6:
    #      Blue 6, and no further bonus turn although 88 is left.
    #
    #   y\x   -1       0       1
    #   -2             1 r0    5 r0
    #   -1     2 r0    6 r0   89 r2     6: Blue's gatherer; 89: Blue's bonus tile
    #    0             0       3 r2     3: Red's gatherer
    #    1             4 r2             4 closes the start forest
    regular=[3, 6, 1, 5, 2, 4, 7],
    menhir=[89, 88],
    plays=[
        play(1, 0, 2, pawn=1, by=0),
        play(0, -1, 0, pawn=1, by=1),
        play(0, -2, 0, by=0),
        play(1, -2, 0, by=1),
        play(-1, -1, 0, by=0),
        play(0, 1, 2, by=1),
        play(1, -1, 2, by=1),  # the bonus turn
    ],
    scores=[6, 6],
    events=[
        {"type": "FOREST_SCORED", "scorers": [0], "points": 6, "tileCount": 3, "tileIds": [0, 3, 4]},
        {"type": "BONUS_EXTRA_TURN", "player": 1, "tileIds": [0, 3, 4]},
        {"type": "FOREST_SCORED", "scorers": [1], "points": 6, "tileCount": 3, "tileIds": [5, 6, 89]},
    ],
    over=False,
)


def test_x17_the_placer_plays_the_bonus_turn_and_the_gatherer_returns() -> None:
    """X17 (K1, KQ3): Blue's land tile closes Red's gold forest: Red 6 and Red's gatherer returns;
    Blue, the placer, draws the bonus tile."""
    game = run(X17_X18, upto=6)
    assert game.scores == [6, 0]
    assert game.supply(0) == (5, 2)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (1, 89, True)


def test_x18_no_chain_from_a_bonus_turn() -> None:
    """X18 (K2, KQ24): the gold forest closed in the bonus turn is scored as usual, and earns nothing
    more: Red's land turn follows and the bonus deck keeps 88."""
    game = check(X17_X18)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 7, False)
    assert game.deck_sizes == (0, 1)
    assert len(find_events(game, "BONUS_EXTRA_TURN")) == 1


X19 = classic(
    # 3 players. Red's 3 and Yellow's 4 close the start forest, nobody's gatherer on it.
    #
    #   y\x    0       1
    #   -2    87 r0             87: Yellow's bonus tile
    #   -1     2 r0             2: Blue
    #    0     0       3 r2     3: Red
    #    1     4 r2             4: Yellow closes the start forest
    players=3,
    regular=[3, 2, 4, 1],
    menhir=[87],
    plays=[
        play(1, 0, 2, by=0),
        play(0, -1, 0, by=1),
        play(0, 1, 2, by=2),
        play(0, -2, 0, by=2),  # Yellow's bonus turn
    ],
    scores=[0, 0, 0],
    events=[{"type": "BONUS_EXTRA_TURN", "player": 2, "tileIds": [0, 3, 4]}],
    over=False,
)


def test_x19_an_unoccupied_gold_forest_earns_a_bonus_turn() -> None:
    """X19 (K1, KQ3): nobody scores the unoccupied forest, and Yellow, who closed it, plays the bonus
    turn; then Red's land turn follows."""
    game = run(X19, upto=3)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (2, 87, True)
    game = check(X19)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 1, False)
    assert not find_events(game, "FOREST_SCORED")


def x20(flag: bool | None) -> Scenario:
    """X20: the last land tile (4) closes the start forest (3 tiles, gold) with Red's gatherer on 3.

    ::

        y\\x    0       1
        -1    87 r0             the bonus tile, when it is played
         0     0       3 r2     3: Red's gatherer
         1     4 r2             4: Blue, the last land tile
    """
    plays = [play(1, 0, 2, pawn=1, by=0), play(0, 1, 2, by=1)]
    if flag is not False:
        plays.append(play(0, -1, 0, by=1))
    return classic(
        regular=[3, 4],
        menhir=[87, 88],
        flags={} if flag is None else {"extra_turn_after_last_tile": flag},
        plays=plays,
        scores=[6, 0],
        over=True,
    )


@pytest.mark.parametrize("flag", [None, True, False], ids=["default", "true", "false"])
def test_x20_bonus_turn_of_the_last_land_tile(flag: bool | None) -> None:
    """X20 (K10, K11, KQ5): by default (and with ``extra_turn_after_last_tile=True``) Blue plays the
    bonus turn the last land tile earned, then the game ends; with False the game ends at once.
    Either way the unplayed bonus tiles are never used."""
    game = check(x20(flag))
    played = flag is not False
    assert len(find_events(game, "BONUS_EXTRA_TURN")) == int(played)
    assert (game.tile_at(0, -1) is not None) == played
    assert game.deck_sizes == (0, 1 if played else 2)
    assert game.events[-1] == {"type": "WINNERS", "players": [0], "points": 6}


# ---------------------------------------------------------------- §5.3 formula checks

FORMULAS = [
    ("forest(tiles=4, mushrooms=0)", lambda: scoring.enclosure_value(4, 0, POINTS), 8),
    ("forest(tiles=3, mushrooms=1)", lambda: scoring.enclosure_value(3, 1, POINTS), 8),
    ("river(tiles=3, closing lakes with 1 and 2 fish)", lambda: scoring.path_value(3, 1 + 2, POINTS), 6),
    ("river(tiles=2, both ends in one lake with 3 fish)", lambda: scoring.path_value(2, 3, POINTS), 5),
    ("meadow(M=2, A=1, D=2, T=1, fire=no)", lambda: scoring.meadow_value(2, 1, 2, 1, False, POINTS), 8),
    ("meadow(M=0, A=0, D=1, T=2)", lambda: scoring.meadow_value(0, 0, 1, 2, False, POINTS), 0),
    ("meadow(M=0, A=0, D=3, T=2, fire=yes)", lambda: scoring.meadow_value(0, 0, 3, 2, True, POINTS), 6),
    ("riverSystem(fish=5)", lambda: scoring.system_value(5, 0, False, POINTS), 5),
]


@pytest.mark.parametrize(("call", "value", "expected"), FORMULAS, ids=[f[0] for f in FORMULAS])
def test_formula_table(call: str, value, expected: int) -> None:
    """docs/rules/hg2002.md §5.3 with the classic point values (K3, K4, K7, K8)."""
    assert int(value()) == expected
