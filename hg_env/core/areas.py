"""Areas as a batched union-find over zones, with per-root accumulators (R2.14-R2.17).

Two partitions of the zone index ``z`` (see tiles.py):

* the **area** partition joins meadow, forest and river zones (fields, cities,
  roads) along matched sides; lakes, monasteries and gardens are singletons there;
* the **system** partition (rulesets with huts) joins river and lake zones along
  river sides and through each tile's river->lake links (river systems).

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
* ``lakes``: bitset of lake numbers attached to a river area, so ``attached_value``
  counts a lake closing both ends of one river once (Q14);
* ``borders``: bitset of the forest / city zones a meadow / field borders
  (Carcassonne farmers: the cities next to their field);
* ``counts``: content counts, see ``tiles.NUM_COUNTS``;
* ``occupants``: pawns (area partition) or huts (system partition) per seat.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from hg_env.core.arrays import nonzero, occurs_once, put_rows
from hg_env.core.scoring import Points
from hg_env.core.seats import MAX_PLAYERS
from hg_env.core.tiles import (
    AUROCHS,
    C_BONUS,
    C_FISH,
    C_POOLS,
    C_TRIGGER,
    DEER,
    MAMMOTH,
    NUM_COUNTS,
    TIGER,
    TILE_WORDS,
    Z_ENCLOSURE,
    Z_LAND,
    Z_PATH,
    Z_POOL,
    TileSet,
)

_ONE = np.uint64(1)


def tile_bits(tile_ids: np.ndarray) -> np.ndarray:
    """[n] tile ids -> [n, TILE_WORDS] uint64 one-hot bitsets."""
    tile_ids = np.asarray(tile_ids, dtype=np.int64)
    bits = np.zeros((len(tile_ids), TILE_WORDS), dtype=np.uint64)
    bits[np.arange(len(tile_ids)), tile_ids // 64] = _ONE << (tile_ids % 64).astype(np.uint64)
    return bits


def tile_members(bits: np.ndarray, num_tiles: int) -> np.ndarray:
    """[..., W] uint64 bitsets -> [..., num_tiles] bool membership (tiles, or any numbered set)."""
    octets = np.ascontiguousarray(bits, dtype="<u8").view(np.uint8)  # bit k of word w: bit k % 8 of byte 8w + k // 8
    return np.unpackbits(octets, axis=-1, count=num_tiles, bitorder="little").view(bool)


def tile_sets(members: np.ndarray) -> np.ndarray:
    """[..., n] bool membership -> [..., TILE_WORDS] uint64 bitsets (the inverse of ``tile_members``)."""
    padded = np.zeros((*members.shape[:-1], TILE_WORDS * 64), dtype=bool)
    padded[..., : members.shape[-1]] = members
    return np.packbits(padded, axis=-1, bitorder="little").view("<u8").astype(np.uint64)


def pool_members(bits: np.ndarray, num_pools: int) -> np.ndarray:
    """[...] uint64 pool bitsets -> [..., num_pools] bool membership."""
    return ((bits[..., None] >> np.arange(num_pools, dtype=np.uint64)) & _ONE).astype(bool)


def popcount(bits: np.ndarray) -> np.ndarray:
    """Number of set bits over the last axis of a bitset."""
    return np.bitwise_count(bits).sum(-1).astype(np.int16)


# Columns of ``Partition.sums`` (int16), merged by addition except the derived ones:
#   0 size       zones in the tree (union by size)
#   1..8         content counts, see tiles.NUM_COUNTS
#   9 worth      the additive part of the area's value: WORTH_WEIGHTS . counts (2020: 3 x mushrooms
#                + fish + 3 x mammoths + 2 x aurochs + deer, the live animals); see observation.py
#   10 open      open connections
#   11 tiles     distinct tiles (derived: popcount of the tile bitset)
#   12 attached  value the area gets from features outside it: the fish of the distinct lakes closing a
#                path (H&G river; derived from the lake bitset); an observation may show a ruleset's own
#                value there (``Ruleset.observe_areas``: a Carcassonne field's farmer points)
#   13..17       occupants per seat: pawns (area partition) or huts (system partition)
# open..occupants come last, side by side: observation.py reads them as one block.
SIZE, COUNTS = 0, 1
WORTH = COUNTS + NUM_COUNTS
OPEN, TILES, ATTACHED_VALUE, OCCUPANTS = WORTH + 1, WORTH + 2, WORTH + 3, WORTH + 4
NUM_SUMS = OCCUPANTS + MAX_PLAYERS
# Columns of ``Partition.bits`` (uint64), merged by bitwise or: tile ids, pool numbers, then the
# border words (AreaTables.border_words of them, only where some tile has borders).
TILE_BITS, POOL_BITS, BORDER_BITS = slice(0, TILE_WORDS), TILE_WORDS, TILE_WORDS + 1


@dataclass
class Partition:
    """Batched union-find over zones; arrays have a leading batch axis [B, Z, ...].

    All accumulators of a root sit in two rows (``sums``, ``bits``), so a join
    merges them with one add and one or. Named views (``open``, ``counts``, ...)
    read and write the same memory."""

    parent: np.ndarray  # [B, Z] int16 parent zone; a root is its own parent
    sums: np.ndarray  # [B, Z, NUM_SUMS] int16 additive accumulators (roots), columns above
    bits: np.ndarray  # [B, Z, W] uint64 bitsets (roots): tile ids, pool numbers, borders

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
    def attached_value(self) -> np.ndarray:
        return self.sums[..., ATTACHED_VALUE]

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
    def pools(self) -> np.ndarray:
        return self.bits[..., POOL_BITS]

    @property
    def borders(self) -> np.ndarray:
        return self.bits[..., BORDER_BITS:]

    @classmethod
    def from_template(cls, template: Partition, batch: int) -> Partition:
        return cls(**{f.name: np.repeat(getattr(template, f.name), batch, axis=0) for f in fields(cls)})

    def copy(self) -> Partition:
        return Partition(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def find(self, g: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Roots of zones z in games g (any broadcastable shapes): one lookup, as every
        zone points straight at its root (joins relabel, see ``union``)."""
        return self.parent[g, z]

    def sum_rows(self, g: np.ndarray, z: np.ndarray) -> np.ndarray:
        """[n, NUM_SUMS] the sums rows of zones z[i] (roots, for accumulators) of games g[i] (1-d), read
        flat: numpy gathers short rows through two index arrays several times slower."""
        return self.sums.reshape(-1, NUM_SUMS).take(g * self.parent.shape[1] + z, axis=0)

    def bit_rows(self, g: np.ndarray, z: np.ndarray) -> np.ndarray:
        """[n, W] the bits rows of zones z[i] of games g[i] (1-d), read flat (see ``sum_rows``)."""
        return self.bits.reshape(-1, self.bits.shape[-1]).take(g * self.parent.shape[1] + z, axis=0)

    def occupied(self, g: np.ndarray, z: np.ndarray) -> np.ndarray:
        """[n] bool: the area of zone z[i] in game g[i] holds a figure (1-d g and z; flat row reads)."""
        return self.sum_rows(g, self.parent.reshape(-1).take(g * self.parent.shape[1] + z))[:, OCCUPANTS:].any(1)

    def all_roots(self, g: np.ndarray | slice = slice(None)) -> np.ndarray:
        """[G, Z] the root of every zone of games g."""
        return self.parent[g]

    def union(self, g: np.ndarray, a: np.ndarray, b: np.ndarray, tables: AreaTables) -> None:
        """Join the areas of zones a[i] and b[i] in games g[i], for every i at once.

        A game may appear in several pairs. Each pair is one matched side
        segment: the joined area has the sum of the open connections minus 2
        per pair (R2.15), whether it joins two areas or closes a loop.
        ``tables`` are the ruleset's (its tiles' zones and lakes)."""
        if not len(g):
            return
        if self.parent.shape[0] == 1:  # a batch of one game (the single-game env): Python bookkeeping
            self.union_one(a.tolist(), b.tolist(), tables)
            return
        num_zones = self.parent.shape[1]
        parent = self.parent.reshape(-1)  # flat keys game * Z + zone
        base = np.concatenate([g, g]) * num_zones
        keys_ab = base + parent.take(base + np.concatenate([a, b]))  # the roots of a, then of b
        sums = self.sums.reshape(-1, NUM_SUMS)
        bits = self.bits.reshape(-1, self.bits.shape[-1])
        size = sums[:, SIZE]
        # Most pairs join two roots that no other pair touches (a new zone and a neighbour's area): the
        # larger tree survives, ties to the smaller key, as _components decides for the others.
        alone = occurs_once(keys_ab, len(parent)).reshape(2, -1).all(0)
        ka, kb = keys_ab.reshape(2, -1)[:, alone]
        first = (size[ka] > size[kb]) | ((size[ka] == size[kb]) & (ka < kb))
        grown, old = np.where(first, ka, kb), np.where(first, kb, ka)
        merged = sums.take(old, axis=0)
        merged[:, OPEN] -= 2  # one matched side segment
        merged += sums.take(grown, axis=0)  # int16: wraps as np.add.at would
        put_rows(sums, grown, merged)
        put_rows(bits, grown, bits.take(old, axis=0) | bits.take(grown, axis=0))
        if not alone.all():
            keys, keep, pair_root = _components(*keys_ab.reshape(2, -1)[:, ~alone], size)
            moved = keep != keys
            old, grown = np.concatenate([old, keys[moved]]), np.concatenate([grown, keep[moved]])
            _merge_into(sums, bits, keys[moved], keep[moved])
            np.add.at(sums[:, OPEN], pair_root, -2)
        single = size[old] == 1  # a lone zone (a new tile's, mostly): only it points at its root
        parent[old[single]] = grown[single] % num_zones
        many = ~single
        _relabel(self.parent, old[many], grown[many], bits[old[many], TILE_BITS], tables.tiles.TILE_ZONE)
        # refresh the derived columns of the grown roots (repeats write equal values)
        sums[grown, TILES] = popcount(bits[grown, TILE_BITS])
        pools = bits[grown, POOL_BITS]
        wet = pools.nonzero()[0]  # only path areas flowing into pools have any (the others' sum is 0)
        if len(wet):
            sums[grown[wet], ATTACHED_VALUE] = pool_fish_of(pools[wet], tables.pool_fish_by_byte)

    def union_one(self, a: list[int], b: list[int], tables: AreaTables) -> None:
        """``union`` in a partition of one game: the same roots, sums and labels, with the component
        bookkeeping in Python ints (a tile joins a handful of zones) and a few small array calls."""
        sums = self.sums[0]
        roots = self.parent[0, a + b].tolist()
        if len(a) == 1:  # one matched side segment (two calls in three): no component bookkeeping
            x, y = roots
            if x != y:
                size_x, size_y = sums[roots, SIZE].tolist()
                x, y = (x, y) if size_x > size_y or (size_x == size_y and x < y) else (y, x)  # x survives
                self._absorb(x, y)
                self._refresh(x, tables)
            sums[x, OPEN] -= 2
            return
        ra, rb = roots[: len(a)], roots[len(a) :]
        link: dict[int, int] = {}

        def top(k: int) -> int:
            while link.setdefault(k, k) != k:
                k = link[k]
            return k

        for x, y in zip(ra, rb):
            tx, ty = top(x), top(y)
            if tx != ty:
                link[ty] = tx
        keys = list(link)
        size = dict(zip(keys, sums[keys, SIZE].tolist()))  # read before any join
        groups: dict[int, list[int]] = {}
        for k in keys:
            groups.setdefault(top(k), []).append(k)
        winner: dict[int, int] = {}
        for group in groups.values():  # the largest tree survives, ties to the smallest zone (as union)
            best = max(group, key=lambda k: (size[k], -k))
            winner.update(dict.fromkeys(group, best))
        closed: dict[int, int] = {}  # each pair is one matched side segment: 2 fewer open connections
        for x in ra:
            closed[winner[x]] = closed.get(winner[x], 0) + 2
        for k, w in winner.items():
            if k != w:
                self._absorb(w, k)
        for w, minus in closed.items():
            sums[w, OPEN] -= minus
        for w in sorted({w for k, w in winner.items() if k != w}):  # the grown roots
            self._refresh(w, tables)

    def _absorb(self, root: int, other: int) -> None:
        """Join root ``other`` into ``root`` in a partition of one game: its sums, bits and zones.
        int16 sums wrap like np.add.at's, so the order of joins does not change the values."""
        parent, sums, bits = self.parent[0], self.sums[0], self.bits[0]
        if sums[other, SIZE] == 1:  # a lone zone (a new tile's, mostly): only it points at its root
            parent[other] = root
        else:
            parent[parent == other] = root
        sums[root] += sums[other]
        bits[root] |= bits[other]

    def _refresh(self, root: int, tables: AreaTables) -> None:
        """The derived columns of a grown root of a one-game partition: distinct tiles, pool fish."""
        sums = self.sums[0]
        words = self.bits[0, root].tolist()
        sums[root, TILES] = sum(word.bit_count() for word in words[TILE_BITS])
        if words[POOL_BITS]:  # only path areas flowing into pools have any
            sums[root, ATTACHED_VALUE] = pool_fish_of(self.bits[0, root, POOL_BITS], tables.pool_fish_by_byte)


