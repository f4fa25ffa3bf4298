"""docs/rules/carcassonne.md rule by rule: setup (B1), placement and discards (B2.10, B2.11), meeples
(B3), scoring (B4, B5), farmers (F1), the abbot (A1) and the river (V1), on real tiles.

The examples E1-E20 are in tests/test_carcassonne_examples.py; this file adds what they leave out.
Positions: x east, y south, the start tile 0 (city cap N, road W-E) at (0, 0). Tile ids as listed in
that file's docstring, plus 79 (river W-E, monastery), 82 (river N-S under a road bridge W-E).
"""

from __future__ import annotations

import numpy as np
import pytest

from hg_env import Game
from hg_env.core.rules import Rules
from tests.scenario import Scenario, check, find_events, play, run

CARC = {"ruleset": "carcassonne"}
RIVER_TILES = list(range(73, 83))  # the river deck; 72 is the source, 83 the lake


def carc(deck: list[int], players: int = 2, **flags) -> Game:
    return Game(players, regular_deck=deck, ruleset="carcassonne", **flags)


def root(game: Game, tile: int, local: int) -> int:
    tiles = game.rules.spec.tiles
    return int(game.state.area.find(0, tiles.TILE_ZONE[tile, local]))


# ---------------------------------------------------------------- B1: setup


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_start_tile_supplies_and_first_player(players: int) -> None:
    """B1.1-B1.7: the start tile 0 at (0,0) r0, unoccupied; 71 land tiles in the deck; 7 meeples and an
    abbot each; seat 0 places first."""
    game = Game(players, seed=3, ruleset="carcassonne")
    assert game.placed_tiles() == [(0, 0, 0, 0)] and game.occupants() == []
    assert game.deck_sizes == (70, 0) and game.tile_to_place not in (0, None)  # one tile already drawn
    assert sorted([*game.state.regular_deck[0, :71].tolist()]) == list(range(1, 72))
    assert [game.supply(s) for s in range(players)] == [(7, 1)] * players
    assert (game.current_player, game.phase, game.scores) == (0, "place", [0] * players)


def test_player_count_and_hunters_gatherers_flags_are_refused() -> None:
    """B1.1: 2-5 players; CQ28: the Hunters & Gatherers flags are no flags of this ruleset."""
    with pytest.raises(ValueError, match=r"num_players must be 2\.\.5"):
        Game(6, ruleset="carcassonne")
    for flag, value in [("hut_targets", "any"), ("extra_turn_after_last_tile", False)]:
        with pytest.raises(ValueError, match=rf"unknown rule flag\(s\) \['{flag}'\] for ruleset 'carcassonne'"):
            Rules(ruleset="carcassonne", **{flag: value})
    assert Rules(ruleset="carcassonne").abbot is True and Rules(ruleset="carcassonne").river is False


# ---------------------------------------------------------------- B2: placement and discards


def test_b2_10_every_rotation_is_its_own_placement() -> None:
    """B2.10 (R4.1, R4.2): the all-city tile C (7) fits only against the start's city side, in all four
    rotations; the cap E (11) there only with its city turned S."""
    game = carc([7, 11, 3])
    assert game.legal_placements() == [(0, -1, r) for r in range(4)]
    game.place(0, -1, 0)
    game.occupy(None)
    around_c = {(x, y, r) for x, y, r in game.legal_placements() if (x, y) in [(0, -2), (1, -1), (-1, -1)]}
    assert around_c == {(0, -2, 2), (1, -1, 3), (-1, -1, 1)}  # the cap facing C, in one rotation each


def test_b2_11_a_tile_that_fits_nowhere_is_thrown_away() -> None:
    """B2.11: once 12 closes the start's city no city side is open: C (7) fits nowhere, is discarded,
    and the same player draws the next tile; a discarded last tile ends the game (B5.1)."""
    game = carc([12, 7, 3])
    game.place(0, -1, 2)
    game.occupy(None)
    assert (game.current_player, game.tile_to_place, game.deck_sizes) == (1, 3, (0, 0))
    assert find_events(game, "TILE_DISCARDED") == [{"type": "TILE_DISCARDED", "tile": 7}]
    game = carc([12, 7])
    game.place(0, -1, 2)
    game.occupy(None)
    assert game.is_over and game.scores == [0, 0]


# ---------------------------------------------------------------- B3: meeples


