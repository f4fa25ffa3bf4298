"""Every configuration flag of RULES.md Appendix A, under its default and under the alternative.

Sketches show ``tile r<rotation>`` at each position (x east, y south, start tile 56 at (0, 0)).
"""

from __future__ import annotations

import dataclasses

import pytest

from hg_env import Game, Rules
from tests.scenario import Scenario, check, find_events, play, run
from tests.test_rules_sections import OPENING, OPENING_TILES, PIT_TRAP_FAR_DEER


def with_flags(sc: Scenario, scores: list[int] | None = None, events: list[dict] | None = None, **flags) -> Scenario:
    """The same scenario under other flags (and other expected results)."""
    return dataclasses.replace(sc, flags=flags, scores=scores, events=events if events is not None else [])


def test_defaults_are_the_recommended_behaviour() -> None:
    """Appendix A: the defaults."""
    assert Rules().as_dict() == {
        "ruleset": "hg2020",
        "board_reach": 12,
        "start_rotation": 0,
        "extra_turn_after_last_tile": True,
        "hunting_trap_cancel": "all",
        "wildfire_affects_hunting_trap": False,
        "hut_targets": "canonical",
        "pit_trap_deer_choice": "maximize",
        "auto_skip_forced_actions": True,
    }
    assert Game(2).rules == Rules()


# ---------------------------------------------------------------- board_reach (R4.3)


def test_board_reach_default_is_25_by_25() -> None:
    """board_reach=12: positions -12..12 (ChaCuN's board); (13, 0) is off the board."""
    game = Game(2, seed=0)
    assert game.rules.board.size == 25 and game.tile_at(13, 0) is None
    with pytest.raises(ValueError, match="off the board"):
        game.place(13, 0, 0)


@pytest.mark.parametrize(("reach", "third_fits"), [(2, False), (None, True)])
def test_board_reach_limits_and_none_is_unbounded(reach: int | None, third_fits: bool) -> None:
    """board_reach=2 stops a forest row at x=2; board_reach=None lets it run on.

    y\\x    0       1       2       3
     0   56 r0   38 r0   39 r0   40 r0     (only with board_reach=None)
    """
    game = Game(2, regular_deck=[38, 39, 40, 62], menhir_deck=[], board_reach=reach)
    for x in (1, 2):
        game.place(x, 0, 0)
        game.occupy(None)
    assert ((3, 0, 0) in game.legal_placements()) == third_fits
    if third_fits:
        game.place(3, 0, 0)
        assert game.tile_at(3, 0) == (40, 0)
    else:
        assert all(max(abs(x), abs(y)) <= 2 for x, y, _ in game.legal_placements())


# A row east of the start tile, each tile in its first rotation that fits; the first ten have forest
# on both E and W sides. Nothing lies north or south of the row.
EAST_ROW = [38, 39, 40, 60, 41, 45, 72, 73, 74, 14, 0, 46, 47]


@pytest.mark.parametrize(("reach", "x13_fits"), [(12, False), (None, True)])
def test_board_reach_none_reaches_beyond_twelve(reach: int | None, x13_fits: bool) -> None:
    """board_reach=12 ends the row at x=12; board_reach=None lets the 13th tile go to x=13."""
    game = Game(2, regular_deck=EAST_ROW, menhir_deck=[], board_reach=reach)
    for x in range(1, 13):
        rotation = min(r for px, py, r in game.legal_placements() if (px, py) == (x, 0))
        game.place(x, 0, rotation)
        if game.phase == "occupy":
            game.occupy(None)
    assert game.tile_at(12, 0)[0] == 46 and game.tile_to_place == 47
    assert any((x, y) == (13, 0) for x, y, _ in game.legal_placements()) == x13_fits


# ---------------------------------------------------------------- start_rotation (R1.4, Q12)


@pytest.mark.parametrize(("rotation", "forest_ends"), [(0, [(1, 0, 3), (0, 1, 0)]), (1, [(0, 1, 0), (-1, 0, 1)])])
def test_start_rotation(rotation: int, forest_ends: list[tuple[int, int, int]]) -> None:
    """start_rotation turns the start tile (R2.2): at r0 its forest faces E and S, at r1 S and W.
    Two forest ends (37, 36 turned to fit) close it either way: 3 tiles, 6 points."""
    game = Game(2, regular_deck=[37, 36], menhir_deck=[], start_rotation=rotation)
    assert game.tile_at(0, 0) == (56, rotation)
    (x1, y1, r1), (x2, y2, _) = forest_ends
    assert (x1, y1, r1) in game.legal_placements()
    game.place(x1, y1, r1)
    game.occupy("pawn", 0)  # 37's forest
    rot36 = next(r for x, y, r in game.legal_placements() if (x, y) == (x2, y2))
    game.place(x2, y2, rot36)
    game.occupy(None)  # T5 scoring follows the occupant decision (Q21)
    assert game.scores == [6, 0]


