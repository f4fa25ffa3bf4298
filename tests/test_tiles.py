"""The tile catalogue: published totals (R1.3, R2.5-R2.10, Appendix C), compiled tables, rotation (R2.2)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from hg_env import Game
from hg_env.core import tiles as C
from hg_env.core.engine import occupant_table
from hg_env.core.rules import Rules
from hg_env.core.ruleset import get_ruleset
from hg_env.core.tiles import load_catalogue
from hg_env.rulesets.hunters_gatherers import TERRAINS, ZONE_TYPES

T = get_ruleset("hg2020").tiles

CATALOGUE = load_catalogue("hg2020_tiles.json")
TILES = {t["id"]: t for t in CATALOGUE["tiles"]}
ZONES = [(t["id"], z) for t in CATALOGUE["tiles"] for z in t["zones"]]
DIRS = "NESW"


def zones_of(kind: str) -> list[tuple[int, dict]]:
    return [(tid, z) for tid, z in ZONES if z["type"] == kind]


def gid(tid: int, z: dict) -> int:
    return 10 * tid + z["zone"]


# ---------------------------------------------------------------- R1.3 tile counts


def test_95_tiles_start_regular_menhir_ids() -> None:
    """R1.3: 95 tiles; start 56; regular 0-55 and 57-78; menhir 79-94."""
    assert sorted(TILES) == list(range(95))
    kinds = {kind: sorted(t for t in TILES if TILES[t]["kind"] == kind) for kind in ("start", "regular", "menhir")}
    assert kinds["start"] == [56]
    assert kinds["regular"] == [*range(0, 56), *range(57, 79)]
    assert kinds["menhir"] == list(range(79, 95))
    assert T.START_TILE == 56
    assert T.tiles_of_kind(C.KIND_REGULAR).tolist() == kinds["regular"]
    assert T.tiles_of_kind(C.KIND_EXTRA).tolist() == kinds["menhir"]
    assert CATALOGUE["counts"] == {"total": 95, "start": 1, "regular": 78, "menhir": 16, "distinct_types": 85}


# ---------------------------------------------------------------- R2.10 / Appendix C totals


def test_animal_totals() -> None:
    """R2.10: 33 deer, 13 aurochs, 8 mammoths, 13 tigers; R2.6: at most 2 animals per meadow."""
    animals = Counter(a for _, z in zones_of("meadow") for a in z["animals"])
    assert animals == {"deer": 33, "aurochs": 13, "mammoth": 8, "tiger": 13}
    assert max(len(z["animals"]) for _, z in zones_of("meadow")) == 2
    totals = T.ZONE_ANIMALS.sum(0).tolist()
    assert dict(zip(C.ANIMALS, totals)) == {"mammoth": 8, "aurochs": 13, "deer": 33, "tiger": 13}


def test_lakes_and_fish_totals() -> None:
    """R2.10 / Appendix C: 29 lakes (18 with 1 fish, 9 with 2, 2 with 3), 50 fish, 8 of them on rivers."""
    lakes = zones_of("lake")
    assert len(lakes) == 29 == T.num_pools
    assert Counter(z["fish"] for _, z in lakes) == {1: 18, 2: 9, 3: 2}
    river_fish = {gid(tid, z): z["fish"] for tid, z in zones_of("river") if z["fish"]}
    assert sorted(tid for g, n in river_fish.items() for tid in [g // 10] * n) == [19, 20, 20, 28, 45, 47, 74, 88]
    assert len(river_fish) == 7
    assert sum(z["fish"] for _, z in lakes) + sum(river_fish.values()) == 50
    assert int(T.ZONE_FISH.sum()) == 50 and int(T.POOL_FISH.sum()) == 42


def test_zone_counts() -> None:
    """Appendix C: 196 meadows, 81 forests (31 menhir, 2 mushrooms, 48 plain), 102 rivers, 29 lakes."""
    kinds = Counter(z["type"] for _, z in ZONES)
    assert kinds == {"meadow": 196, "forest": 81, "river": 102, "lake": 29}
    assert Counter(z["forest_kind"] for _, z in zones_of("forest")) == {"menhir": 31, "mushrooms": 2, "plain": 48}
    assert T.num_zones == 408
    assert Counter(T.ZONE_TYPE.tolist()) == {C.Z_LAND: 196, C.Z_ENCLOSURE: 81, C.Z_PATH: 102, C.Z_POOL: 29}


def test_menhir_and_mushroom_forests() -> None:
    """R2.10: the 31 menhir forests (incl. start 561 and menhir tile 811) and the 2 mushroom forests."""
    menhir = sorted(gid(tid, z) for tid, z in zones_of("forest") if z["forest_kind"] == "menhir")
    assert menhir == [
        *[23, 233, 290, 301, 310, 320, 330, 381, 391, 401, 420, 430, 440, 540, 550, 561],
        *[574, 580, 601, 630, 640, 650, 660, 690, 705, 713, 751, 761, 771, 780, 811],
    ]
    assert sorted(gid(tid, z) for tid, z in zones_of("forest") if z["forest_kind"] == "mushrooms") == [791, 871]
    assert sorted(T.global_zone_id(z) for z in np.flatnonzero(T.ZONE_TRIGGER)) == menhir
    assert sorted(T.global_zone_id(z) for z in np.flatnonzero(T.ZONE_BONUS)) == [791, 871]


SPECIALS = [  # R2.9: power, tile, global zone id, zone type
    ("shaman", 88, 880, "meadow"),
    ("logboat", 93, 938, "lake"),
    ("hunting_trap", 94, 941, "meadow"),
    ("pit_trap", 92, 921, "meadow"),
    ("wildfire", 85, 850, "meadow"),
    ("raft", 91, 918, "lake"),
]


@pytest.mark.parametrize(("power", "tile", "zone", "kind"), SPECIALS)
def test_special_power_zones(power: str, tile: int, zone: int, kind: str) -> None:
    """R2.9: one of each power, on the menhir tile and zone the table names."""
    carriers = [(tid, z) for tid, z in ZONES if z.get("special") == power]
    assert len(carriers) == 1
    tid, z = carriers[0]
    assert (gid(tid, z), z["type"], TILES[tid]["kind"]) == (zone, kind, "menhir")
    assert T.SPECIAL_TILE[power] == tile
    assert T.global_zone_id(T.SPECIAL_ZONE[power]) == zone


def test_only_six_special_zones_and_special_contents() -> None:
    """R2.9 / R2.8 / R7.3 / R7.7 / R7.13 / R7.16 / R7.18: the power tiles' own contents."""
    assert sum(1 for _, z in ZONES if z.get("special")) == 6
    assert TILES[85]["zones"] == [
        {"zone": 0, "type": "meadow", "edges": ["N", "E", "S", "W"], "animals": [], "special": "wildfire"}
    ]  # R2.8 / Q24: the fleeing tiger drawn on 85 is not an animal
    for tile in (88, 92, 94):  # no animals on the shaman, pit-trap and hunting-trap tiles (Q8)
        assert all(not z.get("animals") for z in TILES[tile]["zones"] if z["type"] == "meadow")
    river_88 = next(z for z in TILES[88]["zones"] if z["type"] == "river")
    assert river_88["fish"] == 1
    assert [z["fish"] for z in TILES[93]["zones"] if z["type"] == "lake"] == [1]  # R7.7
    assert [z["fish"] for z in TILES[91]["zones"] if z["type"] == "lake"] == [1]  # R7.18


