"""Tile catalogues compiled once into numpy lookup tables (``TileSet``), and the codes they share.

Every ruleset ships a catalogue file in ``hg_env/data/`` (tiles as facts: sides,
zones, contents). ``TileSet`` compiles one into the tables the engine reads;
rules never branch on tile ids: they look things up here.

Index conventions (shared by every ruleset)
-------------------------------------------
* Directions: ``N=0, E=1, S=2, W=3``; ``opposite(d) = (d + 2) % 4``.
* A tile placed with rotation ``r`` shows, in direction ``d``, its printed side
  ``(d - r) % 4``.
* Side terrain codes: ``0`` nothing (empty position), ``1`` meadow / field,
  ``2`` forest / city, ``3`` river / road, ``4`` water (the Carcassonne river).
* Zones: every (tile, local zone) pair gets a compact index ``z`` in
  ``0 .. num_zones-1``. Each tile is on the board at most once, so ``z`` also
  names the zone on the board. The global zone id is ``10 * tile + local``.
* A side is three zone slots, in clockwise order along it::

      slot:        0        1        2
      split side   meadow1  river    meadow2      (river or road: the meadows / fields on its banks)
      other side   -1       zone     -1

  Two matching sides A (facing d) and B (facing opposite(d)) connect
  ``A[1]-B[1]``, ``A[0]-B[2]`` and ``A[2]-B[0]`` (the banks cross).

Zone types are roles shared by the rulesets (the names a ruleset prints are its own):
``Z_LAND`` scored at the end by majority (H&G meadow, Carcassonne field),
``Z_ENCLOSURE`` closable, splits nothing (forest, city), ``Z_PATH`` closable, runs
through split sides (river, road), ``Z_POOL`` an inner zone that ends its tile's paths and
joins their system (H&G lake), ``Z_BLOCK_A`` and ``Z_BLOCK_B`` inner zones scored by their 3x3 block
(Carcassonne monastery and garden: its occupant table says who stands on each), ``Z_DIVIDER`` a
second path that splits the land and is never scored or occupied (the Carcassonne river). Each ruleset
names its own (``Ruleset.area_names``; its modules import the roles under its names).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

CatalogueFile = Path | Traversable  # a catalogue beside a ruleset's code (Ruleset.data_file)

NUM_DIRECTIONS = 4
MAX_LOCAL_ZONES = 10  # local ids 0-7 touch a side, 8-9 do not (lakes, monasteries, gardens)
MAX_SIDE_ZONES = 8
DIRECTION_NAMES = ("N", "E", "S", "W")
# (dx, dy) per direction; x grows east, y grows south.
DIRECTION_OFFSETS = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)], dtype=np.int64)

# Side terrain codes (0 = empty position), named by role; each ruleset names its own terrains
# (``Vocabulary.terrains``): LAND the open ground (H&G meadow, Carcassonne field), ENCLOSURE the land an
# enclosed area shows (forest, city), PATH a side a path crosses, its banks on either hand (river, road),
# DIVIDER a second path that joins no path (the Carcassonne river).
LAND, ENCLOSURE, PATH, DIVIDER = 1, 2, 3, 4

# Zone types (roles; see the module docstring): Z_LAND an area never completed, scored at the end
# (meadow, field); Z_ENCLOSURE an area completed when enclosed (forest, city); Z_PATH an area between two
# ends (river, road). ``Ruleset.area_names`` says what a game calls each.
Z_LAND, Z_ENCLOSURE, Z_PATH, Z_POOL, Z_BLOCK_A, Z_BLOCK_B, Z_DIVIDER = range(7)
NUM_ZONE_TYPES = 7

# Tile kinds the core deals by: the start tile, the regular deck, the extra deck (menhir / bonus tiles).
# A ruleset numbers kinds of its own from FIRST_OWN_KIND on (its ``Vocabulary.kinds`` names them).
KIND_START, KIND_REGULAR, KIND_EXTRA = range(3)
FIRST_OWN_KIND = 3

# Animals, in the order of the count accumulators.
ANIMALS = ("mammoth", "aurochs", "deer", "tiger")
MAMMOTH, AUROCHS, DEER, TIGER = 0, 1, 2, 3

# Content counts kept per area root, one int16 each (see areas.py):
#   0 mammoth, 1 aurochs, 2 deer, 3 tiger   non-cancelled animals (meadows)
#   4 fish       on river zones (area partition) / rivers + lakes (system partition)
#   5 pools      pool zones (system partition): H&G lakes
#   6 bonus      worth extra points in a completed forest / city: mushrooms (H&G), coats of arms (Carcassonne)
#   7 trigger    earns an extra tile when its forest is completed: menhirs (2020), gold nuggets (2002)
C_FISH, C_POOLS, C_BONUS, C_TRIGGER = 4, 5, 6, 7
NUM_COUNTS = 8
TILE_WORDS = 2  # tile id bitsets: up to 128 tiles in two uint64 words


@dataclass(frozen=True)
class ZoneFacts:
    """What the engine needs of one zone of the catalogue, in the shared vocabulary."""

    type: int  # Z_*
    animals: tuple[int, int, int, int] = (0, 0, 0, 0)  # ANIMALS order
    fish: int = 0
    bonus: int = 0  # C_BONUS count
    trigger: int = 0  # C_TRIGGER count
    special: str = ""  # a special power on this zone, "" for none
    pool: int | None = None  # a path zone: local id of the pool it flows into on this tile (H&G: a river's lake)
    borders: tuple[int, ...] = ()  # a meadow / field: local ids of the forests / cities it borders on this tile


@dataclass(frozen=True)
class Vocabulary:
    """How a ruleset's catalogue file names things: side terrains, tile kinds, and a function
    reading one zone's facts. The specials listed here get an index (0 = none) in ``ZONE_SPECIAL``."""

    terrains: dict[str, int]  # side terrain name -> LAND / ENCLOSURE / PATH / DIVIDER
    kinds: dict[str, int]  # tile kind name -> KIND_*
    zone_facts: Callable[[dict], ZoneFacts]
    specials: tuple[str, ...] = ()


