"""docs/rules/hg2002.md §2-§4 rule by rule: pieces (C3, C4, K14), the gold check and its limits (K1, K2),
river completion and value (K4, K5), powers (K9), the end (K10, K11), shared victory (K12), the bonus
tiles' specials (S1-S4) and the 2020 flags (KQ21), on real 2002 tiles through ``hg_env.Game``.

Sketches as in tests/test_hg2002_examples.py: ``tile r<rotation>`` at (x, y), the volcano start tile 0
at (0, 0) (meadow N, gold forest E and S, river W into a 1-fish lake). Seat 0 is Red, seat 1 Blue.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
import types

import numpy as np
import pytest

import hg_env.core.ruleset as ruleset_module
from hg_env import Game, Rules
from hg_env.core.ruleset import get_ruleset
from hg_env.core.tiles import TileSet, load_catalogue
from tests.scenario import Scenario, check, find_events, play, run
from tests.test_hg2002_examples import X6, X10, shrine_meadow

RULESET = "hg2002"


def classic(**kwargs) -> Scenario:
    return Scenario(ruleset=RULESET, **kwargs)


# ---------------------------------------------------------------- pieces (C3, C4, K14)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_player_has_5_pawns_and_2_huts(players: int) -> None:
    """C3, C4, KQ1: 5 pawns and 2 huts per player, whatever the number of players."""
    game = Game(players, seed=0, ruleset=RULESET)
    assert [game.supply(p) for p in range(players)] == [(5, 2)] * players
    assert get_ruleset(RULESET).pieces == (5, 2, 0)


THIRD_HUT = classic(
    # Red's huts on 60's lake (the start lake's system) and 57's lake (a system of its own); Red's 59
    # starts a third, empty system, but Red has no hut left to put on it.
    #
    #   y\x    -2      -1      0       1
    #   -1     2 r0            57 r0   59 r0     57: Red's hut; 59: no hut offered
    #    0     1 r0   60 r2     0                60: Red's hut
    regular=[60, 1, 57, 2, 59, 3],
    plays=[
        play(-1, 0, 2, hut=8, by=0),
        play(-2, 0, 0, by=1),
        play(0, -1, 0, hut=8, by=0),
        play(-2, -1, 0, by=1),
    ],
)


def test_a_third_hut_is_never_offered() -> None:
    """C4, R5.3: with both huts on the board a player is offered pawns but no hut, even on a lake of an
    empty river system; the other player still has both huts."""
    game = run(THIRD_HUT)
    assert game.supply(0) == (5, 0) and game.supply(1) == (5, 2)
    game.place(1, -1, 0)
    assert game.phase == "occupy"
    offered = game.legal_occupants()
    assert ("pawn", 1) in offered and not [kind for kind, _ in offered if kind == "hut"]
    other = Game(2, seed=0, ruleset=RULESET, regular_deck=[59])  # the same lake tile with a hut left
    other.place(0, -1, 1)
    assert ("hut", 8) in other.legal_occupants()


def test_each_river_system_scores_its_own_fish() -> None:
    """K6, K8: Red's huts stand in two river systems (start lake 1 + 60's lake 2; 57's lake 1) and 59's
    lake forms a third one with no hut: Red scores 3 and 1, the third system nothing."""
    sc = dataclasses.replace(THIRD_HUT, plays=[*THIRD_HUT.plays, play(1, -1, 0, by=0), play(-3, -1, 1, by=1)])
    game = check(sc)
    assert game.is_over and game.scores == [4, 0]
    systems = find_events(game, "RIVER_SYSTEM_SCORED")
    assert sorted((e["scorers"], e["fish"]) for e in systems) == [([0], 1), ([0], 3)]


# ---------------------------------------------------------------- the gold check (K1, K2, K15)

TWO_GOLD_FORESTS = classic(
    # 62 closes two gold forests at once: the start forest (0, 13, 4) with its S zone and the forest
    # 11-5 with its W zone. One bonus turn (87), then Blue's land turn.
    #
    #   y\x    0       1
    #   -2     5 r0
    #   -1    11 r3   62 r0     62: forest S and forest W, two zones
    #    0     0      13 r0
    #    1     4 r2
    regular=[13, 4, 11, 5, 62, 1],
    menhir=[87, 88],
    plays=[
        play(1, 0, 0, by=0),
        play(0, 1, 2, by=1),
        play(0, -1, 3, by=0),
        play(0, -2, 0, by=1),
        play(1, -1, 0, by=0),  # closes both
        play(-1, -2, 0, by=0),  # the one bonus turn: 87 west of 5
    ],
    events=[{"type": "BONUS_EXTRA_TURN", "player": 0, "tileIds": [0, 4, 5, 11, 13, 62]}],
    over=False,
)


def test_two_gold_forests_closed_at_once_give_one_bonus_turn() -> None:
    """K2, KQ6: one tile closing two gold forests earns one bonus tile; Blue's land turn follows."""
    game = run(TWO_GOLD_FORESTS, upto=5)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 87, True)
    game = check(TWO_GOLD_FORESTS)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (1, 1, False)
    assert game.deck_sizes == (0, 1)


