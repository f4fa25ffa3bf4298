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

Every zone's parent is its root (quick-find): a join relabels the zones of the
joined areas, so finding a root is a single lookup.

Accumulators are valid at roots only:

* ``open``: open connections (a join of areas a, b gives a + b - 2; a join of an
  area with itself, closing a loop, gives a - 2);
* ``tiles``: bitset of tile ids, so ``tile_count`` counts *distinct* tiles (Q15);
* ``lakes``: bitset of lake numbers attached to a river area, so ``lake_fish``
  counts a lake closing both ends of one river once (Q14);
* ``counts``: content counts, see ``tiles.NUM_COUNTS``;
* ``occupants``: pawns (area partition) or huts (system partition) per seat.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from hg_env.core.rules import MAX_PLAYERS
from hg_env.core.tiles import (
    AUROCHS,
    C_FISH,
    C_LAKES,
    C_MENHIRS,
    C_MUSHROOMS,
    DEER,
    LAKE_FISH,
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


def tile_sets(members: np.ndarray) -> np.ndarray:
    """[..., 95] bool membership -> [..., TILE_WORDS] uint64 tile bitsets (the inverse of ``tile_members``)."""
    padded = np.zeros((*members.shape[:-1], TILE_WORDS * 64), dtype=bool)
    padded[..., :NUM_TILES] = members
    return np.packbits(padded, axis=-1, bitorder="little").view("<u8").astype(np.uint64)


def lake_members(bits: np.ndarray) -> np.ndarray:
    """[...] uint64 lake bitsets -> [..., 29] bool membership."""
    return ((bits[..., None] >> np.arange(NUM_LAKES, dtype=np.uint64)) & _ONE).astype(bool)


_BYTE_SHIFTS = np.array([0, 8, 16, 24], dtype=np.uint64)
# _LAKE_FISH_BY_BYTE[k, v]: fish of the lakes numbered 8k + i for the set bits i of v
_LAKE_FISH_BY_BYTE = np.array(
    [
        [sum(int(LAKE_FISH[8 * k + i]) for i in range(8) if v >> i & 1 and 8 * k + i < NUM_LAKES) for v in range(256)]
        for k in range(4)
    ],
    dtype=np.int16,
)


def lake_fish_of(bits: np.ndarray) -> np.ndarray:
    """[...] uint64 lake bitsets -> [...] total fish of those lakes (29 lakes: 4 bytes)."""
    octets = ((bits[..., None] >> _BYTE_SHIFTS) & np.uint64(255)).astype(np.intp)
    return _LAKE_FISH_BY_BYTE[np.arange(4), octets].sum(-1)


def popcount(bits: np.ndarray) -> np.ndarray:
    """Number of set bits over the last axis of a tile bitset."""
    return np.bitwise_count(bits).sum(-1).astype(np.int16)


# Columns of ``Partition.sums`` (int16), merged by addition except the derived ones:
#   0 size       zones in the tree (union by size)
#   1..8         content counts, see tiles.NUM_COUNTS
#   9 worth      the additive part of the area's value: 3 x mushrooms + fish + 3 x mammoths
#                + 2 x aurochs + deer (live animals); see observation.py
#   10 open      open connections
#   11 tiles     distinct tiles (derived: popcount of the tile bitset)
#   12 lake_fish fish of the distinct lakes attached to a river area (derived from the lake bitset)
#   13..17       occupants per seat: pawns (area partition) or huts (system partition)
# open..occupants come last, side by side: observation.py reads them as one block.
SIZE, COUNTS = 0, 1
WORTH = COUNTS + NUM_COUNTS
OPEN, TILES, LAKE_FISH, OCCUPANTS = WORTH + 1, WORTH + 2, WORTH + 3, WORTH + 4
NUM_SUMS = OCCUPANTS + MAX_PLAYERS
# Weights of the content counts in ``worth``: each area holds counts of its own kind only.
WORTH_WEIGHTS = np.zeros(NUM_COUNTS, dtype=np.int16)
WORTH_WEIGHTS[[C_MUSHROOMS, C_FISH, MAMMOTH, AUROCHS, DEER]] = (3, 1, 3, 2, 1)
# Columns of ``Partition.bits`` (uint64), merged by bitwise or: 0-1 tile ids, 2 lake numbers.
TILE_BITS, LAKE_BITS = slice(0, TILE_WORDS), TILE_WORDS


@dataclass
class Partition:
    """Batched union-find over zones; arrays have a leading batch axis [B, Z, ...].

    All accumulators of a root sit in two rows (``sums``, ``bits``), so a join
    merges them with one add and one or. Named views (``open``, ``counts``, ...)
    read and write the same memory."""

    parent: np.ndarray  # [B, Z] int16 parent zone; a root is its own parent
    sums: np.ndarray  # [B, Z, NUM_SUMS] int16 additive accumulators (roots), columns above
    bits: np.ndarray  # [B, Z, 3] uint64 bitsets (roots): tile ids, lake numbers

    @property
    def size(self) -> np.ndarray:
        return self.sums[..., SIZE]

    @property
    def open(self) -> np.ndarray:
        return self.sums[..., OPEN]

    @property
    def tile_count(self) -> np.ndarray:
        return self.sums[..., TILES]

    @property
    def lake_fish(self) -> np.ndarray:
        return self.sums[..., LAKE_FISH]

    @property
    def counts(self) -> np.ndarray:
        return self.sums[..., COUNTS:WORTH]

    @property
    def occupants(self) -> np.ndarray:
        return self.sums[..., OCCUPANTS:]

    @property
    def worth(self) -> np.ndarray:
        return self.sums[..., WORTH]

    @property
    def tiles(self) -> np.ndarray:
        return self.bits[..., TILE_BITS]

    @property
    def lakes(self) -> np.ndarray:
        return self.bits[..., LAKE_BITS]

    @classmethod
    def from_template(cls, template: Partition, batch: int) -> Partition:
        return cls(**{f.name: np.repeat(getattr(template, f.name), batch, axis=0) for f in fields(cls)})

    def copy(self) -> Partition:
        return Partition(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def find(self, g: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Roots of zones z in games g (any broadcastable shapes): one lookup, as every
        zone points straight at its root (joins relabel, see ``union``)."""
        return self.parent[g, z]

    def all_roots(self, g: np.ndarray | slice = slice(None)) -> np.ndarray:
        """[G, Z] the root of every zone of games g."""
        return self.parent[g]

    def union(self, g: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        """Join the areas of zones a[i] and b[i] in games g[i], for every i at once.

        A game may appear in several pairs. Each pair is one matched side
        segment: the joined area has the sum of the open connections minus 2
        per pair (R2.15), whether it joins two areas or closes a loop."""
        if not len(g):
            return
        n = len(g)
        gg = np.concatenate([g, g])
        keys_ab = gg * NUM_ZONES + self.parent[gg, np.concatenate([a, b])]
        ka, kb = keys_ab[:n], keys_ab[n:]
        sums = self.sums.reshape(-1, NUM_SUMS)
        bits = self.bits.reshape(-1, self.bits.shape[-1])
        keys, keep, pair_root = _components(ka, kb, sums[:, SIZE])
        moved = keep != keys
        np.add.at(sums, keep[moved], sums[keys[moved]])
        np.add.at(sums[:, OPEN], pair_root, -2)
        np.bitwise_or.at(bits, keep[moved], bits[keys[moved]])
        _relabel(self.parent, keys[moved], keep[moved])
        grown = keep[moved]  # refresh the derived columns of the grown roots (repeats write equal values)
        sums[grown, TILES] = popcount(bits[grown, TILE_BITS])
        lakes = bits[grown, LAKE_BITS]
        if lakes.any():  # only river areas flowing into lakes have any
            sums[grown, LAKE_FISH] = lake_fish_of(lakes)


_ZONE_IDS = np.arange(NUM_ZONES, dtype=np.int16)


def _relabel(parent: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
    """Point every zone whose root is ``old[i]`` at ``new[i]`` (flat keys game * Z + zone).

    Keeping every zone one step from its root makes ``find`` a single lookup; the
    price is this pass over the zones of the games that joined areas."""
    games = old // NUM_ZONES
    if len(games) <= 16:  # few joins (the single-game case): cheaper with Python ints
        distinct = sorted(set(games.tolist()))
        if len(distinct) == 1:  # one game: remap its row in place
            remap = _ZONE_IDS.copy()
            remap[old % NUM_ZONES] = new % NUM_ZONES
            parent[distinct[0]] = remap[parent[distinct[0]]]
            return
        rows = np.array(distinct, dtype=np.intp)
        row_of = np.searchsorted(rows, games)
    else:
        rows, row_of = np.unique(games, return_inverse=True)
    remap = np.tile(_ZONE_IDS, (len(rows), 1))  # identity per game
    remap[row_of, old % NUM_ZONES] = new % NUM_ZONES
    offsets = (np.arange(len(rows)) * NUM_ZONES)[:, None]
    parent[rows] = remap.take(parent[rows] + offsets)


def _components(ka: np.ndarray, kb: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Connected components of the roots joined by the pairs (ka[i], kb[i]) (flat keys).

    Returns ``keys`` (the distinct roots), ``keep`` (the surviving root of each:
    the root of the largest tree, ties to the smallest key, so that a game gets
    the same roots in any batch) and ``pair_root`` (the surviving root of each pair)."""
    if len(ka) <= 16:  # the single-game case: a few pairs, cheaper as Python ints
        parent: dict[int, int] = {}

        def top(k: int) -> int:
            while parent.setdefault(k, k) != k:
                k = parent[k]
            return k

        for x, y in zip(ka.tolist(), kb.tolist()):
            rx, ry = top(x), top(y)
            if rx != ry:
                parent[ry] = rx
        members: dict[int, list[int]] = {}
        for k in parent:
            members.setdefault(top(k), []).append(k)
        winner = {}
        for group in members.values():  # the same rule as below: largest tree, then smallest key
            best = max(group, key=lambda k: (size[k], -k))
            winner.update(dict.fromkeys(group, best))
        keys = np.fromiter(winner, dtype=np.intp, count=len(winner))
        keep = np.fromiter(winner.values(), dtype=np.intp, count=len(winner))
        pair_root = np.array([winner[k] for k in ka.tolist()], dtype=np.intp)
        return keys, keep, pair_root
    keys, index = np.unique(np.concatenate([ka, kb]), return_inverse=True)
    ia, ib = index[: len(ka)], index[len(ka) :]
    label = np.arange(len(keys))
    while True:  # propagate the smallest label along the pairs
        low = np.minimum(label[ia], label[ib])
        new = label.copy()
        np.minimum.at(new, ia, low)
        np.minimum.at(new, ib, low)
        new = new[new]
        if (new == label).all():
            break
        label = new
    order = np.lexsort((-size[keys], label))  # within a component, the largest tree first
    first = np.ones(len(keys), dtype=bool)
    first[1:] = label[order][1:] != label[order][:-1]
    winner = np.empty(len(keys), dtype=np.intp)
    winner[label[order][first]] = keys[order][first]
    keep = winner[label]
    return keys, keep, keep[ia]


def _singletons() -> Partition:
    z = np.arange(NUM_ZONES)
    part = Partition(
        parent=z.astype(np.int16)[None],
        sums=np.zeros((1, NUM_ZONES, NUM_SUMS), dtype=np.int16),
        bits=np.zeros((1, NUM_ZONES, TILE_WORDS + 1), dtype=np.uint64),
    )
    part.size[:] = 1
    part.open[:] = ZONE_SEGMENTS
    part.tile_count[:] = 1
    part.tiles[:] = tile_bits(ZONE_TILE)[None]
    return part


def _area_template() -> Partition:
    part = _singletons()
    meadow = ZONE_TYPE == Z_MEADOW
    part.counts[0, meadow, MAMMOTH : TIGER + 1] = ZONE_ANIMALS[meadow]
    river = ZONE_TYPE == Z_RIVER
    part.counts[0, river, C_FISH] = ZONE_FISH[river]
    part.counts[0, :, C_MUSHROOMS] = ZONE_MUSHROOMS
    part.counts[0, :, C_MENHIRS] = ZONE_MENHIR
    attached = RIVER_LAKE >= 0
    part.lakes[0, attached] = _ONE << ZONE_LAKE_INDEX[RIVER_LAKE[attached]].astype(np.uint64)
    part.lake_fish[0, attached] = ZONE_FISH[RIVER_LAKE[attached]]
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
        part.sums[0, lake] += part.sums[0, river]
    part.tile_count[:] = 1  # a lake and its rivers lie on one tile
    return part


def _with_worth(part: Partition) -> Partition:
    part.worth[:] = part.counts @ WORTH_WEIGHTS
    return part


AREA_TEMPLATE = _with_worth(_area_template())
SYSTEM_TEMPLATE = _with_worth(_system_template())