def test_start_rotation_river_side_moves() -> None:
    """start_rotation=1: the start river faces N, so an all-river tile fits only north of it."""
    game = Game(2, regular_deck=[13], menhir_deck=[], start_rotation=1)
    assert {(x, y) for x, y, _ in game.legal_placements()} == {(0, -1)}


# ---------------------------------------------------------------- extra_turn_after_last_tile (R8.1, Q3)


@pytest.mark.parametrize(("flag", "extra"), [(True, True), (False, False)])
def test_extra_turn_after_last_tile(flag: bool, extra: bool) -> None:
    """The last regular tile (36) closes the start forest: the extra turn is played (default) or lost."""
    game = run(Scenario(regular=OPENING_TILES, menhir=[94], plays=OPENING, flags={"extra_turn_after_last_tile": flag}))
    assert game.is_over is not extra
    assert game.extra_turn is extra
    assert len(find_events(game, "MENHIR_EXTRA_TURN")) == int(extra)
    assert game.deck_sizes == (0, 0 if extra else 1)


def test_extra_turn_flag_keeps_earlier_extra_turns() -> None:
    """extra_turn_after_last_tile=False only affects the last regular tile."""
    game = run(
        Scenario(regular=[*OPENING_TILES, 62], menhir=[94], plays=OPENING, flags={"extra_turn_after_last_tile": False})
    )
    assert (game.extra_turn, game.tile_to_place) == (True, 94)


# ---------------------------------------------------------------- hunting_trap_cancel (R7.10, Q5)

EXCESS_TIGERS = Scenario(
    # Seat 0 places the hunting trap 94 in an extra turn; in range in its meadow: aurochs (36),
    # deer (34) and two tigers (31, 32): 2 + max(0, 1 - 2) = 2. Seat 1 then adds a deer (62).
    #
    #   y\x    0       1       2
    #    0   56 r0   34 r0   37 r2
    #    1   36 r2   94 r2   31 r1     36 closes the start forest; seat 0's hunter on 94
    #    2   62 r0           32 r3
    regular=[34, 37, 31, 32, 36, 62],
    menhir=[94],
    plays=[
        play(1, 0, 0, by=0),
        play(2, 0, 2, by=1),
        play(2, 1, 1, by=0),
        play(2, 2, 3, by=1),
        play(0, 1, 2, by=0),
        play(1, 1, 2, pawn=1, by=0),
        play(0, 2, 0, by=1),
    ],
)


def test_hunting_trap_cancel_all() -> None:
    """Default "all": every animal in range is covered, the excess tiger too; 62's deer then scores 1."""
    sc = with_flags(
        EXCESS_TIGERS,
        scores=[3, 0],
        events=[
            {"type": "MENHIR_EXTRA_TURN", "player": 0},
            {
                "type": "HUNTING_TRAP_SCORED",
                "player": 0,
                "points": 2,
                "animals": {"mammoth": 0, "aurochs": 1, "deer": 1, "tiger": 2},
            },
            {"type": "MEADOW_SCORED", "scorers": [0], "points": 1, "deerEaten": 0},
            {"type": "WINNERS", "players": [0], "points": 3},
        ],
    )
    check(sc)


def test_hunting_trap_cancel_scored_and_pairs() -> None:
    """ "scored_and_pairs": the excess tiger stays uncovered and eats 62's deer: the meadow scores 0."""
    sc = with_flags(
        EXCESS_TIGERS,
        scores=[2, 0],
        events=[
            {"type": "MENHIR_EXTRA_TURN", "player": 0},
            {"type": "HUNTING_TRAP_SCORED", "player": 0, "points": 2},
            {"type": "WINNERS", "players": [0], "points": 2},
        ],
        hunting_trap_cancel="scored_and_pairs",
    )
    game = check(sc)
    assert int(game.state.cancelled[0].sum()) == 3  # aurochs, deer and one tiger


# ---------------------------------------------------------------- wildfire_affects_hunting_trap (R7.12, Q6)

