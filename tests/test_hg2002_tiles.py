"""hg_env/data/hg2002_tiles.json against docs/rules/hg2002.md (C1, C2, C7, C8, K13, S1-S5, KQ13-KQ15, KQ20,
"Tile facts for checking the data"), and the compiled ``TileSet`` against the raw JSON."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from hg_env import Game
from hg_env.core import tiles as C
from hg_env.core.ruleset import get_ruleset
from hg_env.core.tiles import load_catalogue
from hg_env.rulesets.hunters_gatherers import TERRAINS, ZONE_TYPES

SPEC = get_ruleset("hg2002")
T = SPEC.tiles
CATALOGUE = load_catalogue(SPEC.data_file)
TILES = {t["id"]: t for t in CATALOGUE["tiles"]}
DIRS = "NESW"
LAND = range(1, 79)
BONUS = range(79, 91)
# The keys a zone of each type may carry: rules facts only (docs/rules/hg2002.md "Tile data").
ZONE_KEYS = {
    "meadow": ({"zone", "type", "edges", "animals"}, {"shrine", "fire"}),
    "forest": ({"zone", "type", "edges", "gold"}, {"mushrooms"}),
    "river": ({"zone", "type", "edges", "fish", "lake", "ends_on_tile_without_lake"}, set()),
    "lake": ({"zone", "type", "fish", "rivers"}, set()),
}


def zones(ids, kind: str | None = None) -> list[tuple[int, dict]]:
    return [(t, z) for t in ids for z in TILES[t]["zones"] if kind is None or z["type"] == kind]


def animals(ids) -> Counter:
    return Counter(a for _, z in zones(ids, "meadow") for a in z["animals"])


# ---------------------------------------------------------------- C1, C2: the 91 tiles


def test_91_tiles_start_land_bonus_ids() -> None:
    """C1, C2, C10: 91 tiles: the volcano start tile 0, land tiles 1-78, bonus tiles 79-90."""
    assert sorted(TILES) == list(range(91))
    kinds = {kind: sorted(t for t in TILES if TILES[t]["kind"] == kind) for kind in ("start", "regular", "bonus")}
    assert kinds == {"start": [0], "regular": list(LAND), "bonus": list(BONUS)}
    assert T.num_tiles == 91 and T.START_TILE == 0
    assert T.tiles_of_kind(C.KIND_REGULAR).tolist() == list(LAND)
    assert T.tiles_of_kind(C.KIND_EXTRA).tolist() == list(BONUS)
    assert CATALOGUE["counts"] == {
        "total": 91,
        "start": 1,
        "regular": 78,
        "bonus": 12,
        "distinct_types": 76,
        "distinct_regular_types": 63,
    }


def test_the_file_holds_rules_facts_only() -> None:
    """'Tile data': every tile has exactly id, kind, edges, sides and zones, and every zone only the
    facts of its type; sources and notes live outside the tiles (provenance)."""
    assert set(CATALOGUE) == {"game", "provenance", "conventions", "counts", "totals_by_kind", "tiles"}
    for tid, t in TILES.items():
        assert set(t) == {"id", "kind", "edges", "sides", "zones"}, tid
        assert set(t["sides"]) == set(DIRS) and all(set(s) == {"terrain", "zones"} for s in t["sides"].values())
        for z in t["zones"]:
            required, optional = ZONE_KEYS[z["type"]]
            assert required <= set(z) <= required | optional, (tid, z)
            assert all(z[key] is True for key in optional & set(z)), (tid, z)  # present only where true


def test_decks_of_a_new_game() -> None:
    """C10: a game deals the 78 land tiles to the land deck and the 12 bonus tiles to the bonus deck."""
    game = Game(2, seed=3, ruleset="hg2002")
    regular = sorted(game._regular_deck)
    assert regular == list(LAND) and sorted(game._extra_deck) == list(BONUS)


# ---------------------------------------------------------------- land tiles (C7, C8, "Tile facts")


def test_land_tile_totals() -> None:
    """Tile facts, C7, KQ20: land tiles hold 30 deer, 13 mammoths, 11 tigers and no aurochs; 72 forest
    zones, 29 with one gold nugget each and none with mushrooms; 23 lakes with 29 fish; 156 meadow zones;
    78 river zones, none with fish, 8 of them ending inside their tile without a lake."""
    assert animals(LAND) == {"deer": 30, "mammoth": 13, "tiger": 11}
    forests = [z for _, z in zones(LAND, "forest")]
    assert len(forests) == 72
    assert Counter(z["gold"] for z in forests) == {0: 43, 1: 29}
    assert not any(z.get("mushrooms") for z in forests)
    lakes = [z["fish"] for _, z in zones(LAND, "lake")]
    assert (len(lakes), sum(lakes)) == (23, 29)
    assert len(zones(LAND, "meadow")) == 156
    rivers = [z for _, z in zones(LAND, "river")]
    assert len(rivers) == 78 and not any(z["fish"] for z in rivers)
    assert sum(z["ends_on_tile_without_lake"] for z in rivers) == 8


def test_start_tile() -> None:
    """C9, KQ16: the volcano tile 0 (M F F R): a mammoth, a forest with 1 gold nugget (zone 1) and a
    lake with 1 fish."""
    start = TILES[0]
    assert start["edges"] == "MFFR"
    assert animals([0]) == {"mammoth": 1}
    (forest,) = [z for _, z in zones([0], "forest")]
    assert (forest["zone"], forest["gold"]) == (1, 1)
    assert [z["fish"] for _, z in zones([0], "lake")] == [1]


# ---------------------------------------------------------------- bonus tiles (C2, S1-S5)


def test_bonus_tile_totals() -> None:
    """Tile facts, S4, S5: the bonus tiles hold 3 deer, 2 mammoths, 3 aurochs, 2 tigers; 8 forest zones;
    7 lakes with 15 fish; 15 river zones."""
    assert animals(BONUS) == {"deer": 3, "mammoth": 2, "aurochs": 3, "tiger": 2}
    assert len(zones(BONUS, "forest")) == 8
    lakes = [z["fish"] for _, z in zones(BONUS, "lake")]
    assert (len(lakes), sum(lakes)) == (7, 15)
    assert len(zones(BONUS, "river")) == 15


def test_bonus_tile_specials() -> None:
    """S1-S5, K13: mushroom forests 801, 811, 821; the one gold forest on 89 (891); the shrine 890 and the
    fire 870; aurochs on 83, 84 and 90 only; 79's lake holds 4 fish, 88's meadow 2 mammoths, 85 two
    lakes of 2 fish."""
    gid = {(t, z["zone"]): 10 * t + z["zone"] for t, z in zones(TILES)}
    assert sorted(gid[t, z["zone"]] for t, z in zones(TILES, "forest") if z.get("mushrooms")) == [801, 811, 821]
    gold_bonus = [(gid[t, z["zone"]], z["gold"]) for t, z in zones(BONUS, "forest") if z["gold"]]
    assert gold_bonus == [(891, 1)]
    assert [gid[t, z["zone"]] for t, z in zones(TILES, "meadow") if z.get("shrine")] == [890]
    assert [gid[t, z["zone"]] for t, z in zones(TILES, "meadow") if z.get("fire")] == [870]
    assert sorted(t for t, z in zones(TILES, "meadow") for a in z["animals"] if a == "aurochs") == [83, 84, 90]
    assert [z["fish"] for _, z in zones([79], "lake")] == [4]
    assert animals([88]) == {"mammoth": 2}
    assert [z["fish"] for _, z in zones([85], "lake")] == [2, 2]
    assert max(z["fish"] for _, z in zones(TILES, "lake")) == 4  # KQ13: lakes hold 1-4 fish
    assert min(z["fish"] for _, z in zones(TILES, "lake")) == 1
    shrine, fire = T.zone_index(890), T.zone_index(870)
    assert {"shrine": shrine, "fire": fire} == T.SPECIAL_ZONE
    assert T.SPECIAL_TILE == {"shrine": 89, "fire": 87}


def test_every_gold_forest_holds_one_nugget() -> None:
    """K13: forests carry 0 or 1 nugget; with the start tile's and 89's, 31 gold forests in all."""
    gold = [z["gold"] for _, z in zones(TILES, "forest")]
    assert set(gold) == {0, 1} and sum(gold) == 31


# ---------------------------------------------------------------- K13: sides and zones agree


def test_sides_and_zones_agree() -> None:
    """K13 (R2.11): a side is one meadow or forest zone, or [meadow, river, meadow]; ``edges`` spells the
    side terrains; a zone's ``edges`` are exactly the sides listing it; both banks of a river are one
    meadow only on tile 56 (KQ14)."""
    same_banks = []
    for tid, t in TILES.items():
        types = {z["zone"]: z["type"] for z in t["zones"]}
        assert len(types) == len(t["zones"]), tid  # no zone id twice
        listed: dict[int, set[str]] = {z: set() for z in types}
        for d in DIRS:
            side = t["sides"][d]
            kinds = [types[z] for z in side["zones"]]
            if side["terrain"] == "river":
                assert kinds == ["meadow", "river", "meadow"], (tid, d)
                if side["zones"][0] == side["zones"][2]:
                    same_banks.append(tid)
            else:
                assert kinds == [side["terrain"]], (tid, d)
            for z in side["zones"]:
                listed[z].add(d)
        assert t["edges"] == "".join(t["sides"][d]["terrain"][0].upper() for d in DIRS), tid
        for z in t["zones"]:
            if z["type"] != "lake":
                assert set(z["edges"]) == listed[z["zone"]] and len(z["edges"]) == len(set(z["edges"])), (tid, z)
    assert same_banks == [56]


def test_zone_numbering() -> None:
    """R2.4, KQ15: side zones are numbered 0.. in the order met clockwise from N; the meadow touching no
    side (tile 25, zone 2, the only one) comes next; lakes are 8 and 9."""
    enclosed = []
    for tid, t in TILES.items():
        met: list[int] = []
        for d in DIRS:
            met += [z for z in t["sides"][d]["zones"] if z not in met]
        assert met == list(range(len(met))), tid
        inner = sorted(z["zone"] for z in t["zones"] if z["type"] != "lake" and z["zone"] not in met)
        enclosed += [(tid, z) for z in inner]
        assert inner == list(range(len(met), len(met) + len(inner))), tid
        lakes = sorted(z["zone"] for z in t["zones"] if z["type"] == "lake")
        assert lakes == [8, 9][: len(lakes)], tid
    assert enclosed == [(25, 2)]
    assert next(z for z in TILES[25]["zones"] if z["zone"] == 2) == {
        "zone": 2,
        "type": "meadow",
        "edges": [],
        "animals": [],
    }


def test_lakes_and_rivers_agree() -> None:
    """K13, R2.5-R2.7: a lake lies inside its tile and lists the rivers flowing into it, which name it back;
    a river touches 1 or 2 sides; ``ends_on_tile_without_lake`` is a one-sided river without a lake."""
    for tid, lake in zones(TILES, "lake"):
        for river in lake["rivers"]:
            z = next(z for z in TILES[tid]["zones"] if z["zone"] == river)
            assert z["type"] == "river" and z["lake"] == lake["zone"], tid
    for tid, river in zones(TILES, "river"):
        assert len(river["edges"]) in (1, 2), tid
        if river["lake"] is not None:
            lake = next(z for z in TILES[tid]["zones"] if z["zone"] == river["lake"])
            assert lake["type"] == "lake" and river["zone"] in lake["rivers"], tid
        one_sided = len(river["edges"]) == 1 and river["lake"] is None
        assert river["ends_on_tile_without_lake"] == one_sided, tid


def test_river_zone_kinds() -> None:
    """Tile facts: 26 through rivers, 59 lake rivers, 9 spring rivers (41, 50, 51 twice, 52, 53, 54, 70,
    82); tile 85 is the only tile with two lakes; the all-river tiles are 55, 78 and 85."""
    kinds, springs = Counter(), []
    for tid, z in zones(TILES, "river"):
        if z["lake"] is not None:
            kinds["lake"] += 1
        elif len(z["edges"]) == 2:
            kinds["through"] += 1
        else:
            kinds["spring"] += 1
            springs.append(tid)
    assert kinds == {"through": 26, "lake": 59, "spring": 9}
    assert springs == [41, 50, 51, 51, 52, 53, 54, 70, 82]
    assert [t for t in TILES if len(zones([t], "lake")) == 2] == [85]
    assert sorted(t for t, tile in TILES.items() if tile["edges"] == "RRRR") == [55, 78, 85]


def test_totals_by_kind_match_the_tiles() -> None:
    """The catalogue's own ``totals_by_kind`` agree with a recount of its tiles."""
    for kind, totals in CATALOGUE["totals_by_kind"].items():
        ids = [t for t in TILES if TILES[t]["kind"] == kind]
        count = Counter(tiles=len(ids))
        count.update(dict.fromkeys((f"animal_{a}" for a in C.ANIMALS), 0))
        for _, z in zones(ids):
            count["lakes" if z["type"] == "lake" else f"{z['type']}_zones"] += 1
            count.update(f"animal_{a}" for a in z.get("animals", []))
            if z["type"] == "forest":
                count["gold_nuggets"] += z["gold"]
                count["forest_gold"] += z["gold"] > 0
                count["forest_mushrooms"] += bool(z.get("mushrooms"))
                count["forest_plain_no_gold"] += z["gold"] == 0
            if z["type"] == "meadow":
                count["meadow_zones_enclosed"] += not z["edges"]
                count["special_shrine"] += bool(z.get("shrine"))
                count["special_fire"] += bool(z.get("fire"))
            if z["type"] == "river":
                count["river_fish"] += z["fish"]
                count["river_ends_on_tile_without_lake"] += z["ends_on_tile_without_lake"]
            if z["type"] == "lake":
                count["lake_fish"] += z["fish"]
        assert {k: v for k, v in count.items() if v or k in totals} == totals, kind