def start_forest_closed(bonus: list[int], regular_left: list[int] | None = None) -> Scenario:
    """Blue closes the start forest with 4 (3 tiles, gold, unoccupied); ``bonus`` is the bonus deck.

    ::

        y\\x    0       1
         0     0       3 r2
         1     4 r2             4: Blue closes
    """
    return classic(
        regular=[3, 4, *(regular_left if regular_left is not None else [1])],
        menhir=bonus,
        plays=[play(1, 0, 2, by=0), play(0, 1, 2, by=1)],
    )


def test_empty_bonus_deck_gives_no_bonus_turn() -> None:
    """K2, KQ7: with the bonus deck empty a gold forest earns nothing and play goes on normally."""
    game = run(start_forest_closed(bonus=[]))
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 1, False)
    assert not find_events(game, "BONUS_EXTRA_TURN")


EMPTIED = classic(
    # Blue's 4 closes the start forest: bonus tile 87 (east of 3). Red's 6 later closes the gold
    # forest 11-5-6: the bonus deck is now empty, so Blue's land turn follows.
    #
    #   y\x    0       1       2
    #   -2     5 r0
    #   -1    11 r3    6 r2            6 closes 11-5-6
    #    0     0       3 r2   87 r0    87: Blue's bonus tile
    #    1     4 r2
    regular=[3, 4, 11, 5, 6, 1],
    menhir=[87],
    plays=[
        play(1, 0, 2, by=0),
        play(0, 1, 2, by=1),
        play(2, 0, 0, by=1),  # the bonus turn
        play(0, -1, 3, by=0),
        play(0, -2, 0, by=1),
        play(1, -1, 2, by=0),
    ],
    events=[{"type": "BONUS_EXTRA_TURN", "player": 1, "tileIds": [0, 3, 4]}],
    over=False,
)


def test_emptied_bonus_deck_gives_no_bonus_turn() -> None:
    """K2: once the bonus deck is used up, a later gold forest earns no bonus turn."""
    game = check(EMPTIED)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (1, 1, False)
    assert game.deck_sizes == (0, 0)


def unplaceable_bonus(bonus: list[int]) -> Scenario:
    """On a 3x3 board (``board_reach=1``) Red's 23 closes the start forest (3 tiles, gold); every free
    position then needs a river or forest side, so the all-meadow fire tile 87 fits nowhere.

    ::

        y\\x   -1       0       1
        -1    (R)     27 r0    (R)      (R), (F): a free position needing a river / forest side
         0    (R)      0      44 r0
         1    (F)     23 r2    (F)      23: Red closes the start forest
    """
    return classic(
        regular=[27, 44, 23, 39],
        menhir=bonus,
        flags={"board_reach": 1},
        plays=[play(0, -1, 0, by=0), play(1, 0, 0, by=1), play(0, 1, 2, by=0)],
    )


def test_unplaceable_bonus_tile_is_discarded_and_the_next_drawn() -> None:
    """K2, KQ7: the bonus tile that fits nowhere is thrown away and the next one drawn for the bonus turn."""
    game = run(unplaceable_bonus([87, 79]))
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (0, 79, True)
    assert find_events(game, "TILE_DISCARDED") == [{"type": "TILE_DISCARDED", "tile": 87}]
    assert game.deck_sizes == (1, 0)
    game.place(-1, 0, 1)
    game.occupy(None)
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (1, 39, False)


def test_no_bonus_turn_when_no_bonus_tile_fits() -> None:
    """K2, KQ7 (as 2020 Q4): when no bonus tile fits there is no bonus turn; Blue's land turn follows."""
    game = run(unplaceable_bonus([87]))
    assert (game.current_player, game.tile_to_place, game.extra_turn) == (1, 39, False)
    assert find_events(game, "TILE_DISCARDED") == [{"type": "TILE_DISCARDED", "tile": 87}]
    assert not find_events(game, "BONUS_EXTRA_TURN")