FIRE_THEN_TRAP = Scenario(
    # Seat 1 places the wildfire 85 (first extra turn); seat 1 closes the menhir forest 33-37-35 and
    # places the hunting trap 94 (second extra turn) in the same meadow. In the trap's range: the
    # deer of 34 and the tiger of 18.
    #
    #   y\x    0       1       2
    #   -2           37 r2
    #   -1           33 r1   35 r2
    #    0   56 r0   34 r0
    #    1   36 r2   85 r0   94 r0
    #    2           18 r0
    regular=[*OPENING_TILES, 18, 33, 37, 35],
    menhir=[85, 94],
    plays=[
        *OPENING,
        play(1, 1, 0, by=1),
        play(1, 2, 0, by=0),
        play(1, -1, 1, by=1),
        play(1, -2, 2, by=0),
        play(2, -1, 2, by=1),
        play(2, 1, 0, by=1),
    ],
)


@pytest.mark.parametrize(("flag", "points"), [(False, 0), (True, 1)])
def test_wildfire_affects_hunting_trap(flag: bool, points: int) -> None:
    """Default: the fire does not stop the tiger eating the deer in the trap's scoring (0 points);
    with the option the deer scores (1 point)."""
    game = run(with_flags(FIRE_THEN_TRAP, wildfire_affects_hunting_trap=flag))
    assert game.scores == [0, points]
    assert len(find_events(game, "HUNTING_TRAP_SCORED")) == int(points > 0)  # logged only if points > 0
    assert int(game.state.cancelled[0].sum()) == 2  # deer and tiger are covered either way


# ---------------------------------------------------------------- hut_targets (R5.7, Q10)


@pytest.mark.parametrize(("flag", "huts"), [("canonical", [8]), ("all_water_zones", [1, 5, 8])])
def test_hut_targets(flag: str, huts: list[int]) -> None:
    """Tile 1 (rivers 1 and 5 flow into lake 8): canonical targets are the lake only; all water
    zones adds the two lake rivers. A hut on river 1 scores like one on the lake (start lake 1 +
    tile 1's lake 3 fish)."""
    game = Game(2, regular_deck=[1], menhir_deck=[], hut_targets=flag)
    game.place(-1, 0, 0)
    assert [z for k, z in game.legal_occupants() if k == "hut"] == huts
    game.occupy("hut", huts[0])
    assert game.scores == [4, 0]


# ---------------------------------------------------------------- pit_trap_deer_choice (R7.15, Q7)


def test_pit_trap_deer_choice_maximize() -> None:
    """Default: no decision; the far deer is eaten (6 points)."""
    game = check(PIT_TRAP_FAR_DEER)
    assert game.is_over and game.scores == [0, 6]


@pytest.mark.parametrize(("eaten_in_range", "score"), [(0, 6), (1, 5)])
def test_pit_trap_deer_choice_player_choice(eaten_in_range: int, score: int) -> None:
    """ "player_choice": the scorer chooses how many in-range deer the tiger eats (0 or 1 here)."""
    game = run(with_flags(PIT_TRAP_FAR_DEER, pit_trap_deer_choice="player_choice"))
    assert (game.phase, game.current_player, game.legal_choices("pit")) == ("pit_trap", 1, [0, 1])
    with pytest.raises(ValueError, match="choose one of"):
        game.decide("pit", 2)
    game.decide("pit", eaten_in_range)
    assert game.is_over and game.scores == [0, score]


def test_pit_trap_choice_is_skipped_when_forced() -> None:
    """ "player_choice" asks only when there is a choice (E12: one deer, one tiger, all in range)."""
    from tests.test_rules_examples import E12

    game = run(with_flags(E12, pit_trap_deer_choice="player_choice"))
    assert game.is_over and game.scores == [1, 20]
    game = run(with_flags(E12, pit_trap_deer_choice="player_choice", auto_skip_forced_actions=False))
    assert game.legal_choices("pit") == [1]
    game.decide("pit", 1)
    assert game.scores == [1, 20]


# ---------------------------------------------------------------- auto_skip_forced_actions (R3.7)


