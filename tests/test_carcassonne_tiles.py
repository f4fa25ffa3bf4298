"""The Carcassonne C3 tile catalogue (base game + The River C3): published counts and per-tile consistency.

Pure JSON checks: the catalogue is data, so these tests read the file directly and import nothing from hg_env.
Facts asserted here come from the sources named in the file's provenance (Wikicarpedia tile distributions,
cross-checked implementations); the structural checks follow the file's own conventions.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

CATALOGUE_PATH = Path(__file__).resolve().parents[1] / "hg_env" / "data" / "carcassonne_tiles.json"
CATALOGUE = json.loads(CATALOGUE_PATH.read_text(encoding="utf-8"))
TILES = CATALOGUE["tiles"]
SIDES = "NESW"
BASE_KINDS = ("start", "regular")
RIVER_KINDS = ("river_source", "river", "river_lake")
TERRAIN_LETTER = {"city": "C", "road": "R", "field": "F", "river": "W"}

# Wikicarpedia "Base game" C3 tile distribution (004 reference), one D being the start tile.
BASE_COUNTS = dict(
    A=2, B=4, C=1, D=4, E=5, F=2, G=1, H=3, I=2, J=3, K=3, L=3,
    M=2, N=3, O=2, P=3, Q=1, R=3, S=2, T=1, U=8, V=9, W=4, X=1,
)  # fmt: skip
RIVER_TYPES = [f"R{i}" for i in range(1, 13)]

# Side terrains (N, E, S, W) of each type in its canonical orientation.
EDGES = {
    "A": "FFRF", "B": "FFFF", "C": "CCCC", "D": "CRFR", "E": "CFFF", "F": "FCFC", "G": "FCFC", "H": "CFCF",
    "I": "CFFC", "J": "CRRF", "K": "CFRR", "L": "CRRR", "M": "CFFC", "N": "CFFC", "O": "CRRC", "P": "CRRC",
    "Q": "CCFC", "R": "CCFC", "S": "CCRC", "T": "CCRC", "U": "RFRF", "V": "FFRR", "W": "FRRR", "X": "RRRR",
    "R1": "RRWF", "R2": "CWRW", "R3": "CWCW", "R4": "WFWF", "R5": "CCWW", "R6": "WFWF", "R7": "WFFW",
    "R8": "FWRW", "R9": "RWWR", "R10": "FWWF", "R11": "WRWR", "R12": "WFFF",
}  # fmt: skip
COAT_OF_ARMS_TYPES = {"C", "F", "M", "O", "Q", "S"}
GARDEN_TYPES = {"E", "H", "I", "M", "N", "R", "U", "V", "R10"}
MONASTERY_TYPES = {"A", "B", "R8", "R12"}
# Road zones that stop on the tile, per tile of a type (crossings, monasteries, city gates).
ROAD_ENDS = {"A": 1, "L": 3, "S": 1, "T": 1, "W": 3, "X": 4, "R2": 1, "R8": 1}


def zones_of(tile: dict, kind: str) -> list[dict]:
    return [z for z in tile["zones"] if z["type"] == kind]


def tiles_of(kinds: tuple[str, ...]) -> list[dict]:
    return [t for t in TILES if t["kind"] in kinds]


def total(tiles: list[dict], key) -> int:
    return sum(key(z) for t in tiles for z in t["zones"])


# ---------------------------------------------------------------- counts and ids


def test_84_tiles_with_ids_by_kind() -> None:
    """72 base tiles (id 0 = start) + 12 river tiles (72 = source, 83 = lake)."""
    assert [t["id"] for t in TILES] == list(range(84))
    kinds = [t["kind"] for t in TILES]
    assert kinds == ["start"] + ["regular"] * 71 + ["river_source"] + ["river"] * 10 + ["river_lake"]


def test_one_start_tile_of_type_d() -> None:
    starts = [t for t in TILES if t["kind"] == "start"]
    assert [(t["id"], t["type"]) for t in starts] == [(0, "D")]


def test_counts_per_type() -> None:
    """C3 distribution A2 B4 ... X1 = 72; each river type once."""
    assert sum(BASE_COUNTS.values()) == 72
    assert Counter(t["type"] for t in tiles_of(BASE_KINDS)) == BASE_COUNTS
    assert [t["type"] for t in tiles_of(RIVER_KINDS)] == RIVER_TYPES


def test_base_tiles_grouped_by_type_after_start() -> None:
    types = [t["type"] for t in TILES[1:72]]
    assert types == sorted(types)


def test_distinct_types_and_published_counts() -> None:
    counts = CATALOGUE["counts"]
    assert counts["distinct_types"] == len({t["type"] for t in TILES}) == 36
    assert counts["per_type"] == {**BASE_COUNTS, **dict.fromkeys(RIVER_TYPES, 1)}
    kinds = Counter(t["kind"] for t in TILES)
    assert {k: counts[k] for k in (*BASE_KINDS, *RIVER_KINDS)} == kinds
    assert counts["total"] == 84


# ---------------------------------------------------------------- features


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t['id']}-{t['type']}")
def test_edges_per_type(tile: dict) -> None:
    assert tile["edges"] == EDGES[tile["type"]]
    assert tile["edges"] == "".join(TERRAIN_LETTER[tile["sides"][s]["terrain"]] for s in SIDES)


def test_coats_of_arms() -> None:
    """10 coats of arms in the base game, one on each tile of C F M O Q S; none on the river."""
    for tile in TILES:
        expected = 1 if tile["type"] in COAT_OF_ARMS_TYPES else 0
        assert sum(z["pennants"] for z in zones_of(tile, "city")) == expected, tile["id"]
    assert total(tiles_of(BASE_KINDS), lambda z: z.get("pennants", 0)) == 10
    assert total(tiles_of(RIVER_KINDS), lambda z: z.get("pennants", 0)) == 0


def test_monasteries() -> None:
    """6 in the base game (A x2, B x4); C3 river: the bridge tile H (R8) and the lake (R12)."""
    for tile in TILES:
        assert len(zones_of(tile, "monastery")) == (tile["type"] in MONASTERY_TYPES), tile["id"]
    assert total(tiles_of(BASE_KINDS), lambda z: z["type"] == "monastery") == 6
    assert total(tiles_of(RIVER_KINDS), lambda z: z["type"] == "monastery") == 2


def test_gardens_one_copy_per_garden_type() -> None:
    """C3 (The Abbot): 8 base garden tiles, one each of E H I M N R U V; 1 on the river (tile J = R10)."""
    with_garden = [t for t in TILES if zones_of(t, "garden")]
    assert all(len(zones_of(t, "garden")) == 1 for t in with_garden)
    assert Counter(t["type"] for t in with_garden) == dict.fromkeys(GARDEN_TYPES, 1)
    assert total(tiles_of(BASE_KINDS), lambda z: z["type"] == "garden") == 8


def test_garden_copy_is_its_type_plus_a_garden() -> None:
    """A garden copy differs from the other copies of its type only by the garden zone."""
    for tile in TILES:
        if not zones_of(tile, "garden") or tile["kind"] not in BASE_KINDS:
            continue
        plain = next(t for t in TILES if t["type"] == tile["type"] and not zones_of(t, "garden"))
        assert tile["sides"] == plain["sides"]
        assert [z for z in tile["zones"] if z["type"] != "garden"] == plain["zones"]


def test_road_ends() -> None:
    """Roads stop at crossings (L W X), monasteries (A, R8) and city gates (S T, R2): 30 base, 2 river."""
    for tile in TILES:
        ends = [z for z in zones_of(tile, "road") if z["ends_on_tile"]]
        assert len(ends) == ROAD_ENDS.get(tile["type"], 0), tile["id"]
    assert total(tiles_of(BASE_KINDS), lambda z: z["type"] == "road" and z["ends_on_tile"]) == 30
    assert total(tiles_of(RIVER_KINDS), lambda z: z["type"] == "road" and z["ends_on_tile"]) == 2


def test_every_river_tile_has_one_river_that_chains_source_to_lake() -> None:
    for tile in tiles_of(RIVER_KINDS):
        (river,) = zones_of(tile, "river")
        at_an_end = tile["kind"] in ("river_source", "river_lake")
        assert len(river["edges"]) == (1 if at_an_end else 2), tile["id"]
        assert river["ends_on_tile"] == at_an_end
    assert not any(zones_of(t, "river") for t in tiles_of(BASE_KINDS))


def test_river_field_counts_from_wikicarpedia_clarifications() -> None:
    """004 River page: one field on the C3 lake (L), four on B and K, three on H; the C3 source is not one field."""
    fields = {t["type"]: len(zones_of(t, "field")) for t in tiles_of(RIVER_KINDS)}
    assert fields["R12"] == 1
    assert fields["R2"] == fields["R11"] == 4
    assert fields["R8"] == 3
    assert fields["R1"] == 2


def test_fields_bordering_cities() -> None:
    """Farmers' facts: D's north field borders the city, its south field does not; H's field borders both caps."""
    start = TILES[0]
    city = zones_of(start, "city")[0]["zone"]
    north, south = start["sides"]["E"]["zones"][0], start["sides"]["E"]["zones"][2]
    by_id = {z["zone"]: z for z in start["zones"]}
    assert by_id[north]["cities"] == [city]
    assert by_id[south]["cities"] == []
    h = next(t for t in TILES if t["type"] == "H")
    (field,) = zones_of(h, "field")
    assert field["cities"] == sorted(z["zone"] for z in zones_of(h, "city"))