# ---------------------------------------------------------------- rivers (K4, K5)

LOOP = classic(
    # 66's two rivers (lake of 2 fish) leave north and west and come back through 32, 33 and 34:
    # a river of 4 tiles closed at both ends by the same lake. Blue's fisher on 32.
    #
    #   y\x   -1       0
    #   -2    33 r2   32 r3     32: Blue's fisher
    #   -1    34 r1   66 r3     34 closes the loop
    #    0             0
    regular=[66, 32, 33, 34],
    plays=[play(0, -1, 3, by=0), play(0, -2, 3, pawn=1, by=1), play(-1, -2, 2, by=0), play(-1, -1, 1, by=1)],
    scores=[0, 6],
    events=[
        {"type": "RIVER_SCORED", "scorers": [1], "points": 6, "tileCount": 4, "fish": 2, "tileIds": [32, 33, 34, 66]},
        {"type": "WINNERS", "players": [1], "points": 6},
    ],
)


def test_a_lake_closing_both_ends_counts_once() -> None:
    """K4, KQ12 (as 2020 Q14): 4 tiles + the 2 fish of the one lake at both ends = 6, not 8."""
    check(LOOP)


SPRINGS = classic(
    # Red's fisher on 54's river, which ends at a spring; Blue's 41 (a spring too) closes it.
    #
    #   y\x    0       1
    #   -1            41 r2
    #    0     0      54 r1     54: Red's fisher
    regular=[54, 41],
    plays=[play(1, 0, 1, pawn=3, by=0), play(1, -1, 2, by=1)],
    scores=[2, 0],
    events=[
        {"type": "RIVER_SCORED", "scorers": [0], "points": 2, "tileCount": 2, "fish": 0, "tileIds": [41, 54]},
        {"type": "WINNERS", "players": [0], "points": 2},
    ],
)


def test_a_river_between_two_springs_is_complete() -> None:
    """K5 (R2.16): a river stopping at a spring on each end is complete: 2 tiles, no fish = 2."""
    check(SPRINGS)


def test_river_zones_carry_no_fish() -> None:
    """K4, K13: every classic river zone has 0 fish, so a river's fish are its closing lakes'."""
    tiles = get_ruleset(RULESET).tiles
    rivers = tiles.ZONE_TYPE == 2  # Z_PATH
    assert rivers.sum() == 94 and not tiles.ZONE_FISH[rivers].any()


# ---------------------------------------------------------------- powers, end, victory (K9-K12)


def test_no_powers_no_retake_no_pit_decisions() -> None:
    """K9, KQ2: no shaman retake and no pit-trap choice exist: the action space is placements, 8 pawn
    zones, 10 hut zones and "none" (4N + 19), and a whole game never enters another phase."""
    game = Game(3, seed=5, ruleset=RULESET)
    layout = game.layout
    assert [(name, slots) for name, _, slots in layout.kinds] == [("pawn", 8), ("hut", 10)]
    assert layout.decisions == () and layout.none == layout.occupy + 18 and layout.size == 4 * 25 * 25 + 19
    assert get_ruleset(RULESET).decisions == ()
    phases = set()
    while not game.is_over:
        phases.add(game.phase)
        game.step(game.legal_actions()[len(game.history) % len(game.legal_actions())])
    assert phases == {"place", "occupy"}
    assert game.state.ruleset_arrays == {}  # no hunting trap: no cancelled animals, no pit-trap range


def test_game_ends_after_the_last_land_tile() -> None:
    """K10: the last land tile's turn (no gold forest closed) ends the game; the bonus tiles stay unused."""
    game = Game(2, seed=0, ruleset=RULESET, regular_deck=[3], bonus_deck=[87, 88])
    game.place(1, 0, 2)
    game.occupy(None)
    assert game.is_over and game.deck_sizes == (0, 2)
    assert game.events[-1]["type"] == "WINNERS"


def test_tied_winners_share_the_victory() -> None:
    """K12, KQ8: the highest totals tie: every tied seat wins (X6 forest, X10 meadow)."""
    assert check(X6).winners == [0, 1]
    assert check(X10).winners == [0, 1]