def test_totals_by_kind_match_the_tiles() -> None:
    """The catalogue's own ``totals_by_kind`` agree with a recount of its tiles."""
    for kind, totals in CATALOGUE["totals_by_kind"].items():
        tiles = [t for t in CATALOGUE["tiles"] if t["kind"] == kind]
        zones = [z for t in tiles for z in t["zones"]]
        count = Counter()
        count["tiles"] = len(tiles)
        for z in zones:
            count[f"{z['type']}_zones" if z["type"] != "lake" else "lakes"] += 1
            for a in z.get("animals", []):
                count[f"animal_{a}"] += 1
            if z["type"] == "forest":
                count[f"forest_{z['forest_kind']}"] += 1
            if z["type"] == "river":
                count["river_fish"] += z["fish"]
                count["river_zones_with_fish"] += z["fish"] > 0
                count["river_ends_on_tile_without_lake"] += z["ends_on_tile_without_lake"]
            if z["type"] == "lake":
                count["lake_fish"] += z["fish"]
            if z.get("special"):
                count[f"special_{z['special']}"] += 1
        recount = {k: v for k, v in count.items() if v or k in totals}
        assert recount == totals, kind


# ---------------------------------------------------------------- R2.4-R2.7, R2.11 zone model


def test_zone_numbering() -> None:
    """R2.4: side zones are 0..7 in the order met clockwise from N; lakes are 8 and 9."""
    for t in CATALOGUE["tiles"]:
        met = []
        for d in DIRS:
            for z in t["sides"][d]["zones"]:
                if z not in met:
                    met.append(z)
        assert met == list(range(len(met))), t["id"]
        lakes = sorted(z["zone"] for z in t["zones"] if z["type"] == "lake")
        assert lakes == [8, 9][: len(lakes)], t["id"]
        assert sorted(z["zone"] for z in t["zones"]) == met + lakes, t["id"]