def test_road_ending_at_a_monastery_leaves_one_field_and_at_a_city_gate_two() -> None:
    """A: the field wraps around the road end (same zone both sides); S/T: the road splits the field."""
    for tile in TILES:
        if tile["type"] == "A":
            left, _, right = tile["sides"]["S"]["zones"]
            assert left == right
        if tile["type"] in ("S", "T"):
            left, _, right = tile["sides"]["S"]["zones"]
            assert left != right


# ---------------------------------------------------------------- structure (the file's conventions)


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t['id']}-{t['type']}")
def test_sides_and_zones_are_consistent(tile: dict) -> None:
    zones = {z["zone"]: z for z in tile["zones"]}
    assert len(zones) == len(tile["zones"]), "duplicate zone ids"
    assert set(tile["sides"]) == set(SIDES)
    touching = {}
    for side in SIDES:
        terrain, ids = tile["sides"][side]["terrain"], tile["sides"][side]["zones"]
        if terrain in ("road", "river"):
            assert len(ids) == 3
            assert zones[ids[1]]["type"] == terrain
            assert zones[ids[0]]["type"] == zones[ids[2]]["type"] == "field"
        else:
            assert len(ids) == 1
            assert zones[ids[0]]["type"] == terrain
        for zid in ids:
            assert side in zones[zid]["edges"], (side, zid)
            touching.setdefault(zid, set()).add(side)
    for zid, zone in zones.items():
        if zone["type"] in ("monastery", "garden"):
            assert zone["edges"] == [] and zid in (8, 9)
        else:
            assert zid < 8
            assert zone["edges"] == [s for s in SIDES if s in touching.get(zid, ())]


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t['id']}-{t['type']}")
def test_zone_attributes(tile: dict) -> None:
    zones = {z["zone"]: z for z in tile["zones"]}
    city_ids = {z["zone"] for z in zones_of(tile, "city")}
    for zone in tile["zones"]:
        extra = set(zone) - {"zone", "type", "edges"}
        if zone["type"] == "city":
            assert extra == {"pennants"} and zone["pennants"] in (0, 1)
        elif zone["type"] == "field":
            assert extra == {"cities"}
            assert zone["cities"] == sorted(set(zone["cities"])) and set(zone["cities"]) <= city_ids
        elif zone["type"] in ("road", "river"):
            assert extra == {"ends_on_tile"}
            assert zone["ends_on_tile"] == (len(zone["edges"]) == 1)
        else:
            assert zone["type"] in ("monastery", "garden") and not extra
    bordered = {c for z in zones_of(tile, "field") for c in z["cities"]}
    if zones_of(tile, "field"):
        assert bordered == city_ids, "every city on a tile with fields borders one of them"
    assert all(zones[c]["type"] == "city" for c in bordered)


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t['id']}-{t['type']}")
def test_zone_ids_numbered_clockwise_from_north_west(tile: dict) -> None:
    """Border zones get 0, 1, ... in order of first appearance walking N, E, S, W clockwise."""
    seen: list[int] = []
    for side in SIDES:
        for zid in tile["sides"][side]["zones"]:
            if zid not in seen:
                seen.append(zid)
    assert seen == list(range(len(seen)))
    inner = sorted(z["zone"] for z in tile["zones"] if not z["edges"])
    assert inner == list(range(8, 8 + len(inner)))
    assert [z["zone"] for z in tile["zones"]] == seen + inner


