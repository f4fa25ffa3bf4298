"""docs/rules/carcassonne.md §9: the examples E1-E20 rebuilt on real tiles.

Each example is a ``Scenario`` (tests/scenario.py): the exact deck order, one play per tile, and
the numbers §9 gives. Sketches show ``tile r<rotation>`` at each position; x grows east, y grows
south, the start tile 0 (city cap N, road W-E) lies at (0, 0). Tile ids (hg_env/data/
carcassonne_tiles.json): 1-2 A (monastery, road from S), 3-6 B (monastery), 7 C (city on four sides,
coat), 11-15 E (city cap N; 15 with a garden), 16-17 F (city W-E, coat), 18 G (city W-E), 19-21 H
(caps N and S), 22-23 I (caps N and W), 30 L (city N, three road ends), 33 M (city N+W, coat),
44 R (city N+E+W), 50 U (road N-S), 58-61 V (road S-W); river: 72 source, 74 (river W-E between
caps), 75 (river N-S), 76 (river S-W), 78 (river N-W), 81 (river E-S, garden), 83 the lake.
Where the page calls a number unknown, the docstring says which value the scenario picks.
"""

from __future__ import annotations

import pytest

from hg_env import Game
from hg_env.core.ruleset import get_ruleset
from hg_env.core.scoring import enclosure_value, path_value
from hg_env.rulesets.carcassonne import features
from tests.scenario import Scenario, check, find_events, play, run

CARC = {"ruleset": "carcassonne"}
POINTS = get_ruleset("carcassonne").points


def roots(game: Game, *zones: tuple[int, int]) -> list[int]:
    """Area roots of (tile, local zone) pairs."""
    tiles = game.rules.spec.tiles
    return [int(game.state.area.find(0, tiles.TILE_ZONE[t, z])) for t, z in zones]


# ---------------------------------------------------------------- B4: scoring during the game

E1 = Scenario(
    # Blue (seat 0) has a knight on 16 (city N-S over the start's city); You (seat 1) put a highwayman
    # on 30's road end; Blue's tile 1 (monastery, road end W) closes the road 30-0-1: 3 tiles.
    #
    #   y\x   -1      0       1
    #   -1          16 r1              16: Blue's knight
    #    0   30 r0   0 r0    1 r1      30: your highwayman; 1 closes the road
    regular=[16, 30, 1, 3],  # 3 stays in the deck: the game goes on
    plays=[play(0, -1, 1, meeple=1, by=0), play(-1, 0, 0, meeple=2, by=1), play(1, 0, 1, by=0)],
    scores=[0, 3],
    events=[{"type": "ROAD_SCORED", "scorers": [1], "points": 3, "tileCount": 3, "tileIds": [0, 1, 30]}],
    over=False,
    **CARC,
)


def test_e1_road_closed_by_the_next_player() -> None:
    """E1 (B4.3, B4.7, B4.8): Blue's tile completes your 3-tile road: you score 3, your highwayman
    returns, Blue's knight stays."""
    game = check(E1)
    assert game.supply(1) == (7, 1)
    assert game.occupants() == [(0, "meeple", 0, -1, 1)]


E2 = Scenario(
    # Your knight on 16 (coat of arms) in the start's city; 11's cap closes it: 3 tiles + 1 coat.
    #
    #   y\x    0
    #   -2   11 r2
    #   -1   16 r1     your knight
    #    0    0 r0
    #    1    3 r0     the other player's tile
    regular=[16, 3, 11, 4],  # 4 stays in the deck
    plays=[play(0, -1, 1, meeple=1, by=0), play(0, 1, 0, by=1), play(0, -2, 2, by=0)],
    scores=[8, 0],
    events=[{"type": "CITY_SCORED", "scorers": [0], "points": 8, "tileCount": 3, "coats": 1}],
    over=False,
    **CARC,
)


def test_e2_completed_city_with_a_coat_of_arms() -> None:
    """E2 (B4.4): a completed city of 3 tiles and 1 coat of arms scores 8 (the page leaves tiles and
    coats unknown: this scenario picks 3 tiles + 1 coat); the knight returns."""
    game = check(E2)
    assert game.supply(0) == (7, 1) and game.occupants() == []


