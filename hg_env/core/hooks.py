"""The rule functions a ruleset may supply: one ``Protocol`` per hook, and the default the engine uses
when the ruleset leaves it out.

The engine calls every hook unconditionally (there is no "does this ruleset have X" test): a ruleset
without a rule of its own gets the default below, which is the shared turn flow doing nothing more.
``g`` is always an int array of the games a call acts on (each game once), as in ``hg_env.core.engine``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from hg_env.core.tiles import KIND_EXTRA, KIND_REGULAR, TileSet

if TYPE_CHECKING:
    from hg_env.core.rules import Rules
    from hg_env.core.state import State


# ---------------------------------------------------------------- declared decisions (ruleset.Decision)


class DecisionOptions(Protocol):
    def __call__(self, state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The legal operands of games g (all in the decision's phase) as ``(position in g, operand)``
        pairs, ordered by position and then operand (an operand: a board cell, or a count)."""
        ...


class DecisionApply(Protocol):
    def __call__(self, state: State, g: np.ndarray, operand: np.ndarray) -> np.ndarray:
        """Carry out the decision in games g, one legal operand each (-1: "none", in the decision's own
        phase). Returns the games whose tile is now done (the engine scores them and moves on)."""
        ...


class DescribeDecision(Protocol):
    def __call__(self, decision: tuple) -> str:
        """A decoded decision (``("retake", x, y)``, ``("pit", k)``) as a short move string."""
        ...


# ---------------------------------------------------------------- setup


class PiecesFor(Protocol):
    def __call__(self, rules: Rules) -> tuple[int, int, int]:
        """Pawns, huts and abbots per player in a game with these rules (a flag may remove some)."""
        ...


