"""A ruleset is one folder: ``toy`` (tests/rulesets/toy/, a tiny game with a decision and a per-game array
of its own) plays through every interface of hg_env with no edit outside its folder. The fixture only
registers its folder (``hg_env.register_ruleset``), as a user's ruleset kept elsewhere would be."""

from __future__ import annotations

import dataclasses
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test  # imported quietly first by conftest.py

import hg_env
from hg_env import aec
from hg_env.agents.base import make_agent
from hg_env.cli import build_parser
from hg_env.core import ruleset as ruleset_module
from hg_env.core.observation import Observer
from hg_env.game import Game
from hg_env.play import help_text
from hg_env.render import ansi_status, decision_words
from hg_env.replay import positions
from tests.test_env import API_TEST_WARNINGS

FOLDER = Path(__file__).parent / "rulesets"


def _forget_toy() -> None:
    """Undo the registration: the shipped rulesets alone again."""
    ruleset_module._REGISTERED.pop("toy", None)
    for name in ("hg_env.rulesets.toy", "hg_env.rulesets.toy.presentation"):
        sys.modules.pop(name, None)
    ruleset_module._forget()


@pytest.fixture(scope="module")
def toy() -> Iterator[str]:
    yield hg_env.register_ruleset(FOLDER / "toy")  # the public way to add a ruleset kept elsewhere
    _forget_toy()


def stash_action(game: Game) -> int | None:
    """The legal stash action of the seat to move, if any."""
    first, end = game.layout.segment("stash")
    return next((a for a in game.legal_actions() if first <= a < end), None)


def play_stashing(seed: int) -> Game:
    """A whole game in which every seat stashes whenever it may, and otherwise takes the first legal move."""
    game = Game(2, seed=seed, ruleset="toy")
    while not game.is_over:
        action = stash_action(game)
        game.step(game.legal_actions()[0] if action is None else action)
    return game


def test_it_is_found_beside_the_shipped_rulesets(toy: str) -> None:
    assert ruleset_module.rulesets() == ("hg2020", "hg2002", "carcassonne", toy)  # after them: its ``listed``
    assert aec.toy_env(num_players=2).unwrapped.rules.ruleset == toy  # the factory its presentation names
    assert "stash 1" in help_text(toy)


def test_its_decision_and_array_play_through_game(toy: str) -> None:
    game = Game(2, seed=1, ruleset=toy)
    assert game.state.stash.shape == (1, 5)  # its per-game array: one count per seat
    first, end = game.layout.segment("stash")
    assert end - first == 2 and game.layout.encode(("stash", 1)) == first + 1
    game.step(game.legal_actions()[0])
    assert game.phase == "occupy"
    seat = game.current_player
    assert stash_action(game) == first + 1  # the count 0 is never offered
    assert game.describe(first + 1) == "stash the tile"
    game.step(first + 1)
    assert game.state.stash[0].tolist() == [1 if k == seat else 0 for k in range(5)]
    assert game.current_player != seat  # the tile is done: the next seat's turn

    stashed = play_stashing(seed=1)
    assert stashed.state.stash[0, :2].tolist() == [2, 2]  # at most twice a game: then it is not offered
    assert sum(first <= a < end for a in stashed.history) == 4


def test_final_scoring_pays_for_each_stashed_tile(toy: str) -> None:
    """The same last move with and without the stash: the scores differ by 3 points a stashed tile."""
    whole = play_stashing(seed=1)
    record = whole.to_record()
    last = len(record["decisions"]) - 1
    stashed, cleared = Game.from_record(record, upto=last), Game.from_record(record, upto=last)
    cleared.state.stash[:] = 0
    for game in (stashed, cleared):
        game.apply_decision(record["decisions"][last])
        assert game.is_over
    assert stashed.scores == whole.scores
    assert [a - b for a, b in zip(stashed.scores, cleared.scores)] == [6, 6]


