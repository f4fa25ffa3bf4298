"""The ``hg_env.Game`` contract: every call, clear ValueErrors for bad calls, and game records."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from hg_env import Game
from tests.scenario import run
from tests.test_rules_examples import E11
from tests.test_rules_sections import shaman_game

# ---------------------------------------------------------------- helpers


def snapshot(game: Game) -> tuple:
    """Everything a decision can change: every state array, the events and the decision history."""
    arrays = {name: array.copy() for name, array in game.state.arrays().items()}
    return arrays, copy.deepcopy(game.events), list(game.history), game.decisions()


def assert_unchanged(game: Game, before: tuple) -> None:
    arrays, events, history, decisions = snapshot(game)
    for name, array in before[0].items():
        assert np.array_equal(arrays[name], array), f"{name} changed"
    assert (events, history, decisions) == before[1:]


def expect_refused(game: Game, call, message: str) -> None:
    """``call(game)`` raises ValueError matching ``message`` and leaves the game as it was."""
    before = snapshot(game)
    with pytest.raises(ValueError, match=message):
        call(game)
    assert_unchanged(game, before)


def play_randomly(game: Game, rng: np.random.Generator, decisions: int | None = None) -> Game:
    """Random legal decisions through the public calls, until the end or ``decisions`` taken."""
    taken = 0
    while not game.is_over and (decisions is None or taken < decisions):
        if game.phase == "place":
            legal = game.legal_placements()
            game.place(*legal[rng.integers(len(legal))])
        elif game.phase == "retake":
            options = [None, *game.legal_choices("retake")]
            choice = options[rng.integers(len(options))]
            game.decide("retake", None) if choice is None else game.decide("retake", *choice)
        elif game.phase == "occupy":
            options = [None, *game.legal_occupants()]
            choice = options[rng.integers(len(options))]
            game.occupy(None) if choice is None else game.occupy(*choice)
        else:
            choices = game.legal_choices("pit")
            game.decide("pit", choices[rng.integers(len(choices))])
        taken += 1
    return game


# ---------------------------------------------------------------- every call


def test_a_whole_game_through_the_public_calls() -> None:
    """Constructor, properties, legal_* lists and decisions, from setup to the winners."""
    game = Game(num_players=3, seed=5)
    assert (game.num_players, game.current_player, game.phase, game.is_over, game.winners) == (3, 0, "place", False, [])
    assert game.tile_at(0, 0) == (56, 0) and game.tile_at(1, 1) is None and game.tile_at(99, 0) is None
    first = game.tile_to_place
    x, y, r = game.legal_placements()[0]
    game.place(x, y, r)
    assert game.tile_at(x, y) == (first, r)
    assert game.phase in ("occupy", "place")
    play_randomly(game, np.random.default_rng(5))
    assert game.is_over and game.phase == "over" and game.tile_to_place is None
    assert game.legal_placements() == [] and game.legal_occupants() == [] and game.legal_choices("retake") == []
    assert game.winners == [p for p in range(3) if game.scores[p] == max(game.scores)]
    assert game.events[-1] == {"type": "WINNERS", "players": game.winners, "points": max(game.scores)}
    for p in range(3):
        pawns, huts = game.supply(p)
        on_board = [k for q, k, *_ in game.occupants() if q == p]
        assert pawns + on_board.count("pawn") == 5 and huts + on_board.count("hut") == 3


def test_occupy_and_occupants() -> None:
    """occupy(kind, zone) puts the piece on the tile just placed; occupants() lists it."""
    game = Game(2, regular_deck=[46, 62], menhir_deck=[])
    game.place(-1, 0, 0)
    assert game.phase == "occupy" and game.current_player == 0
    game.occupy("hut", 1)
    assert game.occupants() == [(0, "hut", -1, 0, 1)]
    assert game.supply(0) == (5, 2) and game.supply(1) == (5, 3)
    assert game.current_player == 1 and game.tile_to_place == 62


def test_retake_calls() -> None:
    """legal_choices("retake") and decide("retake", x, y, zone) after the shaman (R7.1)."""
    game = shaman_game()
    assert game.phase == "retake" and game.legal_choices("retake") == [(0, 1, 0)]
    game.decide("retake", 0, 1, 0)
    assert game.phase == "occupy" and (0, "pawn", 0, 1, 0) not in game.occupants()


def test_events_follow_appendix_b() -> None:
    """events: Appendix B types with their fields."""
    game = run(E11)
    fields = {
        "MENHIR_EXTRA_TURN": {"type", "player", "tileIds"},
        "HUNTING_TRAP_SCORED": {"type", "player", "points", "animals"},
        "MEADOW_SCORED": {"type", "scorers", "points", "animals", "deerEaten"},
        "WINNERS": {"type", "players", "points"},
    }
    assert [e["type"] for e in game.events] == ["MENHIR_EXTRA_TURN", "HUNTING_TRAP_SCORED", "MEADOW_SCORED", "WINNERS"]
    for event in game.events:
        assert set(event) == fields[event["type"]]


def test_given_decks_are_drawn_in_order() -> None:
    """With regular_deck/menhir_deck given, tiles come in exactly that order."""
    game = Game(2, regular_deck=[62, 61, 37], menhir_deck=[94])
    drawn = []
    while not game.is_over:
        drawn.append(game.tile_to_place)
        game.place(*game.legal_placements()[0])
        if game.phase == "occupy":
            game.occupy(None)
    assert drawn == [62, 61, 37]
    assert game.deck_sizes == (0, 1)


# ---------------------------------------------------------------- bad calls


def test_wrong_phase_is_refused() -> None:
    game = Game(2, regular_deck=[46, 62], menhir_deck=[])
    expect_refused(game, lambda g: g.occupy(None), "not the occupy phase.*seat 0 to place")
    expect_refused(game, lambda g: g.decide("retake", None), "not the retake phase")
    expect_refused(game, lambda g: g.decide("pit", 0), "not the pit_trap phase")
    game.place(-1, 0, 0)
    expect_refused(game, lambda g: g.place(0, -1, 0), "not the place phase.*to occupy")
    game.occupy(None)
    game.place(0, -1, 0)
    game.occupy(None)
    assert game.is_over
    expect_refused(game, lambda g: g.place(0, -2, 0), "game is over")
    expect_refused(game, lambda g: g.occupy(None), "game is over")


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ((0, 0, 0), "not a legal placement"),  # occupied (R4.1a)
        ((1, 1, 0), "not a legal placement"),  # diagonal contact only (R4.1c)
        ((5, 5, 0), "not a legal placement"),  # no neighbour
        ((-1, 0, 0), "not a legal placement"),  # 37 shows no river towards the start river (R4.1d)
        ((1, 0, 0), "not a legal placement"),  # r0 shows a meadow to the start forest
        ((1, 0, 4), "not a legal placement"),  # no rotation 4
        ((13, 0, 0), "off the board"),  # R4.3
    ],
)
def test_illegal_placement_is_refused(where: tuple, message: str) -> None:
    game = Game(2, regular_deck=[37, 62], menhir_deck=[])
    expect_refused(game, lambda g: g.place(*where), rf"place\(.*tile 37.*{message}")
    game.place(1, 0, 3)  # the legal one still works afterwards
    assert game.tile_at(1, 0) == (37, 3)


@pytest.mark.parametrize(
    ("where", "name"),
    [
        (("1", 0, 3), "x"),
        ((None, 0, 3), "x"),
        ((1, 0.0, 3), "y"),
        ((1.0, 0, 3.5), "x"),
        ((1, 0, np.float64(3)), "rotation"),
    ],
)
def test_placement_arguments_that_are_not_ints_are_named(where: tuple, name: str) -> None:
    """(1.0, 0, 3) matches the legal (1, 0, 3): it used to become a float action, refused as such."""
    game = Game(2, regular_deck=[37, 62], menhir_deck=[])
    expect_refused(game, lambda g: g.place(*where), rf"^place\(.*\): {name} must be an int, got ")
    game.place(np.int64(1), 0, 3)  # numpy integers are ints
    assert game.tile_at(1, 0) == (37, 3)


@pytest.mark.parametrize(
    ("kind", "zone"),
    [("pawn", 8), ("hut", 3), ("pawn", 9), ("pawn", -1), ("hut", 12), ("meeple", 1)],
)
def test_bad_occupant_is_refused(kind: object, zone: object) -> None:
    """Bad local zones and kinds: ValueError naming the call and the legal choices."""
    game = Game(2, regular_deck=[1, 62], menhir_deck=[])
    game.place(-1, 0, 0)
    expect_refused(game, lambda g: g.occupy(kind, zone), r"occupy\(.*not legal on tile 1.*legal:")


@pytest.mark.parametrize("zone", [None, "1", 1.0, True])
def test_a_local_zone_that_is_not_an_int_is_named(zone: object) -> None:
    """occupy("pawn", 1.0) matches the legal ("pawn", 1): it used to become a float action."""
    game = Game(2, regular_deck=[1, 62], menhir_deck=[])
    game.place(-1, 0, 0)
    expect_refused(game, lambda g: g.occupy("pawn", zone), r"^occupy\('pawn', .*\): local_zone must be an int, got ")


def test_bad_retake_is_refused() -> None:
    """Another seat's pawn, an own hut, an empty tile, a wrong zone: refused."""
    game = shaman_game()
    for call in ((1, 0, 2), (-1, 0, 8), (5, 5, 0), (0, 1, 3)):
        expect_refused(
            game,
            lambda g, c=call: g.decide("retake", *c),
            r"^decide\('retake', .*no pawn there to retake; legal: \[\(0, 1, 0\)\]",
        )
    for call, name in (((0, None, None), "y"), ((0.0, 1, 0), "x"), ((0, 1, 0.0), "local_zone"), ((0, True), "y")):
        expect_refused(
            game, lambda g, c=call: g.decide("retake", *c), rf"^decide\('retake', .*\): {name} must be an int, got "
        )


