"""RULES.md §10: the defaults chosen for the open questions Q1-Q25, where a game can show them.

Scenarios built elsewhere are reused where they already show a default; each test states the
numbers the resolution implies. Sketches: ``tile r<rotation>``, x east, y south, start 56 at (0, 0).
"""

from __future__ import annotations

from hg_env import Game
from hg_env.core import scoring
from tests.scenario import Scenario, check, find_events, play, run
from tests.test_rule_flags import EXCESS_TIGERS, FIRE_THEN_TRAP
from tests.test_rules_examples import E2_E3, E11, E13, E15
from tests.test_rules_sections import (
    HUNTING_TRAP_LATER_ANIMAL,
    OPENING,
    OPENING_TILES,
    PIT_TRAP_FAR_DEER,
    TRAP_THEN_PIT,
    WILDFIRE,
    shaman_game,
)


def test_q1_forest_scores_two_per_tile() -> None:
    """Q1: 2 per tile (+3 per mushroom group): the 4-tile forest of E2 is worth 8."""
    assert scoring.enclosure_value(4, 0) == 8
    (forest, *_) = find_events(run(E2_E3, upto=5), "FOREST_SCORED")
    assert (forest["tileCount"], forest["points"]) == (4, 8)


def test_q2_logboat_counts_every_lake_zone_including_its_own() -> None:
    """Q2: E13's logboat system has 4 lake zones (2 of them on tile 83): 8 points."""
    (logboat,) = find_events(check(E13), "LOGBOAT_SCORED")
    assert (logboat["lakes"], logboat["points"]) == (4, 8)


def test_q3_extra_turn_after_the_last_regular_tile() -> None:
    """Q3: the last regular tile closing a menhir forest still earns its extra turn (default)."""
    game = run(Scenario(regular=OPENING_TILES, menhir=[94], plays=OPENING))
    assert not game.is_over and game.extra_turn and game.tile_to_place == 94


def test_q4_unplaceable_menhir_tile_discarded_none_left_no_extra_turn() -> None:
    """Q4: 83 (four river sides) cannot be placed once 59 closes the start river: discarded; with
    nothing else in the menhir deck there is no extra turn."""
    plays = [play(-1, 0, 1, by=0), play(1, 0, 0, by=1), play(0, 1, 2, by=0)]
    game = run(Scenario(regular=[59, *OPENING_TILES, 62], menhir=[83], plays=plays))
    assert find_events(game, "TILE_DISCARDED") == [{"type": "TILE_DISCARDED", "tile": 83}]
    assert not game.extra_turn and game.current_player == 1


def test_q5_hunting_trap_cancels_excess_tigers() -> None:
    """Q5: default "all": with 2 tigers and 1 deer in range, both tigers are covered."""
    game = run(EXCESS_TIGERS)
    assert int(game.state.cancelled[0].sum()) == 4  # aurochs, deer, 2 tigers
    assert game.scores == [3, 0]  # trap 2, then 62's deer is not eaten: 1


def test_q6_wildfire_does_not_affect_the_hunting_trap() -> None:
    """Q6: a tiger in the wildfire's meadow still eats a deer in the trap's scoring: 0 points."""
    game = run(FIRE_THEN_TRAP)
    assert game.scores == [0, 0] and find_events(game, "HUNTING_TRAP_SCORED") == []


def test_q7_pit_trap_eats_far_deer_first() -> None:
    """Q7: automatic and maximising: the far deer is eaten, no decision is asked."""
    game = run(PIT_TRAP_FAR_DEER)
    assert game.is_over and game.scores == [0, 6]


def test_q8_trap_range_is_the_3x3_block() -> None:
    """Q8 / R7.8: the trap at (0,2) scores 36's aurochs at (0,1) but not 34's deer at (1,0), two rows
    up, although both are in its meadow; E11's tiger diagonal to the trap is in range."""
    (trap,) = find_events(run(TRAP_THEN_PIT), "HUNTING_TRAP_SCORED")
    assert trap["animals"] == {"mammoth": 0, "aurochs": 1, "deer": 0, "tiger": 0}
    (trap,) = find_events(run(E11), "HUNTING_TRAP_SCORED")
    assert trap["animals"]["tiger"] == 1  # 31 at (2,0), diagonal to the trap at (1,1)


def test_q9_shaman_takes_own_pawns_only_and_is_optional() -> None:
    """Q9: own pawns of any role (here a hunter), never huts; skipped with no pawn on the board."""
    game = shaman_game()
    assert game.legal_choices("retake") == [(0, 1, 0)]  # not seat 0's hut, not seat 1's hunter
    assert shaman_game(no_pawn=True).phase == "occupy"


def test_q10_hut_targets_are_canonical() -> None:
    """Q10: by default a hut goes on a lake or a river without a lake, not on a lake's river."""
    game = Game(2, regular_deck=[1], menhir_deck=[])
    game.place(-1, 0, 0)
    assert [z for k, z in game.legal_occupants() if k == "hut"] == [8]


def test_q11_board_reach_12() -> None:
    """Q11: a bounded square of reach 12."""
    assert Game(2).rules.reach == 12


def test_q12_start_rotation_0() -> None:
    """Q12: the start tile lies as printed."""
    assert Game(2).tile_at(0, 0) == (56, 0)


def test_q13_a_spring_closes_a_river() -> None:
    """Q13: in E15 the spring river of tile 14 (no lake) closes Red's river: scored 3."""
    (river,) = find_events(check(E15), "RIVER_SCORED")
    assert (river["tileIds"], river["points"]) == ([14, 59], 3)