class DeckTiles(Protocol):
    def __call__(self, tiles: TileSet, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
        """The tiles of the regular deck and of the extra deck (menhir / bonus tiles)."""
        ...


class Deal(Protocol):
    def __call__(self, tiles: TileSet, rules: Rules, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """A new game's regular and extra decks, in draw order, shuffled with ``rng``."""
        ...


class DealRank(Protocol):
    def __call__(self, tiles: TileSet, rules: Rules) -> np.ndarray:
        """[T] the order the deal imposes: a tile of lower rank is always drawn before one of higher rank
        (a search's re-deal keeps it); all equal for a plain shuffle."""
        ...


class CheckDeckOrder(Protocol):
    def __call__(self, tiles: TileSet, rules: Rules, deck: np.ndarray) -> None:
        """Raise ValueError naming the rule a given regular deck order breaks; return for any legal order."""
        ...


class StartTile(Protocol):
    def __call__(self, tiles: TileSet, rules: Rules) -> int:
        """The tile placed at the origin before the first turn."""
        ...


def printed_pieces(rules: Rules) -> tuple[int, int, int]:
    """The pieces the ruleset lists (``Ruleset.pieces``), whatever the flags."""
    return rules.spec.pieces


def decks_by_kind(tiles: TileSet, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """The regular tiles and the extra tiles of the catalogue, by tile kind."""
    return tiles.tiles_of_kind(KIND_REGULAR), tiles.tiles_of_kind(KIND_EXTRA)


def shuffled_decks(tiles: TileSet, rules: Rules, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Each deck of ``Ruleset.deck_tiles`` shuffled on its own (R1.5): the regular one first."""
    regular, extra = rules.spec.deck_tiles(tiles, rules)
    return rng.permutation(regular), rng.permutation(extra)


def no_deal_rank(tiles: TileSet, rules: Rules) -> np.ndarray:
    """Every tile of equal rank: any order may be dealt."""
    return np.zeros(tiles.num_tiles)


def any_deck_order(tiles: TileSet, rules: Rules, deck: np.ndarray) -> None:
    """Any order of the regular tiles is legal."""


def catalogue_start_tile(tiles: TileSet, rules: Rules) -> int:
    """The catalogue's start tile."""
    return tiles.START_TILE


# ---------------------------------------------------------------- the turn


class OccupantTable(Protocol):
    def __call__(self, tiles: TileSet, rules: Rules) -> np.ndarray:
        """[T, Ruleset.occupy_width] bool: the occupant targets each tile offers (no default: every ruleset
        says where its pieces may stand)."""
        ...


class FilterPlacements(Protocol):
    def __call__(self, state: State, g: np.ndarray, tile: np.ndarray, fits: np.ndarray) -> np.ndarray:
        """The placements of tiles ``tile`` (one per game of ``g``) the rules allow beyond edge matching.

        ``fits`` [G, L] uint32 holds, per frontier slot 0..L-1 (``state.frontier[g, :L]``), the four
        rotations' edge-matching fits as bytes 0/1 of the word (``TileSet.COMPAT_WORDS``); return words
        of the same shape (a copy where changed: the caller's array may be shared)."""
        ...


class AfterPlace(Protocol):
    def __call__(self, state: State, g: np.ndarray) -> np.ndarray:
        """T3: act on the tile just placed in games g (immediate powers); return the games that go on to
        the occupant decision (the others now wait for a decision of the ruleset's own)."""
        ...


class ScoreTurn(Protocol):
    def __call__(self, state: State, g: np.ndarray) -> None:
        """T5: scoring beyond completed forests and rivers (cities, roads), after them."""
        ...


class EndGame(Protocol):
    def __call__(self, state: State, g: np.ndarray) -> np.ndarray:
        """R8.1: the games g have no tile left; return those that go straight on to final scoring (the
        others now wait for a decision of the ruleset's own)."""
        ...


class FinalScoring(Protocol):
    def __call__(self, state: State, g: np.ndarray, choice: np.ndarray | None) -> None:
        """R8.2: add every figure's final points in games g (no default: every ruleset scores its own
        way). ``choice`` is the end-of-game decision taken, one per game, or None."""
        ...


class MeadowScorers(Protocol):
    def __call__(
        self, state: State, g: np.ndarray, roots: np.ndarray, scorers: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Who scores the (game, root) meadows: ``scorers`` [K, seats] is their occupant majority; return
        the scorers and [K] bool where a rule of the ruleset decided instead (an event names it)."""
        ...


def place_only(state: State, g: np.ndarray) -> np.ndarray:
    """No immediate power: every game goes on to the occupant decision."""
    return g


def edge_matching_only(state: State, g: np.ndarray, tile: np.ndarray, fits: np.ndarray) -> np.ndarray:
    """Every edge-matching placement is legal (R4.1)."""
    return fits


def no_turn_scoring(state: State, g: np.ndarray) -> None:
    """Nothing scores in the turn beyond completed forests and rivers."""


def score_at_once(state: State, g: np.ndarray) -> np.ndarray:
    """No decision before final scoring."""
    return g


def majority_scores(
    state: State, g: np.ndarray, roots: np.ndarray, scorers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The occupant majority scores every meadow (R6.1)."""
    return scorers, np.zeros(len(roots), dtype=bool)


# ---------------------------------------------------------------- observation and search


class ObserveAreas(Protocol):
    def __call__(self, state: State, g: np.ndarray, roots: np.ndarray, sums: np.ndarray) -> None:
        """Write the ruleset's own observed values, in place, into the area partition's root rows
        ``sums`` [G, Z, NUM_SUMS] of games g (``roots`` [G, Z] each zone's root)."""
        ...


class EstimateAreas(Protocol):
    def __call__(self, state: State, g: np.ndarray, z: np.ndarray, left: np.ndarray) -> np.ndarray:
        """[K] expected final value of the (game, root) areas to their majority, ``left`` regular tiles to
        come (no default: every ruleset values its own areas; see ``hg_env.core.search``)."""
        ...


def shared_observation(state: State, g: np.ndarray, roots: np.ndarray, sums: np.ndarray) -> None:
    """The shared accumulators as they are."""