E3 = Scenario(
    # You (seat 1) put a monk on monastery 3; the other tiles fill its 8 neighbours, yours last.
    #
    #   y\x   -1      0       1
    #    0    2 r3   0 r0    1 r1
    #    1    5 r0   3 r0    4 r0      3: your monk
    #    2   12 r3  11 r2   13 r1      13: the eighth neighbour, placed by you
    regular=[1, 3, 2, 4, 5, 11, 12, 13, 6],  # 6 stays in the deck
    plays=[
        play(1, 0, 1, by=0),
        play(0, 1, 0, meeple=8, by=1),
        play(-1, 0, 3, by=0),
        play(1, 1, 0, by=1),
        play(-1, 1, 0, by=0),
        play(0, 2, 2, by=1),
        play(-1, 2, 3, by=0),
        play(1, 2, 1, by=1),
    ],
    scores=[0, 9],
    events=[{"type": "MONASTERY_SCORED", "scorers": [1], "points": 9, "neighbours": 8, "complete": True}],
    over=False,
    **CARC,
)


def test_e3_monastery_gets_its_eighth_neighbour() -> None:
    """E3 (B4.5): the eighth neighbour completes the monastery: 9, and the monk returns."""
    game = check(E3)
    assert game.supply(1) == (7, 1) and game.occupants() == []


E5 = Scenario(
    # Seat 1's highwayman on 1's road (ending at its monastery), yours (seat 0) on 30's road (start
    # road); 58 (curve W-N) joins them into one completed road of 4 tiles.
    #
    #   y\x   -1      0       1
    #   -1          11 r2    1 r0      1: seat 1's highwayman
    #    0   30 r0   0 r0   58 r1      30: your highwayman; 58 joins and completes
    regular=[11, 1, 30, 58, 3],  # 3 stays in the deck
    plays=[
        play(0, -1, 2, by=0),
        play(1, -1, 0, meeple=1, by=1),
        play(-1, 0, 0, meeple=2, by=0),
        play(1, 0, 1, by=1),
    ],
    scores=[4, 4],
    events=[{"type": "ROAD_SCORED", "scorers": [0, 1], "points": 4, "tileCount": 4, "tileIds": [0, 1, 30, 58]}],
    over=False,
    **CARC,
)


def test_e5_two_roads_joined_and_completed_tie() -> None:
    """E5 (B3.7, B4.2, B4.7): one highwayman each on a 4-tile road: both score the full 4, both return."""
    game = check(E5)
    assert [game.supply(s) for s in (0, 1)] == [(7, 1), (7, 1)]


E6 = Scenario(
    # Yellow (seat 0) has a knight on 18 (start city, going N). You (seat 1) put knights on two caps
    # not connected to it (11, 12); 44 (city E, S, W) joins all three and closes the city: 5 tiles.
    #
    #   y\x   -1      0       1
    #   -2   12 r1  44 r2   11 r3      12, 11: your knights; 44 joins and completes
    #   -1    4 r0  18 r1    3 r0      18: Yellow's knight
    #    0           0 r0   58 r0
    regular=[18, 3, 4, 11, 58, 12, 44, 6],  # 6 stays in the deck
    plays=[
        play(0, -1, 1, meeple=1, by=0),
        play(1, -1, 0, by=1),
        play(-1, -1, 0, by=0),
        play(1, -2, 3, meeple=0, by=1),
        play(1, 0, 0, by=0),
        play(-1, -2, 1, meeple=0, by=1),
        play(0, -2, 2, by=0),
    ],
    scores=[0, 10],
    events=[{"type": "CITY_SCORED", "scorers": [1], "points": 10, "tileCount": 5, "coats": 0}],
    over=False,
    **CARC,
)


def test_e6_two_knights_beat_one() -> None:
    """E6 (B3.7, B4.2, B4.7): 2 knights against Yellow's 1: you score 10, Yellow 0; all three knights
    return. The page leaves tiles and coats unknown (tiles + coats = 5): this scenario picks 5 tiles
    and no coat of arms."""
    game = run(E6, upto=6)
    assert len({*roots(game, (18, 1), (11, 0), (12, 0))}) == 3  # three separate cities before 44
    game = check(E6)
    assert [game.supply(s) for s in (0, 1)] == [(7, 1), (7, 1)] and game.occupants() == []


