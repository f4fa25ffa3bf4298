"""The policy network: a sparse convolution over the cells in play, with per-cell placement and
per-zone occupant heads.

Most of the 25 x 25 board is empty: at most 95 tiles lie on it, and the tile to
place fits only next to them. So the network works on the *active cells* only
(cells with a tile, or where the drawn tile fits): those of the whole batch are
packed into one list of T rows (no padding). A layer is a convolution with a
plus-shaped stencil restricted to that list: each active cell reads itself and
its 4 edge neighbours (inactive or off-board neighbours read zeros) through one
Linear layer. On two CPU cores this is many times cheaper than dense
convolutions over all 625 cells of every observation.

::

    obs uint8 [B, 85, 25, 25]
     ├─ board planes (84) ── pack the active cells ──> [T, 84] * channel_scale
     │     stem: Linear(84 -> C) + embedding(tile, rotation) + context      [T, C]
     │     `layers` x residual sparse conv: h += relu(Linear(5C -> C)(h of cell, N, E, S, W))
     │     ├─ placement, per cell where the tile fits and rotation r of the tile to place:
     │     │     relu(W h_cell + U embedding(tile, r) + V static(tile, r)
     │     │          + sum over sides d of M[terrain of side d at r] h_neighbour(d)) -> 1 logit
     │     └─ retake, per cell: Linear(C -> 1)
     └─ info plane (230 fields) ── MLP ──> context [B, hidden]
    trunk: MLP(mean and max of h over active cells, h of the tile placed last, context)
     ├─ occupants, per local zone z of the tile placed last: MLP(printed features of z,
     │     area planes of z's type and of its river system on that tile, trunk) -> pawn, hut
     ├─ pit trap (17), none (1)
     └─ value

With ``lookahead=True`` the observation is the dict of ``hg_env.vector`` (the board
tensor above, plus the one-turn lookahead's per-action gains and the current
estimates), and the network adds to every logit a learned weighting of the
action's two gains, one pair of weights per action kind (place, pawn, hut,
retake, pit, none)::

    logit[a] += w_own[kind a] * own_gain[a] + w_opp[kind a] * opponents_gain[a]

The weights start at (1, -0.75) per point and the other heads near zero, so the
first policy is a softmax over the lookahead's valuation of each move (own
estimated gain minus three quarters of the opponents'); PPO learns what to add.
The estimates (points / 100) join the trunk's input, for the value.

The logits are laid out exactly as the flat action space (``hg_env.core.actions``):
``[4N place][8 pawn][10 hut][N retake][17 pit][1 none]``; placement ``4 * cell + rot``
is row-major over ``[N, 4]``. Placements on cells where the tile fits nowhere, and retakes
on cells that are not active, get logit 0: they are always masked out.

``run_net`` runs a network over row blocks on torch's threads. This module needs torch
only: the policy agent plays with it, and training (``hg_env.train.policy.HGPolicy``, which plugs
the network into sb3-contrib's ``MaskablePPO``) builds on it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import numpy as np
import torch
from torch import nn

from hg_env.core.actions import ActionLayout, action_layout
from hg_env.core.observation import AREA_FEATURES, Observer, channel_scale, observer
from hg_env.core.rules import board_geometry
from hg_env.core.ruleset import DEFAULT_RULESET, Ruleset, get_ruleset
from hg_env.core.search import ESTIMATE_FEATURES
from hg_env.core.tiles import MAX_LOCAL_ZONES, Z_PATH, Z_POOL

STENCIL = 5  # a cell and its 4 edge neighbours
ACTION_KINDS = ("place", "pawn", "hut", "retake", "pit", "none")  # rows of BoardNet.lookahead_weight
LOOKAHEAD_INIT = (1.0, -0.75)  # (own gain, opponents' gain) weights per point at the start
ESTIMATE_SCALE = 1 / 100  # estimated final scores (points) as trunk inputs


def action_kinds(layout: ActionLayout) -> np.ndarray:
    """[A] index into ``ACTION_KINDS`` of every action of the flat layout (hg_env.core.actions); the
    occupant kinds count as pawn / hut in their order (Carcassonne: meeple, abbot)."""
    (_, _, pawns), (_, _, huts) = layout.kinds
    (retake, retake_end), (pit, pit_end) = layout.segment("retake"), layout.segment("pit")
    sizes = (layout.occupy, pawns, huts, retake_end - retake, pit_end - pit, 1)
    return np.repeat(np.arange(len(ACTION_KINDS)), sizes)


def zone_table(ruleset: str = DEFAULT_RULESET) -> tuple[np.ndarray, np.ndarray]:
    """Static features of every (tile, local zone), row ``tile * 10 + local`` (last row: no zone),
    and the area plane group each zone reads (the observation's area types; ``len(area types)`` =
    none, for absent zones and zones no plane describes).

    Features: type one-hot (the zone types of the ruleset's tiles: hg meadow, forest, river, lake),
    printed animals, fish, bonus (mushrooms, coats of arms), trigger (menhir, gold), sides touched,
    special power one-hot, water (1 for rivers and lakes)."""
    spec = get_ruleset(ruleset)
    t, obs = spec.tiles, observer(ruleset)
    types = int(t.ZONE_TYPE.max()) + 1
    rows = t.num_tiles * MAX_LOCAL_ZONES + 1
    features = np.zeros((rows, types + 4 + 4 + len(t.specials) - 1 + 1), dtype=np.float32)
    group = np.full(rows, len(obs.area_types), dtype=np.int64)
    type_to_group: dict[int, int] = {}
    for i, (_, _, kinds) in enumerate(obs.area_types):  # a zone reads the first group of its type
        for kind in kinds:
            type_to_group.setdefault(kind, i)
    for z in range(t.num_zones):
        tile, local, kind = int(t.ZONE_TILE[z]), int(t.ZONE_LOCAL[z]), int(t.ZONE_TYPE[z])
        row = features[tile * MAX_LOCAL_ZONES + local]
        row[kind] = 1
        row[types : types + 4] = t.ZONE_ANIMALS[z] / 2
        row[types + 4 : types + 8] = t.ZONE_FISH[z] / 3, t.ZONE_BONUS[z], t.ZONE_TRIGGER[z] > 0, t.ZONE_SEGMENTS[z] / 4
        if t.ZONE_SPECIAL[z]:
            row[types + 7 + t.ZONE_SPECIAL[z]] = 1
        row[-1] = spec.has_systems and kind in (Z_PATH, Z_POOL)
        group[tile * MAX_LOCAL_ZONES + local] = type_to_group.get(kind, len(obs.area_types))
    return features, group


def info_scale(ruleset: str = DEFAULT_RULESET) -> np.ndarray:
    """[len(info fields)] factors bringing the info vector to about [0, 1].

    One-hot fields keep 1; a score is ``lo + 256 * hi``, so ``lo / 64`` and
    ``hi * 4`` add up to ``score / 64`` in the network's first layer."""
    spec, fields = get_ruleset(ruleset), observer(ruleset).info_fields
    supplies = {f"{kind.name}s_": pieces for kind, pieces in zip(spec.occupants, spec.pieces_by_kind())}
    scale = np.ones(len(fields), dtype=np.float32)
    for i, name in enumerate(fields):
        if name.startswith("score_lo"):
            scale[i] = 1 / 64
        elif name.startswith("score_hi"):
            scale[i] = 4.0
        elif name.startswith(tuple(supplies)):
            scale[i] = 1 / max(5, supplies[name[: name.index("_") + 1]])
        elif name == "regular_left":
            scale[i] = 1 / 80
        elif name.endswith("_left") or name in ("pit_lo", "pit_hi"):
            scale[i] = 1 / 16
    return scale


class BoardNet(nn.Module):
    """Observations -> (action logits [B, A], value [B]); see the module docstring."""

    def __init__(
        self,
        board_reach: int = 12,
        channels: int = 32,
        layers: int = 3,
        hidden: int = 128,
        lookahead: bool = False,
        ruleset: str = DEFAULT_RULESET,
    ) -> None:
        super().__init__()
        board = board_geometry(board_reach)
        spec: Ruleset = get_ruleset(ruleset)
        obs: Observer = observer(ruleset)
        self.ruleset = ruleset
        self.layout = action_layout(board_reach, ruleset)
        self.ch = {name: i for i, name in enumerate(obs.board_channels)}
        self.info_at = {name: i for i, name in enumerate(obs.info_fields)}
        self.num_info = len(obs.info_fields)
        self.num_tiles = spec.tiles.num_tiles
        self.no_tile = self.num_tiles * 4  # embedding row of "no tile" (zeros, never trained)
        self.lookahead = lookahead
        self.num_cells = board.num_cells
        self.num_board = len(obs.board_channels)
        self.num_channels = len(obs.channel_names(board_reach))
        scale = channel_scale(ruleset, board_reach)[: self.num_board].copy()
        scale[self.ch["tile_id"]] = 0.0  # the tile is told by the embedding, not by its id as a number
        self.register_buffer("board_scale", torch.from_numpy(scale), persistent=False)
        self.register_buffer("info_scale", torch.from_numpy(info_scale(ruleset)), persistent=False)
        # Each cell and its 4 edge neighbours (off the board -> the sentinel cell N; row N is the
        # sentinel's own). Tiles interact through their edges; whole areas are summarised on
        # every tile by the area planes, so a plus-shaped stencil is enough and costs 5/9 of 3x3.
        stencil = np.hstack([np.arange(self.num_cells)[:, None], board.neighbor])
        stencil = np.where(stencil >= 0, stencil, self.num_cells)
        stencil = np.vstack([stencil, np.full((1, stencil.shape[1]), self.num_cells)])
        self.register_buffer("stencil", torch.from_numpy(stencil.astype(np.int64)), persistent=False)

        zones, zone_group = zone_table(ruleset)
        self.register_buffer("zone_features", torch.from_numpy(zones), persistent=False)
        self.register_buffer("zone_group", torch.from_numpy(zone_group), persistent=False)
        static = obs.static * channel_scale(ruleset, board_reach)[: obs.static.shape[1]]  # row no_tile: zeros
        self.register_buffer("rotation_static", torch.from_numpy(static.astype(np.float32)), persistent=False)
        self.area_types = len(obs.area_types)
        first_area = self.ch[f"{obs.area_types[0][0]}_open"]
        self.area_columns = slice(first_area, first_area + self.area_types * len(AREA_FEATURES))
        names = [name for name, _, _ in obs.area_types]
        self.system_group = names.index("system") if "system" in names else None

        self.tile_embedding = nn.Embedding(self.num_tiles * 4 + 1, channels, padding_idx=self.no_tile)
        self.stem = nn.Linear(self.num_board, channels)
        self.context = nn.Sequential(nn.Linear(self.num_info, hidden), nn.ReLU())
        self.context_to_cells = nn.Linear(hidden, channels)
        self.convs = nn.ModuleList(nn.Linear(STENCIL * channels, channels) for _ in range(layers))
        self.place_cell = nn.Linear(channels, channels)
        self.place_rotation = nn.Linear(channels, channels, bias=False)
        self.place_static = nn.Linear(obs.static.shape[1], channels, bias=False)
        # Terrain (meadow, forest, river, ...) of each side of the tile to place at each rotation, and one
        # weight matrix per terrain for the neighbour that side would touch: a rotation-aware match.
        side_type = spec.tiles.SIDE_TYPE.reshape(self.no_tile, 4).astype(np.int64) - 1
        sides = np.vstack([side_type, np.zeros((1, 4), dtype=np.int64)])
        self.register_buffer("side_terrain", torch.from_numpy(sides), persistent=False)
        self.terrains = len(spec.terrain_names)
        # div_ in place: model_file sizes a declared network on the meta device, skipping in-place fills
        self.place_side = nn.Parameter(torch.randn(self.terrains, channels, channels).div_(channels**0.5))
        self.place_out = nn.Linear(channels, 1)
        self.retake_out = nn.Linear(channels, 1)
        estimates = len(ESTIMATE_FEATURES) if lookahead else 0
        self.trunk = nn.Sequential(nn.Linear(3 * channels + hidden + estimates, hidden), nn.ReLU())
        self.other_out = nn.Linear(hidden, self.layout.size - self.layout.segment("pit")[0])  # pit trap choices, none
        zone_inputs = zones.shape[1] + 2 * len(AREA_FEATURES)
        self.zone_in = nn.Linear(zone_inputs, hidden)
        self.zone_context = nn.Linear(hidden, hidden, bias=False)
        self.zone_out = nn.Linear(hidden, 2)  # pawn, hut
        self.value_out = nn.Linear(hidden, 1)
        for out in (self.place_out, self.retake_out, self.other_out, self.zone_out):  # near-uniform first policy
            nn.init.normal_(out.weight, std=0.01)
            nn.init.zeros_(out.bias)
        if lookahead:
            kinds = action_kinds(self.layout)
            self.register_buffer("action_kind", torch.from_numpy(kinds), persistent=False)
            init = torch.tensor(LOOKAHEAD_INIT).repeat(len(ACTION_KINDS), 1)
            self.lookahead_weight = nn.Parameter(init)  # [kinds, (own, opponents)]

    def forward(
        self, obs: torch.Tensor | dict[str, torch.Tensor], legal: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits [B, A], value [B, 1]); with ``legal`` ([B, L] action ids, ``legal_actions``) the
        logits of those actions only, [B, L]: the lookahead's gains are then weighted there alone."""
        if isinstance(obs, dict) != self.lookahead:
            raise ValueError(
                "this network reads "
                + ("a dict with the lookahead features" if self.lookahead else "board tensors")
                + f", got {type(obs).__name__}"
            )
        gains = estimates = None
        if self.lookahead:
            obs, gains, estimates = obs["board"], obs["lookahead"], obs["estimate"]
        b, n, c = obs.shape[0], self.num_cells, self.num_board
        flat = obs.reshape(b, -1, n)
        board = flat[:, :c]
        info = flat[:, c:].reshape(b, -1)[:, : self.num_info].float()
        context = self.context(info * self.info_scale)

        # The active cells of the whole batch, packed (no padding): observation and cell of each.
        ch = self.ch
        active = (board[:, ch["tile"]] > 0) | (board[:, ch["legal_r0"] : ch["legal_r3"] + 1].amax(1) > 0)
        game, cell = active.nonzero(as_tuple=True)  # [T] each
        t = len(game)
        x = board[game, :, cell].float()  # [T, c]: only the active cells' channels are gathered
        rot = x[:, ch["rot0"] : ch["rot3"] + 1].argmax(-1)
        tile_id = x[:, ch["tile_id"]].long()  # tile + 1, 0 = empty
        tile_key = torch.where(tile_id > 0, (tile_id - 1) * 4 + rot, self.no_tile)
        h = self.stem(x * self.board_scale) + self.tile_embedding(tile_key) + self.context_to_cells(context)[game]
        h = torch.relu(h)  # [T, C], and stays >= 0: every layer adds a relu

        # Row of every (observation, cell) in the packed list; t (a zero row) where not active.
        slot = torch.full((b, n + 1), t, dtype=torch.long, device=obs.device)
        slot[game, cell] = torch.arange(t, device=obs.device)
        neighbours = slot[game.unsqueeze(1), self.stencil[cell]]  # [T, 5]
        zero_row = h.new_zeros(1, h.shape[1])
        neighbours = neighbours.reshape(-1)
        for conv in self.convs:  # index_select: the fastest row gather on CPU, forward and backward
            block = torch.cat([h, zero_row]).index_select(0, neighbours).reshape(t, -1)
            h = h + torch.relu(conv(block))

        # Placement: cell features against the embedding of the tile to place at each rotation.
        to_place = info[:, self.info_at["to_place_t0"] : self.info_at["to_place_t0"] + self.num_tiles]
        has_tile = to_place.amax(1, keepdim=True) > 0
        rotation_keys = to_place.argmax(1, keepdim=True) * 4 + torch.arange(4, device=obs.device)
        rotation_keys = torch.where(has_tile, rotation_keys, self.no_tile)  # [B, 4]
        rotations = self.place_rotation(self.tile_embedding(rotation_keys))  # [B, 4, C]
        rotations = rotations + self.place_static(self.rotation_static[rotation_keys])  # sides, fish, specials
        # Only the L cells where the tile fits get placement logits: every other placement is masked out.
        fits = (x[:, ch["legal_r0"] : ch["legal_r3"] + 1] > 0).any(1).nonzero(as_tuple=True)[0]  # [L]
        ell, fit_game, channels = len(fits), game[fits], h.shape[1]
        touching = torch.cat([h, zero_row])[neighbours.reshape(t, STENCIL)[fits, 1:]]  # [L, 4 sides, C]
        k = self.terrains
        by_terrain = torch.einsum("ldc,kce->ldke", touching, self.place_side).reshape(ell, 4 * k, channels)
        terrain = self.side_terrain[rotation_keys][fit_game]  # [L, 4 rotations, 4 sides]
        pick = (torch.arange(4, device=obs.device) * k + terrain).reshape(ell, 16, 1).expand(-1, -1, channels)
        sides = by_terrain.gather(1, pick).reshape(ell, 4, 4, channels).sum(2)  # [L, 4 rotations, C]
        joint = torch.relu(self.place_cell(h[fits]).unsqueeze(1) + rotations[fit_game] + sides)  # [L, 4, C]
        place_logits = h.new_zeros(b * n, 4).index_put((fit_game * n + cell[fits],), self.place_out(joint).squeeze(-1))
        retake_logits = h.new_zeros(b * n).index_put((game * n + cell,), self.retake_out(h).squeeze(-1))

        # Trunk: pooled board, the tile placed last (occupant choices are about it), context.
        count = torch.bincount(game, minlength=b).clamp(min=1).unsqueeze(1)
        mean = h.new_zeros(b, h.shape[1]).index_add(0, game, h) / count
        peak = h.new_zeros(b, h.shape[1]).scatter_reduce(0, game.unsqueeze(1).expand_as(h), h, "amax")
        last_cell = board[:, ch["last_placed"]].argmax(1)  # 0 if none: an inactive cell, the zero row
        last = torch.cat([h, zero_row])[slot[torch.arange(b, device=obs.device), last_cell]]
        pooled = [mean, peak, last, context]
        if estimates is not None:
            pooled.append(estimates.float() * ESTIMATE_SCALE)
        trunk = self.trunk(torch.cat(pooled, -1))
        other = self.other_out(trunk)

        # Occupants (pawn on local zone 0..7, hut on 0..9) of the tile placed last: each zone by its
        # printed features and the area planes of its type (and of its river system) on that tile.
        rows = torch.arange(b, device=obs.device)
        last_planes = board[rows, :, last_cell].float()  # [B, c]
        areas = (last_planes[:, self.area_columns] * self.board_scale[self.area_columns]).reshape(
            b, self.area_types, -1
        )
        areas = torch.cat([areas, areas.new_zeros(b, 1, areas.shape[2])], 1)  # the last group: nothing
        last_tile = (last_planes[:, ch["tile_id"]].long() - 1).clamp(min=0)
        zone_keys = last_tile.unsqueeze(1) * MAX_LOCAL_ZONES + torch.arange(MAX_LOCAL_ZONES, device=obs.device)
        zone_static = self.zone_features[zone_keys]  # [B, 10, F]
        own_area = areas[rows.unsqueeze(1), self.zone_group[zone_keys]]  # [B, 10, 8]
        group = self.area_types if self.system_group is None else self.system_group
        system = areas[:, group : group + 1] * zone_static[..., -1:]  # river system planes, for water zones
        zone_hidden = torch.relu(
            self.zone_in(torch.cat([zone_static, own_area, system], -1)) + self.zone_context(trunk).unsqueeze(1)
        )
        occupants = self.zone_out(zone_hidden)  # [B, 10, 2]: per occupant kind (pawn, hut; meeple, abbot)
        (_, _, first_slots), (_, _, second_slots) = self.layout.kinds
        parts = [place_logits.reshape(b, 4 * n), occupants[:, :first_slots, 0], occupants[:, :second_slots, 1]]
        if self.layout.segment("retake")[1] > self.layout.segment("retake")[0]:
            parts.append(retake_logits.reshape(b, n))
        logits = torch.cat([*parts, other], 1)
        if legal is not None:
            logits = logits.gather(1, legal)
        if gains is not None:
            kind = self.action_kind if legal is None else self.action_kind[legal]
            weight = self.lookahead_weight[kind]  # [A, 2] or [B, L, 2]
            gains = gains.float()
            if legal is not None:
                gains = gains.gather(2, legal.unsqueeze(1).expand(-1, 2, -1))  # [B, 2, L]
            logits = logits + gains[:, 0] * weight[..., 0] + gains[:, 1] * weight[..., 1]
        return logits, self.value_out(trunk)


# ---------------------------------------------------------------- the network over threads

MIN_BLOCK = 8  # fewest rows worth handing to a thread of their own
_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(workers: int) -> ThreadPoolExecutor:
    """``workers`` threads that each run torch ops on one intra-op thread (a per-thread setting)."""
    if workers not in _POOLS:
        _POOLS[workers] = ThreadPoolExecutor(workers, "hg-net", initializer=torch.set_num_threads, initargs=(1,))
    return _POOLS[workers]


def _block_forward(net: nn.Module, block: tuple[Any, torch.Tensor | None], grad: bool) -> tuple[torch.Tensor, ...]:
    obs, legal = block
    with torch.set_grad_enabled(grad):  # grad mode is per thread
        return net(obs) if legal is None else net(obs, legal)


class _BlockForward(torch.autograd.Function):
    """A network over row blocks, each block's forward and backward in a thread of its own."""

    @staticmethod
    def forward(ctx: Any, net: nn.Module, blocks: list, pool: ThreadPoolExecutor, *params: torch.Tensor):
        outs = list(pool.map(lambda block: _block_forward(net, block, True), blocks))
        ctx.outs, ctx.pool, ctx.params = outs, pool, params
        return torch.cat([out[0].detach() for out in outs]), torch.cat([out[1].detach() for out in outs])

    @staticmethod
    def backward(ctx: Any, grad_logits: torch.Tensor, grad_values: torch.Tensor):
        sizes = [len(out[0]) for out in ctx.outs]
        logits, values = grad_logits.split(sizes), grad_values.split(sizes)

        def block_grads(i: int) -> tuple[torch.Tensor | None, ...]:
            return torch.autograd.grad(ctx.outs[i], ctx.params, (logits[i], values[i]), allow_unused=True)

        grads = list(ctx.pool.map(block_grads, range(len(sizes))))
        ctx.outs = None
        total = []
        for per_block in zip(*grads):  # summed in block order: the same bits every run
            present = [g for g in per_block if g is not None]
            total.append(sum(present[1:], present[0]) if present else None)
        return (None, None, None, *total)


def run_net(net: nn.Module, obs: Any, legal: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``net(obs, legal)`` (``net(obs)`` without ``legal``) of a network giving (logits, values), e.g.
    ``BoardNet``; on CPU with T > 1 torch threads (``torch.set_num_threads``) the batch is
    cut into T row blocks, each run forward and backward by a thread of its own on one torch thread.

    The network is many small ops, which PyTorch's intra-op threads speed up by ~10% on two cores;
    two blocks side by side ran a PPO minibatch (forward, backward) 1.7x as fast as one thread. The
    blocks are fixed and their parameter gradients summed in order, so a run repeats bit for bit
    (a row's outputs are the same as in one piece; the gradients differ in the last bits)."""
    workers = torch.get_num_threads()
    batch = len(obs["board"] if isinstance(obs, dict) else obs)
    blocks = min(workers, batch // MIN_BLOCK)
    if blocks < 2 or next(net.parameters()).device.type != "cpu":
        return _block_forward(net, (obs, legal), torch.is_grad_enabled())
    bounds = np.linspace(0, batch, blocks + 1).round().astype(int)
    inputs = []
    for start, stop in pairwise(bounds):
        rows = slice(int(start), int(stop))
        part = {key: value[rows] for key, value in obs.items()} if isinstance(obs, dict) else obs[rows]
        inputs.append((part, None if legal is None else legal[rows]))
    pool = _pool(blocks)
    if not torch.is_grad_enabled():
        outs = list(pool.map(lambda block: _block_forward(net, block, False), inputs))
        return torch.cat([out[0] for out in outs]), torch.cat([out[1] for out in outs])
    params = tuple(p for p in net.parameters() if p.requires_grad)
    return _BlockForward.apply(net, inputs, pool, *params)


def legal_actions(masks: Any, batch: int, size: int, device: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's legal actions of [B, A] masks, increasing, padded to the longest row: ([B, L] action
    ids (0 as padding), [B, L] bool: a legal action, not padding). No masks: every action of ``size``."""
    if masks is None:
        legal = torch.arange(size, device=device).expand(batch, -1)
        return legal, torch.ones(batch, size, dtype=torch.bool, device=device)
    masks = torch.as_tensor(masks, dtype=torch.bool, device=device).reshape(batch, -1)
    row, action = masks.nonzero(as_tuple=True)
    counts = torch.bincount(row, minlength=batch)
    place = torch.arange(len(row), device=device) - (torch.cumsum(counts, 0) - counts)[row]
    width = max(1, int(counts.max()))
    legal = torch.zeros(batch, width, dtype=torch.long, device=device)
    valid = torch.zeros(batch, width, dtype=torch.bool, device=device)
    legal[row, place] = action
    valid[row, place] = True
    return legal, valid