def test_lakes_are_inner_and_attached() -> None:
    """R2.5: lakes touch no side, hold 1-3 fish and are fed by 1-4 rivers of their tile."""
    for tid, lake in zones_of("lake"):
        assert "edges" not in lake or not lake["edges"]
        assert 1 <= lake["fish"] <= 3
        assert 1 <= len(lake["rivers"]) <= 4
        for river in lake["rivers"]:
            z = next(z for z in TILES[tid]["zones"] if z["zone"] == river)
            assert z["type"] == "river" and z["lake"] == lake["zone"], tid
    for _, z in ZONES:
        if z["type"] != "lake":
            assert 1 <= len(z["edges"]) <= 4


def test_only_tile_83_has_two_lakes() -> None:
    """R2.10: tile 83 is the only tile with two lakes (N+E rivers -> lake 8, S+W rivers -> lake 9)."""
    two = [tid for tid, t in TILES.items() if sum(z["type"] == "lake" for z in t["zones"]) == 2]
    assert two == [83]
    lakes = {z["zone"]: sorted(z["rivers"]) for z in TILES[83]["zones"] if z["type"] == "lake"}
    sides = {d: TILES[83]["sides"][d]["zones"][1] for d in DIRS}
    assert lakes == {8: sorted([sides["N"], sides["E"]]), 9: sorted([sides["S"], sides["W"]])}


def test_river_zone_kinds() -> None:
    """R2.7: 31 through rivers, 63 lake rivers, 8 spring rivers on tiles 14, 55, 66, 68, 70 (x2), 71, 79."""
    kinds = Counter()
    springs = []
    for tid, z in zones_of("river"):
        sides = len(z["edges"])
        if sides == 2 and z["lake"] is None:
            kinds["through"] += 1
        elif sides == 1 and z["lake"] is not None:
            kinds["lake"] += 1
        elif sides == 1 and z["lake"] is None:
            kinds["spring"] += 1
            springs.append(tid)
        assert z["ends_on_tile_without_lake"] == (sides == 1 and z["lake"] is None)
    assert kinds == {"through": 31, "lake": 63, "spring": 8}
    assert sorted(springs) == [14, 55, 66, 68, 70, 70, 71, 79]


def test_sides() -> None:
    """R2.11: a side is one meadow, one forest, or (meadow1, river, meadow2) with meadow1 != meadow2."""
    for t in CATALOGUE["tiles"]:
        types = {z["zone"]: z["type"] for z in t["zones"]}
        for d in DIRS:
            side = t["sides"][d]
            kinds = [types[z] for z in side["zones"]]
            if side["terrain"] == "river":
                assert kinds == ["meadow", "river", "meadow"], (t["id"], d)
                assert side["zones"][0] != side["zones"][2], (t["id"], d)
            else:
                assert kinds == [side["terrain"]], (t["id"], d)
        assert t["edges"] == "".join(t["sides"][d]["terrain"][0].upper() for d in DIRS)