E7 = Scenario(
    # The start road between 30's road end and 1's: completed by 1, with your new highwayman on it.
    #
    #   y\x   -1      0       1
    #    0   30 r0   0 r0    1 r1      1: your highwayman, placed on the road it completes
    regular=[30, 1, 3],
    plays=[play(-1, 0, 0, by=0), play(1, 0, 1, meeple=1, by=1)],
    scores=[0, 3],
    events=[{"type": "ROAD_SCORED", "scorers": [1], "points": 3, "tileCount": 3}],
    over=False,
    **CARC,
)


def test_e7_meeple_on_a_feature_it_completes_returns_at_once() -> None:
    """E7 (B3.6): the highwayman scores 3 in P4 of the same turn and is back in the supply."""
    game = check(E7)
    assert game.supply(1) == (7, 1) and game.occupants() == []
    assert (game.phase, game.current_player) == ("place", 0)


E8A = Scenario(
    # (a) Your knight on 11's cap (facing S); H (19, caps N and S) closes that small city with its N
    # cap, and you put a new knight in its S cap.
    #
    #   y\x    0
    #   -1   12 r2     the other player's tile (closes the start's city, unoccupied)
    #    0    0 r0
    #    1   11 r2     your knight (cap S)
    #    2   19 r0     N cap closes the small city; your new knight on the S cap (zone 2)
    regular=[11, 12, 19, 3],
    plays=[play(0, 1, 2, meeple=0, by=0), play(0, -1, 2, by=1), play(0, 2, 0, meeple=2, by=0)],
    scores=[4, 0],
    events=[{"type": "CITY_SCORED", "scorers": [0], "points": 4, "tileCount": 2, "coats": 0, "tileIds": [11, 19]}],
    over=False,
    **CARC,
)


def test_e8a_new_knight_in_the_other_city_segment() -> None:
    """E8 (a), CQ1: the small city of 2 tiles scores 4; your own knight there keeps you off that segment
    (B3.3) but the other segment is free; the old knight returns, the new one stays."""
    game = run(E8A, upto=2)
    game.place(0, 2, 0)
    assert ("meeple", 2) in game.legal_occupants() and ("meeple", 0) not in game.legal_occupants()
    game = check(E8A)
    assert game.occupants() == [(0, "meeple", 0, 2, 2)]
    assert game.supply(0) == (6, 1)


E8B = Scenario(
    # (b) 19's S cap closes the start's city (2 tiles); you put your meeple in that small city.
    #
    #   y\x    0
    #   -1   19 r0     your knight on the S cap (zone 2), which closes the city
    #    0    0 r0
    regular=[19, 3],
    plays=[play(0, -1, 0, meeple=2, by=0)],
    scores=[4, 0],
    events=[{"type": "CITY_SCORED", "scorers": [0], "points": 4, "tileCount": 2, "tileIds": [0, 19]}],
    over=False,
    **CARC,
)


def test_e8b_meeple_in_the_small_city_returns_and_the_turn_ends() -> None:
    """E8 (b), B3.6: either segment is offered; in the small city the knight scores 4 and returns, and
    it cannot be placed again this turn: the next player draws."""
    game = run(E8B, upto=0)
    game.place(0, -1, 0)
    assert {("meeple", 0), ("meeple", 2)} <= set(game.legal_occupants())
    game = check(E8B)
    assert game.supply(0) == (7, 1) and game.occupants() == []
    assert (game.phase, game.current_player) == ("place", 1)


E19 = Scenario(
    # I (22: caps N and W) turned r2 shows caps S and E, which touch at the tile's SE corner. The S
    # cap closes the start's city (2 tiles, unoccupied); your knight stands on the E cap (zone 2).
    #
    #   y\x    0
    #   -1   22 r2
    #    0    0 r0
    regular=[22, 3],
    plays=[play(0, -1, 2, meeple=2, by=0)],
    scores=[0, 0],
    over=False,
    **CARC,
)