def test_its_array_is_in_the_observation_and_in_copies(toy: str) -> None:
    game = play_stashing(seed=2)
    spec = ruleset_module.get_ruleset(toy)
    observer = Observer(spec)
    obs = observer.observe(game.state, np.array([0]), np.zeros(1, dtype=np.int64))
    info = observer.decode_board(obs[-1], game.rules.reach)["info"]
    assert [info[f"stash_p{seat}"] for seat in range(5)] == [2, 2, 0, 0, 0]
    assert game.state.copy().stash.tolist() == game.state.stash.tolist()


@pytest.mark.parametrize("batched", [False, True])
def test_its_per_seat_array_is_seen_from_the_observers_seat(toy: str, batched: bool) -> None:
    """Like the scores and supplies, a per-seat array reads from the observer: p0 is its own seat, p1 the
    next in turn order (the batched and the one-game paths alike)."""
    game = Game(3, seed=0, ruleset=toy)
    game.state.stash[0, :3] = [1, 2, 0]  # seats 0, 1, 2 stashed 1, 2 and no tiles
    observer = Observer(ruleset_module.get_ruleset(toy))
    state = game.state.take(np.zeros(2 if batched else 1, dtype=np.intp))
    for seat, expected in [(0, [1, 2, 0]), (1, [2, 0, 1]), (2, [0, 1, 2])]:
        seats = np.full(state.batch_size, seat)
        obs = observer.observe(state, np.arange(state.batch_size), seats)
        for one in obs:
            info = observer.decode_board(one, game.rules.reach)["info"]
            assert [info[f"stash_p{k}"] for k in range(5)] == [*expected, 0, 0], seat


def test_a_record_round_trips_and_replays(toy: str) -> None:
    game = play_stashing(seed=3)
    record = game.to_record()
    assert record["ruleset"] == toy and ["stash", 1] in record["decisions"]
    again = Game.from_record(record)
    assert again.scores == game.scores and again.history == game.history
    assert again.state.stash.tolist() == game.state.stash.tolist()
    *_, last = positions(record)
    assert last.is_over and last.scores == game.scores


def test_the_env_passes_pettingzoo_api_test(toy: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(hg_env.env(num_players=2, ruleset=toy), num_cycles=100)
    assert {str(w.message) for w in caught} <= set(API_TEST_WARNINGS)


def test_the_env_renders_as_text_and_as_a_picture(toy: str) -> None:
    text_env = hg_env.env(num_players=2, ruleset=toy, render_mode="ansi")
    text_env.reset(seed=0)
    text = text_env.render()
    assert isinstance(text, str) and "legend (toy)" in text
    pytest.importorskip("PIL")
    picture_env = hg_env.env(num_players=2, ruleset=toy, render_mode="rgb_array")
    picture_env.reset(seed=0)
    for _agent in picture_env.agent_iter(max_iter=4):  # placements and stashes: "stash 1" is last but "none"
        obs, _, terminated, truncated, _ = picture_env.last()
        picture_env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[-2]))
    image = picture_env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8 and image.std() > 0


@pytest.mark.parametrize("spec", ["greedy", "random"])
def test_the_agents_play_whole_games(toy: str, spec: str) -> None:
    for seed in range(3):
        agents = [make_agent(spec, seed=10 * seed + seat) for seat in range(3)]
        game = Game(3, seed=seed, ruleset=toy)
        while not game.is_over:
            mask = game.action_mask()
            action = agents[game.current_player].act(None, mask.copy(), game)
            assert mask[action], f"{spec} chose illegal {game.describe(action)}"
            game.step(action)
        assert game.is_over and len(game.history) >= 6


