"""Rulesets are found in hg_env/rulesets/ and show themselves through their own presentation module:
nothing outside a ruleset's folder lists its name, env id, factory, legend or help lines."""

from __future__ import annotations

import dataclasses
import pkgutil
import re
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium
import pytest

import hg_env
import hg_env.rulesets
from hg_env import aec, render
from hg_env.core import ruleset as ruleset_module
from hg_env.game import Game
from hg_env.play import help_text
from hg_env.presentation import Presentation, presentation
from hg_env.render import (
    _contents_text,
    ansi_legend,
    deck_text,
    describe_event,
    occupant_role,
    tile_zones,
    zone_chars,
    zone_glyphs,
    zone_summary,
)
from hg_env.sketch import Sketch


def test_rulesets_are_the_packages_of_the_rulesets_folder_in_their_listed_order() -> None:
    packages = {m.name for m in pkgutil.iter_modules(hg_env.rulesets.__path__) if m.ispkg}
    assert set(hg_env.RULESETS) == packages
    assert hg_env.RULESETS == ("hg2020", "hg2002", "carcassonne")  # each presentation's ``listed``
    assert [presentation(r).listed for r in hg_env.RULESETS] == sorted(presentation(r).listed for r in packages)


@pytest.fixture
def extra_ruleset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A ruleset folder ``tiny`` (the hg2002 rules under another name) dropped beside the others."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        textwrap.dedent(
            """
            import dataclasses

            from hg_env.rulesets.hg2002 import RULESET as CLASSIC

            RULESET = dataclasses.replace(CLASSIC, name="tiny", env_name="tiny_v3")
            """
        )
    )
    (folder / "presentation.py").write_text(
        textwrap.dedent(
            """
            import dataclasses

            from hg_env.presentation import Glyph, Presentation
            from hg_env.rulesets.hg2002.presentation import drawn_zone


            def tiny_zone(zone, tile):
                drawn = drawn_zone(zone, tile)
                if drawn.type != "forest":
                    return drawn
                return dataclasses.replace(drawn, name="sacred grove", glyphs=("menhir",), notes=("(tiny)",))


            PRESENTATION = Presentation(
                listed=7,
                gym_name="Tiny",
                factory="tiny_env",
                legend="legend: tiny",
                occupy_help="  tiny help",
                zone=tiny_zone,
                glyphs={"menhir": Glyph("!", "stone", lambda *args: None, 0.2, (0.05, 0.05))},
                events={"FOREST_SCORED": lambda told: f"{told.who('scorers')} cleared a grove"},
            )
            """
        )
    )
    monkeypatch.setattr(hg_env.rulesets, "__path__", [*hg_env.rulesets.__path__, str(tmp_path)])
    for cache in (ruleset_module._discover, ruleset_module._load_ruleset, presentation):
        cache.cache_clear()
    yield "tiny"
    for name in ("hg_env.rulesets.tiny", "hg_env.rulesets.tiny.presentation"):
        sys.modules.pop(name, None)
    monkeypatch.undo()
    for cache in (ruleset_module._discover, ruleset_module._load_ruleset, presentation):
        cache.cache_clear()


def test_a_new_ruleset_folder_is_found_and_shown_without_a_shared_edit(extra_ruleset: str) -> None:
    assert ruleset_module.rulesets() == ("hg2020", "hg2002", "carcassonne", "tiny")
    assert ruleset_module.get_ruleset("tiny").env_name == "tiny_v3"
    make = aec.tiny_env  # the factory its presentation names
    assert make.__name__ == "tiny_env" and "tiny_v3" in make.__doc__
    assert make(num_players=2).unwrapped.rules.ruleset == "tiny"
    assert "tiny_env" in dir(aec)
    assert "  tiny help" in help_text("tiny")
    assert ansi_legend(Game(2, seed=0, ruleset="tiny")) == "legend: tiny"
    # the pictures and texts read the tiles through the ruleset's own translator of its catalogue
    tile, local = next(
        (t, z) for t in range(1, 90) for z, zone in tile_zones("hg2002", t).items() if zone.type == "forest"
    )
    assert zone_summary("tiny", tile, local) == "sacred grove (tiny)"
    assert zone_glyphs("tiny", tile, local) == ["menhir"]
    event = {"type": "FOREST_SCORED", "scorers": [1], "points": 4, "tileCount": 2}
    assert describe_event(event, ruleset="tiny") == "P1 cleared a grove"  # its own words for its events
    assert describe_event(event, ruleset="hg2002") == describe_event(event) == "P1 +4: forest of 2 tiles"
    assert zone_chars("tiny", tile, 0)[local] == "f" and zone_chars("hg2002", tile, 0)[local] == "#"  # no signs: f
    assert "!" in _contents_text("tiny", tile, {}) and "!" not in _contents_text("hg2002", tile, {})  # its own art
    assert occupant_role("hg2002", tile, "pawn", local) == "gatherer"  # hg2002's roles (R5.1) ...
    assert occupant_role("tiny", tile, "pawn", local) == "pawn"  # ... are not tiny's, which names none
    with warnings.catch_warnings():  # the shipped envs are registered again, over themselves
        warnings.simplefilter("ignore")
        hg_env._register()
    assert gymnasium.spec("hg_env/Tiny-v3").kwargs == {"ruleset": "tiny"}
    del gymnasium.registry["hg_env/Tiny-v3"]


