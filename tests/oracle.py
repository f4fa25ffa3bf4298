"""Slow, obviously-correct recomputations used as test oracles.

Built from the raw tile catalogue (JSON), not from the compiled tables, so a
mistake in ``hg_env.core.tiles`` cannot hide itself.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from hg_env.core.state import PAWN, State
from hg_env.core.tiles import TILE_ZONE, load_catalogue

_CATALOGUE = {t["id"]: t for t in load_catalogue()["tiles"]}
_DIRS = "NESW"
_STEP = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
_ANIMALS = ("mammoth", "aurochs", "deer", "tiger")
_MEMBERS = {"area": ("forest", "meadow", "river"), "system": ("river", "lake")}


def shown_side(tile: int, rot: int, d: int) -> tuple[str, list[int]]:
    """(terrain, local zones) shown in direction d by a tile with rotation rot (R2.2)."""
    side = _CATALOGUE[tile]["sides"][_DIRS[(d - rot) % 4]]
    return side["terrain"], list(side["zones"])


def zone_info(tile: int, local: int) -> dict:
    return next(z for z in _CATALOGUE[tile]["zones"] if z["zone"] == local)


def board_of(state: State, game: int) -> dict[tuple[int, int], tuple[int, int]]:
    """{(x, y): (tile, rot)} of one game."""
    board = state.board
    cells = np.flatnonzero(state.board_tile[game] >= 0)
    return {board.xy(c): (int(state.board_tile[game, c]), int(state.board_rot[game, c])) for c in cells}


def areas(state: State, game: int) -> dict[str, list[dict]]:
    """Every forest/meadow/river area and river system of one game, by BFS over the board.

    Each area: zones {(tile, local)}, open, tiles (distinct ids), animals (live),
    fish (R2.17 riverFish / systemFish), lakes, mushrooms, menhirs, occupants per seat."""
    placed = board_of(state, game)
    reach = state.rules.reach
    links: dict[str, dict] = {"area": defaultdict(set), "system": defaultdict(set)}
    open_segments: dict[tuple[int, int], int] = defaultdict(int)
    for (x, y), (tile, rot) in placed.items():
        for z in _CATALOGUE[tile]["zones"]:
            if z["type"] == "lake":
                for river in z["rivers"]:
                    links["system"][(tile, river)].add((tile, z["zone"]))
                    links["system"][(tile, z["zone"])].add((tile, river))
        for d in range(4):
            terrain, zones = shown_side(tile, rot, d)
            dx, dy = _STEP[d]
            other = placed.get((x + dx, y + dy)) if max(abs(x + dx), abs(y + dy)) <= reach else None
            if other is None:
                for local in zones:
                    open_segments[(tile, local)] += 1
                continue
            o_terrain, o_zones = shown_side(other[0], other[1], (d + 2) % 4)
            assert o_terrain == terrain, f"mismatched sides at ({x},{y}) dir {d}"
            pairs = [(zones[0], o_zones[0])] if len(zones) == 1 else list(zip(zones, reversed(o_zones)))
            for a, b in pairs:
                links["area"][(tile, a)].add((other[0], b))
                if terrain == "river" and zone_info(tile, a)["type"] == "river":
                    links["system"][(tile, a)].add((other[0], b))
    occupant = {}
    for t in np.flatnonzero(state.occupant_seat[game] >= 0):
        key = (int(t), int(state.occupant_local[game, t]))
        occupant[key] = (int(state.occupant_seat[game, t]), int(state.occupant_kind[game, t]))
    out: dict[str, list[dict]] = {"area": [], "system": []}
    for partition in ("area", "system"):
        seen: set = set()
        for tile, _rot in placed.values():
            for z in _CATALOGUE[tile]["zones"]:
                start = (tile, z["zone"])
                kind = z["type"]
                if start in seen or kind not in _MEMBERS[partition]:
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
    info = {key: zone_info(*key) for key in comp}
    animals = np.zeros(4, dtype=int)
    for (tile, local), z in info.items():
        for a in z.get("animals", []):
            animals[_ANIMALS.index(a)] += 1
        animals -= state.cancelled[game, TILE_ZONE[tile, local]]
    lakes = {key for key, z in info.items() if z["type"] == "lake"}
    if partition == "area":  # riverFish: river fish + each distinct lake closing it (Q14)
        closing = {(t, z["lake"]) for (t, _), z in info.items() if z["type"] == "river" and z["lake"] is not None}
        fish = sum(z.get("fish", 0) for z in info.values()) + sum(zone_info(*k)["fish"] for k in closing)
    else:
        fish = sum(z.get("fish", 0) for z in info.values())
    seats = np.zeros(5, dtype=int)
    for key in comp:
        if key in occupant:
            seat, kind = occupant[key]
            if (kind == PAWN) == (partition == "area"):
                seats[seat] += 1
    return {
        "zones": comp,
        "type": next(iter(info.values()))["type"] if partition == "area" else "system",
        "open": sum(open_segments[k] for k in comp),
        "tiles": sorted({t for t, _ in comp}),
        "animals": animals,
        "fish": fish,
        "lakes": len(lakes),
        "mushrooms": sum(z.get("forest_kind") == "mushrooms" for z in info.values()),
        "menhirs": sum(z.get("forest_kind") == "menhir" for z in info.values()),
        "occupants": seats,
    }