def test_b3_3_no_meeple_on_a_road_joined_to_an_occupied_road() -> None:
    """B3.3: your highwayman on 30's road; U (50) extends that road: its road is refused (your own meeple
    counts too), while its fields, joined to unoccupied fields, are offered."""
    game = run(Scenario(regular=[30, 3, 50, 4], plays=[play(-1, 0, 0, meeple=2), play(0, 1, 0)], **CARC))
    game.place(1, 0, 1)
    assert ("meeple", 1) not in game.legal_occupants()
    assert {("meeple", 0), ("meeple", 2)} <= set(game.legal_occupants())
    with pytest.raises(ValueError, match="not legal"):
        game.occupy("meeple", 1)
    assert game.supply(0) == (6, 1)  # unchanged by the refusal


def test_b3_3_no_farmer_in_a_field_joined_to_another_players_farmer() -> None:
    """B3.3: seat 0's farmer in the start's S field (on B at (0,1)); seat 1's B beside it joins that field:
    no farmer there, the monastery still free."""
    game = run(Scenario(regular=[3, 4, 5], plays=[play(0, 1, 0, meeple=0, by=0)], **CARC))
    game.place(1, 1, 0)
    assert set(game.legal_occupants()) == {("meeple", 8), ("abbot", 8)}


@pytest.mark.parametrize("figure", ["meeple", "abbot"])
def test_b3_6_cq16_monk_or_abbot_on_a_monastery_completed_by_its_own_tile(figure: str) -> None:
    """B3.6, CQ16: B (3) placed into a hole with 8 neighbours: its monk (or abbot) scores 9 in the same
    turn and is back in the supply.

        y\\x   -1      0       1
         0    2 r3   0 r0    1 r1
         1    5 r0   3 r0    4 r0      3: placed last, into the hole
         2   12 r3  11 r2    6 r0
    """
    plays = [
        play(1, 0, 1),
        play(-1, 0, 3),
        play(1, 1, 0),
        play(-1, 1, 0),
        play(1, 2, 0),
        play(-1, 2, 3),
        play(0, 2, 2),
        play(0, 1, 0, by=1, **{figure: 8}),
    ]
    game = check(
        Scenario(
            regular=[1, 2, 4, 5, 6, 12, 11, 3, 13],
            plays=plays,
            scores=[0, 9],
            events=[{"type": "MONASTERY_SCORED", "scorers": [1], "points": 9, "neighbours": 8, "complete": True}],
            **CARC,
        )
    )
    assert game.supply(1) == (7, 1) and game.occupants() == []


def test_b3_10_deployments_on_each_kind_of_zone() -> None:
    """B3.10, A1.3: a meeple on roads, cities, fields and monasteries; the abbot only on a monastery or
    garden; never a meeple on a garden; nothing on the start tile."""
    game = carc([15, 1, 30, 3])
    game.place(0, 1, 2)  # E with a garden: city 0, field 1, garden 8
    assert set(game.legal_occupants()) == {("meeple", 0), ("meeple", 1), ("abbot", 8)}
    game.occupy(None)
    game.place(1, 0, 1)  # A: field 0, road 1 (closes nothing yet), monastery 8
    assert set(game.legal_occupants()) == {("meeple", 0), ("meeple", 1), ("meeple", 8), ("abbot", 8)}
    game.occupy(None)
    game.place(-1, 0, 0)  # L: the start road's W end; its fields and other roads, the city cap
    offered = set(game.legal_occupants())
    assert {("meeple", z) for z in range(7)} == offered  # no abbot: no monastery or garden


def test_seven_meeples_and_never_an_eighth() -> None:
    """B1.2, B3.9: seat 0 deploys a meeple whenever it can; once all 7 stand on the board no meeple is
    offered, though the tile has free zones."""
    rng = np.random.default_rng(0)
    game = Game(2, seed=0, ruleset="carcassonne", abbot=False, auto_skip_forced_actions=False)
    starved = 0
    while not game.is_over:
        if game.phase == "occupy" and game.current_player == 0:
            meeples = [o for o in game.legal_occupants() if o[0] == "meeple"]
            assert bool(meeples) == (game.supply(0)[0] > 0) or not _free_zone(game)
            if game.supply(0)[0] == 0 and _free_zone(game):
                starved += 1
            game.step(game.layout.encode(meeples[0]) if meeples else game.layout.none)
            continue
        game.step(int(rng.choice(game.legal_actions())))
        assert game.supply(0)[0] + sum(o[0] == 0 for o in game.occupants()) == 7
    assert starved > 0


def _free_zone(game: Game) -> bool:
    """The tile just placed has a road, city or field zone in an unoccupied feature (B3.3)."""
    s, tiles = game.state, game.rules.spec.tiles
    tile = int(s.board_tile[0, s.last_cell[0]])
    zones = tiles.TILE_ZONE[tile][tiles.TILE_ZONE[tile] >= 0]
    kinds = tiles.ZONE_TYPE[zones]
    free = s.area.occupants[0, s.area.find(0, zones)].sum(-1) == 0
    return bool((free & np.isin(kinds, [0, 1, 2])).any())