def test_a_ruleset_without_a_presentation_module_gets_the_defaults() -> None:
    assert presentation("no_such_ruleset") == Presentation()
    assert "pawn" not in Presentation().occupy_help  # the defaults name no ruleset's figures


def test_the_deck_note_is_the_rulesets_own() -> None:
    """The river tiles still to come are Carcassonne's note on its deck (``Presentation.deck_note``), read by
    the shared text; a ruleset that writes none says only the deck's size."""
    river = Game(2, seed=1, ruleset="carcassonne", river=True)
    assert deck_text(river) == f"{river.deck_sizes[0]} tiles, the next 10 river tiles"  # V1.1: source placed
    assert presentation("carcassonne").deck_note(river) == ", the next 10 river tiles"
    plain = Game(2, seed=1, ruleset="carcassonne")
    assert deck_text(plain) == f"{plain.deck_sizes[0]} tiles" and Presentation().deck_note(river) == ""


def test_the_shipped_factories_and_ids_come_from_the_presentations() -> None:
    assert aec.deck_options() == ("regular_deck", "menhir_deck", "bonus_deck")  # from each ruleset's extra deck
    assert aec.classic_env(num_players=2).unwrapped.rules.ruleset == "hg2002"
    assert aec.carcassonne_env.__name__ == "carcassonne_env"
    with pytest.raises(AttributeError, match="no attribute 'chess_env'"):
        aec.chess_env  # noqa: B018


class _Recorder:
    """An ImageDraw stand-in that keeps the texts drawn."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def text(self, xy, text: str, **kwargs) -> None:
        self.texts.append(text)

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: None  # shapes: not recorded


def test_the_picture_key_shows_the_rulesets_own_points() -> None:
    """Carcassonne's key reads its points from the ruleset (a city's per tile, a coat of arms), not from
    numbers written in render.py; the Hunters & Gatherers key its animals' values."""
    pytest.importorskip("PIL")
    game = Game(2, seed=0, ruleset="carcassonne")
    draw = _Recorder()
    presentation("carcassonne").key(draw, game, 0, 0)
    points = game.rules.spec.points
    assert f"city  {points.enclosure_tile} a tile" in draw.texts and "coat of arms  +2" in draw.texts
    assert "garden  9 (abbot)" in draw.texts
    game.rules.spec.__dict__["points"] = dataclasses.replace(points, enclosure_tile=5)  # a variant's points
    try:
        draw = _Recorder()
        presentation("carcassonne").key(draw, game, 0, 0)
        assert "city  5 a tile" in draw.texts
    finally:
        game.rules.spec.__dict__["points"] = points
    draw = _Recorder()
    presentation("hg2002").key(draw, Game(2, seed=0, ruleset="hg2002"), 0, 0)
    assert "mammoth  2" in draw.texts and "gold nugget" in draw.texts


@pytest.mark.parametrize("ruleset", hg_env.RULESETS)
def test_each_rulesets_part_of_the_env_card_is_in_it_and_true(ruleset: str) -> None:
    """The env card (``help(hg_env.aec)``) holds each ruleset's own card, whose sizes are the env's."""
    card = " ".join(presentation(ruleset).card.split())
    assert card and card in " ".join(aec.__doc__.split())
    factor, extra = map(int, re.search(r"Discrete\((\d)N \+ (\d+)\)", card).groups())
    assert hg_env.action_layout(12, ruleset).size == factor * 625 + extra
    channels = int(re.search(r"observation ``\((\d+), 25, 25\)``", card).group(1))
    assert len(hg_env.channel_names(ruleset, 12)) == channels
    assert f"hg_env/{presentation(ruleset).gym_name}-v0" in aec.__doc__


@pytest.mark.parametrize("name", ["hg2020", "hg2002", "carcassonne"])
def test_each_ruleset_draws_its_figures_in_its_own_artwork(name: str) -> None:
    """Issue 29: a piece's artwork is its ruleset's (``Presentation.figures``: H&G's hut, Carcassonne's abbot),
    one per piece it deals; the pictures draw a figure with it, and render keeps no game's figure artwork."""
    figures = presentation(name).figures
    assert set(figures) == {kind.piece for kind in ruleset_module.get_ruleset(name).occupants}
    for piece, artwork in figures.items():
        drawn, own = Sketch(), Sketch()
        render._figure(drawn, name, piece, True, 40.0, 40.0, 20.0, (1, 2, 3))
        artwork(own, 40.0, 40.0, 20.0, (1, 2, 3), True)
        assert drawn.marks == own.marks != []
    assert not [old for old in ("_pawn", "_hut", "_abbot") if hasattr(render, old)]


def test_a_piece_with_no_artwork_of_its_ruleset_is_drawn_as_a_person(monkeypatch: pytest.MonkeyPatch) -> None:
    """A presentation that names no figures (the default) still gets every piece drawn: as ``render.person``."""
    monkeypatch.setattr(render, "presentation", lambda name: Presentation())
    drawn, person = Sketch(), Sketch()
    render._figure(drawn, "hg2020", ruleset_module.SYSTEM_PIECE, False, 10.0, 10.0, 16.0, (1, 2, 3))
    render.person(person, 10.0, 10.0, 16.0, (1, 2, 3), False)
    assert drawn.marks == person.marks != []