def test_a_ruleset_may_keep_its_catalogue_in_its_own_folder(tmp_path) -> None:
    """``Ruleset.data_file`` may be a file beside the ruleset's code (a path or an importlib resource), not only a
    name in hg_env/data: the same catalogue read from either place compiles to the same tables."""
    import dataclasses

    import numpy as np

    from hg_env.core.ruleset import get_ruleset
    from hg_env.core.tiles import load_catalogue

    shipped = get_ruleset("hg2002")
    own = tmp_path / "tiles.json"
    own.write_text(json.dumps(load_catalogue(shipped.data_file)), encoding="utf-8")
    moved = dataclasses.replace(shipped, data_file=own)
    assert load_catalogue(own) == load_catalogue(shipped.data_file)
    for table in ("TILE_KIND", "TILE_ZONE", "ZONE_TYPE", "ZONE_FISH"):
        assert np.array_equal(getattr(moved.tiles, table), getattr(shipped.tiles, table)), table


def test_an_extra_deck_brings_the_flags_the_engine_reads(toy: str) -> None:
    """The toy lists no ``extra_turn_after_last_tile``, but has an extra deck: it gets the flag (EXTRA_DECK_FLAGS);
    a ruleset that lists it keeps its own citation, and one without an extra deck has none."""
    from hg_env.core.rules import Rules

    assert "extra_turn_after_last_tile" in Rules.flags_of(toy)
    assert Rules(ruleset=toy, extra_turn_after_last_tile=False).extra_turn_after_last_tile is False
    assert ruleset_module.get_ruleset("hg2002").flags["extra_turn_after_last_tile"].doc.startswith("K11")
    assert "extra_turn_after_last_tile" not in Rules.flags_of("carcassonne")


def test_its_decision_is_taken_by_name_through_game(toy: str) -> None:
    """``Game.decide`` / ``Game.legal_choices`` take and list any declared decision by its name, with clear errors."""
    game = Game(2, seed=1, ruleset=toy)
    assert game.legal_choices("stash") == []  # asked in the occupy phase only
    with pytest.raises(ValueError, match=r"^decide\('stash', 1\): not the occupy phase"):
        game.decide("stash", 1)
    game.step(game.legal_actions()[0])
    assert game.legal_choices("stash") == [1]
    with pytest.raises(ValueError, match=r"^decide\('stash', 0\): choose one of \[1\]"):
        game.decide("stash", 0)
    with pytest.raises(ValueError, match="stash cannot be declined here"):
        game.decide("stash", None)
    with pytest.raises(ValueError, match=r"toy declares no decision 'retake'; its decisions: \['stash'\]"):
        game.legal_choices("retake")
    seat = game.current_player
    game.decide("stash", 1)
    assert game.state.stash[0, seat] == 1 and game.decisions()[-1] == ["stash", 1]


def test_its_phases_are_its_own(toy: str) -> None:
    """The toy declares no phase of its own: its observation has place, occupy and over, none of 2020's."""
    observer = Observer(ruleset_module.get_ruleset(toy))
    assert [f for f in observer.info_fields if f.startswith("phase_")] == ["phase_place", "phase_occupy", "phase_over"]


def test_the_text_board_offers_its_decision_beside_the_occupants(toy: str) -> None:
    """The occupy prompt lists each declared decision asked now, in its presentation's words, else in its own."""
    game = Game(2, seed=1, ruleset=toy)
    game.step(game.legal_actions()[0])
    who = f"P{game.current_player}"
    prompt = next(line for line in ansi_status(game).splitlines() if line.startswith(who + " may"))
    assert prompt.endswith(", or stash the tile (stash 1)")
    stash = game.rules.spec.decision("stash")
    assert decision_words(game, dataclasses.replace(stash, name="hoard")) == "hoard"  # no words: its name
    assert decision_words(game, dataclasses.replace(stash, name="hoard", noun="tile")) == "hoard their tile"


def test_hgenv_help_lists_it_by_its_title(toy: str) -> None:
    """``hgenv --help`` names the rulesets found, each by its own title: no list of names in the CLI."""
    description = build_parser().description
    assert f"{toy} (Toy (a test-only ruleset))" in description
    assert "hg2020 (Hunters & Gatherers (2020), the default)" in description