def load_catalogue(source: str | CatalogueFile) -> dict:
    """A tile catalogue (parsed JSON): a file name in ``hg_env/data``, or a file of a ruleset's own folder
    (``resources.files(__name__) / "tiles.json"`` or any path: whatever has ``read_text``)."""
    place = resources.files("hg_env.data").joinpath(source) if isinstance(source, str) else source
    return json.loads(place.read_text(encoding="utf-8"))


class TileSet:
    """The tables of one tile catalogue. Array attributes are read-only tables::

    TILE_KIND[tile]                 KIND_*
    TILE_ZONE[tile, local]          zone index z, -1 if the tile has no such zone
    ZONE_TILE[z], ZONE_LOCAL[z]     the tile and local id of zone z
    ZONE_TYPE[z]                    Z_*
    ZONE_ANIMALS[z, animal]         printed animals
    ZONE_FISH[z], ZONE_BONUS[z], ZONE_TRIGGER[z]   counts (see C_*)
    ZONE_SPECIAL[z]                 index into ``specials`` (0 = none)
    ZONE_SEGMENTS[z]                number of sides the zone touches (its open connections alone)
    ZONE_POOL_INDEX[z]              pool number 0..num_pools-1, -1 otherwise
    PATH_POOL[z]                    pool zone a path flows into on its tile, -1 otherwise
    ZONE_BORDERS[z, k]              the forest / city zones a meadow / field borders on its tile, -1 padded
    SIDE_TYPE[tile, rot, dir]       terrain shown towards dir
    SIDE_ZONES[tile, rot, dir, slot]  zones of that side (module docstring), -1 for none
    SIDE_SPLIT[tile, rot, dir]      the side has banks (slots 0 and 2)
    COMPAT[tile, need, rot]         the tile fits a position with this need code (see ``need_bits``)
    """

    def __init__(self, catalogue: dict, vocabulary: Vocabulary) -> None:
        tiles = sorted(catalogue["tiles"], key=lambda t: t["id"])
        if [t["id"] for t in tiles] != list(range(len(tiles))):
            raise ValueError(f"tile catalogue must hold ids 0..{len(tiles) - 1}")
        self.num_tiles = len(tiles)
        if self.num_tiles > TILE_WORDS * 64:
            raise ValueError(f"at most {TILE_WORDS * 64} tiles fit the tile bitsets, got {self.num_tiles}")
        self.specials = ("", *vocabulary.specials)
        self._compile(tiles, vocabulary)
        # Need codes pack, per direction, the terrain the neighbour shows (0 = none): wide enough for
        # every terrain code of this catalogue, plus an "occupied" flag above them.
        self.need_bits = max(1, int(self.SIDE_TYPE.max()).bit_length())
        self.occupied_flag = 1 << (4 * self.need_bits)
        self.COMPAT = self._placement_table()
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    # ------------------------------------------------------------ compile

    def _compile(self, tiles: list[dict], vocab: Vocabulary) -> None:
        zone_rows = [(t["id"], z) for t in tiles for z in sorted(t["zones"], key=lambda z: z["zone"])]
        facts = [vocab.zone_facts(z) for _, z in zone_rows]
        nz, nt = len(zone_rows), self.num_tiles
        self.num_zones = nz
        self.TILE_KIND = np.array([vocab.kinds[t["kind"]] for t in tiles], dtype=np.int8)
        self.TILE_ZONE = np.full((nt, MAX_LOCAL_ZONES), -1, dtype=np.int16)
        self.ZONE_TILE = np.array([tid for tid, _ in zone_rows], dtype=np.int16)
        self.ZONE_LOCAL = np.array([z["zone"] for _, z in zone_rows], dtype=np.int8)
        self.TILE_ZONE[self.ZONE_TILE, self.ZONE_LOCAL] = np.arange(nz)
        self.ZONE_TYPE = np.array([f.type for f in facts], dtype=np.int8)
        self.ZONE_ANIMALS = np.array([f.animals for f in facts], dtype=np.int8).reshape(nz, 4)
        self.ZONE_FISH = np.array([f.fish for f in facts], dtype=np.int8)
        self.ZONE_BONUS = np.array([f.bonus for f in facts], dtype=np.int8)
        self.ZONE_TRIGGER = np.array([f.trigger for f in facts], dtype=np.int8)
        self.ZONE_SPECIAL = np.array([self.specials.index(f.special) for f in facts], dtype=np.int8)
        # Open connections of a lone zone: the side slots it fills (a field wrapping round the end of a
        # road fills both bank slots of that side).
        slots = {(t["id"], local): 0 for t in tiles for local in (z["zone"] for z in t["zones"])}
        for t in tiles:
            for side in t["sides"].values():
                for local in side["zones"]:
                    slots[(t["id"], local)] += 1
        self.ZONE_SEGMENTS = np.array([slots[(tid, z["zone"])] for tid, z in zone_rows], dtype=np.int16)
        pools = np.flatnonzero(self.ZONE_TYPE == Z_POOL)
        self.num_pools = len(pools)
        self.ZONE_POOL_INDEX = np.full(nz, -1, dtype=np.int8)
        self.ZONE_POOL_INDEX[pools] = np.arange(len(pools))
        self.POOL_ZONE = pools.astype(np.int16)
        self.POOL_FISH = self.ZONE_FISH[pools].astype(np.int16)
        self.PATH_POOL = np.full(nz, -1, dtype=np.int16)
        width = max([len(f.borders) for f in facts] + [1])
        self.ZONE_BORDERS = np.full((nz, width), -1, dtype=np.int16)
        for z, ((tid, _), f) in enumerate(zip(zone_rows, facts)):
            if f.pool is not None:
                self.PATH_POOL[z] = self.TILE_ZONE[tid, f.pool]
            self.ZONE_BORDERS[z, : len(f.borders)] = self.TILE_ZONE[tid, list(f.borders)]
        printed_type = np.zeros((nt, 4), dtype=np.int8)
        printed_zones = np.full((nt, 4, 3), -1, dtype=np.int16)
        for t in tiles:
            for d, name in enumerate(DIRECTION_NAMES):
                side = t["sides"][name]
                printed_type[t["id"], d] = vocab.terrains[side["terrain"]]
                zs = [self.TILE_ZONE[t["id"], local] for local in side["zones"]]
                printed_zones[t["id"], d] = zs if len(zs) == 3 else [-1, zs[0], -1]
        self.SIDE_TYPE = _rotate_sides(printed_type)
        self.SIDE_ZONES = _rotate_sides(printed_zones)
        self.SIDE_SPLIT = self.SIDE_ZONES[..., 0] >= 0

    def _placement_table(self) -> np.ndarray:
        """COMPAT[tile, need, rot]: does the tile fit a position with this need code.

        A position's *need code* packs, for each direction d, the terrain that the
        neighbour in direction d shows towards it (``need_bits`` bits at
        ``need_bits * d``, 0 = no neighbour), and ``occupied_flag`` for an occupied
        position. A rotation fits iff every constrained direction matches, at least
        one direction is constrained, and the position is empty.
        """
        bits = self.need_bits
        codes = np.arange(2 * self.occupied_flag)
        need = (codes[:, None] >> (bits * np.arange(4))) & ((1 << bits) - 1)  # [code, dir]
        side = self.SIDE_TYPE[:, None, :, :]  # [tile, 1, rot, dir]
        ok = (need[None, :, None, :] == 0) | (need[None, :, None, :] == side)
        empty = (codes < self.occupied_flag)[None, :, None]
        return ok.all(-1) & (need != 0).any(-1)[None, :, None] & empty  # [tile, code, rot]

    # ------------------------------------------------------------ derived tables

    def tiles_of_kind(self, kind: int) -> np.ndarray:
        """Ids of the tiles of one kind (KIND_*), ascending, int8."""
        return np.flatnonzero(kind == self.TILE_KIND).astype(np.int8)

    @cached_property
    def COMPAT_WORDS(self) -> np.ndarray:
        """[tile * num_need_codes + need code] uint32: COMPAT flattened, a need's four rotations as one
        word (a view back as bool, shape [..., 4], gives the rotations), for one-gather lookups: numpy
        gathers one word per index many times faster than a 4-byte row."""
        return self.COMPAT.view(np.uint32).reshape(-1)

    @cached_property
    def OPPOSITE_SHIFT(self) -> np.ndarray:
        """[dir] bit offset, in a need code, of the side facing direction dir."""
        return (self.need_bits * ((np.arange(4) + 2) % 4)).astype(np.uint16)

    @cached_property
    def SHOWN_NEED(self) -> np.ndarray:
        """[tile, rot, dir] uint16: what the side facing dir adds to the need code of the neighbour there."""
        return self.SIDE_TYPE.astype(np.uint16) << self.OPPOSITE_SHIFT

    @cached_property
    def CLOSABLE(self) -> np.ndarray:
        """[tile, local] the zone is a forest or river (city, road): scored when completed."""
        zone_type = self.ZONE_TYPE[np.maximum(self.TILE_ZONE, 0)]
        return (self.TILE_ZONE >= 0) & np.isin(zone_type, [Z_ENCLOSURE, Z_PATH])

    @cached_property
    def CLOSABLE_TABLE(self) -> np.ndarray:
        """[tile, k] ``CLOSABLE_ZONES`` as a table: the zone indices of its forests and rivers, -1 after them."""
        out = np.full((self.num_tiles, max(1, int(self.CLOSABLE.sum(1).max()))), -1, dtype=np.int64)
        for t, zones in enumerate(self.CLOSABLE_ZONES):
            out[t, : len(zones)] = zones
        return out

    @cached_property
    def CLOSABLE_ZONES(self) -> list[np.ndarray]:
        """[tile] the zone indices of its forests and rivers (cities, roads)."""
        return [self.TILE_ZONE[t, np.flatnonzero(self.CLOSABLE[t])] for t in range(self.num_tiles)]

    @cached_property
    def START_TILE(self) -> int:
        return int(np.flatnonzero(self.TILE_KIND == KIND_START)[0])

    @cached_property
    def SPECIAL_ZONE(self) -> dict[str, int]:
        """Zone of each special power of the catalogue, by name (each is printed once)."""
        return {name: int(np.flatnonzero(i == self.ZONE_SPECIAL)[0]) for i, name in enumerate(self.specials) if i}

    @cached_property
    def SPECIAL_TILE(self) -> dict[str, int]:
        return {name: int(self.ZONE_TILE[z]) for name, z in self.SPECIAL_ZONE.items()}

    @cached_property
    def PRINTED_ANIMALS(self) -> np.ndarray:
        """[tile, animal] animals printed on each tile."""
        out = np.zeros((self.num_tiles, 4), dtype=np.int64)
        np.add.at(out, self.ZONE_TILE, self.ZONE_ANIMALS)
        return out

    def global_zone_id(self, z: int) -> int:
        """Global id (10 x tile + local) of a compact zone index."""
        return 10 * int(self.ZONE_TILE[z]) + int(self.ZONE_LOCAL[z])

    def zone_index(self, global_id: int) -> int:
        """Compact zone index of a global zone id; ValueError if none."""
        tile, local = divmod(int(global_id), 10)
        if not (0 <= tile < self.num_tiles) or self.TILE_ZONE[tile, local] < 0:
            raise ValueError(f"no zone with global id {global_id}")
        return int(self.TILE_ZONE[tile, local])


def _rotate_sides(printed: np.ndarray) -> np.ndarray:
    """[tile, side, ...] printed -> [tile, rot, dir, ...] as shown when rotated."""
    d = np.arange(4)
    return np.stack([printed[:, (d - r) % 4] for r in range(4)], axis=1)