# ---------------------------------------------------------------- B4, B5: scoring


def test_b5_2_final_scoring_of_a_lone_highwayman_knight_and_monk() -> None:
    """B5.2: at the end an incomplete road scores 1 per tile, an incomplete city 1 per tile and coat,
    a monastery 1 + neighbours; complete features scored in P4 are not scored again.

        y\\x   -1      0       1
        -1          16 r1              16: seat 1's knight (2 tiles + 1 coat, open N)
         0   50 r1   0 r0    1 r1      50: seat 0's highwayman (3 tiles, open W); 1: seat 1's monk
    """
    game = check(
        Scenario(
            regular=[50, 16, 1],
            plays=[play(-1, 0, 1, meeple=1), play(0, -1, 1, meeple=1), play(1, 0, 1)],
            scores=[3, 3],
            events=[
                {"type": "CITY_SCORED", "scorers": [1], "points": 3, "tileCount": 2, "coats": 1, "complete": False},
                {"type": "ROAD_SCORED", "scorers": [0], "points": 3, "tileCount": 3, "complete": False},
                {"type": "WINNERS", "players": [0, 1], "points": 3},
            ],
            over=True,
            **CARC,
        )
    )
    assert game.winners == [0, 1]  # B5.4: shared victory
    game = check(
        Scenario(
            regular=[1, 16],
            plays=[play(1, 0, 1, meeple=8), play(0, -1, 1)],
            scores=[3, 0],  # neighbours 0 and 16
            events=[
                {"type": "MONASTERY_SCORED", "scorers": [0], "points": 3, "neighbours": 2, "complete": False},
                {"type": "WINNERS", "players": [0], "points": 3},
            ],
            **CARC,
        )
    )


# ---------------------------------------------------------------- F1: farmers


F16_PLAYS = [
    play(0, -1, 1),  # 18 (G): the start's city goes N, fields E and W of it
    play(0, -2, 2),  # 11 closes the city: 3 tiles
    play(1, 0, 0),  # 58: the start's N field (bordering the city) goes round to the E
    play(1, -1, 0, meeple=0, by=1),  # 3: seat 1's farmer, E of the city: joined to the start's N field
    play(-1, -1, 0, meeple=0, by=0),  # 4: seat 0's farmer, W of the city: another field
]


def test_f1_6_a_city_counts_once_per_field_and_for_every_field() -> None:
    """F1.6 (CQ12): the E field borders the city on the start tile and on 18: 3, not 6; the W field
    borders the same city: 3 as well.

        y\\x   -1      0       1
        -2          11 r2
        -1    4 r0  18 r1    3 r0      4: seat 0's farmer (W field); 3: seat 1's farmer (E field)
         0           0 r0   58 r0
    """
    game = check(
        Scenario(
            regular=[18, 11, 58, 3, 4],
            plays=F16_PLAYS,
            scores=[3, 3],
            events=[
                {"type": "FIELD_SCORED", "scorers": [1], "points": 3, "cities": 1},
                {"type": "FIELD_SCORED", "scorers": [0], "points": 3, "cities": 1},
                {"type": "WINNERS", "players": [0, 1], "points": 3},
            ],
            **CARC,
        )
    )
    assert root(game, 0, 1) == root(game, 3, 0) == root(game, 18, 0) != root(game, 4, 0)


def test_f1_7_an_incomplete_city_is_worth_nothing_to_farmers() -> None:
    """F1.7, F1.8: the same fields without 11: the city stays open and both fields score 0; the farmers
    stay on the board to the end."""
    plays = [play(0, -1, 1), play(1, 0, 0), play(1, -1, 0, meeple=0, by=0), play(-1, -1, 0, meeple=0, by=1)]
    game = check(Scenario(regular=[18, 58, 3, 4], plays=plays, scores=[0, 0], **CARC))
    assert find_events(game, "FIELD_SCORED") == [] and len(game.occupants()) == 2


# ---------------------------------------------------------------- A1: the abbot


def test_a1_6_abbot_left_on_the_board_scores_as_a_monk() -> None:
    """A1.6: E14 without taking the abbot back: at the end the garden with 5 neighbours scores 6."""
    plays = [play(0, 1, 2, abbot=8), play(1, 1, 0), play(-1, 1, 0), play(0, 2, 0), play(1, 2, 0)]
    check(
        Scenario(
            regular=[15, 3, 4, 11, 5],
            plays=plays,
            scores=[6, 0],
            events=[
                {"type": "GARDEN_SCORED", "scorers": [0], "points": 6, "neighbours": 5, "complete": False},
                {"type": "WINNERS", "players": [0], "points": 6},
            ],
            **CARC,
        )
    )


