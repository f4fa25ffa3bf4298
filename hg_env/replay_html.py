"""A replay viewer in one HTML file: ``hgenv replay RECORD --html out.html [--game G] [--agent SPEC]``.

The file needs no network: the record, every position's facts and the drawings are embedded, and plain
JavaScript shows them. Step forward and back (buttons, arrow keys, a slider), play and pause; each step
lists its events in words (``render.describe_event``), a chart shows the scores over time, and hovering a
feature of the board shows its area: its tiles, open sides, figures and the points it is worth now (computed
by the engine at every step). With ``--agent SPEC`` the viewer also shows what that agent thought at each
decision of the seats it plays (``Agent.explain``): a heat map of the placements it weighed, the occupant
choices it listed, beside the move played.

The tiles and figures are the pictures' own artwork (``render.tile_art``, ``render._figure``, written by
``hg_env.svg``): each tile drawn once as an SVG ``<symbol>``, the board of a step built from
``<g class="tile" data-x data-y data-tile data-rotation>`` and ``<g class="occupant" data-seat data-kind
data-x data-y data-zone>`` as in ``board_svg``, the scores ``<td class="score" data-seat data-score>``.

A tournament's ``games.jsonl`` without ``--game`` gives an index page linking one such file per game.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from hg_env.core.areas import ATTACHED_VALUE, OCCUPANTS, OPEN, tile_members
from hg_env.core.observation import observer
from hg_env.core.tiles import DIRECTION_OFFSETS
from hg_env.game import Game
from hg_env.presentation import presentation
from hg_env.render import (
    PLAYER_COLOR_NAMES,
    PLAYER_COLORS,
    BoardLayout,
    Sketch,
    _draw_cancelled,
    _draw_key,
    _zone_raster,
    board_bounds,
    board_layout,
    describe_event,
    draw_occupant,
    occupant_kinds_text,
    player_name,
    side_zones,
    tile_zones,
)
from hg_env.replay_page import PAGE
from hg_env.rule_flags import game_title
from hg_env.sketch import Mark, hex_color, marks_svg
from hg_env.svg import ZONE_GRID, tile_svg

TILE_PX = 80  # pixels of a tile in the viewer's drawings (the page scales them)
TOP_MOVES = 8  # an agent's moves shown per decision


# ---------------------------------------------------------------- what the engine says about a position


def _zone_values(game: Game) -> dict[str, np.ndarray]:
    """Partition name -> [Z] the points each zone's area is worth now, as the observation's ``{type}_value``
    channels count them (``Observer.zone_sums``, for one game and every zone)."""
    obs, z = observer(game.ruleset), game.rules.spec.tiles.num_zones
    value = obs.zone_sums(game.state, np.array([0]))[0, :, ATTACHED_VALUE]
    return {name: value[b * z : (b + 1) * z].copy() for b, name in enumerate(obs.blocks)}


def features(game: Game) -> tuple[list[dict], dict[str, int]]:
    """The areas of the placed tiles' zones: ``[{"name", "tiles": [[x, y], ...], "open", "edges": [[x, y,
    direction], ...] (open sides), "figures": [per seat], "value", "closed"}]`` and ``"x,y,zone"`` -> index.

    A zone belongs to the first area type its ruleset observes it in (``Ruleset.observed_areas``: a lake to
    its river system); a zone of no observed type (Carcassonne's river) has no area."""
    state, spec = game.state, game.rules.spec
    tiles = spec.tiles
    partitions = state.partitions()
    values = _zone_values(game)
    kinds = {}
    for name, partition, types in spec.observed_areas:
        for t in types:
            kinds.setdefault(int(t), (name, partition))
    placed = {(x, y): (tile, rot) for tile, x, y, rot in game.placed_tiles()}
    out: list[dict] = []
    index: dict[tuple[str, int], int] = {}
    zmap: dict[str, int] = {}
    for (x, y), (tile, rot) in sorted(placed.items()):
        for local, drawn in tile_zones(game.ruleset, tile).items():
            zone = int(tiles.TILE_ZONE[tile, local])
            kind = kinds.get(int(tiles.ZONE_TYPE[zone]))
            if kind is None:
                continue
            name, partition = kind
            part = partitions[partition]
            root = int(part.parent[0, zone])
            key = (partition, root)
            if key not in index:
                members = np.flatnonzero(tile_members(part.tiles[0, root], tiles.num_tiles))
                cells = sorted(game.rules.board.xy(int(state.tile_cell[0, t])) for t in members)
                index[key] = len(out)
                out.append(
                    {
                        "name": drawn.type if partition == "area" else name,
                        "tiles": [list(c) for c in cells],
                        "open": int(part.open[0, root]),
                        "edges": [],
                        "figures": [int(v) for v in part.sums[0, root, OCCUPANTS : OCCUPANTS + game.num_players]],
                        "value": int(values[partition][zone]),
                        "closed": int(part.sums[0, root, OPEN]) == 0,
                    }
                )
            feature = out[index[key]]
            zmap[f"{x},{y},{local}"] = index[key]
            for d in range(4):  # open sides: the zone runs off this side and no tile lies beyond it
                dx, dy = (int(v) for v in DIRECTION_OFFSETS[d])
                runs_off = local in side_zones(game.ruleset, tile, rot, d) and (x + dx, y + dy) not in placed
                if runs_off and [x, y, d] not in feature["edges"]:
                    feature["edges"].append([x, y, d])
    return out, zmap


def status_text(game: Game, names: list[str] | None) -> str:
    """Whose decision it is and what it is, or who won."""
    if game.is_over:
        return "Game over. Winner: " + " & ".join(player_name(p, names) for p in game.winners)
    who = player_name(game.current_player, names)
    extra = " (extra turn)" if game.extra_turn else ""
    if game.phase == "place" and game.tile_to_place is not None:
        return f"{who} to place tile {game.tile_to_place}{extra}"
    if game.phase == "occupy":
        return f"{who} may add {occupant_kinds_text(game)}{extra}"
    words = presentation(game.ruleset).phases.get(game.phase)
    return f"{who} {words.board if words else 'to ' + game.phase}{extra}"


def move_facts(game: Game, action: int) -> dict:
    """An action of the position ``game`` in words, with where it goes: ``{"text", "x", "y", "rotation"}``
    for a placement, ``{"text", "zone"}`` for a figure on the tile just placed, ``{"text"}`` otherwise."""
    out: dict = {"text": game.describe(action)}
    decision = game.layout.decode(action)
    if decision[0] == "place":
        out |= {"x": int(decision[1]), "y": int(decision[2]), "rotation": int(decision[3])}
    elif decision[0] in {kind.name for kind in game.rules.spec.occupants}:
        out["zone"] = int(decision[1])
    return out


# ---------------------------------------------------------------- the viewer's data


class _Drawings:
    """The SVG pieces a replay needs once each: tiles (``<symbol>``), their zone rasters, the figures."""

    def __init__(self, ruleset: str, layout) -> None:
        self.ruleset, self.layout = ruleset, layout
        self.symbols: dict[str, str] = {}
        self.rasters: dict[str, str] = {}
        self.figures: dict[str, str] = {}
        self.marks: list[str] = []  # marks over the tiles that change during a game (cancelled animals)
        self._mark_ids: dict[str, int] = {}

    def tile(self, tile: int, rotation: int) -> str:
        key = f"t{tile}r{rotation}"
        if key not in self.symbols:
            mark = Mark("tile", ((0, 0),), size=TILE_PX, data=(self.ruleset, tile, rotation, None))
            self.symbols[key] = f'<symbol id="{key}" viewBox="0 0 {TILE_PX} {TILE_PX}">{tile_svg(mark)}</symbol>'
            labels = _zone_raster(self.ruleset, tile, rotation, ZONE_GRID)
            self.rasters[key] = "".join("." if v < 0 else chr(48 + int(v)) for v in labels.reshape(-1))
        return key

    def cancelled(self, game: Game) -> int | None:
        """The crosses over the animals the hunting trap cancelled (as the pictures draw them), by number."""
        sketch = Sketch()
        _draw_cancelled(sketch, game, self.layout)
        if not sketch.marks:
            return None
        svg = marks_svg(sketch.marks)
        if svg not in self._mark_ids:
            self._mark_ids[svg] = len(self.marks)
            self.marks.append(svg)
        return self._mark_ids[svg]

    def figure(self, game: Game, seat: int, kind: str, x: int, y: int, local: int) -> str:
        key = f"{seat}:{kind}:{x}:{y}:{local}"
        if key not in self.figures:
            sketch = Sketch()
            draw_occupant(sketch, game, self.layout, seat, kind, x, y, local)
            self.figures[key] = marks_svg(sketch.marks)
        return key


def stored_explanations(record: dict) -> dict[int, dict]:
    """Decision index -> what the agent at that seat thought, as ``hgenv tournament --explain`` stored it in
    the record's meta (``{"seat", "agent", "rows"}``, rows of ``Agent.explain``); empty without."""
    stored = (record.get("meta") or {}).get("explanations") or {}
    if not isinstance(stored, dict):
        raise ValueError("the record's meta.explanations must map decision numbers to explanations")
    out = {}
    for key, entry in stored.items():
        try:
            k = int(key)
            out[k] = {"seat": int(entry["seat"]), "agent": str(entry["agent"]), "rows": list(entry["rows"])}
        except (TypeError, ValueError, KeyError) as err:
            raise ValueError(f"the record's meta.explanations[{key!r}] is malformed: {err}") from None
    return out


def _explanations(record: dict, spec: str, seats: list[int] | None, top: int) -> dict[int, dict]:
    """Decision index -> what agent ``spec`` thought before it (its seats only): ``{"seat", "agent", "rows"}``."""
    from hg_env.agents.base import make_agent

    agent = make_agent(spec, seed=0)
    names = record.get("players") or []
    if seats is None:  # the seats the record names it at, else every seat
        seats = [s for s, name in enumerate(names) if name == spec] or list(range(record["num_players"]))
    out = {}
    game = Game.from_record(record, upto=0)
    agent.reset(0)
    for k, entry in enumerate(record["decisions"]):
        if game.current_player in seats and len(game.legal_actions()) > 1:
            out[k] = {"seat": game.current_player, "agent": spec, "rows": agent.explain(game.copy(), top)}
        game.apply_decision(entry)
    return out


def _explained_moves(game: Game, explanation: dict, layout: BoardLayout) -> dict:
    """An explanation's rows as the viewer lists and draws them: each move in words, where it goes (a
    figure: ``at``, the pixel it would stand on), its weight and what the agent measured."""
    moves = []
    legal = set(game.legal_actions())
    cell = int(game.state.last_cell[0])
    for row in explanation["rows"]:
        action = int(row["action"])
        if action not in legal:
            raise ValueError(f"an explanation names action {action}, which is not legal at its decision")
        measures = {key: value for key, value in row.items() if key not in ("action", "weight")}
        move = move_facts(game, action) | {"weight": float(row["weight"]), "measures": measures}
        if "zone" in move and cell >= 0:
            x, y = game.rules.board.xy(cell)
            if layout.shows(x, y):
                move["at"] = list(layout.occupant_pixel(game, x, y, move["zone"]))
        moves.append(move)
    return {"seat": explanation["seat"], "agent": explanation["agent"], "moves": moves}


def replay_data(record: dict, agent: str | None = None, seats: list[int] | None = None, top: int = TOP_MOVES) -> dict:
    """Everything the viewer shows, step by step (step k: the position after k decisions)."""
    final = Game.from_record(record)
    ruleset = final.ruleset
    names = record.get("players")
    bounds = board_bounds(final)
    layout = board_layout(final, TILE_PX, bounds)
    drawings = _Drawings(ruleset, layout)
    explained = _explanations(record, agent, seats, top) if agent else stored_explanations(record)
    game = Game.from_record(record, upto=0)
    placements: list[list[int]] = []
    seen: set[tuple[int, int]] = set()
    # Areas change slowly: each distinct one is stored once, and a step lists the area of every zone so far
    # (in the order the zones came onto the board, ``zone_keys``) by its number.
    areas: list[dict] = []
    area_ids: dict[str, int] = {}
    zone_keys: list[str] = []
    zone_index: dict[str, int] = {}
    steps = []
    decisions = record["decisions"]
    for k in range(len(decisions) + 1):
        for tile, x, y, rot in game.placed_tiles():
            if (x, y) not in seen:
                seen.add((x, y))
                placements.append([tile, x, y, rot, drawings.tile(tile, rot)])
        feats, zmap = features(game)
        for key in zmap:
            if key not in zone_index:
                zone_index[key] = len(zone_keys)
                zone_keys.append(key)
        ids = [area_ids.setdefault(json.dumps(f, sort_keys=True), len(area_ids)) for f in feats]
        for f, i in zip(feats, ids):
            if i == len(areas):
                areas.append(f)
        step = {
            "tiles": len(placements),
            "occupants": [drawings.figure(game, *occ) for occ in game.occupants()],
            "marks": drawings.cancelled(game),
            "scores": list(game.scores),
            "status": status_text(game, names),
            "next": None,
            "last": None,
            "areas": [ids[zmap[key]] for key in zone_keys],
            "events": [],
            "move": None,
            "explain": _explained_moves(game, explained[k], layout) if k in explained else None,
        }
        if game.phase == "place" and game.tile_to_place is not None:
            step["next"] = drawings.tile(game.tile_to_place, 0)
        cell = int(game.state.last_cell[0])
        if cell >= 0:
            step["last"] = list(game.rules.board.xy(cell))
        if k < len(decisions):
            seat = game.current_player
            events_before = len(game.events)
            tile_before = game.tile_to_place
            game.apply_decision(decisions[k])
            text = game.layout.describe(game.history[-1], tile_before)
            step["move"] = f"{player_name(seat, names)}: {text}"
            step["after"] = [describe_event(e, names, ruleset) for e in game.events[events_before:]]
        steps.append(step)
    for k in range(1, len(steps)):  # a step shows the events of the decision that led to it
        steps[k]["events"] = steps[k - 1].pop("after", [])
    steps[-1].pop("after", None)
    key = Sketch()
    bottom = _draw_key(key, final, 2, 10, False)  # the key's figures reach a little above its first line
    return {
        "title": game_title(final.rules),  # the flags in force (a river game says so)
        "ruleset": ruleset,
        "names": [player_name(s, names) for s in range(final.num_players)],
        "colors": [hex_color(PLAYER_COLORS[s]) for s in range(final.num_players)],
        "color_names": list(PLAYER_COLOR_NAMES[: final.num_players]),
        "board": {
            "bounds": list(bounds),
            "px": TILE_PX,
            "left": layout.left,
            "top": layout.top,
            "width": layout.left + layout.columns * TILE_PX + 8,
            "height": layout.top + layout.rows * TILE_PX + 8,
            "grid": ZONE_GRID,
        },
        "placements": placements,
        "areas": areas,
        "zone_keys": zone_keys,
        "rasters": drawings.rasters,
        "figures": drawings.figures,
        "marks": drawings.marks,
        "steps": steps,
        "agent": agent or ("each seat's agent" if explained else None),  # whose thoughts the page has
        "legend": {"svg": marks_svg(key.marks), "height": bottom + 4},
        "symbols": "".join(drawings.symbols.values()),
        "record": record,
    }


# ---------------------------------------------------------------- the page


def _json_for_script(data: object) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` can end it early)."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")


def replay_html(record: dict, agent: str | None = None, seats: list[int] | None = None, top: int = TOP_MOVES) -> str:
    """The whole viewer of one game as one HTML string."""
    data = replay_data(record, agent, seats, top)
    symbols = data.pop("symbols")
    title = f"{data['title']}: " + " vs ".join(data["names"])
    return (
        PAGE.replace("__TITLE__", html.escape(title))
        .replace("__SYMBOLS__", symbols)
        .replace("__DATA__", _json_for_script(data))
    )


def index_html(path: Path, entries: list[dict], files: list[str]) -> str:
    """A tournament's index page: one row per game (agents, scores, winners) linking its viewer."""
    rows = []
    for entry, name in zip(entries, files):
        agents = entry.get("agents") or entry["record"].get("players") or []
        scores = entry.get("scores") or entry["record"].get("scores") or []
        winners = entry.get("winners") or []
        who = " & ".join(f"P{w} ({html.escape(str(agents[w]))})" for w in winners if w < len(agents))
        rows.append(
            f'<tr><td><a href="{html.escape(name)}">{html.escape(str(entry.get("game", "")))}</a></td>'
            f"<td>{html.escape(' vs '.join(map(str, agents)))}</td><td>{html.escape(' : '.join(map(str, scores)))}</td>"
            f"<td>{who}</td><td>{entry.get('decisions', '')}</td></tr>"
        )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>Games of {html.escape(str(path))}</title>"
        "<style>body{font-family:sans-serif;margin:20px}td,th{padding:3px 10px;text-align:left}"
        "tr:nth-child(even){background:#f3efe5}</style></head><body>"
        f"<h1>{len(entries)} games of {html.escape(str(path))}</h1>"
        "<table><tr><th>game</th><th>seats</th><th>scores</th><th>winner</th><th>decisions</th></tr>"
        + "".join(rows)
        + "</table></body></html>"
    )
