"""Pictures of a game: a text board (``render_ansi``) and an image (``render_rgb``).

Both are drawn from the facts of the game's own tile catalogue (``game.rules.spec``:
sides, zones, contents), never from copied artwork, for every ruleset:

* Hunters & Gatherers (``hg2020``, ``hg2002``): meadows, forests, rivers, lakes,
  animals and fish; menhirs (2020) or gold nuggets (2002) in forests, mushrooms,
  the 2020 special powers, the 2002 shrine, fire and volcano; pawns and huts.
* Carcassonne: fields, cities with walls and coats of arms, roads, monasteries,
  gardens, the river; meeples standing (knights, highwaymen, monks), farmers
  lying down, abbots.

Every lookup takes the ruleset's name and every cache is keyed by it. Directions
follow RULES.md R2.2: a tile placed with rotation r shows its printed side
(d - r) % 4 in direction d, and the clockwise order of zones along a side is unchanged.

Text block of one tile (5 rows x 9 columns)::

    +..~~~,,+     N side: . meadow  # forest  ~ river (meadow, river, another meadow)
    #57     #     W side, tile id, E side
    #  ^o2  #     contents: menhir forest, lake with 2 fish (animals M A D T ...)
    # h1@o  #     occupant: hut of player 1 on the lake
    +#######+     S side; '*' corners mark the tile placed last

The sides of one zone share a sign, and a tile's second, third ... zone of a kind takes the next sign
(``Presentation.signs``: ``, : ;`` meadows or fields, ``& H`` forests, ``c`` a city; ``-`` a river from its
spring), so tiles whose features connect differently never draw alike (Carcassonne tile 18, one city
through the tile, against tile 19, two city caps). Carcassonne's blocks read ``.`` field, ``C`` city,
``=`` road, ``~`` river, with ``S`` a coat of arms, ``M`` a monastery, ``G`` a garden, ``m1@C`` a meeple
of P1 on a city and ``a1@M`` the abbot of P1 on a monastery.

The compact board (``compact=True``) draws one line per board row and four characters per tile: the
figure on it (``m1C``, ``p0#``), else the signs of its features (``C=.``); a finished two-player game of
any ruleset fits 100 columns x 40 lines with its legend and scores. ``render_ansi`` (so ``Game.render("ansi")``
and ``render_mode="ansi"``) chooses it by default when the full board is wider than 100 columns
(``ANSI_WIDTH``); ``hgenv play`` when the full board is wider than the terminal.

The picture (``render_rgb``) names each seat by its colour (``names``: ``P0 (greedy)``), sets the latest
events in whole sentences wrapped to the panel, and its key explains the figures, the frame of the tile
placed last and the zone numbers on a tile awaiting a figure.

The picture is sketched once (``sketch_picture``: ``hg_env.sketch`` marks, each tile's artwork from
``tile_art``, each zone type drawn as its ruleset's presentation says, ``presentation.Terrain``):
``render_rgb`` paints the sketch with Pillow, ``hg_env.svg.board_svg`` writes the same sketch as SVG.

The image needs Pillow, an optional extra (``pip install hg-env[render]``); it
is imported only when an image is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Protocol

import numpy as np

from hg_env.core.ruleset import AREA_PIECE, SYSTEM_PIECE, Decision, get_ruleset, rulesets
from hg_env.core.tiles import (
    ANIMALS,
    DIRECTION_NAMES,
    Z_DIVIDER,
    load_catalogue,
)
from hg_env.presentation import GROUND, DrawnZone, Terrain, presentation, terrain
from hg_env.sketch import Mark, Sketch, paint

if TYPE_CHECKING:
    from PIL import Image, ImageDraw, ImageFont

    from hg_env.core.rules import Rules
    from hg_env.core.state import State


class GameView(Protocol):
    """What the drawing reads of a game (``hg_env.Game`` is one). Render imports no game module: the game
    imports render to draw itself, and render depends on this much of a game only."""

    rules: Rules
    state: State

    @property
    def ruleset(self) -> str: ...
    @property
    def num_players(self) -> int: ...
    @property
    def current_player(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def tile_to_place(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def winners(self) -> list[int]: ...
    @property
    def events(self) -> list[dict]: ...
    @property
    def deck_sizes(self) -> tuple[int, int]: ...
    @property
    def extra_turn(self) -> bool: ...
    def supply(self, player: int) -> tuple[int, ...]: ...
    def tile_at(self, x: int, y: int) -> tuple[int, int] | None: ...
    def placed_tiles(self) -> list[tuple[int, int, int, int]]: ...
    def occupants(self) -> list[tuple[int, str, int, int, int]]: ...
    def legal_placements(self) -> list[tuple[int, int, int]]: ...
    def legal_choices(self, name: str) -> list: ...
    def legal_occupants(self) -> list[tuple[str, int]]: ...


# ---------------------------------------------------------------- catalogue views


@cache
def _catalogue_tiles(ruleset: str) -> dict[int, dict]:
    """Tile id -> catalogue entry, for the ruleset called ``ruleset``."""
    return {t["id"]: t for t in load_catalogue(get_ruleset(ruleset).data_file)["tiles"]}


@cache
def tile_zones(ruleset: str, tile: int) -> dict[int, DrawnZone]:
    """Local zone id -> the zone as the ruleset's presentation reads its catalogue (``DrawnZone``)."""
    entry = _catalogue_tiles(ruleset)[tile]
    return {z["zone"]: presentation(ruleset).zone(z, entry) for z in entry["zones"]}


def side_zones(ruleset: str, tile: int, rotation: int, direction: int) -> list[int]:
    """Local zones along the side shown in ``direction`` (clockwise order, R2.11)."""
    printed = DIRECTION_NAMES[(direction - rotation) % 4]
    return list(_catalogue_tiles(ruleset)[tile]["sides"][printed]["zones"])


def zone_directions(ruleset: str, tile: int, rotation: int, local: int) -> list[int]:
    """Directions (as placed, N=0 E=1 S=2 W=3) of the sides a zone touches."""
    edges = tile_zones(ruleset, tile)[local].edges
    return sorted((DIRECTION_NAMES.index(e) + rotation) % 4 for e in edges)


# The half of a side (as placed) that slot 0 and slot 2 of a split side cover: along N the zones run
# west to east, along E north to south, along S east to west, along W south to north.
HALF_NAMES = (("w", "e"), ("n", "s"), ("e", "w"), ("s", "n"))