def test_e19_city_segments_touching_at_a_corner_are_separate() -> None:
    """E19 (B2.6): the two caps of one tile meet only at a corner: separate cities. Closing one scores
    nothing for the knight in the other, who stays. Across tiles too: the start city widened by 35
    (city S and E at (0,-1)) and L's cap at (1,0) touch only at a corner and stay separate."""
    game = check(E19)
    assert game.occupants() == [(0, "meeple", 0, -1, 2)]
    assert find_events(game, "CITY_SCORED") == []
    corner = Game(2, regular_deck=[35, 30, 3], ruleset="carcassonne")
    corner.place(0, -1, 2)
    corner.occupy(None)
    corner.place(1, 0, 0)
    first, second = roots(corner, (35, 0), (30, 0))
    assert first != second and first == roots(corner, (0, 0))[0]


# ---------------------------------------------------------------- B5: final scoring

E4 = Scenario(
    # Five players: Yellow 0, Green 1, Red 2, Black 3, Blue 4. At the end:
    # * left city 7 + 0 + 16 + 17 + 11: 5 tiles, 3 coats (7, 16, 17), incomplete (open N of 16 and E
    #   of 17); Green's knights on 16 and 17, Black's on 11: Green 5 + 3 = 8, Black 0;
    # * monastery 1 with Yellow's monk: neighbours 0, 7, 17 = 3: 4;
    # * right city 33 + 12: 2 tiles, 1 coat (33), open E of 33; Blue's knight: 3;
    # * road 50 - 0 - 1: 3 tiles, open W of 50; Red's highwayman: 3.
    #
    #   y\x   -1      0       1
    #   -2          16 r1    3 r0      16: Green's knight
    #   -1   11 r1   7 r0   17 r0      11: Black's knight; 7 joins the left city last; 17: Green's knight
    #    0   50 r1   0 r0    1 r1      50: Red's highwayman; 1: Yellow's monk
    #    1   33 r2                     33: Blue's knight
    #    2   12 r0
    regular=[1, 17, 50, 11, 33, 3, 16, 12, 7],
    plays=[
        play(1, 0, 1, meeple=8, by=0),
        play(1, -1, 0, meeple=1, by=1),
        play(-1, 0, 1, meeple=1, by=2),
        play(-1, -1, 1, meeple=0, by=3),
        play(-1, 1, 2, meeple=0, by=4),
        play(1, -2, 0, by=0),
        play(0, -2, 1, meeple=1, by=1),
        play(-1, 2, 0, by=2),
        play(0, -1, 0, by=3),
    ],
    players=5,
    scores=[4, 8, 3, 0, 3],
    over=True,
    **CARC,
)


def test_e4_final_scoring_of_incomplete_features() -> None:
    """E4 (B5.2.1-B5.2.3, B4.2): incomplete city 5 tiles + 3 coats = 8 to Green's majority (the page
    leaves the knight counts unknown, Green > Black >= 1: this scenario picks 2 against 1), Black 0;
    monastery with 3 neighbours 4; city of 2 tiles + 1 coat 3; road of 3 tiles 3."""
    game = check(E4)
    city = [e for e in find_events(game, "CITY_SCORED")]
    assert sorted((e["points"], e["tileCount"], e["coats"], e["scorers"]) for e in city) == [
        (3, 2, 1, [4]),
        (8, 5, 3, [1]),
    ]
    assert all(e["complete"] is False for e in city)
    assert sorted(e["tileIds"] for e in city) == [[0, 7, 11, 16, 17], [12, 33]]  # the event log's tileIds
    [monastery] = find_events(game, "MONASTERY_SCORED")
    assert (monastery["points"], monastery["neighbours"], monastery["complete"]) == (4, 3, False)
    [road] = find_events(game, "ROAD_SCORED")
    assert (road["points"], road["tileCount"], road["scorers"], road["tileIds"]) == (3, 3, [2], [0, 1, 50])
    assert game.winners == [1]


# ---------------------------------------------------------------- F1: farmers

E9 = Scenario(
    # Red (seat 0) and Blue (seat 1) one farmer each in the field S of the start road, joined by 13.
    # Cities A (11+19), B (13+20), C (12+21) are closed; D (14, open S) is not.
    #
    #   y\x   -1      0       1       2
    #    0           0 r0
    #    1   14 r2  11 r2   13 r2   12 r2      11: Red's farmer; 12: Blue's farmer; 13 joins the fields
    #    2          19 r0   20 r0   21 r0
    regular=[11, 19, 20, 21, 14, 12, 13],
    plays=[
        play(0, 1, 2, meeple=1, by=0),
        play(0, 2, 0, by=1),
        play(1, 2, 0, by=0),
        play(2, 2, 0, by=1),
        play(-1, 1, 2, by=0),
        play(2, 1, 2, meeple=1, by=1),
        play(1, 1, 2, by=0),
    ],
    scores=[9, 9],
    events=[
        {"type": "FIELD_SCORED", "scorers": [0, 1], "points": 9, "cities": 3},
        {"type": "WINNERS", "players": [0, 1], "points": 9},
    ],
    over=True,
    **CARC,
)