def test_a1_5_abbot_taken_back_from_a_monastery_only_by_its_owner() -> None:
    """A1.5: seat 0's abbot on monastery 1; seat 1 cannot take it; seat 0 takes it back instead of
    deploying: 1 + 3 neighbours (0, seat 1's 3, the tile just placed) = 4; it is back in supply."""
    game = run(Scenario(regular=[1, 3, 4, 5], plays=[play(1, 0, 1, abbot=8)], **CARC))
    game.place(1, 1, 0)
    assert game.legal_choices("retake") == []
    with pytest.raises(ValueError, match="no abbot there"):
        game.decide("retake", 1, 0)
    game.occupy(None)
    game.place(2, 0, 0)
    assert game.legal_choices("retake") == [(1, 0, 8)]
    game.decide("retake", 1, 0)
    assert game.scores == [4, 0] and game.supply(0) == (7, 1)
    assert find_events(game, "ABBOT_RETURNED") == [
        {"type": "ABBOT_RETURNED", "player": 0, "points": 4, "feature": "monastery", "neighbours": 3}
    ]


def test_a1_5_cq5_no_taking_back_from_a_garden_the_tile_completes() -> None:
    """CQ5: the owner places the garden's eighth neighbour: the abbot cannot be taken back (the occupy
    phase offers the new tile's zones only); P4 scores 9."""
    plays = [
        play(1, 0, 1, by=0),
        play(0, 1, 2, abbot=8, by=1),
        play(-1, 0, 3),
        play(1, 1, 0),
        play(-1, 1, 0),
        play(0, 2, 0),
        play(-1, 2, 0),
    ]
    game = run(Scenario(regular=[1, 15, 2, 3, 4, 11, 5, 6, 12], plays=plays, **CARC))
    game.place(1, 2, 0)
    assert game.current_player == 1 and game.phase == "occupy"
    assert game.legal_choices("retake") == [] and game.legal_occupants()  # B's monastery and field
    with pytest.raises(ValueError, match="no abbot there"):
        game.decide("retake", 0, 1)
    game.occupy(None)
    assert game.scores == [0, 9] and game.supply(1) == (7, 1)
    assert find_events(game, "ABBOT_RETURNED") == []


def test_a1_5_cq6_abbot_taken_back_without_a_meeple_in_supply() -> None:
    """CQ6: seat 0 deploys its abbot and then meeples whenever it can; when all 7 meeples are on the
    board and the tile offers nothing, the occupy phase is still offered for the abbot's return."""
    rng = np.random.default_rng(0)
    game = Game(2, seed=0, ruleset="carcassonne")
    while not (game.phase == "occupy" and game.current_player == 0 and not game.legal_occupants()):
        if game.phase == "occupy" and game.current_player == 0:
            choices = sorted(game.legal_occupants(), key=lambda o: o[0] != "abbot")  # the abbot first
            game.occupy(*choices[0])
        else:
            game.step(int(rng.choice(game.legal_actions())))
        assert not game.is_over
    assert game.supply(0) == (0, 0)
    [(x, y, zone)] = game.legal_choices("retake")
    assert zone == 8  # a monastery or garden
    before = game.scores[0]
    game.decide("retake", x, y)
    event = find_events(game, "ABBOT_RETURNED")[-1]
    assert event["player"] == 0 and event["points"] == event["neighbours"] + 1
    assert game.scores[0] == before + event["points"]
    assert game.supply(0) == (0, 1)


def test_a1_7_without_the_abbot_gardens_are_pictures() -> None:
    """A1.1, A1.7 (CQ23): ``abbot=False``: no abbot in supply, none offered, gardens never occupied."""
    game = carc([15, 3, 57], abbot=False)
    assert game.supply(0) == (7, 0)
    game.place(0, 1, 2)
    assert set(game.legal_occupants()) == {("meeple", 0), ("meeple", 1)}
    game.occupy(None)
    game.place(1, 1, 0)
    assert set(game.legal_occupants()) == {("meeple", 0), ("meeple", 8)}  # the monk, no abbot
    game.occupy(None)
    assert game.legal_choices("retake") == []


