"""Decks given in draw order (``Game(regular_deck=...)``, the envs' reset options, records,
``engine.new_games``) are checked in one place (``hg_env.core.state.check_given_decks``): only tiles of
that deck, each once, in an order the rules allow (docs/rules/README.md "Decks given in draw order";
carcassonne V1.2, V1.3). A forbidden deck is refused with one line naming the rule, and nothing changes."""

from __future__ import annotations

import pytest

import hg_env
from hg_env import Game, Rules
from hg_env.core import engine

RIVER_RULE = r"river tiles come first, the lake last of them, then the land tiles \(carcassonne V1\.2, V1\.3\)"


# ---------------------------------------------------------------- carcassonne with the river (V1.2, V1.3)


@pytest.mark.parametrize(
    ("deck", "first"),
    [
        ([1, 75, 83, 3], "land tile 1 before river tile 75"),  # a land tile while the river is open
        ([83, 75, 3], "the lake 83 before river tile 75"),  # the lake first, then a river tile thrown away
        ([75, 0, 76], "land tile 0 before river tile 76"),  # the base start tile is a land tile (CQ2)
        ([75, 3, 83], "land tile 3 before the lake 83"),
    ],
)
def test_river_decks_out_of_order_are_refused(deck: list[int], first: str) -> None:
    """V1.2, V1.3: the river tiles first, the lake last of them, then the land tiles."""
    with pytest.raises(ValueError, match=rf"^regular_deck draws {first}: with river=True the {RIVER_RULE}$"):
        Game(2, ruleset="carcassonne", river=True, regular_deck=deck)


@pytest.mark.parametrize("deck", [[75, 76, 83, 0, 3], [75, 83], [3, 1], [76], [83, 2], []])
def test_river_decks_in_order_are_played_as_given(deck: list[int]) -> None:
    """Any part of a legal order is a deck (a scenario need not hold every tile); the first tile is drawn."""
    game = Game(2, ruleset="carcassonne", river=True, regular_deck=deck)
    assert game.state.regular_deck[0, : game.state.regular_len[0]].tolist() == deck
    assert game.tile_to_place == (deck[0] if deck else None)


def test_without_the_river_any_order_of_land_tiles_is_a_deck() -> None:
    """B1.5: one shuffled land deck; no river tile is in it (V1.1), nor the start tile (B1.4)."""
    assert Game(2, ruleset="carcassonne", regular_deck=[3, 1, 0][:2]).tile_to_place == 3
    for tile, kind in [(75, "river tile"), (83, "river lake tile"), (0, "start tile")]:
        with pytest.raises(ValueError, match=rf"^regular_deck holds tile\(s\) \[{tile}\] that are not .*{kind}\)$"):
            Game(2, ruleset="carcassonne", regular_deck=[3, tile])
    with pytest.raises(ValueError, match=r"\[72\] .*72: river source tile"):  # the source is the start tile
        Game(2, ruleset="carcassonne", river=True, regular_deck=[75, 72])


def test_a_forbidden_river_deck_is_refused_everywhere_decks_are_accepted() -> None:
    """The env's reset options, records and the batched core get the same check: the env keeps its game and
    generator, the record is refused, the batch is refused whole."""
    env = hg_env.raw_env(ruleset="carcassonne", river=True)
    env.reset(seed=3)
    before, state = env.game, env.np_random.bit_generator.state
    with pytest.raises(ValueError, match=RIVER_RULE):
        env.reset(options={"regular_deck": [1, 75, 83, 3]})
    assert env.game is before and env.np_random.bit_generator.state == state

    record = Game(2, ruleset="carcassonne", river=True, seed=5).to_record()
    deck = record["regular_deck"]
    with pytest.raises(ValueError, match=RIVER_RULE):
        Game.from_record({**record, "regular_deck": [deck[-1], *deck[:-1]]})  # a land tile on top

    rules = Rules(ruleset="carcassonne", river=True)
    with pytest.raises(ValueError, match="regular_deck draws the lake 83 before river tile 75"):
        engine.new_games(2, rules, seeds=[0, 1], regular_decks=[[75, 83, 3], [83, 75, 3]])


# ---------------------------------------------------------------- Hunters & Gatherers (R1.5, C10)


@pytest.mark.parametrize(
    ("ruleset", "extra", "extra_tile", "start"), [("hg2020", "menhir", 80, 56), ("hg2002", "bonus", 80, 0)]
)
def test_hunters_gatherers_decks_hold_their_own_tiles_in_any_order(
    ruleset: str, extra: str, extra_tile: int, start: int
) -> None:
    """R1.5 / C10: the regular (land) tiles in one deck, the extra tiles in the other, each shuffled: any
    order of a deck's own tiles is a deck; the start tile, the other deck's tiles and repeats are not."""
    game = Game(2, ruleset=ruleset, regular_deck=[9, 3, 1], **{f"{extra}_deck": [extra_tile + 1, extra_tile]})
    assert (game.tile_to_place, game.deck_sizes) == (9, (2, 2))
    bad = [
        (
            {"regular_deck": [3, extra_tile]},
            rf"\[{extra_tile}\] that are not regular tiles of this game \({extra_tile}: {extra} tile\)",
        ),
        ({"regular_deck": [start]}, rf"\[{start}\] that are not regular tiles of this game \({start}: start tile\)"),
        ({f"{extra}_deck": [extra_tile, 3]}, rf"\[3\] that are not {extra} tiles of this game \(3: regular tile\)"),
        ({"regular_deck": [3, 3]}, r"\[3\] more than once"),
    ]
    for decks, message in bad:
        with pytest.raises(ValueError, match=message):
            Game(2, ruleset=ruleset, **decks)