def test_e9_tied_farmers_three_completed_cities() -> None:
    """E9 (F1.4, F1.7, B4.2): 3 completed cities, the incomplete D counts for nobody: Red 9, Blue 9.
    The farmers stay on the board through final scoring."""
    game = run(E9, upto=6)
    assert len({*roots(game, (11, 1), (12, 1))}) == 2  # two fields before 13 joins them
    game = check(E9)
    assert len(game.occupants()) == 2


E10 = Scenario(
    # Yellow (seat 0) farmers on 3 and 13, Black (seat 1) on 12; 14 and 15 join the fields. Completed
    # cities: 14+19, 12+20, 15+21, 13+11 (caps at y=1 closed by the caps N at y=2).
    #
    #   y\x    0       1       2       3       4
    #    0   0 r0
    #    1   3 r0   14 r2   12 r2   15 r2   13 r2     3, 13: Yellow's farmers; 12: Black's
    #    2   4 r0   19 r0   20 r0   21 r0   11 r0
    regular=[3, 4, 19, 20, 21, 11, 13, 12, 14, 15],
    plays=[
        play(0, 1, 0, meeple=0, by=0),
        play(0, 2, 0, by=1),
        play(1, 2, 0, by=0),
        play(2, 2, 0, by=1),
        play(3, 2, 0, by=0),
        play(4, 2, 0, by=1),
        play(4, 1, 2, meeple=1, by=0),
        play(2, 1, 2, meeple=1, by=1),
        play(1, 1, 2, by=0),
        play(3, 1, 2, by=1),
    ],
    scores=[12, 0],
    events=[
        {"type": "FIELD_SCORED", "scorers": [0], "points": 12, "cities": 4},
        {"type": "WINNERS", "players": [0], "points": 12},
    ],
    over=True,
    **CARC,
)


def test_e10_farmer_majority_four_cities() -> None:
    """E10 (F1.4, B4.2): Yellow's majority scores 4 x 3 = 12, Black 0 (the page leaves the farmer
    counts unknown, Yellow > Black >= 1: this scenario picks 2 against 1). The H tiles' open S caps
    border the same field and count for nothing (F1.7)."""
    check(E10)


E11 = Scenario(
    # Black's (seat 0) farmer in H's field between two caps: the S cap closes the start's city, 11
    # closes the N cap.
    #
    #   y\x    0
    #   -2   11 r2
    #   -1   19 r0     Black's farmer (zone 1)
    #    0    0 r0
    regular=[19, 11],
    plays=[play(0, -1, 0, meeple=1, by=0), play(0, -2, 2, by=1)],
    scores=[6, 0],
    events=[
        {"type": "FIELD_SCORED", "scorers": [0], "points": 6, "cities": 2},
        {"type": "WINNERS", "players": [0], "points": 6},
    ],
    **CARC,
)


def test_e11_small_field_two_cities() -> None:
    """E11 (F1.4): a lone farmer in a field bordering 2 completed cities scores 6."""
    check(E11)


E12 = Scenario(
    # Four road curves make a closed 2x2 loop; your farmer in the field inside it (58's zone 2).
    #
    #   y\x    0       1
    #    0    0 r0
    #    1   58 r3   59 r0
    #    2   60 r2   61 r1
    regular=[58, 59, 60, 61],
    plays=[play(0, 1, 3, meeple=2, by=0), play(1, 1, 0, by=1), play(0, 2, 2, by=0), play(1, 2, 1, by=1)],
    scores=[0, 0],
    events=[{"type": "WINNERS", "players": [0, 1], "points": 0}],
    over=True,
    **CARC,
)