def test_totals_match_the_tiles() -> None:
    for name, kinds in (("base", BASE_KINDS), ("river", RIVER_KINDS)):
        tiles = tiles_of(kinds)
        assert CATALOGUE["totals"][name] == {
            "tiles": len(tiles),
            "city_zones": total(tiles, lambda z: z["type"] == "city"),
            "coats_of_arms": total(tiles, lambda z: z.get("pennants", 0)),
            "road_zones": total(tiles, lambda z: z["type"] == "road"),
            "road_ends": total(tiles, lambda z: z["type"] == "road" and z["ends_on_tile"]),
            "field_zones": total(tiles, lambda z: z["type"] == "field"),
            "river_zones": total(tiles, lambda z: z["type"] == "river"),
            "monasteries": total(tiles, lambda z: z["type"] == "monastery"),
            "gardens": total(tiles, lambda z: z["type"] == "garden"),
        }


def test_header_documents_fields_and_names_sources() -> None:
    conventions = " ".join(f"{k} {v}" for k, v in CATALOGUE["conventions"].items())
    used = {key for t in TILES for key in t} | {key for t in TILES for z in t["zones"] for key in z}
    used |= set(CATALOGUE["counts"]) | set(CATALOGUE["totals"]["base"])
    assert not [key for key in used if key not in conventions]
    provenance = CATALOGUE["provenance"]
    assert "004_c82af501d8924e06" in provenance
    assert provenance.count("github.com/") >= 2