LAKE_LOOP = Scenario(
    # Q14 / Q15: the river leaves 24's lake north, loops through 15, 16, 21 and comes back into the
    # same lake from the east. Seat 1's fisher on 21 closes it: tiles {24, 15, 16, 21} = 4 (24 holds
    # two zones of the river, counted once) + the lake's 1 fish counted once = 5.
    #
    #   y\x    0       1
    #   -2   15 r0   16 r1
    #   -1   24 r1   21 r2
    #    0   56 r0
    regular=[24, 15, 16, 21],
    plays=[play(0, -1, 1, by=0), play(0, -2, 0, by=1), play(1, -2, 1, by=0), play(1, -1, 2, pawn=1, by=1)],
    scores=[0, 5],
    events=[
        {"type": "RIVER_SCORED", "scorers": [1], "points": 5, "tileCount": 4, "fish": 1, "tileIds": [15, 16, 21, 24]},
        {"type": "WINNERS", "players": [1], "points": 5},
    ],
)


def test_q14_q15_lake_closing_both_ends_counts_once_and_tiles_are_distinct() -> None:
    """Q14: a lake closing both ends of a river counts once; Q15: tileCount counts distinct tiles."""
    check(LAKE_LOOP)


def test_q16_extra_turn_for_the_placer() -> None:
    """Q16: the gatherer is seat 0's, the closing tile seat 1's: seat 1 takes the extra turn."""
    game = run(Scenario(regular=[*OPENING_TILES, 62], menhir=[94], plays=[play(1, 0, 0, pawn=3), OPENING[1]]))
    assert game.scores == [6, 0] and (game.current_player, game.extra_turn) == (1, True)


def test_q17_unoccupied_menhir_forest_gives_an_extra_turn() -> None:
    """Q17: nobody occupies the start forest; closing it still gives the extra turn."""
    game = run(Scenario(regular=[*OPENING_TILES, 62], menhir=[94], plays=OPENING))
    assert game.scores == [0, 0] and (game.current_player, game.extra_turn) == (1, True)


TWO_MENHIR_FORESTS = Scenario(
    # Q18: 67 closes the start forest (56-34-67) and the menhir forest 31-37-67 at once.
    #
    #   y\x    0       1
    #    0   56 r0   34 r0
    #    1   67 r0   31 r3
    #    2           37 r0
    regular=[34, 31, 37, 67, 62],
    menhir=[94, 85],
    plays=[play(1, 0, 0, by=0), play(1, 1, 3, by=1), play(1, 2, 0, by=0), play(0, 1, 0, by=1)],
    events=[{"type": "MENHIR_EXTRA_TURN", "player": 1, "tileIds": [31, 34, 37, 56, 67]}],
)


def test_q18_one_extra_turn_for_several_menhir_forests() -> None:
    """Q18: two menhir forests closed by one tile give one extra turn; then seat 0 plays on."""
    game = check(TWO_MENHIR_FORESTS)
    assert (game.current_player, game.extra_turn, game.tile_to_place, game.deck_sizes) == (1, True, 94, (1, 1))
    game.place(0, -1, 0)  # the extra turn: 94 north of the start tile
    game.occupy(None)
    assert (game.current_player, game.extra_turn, game.tile_to_place) == (0, False, 62)


def test_q19_animals_placed_later_are_not_cancelled() -> None:
    """Q19: the deer of 62, placed in the trap's range after it, scores at the end."""
    game = check(HUNTING_TRAP_LATER_ANIMAL)
    (meadow,) = find_events(game, "MEADOW_SCORED")
    assert meadow["animals"]["deer"] == 1


def test_q20_logboat_needs_no_occupant() -> None:
    """Q20: the placer scores 2 per lake at placement with no hut or fisher anywhere."""
    game = run(Scenario(regular=OPENING_TILES, menhir=[93], plays=[*OPENING, play(0, 2, 2)]))
    assert game.scores == [0, 2] and game.occupants() == []


def test_q21_power_then_occupant_then_scoring() -> None:
    """Q21: E13's events come as logboat (T3), then the river closed with the new fisher (T4, T5);
    E11's hunter goes on the trap meadow after the trap has scored and cancelled it."""
    kinds = [e["type"] for e in check(E13).events]
    assert kinds.index("LOGBOAT_SCORED") < kinds.index("RIVER_SCORED")
    game = check(E11)
    assert (0, "pawn", 1, 1, 1) in game.occupants()


def test_q22_unplaceable_remaining_tiles_end_the_game() -> None:
    """Q22: after 59 closes the start river, 13 and 17 (all rivers) are discarded and the game ends."""
    game = Game(2, regular_deck=[59, 13, 17], menhir_deck=[])
    game.place(-1, 0, 1)
    game.occupy(None)
    assert game.is_over
    assert [e["tile"] for e in find_events(game, "TILE_DISCARDED")] == [13, 17]


def test_q23_tied_winners_share() -> None:
    """Q23: a 0-0 game ends with both seats winning."""
    game = Game(2, regular_deck=[61], menhir_deck=[])
    game.place(0, -1, 0)
    game.occupy(None)
    assert game.winners == [0, 1]
    assert find_events(game, "WINNERS") == [{"type": "WINNERS", "players": [0, 1], "points": 0}]


def test_q24_the_tiger_drawn_on_the_wildfire_is_no_animal() -> None:
    """Q24: the wildfire meadow counts only 18's tiger."""
    (meadow,) = find_events(check(WILDFIRE), "MEADOW_SCORED")
    assert meadow["animals"]["tiger"] == 1


def test_q25_hunters_stay_on_closed_meadows() -> None:
    """Q25: 38 closes the meadow 34(S)+38(N) holding seat 1's hunter: it stays until the end."""
    game = run(Scenario(regular=[34, 38, 62], plays=[play(1, 0, 0), play(1, 1, 0, pawn=0)]))
    assert game.occupants() == [(1, "pawn", 1, 1, 0)] and game.supply(1) == (4, 3)