def test_e12_field_enclosed_by_roads_is_worth_nothing() -> None:
    """E12 (F1.3, F1.8): the enclosed field borders no city: 0; the farmer stays to the end though the
    road loop around it was completed (an unoccupied road: no event)."""
    game = run(E12, upto=3)
    assert game.occupants() == [(0, "meeple", 0, 1, 2)]
    game = check(E12)
    assert game.occupants() == [(0, "meeple", 0, 1, 2)]


def test_e13_farmer_beside_an_unoccupied_monastery() -> None:
    """E13 (B3.4): on a monastery tile the field round the monastery takes a farmer; the monastery
    stays free (and is still offered to the monk and the abbot until something is placed)."""
    game = Game(2, regular_deck=[3, 4], ruleset="carcassonne")
    game.place(0, 1, 0)
    assert {("meeple", 0), ("meeple", 8), ("abbot", 8)} <= set(game.legal_occupants())
    game.occupy("meeple", 0)
    assert game.occupants() == [(0, "meeple", 0, 1, 0)]
    assert game.supply(0) == (6, 1)


# ---------------------------------------------------------------- A1: the abbot

E14 = Scenario(
    # Your abbot on 15's garden; four more neighbours come, the last one yours, and you take the abbot
    # back instead of deploying: the garden has 5 neighbours (0, 3, 4, 11, 5).
    #
    #   y\x   -1      0       1
    #    0           0 r0
    #    1    4 r0  15 r2    3 r0      15: your abbot on the garden (zone 8)
    #    2          11 r0    5 r0      5: placed by you; then the abbot comes back
    regular=[15, 3, 4, 11, 5, 6],
    plays=[
        play(0, 1, 2, abbot=8, by=0),
        play(1, 1, 0, by=1),
        play(-1, 1, 0, by=0),
        play(0, 2, 0, by=1),
        play(1, 2, 0, recall=(0, 1), by=0),
    ],
    scores=[6, 0],
    events=[{"type": "ABBOT_RETURNED", "player": 0, "points": 6, "feature": "garden", "neighbours": 5}],
    over=False,
    **CARC,
)


def test_e14_abbot_taken_back_from_a_garden() -> None:
    """E14 (A1.5): taken back with 5 neighbours (the tile just placed counted): 1 + 5 = 6, at once; the
    abbot is back in the supply and cannot be placed again this turn."""
    game = check(E14)
    assert game.supply(0) == (7, 1) and game.occupants() == []
    assert (game.phase, game.current_player) == ("place", 1)


E15 = Scenario(
    # Your abbot on 15's garden; the eighth neighbour (6, placed by the other player) completes it.
    #
    #   y\x   -1      0       1
    #    0    2 r3   0 r0    1 r1
    #    1    4 r0  15 r2    3 r0      15: your abbot on the garden
    #    2    5 r0  11 r0    6 r0
    regular=[15, 1, 2, 3, 4, 11, 5, 6, 12],  # 12 stays in the deck
    plays=[
        play(0, 1, 2, abbot=8, by=0),
        play(1, 0, 1, by=1),
        play(-1, 0, 3, by=0),
        play(1, 1, 0, by=1),
        play(-1, 1, 0, by=0),
        play(0, 2, 0, by=1),
        play(-1, 2, 0, by=0),
        play(1, 2, 0, by=1),
    ],
    scores=[9, 0],
    events=[{"type": "GARDEN_SCORED", "scorers": [0], "points": 9, "neighbours": 8, "complete": True, "tile": 15}],
    over=False,
    **CARC,
)


def test_e15_abbot_on_a_completed_garden_scores_nine() -> None:
    """E15 (A1.4, B4.6): the garden's eighth neighbour: 9 for the abbot, who returns."""
    game = check(E15)
    assert game.supply(0) == (7, 1) and game.occupants() == []


# ---------------------------------------------------------------- V1: the river

PATH = {"ruleset": "carcassonne", "river": True}


def river_game(deck: list[int]) -> Game:
    """A river game (source 72 at (0,0) r0, flowing S) with this deck order."""
    return Game(2, regular_deck=deck, **PATH)


def place_river(game: Game, *moves: tuple[int, int, int]) -> None:
    """Place river tiles, deploying nothing."""
    for x, y, rot in moves:
        game.place(x, y, rot)
        if game.phase == "occupy":
            game.occupy(None)


