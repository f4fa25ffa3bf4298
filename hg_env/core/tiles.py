"""The tile catalogue, compiled once at import into numpy lookup tables.

The catalogue file ``hg_env/data/hg2020_tiles.json`` holds the 95 tiles as facts
(RULES.md §2). Rules never branch on tile ids: they look things up here.

Index conventions
-----------------
* Directions (R2.2): ``N=0, E=1, S=2, W=3``; ``opposite(d) = (d + 2) % 4``.
* A tile placed with rotation ``r`` shows, in direction ``d``, its printed side
  ``(d - r) % 4``.
* Side terrain codes: ``0`` nothing (empty position), ``1`` meadow, ``2`` forest,
  ``3`` river.
* Zones: every (tile, local zone) pair gets a compact index ``z`` in
  ``0 .. NUM_ZONES-1`` (408 for the 2020 tiles). Each tile is on the board at
  most once, so ``z`` also names the zone on the board. The global zone id of
  RULES.md R2.4 is ``10 * ZONE_TILE[z] + ZONE_LOCAL[z]``.
* A side is three zone slots, the clockwise order along it (R2.11)::

      slot:        0        1        2
      river side   meadow1  river    meadow2
      other side   -1       zone     -1

  Two matching sides A (facing d) and B (facing opposite(d)) connect
  ``A[1]-B[1]``, ``A[0]-B[2]`` and ``A[2]-B[0]`` (R2.13: the meadows cross).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

DATA_FILE = "hg2020_tiles.json"

NUM_TILES = 95
START_TILE = 56
NUM_DIRECTIONS = 4
MAX_LOCAL_ZONES = 10  # local ids 0-7 side zones, 8-9 lakes (R2.4)
MAX_SIDE_ZONES = 8

# Side terrain codes (0 = empty position).
MEADOW, FOREST, RIVER = 1, 2, 3
TERRAIN_CODE = {"meadow": MEADOW, "forest": FOREST, "river": RIVER}
DIRECTION_NAMES = ("N", "E", "S", "W")
# (dx, dy) per direction; x grows east, y grows south (R2.1).
DIRECTION_OFFSETS = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)], dtype=np.int64)

# Zone types.
Z_MEADOW, Z_FOREST, Z_RIVER, Z_LAKE = 0, 1, 2, 3
ZONE_TYPE_NAMES = ("meadow", "forest", "river", "lake")

# Tile kinds.
KIND_START, KIND_REGULAR, KIND_MENHIR = 0, 1, 2
KIND_NAMES = ("start", "regular", "menhir")

# Animals, in the order of the count accumulators.
ANIMALS = ("mammoth", "aurochs", "deer", "tiger")
MAMMOTH, AUROCHS, DEER, TIGER = 0, 1, 2, 3

# Special powers (R2.9); 0 = none.
SPECIALS = ("", "shaman", "logboat", "hunting_trap", "pit_trap", "wildfire", "raft")
SHAMAN, LOGBOAT, HUNTING_TRAP, PIT_TRAP, WILDFIRE, RAFT = 1, 2, 3, 4, 5, 6

# Content counts kept per area root, one int8 each (see areas.py):
#   0 mammoth, 1 aurochs, 2 deer, 3 tiger   non-cancelled animals (meadows)
#   4 fish       on river zones (area partition) / rivers + lakes (system partition)
#   5 lakes      lake zones (system partition)
#   6 mushrooms  mushroom groups (forests)
#   7 menhirs    menhir forest zones (forests)
C_FISH, C_LAKES, C_MUSHROOMS, C_MENHIRS = 4, 5, 6, 7
NUM_COUNTS = 8


def load_catalogue() -> dict:
    """The raw tile catalogue (parsed JSON) shipped with the package."""
    text = resources.files("hg_env.data").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def _compile(catalogue: dict) -> dict[str, np.ndarray]:
    tiles = sorted(catalogue["tiles"], key=lambda t: t["id"])
    if [t["id"] for t in tiles] != list(range(NUM_TILES)):
        raise ValueError(f"tile catalogue must hold ids 0..{NUM_TILES - 1}")

    zone_rows = [(t["id"], z) for t in tiles for z in sorted(t["zones"], key=lambda z: z["zone"])]
    nz = len(zone_rows)
    tab = {
        "TILE_KIND": np.array([KIND_NAMES.index(t["kind"]) for t in tiles], dtype=np.int8),
        "TILE_ZONE": np.full((NUM_TILES, MAX_LOCAL_ZONES), -1, dtype=np.int16),
        "ZONE_TILE": np.zeros(nz, dtype=np.int16),
        "ZONE_LOCAL": np.zeros(nz, dtype=np.int8),
        "ZONE_TYPE": np.zeros(nz, dtype=np.int8),
        "ZONE_ANIMALS": np.zeros((nz, 4), dtype=np.int8),
        "ZONE_FISH": np.zeros(nz, dtype=np.int8),
        "ZONE_MUSHROOMS": np.zeros(nz, dtype=np.int8),
        "ZONE_MENHIR": np.zeros(nz, dtype=np.int8),
        "ZONE_SPECIAL": np.zeros(nz, dtype=np.int8),
        "ZONE_SEGMENTS": np.zeros(nz, dtype=np.int16),
        "ZONE_LAKE_INDEX": np.full(nz, -1, dtype=np.int8),  # lake zones: 0..28
        "RIVER_LAKE": np.full(nz, -1, dtype=np.int16),  # river zone -> its lake zone
        "PRINTED_SIDE_TYPE": np.zeros((NUM_TILES, 4), dtype=np.int8),
        "PRINTED_SIDE_ZONES": np.full((NUM_TILES, 4, 3), -1, dtype=np.int16),
    }
    for z, (tid, zone) in enumerate(zone_rows):
        local = zone["zone"]
        tab["TILE_ZONE"][tid, local] = z
        tab["ZONE_TILE"][z] = tid
        tab["ZONE_LOCAL"][z] = local
        tab["ZONE_TYPE"][z] = ZONE_TYPE_NAMES.index(zone["type"])
        for animal in zone.get("animals", []):
            tab["ZONE_ANIMALS"][z, ANIMALS.index(animal)] += 1
        tab["ZONE_FISH"][z] = zone.get("fish", 0)
        kind = zone.get("forest_kind")
        tab["ZONE_MUSHROOMS"][z] = kind == "mushrooms"
        tab["ZONE_MENHIR"][z] = kind == "menhir"
        tab["ZONE_SPECIAL"][z] = SPECIALS.index(zone.get("special") or "")
        tab["ZONE_SEGMENTS"][z] = len(zone.get("edges", []))
    lakes = [z for z in range(nz) if tab["ZONE_TYPE"][z] == Z_LAKE]
    tab["ZONE_LAKE_INDEX"][lakes] = np.arange(len(lakes))
    tab["LAKE_ZONE"] = np.array(lakes, dtype=np.int16)
    tab["LAKE_FISH"] = tab["ZONE_FISH"][lakes].astype(np.int16)
    for z, (tid, zone) in enumerate(zone_rows):
        if zone["type"] == "river" and zone["lake"] is not None:
            tab["RIVER_LAKE"][z] = tab["TILE_ZONE"][tid, zone["lake"]]
    for t in tiles:
        for d, name in enumerate(DIRECTION_NAMES):
            side = t["sides"][name]
            tab["PRINTED_SIDE_TYPE"][t["id"], d] = TERRAIN_CODE[side["terrain"]]
            zs = [tab["TILE_ZONE"][t["id"], local] for local in side["zones"]]
            slots = zs if len(zs) == 3 else [-1, zs[0], -1]
            tab["PRINTED_SIDE_ZONES"][t["id"], d] = slots
    return tab


_T = _compile(load_catalogue())

TILE_KIND: np.ndarray = _T["TILE_KIND"]  # [tile] KIND_*
TILE_ZONE: np.ndarray = _T["TILE_ZONE"]  # [tile, local] -> zone index, -1 if absent
ZONE_TILE: np.ndarray = _T["ZONE_TILE"]  # [z] tile id
ZONE_LOCAL: np.ndarray = _T["ZONE_LOCAL"]  # [z] local zone id (R2.4)
ZONE_TYPE: np.ndarray = _T["ZONE_TYPE"]  # [z] Z_MEADOW / Z_FOREST / Z_RIVER / Z_LAKE
ZONE_ANIMALS: np.ndarray = _T["ZONE_ANIMALS"]  # [z, animal] printed animals
ZONE_FISH: np.ndarray = _T["ZONE_FISH"]  # [z] fish on a river or lake zone
ZONE_MUSHROOMS: np.ndarray = _T["ZONE_MUSHROOMS"]  # [z] 1 for a mushroom forest
ZONE_MENHIR: np.ndarray = _T["ZONE_MENHIR"]  # [z] 1 for a menhir forest
ZONE_SPECIAL: np.ndarray = _T["ZONE_SPECIAL"]  # [z] SPECIALS index
ZONE_SEGMENTS: np.ndarray = _T["ZONE_SEGMENTS"]  # [z] number of sides the zone touches
ZONE_LAKE_INDEX: np.ndarray = _T["ZONE_LAKE_INDEX"]  # [z] lake number 0..28, -1 otherwise
RIVER_LAKE: np.ndarray = _T["RIVER_LAKE"]  # [z] lake zone a river flows into, -1 otherwise
LAKE_ZONE: np.ndarray = _T["LAKE_ZONE"]  # [lake number] zone index
LAKE_FISH: np.ndarray = _T["LAKE_FISH"]  # [lake number] fish in that lake
NUM_ZONES = len(ZONE_TILE)
NUM_LAKES = len(LAKE_ZONE)

REGULAR_TILES = np.flatnonzero(TILE_KIND == KIND_REGULAR).astype(np.int8)
MENHIR_TILES = np.flatnonzero(TILE_KIND == KIND_MENHIR).astype(np.int8)


def _rotate_sides(printed: np.ndarray) -> np.ndarray:
    """[tile, side, ...] printed -> [tile, rot, dir, ...] as shown when rotated."""
    d = np.arange(4)
    return np.stack([printed[:, (d - r) % 4] for r in range(4)], axis=1)


SIDE_TYPE: np.ndarray = _rotate_sides(_T["PRINTED_SIDE_TYPE"])  # [tile, rot, dir] terrain
SIDE_ZONES: np.ndarray = _rotate_sides(_T["PRINTED_SIDE_ZONES"])  # [tile, rot, dir, slot]

# The zone of each special power, found from the data (R2.9).
SPECIAL_ZONE = {name: int(np.flatnonzero(i == ZONE_SPECIAL)[0]) for i, name in enumerate(SPECIALS) if i}
SPECIAL_TILE = {name: int(ZONE_TILE[z]) for name, z in SPECIAL_ZONE.items()}


def _placement_table() -> np.ndarray:
    """COMPAT[tile, need, rot]: does the tile fit a position with this need code.

    A position's *need code* packs, for each direction d, the terrain that the
    neighbour in direction d shows towards it (2 bits at ``2*d``, 0 = no
    neighbour). Bit 8 (value 256) marks an occupied position. A rotation fits
    iff every constrained direction matches (R4.1d) and at least one direction
    is constrained (R4.1c); occupied positions never fit (R4.1a).
    """
    codes = np.arange(512)
    need = (codes[:, None] >> (2 * np.arange(4))) & 3  # [code, dir]
    ok = (need[None, :, None, :] == 0) | (need[None, :, None, :] == SIDE_TYPE[:, None, :, :])
    fits = ok.all(-1) & (need != 0).any(-1)[None, :, None] & (codes < 256)[None, :, None]
    return fits  # [tile, code, rot]


COMPAT: np.ndarray = _placement_table()

# Occupant targets per tile (R5.1, R5.7, R5.8).
_side_zone = np.zeros((NUM_TILES, MAX_LOCAL_ZONES), dtype=bool)
_water = np.zeros((NUM_TILES, MAX_LOCAL_ZONES), dtype=bool)
_canonical = np.zeros((NUM_TILES, MAX_LOCAL_ZONES), dtype=bool)
for _z in range(NUM_ZONES):
    _t, _l, _k = ZONE_TILE[_z], ZONE_LOCAL[_z], ZONE_TYPE[_z]
    _side_zone[_t, _l] = _k != Z_LAKE
    _water[_t, _l] = _k in (Z_RIVER, Z_LAKE)
    _canonical[_t, _l] = _k == Z_LAKE or (_k == Z_RIVER and RIVER_LAKE[_z] < 0)
PAWN_TARGETS: np.ndarray = _side_zone[:, :MAX_SIDE_ZONES]  # [tile, local 0..7]
HUT_TARGETS = {"canonical": _canonical, "all_water_zones": _water}  # [tile, local 0..9]


def global_zone_id(z: int) -> int:
    """RULES.md R2.4 global id (10 x tile + local) of a compact zone index."""
    return 10 * int(ZONE_TILE[z]) + int(ZONE_LOCAL[z])


def zone_index(global_id: int) -> int:
    """Compact zone index of a RULES.md global zone id; ValueError if none."""
    tile, local = divmod(int(global_id), 10)
    if not (0 <= tile < NUM_TILES) or TILE_ZONE[tile, local] < 0:
        raise ValueError(f"no zone with global id {global_id}")
    return int(TILE_ZONE[tile, local])