def test_85_distinct_types_up_to_rotation() -> None:
    """Appendix C: 85 distinct tile types up to rotation (10 tiles are copies)."""

    def canonical(t: dict) -> str:
        zones = {z["zone"]: z for z in t["zones"]}
        keys = []
        for r in range(4):
            shown = [t["sides"][DIRS[(d - r) % 4]] for d in range(4)]
            new: dict[int, int] = {}
            for side in shown:
                for z in side["zones"]:
                    new.setdefault(z, len(new))
            for z in zones:
                if zones[z]["type"] == "lake":
                    new[z] = 8 + min(new[river] for river in zones[z]["rivers"])
            sides = [(s["terrain"], [new[z] for z in s["zones"]]) for s in shown]
            content = sorted(
                (
                    new[k],
                    z["type"],
                    sorted(z.get("animals", [])),
                    z.get("fish", 0),
                    z.get("forest_kind"),
                    z.get("special"),
                )
                for k, z in zones.items()
            )
            keys.append(json.dumps([sides, content]))
        return min(keys)

    assert len({canonical(t) for t in CATALOGUE["tiles"]}) == 85


MENHIR_TILE_EDGES = {  # Appendix C
    79: "MFRF", 80: "RMMR", 81: "MFFM", 82: "RMMF", 83: "RRRR", 84: "RRFM", 85: "MMMM", 86: "RRRM",
    87: "MFFR", 88: "RRFM", 89: "RFFR", 90: "MMFM", 91: "RRMR", 92: "FFMM", 93: "RRMR", 94: "FMMM",
}  # fmt: skip


def test_menhir_tile_edges() -> None:
    """Appendix C: the edges (N E S W) of the 16 menhir tiles."""
    assert {tid: TILES[tid]["edges"] for tid in MENHIR_TILE_EDGES} == MENHIR_TILE_EDGES


def test_all_river_tiles() -> None:
    """Appendix C: the tiles with four river sides are 13, 17 and 83."""
    assert sorted(tid for tid, t in TILES.items() if t["edges"] == "RRRR") == [13, 17, 83]


def test_start_tile() -> None:
    """R2.4 example: the start-tile forest is 561 (menhir) and its lake is 568 (1 fish)."""
    start = {gid(56, z): z for z in TILES[56]["zones"]}
    assert start[561]["type"] == "forest" and start[561]["forest_kind"] == "menhir"
    assert start[568]["type"] == "lake" and start[568]["fish"] == 1
    assert TILES[56]["edges"] == "MFFR"


# ---------------------------------------------------------------- compiled tables


def test_compiled_zone_tables_match_the_json() -> None:
    """tiles.py: each compiled zone row holds exactly the facts of its JSON zone."""
    assert len(ZONES) == T.num_zones
    for tid, z in ZONES:
        i = T.zone_index(gid(tid, z))
        assert T.global_zone_id(i) == gid(tid, z)
        assert (T.ZONE_TILE[i], T.ZONE_LOCAL[i]) == (tid, z["zone"])
        assert T.ZONE_TYPE[i] == ZONE_TYPES[z["type"]]
        expected_animals = [z.get("animals", []).count(a) for a in C.ANIMALS]
        assert T.ZONE_ANIMALS[i].tolist() == expected_animals
        assert T.ZONE_FISH[i] == z.get("fish", 0)
        assert T.ZONE_TRIGGER[i] == (z.get("forest_kind") == "menhir")
        assert T.ZONE_BONUS[i] == (z.get("forest_kind") == "mushrooms")
        assert T.specials[T.ZONE_SPECIAL[i]] == (z.get("special") or "")
        assert T.ZONE_SEGMENTS[i] == len(z.get("edges", []))
        if z["type"] == "river":
            lake = -1 if z["lake"] is None else T.TILE_ZONE[tid, z["lake"]]
            assert T.PATH_POOL[i] == lake
    for tid, t in TILES.items():
        assert T.TILE_KIND[tid] == {"start": C.KIND_START, "regular": C.KIND_REGULAR, "menhir": C.KIND_EXTRA}[t["kind"]]


