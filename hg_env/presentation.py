"""How a ruleset shows itself: what ``hg_env/rulesets/<name>/presentation.py`` declares.

The rules (``hg_env.rulesets.<name>.RULESET``) say what a game does; its presentation says how it is
named and drawn: where it is listed, its Gymnasium id and PettingZoo factory, the text board's legends,
the help lines of ``hgenv play``, the translator of its tile catalogue into the zone facts that
``hg_env.render`` draws (``DrawnZone``), how it draws each type of zone (``Terrain``: shapes and colours)
and each of its pieces (``figures``), and its part of the picture's key (its landscape, points and figures).
The shared code reads these and never a ruleset's name.

A ruleset without a ``presentation`` module (a test ruleset) gets ``Presentation()``'s defaults.
This module imports nothing of hg_env: ``hg_env.core.ruleset`` reads ``listed`` to order the rulesets.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any


@dataclass(frozen=True)
class DrawnZone:
    """One zone of a catalogue tile, in the terms the pictures and texts use.

    ``type``: the ruleset's name of the zone's terrain (``meadow``, ``city``, ``lake``, ...).
    ``glyphs``: its signs besides animals and fish, in drawing order (keys of its ``Presentation.glyphs``).
    ``name``: how a summary names it (``menhir forest``); ``notes``: what a summary adds after its animals,
    fish and flow (``with 2 gold nuggets``, ``next to city 1``, ``shaman``). ``special``: a special power
    printed on it. ``spring``: a river that starts on the tile; ``ends``: a river or road that ends on it;
    ``pond``: a river that ends in a lake on its tile (Carcassonne's last river tile).
    """

    zone: int
    type: str
    edges: tuple[str, ...] = ()
    animals: tuple[str, ...] = ()
    fish: int = 0
    rivers: tuple[int, ...] = ()  # a lake: the river zones that feed it
    lake: int | None = None  # a river: the lake zone it runs into
    glyphs: tuple[str, ...] = ()
    name: str = ""
    notes: tuple[str, ...] = ()
    special: str = ""
    spring: bool = False
    ends: bool = False
    pond: bool = False


def plain_zone(zone: dict, tile: dict) -> DrawnZone:
    """The default translator: a catalogue zone's number, type, edges, animals, fish and lake links."""
    return DrawnZone(
        zone=zone["zone"],
        type=zone["type"],
        edges=tuple(zone.get("edges", [])),
        animals=tuple(zone.get("animals", [])),
        fish=int(zone.get("fish", 0)),
        rivers=tuple(zone.get("rivers", [])),
        lake=zone.get("lake"),
        name=zone["type"],
        spring=bool(zone.get("ends_on_tile_without_lake")),
        ends=bool(zone.get("ends_on_tile")),
    )


Color = tuple[int, int, int]
SHAPES = ("ground", "polygon", "stream", "path", "pool", "plot")


@dataclass(frozen=True)
class Terrain:
    """How the pictures draw the zones of one type (``Presentation.terrains``); the drawing knows these
    shapes, never a ruleset's names for them.

    ``shape``: ``ground`` (the background, shared among a tile's zones of the type: meadows, fields),
    ``polygon`` (a cap, corner, band or all-but-one-side outline from the sides it touches: forests,
    cities), ``stream`` (a band of water from side to side, or from a side to its lake, spring or pond),
    ``path`` (a band with verges that ends at the tile's plot, at a walled polygon's gate or at a crossing:
    roads), ``pool`` (a round lake inside the tile) or ``plot`` (a square for a building or garden).
    ``fill`` / ``edge``: its colour and its outline (a forest's edge, a city's walls, a road's verges, the
    water's edge; ground: where two zones of a tile meet). ``width``: a stream's or path's width in tile
    widths. ``walled``: a polygon walled where it meets the other zones, drawn over the paths that end at
    its gate. ``lying``: a pawn there lies down (a farmer). ``spring``: how far before the middle of its
    tile a stream starting there rises, in tile widths. ``pool``: the colour of a stream's pond.
    """

    shape: str
    fill: Color = (200, 200, 200)
    edge: Color | None = None
    width: float = 0.0
    walled: bool = False
    lying: bool = False
    spring: float = 0.2
    pool: Color | None = None

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"a terrain's shape is one of {SHAPES}, got {self.shape!r}")


GROUND = Terrain("ground", (200, 200, 190), (150, 150, 140))  # a zone type its ruleset draws no other way


@dataclass(frozen=True)
class Glyph:
    """A sign on a zone (a menhir, a gold nugget, a coat of arms): how the text board and the picture show it."""

    char: str  # on the text board: "^"
    name: str  # in the picture's key ("" for none: it explains itself)
    draw: Callable[[Any, float, float, float], None]  # (ImageDraw, centre x, centre y, size in pixels)
    size: float  # drawn size, in tile widths
    box: tuple[float, float] = (0.0, 0.0)  # unit-square half size it keeps clear on a tile (not for a plot's sign)


