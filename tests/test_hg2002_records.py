"""Game records of the classic ruleset (hg_env/record.py): exact round trips, and records refused under
another ruleset or with another ruleset's deck."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hg_env import Game


def random_game(num_players: int, seed: int, moves: int | None = None) -> Game:
    """An hg2002 game played with random legal moves (to the end, or ``moves`` decisions)."""
    game = Game(num_players, seed=seed, ruleset="hg2002")
    rng = np.random.default_rng(seed)
    while not game.is_over and (moves is None or len(game.history) < moves):
        game.step(int(rng.choice(game.legal_actions())))
    return game


def assert_same_game(a: Game, b: Game) -> None:
    for name, array in a.state.arrays().items():
        np.testing.assert_array_equal(b.state.arrays()[name], array, err_msg=name)
    assert (a.events, a.history, a.ruleset, a.rules) == (b.events, b.history, b.ruleset, b.rules)


@pytest.mark.parametrize(("num_players", "seed"), [(2, 0), (3, 1), (4, 2), (5, 3)])
def test_record_round_trip(num_players: int, seed: int) -> None:
    """A finished hg2002 game (with bonus turns) replays from its JSON record to the identical state."""
    game = random_game(num_players, seed)
    assert [e for e in game.events if e["type"] == "BONUS_EXTRA_TURN"]
    record = json.loads(json.dumps(game.to_record(players=[f"p{i}" for i in range(num_players)])))
    assert record["ruleset"] == "hg2002" and record["rules"]["ruleset"] == "hg2002"
    assert sorted(record["bonus_deck"]) == list(range(79, 91)) and "menhir_deck" not in record
    assert_same_game(game, Game.from_record(record))
    assert_same_game(game, Game.from_record(record, ruleset="hg2002"))


def test_record_round_trip_mid_game_and_upto() -> None:
    """A game stopped mid-way (after some bonus turn) replays exactly, and ``upto`` replays a prefix."""
    game = random_game(3, seed=11, moves=80)
    assert not game.is_over and [e for e in game.events if e["type"] == "BONUS_EXTRA_TURN"]
    record = json.loads(json.dumps(game.to_record()))
    assert_same_game(game, Game.from_record(record))
    prefix = random_game(3, seed=11, moves=50)
    assert_same_game(prefix, Game.from_record(record, upto=50))


def test_record_flags_round_trip() -> None:
    """The classic flags travel with the record (K11, KQ18)."""
    game = Game(2, seed=7, ruleset="hg2002", extra_turn_after_last_tile=False, hut_targets="all_water_zones")
    game.step(game.legal_actions()[0])
    again = Game.from_record(json.loads(json.dumps(game.to_record())))
    assert again.rules == game.rules and again.rules.extra_turn_after_last_tile is False
    assert_same_game(game, again)


def test_a_classic_record_never_replays_as_hg2020() -> None:
    """The record names its ruleset; replaying it as another is refused, whichever way it is asked."""
    record = random_game(2, seed=5, moves=30).to_record()
    with pytest.raises(ValueError, match="the record is a game of 'hg2002', not 'hg2020'"):
        Game.from_record(record, ruleset="hg2020")
    relabelled = {**record, "ruleset": "hg2020"}
    with pytest.raises(ValueError, match=r"'rules\.ruleset' 'hg2002' differs from 'ruleset' 'hg2020'"):
        Game.from_record(relabelled)


def test_a_menhir_deck_instead_of_the_bonus_deck_is_refused() -> None:
    """hg2002 has a bonus deck: a record giving its extra deck as ``menhir_deck`` is refused."""
    record = random_game(2, seed=5, moves=30).to_record()
    renamed = {key: value for key, value in record.items() if key != "bonus_deck"}
    renamed["menhir_deck"] = record["bonus_deck"]
    with pytest.raises(ValueError, match="'bonus_deck' must be a list of tile ids"):
        Game.from_record(renamed)


def test_a_record_with_a_menhir_deck_key_is_refused() -> None:
    """hg2002 has no menhir deck: a record carrying ``menhir_deck`` (beside its bonus deck) is corrupt and
    refused with a ValueError naming the key, not replayed with the key silently ignored."""
    record = random_game(2, seed=5, moves=30).to_record()
    with pytest.raises(ValueError, match="'menhir_deck'"):
        Game.from_record({**record, "menhir_deck": [79, 80]})