def test_a1_7_without_the_abbot_a_surrounded_garden_scores_nothing() -> None:
    """A1.7: E15's board without the abbot: the garden's eighth neighbour scores nothing."""
    deck = [15, 1, 2, 3, 4, 11, 5, 6]
    moves = [(0, 1, 2), (1, 0, 1), (-1, 0, 3), (1, 1, 0), (-1, 1, 0), (0, 2, 0), (-1, 2, 0), (1, 2, 0)]
    game = carc(deck, abbot=False)
    for x, y, r in moves:
        game.place(x, y, r)
        if game.phase == "occupy":
            game.occupy(None)
    assert game.is_over and game.scores == [0, 0]
    assert [e["type"] for e in game.events] == ["WINNERS"]


# ---------------------------------------------------------------- V1: the river


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_v1_2_source_first_then_the_river_deck_the_lake_and_72_land_tiles(seed: int) -> None:
    """V1.1-V1.3, CQ2: the source (72) at (0,0) r0; the 10 river tiles shuffled first, the lake 11th,
    then the 72 land tiles, the base start tile 0 among them."""
    game = Game(3, seed=seed, ruleset="carcassonne", river=True)
    assert game.placed_tiles() == [(72, 0, 0, 0)]
    deck = game.state.regular_deck[0, : game.state.regular_len[0]].tolist()
    assert len(deck) == 83 and sorted(deck[:10]) == RIVER_TILES and deck[10] == 83
    assert sorted(deck[11:]) == list(range(72))
    assert game.tile_to_place == deck[0] and game.deck_sizes == (82, 0)


def test_v1_4_river_tile_only_at_the_open_end() -> None:
    """V1.4: the straight 75 would match the source's field side W (r0, river N-S facing empty cells),
    but a river tile goes only to the open end (0,1); a land tile drawn there cannot continue it."""
    game = carc([75, 3], river=True)  # no lake: the land tile comes while the river is open
    assert game.legal_placements() == [(0, 1, 0), (0, 1, 2)]
    game.place(0, 1, 0)
    game.occupy(None)
    assert game.tile_to_place == 3 and (0, 2) not in {(x, y) for x, y, _ in game.legal_placements()}


def test_v1_7_river_tile_without_a_legal_placement_is_thrown_away() -> None:
    """V1.7 (CQ4): on a 3x3 board (board_reach=1) the river leaves the board after (0,1): the next river
    tile fits nowhere and is thrown away."""
    game = carc([75, 77, 3], river=True, board_reach=1)
    game.place(0, 1, 0)
    game.occupy(None)
    assert find_events(game, "TILE_DISCARDED") == [{"type": "TILE_DISCARDED", "tile": 77}]
    assert game.tile_to_place == 3


def test_v1_8_no_meeple_on_the_river_and_fields_split_by_it() -> None:
    """V1.8, V1.9, CQ22: 82 (river N-S under a road bridge W-E): meeples on its four fields and its road,
    never on the river; its S fields are separate from each other (the river) and from its N fields
    (the road), while the N fields join round the source's spring (CQ21)."""
    game = carc([82, 79, 83], river=True)
    game.place(0, 1, 0)
    assert set(game.legal_occupants()) == {("meeple", z) for z in (0, 2, 3, 4, 5)}
    game.occupy(None)
    assert root(game, 82, 0) == root(game, 82, 2) == root(game, 72, 0)
    assert len({root(game, 82, 0), root(game, 82, 4), root(game, 82, 5)}) == 3
    game.place(0, 2, 1)  # 79 (printed river W-E) turned to N-S
    assert set(game.legal_occupants()) >= {("meeple", 8), ("abbot", 8)}
    assert all(zone != 1 for _, zone in game.legal_occupants())  # 79's river zone


def test_v1_9_cq21_the_banks_meet_round_the_lake() -> None:
    """V1.9, CQ21: 82's two S fields (SE 4, SW 5) are separate until the lake's field, which goes round
    the lake and its monastery, joins them."""
    game = carc([82, 83, 3], river=True)
    game.place(0, 1, 0)
    game.occupy(None)
    assert root(game, 82, 4) != root(game, 82, 5)
    assert game.legal_placements() == [(0, 2, 0)]
    game.place(0, 2, 0)
    assert root(game, 82, 4) == root(game, 82, 5) == root(game, 83, 0)


def test_v1_8_the_river_is_never_scored() -> None:
    """V1.8: a whole river laid to the lake scores nothing and no river event is logged."""
    game = Game(2, seed=5, ruleset="carcassonne", river=True)
    for _ in range(11):
        x, y, r = game.legal_placements()[0]
        game.place(x, y, r)
        if game.phase == "occupy":
            game.occupy(None)
    assert {t for t, *_ in game.placed_tiles()} == set(range(72, 84))
    assert game.scores == [0, 0] and find_events(game, "TILE_DISCARDED") == []
    assert game.tile_to_place < 72  # the land deck follows the lake
