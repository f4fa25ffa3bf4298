"""``toy``: a test-only ruleset that lives in this folder alone (docs/architecture.md's worked example).

The classic Hunters & Gatherers tiles (its catalogue and translator, ``hg_env/data/hg2002_tiles.json``)
dealt as a tiny deck of 6 land tiles and 2 bonus tiles, with 2 pawns and 1 hut a player, and one rule
of its own: instead of putting a figure on the tile just placed, a player may *stash* the tile (the
declared decision ``stash``), at most twice a game. The per-game array ``stash`` counts each seat's
stashed tiles (shown per relative seat); final scoring pays 3 points for each. The tests register this
folder (``hg_env.register_ruleset``), and the engine finds the rest from here.
"""

from __future__ import annotations

import numpy as np

from hg_env.core.rules import Rules
from hg_env.core.ruleset import Decision, GameArray, Ruleset
from hg_env.core.state import OCCUPY, State
from hg_env.core.tiles import KIND_EXTRA, KIND_REGULAR, TileSet, Vocabulary
from hg_env.rulesets import hunters_gatherers as hg
from hg_env.rulesets.hg2002 import RULESET as CLASSIC
from hg_env.rulesets.hg2002 import SPECIALS, zone_facts

LAND_TILES, BONUS_TILES = 6, 2  # the deck: the catalogue's first land and bonus tiles
MOST_STASHED = 2  # a seat may stash this many tiles a game
STASH_POINTS = 3  # final points for each stashed tile


def tiny_decks(tiles: TileSet, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """The first few land tiles and bonus tiles of the catalogue (a game of a few turns)."""
    return tiles.tiles_of_kind(KIND_REGULAR)[:LAND_TILES], tiles.tiles_of_kind(KIND_EXTRA)[:BONUS_TILES]


def stash_options(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Games g (in the occupy phase) whose seat to move has stashed fewer than ``MOST_STASHED`` tiles
    may stash (the count operand 1; 0 is never offered)."""
    stashed = state.stash[g, state.current[g].astype(np.intp)]
    where = np.flatnonzero(stashed < MOST_STASHED)
    return where, np.ones(len(where), dtype=np.int64)


def stash(state: State, g: np.ndarray, operand: np.ndarray) -> np.ndarray:
    """The seat to move stashes the tile just placed instead of a figure: its tile is done."""
    state.stash[g, state.current[g].astype(np.intp)] += 1
    return g


def final_scoring(state: State, g: np.ndarray, choice: np.ndarray | None) -> None:
    """The classic final scoring, then ``STASH_POINTS`` for each stashed tile."""
    hg.final_scoring(state, g, choice)
    state.score[g] += (STASH_POINTS * state.stash[g]).astype(state.score.dtype)


STASH = Decision(
    name="stash",
    phase=OCCUPY,  # beside the occupants: "pawn 2", "hut 0", "stash 1" or "none"
    operand="count",
    width=2,
    options=stash_options,
    apply=stash,
    describe=lambda decision: "stash the tile",
)

RULESET = Ruleset(
    name="toy",
    title="Toy (a test-only ruleset)",
    env_name="toy_v0",
    data_file=CLASSIC.data_file,  # the catalogue ...
    vocabulary=Vocabulary(  # ... and its translator into the shared zone facts
        terrains=hg.TERRAINS, kinds={**hg.KINDS, "bonus": KIND_EXTRA}, zone_facts=zone_facts, specials=SPECIALS
    ),
    # the classic hut flag; with an extra deck it gets extra_turn_after_last_tile too (EXTRA_DECK_FLAGS)
    flags={"hut_targets": CLASSIC.flags["hut_targets"]},
    pieces=(2, 1, 0),
    occupants=hg.OCCUPANTS,
    points=CLASSIC.points,
    extra_deck="bonus",
    powers=SPECIALS,
    has_systems=True,
    decisions=(STASH,),
    arrays=(GameArray("stash", ("seats",), info=tuple(f"stash_p{seat}" for seat in range(5))),),
    area_names=hg.AREA_NAMES,
    contents=CLASSIC.contents,
    observed_areas=hg.OBSERVED_AREAS,
    fire_power="fire",
    occupant_table=hg.occupant_table,
    final_scoring=final_scoring,
    estimate_areas=hg.estimate_areas,
    meadow_scorers=hg.shrine_scorers,
    deck_tiles=tiny_decks,
)