_BYTE_SHIFTS = np.array([0, 8, 16, 24], dtype=np.uint64)


def pool_fish_of(bits: np.ndarray, pool_fish: np.ndarray) -> np.ndarray:
    """[...] uint64 pool bitsets -> [...] total fish of those pools (up to 32 pools: 4 bytes)."""
    octets = ((bits[..., None] >> _BYTE_SHIFTS) & np.uint64(255)).astype(np.intp)
    return pool_fish[np.arange(4), octets].sum(-1)


def _merge_into(sums: np.ndarray, bits: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
    """Add the sums and or the bits of rows ``old[i]`` into rows ``new[i]`` (flat keys), as
    ``np.add.at`` would: the sources of each target (an area may absorb several) are reduced first.
    No ``old`` row is a ``new`` row."""
    if not len(old):
        return
    order = np.argsort(new, kind="stable")
    target, source = new[order], old[order]
    starts = np.flatnonzero(np.r_[True, target[1:] != target[:-1]])  # each target's run of sources
    t = target[starts]
    sums[t] += np.add.reduceat(sums[source], starts)  # int16: wraps as np.add.at would
    bits[t] |= np.bitwise_or.reduceat(bits[source], starts)


def _relabel(
    parent: np.ndarray, old: np.ndarray, new: np.ndarray, old_tiles: np.ndarray, tile_zone: np.ndarray
) -> None:
    """Point every zone whose root is ``old[i]`` at ``new[i]`` (flat keys game * Z + zone).

    Keeping every zone one step from its root makes ``find`` a single lookup; the price is this
    pass. Only the zones of an area's own tiles can point at its root, so it looks at the zones of
    the tiles in ``old_tiles[i]`` (the tile bitsets of the old roots, ``tile_zone`` [tile, local])."""
    if not len(old):
        return
    num_zones = parent.shape[1]
    games, old_zone, new_zone = old // num_zones, old % num_zones, new % num_zones
    i, tile = nonzero(tile_members(old_tiles, len(tile_zone)))  # (join, tile of its old area)
    zone = tile_zone[tile]  # [pairs, local], -1 past the tile's zones
    game = games[i, None]
    hit = (zone >= 0) & (parent[game, np.maximum(zone, 0)] == old_zone[i, None])
    j, k = nonzero(hit)
    parent[games[i[j]], zone[j, k]] = new_zone[i[j]]


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


class AreaTables:
    """The partitions' templates and lookup tables of one ruleset (its tiles and point values)."""

    def __init__(self, tiles: TileSet, points: Points, systems: bool) -> None:
        self.tiles = tiles
        self.points = points
        self.systems = systems
        if tiles.num_pools > 32:
            raise ValueError(f"at most 32 pools fit the pool bitsets, got {tiles.num_pools}")
        # pool_fish_by_byte[k, v]: fish of the pools numbered 8k + i for the set bits i of v
        self.pool_fish_by_byte = np.array(
            [
                [
                    sum(int(tiles.POOL_FISH[8 * k + i]) for i in range(8) if v >> i & 1 and 8 * k + i < tiles.num_pools)
                    for v in range(256)
                ]
                for k in range(4)
            ],
            dtype=np.int16,
        )
        # Weights of the content counts in ``worth``: each area holds counts of its own kind only.
        self.worth_weights = np.zeros(NUM_COUNTS, dtype=np.int16)
        self.worth_weights[[C_BONUS, C_FISH, MAMMOTH, AUROCHS, DEER]] = (
            points.enclosure_bonus,
            points.path_fish,
            points.mammoth,
            points.aurochs,
            points.deer,
        )
        # Border bitsets number the forest / city zones: FOREST_NUMBER[z] (-1 for other zones).
        forests = np.flatnonzero(tiles.ZONE_TYPE == Z_ENCLOSURE)
        self.forest_zones = forests
        self.forest_number = np.full(tiles.num_zones, -1, dtype=np.int64)
        self.forest_number[forests] = np.arange(len(forests))
        self.border_words = -(-len(forests) // 64) if (tiles.ZONE_BORDERS >= 0).any() else 0

    def _singletons(self) -> Partition:
        t = self.tiles
        nz = t.num_zones
        part = Partition(
            parent=np.arange(nz, dtype=np.int16)[None],
            sums=np.zeros((1, nz, NUM_SUMS), dtype=np.int16),
            bits=np.zeros((1, nz, TILE_WORDS + 1 + self.border_words), dtype=np.uint64),
        )
        part.size[:] = 1
        part.open[:] = t.ZONE_SEGMENTS
        part.tile_count[:] = 1
        part.tiles[:] = tile_bits(t.ZONE_TILE)[None]
        return part

    def _with_worth(self, part: Partition) -> Partition:
        part.worth[:] = part.counts @ self.worth_weights
        return part

    @cached_property
    def area_template(self) -> Partition:
        t, part = self.tiles, self._singletons()
        meadow = t.ZONE_TYPE == Z_LAND
        part.counts[0, meadow, MAMMOTH : TIGER + 1] = t.ZONE_ANIMALS[meadow]
        path = t.ZONE_TYPE == Z_PATH
        part.counts[0, path, C_FISH] = t.ZONE_FISH[path]
        part.counts[0, :, C_BONUS] = t.ZONE_BONUS
        part.counts[0, :, C_TRIGGER] = t.ZONE_TRIGGER
        attached = t.PATH_POOL >= 0
        part.pools[0, attached] = _ONE << t.ZONE_POOL_INDEX[t.PATH_POOL[attached]].astype(np.uint64)
        part.attached_value[0, attached] = t.ZONE_FISH[t.PATH_POOL[attached]]
        if self.border_words:
            z, k = np.nonzero(t.ZONE_BORDERS >= 0)
            number = self.forest_number[t.ZONE_BORDERS[z, k]]
            np.bitwise_or.at(part.borders[0], (z, number // 64), _ONE << (number % 64).astype(np.uint64))
        return self._with_worth(part)

    @cached_property
    def system_template(self) -> Partition:
        t, part = self.tiles, self._singletons()
        water = (t.ZONE_TYPE == Z_PATH) | (t.ZONE_TYPE == Z_POOL)
        part.counts[0, water, C_FISH] = t.ZONE_FISH[water]
        part.counts[0, t.ZONE_TYPE == Z_POOL, C_POOLS] = 1
        for path in np.flatnonzero(t.PATH_POOL >= 0):  # a path->pool link has no side segment: a + b, no -2
            pool = t.PATH_POOL[path]
            part.parent[0, path] = pool
            part.sums[0, pool] += part.sums[0, path]
        part.tile_count[:] = 1  # a pool and the paths into it lie on one tile
        return self._with_worth(part)