def type_key(t: dict, specials: bool = True) -> str:
    """The tile's facts up to rotation: zones renumbered in the order met, the smallest of the 4 turns."""
    content = {z["zone"]: z for z in t["zones"]}
    keys = []
    for r in range(4):
        shown = [t["sides"][DIRS[(d - r) % 4]] for d in range(4)]
        new: dict[int, int] = {}
        for side in shown:
            for z in side["zones"]:
                new.setdefault(z, len(new))
        for z in content:
            new.setdefault(z, 20 + z)  # inner zones keep their order
        facts = sorted(
            (new[k], z["type"], sorted(z.get("animals", [])), z.get("fish", 0), z.get("gold", 0))
            + ((bool(z.get("mushrooms")), bool(z.get("shrine")), bool(z.get("fire"))) if specials else ())
            for k, z in content.items()
        )
        rivers = sorted((new[k], [new[r] for r in z["rivers"]]) for k, z in content.items() if "rivers" in z)
        keys.append(json.dumps([[(s["terrain"], [new[z] for z in s["zones"]]) for s in shown], facts, rivers]))
    return min(keys)


COPIES = [[5, 6], [8, 9], [11, 12, 13], [16, 17], [18, 19], [20, 21], [26, 27], [28, 29], [34, 35], [39, 40],
          [47, 48], [73, 74], [75, 76]]  # fmt: skip