@pytest.mark.parametrize(
    "flag", ["hunting_trap_cancel", "wildfire_affects_hunting_trap", "pit_trap_deer_choice", "menhir_deck"]
)
def test_2020_flags_are_refused(flag: str) -> None:
    """KQ21: the 2020 power flags mean nothing here: Rules refuses them, default value or not, with a
    ValueError naming the flag and the ruleset."""
    default = Rules.flags_of("hg2020")
    assert flag not in Rules.flags_of(RULESET)
    value = Rules(ruleset="hg2020").as_dict().get(flag, [])
    if flag in default:
        with pytest.raises(ValueError, match=rf"unknown rule flag\(s\) \['{flag}'\] for ruleset 'hg2002'"):
            Rules(ruleset=RULESET, **{flag: value})
    else:  # the 2020 deck keyword: hg2002 has a bonus deck
        with pytest.raises(ValueError, match=r"menhir_deck given, but this ruleset has a bonus deck \(bonus_deck\)"):
            Game(2, ruleset=RULESET, menhir_deck=[80])


# ---------------------------------------------------------------- specials (S1-S4)


def test_s1_a_gatherer_on_the_shrine_tile_has_no_shrine_power() -> None:
    """S1, KQ9: only a hunter on the shrine's meadow zone 890 counts: Red's gatherer on tile 89's forest
    leaves the meadow to the majority (Blue's 2 hunters: 4)."""
    sc = shrine_meadow(red_on_shrine=False)
    plays = list(sc.plays)
    plays[4] = play(1, -2, 0, by=0)  # no hunter on 13
    plays[7] = play(2, -1, 0, pawn=1, by=0)  # the bonus turn: a gatherer on 89's gold forest
    game = check(dataclasses.replace(sc, plays=plays))
    assert game.scores == [0, 4]
    (meadow,) = find_events(game, "MEADOW_SCORED")
    assert meadow["scorers"] == [1] and "shrine" not in meadow


SHRINE_AND_FIRE = classic(
    # X13's meadow (Red's hunter on the shrine, Blue's 2 hunters), and a second gold forest (14-11-13-3-4)
    # closed by Red's 4: the bonus tile 87 puts the fire into the meadow too.
    #
    #   y\x   -1       0       1       2
    #   -3                     4 r0             4: Red closes 14-11-13-3-4 -> bonus tile 87
    #   -2            11 r0   13 r0   87 r0     87: the fire
    #   -1     3 r0   14 r3    2 r0   89 r0     14: Blue; 89: Red's hunter on the shrine; 2 joins
    #    0    28 r0    0       6 r2   16 r2     6: Blue
    #    1             5 r2                     5: Red closes the start forest -> bonus tile 89
    regular=[28, 14, 11, 6, 13, 16, 5, 3, 4, 2],
    menhir=[89, 87],
    plays=[
        play(-1, 0, 0, by=0),
        play(0, -1, 3, pawn=1, by=1),
        play(0, -2, 0, by=0),
        play(1, 0, 2, pawn=0, by=1),
        play(1, -2, 0, by=0),
        play(2, 0, 2, by=1),
        play(0, 1, 2, by=0),
        play(2, -1, 0, pawn=0, by=0),  # bonus turn: the shrine
        play(-1, -1, 0, by=1),
        play(1, -3, 0, by=0),
        play(2, -2, 0, by=0),  # bonus turn: the fire
        play(1, -1, 0, by=1),
    ],
    scores=[6, 0],
    events=[
        {"type": "BONUS_EXTRA_TURN", "player": 0, "tileIds": [0, 5, 6]},
        {"type": "BONUS_EXTRA_TURN", "player": 0, "tileIds": [3, 4, 11, 13, 14]},
        {
            "type": "MEADOW_SCORED",
            "scorers": [0],
            "points": 6,
            "animals": {"mammoth": 1, "aurochs": 0, "deer": 2, "tiger": 1},
            "deerEaten": 0,
            "shrine": True,
        },
        {"type": "WINNERS", "players": [0], "points": 6},
    ],
)


def test_shrine_and_fire_in_one_meadow_both_act() -> None:
    """S1 + S2 (§4): the fire decides the value (no deer eaten: 2 + 2 x 2 = 6), the shrine who gets it
    (Red alone against Blue's 2 hunters)."""
    check(SHRINE_AND_FIRE)


SPLIT_SHRINE = "hg2002_split_shrine"