@pytest.mark.parametrize("player", [-1, 2, 5, "0", None, 1.0])
def test_bad_player_is_refused(player: object) -> None:
    game = Game(2, seed=0)
    expect_refused(game, lambda g: g.supply(player), "player must be a seat 0..1")


@pytest.mark.parametrize(
    ("decks", "message"),
    [
        ({"regular_deck": [3, 80]}, r"regular_deck holds tile\(s\) \[80\] that are not regular"),
        ({"regular_deck": [56]}, r"regular_deck holds tile\(s\) \[56\]"),
        ({"regular_deck": [3, 3]}, r"regular_deck holds tile\(s\) \[3\] more than once"),
        ({"regular_deck": [3, 95]}, r"\[95\]"),
        ({"regular_deck": 5}, "regular_deck must be a list of tile ids"),
        ({"regular_deck": ["a"]}, "regular_deck must be a list of tile ids"),
        ({"regular_deck": [3.7]}, "regular_deck must be a list of tile ids"),
        ({"regular_deck": [True]}, "regular_deck must be a list of tile ids"),
        ({"regular_deck": "12"}, "regular_deck must be a list of tile ids"),
        ({"menhir_deck": [80, 3]}, r"menhir_deck holds tile\(s\) \[3\] that are not menhir"),
        ({"menhir_deck": [80, 80]}, "more than once"),
    ],
)
def test_bad_decks_are_refused(decks: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Game(2, **decks)


def test_numpy_decks_and_empty_decks_are_fine() -> None:
    """A deck may be any sequence of ints; an empty regular deck ends the game at once (R8.1)."""
    assert Game(2, regular_deck=np.array([37, 62]), menhir_deck=[]).tile_to_place == 37
    game = Game(2, regular_deck=[], menhir_deck=[])
    assert game.is_over and game.winners == [0, 1]


@pytest.mark.parametrize(
    ("flags", "message"), [({"reach": 3}, "unknown rule flag.*reach"), ({"hut_targets": 1}, "hut_targets")]
)
def test_bad_flags_are_refused(flags: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Game(2, **flags)


def test_illegal_flat_action_is_refused() -> None:
    """step(action): an illegal flat action raises ValueError and changes nothing."""
    game = Game(2, seed=0)
    expect_refused(game, lambda g: g.step(g.layout.none), "not legal")
    expect_refused(game, lambda g: g.step(-5), "outside the action space")
    expect_refused(game, lambda g: g.step(g.layout.size), "outside the action space")


# ---------------------------------------------------------------- records

ROUND_TRIP_GAMES = [(n, seed) for n in (2, 3, 4, 5) for seed in (1, 2, 3)]


@pytest.mark.parametrize(("num_players", "seed"), ROUND_TRIP_GAMES)
def test_record_round_trip(num_players: int, seed: int) -> None:
    """to_record -> JSON -> from_record replays to the identical state, for whole and partial games."""
    rng = np.random.default_rng(seed)
    game = Game(num_players, seed=seed, hunting_trap_cancel="scored_and_pairs" if seed == 3 else "all")
    play_randomly(game, rng, decisions=25)
    partial = json.loads(json.dumps(game.to_record()))
    play_randomly(game, rng)
    record = json.loads(json.dumps(game.to_record(players=[f"p{i}" for i in range(num_players)], meta={"seed": seed})))
    assert record["is_over"] and record["scores"] == game.scores and record["players"][0] == "p0"
    for rec, expected in ((partial, None), (record, game)):
        replay = Game.from_record(rec)
        if expected is None:
            assert replay.decisions() == rec["decisions"] and not replay.is_over
            continue
        assert_unchanged(replay, snapshot(expected))
        assert replay.to_record(players=record["players"], meta=record["meta"]) == record
    assert Game.from_record(record, upto=10).decisions() == record["decisions"][:10]


def test_record_round_trip_with_a_shaman_retake() -> None:
    """Records carry retake decisions as ["retake", x, y, zone] and replay them."""
    game = shaman_game()
    game.decide("retake", 0, 1, 0)
    game.occupy("pawn", 0)
    record = game.to_record()
    assert ["retake", 0, 1, 0] in record["decisions"]
    assert_unchanged(Game.from_record(record), snapshot(game))


def test_record_round_trip_with_a_pit_trap_choice() -> None:
    """Records carry the player_choice pit-trap decision as ["pit", k]."""
    from tests.test_rule_flags import with_flags
    from tests.test_rules_sections import PIT_TRAP_FAR_DEER

    game = run(with_flags(PIT_TRAP_FAR_DEER, pit_trap_deer_choice="player_choice"))
    game.decide("pit", 1)
    record = game.to_record()
    assert record["decisions"][-1] == ["pit", 1] and record["rules"]["pit_trap_deer_choice"] == "player_choice"
    assert Game.from_record(record).scores == [0, 5]


def _record() -> dict:
    game = Game(2, seed=9)
    play_randomly(game, np.random.default_rng(9), decisions=12)
    return game.to_record()


def changed(**fields):
    return lambda r: {**r, **fields}


def without(key: str):
    return lambda r: {k: v for k, v in r.items() if k != key}


def rules_with(**flags):
    return lambda r: {**r, "rules": {**r["rules"], **flags}}


def decisions_edited(edit):
    """A record whose decision list was changed in place by ``edit``."""

    def change(r: dict) -> dict:
        decisions = [list(d) for d in r["decisions"]]
        edit(decisions)
        return {**r, "decisions": decisions}

    return change


MALFORMED = [
    ("not a dict", lambda r: [r], "expected a JSON object, got list"),
    ("wrong format", changed(format="chess"), "'format' must be"),
    ("newer version", changed(version=3), "incompatible record: version 3"),
    ("no version", without("version"), "incompatible record: version None"),
    ("no decisions", without("decisions"), "'decisions' must be a list"),
    ("players a string", changed(num_players="2"), "'num_players' must be an int"),
    ("too many players", changed(num_players=7), "'num_players' must be an int 2..5"),
    ("deck not a list", changed(regular_deck="0 1 2"), "'regular_deck' must be a list"),
    ("deck with a menhir tile", lambda r: {**r, "regular_deck": [*r["regular_deck"], 80]}, "not regular tiles"),
    ("unknown flag", rules_with(colour="red"), "bad 'rules'.*unknown rule flag"),
    ("bad flag value", rules_with(board_reach=-3), "bad 'rules'.*board_reach"),
    ("scores not ints", changed(scores=["a", 0]), "'scores' must be null or a list of 2 ints"),
    ("scores tampered", lambda r: {**r, "scores": [r["scores"][0] + 1, r["scores"][1]]}, "replay gives scores"),
    ("illegal placement", decisions_edited(lambda d: d.__setitem__(0, ["place", 9, 9, 0])), "decision 0.*not a legal"),
    ("decision too short", decisions_edited(lambda d: d.__setitem__(0, ["place", 1, 0])), "decision 0.*takes 3"),
    ("decision too long", decisions_edited(lambda d: d.insert(1, ["pawn", 1, 2])), "decision 1.*takes 1"),
    ("coordinates not ints", decisions_edited(lambda d: d.__setitem__(0, ["place", "a", 0, 1])), "decision 0"),
    ("unknown decision", decisions_edited(lambda d: d.__setitem__(0, ["jump"])), "unknown decision kind 'jump'"),
    ("empty decision", decisions_edited(lambda d: d.__setitem__(0, [])), "non-empty list"),
    ("decision not a list", lambda r: {**r, "decisions": ["place", *r["decisions"][1:]]}, "non-empty list"),
    ("decision out of phase", decisions_edited(lambda d: d.insert(0, ["none"])), "decision 0.*not the occupy phase"),
]


@pytest.mark.parametrize(("change", "message"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_records_raise_clear_errors(change, message: str) -> None:
    """Corrupt, malformed and incompatible records raise ValueError naming the problem."""
    with pytest.raises(ValueError, match=message):
        Game.from_record(change(_record()))


def test_record_players_must_match() -> None:
    with pytest.raises(ValueError, match="do not match num_players"):
        Game(2, seed=0).to_record(players=["a", "b", "c"])