def test_zone_index_rejects_unknown_ids() -> None:
    """R2.4: global id = 10 x tile + local; ids that name no zone are refused."""
    assert T.global_zone_id(T.zone_index(561)) == 561
    for bad in (569, 950, -1, 5):  # start tile has no zone 9; no tile 95 or -1; tile 0 has no zone 5
        with pytest.raises(ValueError, match="no zone"):
            T.zone_index(bad)


def test_rotation_convention_tables() -> None:
    """R2.2: with rotation r a tile shows in direction d its printed side (d - r) mod 4."""
    for tid, t in TILES.items():
        for r in range(4):
            for d in range(4):
                printed = t["sides"][DIRS[(d - r) % 4]]
                assert T.SIDE_TYPE[tid, r, d] == TERRAINS[printed["terrain"]]
                zones = [T.TILE_ZONE[tid, z] for z in printed["zones"]]
                slots = zones if len(zones) == 3 else [-1, zones[0], -1]
                assert T.SIDE_ZONES[tid, r, d].tolist() == slots  # clockwise order kept (R2.2)
    # The spec's example: with r = 1 the printed N side faces E. Tile 37 is F M M M.
    assert T.SIDE_TYPE[37, 1].tolist() == [C.LAND, C.ENCLOSURE, C.LAND, C.LAND]
    assert C.DIRECTION_OFFSETS.tolist() == [[0, -1], [1, 0], [0, 1], [-1, 0]]  # R2.1: N E S W


def test_rotation_convention_on_the_board() -> None:
    """R2.2 / R4.1(d) through the API: tile 37 (printed forest N) fits east of the start forest only as r3."""
    game = Game(2, regular_deck=[37], menhir_deck=[])
    # The start tile (r0) shows M F F R: its forest faces E and S.
    at_east = [r for x, y, r in game.legal_placements() if (x, y) == (1, 0)]
    assert at_east == [3]  # r3 shows printed N towards (3 - 3) -> W
    below = [r for x, y, r in game.legal_placements() if (x, y) == (0, 1)]
    assert below == [0]  # r0: printed N faces N, the start tile's S forest
    above = sorted(r for x, y, r in game.legal_placements() if (x, y) == (0, -1))
    assert above == [0, 1, 3]  # the start tile's N meadow: every rotation but r2 (printed N forest facing S)
    assert {(x, y) for x, y, _ in game.legal_placements()} == {(1, 0), (0, 1), (0, -1)}  # W is a river


def test_compatibility_table() -> None:
    """tiles.COMPAT: a rotation fits iff every neighbour's facing side matches and one exists (R4.1 c, d)."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        tile, rot = int(rng.integers(95)), int(rng.integers(4))
        need = rng.integers(0, 4, size=4)
        code = int((need << (2 * np.arange(4))).sum())
        expected = need.any() and all(n == 0 or n == T.SIDE_TYPE[tile, rot, d] for d, n in enumerate(need))
        assert T.COMPAT[tile, code, rot] == expected
        assert not T.COMPAT[tile, code | 256, rot]  # R4.1(a): an occupied position never fits


def test_occupant_target_tables() -> None:
    """R5.1 / R5.7: pawns on side zones; canonical hut targets are lakes + rivers without a lake."""
    pawn_targets = occupant_table(Rules())[:, :8]
    hut_targets = {name: occupant_table(Rules(hut_targets=name))[:, 8:] for name in ("canonical", "all_water_zones")}
    assert int(pawn_targets.sum()) == 196 + 81 + 102
    assert int(hut_targets["canonical"].sum()) == 29 + 31 + 8  # lakes, through and spring rivers
    assert int(hut_targets["all_water_zones"].sum()) == 29 + 102
    assert hut_targets["canonical"][56].tolist() == [False] * 8 + [True, False]  # the start lake, not river 3
    assert hut_targets["all_water_zones"][56].tolist() == [False, False, False, True, *[False] * 4, True, False]
    assert pawn_targets[56].tolist() == [True] * 4 + [False] * 4  # never a pawn on lake 568