@dataclass(frozen=True)
class PhaseWords:
    """How the texts say what a seat does in the phase of a decision its ruleset declares."""

    board: str  # the text board's line after the seat's name: "may take back one of their pawns (shaman)"
    prompt: str  # ``hgenv play``'s "you ..." line: "the shaman lets you take back one of your pawns"
    picture: str = ""  # the picture's line after the seat's name ("": the phase's name)


def no_deck_note(game: Any) -> str:
    """The default note on the regular deck: nothing beyond its size."""
    return ""


def no_key(draw: Any, game: Any, x0: int, top: int) -> int:
    """The default key of a picture: nothing of its own (the shared marks follow)."""
    return top


@dataclass(frozen=True)
class Presentation:
    """What one ruleset's ``presentation`` module declares as ``PRESENTATION``; see the module docstring."""

    listed: int = 100  # where lists of rulesets (``RULESETS``, ``--ruleset`` choices) put it
    gym_name: str = ""  # ``hg_env/<gym_name>-v<n>`` in Gymnasium's registry ("" for none)
    factory: str = ""  # the name of its ``hg_env.aec`` factory, ``env(ruleset=...)`` ("" for none)
    legend: str = "legend: x,y: the tile to place fits here"  # under the full text board
    compact_legend: str = "legend: * last tile  [ ] the tile to place fits here"  # under the compact board
    # ``hgenv play``'s help line for the occupants
    occupy_help: str = "  KIND 2        a figure of an occupant kind on zone 2 of the tile just placed"
    zone: Callable[[dict, dict], DrawnZone] = plain_zone  # (catalogue zone, its tile) -> DrawnZone
    # The text board: zone type -> its signs (a tile's first zone of the type, its second, ...), and the zone
    # types a compact tile shows, in order (the rest reads as background).
    signs: dict[str, str] = field(default_factory=dict)
    compact_signs: tuple[str, ...] = ()
    glyphs: dict[str, Glyph] = field(default_factory=dict)  # the signs its translator names, in the key's order
    terrains: dict[str, Terrain] = field(default_factory=dict)  # zone type -> how the pictures draw it
    special_codes: dict[str, str] = field(default_factory=dict)  # special power -> its text-board code ("Sh")
    roles: dict[str, str] = field(default_factory=dict)  # zone type -> what a pawn there is ("hunter")
    card: str = ""  # its part of the env card (hg_env.aec): env name, spaces, action layout, rules page
    events: dict[str, Callable[[Any], str]] = field(default_factory=dict)  # event type -> sentence (render.Told)
    # Its declared decisions (Ruleset.decisions) in words: phase name -> what the seat does then, and
    # decision name -> (game, decoded decision) -> the move's line in ``hgenv play``'s list.
    phases: dict[str, PhaseWords] = field(default_factory=dict)
    moves: dict[str, Callable[[Any, tuple], str]] = field(default_factory=dict)
    # decision name -> what the seat may do with a decision asked beside the occupants ("take back their abbot"):
    # the text board adds where or how much, the picture puts "may" before it (default: the decision's name and noun)
    offers: dict[str, str] = field(default_factory=dict)
    # piece (AREA_PIECE, SYSTEM_PIECE, SPECIAL_PIECE) -> its artwork: (draw, centre x, centre y, size in pixels,
    # fill colour, lying) -> None; a piece it names no artwork for is drawn as ``render.person``
    figures: dict[int, Callable[[Any, float, float, float, tuple, bool], None]] = field(default_factory=dict)
    key: Callable[[Any, Any, int, int], int] = no_key  # (draw, game, x0, top) -> y: the picture key's own part
    deck_note: Callable[[Any], str] = no_deck_note  # game -> what the text says after its deck's size


@cache
def presentation(ruleset: str) -> Presentation:
    """The presentation of the ruleset called ``ruleset`` (its module's ``PRESENTATION``, else the defaults)."""
    try:
        module = importlib.import_module(f"hg_env.rulesets.{ruleset}.presentation")
    except ModuleNotFoundError as error:
        if error.name != f"hg_env.rulesets.{ruleset}.presentation" and error.name != f"hg_env.rulesets.{ruleset}":
            raise  # a presentation module that fails to import is a bug, not a missing presentation
        return Presentation()
    return module.PRESENTATION


def terrain(ruleset: str, kind: str) -> Terrain:
    """How the ruleset called ``ruleset`` draws zones of type ``kind`` (``GROUND`` for a type it does not name)."""
    return presentation(ruleset).terrains.get(kind, GROUND)