def test_distinct_types_up_to_rotation() -> None:
    """Tile facts: the land tiles are 64 types (14 tiles are copies of another: ``COPIES``); all tiles
    are 77 types, or 76 when the shrine is not told apart: tile 89 is then a copy of 18 and 19 (a tiger
    meadow and a gold forest on two sides each). The file's ``counts`` say 63 land types and 76 in all."""
    by_type: dict[str, list[int]] = {}
    for t in LAND:
        by_type.setdefault(type_key(TILES[t]), []).append(t)
    assert [ids for ids in by_type.values() if len(ids) > 1] == COPIES
    assert len(by_type) == 64
    assert len({type_key(t) for t in TILES.values()}) == 77
    assert len({type_key(t, specials=False) for t in TILES.values()}) == 76
    assert {t for t in TILES if type_key(TILES[t], specials=False) == type_key(TILES[89], specials=False)} == {
        18,
        19,
        89,
    }


# ---------------------------------------------------------------- the compiled TileSet


def test_compiled_tables_match_the_json() -> None:
    """tiles.py: every compiled zone row holds the facts of its JSON zone (gold is the extra-tile trigger,
    a mushroom patch the forest bonus, shrine and fire the specials), and the side tables at rotation 0
    hold the JSON sides."""
    assert T.num_zones == len(zones(TILES))
    for tid, z in zones(TILES):
        i = T.zone_index(10 * tid + z["zone"])
        assert (T.ZONE_TILE[i], T.ZONE_LOCAL[i]) == (tid, z["zone"])
        assert T.ZONE_TYPE[i] == ZONE_TYPES[z["type"]]
        assert T.ZONE_ANIMALS[i].tolist() == [z.get("animals", []).count(a) for a in C.ANIMALS]
        assert T.ZONE_FISH[i] == z.get("fish", 0)
        assert T.ZONE_TRIGGER[i] == z.get("gold", 0)
        assert T.ZONE_BONUS[i] == int(bool(z.get("mushrooms")))
        special = "shrine" if z.get("shrine") else "fire" if z.get("fire") else ""
        assert T.specials[T.ZONE_SPECIAL[i]] == special
        slots = sum(side["zones"].count(z["zone"]) for side in TILES[tid]["sides"].values())
        assert T.ZONE_SEGMENTS[i] == slots
        if z["type"] == "river":
            assert T.PATH_POOL[i] == (-1 if z["lake"] is None else T.TILE_ZONE[tid, z["lake"]])
        if z["type"] == "lake":
            assert T.POOL_FISH[T.ZONE_POOL_INDEX[i]] == z["fish"]
    for tid, t in TILES.items():
        assert T.TILE_KIND[tid] == {"start": C.KIND_START, "regular": C.KIND_REGULAR, "bonus": C.KIND_EXTRA}[t["kind"]]
        for d, name in enumerate(DIRS):
            side = t["sides"][name]
            assert T.SIDE_TYPE[tid, 0, d] == TERRAINS[side["terrain"]]
            local = T.ZONE_LOCAL[T.SIDE_ZONES[tid, 0, d]]
            expected = side["zones"] if len(side["zones"]) == 3 else [side["zones"][0]]
            shown = local[[0, 1, 2]] if len(side["zones"]) == 3 else local[[1]]
            assert shown.tolist() == expected, (tid, name)
    assert T.num_pools == 31 and int(T.POOL_FISH.sum()) == 29 + 15 + 1


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_rotation_shows_the_printed_side(rotation: int) -> None:
    """R2.2: with rotation r a tile shows in direction d its printed side (d - r) mod 4."""
    for tid, t in TILES.items():
        for d in range(4):
            printed = t["sides"][DIRS[(d - rotation) % 4]]
            assert T.SIDE_TYPE[tid, rotation, d] == TERRAINS[printed["terrain"]], (tid, rotation, d)


def test_enclosed_meadow_takes_a_hunter() -> None:
    """KQ15: tile 25's meadow touching no side may take a hunter; it is a meadow of its own, complete."""
    game = Game(2, seed=0, ruleset="hg2002", regular_deck=[25])
    game.place(1, 0, 0)
    assert ("pawn", 2) in game.legal_occupants()
    zone = T.zone_index(252)
    assert T.ZONE_SEGMENTS[zone] == 0
    root = game.state.area.find(np.zeros(1, dtype=np.intp), np.array([zone]))
    assert game.state.area.open[0, root[0]] == 0
