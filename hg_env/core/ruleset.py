"""What makes one game of the Carcassonne family differ from another: a ``Ruleset``.

A ruleset is data plus a small table of rule functions, chosen once per game:

* its tile catalogue (``hg_env/data/<file>``), compiled once into a ``TileSet``;
* its pieces (pawns, huts, abbots per player) and the occupant kinds a player
  may place, with the table of which local zones each may stand on;
* its extra-tile deck (menhir or bonus tiles, or none) and what earns a tile from it
  (a completed forest holding a ``C_TRIGGER`` content: menhirs, gold nuggets);
* its point values (``scoring.Points``) and special powers;
* its own rule flags with their defaults;
* rule functions for the steps that differ (immediate powers after a placement,
  extra in-turn scoring, final scoring, placement restrictions, dealing);
* its decisions beyond place and occupy (``Decision``: 2020's shaman retake and pit-trap
  choice, Carcassonne's abbot recall), each with its phase, action segment, options and effect.

The engine (``hg_env.core.engine``) runs the shared turn flow and calls these
functions; it never branches on the ruleset's name. The rulesets themselves live
in ``hg_env/rulesets/``, one package each; ``get_ruleset(name)`` finds them.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from hg_env.core import hooks
from hg_env.core.areas import AreaTables
from hg_env.core.phases import OCCUPY, OVER, PLACE, SHARED_PHASES
from hg_env.core.scoring import Points
from hg_env.core.seats import MAX_PLAYERS
from hg_env.core.tiles import CatalogueFile, TileSet, Vocabulary, load_catalogue

if TYPE_CHECKING:
    from hg_env.core.rules import Rules  # rules imports this module (get_ruleset); only its type is named here

# RULESETS, the names of the rulesets, is found in hg_env/rulesets/ on first use: ``rulesets()``.
DEFAULT_RULESET = "hg2020"

# Pieces: index into a seat's supply.
# By role, each ruleset naming its own: AREA_PIECE stands in areas and counts in their majorities (pawn,
# meeple), SYSTEM_PIECE on path systems (hut), SPECIAL_PIECE a second area piece the rules treat apart (abbot).
AREA_PIECE, SYSTEM_PIECE, SPECIAL_PIECE = 0, 1, 2
NUM_PIECES = 3


@dataclass(frozen=True)
class Flag:
    """One rule flag: its default and, for a string flag, the allowed values."""

    default: bool | str
    choices: tuple[str, ...] = ()
    doc: str = ""

    def check(self, name: str, value: Any) -> bool | str:
        if isinstance(self.default, bool):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {value!r}")
            return bool(value)
        if value not in self.choices:
            raise ValueError(f"{name} must be one of {self.choices}, got {value!r}")
        return str(value)


# Flags the engine reads in every game with an extra deck (``Ruleset.extra_deck``): such a ruleset has
# them whether it lists them or not; listing one (with its own default or rule citation) overrides it.
EXTRA_DECK_FLAGS: dict[str, Flag] = {
    "extra_turn_after_last_tile": Flag(True, doc="the extra-tile turn earned with the last regular tile is played"),
}


@dataclass(frozen=True)
class OccupantKind:
    """A piece a player may put on the tile just placed, and the local zones it may name."""

    name: str  # as decisions and records call it: "pawn", "hut", "meeple", "abbot"
    piece: int  # AREA_PIECE / SYSTEM_PIECE / SPECIAL_PIECE: the supply it comes from
    slots: int  # local zones 0..slots-1 (the width of its action segment)
    partition: str  # "area" or "system": the partition whose occupants it counts in


@dataclass(frozen=True)
class GameArray:
    """A per-game array a ruleset keeps in the ``State`` beyond the shared ones (2020: the animals the
    hunting trap cancelled, the pit-trap choice's range). The state copies, takes and puts it with the
    rest; ``state.<name>`` reads it."""

    name: str
    shape: tuple[int | str, ...]  # one game's shape; "zones", "tiles", "seats" stand for the ruleset's counts
    dtype: type = np.int8
    info: tuple[str, ...] = ()  # the observation's info fields showing its elements (flattened), if shown

    def game_shape(self, tiles: TileSet) -> tuple[int, ...]:
        """One game's shape in a game of this catalogue."""
        sizes = {"zones": tiles.num_zones, "tiles": tiles.num_tiles, "seats": MAX_PLAYERS}
        return tuple(sizes[d] if isinstance(d, str) else d for d in self.shape)


@dataclass(frozen=True)
class Decision:
    """A decision a ruleset adds to the universal turn (place, occupy, score, next seat, end): 2020's
    shaman retake and pit-trap choice, Carcassonne's abbot recall. It owns a segment of the flat action
    space (after the occupants' segments, in declaration order; ``hg_env.core.actions``); the engine
    offers, checks and applies it through ``options`` and ``apply`` in the games that are in ``phase``
    (its own phase, or the occupy phase beside the occupants)."""

    name: str  # as decision tuples and records call it: ("retake", x, y), ("pit", k)
    phase: int  # the phase it is asked in: OCCUPY (beside the occupants) or a code of its own (hg_env.core.phases)
    # "cell": a figure on the board named by its cell (a tile holds one), decoded as (x, y), recorded with its
    # zone; "count": a number 0..width-1
    operand: str
    width: int  # the segment's width for a "count"; a "cell" takes the board's cells
    options: hooks.DecisionOptions  # the legal operands, compressed
    apply: hooks.DecisionApply  # what a chosen operand (or "none" in its own phase) does
    describe: hooks.DescribeDecision  # a decoded decision in words, for move strings
    noun: str = ""  # what its operand names (the figure a retake takes back), for error messages
    offers_none: bool = False  # in its own phase, "none" (decline) is legal too
    same_tile: bool = False  # asked of the placer before its tile is done: a search looks on through it
    phase_name: str = ""  # its own phase's name (Game.phase, the observation's phase_<name>); "" = its name


@dataclass(frozen=True, eq=False)
class Ruleset:
    """One rule system: see the module docstring. Instances live in ``hg_env/rulesets``."""

    name: str
    title: str
    env_name: str  # the PettingZoo env name, versioned
    data_file: str | CatalogueFile  # a name in hg_env/data, or a file in the ruleset's own folder (load_catalogue)
    vocabulary: Vocabulary
    flags: dict[str, Flag]  # the ruleset's own flags (beyond Rules' common ones)
    pieces: tuple[int, int, int]  # pawns, huts, abbots per player
    occupants: tuple[OccupantKind, ...]
    points: Points
    # Rule functions every ruleset writes (signatures: hg_env.core.hooks).
    occupant_table: hooks.OccupantTable
    final_scoring: hooks.FinalScoring
    estimate_areas: hooks.EstimateAreas
    extra_deck: str | None = None  # name of the extra-tile deck ("menhir", "bonus"), None for none
    powers: tuple[str, ...] = ()  # special powers printed on its tiles
    has_systems: bool = False  # river systems (huts) as a second partition
    decisions: tuple[Decision, ...] = ()  # its decisions beyond place and occupy, in action-space order
    area_names: dict[int, str] = field(default_factory=dict)  # zone type -> what this game calls it
    bonus_event_key: str = "mushroomGroups"  # how a completed forest's scoring event names its C_BONUS count
    # The observation (hg_env.core.observation): names of the side terrains (codes 1, 2, ...; () for the
    # vocabulary's, in code order), the tile content channels as (channel, content) with content one of fish,
    # pools, trigger, bonus or a key of zone_channels (a zone type counted per tile), the area plane groups as
    # (name, partition, zone types).
    terrain_names: tuple[str, ...] = ()
    contents: tuple[tuple[str, str], ...] = ()
    zone_channels: dict[str, int] = field(default_factory=dict)
    observed_areas: tuple[tuple[str, str, tuple[int, ...]], ...] = ()
    fire_power: str | None = None  # the special power whose meadow's tigers eat no deer
    pool_power: str | None = None  # the special power whose path system scores its pools too (2020: raft, R7.18)
    # Animals taken out of play: its GameArray [zones, 4] counting them (shown as the {animal}_cancelled tile
    # channels, taken off the live ones), and the special power that cancels them (none before its tile is placed).
    cancelled_array: str | None = None
    cancel_power: str | None = None
    arrays: tuple[GameArray, ...] = ()  # its own per-game arrays (State.ruleset_arrays)
    # The observation's phase fields when a released env keeps others than its phases (names in order); empty:
    # its phases (``phases``), in code order.
    observed_phases: tuple[str, ...] = ()
    # Rule functions with a default (signatures and defaults: hg_env.core.hooks); the engine calls each.
    pieces_for: hooks.PiecesFor = hooks.printed_pieces
    after_place: hooks.AfterPlace = hooks.place_only
    score_turn: hooks.ScoreTurn = hooks.no_turn_scoring
    meadow_scorers: hooks.MeadowScorers = hooks.majority_scores  # who scores a meadow (2002 shrine), and where
    end_game: hooks.EndGame = hooks.score_at_once
    filter_placements: hooks.FilterPlacements = hooks.edge_matching_only
    observe_areas: hooks.ObserveAreas = hooks.shared_observation
    deal_rank: hooks.DealRank = hooks.no_deal_rank
    deck_tiles: hooks.DeckTiles = hooks.decks_by_kind
    deal: hooks.Deal = hooks.shuffled_decks
    check_deck_order: hooks.CheckDeckOrder = hooks.any_deck_order
    start_tile: hooks.StartTile = hooks.catalogue_start_tile

    def __post_init__(self) -> None:
        if not self.terrain_names:  # the side terrains as its catalogue names them, by code
            terrains = self.vocabulary.terrains
            object.__setattr__(self, "terrain_names", tuple(sorted(terrains, key=terrains.__getitem__)))
        if self.extra_deck:  # the engine reads these flags in a game with an extra deck (EXTRA_DECK_FLAGS)
            object.__setattr__(self, "flags", {**EXTRA_DECK_FLAGS, **self.flags})
        names = list(self.phases.values())
        if len(set(names)) != len(names) or not set(names) <= set(self.observed_phases or names):
            raise ValueError(f"ruleset {self.name!r}: its phases {names} must have distinct names, all observed")

    @cached_property
    def phases(self) -> dict[int, str]:
        """{phase code: name} of every phase of its games, in code order: place, occupy and over, and the
        own phases of its declared decisions (hg_env.core.phases)."""
        own = {}
        for decision in self.decisions:
            if decision.phase in (PLACE, OVER):
                raise ValueError(f"decision {decision.name!r}: its phase must be OCCUPY or one of its own")
            if decision.phase != OCCUPY:
                name = decision.phase_name or decision.name
                if own.setdefault(decision.phase, name) != name:
                    raise ValueError(f"phase {decision.phase} has two names: {own[decision.phase]!r}, {name!r}")
        return dict(sorted({**SHARED_PHASES, **own}.items()))

    @cached_property
    def tiles(self) -> TileSet:
        """The compiled catalogue (built on first use, then shared)."""
        return TileSet(load_catalogue(self.data_file), self.vocabulary)

    @cached_property
    def areas(self) -> AreaTables:
        """The partitions' templates and tables (built on first use, then shared)."""
        return AreaTables(self.tiles, self.points, self.has_systems)

    @cached_property
    def decisions_in(self) -> dict[int, tuple[Decision, ...]]:
        """{phase: the declared decisions asked in it}."""
        out: dict[int, tuple[Decision, ...]] = {}
        for decision in self.decisions:
            out[decision.phase] = (*out.get(decision.phase, ()), decision)
        return out

    def decision(self, name: str) -> Decision | None:
        """The declared decision called ``name``, or None."""
        return next((d for d in self.decisions if d.name == name), None)

    @property
    def occupy_width(self) -> int:
        """Columns of ``State.occupy_mask``: every occupant kind's slots, in order."""
        return sum(kind.slots for kind in self.occupants)

    def occupant_offsets(self) -> list[int]:
        """First occupy-mask column of each occupant kind."""
        return list(np.cumsum([0] + [k.slots for k in self.occupants])[:-1])

    def pieces_by_kind(self) -> list[int]:
        """Pieces per player of each occupant kind, in ``occupants`` order (at most: a flag may remove some)."""
        return [self.pieces[kind.piece] for kind in self.occupants]

    def pieces_of(self, rules: Rules) -> tuple[int, int, int]:
        """Pawns, huts and abbots per player in a game with these rules."""
        return self.pieces_for(rules)

    def default_flags(self) -> dict[str, bool | str]:
        return {name: flag.default for name, flag in self.flags.items()}

    def __repr__(self) -> str:
        return f"<Ruleset {self.name}>"


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called ``name`` (``hg2020``, ``hg2002``, ``carcassonne``); ValueError otherwise."""
    if not isinstance(name, str) or name not in rulesets():  # before the cache, which cannot hash a list
        raise ValueError(f"ruleset must be one of {rulesets()}, got {name!r}")
    return _load_ruleset(name)


def rulesets() -> tuple[str, ...]:
    """The names of the rulesets: every package in ``hg_env/rulesets/``, those registered
    (``register_ruleset``) and those installed under the entry point group ``hg_env.rulesets``, in the
    order their presentations list them (``hg_env.presentation``). Nothing lists them by hand."""
    return globals().get("RULESETS") or _discover()


ENTRY_POINT_GROUP = "hg_env.rulesets"  # an installed package's rulesets: name = "package.module" of the ruleset
_REGISTERED: dict[str, str] = {}  # ruleset name -> where it was registered from (for the error on a clash)


def register_ruleset(where: str | os.PathLike | ModuleType) -> str:
    """Add a ruleset that lives outside ``hg_env/rulesets/`` and return its name: ``where`` is its folder
    (a package holding ``__init__.py`` with ``RULESET``, and ``presentation.py`` if it has one), or its
    module (imported, or its dotted name). The ruleset is then found by name like the shipped ones, as
    ``hg_env.rulesets.<name>``. ValueError if it is no ruleset or its name is taken by another."""
    module = _import_ruleset(where)
    if not isinstance(module.RULESET, Ruleset):
        raise ValueError(f"{where!r}: RULESET must be a hg_env.core.ruleset.Ruleset, got {type(module.RULESET)}")
    name = module.RULESET.name
    alias = f"hg_env.rulesets.{name}"
    if module.__name__.startswith("hg_env.rulesets.") and module.__name__ != alias:  # a folder: named by it
        sys.modules.pop(module.__name__, None)
        raise ValueError(f"{where!r}: its folder is named {module.__name__.rsplit('.', 1)[1]!r}, its RULESET {name!r}")
    known = sys.modules.get(alias)
    if known is not None and known is not module and getattr(known, "RULESET", None) is not module.RULESET:
        raise ValueError(f"{where!r}: a ruleset called {name!r} exists already ({_REGISTERED.get(name, alias)})")
    sys.modules[alias] = module  # found by name from now on, and its presentation beside it
    _REGISTERED[name] = str(where)
    _forget()
    return name


def _import_ruleset(where: str | os.PathLike | ModuleType) -> ModuleType:
    """The module of a ruleset given as a folder, a module or a dotted module name (register_ruleset)."""
    if isinstance(where, ModuleType):
        module = where
    elif isinstance(where, os.PathLike) or (isinstance(where, str) and os.sep in where):
        folder = Path(where)
        init = folder / "__init__.py"
        if not init.is_file():
            raise ValueError(f"{str(folder)!r} is no ruleset folder: it holds no __init__.py")
        alias = f"hg_env.rulesets.{folder.name}"
        if alias in sys.modules:  # registered before (or shipped): the folder name is its ruleset name
            module = sys.modules[alias]
            if Path(getattr(module, "__file__", "") or "").resolve() != init.resolve():
                raise ValueError(f"{str(folder)!r}: a ruleset called {folder.name!r} exists already")
            return module
        spec = importlib.util.spec_from_file_location(alias, init, submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None  # a file location always gives a loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[alias] = module  # before it runs: its own modules import it by this name
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[alias]
            raise
    elif isinstance(where, str):
        module = importlib.import_module(where)
    else:
        raise ValueError(f"register_ruleset takes a folder, a module or a module name, got {where!r}")
    if not hasattr(module, "RULESET"):
        raise ValueError(f"{where!r} defines no RULESET: it is no ruleset")
    return module


def _entry_point_rulesets() -> list[str]:
    """The rulesets installed packages declare under ``ENTRY_POINT_GROUP``, registered (each once)."""
    from importlib.metadata import entry_points

    names = []
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        names.append(entry.name if entry.name in _REGISTERED else register_ruleset(entry.value))
    return names


@cache
def _discover() -> tuple[str, ...]:
    import pkgutil  # here, not at the top: discovery imports the rulesets, and they import this module

    import hg_env.rulesets
    from hg_env.presentation import presentation

    names = {module.name for module in pkgutil.iter_modules(hg_env.rulesets.__path__) if module.ispkg}
    names |= {*_entry_point_rulesets(), *_REGISTERED}
    return tuple(sorted(names, key=lambda name: (presentation(name).listed, name)))


def _forget() -> None:
    """Forget what discovery found (after a registration): the next look finds the rulesets again."""
    from hg_env.presentation import presentation

    for cached in (_discover, _load_ruleset, presentation):
        cached.cache_clear()


def __getattr__(name: str) -> Any:
    """``RULESETS``: ``rulesets()``, found on first use (the rulesets import this module while it loads)."""
    if name == "RULESETS":
        return rulesets()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _load_ruleset(name: str) -> Ruleset:
    return importlib.import_module(f"hg_env.rulesets.{name}").RULESET


get_ruleset.cache_clear = _load_ruleset.cache_clear  # type: ignore[attr-defined]  # tests swap a ruleset in