def zone_sides(ruleset: str, tile: int, rotation: int, local: int) -> list[str]:
    """The sides a zone touches, as placed: ``N`` for a whole side (or the river / road on it), ``Wn``
    for the north half of a W side that a river or road splits. Two meadows or fields of one tile
    always read apart this way (the half tells the bank)."""
    out = []
    for d in range(4):
        zones = side_zones(ruleset, tile, rotation, d)
        slots = [i for i, z in enumerate(zones) if z == local]
        if len(zones) == 3 and slots in ([0], [2]):
            out.append(DIRECTION_NAMES[d] + HALF_NAMES[d][slots[0] // 2])
        elif slots:
            out.append(DIRECTION_NAMES[d])
    return out


def zone_kind(ruleset: str, tile: int, local: int) -> int:
    """The engine's role of a zone (``Z_LAND`` ... ``Z_DIVIDER``, hg_env.core.tiles)."""
    tiles = get_ruleset(ruleset).tiles
    return int(tiles.ZONE_TYPE[tiles.TILE_ZONE[tile, local]])


INNER_SHAPES = ("pool", "plot")  # terrains drawn inside the tile: their zones touch no side


def _look(ruleset: str, zone: DrawnZone) -> Terrain:
    """How the ruleset draws a zone (its presentation's ``Terrain`` of the zone's type)."""
    return terrain(ruleset, zone.type)


def _shape_of(ruleset: str, zone: DrawnZone) -> str:
    """The drawn shape of a zone: ``ground``, ``polygon``, ``stream``, ``path``, ``pool`` or ``plot``."""
    return terrain(ruleset, zone.type).shape


def _special_words(special: str) -> str:
    """A special power's name as the pictures and texts write it: ``hunting trap``."""
    return special.replace("_", " ")


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def _article(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def zone_glyphs(ruleset: str, tile: int, local: int) -> list[str]:
    """The signs of a zone besides its animals, in drawing order: ``fish`` (a river's or lake's fish), then
    the signs its ruleset's presentation gives it (``DrawnZone.glyphs``): ``menhir``, ``gold`` (one per
    nugget), ``mushrooms``, ``shrine``, ``fire``, ``volcano``, ``coat`` (one per coat of arms), ``monastery``,
    ``garden``."""
    zone = tile_zones(ruleset, tile)[local]
    return ["fish"] * bool(zone.fish) + list(zone.glyphs)


def zone_summary(ruleset: str, tile: int, local: int, rotation: int | None = None) -> str:
    """A readable description, e.g. ``meadow (N, Wn) with deer, tiger``, ``lake with 2 fish`` or
    ``city (N) with 1 coat of arms``; the sides (``zone_sides``) only when ``rotation`` is given."""
    zone = tile_zones(ruleset, tile)[local]
    text = zone.name
    if rotation is not None and _shape_of(ruleset, zone) not in INNER_SHAPES:
        sides = zone_sides(ruleset, tile, rotation, local)
        text += f" ({', '.join(sides)})" if sides else " (enclosed)"
    if rotation is not None and _shape_of(ruleset, zone) == "pool":  # two lakes of a tile read apart by their rivers
        feeds = sorted({d for r in zone.rivers for d in zone_directions(ruleset, tile, rotation, r)})
        text += f" (fed from {', '.join(DIRECTION_NAMES[d] for d in feeds)})"
    extras = []
    if zone.animals:
        extras.append("with " + ", ".join(zone.animals))
    if zone.fish:
        extras.append(f"with {zone.fish} fish")
    extras += zone.notes  # the ruleset's own words: gold, mushrooms, coats of arms, a river's flow, a power
    if _shape_of(ruleset, zone) == "path" and zone.ends:
        extras.append(f"ending at {_path_end_name(ruleset, tile)}")
    return " ".join([text, *extras])


def _path_end_name(ruleset: str, tile: int) -> str:
    """Where the roads that end on a tile stop (the same rule as the picture, ``_path_goal``): ``the monastery``
    (its plot), ``the city gate`` (its walled polygon) or ``a crossing``."""
    goal, zones = _path_goal(ruleset, tile), tile_zones(ruleset, tile).values()
    if goal == "plot":
        return "the " + next(z.type for z in zones if _shape_of(ruleset, z) == "plot")
    if goal == "gate":
        return f"the {next(z.type for z in zones if _look(ruleset, z).walled)} gate"
    return "a crossing"


def occupant_role(ruleset: str, tile: int, kind: str, local: int) -> str:
    """What a figure is on its zone: ``hunter`` / ``gatherer`` / ``fisher`` for a pawn (R5.1), ``knight`` /
    ``highwayman`` / ``farmer`` / ``monk`` for a meeple (B3.10); a hut or an abbot is itself."""
    piece = {k.name: k.piece for k in get_ruleset(ruleset).occupants}[kind]
    return presentation(ruleset).roles.get(tile_zones(ruleset, tile)[local].type, kind) if piece == AREA_PIECE else kind


def player_name(seat: int, names: list[str] | None = None) -> str:
    return f"P{seat}" if not names else f"P{seat} ({names[seat]})"


class Told:
    """An event as its sentence reads it: its fields (``told["points"]``), who scored (``who("scorers")``),
    who acted (``player()``) and whether the area was ``completed`` or ``unfinished`` (``state``)."""

    def __init__(self, event: dict, names: list[str] | None = None) -> None:
        self.event, self.names = event, names

    def __getitem__(self, key: str):
        return self.event[key]

    def get(self, key: str, default=None):
        return self.event.get(key, default)

    def who(self, key: str) -> str:
        return " & ".join(player_name(p, self.names) for p in self.event.get(key, []))

    def player(self) -> str:
        return player_name(self.event["player"], self.names)

    @property
    def state(self) -> str:
        return "completed" if self.event.get("complete", True) else "unfinished"  # scored in the turn: completed


@cache
def _event_words(ruleset: str | None) -> dict:
    """Event type -> its sentence, from the ruleset's presentation (without one: every ruleset's)."""
    names = [ruleset] if ruleset is not None else rulesets()
    words: dict = {}
    for name in names:
        words = {**presentation(name).events, **words}  # the first ruleset listed wins a shared type
    return words


def describe_event(event: dict, names: list[str] | None = None, ruleset: str | None = None) -> str:
    """One scoring event (RULES.md Appendix B, the rules pages' event logs) as a short sentence, in the words
    of the ruleset's presentation (``Presentation.events``; without ``ruleset``, of the one that has it)."""
    told = Told(event, names)
    kind = event["type"]
    if kind == "TILE_DISCARDED":
        return f"tile {event['tile']} fits nowhere: discarded"
    if kind == "WINNERS":
        return f"winner: {told.who('players')} with {event['points']} points"
    words = _event_words(ruleset).get(kind)
    return kind if words is None else words(told)


def board_bounds(game: GameView, margin: int = 1) -> tuple[int, int, int, int]:
    """(xmin, xmax, ymin, ymax), inclusive: the occupied positions plus ``margin`` cells."""
    placed = game.placed_tiles()
    xs = [x for _, x, _, _ in placed] or [0]
    ys = [y for _, _, y, _ in placed] or [0]
    reach = game.rules.reach  # positions off the board (R4.3) are never shown
    return (
        max(min(xs) - margin, -reach),
        min(max(xs) + margin, reach),
        max(min(ys) - margin, -reach),
        min(max(ys) + margin, reach),
    )


def _legal_positions(game: GameView) -> set[tuple[int, int]]:
    return {(x, y) for x, y, _ in game.legal_placements()}


def _last_position(game: GameView) -> tuple[int, int] | None:
    cell = int(game.state.last_cell[0])
    return None if cell < 0 else game.rules.board.xy(cell)


def _figure_piece(ruleset: str, kind: str) -> int:
    """AREA_PIECE, SYSTEM_PIECE or SPECIAL_PIECE: the piece an occupant kind comes from."""
    return {k.name: k.piece for k in get_ruleset(ruleset).occupants}[kind]


def _supply_kinds(game: GameView) -> list[tuple[str, int]]:
    """(occupant kind, its piece) for the kinds this game deals out (the abbot only with the abbot flag)."""
    pieces = game.rules.spec.pieces_of(game.rules)
    return [(kind.name, kind.piece) for kind in game.rules.spec.occupants if pieces[kind.piece] > 0]


def supply_text(game: GameView, seat: int) -> str:
    """``0 pawns, 2 huts`` / ``7 meeples, 1 abbot``: a seat's supply in words."""
    supply = dict(zip((k.name for k in game.rules.spec.occupants), game.supply(seat)))
    return ", ".join(_count(supply[name], name) for name, _ in _supply_kinds(game))


def occupant_kinds_text(game: GameView, articles: bool = True) -> str:
    """``a pawn or a hut`` / ``a meeple or an abbot`` (``articles=False``: ``pawn or hut``): the figures that
    may go on the tile just placed in the occupy phase, else every kind the game deals out."""
    names = [name for name, _ in _supply_kinds(game)]
    legal = {kind for kind, _ in game.legal_occupants()}
    return " or ".join(_article(n) if articles else n for n in names if n in legal or not legal)


def deck_text(game: GameView) -> str:
    """The tiles left: ``49 regular tiles, 15 menhir tiles`` / ``60 tiles``, then the ruleset's note on
    them (``Presentation.deck_note``: Carcassonne's ``, the next 8 river tiles``)."""
    regular, extra = game.deck_sizes
    name = game.rules.spec.extra_deck
    if name:
        return f"{regular} regular tiles, {extra} {name} tiles"
    return _count(regular, "tile") + presentation(game.ruleset).deck_note(game)


# ---------------------------------------------------------------- text board

SPRING_CHAR = "-"  # a river that starts on the tile: a spring's river never reads like one into the lake
ANIMAL_CHAR = {"mammoth": "M", "aurochs": "A", "deer": "D", "tiger": "T"}
ANSI_COLORS = ("\x1b[31m", "\x1b[34m", "\x1b[32m", "\x1b[33m", "\x1b[35m")  # red blue green yellow purple
ANSI_RESET = "\x1b[0m"
ANSI_WIDTH = 100  # render_ansi draws the compact board when the full one is wider than this (a terminal's width)

BLOCK_INNER, BLOCK_ROWS = 7, 3  # a tile's block: the characters between its corners across, and down
BLOCK_WIDTH, BLOCK_HEIGHT = BLOCK_INNER + 2, BLOCK_ROWS + 2
COMPACT_CELL = 4  # a compact tile: a gap ('*' before the tile placed last) and three characters


@cache
def _signs(ruleset: str, kind: str) -> str:
    """The text-board signs of a zone type in a ruleset (its presentation's; else the type's first letter)."""
    return presentation(ruleset).signs.get(kind, kind[0])


def zone_chars(ruleset: str, tile: int, rotation: int) -> dict[int, str]:
    """Local zone -> its sign on the text board: its kind's first sign (``Presentation.signs``), or for a
    tile's second, third ... zone of a kind the next one, counted along the sides as placed (N, E, S, W,
    each clockwise), then the zones that touch no side; a river from a spring on the tile reads
    ``SPRING_CHAR`` (shared: do not modify)."""
    zones = tile_zones(ruleset, tile)
    order = [z for d in range(4) for z in side_zones(ruleset, tile, rotation, d)] + sorted(zones)
    counts: dict[str, int] = {}
    out: dict[int, str] = {}
    for z in order:
        if z in out:
            continue
        kind = zones[z].type
        signs = SPRING_CHAR if _is_spring(ruleset, tile, zones[z]) else _signs(ruleset, kind)
        out[z] = signs[min(counts.get(kind, 0), len(signs) - 1)]
        counts[kind] = counts.get(kind, 0) + 1
    return out


def _side_text(ruleset: str, tile: int, rotation: int, direction: int) -> str:
    """The signs of a side as drawn: west to east for N and S, north to south for E and W; a side that a
    river or road splits reads bank, river or road, bank."""
    signs = zone_chars(ruleset, tile, rotation)
    zones = side_zones(ruleset, tile, rotation, direction)  # clockwise: S runs east to west, W south to north
    if direction in (2, 3):
        zones = zones[::-1]
    length = BLOCK_INNER if direction in (0, 2) else BLOCK_ROWS
    if len(zones) == 1:
        return signs[zones[0]] * length
    bank = (length - 3) // 2 if length >= 7 else (length - 1) // 2
    west, middle, east = (signs[z] for z in zones)
    return west * bank + middle * (length - 2 * bank) + east * bank


def _contents_text(ruleset: str, tile: int, cancelled: dict[int, dict[str, int]]) -> str:
    shown, parts = presentation(ruleset), []
    for local, zone in sorted(tile_zones(ruleset, tile).items()):
        crossed = dict(cancelled.get(local, {}))
        for animal in zone.animals:
            if crossed.get(animal, 0) > 0:
                crossed[animal] -= 1
                parts.append("x")
            else:
                parts.append(ANIMAL_CHAR[animal])
        if _shape_of(ruleset, zone) == "pool":
            parts.append(f"o{zone.fish}")
        elif _shape_of(ruleset, zone) == "stream" and zone.fish:
            parts.append(f"f{zone.fish}")
        parts += [shown.glyphs[g].char for g in zone_glyphs(ruleset, tile, local) if g != "fish"]
        if zone.special:
            parts.append(shown.special_codes[zone.special])
    text = "".join(parts)
    return text if len(text) <= BLOCK_INNER else text.replace("o", "")[:BLOCK_INNER]


def _tile_block(
    game: GameView | None,
    ruleset: str,
    tile: int,
    rotation: int,
    occupant: tuple[int, str] | None = None,
    last: bool = False,
    color: bool = False,
) -> list[str]:
    """The character block of a tile (5 rows of 9); ``occupant`` is (seat, text) such as (1, "p1@#")."""
    corner = "*" if last else "+"
    north, east, south, west = (_side_text(ruleset, tile, rotation, d) for d in range(4))
    seat, who = occupant or (None, "")
    cancelled = _cancelled_by_zone(game, tile) if game is not None else {}
    inner = [f"{tile:<7}", f"{_contents_text(ruleset, tile, cancelled):^7}", f"{who:^7}"]
    if color and who:
        inner[2] = inner[2].replace(who, ANSI_COLORS[seat] + who + ANSI_RESET)
    rows = [corner + north + corner]
    rows += [west[i] + inner[i] + east[i] for i in range(BLOCK_ROWS)]
    rows.append(corner + south + corner)
    return rows


def _compact_cell(ruleset: str, tile: int, occupant: tuple[int, str] | None, last: bool, color: bool) -> str:
    """A tile of the compact board: its figure (``m1C``), else the signs of its features (``C=.``)."""
    mark = "*" if last else " "
    if occupant is not None:
        seat, who = occupant
        who = who.replace("@", "")
        return mark + (ANSI_COLORS[seat] + who + ANSI_RESET if color else who)
    kinds = {zone.type for zone in tile_zones(ruleset, tile).values()}
    signs = "".join(_signs(ruleset, k)[0] for k in presentation(ruleset).compact_signs if k in kinds)[:3]
    return mark + f"{signs:.<3}"  # the rest is meadow (field)


def _occupant_texts(game: GameView, compact: bool = False) -> dict[tuple[int, int], tuple[int, str]]:
    """(x, y) -> (seat, ``p1@#``): the figure on a tile, its zone by the zone's own sign (its first sign in the
    compact board, which draws no sides)."""
    out = {}
    for seat, kind, x, y, local in game.occupants():
        tile, rot = game.tile_at(x, y)
        zone = (
            _signs(game.ruleset, tile_zones(game.ruleset, tile)[local].type)[0]
            if compact
            else zone_chars(game.ruleset, tile, rot)[local]
        )
        out[(x, y)] = (seat, f"{kind[0]}{seat}@{zone}")
    return out


def _compact_bounds(game: GameView) -> tuple[int, int, int, int]:
    """(xmin, xmax, ymin, ymax): the placed tiles and the positions where the tile to place fits."""
    cells = [(x, y) for _, x, y, _ in game.placed_tiles()] + sorted(_legal_positions(game))
    xs, ys = [x for x, _ in cells] or [0], [y for _, y in cells] or [0]
    return min(xs), max(xs), min(ys), max(ys)


def ansi_board(game: GameView, color: bool = False, compact: bool = False) -> str:
    """Only the board: tile blocks with x / y rulers, cropped to the occupied part plus one cell.

    ``compact``: one line per board row and four characters per tile (its figure, else its features), cropped
    to the placed tiles and the positions where the tile to place fits.
    """
    if compact:
        return _compact_board(game, color)
    xmin, xmax, ymin, ymax = board_bounds(game)
    occupants = _occupant_texts(game)
    legal = _legal_positions(game)
    last = _last_position(game)
    lines = [(" " * 6 + "".join(f"{f'x={x}':^{BLOCK_WIDTH}}" for x in range(xmin, xmax + 1))).rstrip()]
    for y in range(ymin, ymax + 1):
        blocks = []
        for x in range(xmin, xmax + 1):
            placed = game.tile_at(x, y)
            if placed is None:
                label = f"{x},{y}" if (x, y) in legal else ""
                blocks.append([" " * BLOCK_WIDTH] * 2 + [f"{label:^{BLOCK_WIDTH}}"] + [" " * BLOCK_WIDTH] * 2)
            else:
                who = occupants.get((x, y))
                blocks.append(_tile_block(game, game.ruleset, *placed, who, (x, y) == last, color=color))
        for row in range(BLOCK_HEIGHT):
            label = f"y={y}" if row == BLOCK_HEIGHT // 2 else ""
            lines.append((f"{label:>5} " + "".join(b[row] for b in blocks)).rstrip())
    return "\n".join(lines)


def _compact_board(game: GameView, color: bool) -> str:
    xmin, xmax, ymin, ymax = _compact_bounds(game)
    occupants = _occupant_texts(game, compact=True)
    legal = _legal_positions(game)
    last = _last_position(game)
    lines = ["y\\x" + "".join(f"{x:>{COMPACT_CELL}}" for x in range(xmin, xmax + 1))]
    for y in range(ymin, ymax + 1):
        cells = []
        for x in range(xmin, xmax + 1):
            placed = game.tile_at(x, y)
            if placed is None:
                cells.append(" [ ]" if (x, y) in legal else " " * COMPACT_CELL)
            else:
                cells.append(_compact_cell(game.ruleset, placed[0], occupants.get((x, y)), (x, y) == last, color))
        lines.append((f"{y:>3}" + "".join(cells)).rstrip())
    return "\n".join(lines)


def ansi_board_width(game: GameView, compact: bool = False) -> int:
    """Characters per line of ``ansi_board`` (to choose the compact form on narrow terminals)."""
    if compact:
        xmin, xmax, _, _ = _compact_bounds(game)
        return 3 + (xmax - xmin + 1) * COMPACT_CELL
    xmin, xmax, _, _ = board_bounds(game)
    return 6 + (xmax - xmin + 1) * BLOCK_WIDTH


def ansi_legend(game: GameView, compact: bool = False) -> str:
    """The legend of the text board of this game's ruleset."""
    shown = presentation(game.ruleset)
    return shown.compact_legend if compact else shown.legend


def ansi_status(game: GameView, names: list[str] | None = None, color: bool = False) -> str:
    """Scores, supplies, whose turn it is, and the tile to place in its four rotations."""
    ruleset = game.ruleset
    lines = []
    for seat in range(game.num_players):
        mark = ">" if seat == game.current_player and not game.is_over else " "
        name = player_name(seat, names)
        if color:
            name = ANSI_COLORS[seat] + name + ANSI_RESET
        lines.append(f"{mark} {name}: {game.scores[seat]} points, supply {supply_text(game, seat)}")
    lines.append(f"{'decks' if game.rules.spec.extra_deck else 'deck'}: {deck_text(game)} left")
    if game.is_over:
        lines.append("game over; winner(s): " + ", ".join(player_name(p, names) for p in game.winners))
        return "\n".join(lines)
    who = player_name(game.current_player, names)
    extra = f" ({game.rules.spec.extra_deck} extra turn)" if game.extra_turn else ""
    tile = game.tile_to_place
    if game.phase == "place" and tile is not None:
        lines.append(f"{who} to place tile {tile}{extra}:")
        blocks = [_tile_block(None, ruleset, tile, r) for r in range(4)]
        lines.append(("   " + "   ".join(f"{f'r{r}':^{BLOCK_WIDTH}}" for r in range(4))).rstrip())
        lines += ["   " + "   ".join(b[row] for b in blocks) for row in range(BLOCK_HEIGHT)]
        zones = tile_zones(ruleset, tile)
        lines.append("zones: " + "; ".join(f"{z} {zone_summary(ruleset, tile, z)}" for z in sorted(zones)))
    elif game.phase == "occupy":
        x, y = _last_position(game)
        placed, rot = game.tile_at(x, y)
        offers, asked = [], asked_decisions(game)
        if game.legal_occupants() or not asked:
            offers.append(f"put {occupant_kinds_text(game)} on tile {placed}, just placed at ({x},{y})")
        for decision, choices in asked:
            offers.append(f"{decision_words(game, decision)} {_choices_text(decision, choices)}")
        lines.append(f"{who} may {', or '.join(offers)}{extra}")
        zones = "; ".join(f"{z} {zone_summary(ruleset, placed, z, rot)}" for z in sorted(tile_zones(ruleset, placed)))
        lines.append(f"zones of tile {placed}: {zones}")
    else:  # the phase of a decision the ruleset declares
        words = presentation(ruleset).phases.get(game.phase)
        lines.append(f"{who} {words.board if words else 'to ' + game.phase}{extra}")
    return "\n".join(lines)


def asked_decisions(game: GameView) -> list[tuple[Decision, list]]:
    """The ruleset's declared decisions the seat to move may take now, each with its choices
    (``legal_choices``): in the occupy phase, those asked beside the occupants (Carcassonne's abbot recall)."""
    asked = [(decision, game.legal_choices(decision.name)) for decision in game.rules.spec.decisions]
    return [(decision, choices) for decision, choices in asked if choices]


def decision_words(game: GameView, decision: Decision) -> str:
    """What taking a declared decision asked beside the occupants does, in its presentation's words
    (``Presentation.offers``: ``take back their abbot``), else in the decision's own: ``retake their abbot``."""
    words = presentation(game.ruleset).offers.get(decision.name)
    return words or " ".join([decision.name, *([f"their {decision.noun}"] if decision.noun else [])])


def _choices_text(decision: Decision, choices: list) -> str:
    """Where or how much: ``from (1,0), (2,3)`` for figures named by their cells, ``(stash 1)`` for counts."""
    if decision.operand == "cell":
        return "from " + ", ".join(f"({x},{y})" for x, y, _ in choices)
    return "(" + " / ".join(f"{decision.name} {k}" for k in choices) + ")"


def render_ansi(
    game: GameView,
    names: list[str] | None = None,
    color: bool = False,
    compact: bool | None = None,
    legend: bool = True,
    width: int = ANSI_WIDTH,
) -> str:
    """The text board with a legend, scores, supplies and the tile to place.

    Plain text unless ``color`` (ANSI colours for the players). ``compact``: True draws one line per board
    row (a finished two-player game fits 100 columns x 40 lines), False the full 5 x 9 tile blocks, None
    (the default, also ``Game.render("ansi")`` and the environments' ``render_mode="ansi"``) chooses the
    compact board when the full one is wider than ``width`` columns.
    """
    if compact is None:
        compact = ansi_board_width(game) > width
    parts = [ansi_board(game, color, compact), ""]
    if legend:
        parts += [ansi_legend(game, compact), ""]
    return "\n".join([*parts, ansi_status(game, names, color)]) + "\n"


# ---------------------------------------------------------------- image: geometry in unit squares
#
# A tile is the unit square, x east, y south, (0, 0) its NW corner. Shapes are
# written for one canonical direction and turned clockwise a quarter at a time.

CENTER = np.array([0.5, 0.5])
DIR_VECTORS = np.array([(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)])  # N E S W
POOL_RADIUS = 0.16
POND_RADIUS = 0.19  # the lake the Carcassonne river ends in
PLOT_HALF = 0.15  # half the side of a monastery's or garden's square
CROSSING_RADIUS = 0.075
BAND_SHAPES = ("stream", "path")  # rivers and roads

# Forest and city shapes, drawn for the directions named and turned for the others.
FOREST_CAP_N = [(0, 0), (1, 0), (0.78, 0.26), (0.22, 0.26)]
FOREST_CORNER_NE = [(0, 0), (1, 0), (1, 1), (0.74, 0.78), (0.62, 0.52), (0.48, 0.38), (0.22, 0.26)]
FOREST_BAND_NS = [
    (0, 0), (1, 0), (0.78, 0.26), (0.64, 0.36), (0.64, 0.64), (0.78, 0.74),
    (1, 1), (0, 1), (0.22, 0.74), (0.36, 0.64), (0.36, 0.36), (0.22, 0.26),
]  # fmt: skip
FOREST_ALL_BUT_W = [(0, 0), (1, 0), (1, 1), (0, 1), (0.26, 0.78), (0.42, 0.5), (0.26, 0.22)]


def _turn(points: list | np.ndarray, quarters: int) -> np.ndarray:
    """Turn unit-square points clockwise about the centre by ``quarters`` quarter turns."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    for _ in range(quarters % 4):
        p = np.stack([1.0 - p[:, 1], p[:, 0]], axis=1)
    return p


def forest_polygon(directions: list[int]) -> np.ndarray:
    """Outline of a forest (or city) zone touching the given sides (as placed)."""
    ds = sorted(directions)
    if len(ds) == 1:
        return _turn(FOREST_CAP_N, ds[0])
    if len(ds) == 2 and (ds[1] - ds[0]) == 2:
        return _turn(FOREST_BAND_NS, ds[0])
    if len(ds) == 2:
        first = ds[0] if (ds[0] + 1) % 4 == ds[1] else ds[1]  # the side clockwise before the other
        return _turn(FOREST_CORNER_NE, first)
    if len(ds) == 3:
        missing = ({0, 1, 2, 3} - set(ds)).pop()
        return _turn(FOREST_ALL_BUT_W, missing - 3)
    return np.array([(0, 0), (1, 0), (1, 1), (0, 1)], dtype=float)


@dataclass(frozen=True)
class Shapes:
    """The drawn shapes of a placed tile, in unit-square coordinates."""

    pools: dict[int, np.ndarray]  # pool zone (a lake) -> centre
    bands: dict[int, np.ndarray]  # river / road zone -> polyline from its side(s) to its other side or its end
    polygons: dict[int, np.ndarray]  # forest / city zone -> outline
    plots: dict[int, np.ndarray]  # monastery / garden zone -> centre of its square
    ponds: dict[int, np.ndarray]  # a Carcassonne river zone ending in the lake -> the lake's centre
    crossings: tuple[np.ndarray, ...]  # where the roads ending on the tile meet


@dataclass(frozen=True)
class TileGeometry:
    """Where each zone of a placed tile is drawn, in unit-square coordinates."""

    shapes: Shapes
    contents: dict[int, list[np.ndarray]]  # zone -> spots for its sign, glyphs and animals (_content_spots)
    occupant_at: dict[int, np.ndarray]  # zone -> where an occupant stands


def _bezier(p0: np.ndarray, control: np.ndarray, p1: np.ndarray, steps: int = 12) -> np.ndarray:
    t = np.linspace(0.0, 1.0, steps)[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t**2 * p1


@cache
def _path_goal(ruleset: str, tile: int) -> str:
    """Where the paths (roads) that end on a tile stop: ``plot`` (one road to the monastery), ``gate`` (one road
    to the gate of a walled polygon, a city) or ``crossing`` (several roads meeting, or one ending in a village)."""
    zones = tile_zones(ruleset, tile).values()
    ending = [z for z in zones if _shape_of(ruleset, z) == "path" and z.ends]
    if len(ending) == 1 and any(_shape_of(ruleset, z) == "plot" for z in zones):
        return "plot"
    if len(ending) == 1 and any(_look(ruleset, z).walled for z in zones):
        return "gate"
    return "crossing"


def _band_end(ruleset: str, tile: int, zone: DrawnZone, direction: int, pools: dict, plots: dict) -> np.ndarray:
    """Where a river or road touching one side (``direction``) ends on its tile."""
    if zone.lake is not None:  # Hunters & Gatherers: into its lake
        return pools[zone.lake]
    inwards = -DIR_VECTORS[direction]
    if _shape_of(ruleset, zone) == "path":
        goal = _path_goal(ruleset, tile)
        if goal == "plot":
            return next(iter(plots.values()))
        if goal == "gate":  # on through the gate: the walled polygon is drawn over the road's end
            return CENTER + 0.3 * inwards
        return CENTER.copy()
    if zone.pond:  # the Carcassonne river ends in its lake
        return CENTER - 0.12 * inwards
    return CENTER - _look(ruleset, zone).spring * inwards  # a spring, as far off the middle as its ruleset draws it


def _is_spring(ruleset: str, tile: int, zone: DrawnZone) -> bool:
    """A river that starts on this tile (drawn with a spring at its end)."""
    return _shape_of(ruleset, zone) == "stream" and zone.spring


@cache
def _plot_spots(ruleset: str, tile: int) -> dict[int, np.ndarray]:
    """Centres of a tile's monastery or garden squares at rotation 0 (a tile holds at most one): the roomiest
    spot of its fields, clear of cities, rivers and the roads crossing the tile, near the middle, and away
    from the side a road ending at the monastery comes from."""
    zones = tile_zones(ruleset, tile)
    plot_zones = [z for z, zone in zones.items() if _shape_of(ruleset, zone) == "plot"]
    if not plot_zones:
        return {}
    Image, ImageDraw, _ = _pil()
    n = GEOMETRY_GRID
    canvas = Image.new("L", (n, n), 0)
    draw = ImageDraw.Draw(canvas)
    path_from = None
    for z, zone in zones.items():
        dirs = zone_directions(ruleset, tile, 0, z)
        mids = [CENTER + 0.5 * DIR_VECTORS[d] for d in dirs]
        look = _look(ruleset, zone)
        if look.shape == "polygon":
            draw.polygon([tuple(p) for p in forest_polygon(dirs) * n], fill=1)
        elif look.shape in BAND_SHAPES and len(mids) == 2:
            line = _bezier(mids[0], CENTER, mids[1]) * n
            draw.line([tuple(p) for p in line], fill=1, width=int(look.width * n), joint="curve")
        elif look.shape == "stream":
            end = _band_end(ruleset, tile, zone, dirs[0], {}, {})
            draw.line([tuple(mids[0] * n), tuple(end * n)], fill=1, width=int(look.width * n))
            if zone.pond:
                x, y, r = *(end * n), POND_RADIUS * n
                draw.ellipse((x - r, y - r, x + r, y + r), fill=1)
        elif look.shape == "path":
            path_from = mids[0]
    depth = _depth(np.asarray(canvas) == 0) / n
    ys, xs = np.mgrid[0:n, 0:n]
    points = np.stack([(xs + 0.5) / n, (ys + 0.5) / n], axis=-1)
    score = depth - 0.3 * np.linalg.norm(points - CENTER, axis=-1)
    if path_from is not None:
        score += 0.1 * np.linalg.norm(points - path_from, axis=-1)
    row, col = np.unravel_index(int(np.argmax(score)), score.shape)
    spot = np.clip(points[row, col], PLOT_HALF + 0.03, 1 - PLOT_HALF - 0.03)
    return {z: spot for z in plot_zones}


@cache
def _shapes(ruleset: str, tile: int, rotation: int) -> Shapes:
    """The shapes of a tile as placed (shared: do not modify)."""
    zones = tile_zones(ruleset, tile)
    dirs = {z: zone_directions(ruleset, tile, rotation, z) for z in zones}
    pool_zones = [z for z in zones if _shape_of(ruleset, zones[z]) == "pool"]
    pools = {}
    for z in pool_zones:
        # Lakes sit towards the rivers that feed them; two lakes (tile 83) move further apart.
        pull = np.mean([DIR_VECTORS[d] for r in zones[z].rivers for d in dirs[r]], axis=0)
        pools[z] = CENTER + (0.35 if len(pool_zones) > 1 else 0.18) * pull
    plots = {z: _turn(spot, rotation)[0] for z, spot in _plot_spots(ruleset, tile).items()}
    bands, polygons, ponds = {}, {}, {}
    for z, zone in zones.items():
        shape = _shape_of(ruleset, zone)
        mids = [CENTER + 0.5 * DIR_VECTORS[d] for d in dirs[z]]
        if shape == "polygon":
            polygons[z] = forest_polygon(dirs[z])
        elif shape in BAND_SHAPES and len(mids) == 2:
            bands[z] = _bezier(mids[0], CENTER, mids[1])
        elif shape in BAND_SHAPES:
            end = _band_end(ruleset, tile, zone, dirs[z][0], pools, plots)
            bands[z] = np.array([mids[0], end])
            if shape == "stream" and zone.pond:
                ponds[z] = end
    ending = any(_shape_of(ruleset, zone) == "path" and zone.ends for zone in zones.values())
    crossings = (CENTER,) if ending and _path_goal(ruleset, tile) == "crossing" else ()
    return Shapes(pools, bands, polygons, plots, ponds, crossings)


def _layers(ruleset: str, tile: int, shapes: Shapes) -> tuple[list[int], list[int], list[int]]:
    """Zones in drawing order: polygons (forests), then streams and paths (a road crosses the river on a
    bridge), then walled polygons (cities, over the ends of the roads that lead to their gates)."""
    zones = tile_zones(ruleset, tile)
    forests = [z for z in shapes.polygons if not _look(ruleset, zones[z]).walled]
    bands = sorted(shapes.bands, key=lambda z: _shape_of(ruleset, zones[z]) == "path")
    cities = [z for z in shapes.polygons if _look(ruleset, zones[z]).walled]
    return forests, bands, cities


def zone_raster(ruleset: str, tile: int, rotation: int, size: int) -> np.ndarray:
    """[size, size] local zone id of every pixel of a tile as placed.

    Forests, cities, rivers, roads, lakes, monasteries and gardens are their drawn
    shapes. Meadow (field) pixels go to the meadow whose side stretches they are
    nearest to *without crossing* another shape (a breadth-first fill from the tile
    border), so two meadows meet exactly where the artwork leaves them touching; a
    meadow that touches no side takes what is left.
    """
    return _zone_raster(ruleset, tile, rotation, size).copy()


@cache
def _zone_raster(ruleset: str, tile: int, rotation: int, size: int) -> np.ndarray:
    Image, ImageDraw, _ = _pil()
    shapes = _shapes(ruleset, tile, rotation)
    zones = tile_zones(ruleset, tile)
    canvas = Image.new("L", (size, size), 0)
    draw = ImageDraw.Draw(canvas)
    forests, bands, cities = _layers(ruleset, tile, shapes)
    for z in forests:
        draw.polygon([tuple(p) for p in shapes.polygons[z] * size], fill=z + 1)
    for z in bands:
        width = max(1, int(_look(ruleset, zones[z]).width * size))
        draw.line([tuple(p) for p in shapes.bands[z] * size], fill=z + 1, width=width, joint="curve")
    for z in cities:
        draw.polygon([tuple(p) for p in shapes.polygons[z] * size], fill=z + 1)
    for z, centre in [*shapes.pools.items(), *shapes.ponds.items()]:
        r = (POOL_RADIUS if z in shapes.pools else POND_RADIUS) * size
        x, y = centre * size
        draw.ellipse((x - r, y - r, x + r, y + r), fill=z + 1)
    for z, centre in shapes.plots.items():
        (x0, y0), (x1, y1) = (centre - PLOT_HALF) * size, (centre + PLOT_HALF) * size
        draw.rectangle((x0, y0, x1, y1), fill=z + 1)
    labels = np.asarray(canvas, dtype=np.int16) - 1  # -1: meadow not yet assigned
    meadow = labels < 0
    along = (np.arange(size) + 0.5) / size
    for d in range(4):
        on_side = side_zones(ruleset, tile, rotation, d)
        # Border pixels of side d in clockwise order, and the zone each one meets.
        rows, cols = {
            0: (np.zeros(size, int), np.arange(size)),
            1: (np.arange(size), np.full(size, size - 1)),
            2: (np.full(size, size - 1), np.arange(size)[::-1]),
            3: (np.arange(size)[::-1], np.zeros(size, int)),
        }[d]
        slot = np.zeros(size, int) if len(on_side) == 1 else np.searchsorted([0.4, 0.6], along, side="right")
        zone = np.array(on_side)[slot]
        seed = meadow[rows, cols] & (labels[rows, cols] < 0)
        labels[rows[seed], cols[seed]] = zone[seed]
    while True:  # breadth-first: each round grows every meadow by one pixel, only through meadow
        grown = labels.copy()
        spread = np.where(meadow, labels, -1)
        for axis, step in ((0, 1), (0, -1), (1, 1), (1, -1)):
            neighbour = np.roll(spread, step, axis=axis)
            edge = [slice(None), slice(None)]
            edge[axis] = 0 if step == 1 else -1
            neighbour[tuple(edge)] = -1
            take = meadow & (grown < 0) & (neighbour >= 0)
            grown[take] = neighbour[take]
        if (grown == labels).all():
            break
        labels = grown
    enclosed = [z for z, zone in zones.items() if _shape_of(ruleset, zone) == "ground" and not zone.edges]
    if enclosed:  # a meadow between two forests, touching no side (hg2002 tile 25)
        labels[labels < 0] = enclosed[0]
    return labels


def _depth(mask: np.ndarray) -> np.ndarray:
    """Pixels to the nearest pixel outside ``mask`` (chessboard distance, never more than the
    true distance; the tile border counts as outside)."""
    depth = np.zeros(mask.shape, dtype=np.int16)
    inside = mask.copy()
    while inside.any():
        depth += inside
        padded = np.pad(inside, 1)
        shrunk = inside.copy()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                shrunk &= padded[1 + dy : 1 + dy + mask.shape[0], 1 + dx : 1 + dx + mask.shape[1]]
        inside = shrunk
    return depth


def _fits(mask: np.ndarray, half_w: int, half_h: int) -> np.ndarray:
    """[n, n] bool: a rectangle of the given half sizes (pixels) centred here lies inside ``mask``."""
    n = mask.shape[0]
    total = np.zeros((n + 1, n + 1), dtype=np.int32)
    total[1:, 1:] = mask.cumsum(0).cumsum(1)
    ys, xs = np.mgrid[0:n, 0:n]
    y0, y1, x0, x1 = ys - half_h, ys + half_h + 1, xs - half_w, xs + half_w + 1
    inside = (y0 >= 0) & (x0 >= 0) & (y1 <= n) & (x1 <= n)
    y0, y1, x0, x1 = (np.clip(a, 0, n) for a in (y0, y1, x0, x1))
    count = total[y1, x1] - total[y0, x1] - total[y1, x0] + total[y0, x0]
    return inside & (count == (2 * half_h + 1) * (2 * half_w + 1))


@dataclass(frozen=True)
class _Item:
    zone: int
    half_w: float  # unit-square half sizes of the item's box
    half_h: float
    occupant: bool = False


def _place_items(labels: np.ndarray, items: list[_Item], fixed: list[tuple[np.ndarray, _Item]]) -> list[np.ndarray]:
    """Greedy spots (unit coordinates) for boxes, each inside its own zone and clear of all others.

    Each item goes where its box fits inside its zone, as close to the zone's
    middle as possible and apart from the items (and ``fixed`` boxes) before it;
    failing that, where it has the most room.
    """
    n = labels.shape[0]
    placed = list(fixed)
    spots = []
    depths: dict[int, np.ndarray] = {}
    for item in items:
        mask = labels == item.zone
        if not mask.any():  # too thin to show at this resolution
            spots.append(np.array([0.5, 0.5]))
            continue
        if item.zone not in depths:
            depths[item.zone] = _depth(mask)
        ys, xs = np.nonzero(mask)
        points = np.stack([(xs + 0.5) / n, (ys + 0.5) / n], axis=1)
        low, high = np.array([item.half_w, item.half_h]) + 0.01, 0.99 - np.array([item.half_w, item.half_h])
        on_tile = ((points >= low) & (points <= high)).all(axis=1)  # the item would not hang over the edge
        fits = _fits(mask, int(item.half_w * n), int(item.half_h * n))[ys, xs]
        clear = np.ones(len(points), dtype=bool)
        for at, other in placed:
            gap = 0.04
            clear &= (np.abs(points[:, 0] - at[0]) >= item.half_w + other.half_w + gap) | (
                np.abs(points[:, 1] - at[1]) >= item.half_h + other.half_h + gap
            )
        room = np.minimum(depths[item.zone][ys, xs] / n, min(item.half_w, item.half_h))
        near = -np.linalg.norm(points - points.mean(axis=0), axis=1)
        score = np.where(fits & clear, 10.0, np.where(clear, 5.0, 0.0)) + 20.0 * on_tile + 3.0 * room + near
        spot = np.clip(points[int(np.argmax(score))], low, high)
        spots.append(spot)
        placed.append((spot, item))
    return spots


ANIMAL_RADIUS, OCCUPANT_RADIUS = 0.1, 0.13
FARMER_BOX = (0.16, 0.1)  # a lying meeple is wider than tall
PLOT_FIGURE_OFFSET = np.array([0.07, 0.06])  # a figure on a monastery or garden stands off its middle
GEOMETRY_GRID = 64  # resolution at which content spots are chosen
FISH_BOX = (0.13, 0.07)  # unit-square half size of a river's or lake's fish (the others: Glyph.box)


def _label_half_size(special: str) -> tuple[float, float]:
    """Unit-square half sizes of a special power's sign (one word per line)."""
    words = _special_words(special).split()
    return 0.04 + 0.036 * max(len(w) for w in words), 0.03 + 0.06 * len(words)


@cache
def tile_geometry(ruleset: str, tile: int, rotation: int) -> TileGeometry:
    """Zone shapes and the spots for contents and occupants, derived from the catalogue entry.

    Contents are placed biggest first (signs, glyphs, animals), then one spot per
    zone for an occupant, all apart from each other so that nothing hides anything.
    """
    shapes = _shapes(ruleset, tile, rotation)
    zones = tile_zones(ruleset, tile)
    labels = _zone_raster(ruleset, tile, rotation, GEOMETRY_GRID)
    contents: dict[int, list[np.ndarray]] = {z: [] for z in zones}
    occupant_at: dict[int, np.ndarray] = {}
    fixed = []  # lakes: the fish in the middle, a sign below, a hut on the shore
    for z, centre in shapes.pools.items():
        if zones[z].special:
            contents[z].append(centre + np.array([0.0, POOL_RADIUS + 0.1]))
            fixed.append((contents[z][-1], _Item(z, *_label_half_size(zones[z].special))))
        contents[z].append(centre)
        fixed.append((centre, _Item(z, POOL_RADIUS, POOL_RADIUS)))
        occupant_at[z] = np.clip(centre + np.array([0.17, -0.16]), 0.14, 0.86)  # a hut on the shore
        fixed.append((occupant_at[z], _Item(z, 0.1, 0.1, occupant=True)))
    for z, centre in shapes.plots.items():  # the building or garden in the middle, its figure beside
        contents[z].append(centre)
        occupant_at[z] = centre + PLOT_FIGURE_OFFSET
        fixed.append((centre, _Item(z, PLOT_HALF, PLOT_HALF, occupant=True)))
    for z, centre in shapes.ponds.items():
        fixed.append((centre, _Item(z, POND_RADIUS, POND_RADIUS)))
    for centre in shapes.crossings:
        fixed.append((centre, _Item(-1, CROSSING_RADIUS, CROSSING_RADIUS)))
    wanted: list[_Item] = []
    for z, zone in zones.items():
        if _shape_of(ruleset, zone) != "pool" and zone.special:
            wanted.append(_Item(z, *_label_half_size(zone.special)))
    for z in zones:
        if z not in shapes.pools and z not in shapes.plots:  # theirs are in their middle
            boxes = [
                FISH_BOX if g == "fish" else presentation(ruleset).glyphs[g].box for g in zone_glyphs(ruleset, tile, z)
            ]
            wanted += [_Item(z, *box) for box in boxes]
    for z, zone in zones.items():
        wanted += [_Item(z, ANIMAL_RADIUS, ANIMAL_RADIUS)] * len(zone.animals)
    for z, zone in zones.items():
        if z in occupant_at or zone_kind(ruleset, tile, z) == Z_DIVIDER:  # nobody stands on a divider (a river)
            continue
        half = FARMER_BOX if _look(ruleset, zone).lying else (OCCUPANT_RADIUS, OCCUPANT_RADIUS)
        wanted.append(_Item(z, *half, occupant=True))
    for item, spot in zip(wanted, _place_items(labels, wanted, fixed)):
        if item.occupant:
            occupant_at[item.zone] = spot
        else:
            contents[item.zone].append(spot)
    return TileGeometry(shapes, contents, occupant_at)


# ---------------------------------------------------------------- image: drawing

PLAYER_COLORS = ((214, 39, 40), (31, 97, 214), (0, 158, 115), (240, 200, 0), (148, 60, 190))
PLAYER_COLOR_NAMES = ("red", "blue", "green", "yellow", "purple")
TABLE_COLOR = (238, 232, 218)
GRID_COLOR = (214, 206, 188)
INK = (30, 30, 30)
HIGHLIGHT = (255, 128, 0)  # frame of the tile placed last
CANCEL_COLOR = (200, 0, 0)  # the cross over animals cancelled by the hunting trap
ANIMAL_STYLE = {  # fill, letter colour
    "mammoth": ((120, 72, 40), (255, 255, 255)),
    "aurochs": ((45, 45, 45), (255, 255, 255)),
    "deer": ((222, 170, 96), (40, 25, 10)),
    "tiger": ((245, 130, 20), (0, 0, 0)),
}
SUPERSAMPLE = 3  # shapes are drawn larger and scaled down, for smooth edges
PANEL_WIDTH = 300
PANEL_HEIGHT, SEAT_HEIGHT = 600, 50  # the picture's least height with two seats, and what each other seat adds
LATEST_EVENTS = 5  # the panel's latest scoring events, as many of them as fit


def _pil() -> tuple:
    """Pillow's modules, or a clear error naming the optional extra."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("drawing the board needs Pillow, an optional extra: pip install 'hg-env[render]'") from err
    return Image, ImageDraw, ImageFont


@cache
def _font(size: int) -> ImageFont.ImageFont:
    _, _, ImageFont = _pil()
    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1 with FreeType: a scalable font
    except (TypeError, ValueError, OSError):
        return ImageFont.load_default()


def _text_centered(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: tuple) -> None:
    draw.text(xy, text, fill=fill, font=_font(size), anchor="mm")


def _shape(cx: float, cy: float, s: float, points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    return [(cx + x * s, cy + y * s) for x, y in points]


def _fish(draw: ImageDraw.ImageDraw, cx: float, cy: float, length: float, fill: tuple) -> None:
    """A fish facing right: an oval body and a triangular tail."""
    h = length * 0.45
    draw.ellipse((cx - length * 0.35, cy - h / 2, cx + length * 0.5, cy + h / 2), fill=fill)
    draw.polygon([(cx - length * 0.3, cy), (cx - length * 0.6, cy - h / 2), (cx - length * 0.6, cy + h / 2)], fill=fill)


def person(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple, lying: bool = False) -> None:
    """A meeple-like figure centred on (cx, cy): head, arms and legs; ``lying`` on its back, head east
    (a farmer). The figure both H&G's pawn and Carcassonne's meeple are drawn as, and any piece whose
    ruleset declares no artwork of its own (``Presentation.figures``)."""
    s = size / 2
    body = [
        (-0.22, -0.55), (0.22, -0.55), (0.3, -0.3), (0.95, -0.18), (0.95, 0.08), (0.35, 0.12),
        (0.6, 0.95), (0.12, 0.95), (0.0, 0.55), (-0.12, 0.95), (-0.6, 0.95), (-0.35, 0.12),
        (-0.95, 0.08), (-0.95, -0.18), (-0.3, -0.3),
    ]  # fmt: skip
    head = [(-0.33, -1.0), (0.33, -0.4)]
    if lying:  # a quarter turn clockwise: (x, y) -> (-y, x)
        body = [(-y, x) for x, y in body]
        head = [(0.4, -0.33), (1.0, 0.33)]
    draw.polygon(_shape(cx, cy, s, body), fill=fill, outline=INK, width=2)
    draw.ellipse(_shape(cx, cy, s, head), fill=fill, outline=INK, width=2)


def _figure(
    draw: ImageDraw.ImageDraw, ruleset: str, piece: int, lying: bool, cx: float, cy: float, size: float, fill: tuple
) -> None:
    """An occupant of ``piece`` centred on (cx, cy), in its ruleset's artwork (``Presentation.figures``: H&G's
    hut, Carcassonne's abbot), else as a ``person`` (``lying``: a farmer)."""
    presentation(ruleset).figures.get(piece, person)(draw, cx, cy, size, fill, lying)


def _figure_size(piece: int, tile_px: int) -> float:
    """Drawn size of an occupant on a tile of ``tile_px`` pixels."""
    return tile_px * (0.26 if piece == SYSTEM_PIECE else 0.3)


def _animal_token(draw: ImageDraw.ImageDraw, cx: float, cy: float, radius: float, animal: str) -> None:
    fill, letter = ANIMAL_STYLE[animal]
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=fill, outline=INK, width=1)
    if animal == "tiger":  # stripes, so the tiger reads apart from the deer
        for dx in (-0.45, 0.45):
            draw.line((cx + dx * radius, cy - radius * 0.85, cx + dx * radius * 0.7, cy - radius * 0.4), fill=INK)
    _text_centered(draw, (cx, cy + 0.5), ANIMAL_CHAR[animal], max(8, int(radius * 1.45)), letter)


def _content_spots(ruleset: str, tile: int, rotation: int, local: int) -> dict[str, list[np.ndarray]]:
    """Unit-square spots of a zone's ``label`` (special power), ``glyph`` (one per ``zone_glyphs`` entry) and
    ``animals``, in the order ``tile_geometry`` placed them."""
    zone = tile_zones(ruleset, tile)[local]
    spots = list(tile_geometry(ruleset, tile, rotation).contents[local])
    out: dict[str, list[np.ndarray]] = {"label": [], "glyph": [], "animals": []}
    if zone.special:
        out["label"].append(spots.pop(0))
    out["glyph"] = [spots.pop(0) for _ in zone_glyphs(ruleset, tile, local)]
    out["animals"] = spots
    return out


def _animal_positions(ruleset: str, tile: int, rotation: int, local: int, px: int) -> list[tuple[str, float, float]]:
    """(animal, x, y) in tile pixels."""
    animals = tile_zones(ruleset, tile)[local].animals
    spots = _content_spots(ruleset, tile, rotation, local)["animals"]
    return [(a, p[0] * px, p[1] * px) for a, p in zip(animals, spots)]


def _wall_runs(polygon: np.ndarray) -> list[np.ndarray]:
    """The stretches of a city's outline inside the tile (its walls), as polylines; edges along the
    tile's border are left open, so that a city spanning tiles reads as one."""
    n = len(polygon)

    def on_border(p: np.ndarray, q: np.ndarray) -> bool:
        return any(abs(p[i] - v) < 1e-9 and abs(q[i] - v) < 1e-9 for i in (0, 1) for v in (0.0, 1.0))

    inner = [not on_border(polygon[i], polygon[(i + 1) % n]) for i in range(n)]
    if not any(inner):
        return []
    start = inner.index(False)
    runs, current = [], []
    for k in range(1, n + 1):
        i = (start + k) % n
        if inner[i]:
            current = current or [polygon[i]]
            current.append(polygon[(i + 1) % n])
        elif current:
            runs.append(np.array(current))
            current = []
    return runs + ([np.array(current)] if current else [])


def _walled(draw: ImageDraw.ImageDraw, polygon: np.ndarray, size: int, look: Terrain) -> None:
    """A walled polygon (a city): its fill, walled where it meets the other zones of the tile."""
    draw.polygon([tuple(p) for p in polygon * size], fill=look.fill)
    for run in _wall_runs(polygon):
        draw.line([tuple(p) for p in run * size], fill=look.edge, width=max(2, int(0.05 * size)), joint="curve")


@cache
def ground(ruleset: str, tile: int | None = None) -> Terrain:
    """The terrain a tile's background is drawn in: its first ``ground`` zone's, else its ruleset's first
    ``ground`` terrain (``tile=None``: the ruleset's), else ``presentation.GROUND``."""
    zones = tile_zones(ruleset, tile).values() if tile is not None else ()
    looks = [_look(ruleset, z) for z in zones] + list(presentation(ruleset).terrains.values())
    return next((look for look in looks if look.shape == "ground"), GROUND)


def _draw_tile_shapes(draw: ImageDraw.ImageDraw, ruleset: str, tile: int, rotation: int, size: int) -> None:
    """The ground (meadows, fields), polygons (forests), streams and paths (rivers, roads), walled polygons
    (cities) and pools (lakes), in their ruleset's ``Terrain`` colours, at ``size`` pixels (supersampled)."""
    shapes = _shapes(ruleset, tile, rotation)
    zones = tile_zones(ruleset, tile)
    forests, bands, cities = _layers(ruleset, tile, shapes)
    draw.rectangle((0, 0, size, size), fill=ground(ruleset, tile).fill)
    for z in forests:
        look = _look(ruleset, zones[z])
        draw.polygon(
            [tuple(p) for p in shapes.polygons[z] * size], fill=look.fill, outline=look.edge, width=SUPERSAMPLE
        )
    for z in bands:
        look = _look(ruleset, zones[z])
        points = [tuple(p) for p in shapes.bands[z] * size]
        width = int(look.width * size)
        if look.shape == "path":  # a pale road between darker verges
            draw.line(points, fill=look.edge, width=width, joint="curve")
            draw.line(points, fill=look.fill, width=int(width * 0.68), joint="curve")
            continue
        draw.line(points, fill=look.fill, width=width, joint="curve")
        if _is_spring(ruleset, tile, zones[z]):  # the river starts here
            x, y = points[-1]
            r = width * 0.6
            draw.ellipse((x - r, y - r, x + r, y + r), fill=look.edge)
    for z in cities:
        _walled(draw, shapes.polygons[z], size, _look(ruleset, zones[z]))
    r = POOL_RADIUS * size
    for z, centre in shapes.pools.items():
        look = _look(ruleset, zones[z])
        x, y = centre * size
        draw.ellipse((x - r, y - r, x + r, y + r), fill=look.fill, outline=look.edge, width=2 * SUPERSAMPLE)
    r = POND_RADIUS * size
    for z, centre in shapes.ponds.items():
        look = _look(ruleset, zones[z])
        x, y = centre * size
        draw.ellipse((x - r, y - r, x + r, y + r), fill=look.pool, outline=look.edge, width=2 * SUPERSAMPLE)
    r = CROSSING_RADIUS * size
    for centre in shapes.crossings:  # where roads meet: a village square with a well
        look = next(_look(ruleset, z) for z in zones.values() if _shape_of(ruleset, z) == "path")
        x, y = centre * size
        draw.ellipse((x - r, y - r, x + r, y + r), fill=look.fill, outline=look.edge, width=SUPERSAMPLE)
        draw.rectangle((x - r * 0.4, y - r * 0.4, x + r * 0.4, y + r * 0.4), fill=(150, 100, 60))


def _meadow_borders(ruleset: str, tile: int, rotation: int, px: int) -> np.ndarray:
    """[px, px] bool: pixels where two different meadows (fields) of the tile touch."""
    labels = _zone_raster(ruleset, tile, rotation, px)
    zones = tile_zones(ruleset, tile)
    meadow = np.isin(labels, [z for z, zone in zones.items() if _shape_of(ruleset, zone) == "ground"])
    border = np.zeros(labels.shape, dtype=bool)
    across = meadow[:, 1:] & meadow[:, :-1] & (labels[:, 1:] != labels[:, :-1])
    down = meadow[1:, :] & meadow[:-1, :] & (labels[1:, :] != labels[:-1, :])
    border[:, 1:] |= across
    border[:, :-1] |= across
    border[1:, :] |= down
    border[:-1, :] |= down
    return border


def _draw_tile_marks(draw: ImageDraw.ImageDraw, ruleset: str, tile: int, rotation: int, px: int) -> None:
    """Animals, fish, menhirs, gold, mushrooms, specials, coats of arms, monasteries and gardens, at the
    final size (crisp)."""
    for z, zone in tile_zones(ruleset, tile).items():
        spots = _content_spots(ruleset, tile, rotation, z)
        for glyph, spot in zip(zone_glyphs(ruleset, tile, z), spots["glyph"]):
            x, y = spot * px
            if glyph == "fish":
                _fish(draw, x - px * 0.05, y, px * 0.13, (255, 255, 255))
                _text_centered(draw, (x + px * 0.06, y), str(zone.fish), max(10, px // 6), (255, 255, 255))
            else:
                art = presentation(ruleset).glyphs[glyph]
                art.draw(draw, x, y, px * art.size)
        for animal, ax, ay in _animal_positions(ruleset, tile, rotation, z, px):
            _animal_token(draw, ax, ay, px * ANIMAL_RADIUS * 0.95, animal)
        for spot in spots["label"]:
            _special_label(draw, spot * px, _special_words(zone.special), max(9, px // 9), px)


def _special_label(draw: ImageDraw.ImageDraw, at: np.ndarray, text: str, size: int, tile_px: int) -> None:
    """A special power's name on a small sign, one word per line."""
    font = _font(size)
    words = text.upper().split()
    line_h = size + 1
    top = at[1] - line_h * len(words) / 2
    boxes = [draw.textbbox((at[0], top + (i + 0.5) * line_h), w, font=font, anchor="mm") for i, w in enumerate(words)]
    left, right = min(b[0] for b in boxes) - 3, max(b[2] for b in boxes) + 3
    shift = max(0.0, 2 - left) - max(0.0, right - (tile_px - 3))  # keep the sign on the tile
    box = (left + shift, min(b[1] for b in boxes) - 2, right + shift, max(b[3] for b in boxes) + 2)
    draw.rounded_rectangle(box, radius=3, fill=(255, 250, 230), outline=(150, 40, 20))
    for i, word in enumerate(words):
        draw.text((at[0] + shift, top + (i + 0.5) * line_h), word, fill=(150, 40, 20), font=font, anchor="mm")


TILE_FRAME = (90, 110, 60)


@dataclass(frozen=True)
class TileArt:
    """The artwork of a placed tile ``px`` pixels wide, the one description both pictures draw (the PNG
    here, the SVG in ``hg_env.svg``): ``shapes`` (meadows, forests, rivers, roads, cities, lakes) sketched
    ``SUPERSAMPLE`` times larger (the PNG draws them large and scales down for smooth edges), the
    ``border`` pixels where two meadows (fields) meet, and the ``marks`` at the final size (animals, fish,
    glyphs, signs of special powers, the frame)."""

    px: int
    shapes: tuple[Mark, ...]
    border: np.ndarray
    marks: tuple[Mark, ...]


@cache
def tile_art(ruleset: str, tile: int, rotation: int, px: int) -> TileArt:
    """The artwork of a tile as placed, without occupants (cached; do not modify)."""
    shapes, marks = Sketch(), Sketch()
    _draw_tile_shapes(shapes, ruleset, tile, rotation, px * SUPERSAMPLE)
    _draw_tile_marks(marks, ruleset, tile, rotation, px)
    marks.rectangle((0, 0, px - 1, px - 1), outline=TILE_FRAME)
    border = _meadow_borders(ruleset, tile, rotation, px)
    border.flags.writeable = False
    return TileArt(px, tuple(shapes.marks), border, tuple(marks.marks))


@cache
def _tile_image(ruleset: str, tile: int, rotation: int, px: int) -> Image.Image:
    """A placed tile without occupants (``tile_art`` drawn with Pillow), cached per (ruleset, tile, rotation, size)."""
    Image, ImageDraw, _ = _pil()
    art = tile_art(ruleset, tile, rotation, px)
    big = Image.new("RGB", (px * SUPERSAMPLE, px * SUPERSAMPLE))
    paint(ImageDraw.Draw(big), list(art.shapes), _font)
    image = big.resize((px, px), Image.Resampling.LANCZOS)
    pixels = np.asarray(image).copy()
    pixels[art.border] = ground(ruleset, tile).edge
    image = Image.fromarray(pixels)
    paint(ImageDraw.Draw(image), list(art.marks), _font)
    return image


def _cancelled_by_zone(game: GameView, tile: int) -> dict[int, dict[str, int]]:
    """Local zone -> {animal: count cancelled by the hunting trap} (R7.10)."""
    cancelled = game.state.ruleset_arrays.get("cancelled")  # hg2020's own array (Ruleset.arrays)
    if cancelled is None:
        return {}
    tile_zone = game.rules.spec.tiles.TILE_ZONE
    out = {}
    for local in tile_zones(game.ruleset, tile):
        z = int(tile_zone[tile, local])
        counts = cancelled[0, z]
        if counts.any():
            out[local] = {a: int(n) for a, n in zip(ANIMALS, counts) if n}
    return out


@dataclass(frozen=True)
class BoardLayout:
    """Pixel geometry of a board picture: which positions it shows and where."""

    bounds: tuple[int, int, int, int]  # xmin, xmax, ymin, ymax (inclusive)
    tile_px: int
    left: int  # pixel of the board's west edge
    top: int  # pixel of the board's north edge

    @property
    def columns(self) -> int:
        return self.bounds[1] - self.bounds[0] + 1

    @property
    def rows(self) -> int:
        return self.bounds[3] - self.bounds[2] + 1

    def shows(self, x: int, y: int) -> bool:
        """Whether position (x, y) lies inside the shown bounds."""
        return self.bounds[0] <= x <= self.bounds[1] and self.bounds[2] <= y <= self.bounds[3]

    def cell_origin(self, x: int, y: int) -> tuple[int, int]:
        """Pixel of the NW corner of position (x, y)."""
        return self.left + (x - self.bounds[0]) * self.tile_px, self.top + (y - self.bounds[2]) * self.tile_px

    def point(self, x: int, y: int, unit: np.ndarray) -> tuple[int, int]:
        """Pixel of a unit-square point on the tile at (x, y)."""
        ox, oy = self.cell_origin(x, y)
        return round(ox + unit[0] * self.tile_px), round(oy + unit[1] * self.tile_px)

    def occupant_pixel(self, game: GameView, x: int, y: int, local: int) -> tuple[int, int]:
        """Where the occupant on local zone ``local`` of the tile at (x, y) is drawn (its body's centre)."""
        tile, rot = game.tile_at(x, y)
        return self.point(x, y, tile_geometry(game.ruleset, tile, rot).occupant_at[local])


def board_layout(game: GameView, tile_px: int = 80, bounds: tuple[int, int, int, int] | None = None) -> BoardLayout:
    """The layout ``render_rgb`` uses for this game (same arguments)."""
    ruler = max(18, tile_px // 4)
    return BoardLayout(bounds or board_bounds(game), tile_px, left=ruler, top=ruler)


def render_rgb(
    game: GameView,
    tile_px: int = 80,
    bounds: tuple[int, int, int, int] | None = None,
    names: list[str] | None = None,
    show_zone_numbers: bool = True,
    texts: list[str] | None = None,
) -> np.ndarray:
    """[H, W, 3] uint8 picture: the board (cropped, with a one-cell margin) and a side panel.

    ``bounds`` fixes the shown positions (e.g. the final board's, for an animation); ``names`` labels the
    seats (``P0 (greedy)``, by each seat's colour); ``show_zone_numbers`` labels the zones of the tile just
    placed while it awaits an occupant (the key explains them). ``texts``, if given, receives every string
    the picture sets, in drawing order.
    """
    Image, ImageDraw, _ = _pil()
    picture = sketch_picture(game, tile_px, bounds, names, show_zone_numbers)
    image = Image.new("RGB", picture.size, TABLE_COLOR)

    def put_tile(mark: Mark) -> None:
        image.paste(_tile_image(*mark.data[:3], int(mark.size)), tuple(round(v) for v in mark.points[0]))

    paint(ImageDraw.Draw(image), picture.sketch.marks, _font, tile=put_tile)
    if texts is not None:
        texts.extend(picture.sketch.texts)
    return np.asarray(image, dtype=np.uint8).copy()


@dataclass(frozen=True)
class Picture:
    """A game's picture as marks (``hg_env.sketch``): what ``render_rgb`` paints and ``hg_env.svg`` writes."""

    sketch: Sketch
    size: tuple[int, int]  # width, height in pixels
    layout: BoardLayout
    board_width: int  # the panel starts here


def sketch_picture(
    game: GameView,
    tile_px: int = 80,
    bounds: tuple[int, int, int, int] | None = None,
    names: list[str] | None = None,
    show_zone_numbers: bool = True,
) -> Picture:
    """The board (cropped, with a one-cell margin) and the side panel, sketched (``render_rgb``'s arguments)."""
    layout = board_layout(game, tile_px, bounds)
    board_w = layout.left + layout.columns * tile_px + 8
    board_h = layout.top + layout.rows * tile_px + 8
    height = max(board_h, PANEL_HEIGHT + SEAT_HEIGHT * (game.num_players - 2))
    events = LATEST_EVENTS
    while True:  # fewer (whole) events rather than a taller picture: a replay's frames keep one size
        needed = _draw_panel(Sketch(), game, 0, PANEL_WIDTH, height, names, show_zone_numbers, events)
        if needed <= height:
            break
        if events > 1:
            events -= 1
        else:
            height = needed
    sketch = Sketch()
    sketch.begin("board")
    _draw_board(sketch, game, layout, show_zone_numbers)
    sketch.end()
    sketch.begin("panel")
    _draw_panel(sketch, game, board_w, board_w + PANEL_WIDTH, height, names, show_zone_numbers, events)
    sketch.end()
    return Picture(sketch, (board_w + PANEL_WIDTH, height), layout, board_w)


def _draw_board(draw: Sketch, game: GameView, layout: BoardLayout, numbers: bool) -> None:
    px = layout.tile_px
    ruleset = game.ruleset
    xmin, xmax, ymin, ymax = layout.bounds
    legal = _legal_positions(game)
    for x in range(xmin, xmax + 1):
        cx, _ = layout.cell_origin(x, ymin)
        _text_centered(draw, (cx + px / 2, layout.top / 2), f"x={x}", max(9, px // 7), (90, 80, 60))
    for y in range(ymin, ymax + 1):
        _, cy = layout.cell_origin(xmin, y)
        _text_centered(draw, (layout.left / 2, cy + px / 2), str(y), max(9, px // 7), (90, 80, 60))
    for y in range(ymin, ymax + 1):
        for x in range(xmin, xmax + 1):
            ox, oy = layout.cell_origin(x, y)
            placed = game.tile_at(x, y)
            if placed is not None:
                draw.begin("tile", x=x, y=y, tile=placed[0], rotation=placed[1])
                draw.tile((ox, oy), px, ruleset, placed[0], placed[1], cell=(x, y))
                draw.end()
            elif (x, y) in legal:  # where the tile to place fits
                draw.rectangle((ox + 3, oy + 3, ox + px - 4, oy + px - 4), outline=(150, 140, 115), width=2)
                _text_centered(draw, (ox + px / 2, oy + px / 2), f"{x},{y}", max(9, px // 7), (130, 120, 95))
            else:
                draw.rectangle((ox, oy, ox + px - 1, oy + px - 1), outline=GRID_COLOR)
    _draw_cancelled(draw, game, layout)
    for seat, kind, x, y, local in game.occupants():
        if layout.shows(x, y):
            draw_occupant(draw, game, layout, seat, kind, x, y, local)
    last = _last_position(game)
    if last is not None and layout.shows(*last):
        ox, oy = layout.cell_origin(*last)
        draw.rectangle((ox - 2, oy - 2, ox + px + 1, oy + px + 1), outline=INK, width=1)
        draw.rectangle((ox - 1, oy - 1, ox + px, oy + px), outline=HIGHLIGHT, width=4)
        if _zone_numbers_shown(game, numbers):
            _draw_zone_numbers(draw, game, layout, last)


def draw_occupant(
    draw: Sketch, game: GameView, layout: BoardLayout, seat: int, kind: str, x: int, y: int, local: int
) -> None:
    """A figure on its zone, in its seat's colour (lying down where its terrain says so: a farmer), grouped
    as ``occupant`` with its seat, kind, cell and zone."""
    cx, cy = layout.occupant_pixel(game, x, y, local)
    tile, _ = game.tile_at(x, y)
    lying = _look(game.ruleset, tile_zones(game.ruleset, tile)[local]).lying
    piece = _figure_piece(game.ruleset, kind)
    draw.begin("occupant", seat=seat, kind=kind, x=x, y=y, zone=local)
    _figure(draw, game.ruleset, piece, lying, cx, cy, _figure_size(piece, layout.tile_px), PLAYER_COLORS[seat])
    draw.end()


def _draw_cancelled(draw: ImageDraw.ImageDraw, game: GameView, layout: BoardLayout) -> None:
    """Cross out animals cancelled by the hunting trap (R7.10)."""
    px = layout.tile_px
    for tile, x, y, rot in game.placed_tiles():
        if not layout.shows(x, y):
            continue
        for local, counts in _cancelled_by_zone(game, tile).items():
            left = dict(counts)
            for animal, ax, ay in _animal_positions(game.ruleset, tile, rot, local, px):
                if left.get(animal, 0) <= 0:
                    continue
                left[animal] -= 1
                ox, oy = layout.cell_origin(x, y)
                cx, cy, r = ox + ax, oy + ay, px * ANIMAL_RADIUS * 0.95
                # A faded token under a red cross: still readable, clearly out of the game.
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(215, 215, 210), outline=(150, 150, 150))
                _text_centered(draw, (cx, cy + 0.5), ANIMAL_CHAR[animal], max(8, int(r * 1.45)), (130, 130, 130))
                r *= 1.15
                for sign in (1, -1):
                    draw.line((cx - r, cy - sign * r, cx + r, cy + sign * r), fill=CANCEL_COLOR, width=3)


def _draw_zone_numbers(draw: ImageDraw.ImageDraw, game: GameView, layout: BoardLayout, at: tuple[int, int]) -> None:
    """Label the zones an occupant may go on with their local ids (``pawn 2``, ``hut 8``, ``meeple 2``)."""
    tile, rot = game.tile_at(*at)
    geo = tile_geometry(game.ruleset, tile, rot)
    r = layout.tile_px * 0.08
    for local in sorted({z for _, z in game.legal_occupants()}):
        cx, cy = layout.point(*at, geo.occupant_at[local])
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 255, 255), outline=INK, width=2)
        _text_centered(draw, (cx, cy + 0.5), str(local), max(9, int(r * 1.5)), INK)


def _draw_panel(
    draw: Sketch,
    game: GameView,
    left: int,
    width: int,
    height: int,
    names: list[str] | None,
    numbers: bool,
    events: int = LATEST_EVENTS,
) -> int:
    """Scores, supplies, the tile to place, deck counts, the latest ``events`` scoring events and a key, in
    the panel from pixel ``left`` to ``width``; returns the height it needs."""
    spec = game.rules.spec
    x0, y = left + 12, 14
    right = width - 10  # the panel's text ends here
    draw.rectangle((left, 0, width, height), fill=(250, 247, 240))
    draw.line((left, 0, left, height), fill=GRID_COLOR, width=2)
    draw.text((x0, y), spec.title.split(" (")[0], fill=INK, font=_font(18))
    y += 30
    kinds = _supply_kinds(game)
    for seat in range(game.num_players):
        color = PLAYER_COLORS[seat]
        turn = seat == game.current_player and not game.is_over
        if turn:
            draw.polygon([(x0 - 10, y + 4), (x0 - 3, y + 10), (x0 - 10, y + 16)], fill=INK)
        draw.rectangle((x0, y + 2, x0 + 16, y + 18), fill=color, outline=INK)
        label = f"{player_name(seat, names)}: {game.scores[seat]}"  # the seat's name by its colour
        draw.tag("score", seat=seat, score=game.scores[seat])
        y = _text_lines(draw, (x0 + 24, y + 1), label, 16, INK, right) - 19
        supply = dict(zip((k.name for k in spec.occupants), game.supply(seat)))
        sx = x0 + 30
        for i, (kind, piece) in enumerate(kinds):
            sx += 8 * (i > 0)
            for _ in range(supply[kind]):
                _figure(draw, game.ruleset, piece, False, sx, y + 32, 15, color)
                sx += 17 if piece == SYSTEM_PIECE else 15
        draw.text((right, y + 32), supply_text(game, seat), fill=(90, 90, 90), font=_font(SMALL_TEXT), anchor="rm")
        y += SEAT_HEIGHT
    y += 4
    if game.is_over:
        winners = " & ".join(player_name(p, names) for p in game.winners)
        y = _text_lines(draw, (x0, y), f"Game over. Winner: {winners}", 14, INK, right) + 6
    else:
        who = player_name(game.current_player, names)
        extra = " (extra turn)" if game.extra_turn else ""
        occupy = "may add a " + occupant_kinds_text(game, articles=False)
        asked = asked_decisions(game) if game.phase == "occupy" and not game.legal_occupants() else []
        if asked:  # no figure to put: the first decision asked beside them says what the seat may do
            occupy = "may " + decision_words(game, asked[0][0])
        verb = {"place": "to place", "occupy": occupy}
        verb |= {phase: words.picture for phase, words in presentation(game.ruleset).phases.items() if words.picture}
        y = _text_lines(draw, (x0, y), f"{who} {verb.get(game.phase, game.phase)}{extra}", 14, INK, right) + 4
        tile = game.tile_to_place
        if game.phase == "place" and tile is not None:
            size = 96
            draw.begin("next-tile", tile=tile)
            draw.tile((x0, y), size, game.ruleset, tile, 0)
            draw.rectangle((x0 - 1, y - 1, x0 + size, y + size), outline=INK)
            draw.end()
            draw.text((x0 + size + 10, y + 4), f"tile {tile}", fill=INK, font=_font(16))
            for i, line in enumerate(("shown as r0;", "r1, r2, r3 turn it", "clockwise by quarters")):
                draw.text((x0 + size + 10, y + 28 + 17 * i), line, fill=(90, 90, 90), font=_font(SMALL_TEXT))
            y += size + 10
    regular, extra_left = game.deck_sizes
    deck = f"{regular} regular, {extra_left} {spec.extra_deck}" if spec.extra_deck else str(regular)
    draw.text((x0, y), f"Tiles left: {deck}", fill=INK, font=_font(13))
    y += 24
    recent = [e for e in game.events if e["type"] not in ("TILE_DISCARDED",)][-events:]
    if recent:
        draw.text((x0, y), "Latest:", fill=INK, font=_font(13))
        y += 18
        for event in recent:  # whole sentences, wrapped at spaces; later lines indented
            y = (
                _text_lines(
                    draw, (x0 + 4, y), describe_event(event, ruleset=game.ruleset), SMALL_TEXT, (60, 60, 60), right, 10
                )
                + 3
            )
        y += 6
    key_height = _draw_key(Sketch(), game, x0, 0, numbers)
    key_top = max(y, height - key_height - 8)
    draw.begin("legend")
    bottom = _draw_key(draw, game, x0, key_top, numbers) + 8
    draw.end()
    return bottom


SMALL_TEXT = 13  # the panel's small print; Aileron's spaces vanish below 13 pixels ("4tiles")


def _wrap(text: str, size: int, width: float, indent: float = 0) -> list[str]:
    """``text`` in lines no wider than ``width`` pixels (later lines ``indent`` less), broken at spaces; a word
    longer than a whole line fills the line it starts on and is broken where it must."""
    font = _font(size)
    lines: list[str] = []

    def fits(line: str) -> bool:
        return font.getlength(line) <= width - (indent if lines else 0)

    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if fits(candidate):
            line = candidate
            continue
        if line and font.getlength(word) <= width - indent:  # the word fits on a line of its own
            lines.append(line)
            line = word
            continue
        line = candidate
        while len(line) > 1 and not fits(line):
            cut = next((i for i in range(len(line) - 1, 0, -1) if fits(line[:i])), 1)
            lines.append(line[:cut].rstrip())
            line = line[cut:].lstrip()
    return [*lines, line] if line else lines


def _text_lines(
    draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: tuple, right: float, indent: int = 0
) -> int:
    """Draw ``text`` wrapped to end before pixel ``right`` (later lines ``indent`` further in); returns the y
    below it."""
    x, y = xy
    for i, line in enumerate(_wrap(text, size, right - x, indent)):
        draw.text((x + (indent if i else 0), y), line, fill=fill, font=_font(size))
        y += size + 4
    return round(y)


def _zone_numbers_shown(game: GameView, numbers: bool) -> bool:
    """Whether the picture numbers the zones of the tile just placed (``_draw_zone_numbers``)."""
    return numbers and game.phase == "occupy" and _last_position(game) is not None and bool(game.legal_occupants())


@cache
def _ruleset_glyphs(ruleset: str) -> tuple[str, ...]:
    """The forest and meadow signs a ruleset's tiles show, in the key's order."""
    found = {g for t in _catalogue_tiles(ruleset) for z in tile_zones(ruleset, t) for g in zone_glyphs(ruleset, t, z)}
    return tuple(g for g, art in presentation(ruleset).glyphs.items() if art.name and g in found)


def _draw_key(draw: ImageDraw.ImageDraw, game: GameView, x0: int, top: int, numbers: bool) -> int:
    """The key: the ruleset's landscape and figures, then the marks on the board; returns the y below it."""
    y = presentation(game.ruleset).key(draw, game, x0, top)  # its landscape and figures
    right = x0 + PANEL_WIDTH - 22
    draw.rectangle((x0 + 1, y + 1, x0 + 17, y + 17), fill=ground(game.ruleset).fill, outline=HIGHLIGHT, width=3)
    y = _text_lines(draw, (x0 + 24, y + 2), "the tile placed last", 12, INK, right) + 4
    if _zone_numbers_shown(game, numbers):
        zone = min(z for _, z in game.legal_occupants())  # one of the numbers on the board
        draw.ellipse((x0 + 1, y + 1, x0 + 17, y + 17), fill=(255, 255, 255), outline=INK, width=2)
        _text_centered(draw, (x0 + 9, y + 9.5), str(zone), 11, INK)
        moves = " or ".join(sorted({f"'{kind} {z}'" for kind, z in game.legal_occupants() if z == zone}))
        text = f"zone {zone} of the tile just placed: a figure may go there ({moves})"
        y = _text_lines(draw, (x0 + 24, y + 2), text, 12, INK, right) + 4
    return y


def save_image(array: np.ndarray, path: str) -> None:
    """Write an [H, W, 3] picture (PNG, or whatever the suffix says)."""
    Image, _, _ = _pil()
    Image.fromarray(array).save(path)
