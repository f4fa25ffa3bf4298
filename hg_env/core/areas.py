"""Areas as a batched union-find over zones, with per-root accumulators (R2.14-R2.17).

Two partitions of the zone index ``z`` (see tiles.py):

* the **area** partition joins forest, meadow and river zones along matched
  sides; a lake is a singleton there, so a lake splits rivers (R2.14);
* the **system** partition joins river and lake zones along river sides and
  through each tile's river->lake links (river systems).

Every zone starts as the template of its own tile: a singleton holding its own
contents, with all its side segments open (R2.15). The river->lake links are
pre-joined in the system template, so placing a tile only joins zones along the
sides it shares with its neighbours. Zones of tiles not on the board are never
reached by a join, so they simply stay singletons.

Accumulators are valid at roots only:

* ``open``: open connections (a join of areas a, b gives a + b - 2; a join of an
  area with itself, closing a loop, gives a - 2);
* ``tiles``: bitset of tile ids, so tileCount counts *distinct* tiles (Q15);
* ``lakes``: bitset of lake numbers attached to a river area, so a lake closing
  both ends of one river counts once (Q14);
* ``counts``: content counts, see ``tiles.NUM_COUNTS``;
* ``occupants``: pawns (area partition) or huts (system partition) per seat.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from hg_env.core.rules import MAX_PLAYERS
from hg_env.core.tiles import (
    C_FISH,
    C_LAKES,
    C_MENHIRS,
    C_MUSHROOMS,
    MAMMOTH,
    NUM_COUNTS,
    NUM_LAKES,
    NUM_TILES,
    NUM_ZONES,
    RIVER_LAKE,
    TIGER,
    Z_LAKE,
    Z_MEADOW,
    Z_RIVER,
    ZONE_ANIMALS,
    ZONE_FISH,
    ZONE_LAKE_INDEX,
    ZONE_MENHIR,
    ZONE_MUSHROOMS,
    ZONE_SEGMENTS,
    ZONE_TILE,
    ZONE_TYPE,
)

TILE_WORDS = 2  # 95 tile ids in two uint64 words
_ONE = np.uint64(1)


def tile_bits(tile_ids: np.ndarray) -> np.ndarray:
    """[n] tile ids -> [n, TILE_WORDS] uint64 one-hot bitsets."""
    tile_ids = np.asarray(tile_ids, dtype=np.int64)
    bits = np.zeros((len(tile_ids), TILE_WORDS), dtype=np.uint64)
    bits[np.arange(len(tile_ids)), tile_ids // 64] = _ONE << (tile_ids % 64).astype(np.uint64)
    return bits


def tile_members(bits: np.ndarray) -> np.ndarray:
    """[..., 2] uint64 tile bitsets -> [..., 95] bool membership."""
    shifts = np.arange(64, dtype=np.uint64)
    members = ((bits[..., :, None] >> shifts) & _ONE).astype(bool)
    return members.reshape(*bits.shape[:-1], TILE_WORDS * 64)[..., :NUM_TILES]


def lake_members(bits: np.ndarray) -> np.ndarray:
    """[...] uint32 lake bitsets -> [..., 29] bool membership."""
    return ((bits[..., None] >> np.arange(NUM_LAKES, dtype=np.uint32)) & 1).astype(bool)


def popcount(bits: np.ndarray) -> np.ndarray:
    """Number of set bits over the last axis of a tile bitset."""
    return np.bitwise_count(bits).sum(-1).astype(np.int16)


@dataclass
class Partition:
    """Batched union-find over zones; arrays have a leading batch axis [B, Z, ...]."""

    parent: np.ndarray  # [B, Z] int16 parent zone; a root is its own parent
    size: np.ndarray  # [B, Z] int16 zones in the tree (roots)
    open: np.ndarray  # [B, Z] int16 open connections (roots)
    tiles: np.ndarray  # [B, Z, 2] uint64 bitset of tile ids (roots)
    lakes: np.ndarray  # [B, Z] uint32 bitset of attached lake numbers (roots)
    counts: np.ndarray  # [B, Z, 8] int8 content counts (roots)
    occupants: np.ndarray  # [B, Z, 5] int8 pawns or huts per seat (roots)

    @classmethod
    def from_template(cls, template: Partition, batch: int) -> Partition:
        return cls(**{f.name: np.repeat(getattr(template, f.name), batch, axis=0) for f in fields(cls)})

    def copy(self) -> Partition:
        return Partition(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def find(self, g: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Roots of zones z in games g (any matching shapes); compresses the paths."""
        root = self.parent[g, z]
        while True:
            up = self.parent[g, root]
            if np.array_equal(up, root):
                break
            root = up
        self.parent[g, z] = root
        return root

    def all_roots(self, g: np.ndarray | slice = slice(None)) -> np.ndarray:
        """[G, Z] root of every zone of games g, by pointer jumping; compresses."""
        root = self.parent[g]
        while True:
            up = np.take_along_axis(root, root.astype(np.intp), axis=1)
            if np.array_equal(up, root):
                break
            root = up
        self.parent[g] = root
        return root

    def union(self, g: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        """Join the areas of zones a and b in games g (each game at most once)."""
        ra, rb = self.find(g, a), self.find(g, b)
        loop = ra == rb
        if loop.any():  # closing a loop: the two facing segments both close
            self.open[g[loop], ra[loop]] -= 2
            g, ra, rb = g[~loop], ra[~loop], rb[~loop]
        if not len(g):
            return
        swap = self.size[g, ra] < self.size[g, rb]  # keep the larger tree's root
        keep, gone = np.where(swap, rb, ra), np.where(swap, ra, rb)
        self.parent[g, gone] = keep
        self.size[g, keep] += self.size[g, gone]
        self.open[g, keep] += self.open[g, gone] - 2
        self.tiles[g, keep] |= self.tiles[g, gone]
        self.lakes[g, keep] |= self.lakes[g, gone]
        self.counts[g, keep] += self.counts[g, gone]
        self.occupants[g, keep] += self.occupants[g, gone]


def _singletons() -> Partition:
    z = np.arange(NUM_ZONES)
    return Partition(
        parent=z.astype(np.int16)[None],
        size=np.ones((1, NUM_ZONES), dtype=np.int16),
        open=ZONE_SEGMENTS.astype(np.int16)[None],
        tiles=tile_bits(ZONE_TILE)[None],
        lakes=np.zeros((1, NUM_ZONES), dtype=np.uint32),
        counts=np.zeros((1, NUM_ZONES, NUM_COUNTS), dtype=np.int8),
        occupants=np.zeros((1, NUM_ZONES, MAX_PLAYERS), dtype=np.int8),
    )


def _area_template() -> Partition:
    part = _singletons()
    meadow = ZONE_TYPE == Z_MEADOW
    part.counts[0, meadow, MAMMOTH : TIGER + 1] = ZONE_ANIMALS[meadow]
    river = ZONE_TYPE == Z_RIVER
    part.counts[0, river, C_FISH] = ZONE_FISH[river]
    part.counts[0, :, C_MUSHROOMS] = ZONE_MUSHROOMS
    part.counts[0, :, C_MENHIRS] = ZONE_MENHIR
    attached = RIVER_LAKE >= 0
    part.lakes[0, attached] = np.uint32(1) << ZONE_LAKE_INDEX[RIVER_LAKE[attached]].astype(np.uint32)
    return part


def _system_template() -> Partition:
    part = _singletons()
    water = (ZONE_TYPE == Z_RIVER) | (ZONE_TYPE == Z_LAKE)
    part.counts[0, water, C_FISH] = ZONE_FISH[water]
    part.counts[0, ZONE_TYPE == Z_LAKE, C_LAKES] = 1
    rivers = np.flatnonzero(RIVER_LAKE >= 0)
    for river in rivers:  # a river->lake link has no side segment: a + b, no -2
        lake = RIVER_LAKE[river]
        part.parent[0, river] = lake
        part.size[0, lake] += 1
        part.open[0, lake] += part.open[0, river]
        part.counts[0, lake] += part.counts[0, river]
    return part


AREA_TEMPLATE = _area_template()
SYSTEM_TEMPLATE = _system_template()