@pytest.fixture
def split_shrine(monkeypatch: pytest.MonkeyPatch):
    """hg2002 with tile 89's meadow drawn as two zones: the shrine's (0, north) and a plain one (2, west).
    No real tile has a second meadow zone on the shrine tile; this variant checks S1 names a zone."""
    base = get_ruleset(RULESET)
    catalogue = copy.deepcopy(load_catalogue(base.data_file))
    tile = next(t for t in catalogue["tiles"] if t["id"] == 89)
    tile["sides"]["W"]["zones"] = [2]
    tile["zones"][0]["edges"] = ["N"]
    tile["zones"].append({"zone": 2, "type": "meadow", "edges": ["W"], "animals": []})
    spec = dataclasses.replace(base, name=SPLIT_SHRINE)
    spec.__dict__["tiles"] = TileSet(catalogue, base.vocabulary)  # the cached_property's slot
    module = types.ModuleType(f"hg_env.rulesets.{SPLIT_SHRINE}")
    module.RULESET = spec
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(ruleset_module, "RULESETS", (*ruleset_module.RULESETS, SPLIT_SHRINE))
    yield SPLIT_SHRINE
    get_ruleset.cache_clear()


def test_s1_a_hunter_on_another_meadow_zone_of_the_shrine_tile_has_no_effect(split_shrine: str) -> None:
    """S1: with the shrine tile's meadow split in two, Red's hunter on the plain zone (2) has no shrine
    power although both zones lie in the scored meadow: Blue's 2 hunters take it by majority.

    The layout of X13 (tests/test_hg2002_examples.py, ``shrine_meadow``) with 12 joining 13's meadow
    to the shrine zone, which faces north::

        y\\x   -2      -1       0       1       2
        -2                    11 r0   13 r0   12 r3      12 joins 13 and the shrine zone
        -1                    14 r3    2 r0   89 r0      14: Blue; 89: Red's hunter on zone 2 (west)
         0    29 r1   28 r0    0       6 r2   16 r2      6: Blue
         1                     5 r2                      5: Red closes the start forest
    """
    sc = classic(
        regular=[28, 14, 11, 6, 13, 16, 12, 29, 5, 2],
        menhir=[89],
        plays=[
            play(-1, 0, 0, by=0),
            play(0, -1, 3, pawn=1, by=1),
            play(0, -2, 0, by=0),
            play(1, 0, 2, pawn=0, by=1),
            play(1, -2, 0, by=0),
            play(2, 0, 2, by=1),
            play(2, -2, 3, by=0),
            play(-2, 0, 1, by=1),
            play(0, 1, 2, by=0),
            play(2, -1, 0, pawn=2, by=0),  # the bonus turn: Red's hunter on the plain meadow zone
            play(1, -1, 0, by=1),
        ],
        scores=[0, 4],
    )
    sc = dataclasses.replace(sc, ruleset=split_shrine)
    game = check(sc)
    tiles = get_ruleset(split_shrine).tiles
    shrine = tiles.SPECIAL_ZONE["shrine"]
    assert (int(tiles.ZONE_TILE[shrine]), int(tiles.ZONE_LOCAL[shrine])) == (89, 0)
    roots = game.state.area.find(np.zeros(2, dtype=np.intp), tiles.TILE_ZONE[89, [0, 2]])
    assert roots[0] == roots[1]  # both zones of the shrine tile lie in the scored meadow
    (meadow,) = find_events(game, "MEADOW_SCORED")
    assert meadow["scorers"] == [1] and meadow["points"] == 4 and "shrine" not in meadow


AUROCHS = classic(
    # Blue's hunter on 18 (a tiger) in the meadow of 3's east zone; Red closes the start forest with 4
    # and places the bonus tile 83 (an aurochs) into Blue's meadow.
    #
    #   y\x    0       1       2
    #    0     0       3 r2   18 r1     18: Blue's hunter
    #    1     4 r2           83 r2     4: Red closes the start forest -> bonus tile 83
    regular=[3, 18, 4],
    menhir=[83],
    plays=[play(1, 0, 2, by=0), play(2, 0, 1, pawn=1, by=1), play(0, 1, 2, by=0), play(2, 1, 2, by=0)],
    scores=[0, 2],
    events=[
        {"type": "BONUS_EXTRA_TURN", "player": 0, "tileIds": [0, 3, 4]},
        {
            "type": "MEADOW_SCORED",
            "scorers": [1],
            "points": 2,
            "animals": {"mammoth": 0, "aurochs": 1, "deer": 0, "tiger": 1},
            "deerEaten": 0,
        },
        {"type": "WINNERS", "players": [1], "points": 2},
    ],
)


def test_s4_aurochs_score_two_and_no_tiger_eats_them() -> None:
    """S4, K7, KQ20: the bonus tile's aurochs is worth 2; the tiger of the meadow finds no deer and
    costs nothing."""
    check(AUROCHS)
