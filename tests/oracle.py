"""Slow, obviously-correct recomputations used as test oracles.

Built from the raw tile catalogue (JSON) of each ruleset, not from the compiled
tables, so a mistake in ``hg_env.core.tiles`` cannot hide itself.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import cache
from pathlib import Path

import numpy as np

from hg_env.core.ruleset import SYSTEM_PIECE
from hg_env.core.state import State

DATA = Path(__file__).resolve().parent.parent / "hg_env" / "data"
FILES = {"hg2020": "hg2020_tiles.json", "hg2002": "hg2002_tiles.json", "carcassonne": "carcassonne_tiles.json"}
_DIRS = "NESW"
_STEP = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
_ANIMALS = ("mammoth", "aurochs", "deer", "tiger")
# Zone types of each partition (the area partition's lakes, monasteries and gardens are singletons).
_AREA = ("forest", "meadow", "river", "field", "city", "road")
_SYSTEM = ("river", "lake")
# Bonus (forest / city extra points) and trigger (extra-tile) contents of a raw zone, per ruleset.
_BONUS = {
    "hg2020": lambda z: int(z.get("forest_kind") == "mushrooms"),
    "hg2002": lambda z: int(bool(z.get("mushrooms"))),
    "carcassonne": lambda z: int(z.get("pennants", 0)),
}
_TRIGGER = {
    "hg2020": lambda z: int(z.get("forest_kind") == "menhir"),
    "hg2002": lambda z: int(z.get("gold", 0)),
    "carcassonne": lambda z: 0,
}


@cache
def catalogue(ruleset: str = "hg2020") -> dict[int, dict]:
    tiles = json.loads((DATA / FILES[ruleset]).read_text(encoding="utf-8"))["tiles"]
    return {t["id"]: t for t in tiles}


def shown_side(tile: int, rot: int, d: int, ruleset: str = "hg2020") -> tuple[str, list[int]]:
    """(terrain, local zones) shown in direction d by a tile with rotation rot (R2.2)."""
    side = catalogue(ruleset)[tile]["sides"][_DIRS[(d - rot) % 4]]
    return side["terrain"], list(side["zones"])


def zone_info(tile: int, local: int, ruleset: str = "hg2020") -> dict:
    return next(z for z in catalogue(ruleset)[tile]["zones"] if z["zone"] == local)


def board_of(state: State, game: int) -> dict[tuple[int, int], tuple[int, int]]:
    """{(x, y): (tile, rot)} of one game."""
    board = state.board
    cells = np.flatnonzero(state.board_tile[game] >= 0)
    return {board.xy(c): (int(state.board_tile[game, c]), int(state.board_rot[game, c])) for c in cells}


def areas(state: State, game: int) -> dict[str, list[dict]]:
    """Every area (forest/meadow/river; city/field/road/river) and river system of one game, by BFS
    over the board.

    Each area: zones {(tile, local)}, open, tiles (distinct ids), animals (live),
    fish (R2.17 riverFish / systemFish), lakes, bonus, trigger, borders (the
    (tile, local) cities a field touches), occupants per seat."""
    ruleset = state.rules.ruleset
    cat = catalogue(ruleset)
    placed = board_of(state, game)
    reach = state.rules.reach
    links: dict[str, dict] = {"area": defaultdict(set), "system": defaultdict(set)}
    open_segments: dict[tuple[int, int], int] = defaultdict(int)
    for (x, y), (tile, rot) in placed.items():
        for z in cat[tile]["zones"]:
            if z["type"] == "lake":
                for river in z["rivers"]:
                    links["system"][(tile, river)].add((tile, z["zone"]))
                    links["system"][(tile, z["zone"])].add((tile, river))
        for d in range(4):
            terrain, zones = shown_side(tile, rot, d, ruleset)
            dx, dy = _STEP[d]
            other = placed.get((x + dx, y + dy)) if max(abs(x + dx), abs(y + dy)) <= reach else None
            if other is None:
                for local in zones:
                    open_segments[(tile, local)] += 1
                continue
            o_terrain, o_zones = shown_side(other[0], other[1], (d + 2) % 4, ruleset)
            assert o_terrain == terrain, f"mismatched sides at ({x},{y}) dir {d}"
            pairs = [(zones[0], o_zones[0])] if len(zones) == 1 else list(zip(zones, reversed(o_zones)))
            for a, b in pairs:
                links["area"][(tile, a)].add((other[0], b))
                if state.system is not None and terrain == "river" and zone_info(tile, a, ruleset)["type"] == "river":
                    links["system"][(tile, a)].add((other[0], b))
    occupant = {}
    for t in np.flatnonzero(state.occupant_seat[game] >= 0):
        key = (int(t), int(state.occupant_local[game, t]))
        occupant[key] = (int(state.occupant_seat[game, t]), int(state.occupant_kind[game, t]))
    out: dict[str, list[dict]] = {"area": [], "system": []}
    members = {"area": _AREA, "system": _SYSTEM if state.system is not None else ()}
    for partition in ("area", "system"):
        seen: set = set()
        for tile, _rot in placed.values():
            for z in cat[tile]["zones"]:
                start = (tile, z["zone"])
                kind = z["type"]
                if start in seen or kind not in members[partition]:
                    continue
                comp, todo = {start}, [start]
                while todo:
                    for nxt in links[partition][todo.pop()]:
                        if nxt not in comp:
                            comp.add(nxt)
                            todo.append(nxt)
                seen |= comp
                out[partition].append(_summarise(state, game, partition, comp, open_segments, occupant))
    return out


def _summarise(state, game, partition, comp, open_segments, occupant) -> dict:
    ruleset = state.rules.ruleset
    tile_zone = state.spec.tiles.TILE_ZONE
    info = {key: zone_info(*key, ruleset) for key in comp}
    animals = np.zeros(4, dtype=int)
    cancelled = state.ruleset_arrays.get("cancelled")  # the 2020 hunting trap's (Ruleset.arrays); others have none
    for (tile, local), z in info.items():
        for a in z.get("animals", []):
            animals[_ANIMALS.index(a)] += 1
        if cancelled is not None:
            animals -= cancelled[game, tile_zone[tile, local]]
    lakes = {key for key, z in info.items() if z["type"] == "lake"}
    if partition == "area":  # riverFish: river fish + each distinct lake closing it (Q14)
        closing = {(t, z["lake"]) for (t, _), z in info.items() if z["type"] == "river" and z.get("lake") is not None}
        fish = sum(z.get("fish", 0) for z in info.values()) + sum(zone_info(*k, ruleset)["fish"] for k in closing)
    else:
        fish = sum(z.get("fish", 0) for z in info.values())
    seats = np.zeros(5, dtype=int)
    for key in comp:
        if key in occupant:
            seat, kind = occupant[key]
            if (kind != SYSTEM_PIECE) == (partition == "area"):
                seats[seat] += 1
    return {
        "zones": comp,
        "type": next(iter(info.values()))["type"] if partition == "area" else "system",
        "open": sum(open_segments[k] for k in comp),
        "tiles": sorted({t for t, _ in comp}),
        "animals": animals,
        "fish": fish,
        "lakes": len(lakes),
        "bonus": sum(_BONUS[ruleset](z) for z in info.values()),
        "trigger": sum(_TRIGGER[ruleset](z) for z in info.values()),
        "borders": {(t, c) for (t, _), z in info.items() for c in z.get("cities", [])},
        "occupants": seats,
    }
