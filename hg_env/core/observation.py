"""Board tensors seen from one seat: [C, H, W] uint8, batched as [G, C, H, W].

Every channel is an integer plane over the board (H = W = 2 * board_reach + 1,
cell (x, y) at row y + reach, column x + reach). The layout is one per ruleset
(``observer(ruleset)``), the same where meanings are shared; ``channel_names(ruleset,
reach)`` lists the names in order, ``channel_high`` the largest value of each,
``channel_scale`` a factor that brings each channel to about [0, 1] for a network.

Seats are relative to the observer: ``p0`` is the observer, ``p1`` the next
seat in turn order, and so on; seats beyond the number of players stay 0.

Tile planes (painted on the cell of every placed tile)
    tile                    1 where a tile lies
    tile_id                 tile id + 1
    rot0..rot3              rotation one-hot (R2.2)
    {N,E,S,W}_{terrain}     terrain of each side as shown (hg: meadow, forest, river;
                            carcassonne: field, city, road, river)
    contents                hg2020: fish, lakes, menhirs, mushrooms; hg2002: fish, lakes,
                            gold, mushrooms; carcassonne: coats_of_arms, monastery, garden
    specials                the ruleset's special powers on the tile (hg2020: shaman, logboat,
                            hunting_trap, pit_trap, wildfire, raft; hg2002: shrine, fire)
    mammoth, aurochs, deer, tiger     live animals on the tile (Hunters & Gatherers)
    {animal}_cancelled      animals taken out of play (Ruleset.cancelled_array: hg2020's hunting trap, R7.10)
    {piece}_p0..p4          owner of the tile's occupant by relative seat, one block per
                            occupant kind (hg: pawn, hut; carcassonne: meeple, abbot)
    occupant_zone           local zone id + 1 of that occupant (0 = none)
Area planes (per area type: hg forest, meadow, river, system = river system;
carcassonne city, field, road, cloister = monastery or garden), painted on every
tile holding a zone of the area; if a tile holds several areas of one type, each
feature is the maximum over them. All clipped at 255.
    {type}_open             open connections (R2.15); 0 = closed (cloister: empty neighbours)
    {type}_tiles            distinct tiles (R2.17) (cloister: itself and its neighbours)
    {type}_value            points it is worth now: hg forest R6.2, river R6.3, meadow R8.3
                            (fire included), system fish (+ lakes with the raft); carcassonne
                            city and road if completed, field 3 per completed bordering city,
                            cloister 1 + neighbours (9 when surrounded)
    {type}_occ_p0..p4       occupants per relative seat
Decision planes
    legal_r0..legal_r3      the tile to place fits here with rotation r (place phase)
    last_placed             the tile placed last
Info planes: the vector ``INFO_FIELDS`` laid out row-major over as many planes as
needed (one for the default board), zeros after its end:
    score_lo_p*, score_hi_p*  score = lo + 256 * hi, per relative seat
    {piece}s_p*               supplies per occupant kind;  seated_p*  1 for seats in the game
    acting_p*                 one-hot: the seat whose decision it is
    phase_*                   one-hot over the ruleset's phases (Ruleset.phases, or observed_phases):
                              place / occupy / over and its declared decisions' own phases
    extra_turn, regular_left, {menhir|bonus}_left   (deck sizes, R1.5)
    the ruleset's own arrays  GameArray.info (hg2020: pit_lo, pit_hi, the pit-trap choice's range);
                              an array over the seats is shown per relative seat
    to_place_t*               one-hot over the tiles: the tile to place (R1.9)
    unseen_t*                 1 for tiles still in a deck (public: set, not order)
"""

from __future__ import annotations

from functools import cache

import numpy as np