def test_e16_no_immediate_u_turn() -> None:
    """E16 (V1.5): source flowing S, 81 at (0,1) turns the river E; at (1,1) the curve 78 may turn S
    (r3) but not N (r0: the source lies further N)."""
    game = river_game([81, 78, 83])
    assert game.legal_placements() == [(0, 1, 2), (0, 1, 3)]  # the first turn may go W (r2) or E (r3)
    place_river(game, (0, 1, 3))
    assert game.tile_to_place == 78
    assert game.legal_placements() == [(1, 1, 3)]
    with pytest.raises(ValueError, match="not a legal placement"):
        game.place(1, 1, 0)


def test_e17_no_curve_towards_river_tiles() -> None:
    """E17 (V1.5): S, then E at (0,1), then S at (1,1); at (1,2) the curve 76 may not turn W (r1: river
    tiles lie further W), only E (r2)."""
    game = river_game([81, 78, 76, 83])
    place_river(game, (0, 1, 3), (1, 1, 3))
    assert game.tile_to_place == 76
    assert game.legal_placements() == [(1, 2, 2)]


def test_e18_staircase_is_legal_throughout() -> None:
    """E18 (V1.4-V1.6): straight, curve E, straight, curve S: every step is offered at the open end only;
    at (2,3) the curve 76 may turn E (r2) but not W (r1)."""
    game = river_game([75, 81, 74, 78, 76, 83])
    for move in [(0, 1, 0), (0, 2, 3), (1, 2, 0), (2, 2, 3)]:
        assert move in game.legal_placements()
        assert {(x, y) for x, y, _ in game.legal_placements()} == {move[:2]}  # only at the open end
        place_river(game, move)
    assert game.tile_to_place == 76
    assert game.legal_placements() == [(2, 3, 2)]


# ---------------------------------------------------------------- E20: the formula table

FORMULAS = [
    ("road(tiles=3)", lambda: path_value(3, 0, POINTS), 3),
    ("city(tiles=3, coats=1, complete)", lambda: enclosure_value(3, 1, POINTS), 8),
    ("city(tiles=2, coats=0, complete)", lambda: enclosure_value(2, 0, POINTS), 4),
    ("monastery(complete)", lambda: features.COMPLETE_CLOISTER, 9),
    ("field(completed cities bordering=4)", lambda: features.FARMER_CITY * 4, 12),
]


@pytest.mark.parametrize(("call", "value", "expected"), FORMULAS, ids=[f[0] for f in FORMULAS])
def test_e20_formulas(call: str, value, expected: int) -> None:
    """E20: the values the engine's formulas give (the ruleset's Points)."""
    assert int(value()) == expected


E20_FROM_GAMES = [
    # (formula, scenario, event type, event filter, points)
    ("road(tiles=3)", E1, "ROAD_SCORED", {"tileCount": 3}, 3),
    ("city(tiles=3, coats=1, complete)", E2, "CITY_SCORED", {"tileCount": 3, "coats": 1}, 8),
    ("city(tiles=2, coats=0, complete)", E8B, "CITY_SCORED", {"tileCount": 2}, 4),
    ("city(tiles=5, coats=3, incomplete)", E4, "CITY_SCORED", {"tileCount": 5, "coats": 3, "complete": False}, 8),
    ("city(tiles=2, coats=1, incomplete)", E4, "CITY_SCORED", {"tileCount": 2, "coats": 1, "complete": False}, 3),
    ("monastery(complete)", E3, "MONASTERY_SCORED", {"complete": True}, 9),
    ("monastery(neighbours=3, incomplete)", E4, "MONASTERY_SCORED", {"neighbours": 3, "complete": False}, 4),
    ("garden(neighbours=5, abbot taken back)", E14, "ABBOT_RETURNED", {"neighbours": 5}, 6),
    ("field(completed cities bordering=4)", E10, "FIELD_SCORED", {"cities": 4}, 12),
]


@pytest.mark.parametrize(
    ("call", "scenario", "kind", "where", "expected"), E20_FROM_GAMES, ids=[f[0] for f in E20_FROM_GAMES]
)
def test_e20_formulas_in_play(call: str, scenario: Scenario, kind: str, where: dict, expected: int) -> None:
    """E20: every line of the table, as scored in one of the examples above."""
    game = run(scenario)
    [event] = [e for e in find_events(game, kind) if all(e.get(k) == v for k, v in where.items())]
    assert event["points"] == expected