@pytest.mark.parametrize("flag", [True, False])
def test_auto_skip_forced_actions(flag: bool) -> None:
    """62 joins a meadow with a hunter: nothing is legal. Default: the occupy phase is skipped;
    with False it is shown with only ``None``."""
    game = Game(2, regular_deck=[33, 62, 61], menhir_deck=[], auto_skip_forced_actions=flag)
    game.place(0, -1, 0)
    game.occupy("pawn", 1)
    game.place(1, -1, 0)
    if flag:
        assert (game.phase, game.current_player) == ("place", 0)
    else:
        assert (game.phase, game.current_player, game.legal_occupants()) == ("occupy", 1, [])
        game.occupy(None)
        assert (game.phase, game.current_player) == ("place", 0)


# ---------------------------------------------------------------- num_players (R1.1) and validation


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_num_players_in_bounds(n: int) -> None:
    assert Game(n, seed=0).num_players == n


@pytest.mark.parametrize("n", [0, 1, 6, 2.0, True, "2", None])
def test_num_players_out_of_bounds(n: object) -> None:
    """R1.1: 2 to 5 players."""
    with pytest.raises(ValueError, match="num_players"):
        Game(n)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"board_reach": 0}, "board_reach"),
        ({"board_reach": 2.5}, "board_reach"),
        ({"board_reach": True}, "board_reach"),
        ({"start_rotation": 4}, "start_rotation"),
        ({"start_rotation": True}, "start_rotation"),
        ({"extra_turn_after_last_tile": 1}, "extra_turn_after_last_tile"),
        ({"hunting_trap_cancel": "some"}, "hunting_trap_cancel"),
        ({"wildfire_affects_hunting_trap": "yes"}, "wildfire_affects_hunting_trap"),
        ({"hut_targets": "lakes"}, "hut_targets"),
        ({"pit_trap_deer_choice": "min"}, "pit_trap_deer_choice"),
        ({"auto_skip_forced_actions": None}, "auto_skip_forced_actions"),
        ({"board_size": 12}, "unknown rule flag"),
    ],
)
def test_bad_flags_are_refused(flags: dict, message: str) -> None:
    """Appendix A: a bad flag name or value raises ValueError naming it."""
    with pytest.raises(ValueError, match=message):
        Game(2, **flags)


def _flags_per_ruleset() -> dict[str, dict[str, str]]:
    """The table "Flags per ruleset" of docs/rules/README.md: flag -> ruleset -> cell ("—" or the default)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    table = text.split("## Flags per ruleset", 1)[1].split("\n\n")[1]
    header, _rule, *rows = [[cell.strip(' `"') for cell in line.strip("|").split("|")] for line in table.splitlines()]
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in rows}


def test_a_flag_of_another_ruleset_is_refused_whatever_its_value() -> None:
    """docs/rules/README.md, Flags per ruleset (applied by hg2002 KQ21 and carcassonne CQ28): a flag marked
    "—" is no flag of that ruleset and is refused even at the default of the ruleset that has it, by Rules
    and so by Game and the env; every other cell is the ruleset's default."""
    from hg_env import RULESETS, env

    table = _flags_per_ruleset()
    assert set(table) == {flag for r in RULESETS for flag in Rules.flags_of(r)} - {"ruleset"}
    for flag, cells in table.items():
        owner = next(r for r in RULESETS if cells[r] != "—")
        default = Rules(ruleset=owner).as_dict()[flag]
        for ruleset, cell in cells.items():
            if cell != "—":
                assert cell == str(default).lower(), (flag, ruleset)
                assert Rules(ruleset=ruleset).as_dict()[flag] == default
                continue
            message = rf"^unknown rule flag\(s\) \['{flag}'\] for ruleset '{ruleset}'; known flags"
            for make in (Rules, Game, env):
                with pytest.raises(ValueError, match=message):
                    make(ruleset=ruleset, **{flag: default})


def test_the_rule_for_flags_of_another_ruleset_is_written_once() -> None:
    """The index states the rule; the rows that apply it (hg2002 KQ21, carcassonne CQ28) link to it and do
    not restate another (the index once said a default value passes, CQ28 that any value is refused)."""
    from pathlib import Path

    rules = Path(__file__).resolve().parents[1] / "docs" / "rules"
    index = (rules / "README.md").read_text(encoding="utf-8").split("## Flags per ruleset", 1)[1]
    assert "refused **whatever its value**, the default of\nthe ruleset that has it included" in index
    for page, row in (("hg2002.md", "| KQ21 |"), ("carcassonne.md", "| CQ28 |")):
        (line,) = [line for line in (rules / page).read_text(encoding="utf-8").splitlines() if line.startswith(row)]
        assert "(README.md#flags-per-ruleset)" in line and "SHOULD" not in line and "other than the" not in line