from hg_env.core.areas import ATTACHED_VALUE, COUNTS, NUM_SUMS, OCCUPANTS, OPEN, TILES, WORTH
from hg_env.core.arrays import nonzero
from hg_env.core.ruleset import DEFAULT_RULESET, Ruleset, get_ruleset
from hg_env.core.seats import MAX_PLAYERS
from hg_env.core.state import OVER, PLACE, State
from hg_env.core.tiles import ANIMALS, C_POOLS, DEER, DIRECTION_NAMES, TIGER, Z_ENCLOSURE, Z_PATH, Z_POOL

SEATS = [f"p{k}" for k in range(MAX_PLAYERS)]
AREA_FEATURES = ["open", "tiles", "value"] + [f"occ_{p}" for p in SEATS]


def _tile_contents(spec: Ruleset) -> dict[str, np.ndarray]:
    """[tile] count of each content channel of the ruleset."""
    t = spec.tiles
    per_zone = {
        "fish": t.ZONE_FISH,
        "pools": t.ZONE_TYPE == Z_POOL,
        "trigger": t.ZONE_TRIGGER,
        "bonus": t.ZONE_BONUS,
        **{name: code == t.ZONE_TYPE for name, code in spec.zone_channels.items()},
    }
    return {name: np.bincount(t.ZONE_TILE, weights=per_zone[key], minlength=t.num_tiles) for name, key in spec.contents}


class Observer:
    """The observation layout of one ruleset (module docstring), its tables, and ``observe``."""

    def __init__(self, spec: Ruleset) -> None:
        t = spec.tiles
        self.spec = spec
        self.area_types = spec.observed_areas  # ((name, partition, zone types), ...)
        self.occupant_names = [kind.name for kind in spec.occupants]
        self.pieces = [kind.piece for kind in spec.occupants]
        contents = _tile_contents(spec)
        self.static_channels = (
            ["tile", "tile_id"]
            + [f"rot{r}" for r in range(4)]
            + [f"{d}_{name}" for d in DIRECTION_NAMES for name in spec.terrain_names]
            + list(contents)
            + list(spec.powers)
        )
        self.animals = bool(t.ZONE_ANIMALS.any())
        self.zone_starts = np.searchsorted(t.ZONE_TILE, np.arange(t.num_tiles))  # zones are sorted by tile
        self.cancelled = spec.cancelled_array  # the ruleset's array of cancelled animals, if it has one
        self.tile_channels = (
            (list(ANIMALS) if self.animals else [])
            + ([f"{a}_cancelled" for a in ANIMALS] if self.cancelled else [])
            + [f"{name}_{p}" for name in self.occupant_names for p in SEATS]
            + ["occupant_zone"]
            + [f"{name}_{f}" for name, _, _ in self.area_types for f in AREA_FEATURES]
        )
        self.decision_channels = [f"legal_r{r}" for r in range(4)] + ["last_placed"]
        self.board_channels = self.static_channels + self.tile_channels + self.decision_channels
        extra = [f"{spec.extra_deck}_left"] if spec.extra_deck else []
        self.info_arrays = [array for array in spec.arrays if array.info]
        phase_names = spec.observed_phases or tuple(spec.phases.values())
        # [phase code] its field among the phase_* fields (codes a ruleset lacks: never read)
        self.phase_position = [phase_names.index(spec.phases.get(code, "over")) for code in range(max(spec.phases) + 1)]
        self.phase_table = np.array(self.phase_position, dtype=np.intp)
        # The axis of each shown array that runs over the seats (GameArray shape "seats"), or None: those
        # are shown from the observer's seat, as the scores and supplies are.
        self.seat_axis = [array.shape.index("seats") if "seats" in array.shape else None for array in self.info_arrays]
        self.info_fields = (
            [f"score_lo_{p}" for p in SEATS]
            + [f"score_hi_{p}" for p in SEATS]
            + [f"{name}s_{p}" for name in self.occupant_names for p in SEATS]
            + [f"seated_{p}" for p in SEATS]
            + [f"acting_{p}" for p in SEATS]
            + [f"phase_{name}" for name in phase_names]
            + ["extra_turn", "regular_left", *extra]
            + [name for array in self.info_arrays for name in array.info]  # the ruleset's own arrays
            + [f"to_place_t{i}" for i in range(t.num_tiles)]
            + [f"unseen_t{i}" for i in range(t.num_tiles)]
        )
        self.info = {name: i for i, name in enumerate(self.info_fields)}
        self.phase_count = len(phase_names)
        self.tc = {name: i for i, name in enumerate(self.tile_channels)}
        self.static = self._static_table(contents)
        # [piece] block of the occupant one-hots (pawn_p*, hut_p*, ...); -1 for pieces not shown
        self.piece_block = np.full(3, -1, dtype=np.int64)
        self.piece_block[self.pieces] = np.arange(len(self.pieces))
        self.blocks = ["area", "system"] if spec.has_systems else ["area"]  # partitions, stacked
        self.zone_slots = self._zones_by_type()
        # Value of an area (R6.2, R6.3, R8.3) or river system (R8.2.3, R7.18), over the stacked zones:
        #   worth (areas.WORTH) + tiles * value_tiles + lake fish - eaten deer (meadows) + lakes (raft system).
        z = t.num_zones
        self.value_tiles = np.zeros(len(self.blocks) * z + 1, dtype=np.int16)  # systems and the zero row: 0
        points = spec.points
        self.value_tiles[:z] = np.select(
            [t.ZONE_TYPE == Z_ENCLOSURE, t.ZONE_TYPE == Z_PATH], [points.enclosure_tile, points.path_tile], 0
        )

    def _static_table(self, contents: dict[str, np.ndarray]) -> np.ndarray:
        """STATIC[tile * 4 + rot] -> static channel values; the last row (no tile) is zeros."""
        spec, t = self.spec, self.spec.tiles
        table = np.zeros((t.num_tiles * 4 + 1, len(self.static_channels)), dtype=np.uint8)
        col = {name: i for i, name in enumerate(self.static_channels)}
        for tile in range(t.num_tiles):
            for rot in range(4):
                row = table[tile * 4 + rot]
                row[col["tile"]] = 1
                row[col["tile_id"]] = tile + 1
                row[col[f"rot{rot}"]] = 1
                for d, name in enumerate(DIRECTION_NAMES):
                    row[col[f"{name}_{spec.terrain_names[t.SIDE_TYPE[tile, rot, d] - 1]}"]] = 1
                for name, counts in contents.items():
                    row[col[name]] = counts[tile]
        for z in np.flatnonzero(t.ZONE_SPECIAL):
            table[t.ZONE_TILE[z] * 4 + np.arange(4), col[t.specials[t.ZONE_SPECIAL[z]]]] = 1
        return table

    def _zones_by_type(self) -> np.ndarray:
        """``[tile, k, type]`` the tile's k-th zone of each area type, as an index into the
        stacked zone table of ``_area_features``: the zones of partition block b (``blocks``:
        area, then system) at b*Z .. (b+1)*Z-1, and a zero row at the end, where missing zones point."""
        t = self.spec.tiles
        z = t.num_zones
        offsets = [self.blocks.index(partition) * z for _, partition, _ in self.area_types]
        lists = [
            [
                [zone + offset for zone in t.TILE_ZONE[tile] if zone >= 0 and t.ZONE_TYPE[zone] in kinds]
                for offset, (_, _, kinds) in zip(offsets, self.area_types)
            ]
            for tile in range(t.num_tiles)
        ]
        width = max(len(zs) for per_tile in lists for zs in per_tile)
        table = np.empty((t.num_tiles, width, len(self.area_types)), dtype=np.intp)
        for tile, per_tile in enumerate(lists):
            for i, zs in enumerate(per_tile):
                table[tile, :, i] = zs + [len(self.blocks) * z] * (width - len(zs))
        return table

    # ------------------------------------------------------------ layout

    def info_planes(self, reach: int) -> int:
        cells = (2 * reach + 1) ** 2
        return -(-len(self.info_fields) // cells)

    def channel_names(self, reach: int) -> list[str]:
        return self.board_channels + [f"info_{i}" for i in range(self.info_planes(reach))]

    def channel_high(self, reach: int) -> np.ndarray:
        high = {name: 1 for name in self.channel_names(reach)}
        high.update(zip(self.static_channels, self.static.max(axis=0).tolist()))  # from the tile data
        high.update(occupant_zone=10)
        most = int(self.spec.tiles.PRINTED_ANIMALS.max())
        high.update({a: most for a in ANIMALS} | {f"{a}_cancelled": most for a in ANIMALS})
        for name, partition, _ in self.area_types:
            pieces = max(p for k, p in zip(self.spec.occupants, self.spec.pieces_by_kind()) if k.partition == partition)
            high.update({f"{name}_{f}": 255 for f in ("open", "tiles", "value")})
            high.update({f"{name}_occ_{p}": pieces for p in SEATS})
        high.update({f"info_{i}": 255 for i in range(self.info_planes(reach))})
        return np.array([high[name] for name in self.channel_names(reach)], dtype=np.uint8)

    # ------------------------------------------------------------ observe

    def observe(self, state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """[G, C, H, W] uint8 observations of the given games from the given seats."""
        g = np.asarray(games, dtype=np.intp)
        seats = np.asarray(seats, dtype=np.intp)
        board = state.board
        n, cells = len(g), board.num_cells
        num_static = len(self.static_channels)
        d0 = num_static + len(self.tile_channels)  # first decision plane
        out = np.zeros((n, len(self.board_channels) + self.info_planes(board.reach), cells), dtype=np.uint8)
        # Tile and area planes are zero off the placed tiles: build one row per placed
        # (game, tile) pair and scatter the rows onto the tiles' cells.
        tile_cell = state.tile_cell[g]
        gi, ti = nonzero(tile_cell >= 0)  # pair k: tile ti[k] of observation gi[k], game g[gi[k]]
        cell, game = tile_cell[gi, ti].astype(np.intp), g[gi]
        order = _seat_order(state, g, seats)
        rows = np.empty((len(gi), d0), dtype=np.uint8)
        rows[:, :num_static] = self.static[ti * 4 + state.board_rot[game, cell]]
        rows[:, num_static:] = self._tile_features(state, g, order, gi, ti, game)
        out[gi, :d0, cell] = rows
        if n == 1:  # one game: the legal planes and the last tile with scalar lookups
            self._decision_planes_one(out[0], state, int(g[0]), d0)
        else:
            self._decision_planes(out, state, g, d0)
        info = out.reshape(n, -1)[:, len(self.board_channels) * cells :]  # a view: info planes, row-major
        self._fill_info(info[:, : len(self.info_fields)], state, g, seats, order)
        return out.reshape(n, -1, board.size, board.size)

    @staticmethod
    def _decision_planes(out: np.ndarray, state: State, g: np.ndarray, d0: int) -> None:
        """The legal planes (the drawn tile's fits on the frontier cells) and the last tile placed."""
        in_place = (state.phase[g] == PLACE).nonzero()[0]
        if len(in_place):
            width = int(state.frontier_len[g[in_place]].max())
            gi, slot = nonzero(state.frontier[g[in_place], :width] >= 0)
            fit_cells = state.frontier[g[in_place][gi], slot]
            out[in_place[gi, None], d0 + np.arange(4), fit_cells[:, None]] = state.place_fits[g[in_place][gi], slot]
        last = state.last_cell[g]
        has_last = (last >= 0).nonzero()[0]
        out[has_last, d0 + 4, last[has_last]] = 1

    @staticmethod
    def _decision_planes_one(out: np.ndarray, state: State, game: int, d0: int) -> None:
        """``_decision_planes`` for one game, into its [C, cells] observation."""
        if state.phase[game] == PLACE:
            width = int(state.frontier_len[game])
            out[d0 : d0 + 4, state.frontier[game, :width]] = state.place_fits[game, :width].T
        last = int(state.last_cell[game])
        if last >= 0:
            out[d0 + 4, last] = 1

    def _tile_features(
        self, state: State, g: np.ndarray, order: np.ndarray, gi: np.ndarray, ti: np.ndarray, game: np.ndarray
    ) -> np.ndarray:
        """[K, len(tile_channels)] dynamic features of tile ``ti[k]`` in ``game[k] = g[gi[k]]``."""
        tc, tiles = self.tc, state.spec.tiles
        feats = np.zeros((len(gi), len(self.tile_channels)), dtype=np.uint8)
        if self.animals:
            animals = slice(tc["mammoth"], tc["tiger"] + 1)
            feats[:, animals] = tiles.PRINTED_ANIMALS[ti]
            canceller = tiles.SPECIAL_TILE[self.spec.cancel_power] if self.cancelled else None
            if canceller is not None and np.count_nonzero(state.tile_cell[g, canceller] >= 0):  # none before it
                cancelled = np.add.reduceat(state.ruleset_arrays[self.cancelled][g], self.zone_starts, axis=1)[gi, ti]
                feats[:, animals] -= cancelled.astype(np.uint8)
                feats[:, tc["mammoth_cancelled"] : tc["tiger_cancelled"] + 1] = cancelled
        seat = state.occupant_seat[game, ti]
        k = (seat >= 0).nonzero()[0]
        gk, tk = game[k], ti[k]
        relative = _SEAT_RELATIVE[state.num_players[gk], order[gi[k], 0], seat[k]]
        first = tc[f"{self.occupant_names[0]}_p0"]  # the occupant blocks follow each other
        feats[k, first + MAX_PLAYERS * self.piece_block[state.occupant_kind[gk, tk]] + relative] = 1
        feats[k, tc["occupant_zone"]] = state.occupant_local[gk, tk] + 1
        first_area = tc[f"{self.area_types[0][0]}_open"]
        feats[:, first_area:] = self._area_features(state, g, order, gi, ti)
        return feats

    def _area_features(
        self, state: State, g: np.ndarray, order: np.ndarray, gi: np.ndarray, ti: np.ndarray
    ) -> np.ndarray:
        """[K, types * len(AREA_FEATURES)] area features of tile ``ti[k]`` in game ``g[gi[k]]``, per area type."""
        n, z = len(g), self.spec.tiles.num_zones
        sums = self.zone_sums(state, g)
        # Columns OPEN: now hold the AREA_FEATURES, occupants by absolute seat.
        slots = self.zone_slots[ti]  # [K, slot, type] rows of the stacked table
        if n > 1:  # each observation's table follows the previous one
            slots = slots + (gi * (len(self.blocks) * z + 1))[:, None, None]
        per_type = np.maximum.reduce(sums.reshape(-1, NUM_SUMS).take(slots, axis=0), axis=1)  # [K, type, NUM_SUMS]
        # Occupants by relative seat: one gather over the flat [K, type, NUM_SUMS] block.
        if n > 1 or order[0].tolist() != _SEAT_IDS_LIST:  # seat 0 of one game sees the seats in order
            row_starts = np.arange(0, per_type.size, NUM_SUMS).reshape(len(gi), -1, 1)
            per_type[..., OCCUPANTS:] = per_type.reshape(-1)[row_starts + (order[gi] + OCCUPANTS)[:, None, :]]
        return np.minimum(per_type[..., OPEN:], 255).reshape(len(gi), -1).astype(np.uint8)

    def zone_sums(self, state: State, g: np.ndarray) -> np.ndarray:
        """[G, blocks * Z + 1, NUM_SUMS] int16: the root accumulators of every zone of games g, one block of Z
        rows per partition (``blocks``), then a zero row (see ``_zones_by_type``), with column ``ATTACHED_VALUE``
        holding the points the zone's area is worth now (the ``{type}_value`` features; the replay viewer's
        values): its worth, its tiles, the lakes closing it, less the deer the tigers eat in a meadow, a pool
        power's lakes, the ruleset's own values (``observe_areas``)."""
        spec = self.spec
        n, z = len(g), spec.tiles.num_zones
        partitions = state.partitions()
        games = slice(int(g[0]), int(g[0]) + 1) if n == 1 else g  # one game: views, not copies
        roots = {name: part.all_roots(games) for name, part in partitions.items()}
        sums = np.empty((n, len(self.blocks) * z + 1, NUM_SUMS), dtype=np.int16)
        sums[:, -1] = 0
        offsets = g[:, None] * z
        for b, name in enumerate(self.blocks):
            block = sums[:, b * z : (b + 1) * z]
            partitions[name].sums.reshape(-1, NUM_SUMS).take(offsets + roots[name], axis=0, out=block, mode="clip")
        value = sums[..., ATTACHED_VALUE]  # a view: the column becomes the value (AREA_FEATURES order)
        value += sums[..., WORTH] + sums[..., TILES] * self.value_tiles
        area_roots = roots["area"]
        if self.animals:  # meadows: deer eaten by tigers (only meadows hold animals)
            eaten = np.minimum(sums[:, :z, COUNTS + DEER], sums[:, :z, COUNTS + TIGER])
            fire = _special_root(state, g, area_roots, spec.fire_power) if spec.fire_power else None
            if fire is not None:  # R7.17 / S2: tigers eat no deer in the fire's meadow
                eaten[area_roots == fire[:, None]] = 0
            value[:, :z] -= spec.points.deer * eaten
        if spec.pool_power:
            system_roots = roots["system"]
            pool = _special_root(state, g, system_roots, spec.pool_power)
            if pool is not None:  # its path system scores its pools too (2020's raft, R7.18)
                value[:, z:-1] += np.where(system_roots == pool[:, None], sums[:, z:-1, COUNTS + C_POOLS], 0)
        spec.observe_areas(state, g, area_roots, sums[:, :z])  # the ruleset's own values (Carcassonne fields)
        return sums

    def _fill_info(self, info: np.ndarray, state: State, g: np.ndarray, seats: np.ndarray, order: np.ndarray) -> None:
        """Write the info fields of games g, in order, into the zeroed uint8 rows ``info`` [G, >= fields]."""
        at = self.info
        if len(g) == 1:
            self._fill_info_one(info[0], state, int(g[0]), int(seats[0]), order[0].tolist())
            return
        rows = np.arange(len(g))
        score = np.minimum(state.score[g[:, None], order], 255 * 256 + 255)
        info[:, at["score_lo_p0"] : at["score_hi_p0"]] = score & 255
        info[:, at["score_hi_p0"] : at["score_hi_p0"] + MAX_PLAYERS] = score >> 8
        supply = state.supply[g[:, None], order][:, :, self.pieces]  # [G, seat, occupant kind]
        first = at[f"{self.occupant_names[0]}s_p0"]
        info[:, first : at["seated_p0"]] = supply.transpose(0, 2, 1).reshape(len(g), -1)
        num_players = state.num_players[g].astype(np.intp)
        info[:, at["seated_p0"] : at["acting_p0"]] = num_players[:, None] > _SEAT_IDS
        phase = state.phase[g]
        info[rows, at["acting_p0"] + (state.current[g] - seats) % num_players] = phase != OVER  # no one acts once over
        info[rows, at["phase_place"] + self.phase_table[phase]] = 1
        info[:, at["extra_turn"]] = state.extra_turn[g]
        info[:, at["regular_left"]] = state.regular_len[g] - state.regular_next[g]
        if self.spec.extra_deck:
            info[:, at[f"{self.spec.extra_deck}_left"]] = state.extra_len[g] - state.extra_next[g]
        for array, axis in zip(self.info_arrays, self.seat_axis):
            first = at[array.info[0]]
            values = state.ruleset_arrays[array.name][g]
            if axis is not None:  # seats as the observer sees them: its own first
                values = np.moveaxis(np.moveaxis(values, axis + 1, 1)[rows[:, None], order], 1, axis + 1)
            info[:, first : first + len(array.info)] = values.reshape(len(g), -1)
        info[:, at["unseen_t0"] :] = state.dealt[g] & (state.tile_cell[g] < 0) & ~state.discarded[g]
        tile = state.tile_to_place[g].astype(np.intp)
        drawn = tile >= 0  # the tile to place is public: no longer unseen
        info[rows[drawn], at["to_place_t0"] + tile[drawn]] = 1
        info[rows[drawn], at["unseen_t0"] + tile[drawn]] = 0

    def _fill_info_one(self, info: np.ndarray, state: State, game: int, seat: int, order: list[int]) -> None:
        """``_fill_info`` for one game: the fields before the tile one-hots as one Python list."""
        score = state.score[game].tolist()
        score = [min(score[k], 255 * 256 + 255) for k in order]
        supply = state.supply[game].tolist()  # [seat][piece]
        num_players, phase = int(state.num_players[game]), int(state.phase[game])
        acting = (int(state.current[game]) - seat) % num_players
        fields = (
            [x & 255 for x in score]
            + [x >> 8 for x in score]
            + [supply[k][piece] for piece in self.pieces for k in order]
            + _seat_and_phase_fields(num_players, acting, phase, self.phase_position[phase], self.phase_count)
            + [int(state.extra_turn[game]), int(state.regular_len[game] - state.regular_next[game])]
        )
        if self.spec.extra_deck:
            fields.append(int(state.extra_len[game] - state.extra_next[game]))
        for array, axis in zip(self.info_arrays, self.seat_axis):
            values = state.ruleset_arrays[array.name][game]
            if axis is not None:  # seats as the observer sees them: its own first
                values = np.moveaxis(np.moveaxis(values, axis, 0)[order], 0, axis)
            fields += values.ravel().tolist()
        info[: len(fields)] = np.array(fields)  # int64 into uint8 wraps as the batched assignments do
        at = self.info
        info[at["unseen_t0"] :] = state.dealt[game] & (state.tile_cell[game] < 0) & ~state.discarded[game]
        tile = int(state.tile_to_place[game])
        if tile >= 0:  # the tile to place is public: no longer unseen
            info[at["to_place_t0"] + tile] = 1
            info[at["unseen_t0"] + tile] = 0

    def decode_board(self, obs: np.ndarray, reach: int) -> dict:
        """Read a single [C, H, W] observation back: tiles, occupants and the info fields."""
        names = {name: i for i, name in enumerate(self.channel_names(reach))}
        tiles, occupants = [], []
        for y, x in zip(*np.nonzero(obs[names["tile"]])):
            tile = int(obs[names["tile_id"], y, x]) - 1
            rot = int(np.argmax([obs[names[f"rot{r}"], y, x] for r in range(4)]))
            tiles.append((tile, int(x) - reach, int(y) - reach, rot))
            for kind in self.occupant_names:
                for k, p in enumerate(SEATS):
                    if obs[names[f"{kind}_{p}"], y, x]:
                        zone = int(obs[names["occupant_zone"], y, x]) - 1
                        occupants.append((k, kind, int(x) - reach, int(y) - reach, zone))
        info_raw = obs[len(self.board_channels) :].reshape(-1)[: len(self.info_fields)]
        info = dict(zip(self.info_fields, info_raw.tolist()))
        return {"tiles": sorted(tiles), "occupants": sorted(occupants), "info": info}


@cache
def observer(ruleset: str = DEFAULT_RULESET) -> Observer:
    """The observation layout of a ruleset (built once)."""
    return Observer(get_ruleset(ruleset))


def channel_names(ruleset: str = DEFAULT_RULESET, reach: int = 12) -> list[str]:
    """Names of the observation channels of a ruleset, in order, for a board of this reach."""
    return observer(ruleset).channel_names(reach)


@cache
def channel_high(ruleset: str = DEFAULT_RULESET, reach: int = 12) -> np.ndarray:
    """[C] largest value each channel can take (for the observation space bounds)."""
    return observer(ruleset).channel_high(reach)


@cache
def channel_scale(ruleset: str = DEFAULT_RULESET, reach: int = 12) -> np.ndarray:
    """[C] float32 factors bringing each channel to about [0, 1] (info planes: 1/255)."""
    high = channel_high(ruleset, reach).astype(np.float32)
    scale = 1.0 / high
    for i, name in enumerate(channel_names(ruleset, reach)):
        if name.endswith(("_open", "_tiles", "_value")):
            scale[i] = 1.0 / 32.0
    return scale


def observe(state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """[G, C, H, W] uint8 observations of the given games from the given seats."""
    return observer(state.rules.ruleset).observe(state, games, seats)


def decode_board(obs: np.ndarray, reach: int = 12, ruleset: str = DEFAULT_RULESET) -> dict:
    """Read a single [C, H, W] observation back: tiles, occupants and the info fields.

    Returns ``{"tiles": [(tile, x, y, rot)], "occupants": [(rel_seat, kind, x, y, local)], "info": {...}}``."""
    return observer(ruleset).decode_board(obs, reach)


@cache
def _seat_and_phase_fields(num_players: int, acting: int, phase: int, position: int, phases: int) -> list[int]:
    """The info fields seated_p*, acting_p* and phase_* of one game (``_fill_info_one``): the phase's field is
    ``position`` of ``phases``."""
    return (
        [int(num_players > k) for k in range(MAX_PLAYERS)]
        + [int(k == acting and phase != OVER) for k in range(MAX_PLAYERS)]  # no one acts once over
        + [int(k == position) for k in range(phases)]
    )


def _seat_order(state: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """[G, 5] absolute seat shown at each relative position; positions past the player
    count point at unseated seats, whose supplies, scores and occupants are all zero."""
    return _SEAT_ORDER[state.num_players[g], seats]


def _seat_order_table() -> np.ndarray:
    """[players, observer, relative position] -> absolute seat (see _seat_order)."""
    k = np.arange(MAX_PLAYERS)
    table = np.tile(k, (MAX_PLAYERS + 1, MAX_PLAYERS, 1))
    for n in range(1, MAX_PLAYERS + 1):
        table[n, :n, :n] = (np.arange(n)[:, None] + k[:n]) % n
    return table


_SEAT_ORDER = _seat_order_table()
_SEAT_RELATIVE = np.argsort(_SEAT_ORDER, axis=2)  # [players, observer, absolute seat] -> relative position
_SEAT_IDS = np.arange(MAX_PLAYERS)
_SEAT_IDS_LIST = _SEAT_IDS.tolist()


def _special_root(state: State, g: np.ndarray, roots: np.ndarray, power: str) -> np.ndarray | None:
    """[G] root of a special power's zone (-1 where its tile is not placed); None if nowhere placed."""
    tiles = state.spec.tiles
    zone = tiles.SPECIAL_ZONE[power]
    if len(g) == 1:  # one game: a scalar look
        return roots[:, zone] if state.tile_cell[g[0], tiles.ZONE_TILE[zone]] >= 0 else None
    placed = state.tile_cell[g, tiles.ZONE_TILE[zone]] >= 0
    return np.where(placed, roots[:, zone], -1) if placed.any() else None
