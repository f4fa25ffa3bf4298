"""The search network of ``puct`` (kind ``searchnet`` in model files) and what it reads.

``SearchNet`` is ``BoardNet`` with ``lookahead=True`` (the policy: per-cell placement logits,
per-zone occupant logits, plus a learned weighting of the one-turn lookahead's gains of every
move) and a value head of its own made for search::

    pooled = [mean and max of the cell features over the board, the last tile's cell, context,
              estimated final scores (own, opponents' mean)]          (BoardNet's trunk input)
    value head: MLP(pooled, score_now) + skip(leads, leads * late) -> (win logit, score margin / 100)
    leads = the mover's lead in estimated final score, in score if the game ended now, in score now
    late = 1 - regular tiles left / 80 (the game's progress, read from the board's info planes)

The skip is linear in the leads (points / 100) and in the leads times the game's progress (so a lead
can weigh more as fewer tiles are left to change it). It starts as the one-turn lookahead's value: a
win logit of the estimated lead over a 40-point spread (``mcts``' leaf value at the game's start) and
a margin equal to that lead; ``hg_env.train.expert.fit_value_skip`` fits it to samples by logistic
(and least-squares) regression. Without it the head learned from a few hundred games predicted
outcomes worse than a logistic of the estimates among its own inputs: small Adam steps grow a weight
slowly.

``score_now`` [B, 4] (points / 100): the mover's and its opponents' mean score now, and what they
would be if the game ended now (the ruleset's final scoring run on a copy). The win logit is
trained on game outcomes, the margin (final own score minus the opponents' mean) is an auxiliary
target. With its 32 channels it costs about what the shipped PPO network costs per position.

A ``SearchNet`` starts from a PPO model's ``BoardNet`` weights (``from_boardnet``): the same policy,
a fresh value head. Without ``score_now`` in its input (the ``policy`` agent's dict) it reads
zeros there, so ``policy:path=`` plays its policy head too.

``network_inputs`` builds a batch of inputs from core positions (what ``puct`` evaluates);
``rotate_inputs`` turns a batch (board, lookahead gains, legal moves) by quarter turns, the
training's rotation augmentation: the board planes turn, the rotation one-hot and the legal
rotations shift, the side planes follow their sides, and placement / retake actions move with
their cells.
"""

from __future__ import annotations

import threading
from functools import cache

import numpy as np
import torch
from torch import nn

from hg_env.agents.network import ESTIMATE_SCALE, BoardNet
from hg_env.core import search
from hg_env.core.actions import action_layout
from hg_env.core.observation import observe, observer
from hg_env.core.rules import board_geometry
from hg_env.core.ruleset import DEFAULT_RULESET
from hg_env.core.search import ESTIMATE_FEATURES
from hg_env.core.seats import MAX_PLAYERS
from hg_env.core.state import OVER, State
from hg_env.core.tiles import DIRECTION_NAMES

SCORE_FEATURES = ("own_score", "opponents_score", "own_if_ended", "opponents_if_ended")
SCORE_SCALE = 1 / 100
MARGIN_SCALE = 1 / 100
LEADS = ("estimated_lead", "lead_if_ended", "lead_now")  # the value skip's inputs (own minus opponents' mean)
LOOKAHEAD_SPREAD = 40.0  # points: mcts' default logistic spread at the game's start (its ``scale``)
REGULAR_LEFT_SCALE = 1 / 80  # regular tiles left -> [0, 1] (as the context reads them, network.info_scale)


class SearchNet(BoardNet):
    """BoardNet's policy with a pooled value head: (logits, [B, 2] = win logit, margin / 100)."""

    def __init__(
        self,
        board_reach: int = 12,
        channels: int = 32,
        layers: int = 3,
        hidden: int = 128,
        lookahead: bool = True,
        ruleset: str = DEFAULT_RULESET,
    ) -> None:
        if lookahead is not True:
            raise ValueError("a searchnet reads the lookahead features: lookahead must be true")
        super().__init__(board_reach, channels, layers, hidden, lookahead, ruleset)
        pooled = 3 * channels + hidden + len(ESTIMATE_FEATURES)
        self.value_in = nn.Linear(pooled + len(SCORE_FEATURES), hidden)
        self.value_head = nn.Linear(hidden, 2)
        nn.init.normal_(self.value_head.weight, std=0.01)
        nn.init.zeros_(self.value_head.bias)
        self.value_skip = nn.Linear(2 * len(LEADS), 2, bias=False)
        with torch.no_grad():  # rows: win logit, margin / 100; columns: LEADS, then LEADS * late
            start = [[100 / LOOKAHEAD_SPREAD, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
            self.value_skip.weight.copy_(torch.tensor(start))
        self._tap = threading.local()  # the trunk's input, per thread (run_net runs blocks on threads)
        self.trunk.register_forward_hook(self._keep_pooled)

    def __getstate__(self) -> dict:
        """Pickled without the per-thread tap (a thread-local cannot be): agents holding a searchnet go to
        worker processes (``hgenv evaluate --workers``)."""
        state = self.__dict__.copy()
        state.pop("_tap", None)
        return state

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._tap = threading.local()

    def _keep_pooled(self, module: nn.Module, inputs: tuple[torch.Tensor, ...], output: torch.Tensor) -> None:
        self._tap.pooled = inputs[0]

    def forward(
        self, obs: dict[str, torch.Tensor], legal: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits [B, A] or [B, L] with ``legal``, [B, 2]: win logit and margin / 100)."""
        if not isinstance(obs, dict):
            raise ValueError(f"a searchnet reads a dict with the lookahead features, got {type(obs).__name__}")
        base = {key: obs[key] for key in ("board", "lookahead", "estimate")}
        logits, _ = super().forward(base, legal)
        pooled = self._tap.pooled
        self._tap.pooled = None
        hidden = torch.relu(self.value_in(torch.cat([pooled, self._score_now(obs, len(pooled)) * SCORE_SCALE], -1)))
        return logits, self.value_head(hidden) + self.value_skip(self.skip_inputs(obs))

    def _score_now(self, obs: dict[str, torch.Tensor], batch: int) -> torch.Tensor:
        """[B, 4] ``score_now`` in points (zeros when the dict has none: the ``policy`` agent's inputs)."""
        score = obs.get("score_now")
        if score is None:
            return obs["board"].new_zeros(batch, len(SCORE_FEATURES), dtype=torch.float32)
        return score.float()

    def skip_inputs(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        """[B, 6] what the value skip reads from the inputs (``skip_features``; the regular tiles left
        come from the board's info planes)."""
        board = obs["board"]
        info = board.reshape(len(board), -1)[:, self.num_board * self.num_cells :]
        return skip_features(obs["estimate"], self._score_now(obs, len(board)), info[:, self.info_at["regular_left"]])

    def linear_value(self, estimate: torch.Tensor, score_now: torch.Tensor, regular_left: torch.Tensor) -> torch.Tensor:
        """[B, 2] the value head without its MLP over the board: the skip of ``skip_features`` plus the
        head's bias. It reads no board, so it costs no trunk; it equals ``forward``'s value where the
        MLP's output layer is zero (the shipped hg2020 network: its value is the fitted skip alone)."""
        x = skip_features(estimate, score_now, regular_left)
        return self.value_skip(x) + self.value_head.bias

    @classmethod
    def from_boardnet(cls, net: BoardNet, kwargs: dict) -> SearchNet:
        """A search network with ``net``'s weights (a lookahead BoardNet of the same sizes) and a fresh value head."""
        searchnet = cls(**kwargs)
        missing, unexpected = searchnet.load_state_dict(net.state_dict(), strict=False)
        if unexpected or any(not name.startswith(("value_in.", "value_head.", "value_skip.")) for name in missing):
            raise ValueError(f"the PPO network does not match a searchnet of {kwargs}: {missing + unexpected}")
        return searchnet


def skip_features(estimate: torch.Tensor, score_now: torch.Tensor, regular_left: torch.Tensor) -> torch.Tensor:
    """[B, 6] the value skip's inputs: the mover's leads (``LEADS``, points / 100) and the same times
    the game's progress ``late = 1 - regular_left / 80``; ``estimate`` [B, 2] and ``score_now`` [B, 4]
    in points (``network_inputs``), ``regular_left`` [B] regular tiles left in the deck."""
    estimate = estimate.float() * ESTIMATE_SCALE
    score = score_now.float() * SCORE_SCALE
    leads = torch.stack([estimate[:, 0] - estimate[:, 1], score[:, 2] - score[:, 3], score[:, 0] - score[:, 1]], -1)
    late = (1.0 - regular_left.float() * REGULAR_LEFT_SCALE).clamp(0.0, 1.0)
    return torch.cat([leads, leads * late[:, None]], -1)


# ---------------------------------------------------------------- inputs from core positions


def network_inputs(
    states: State, rows: np.ndarray, searchnet: bool = True, board: bool = True, look_scale: float = 10.0
) -> dict:
    """Inputs of games ``rows`` of ``states`` (re-deals: the lookahead reads the decks as given).

    Returns a dict: ``board`` [n, C, H, W] uint8 (the mover's view; left out with ``board=False``),
    ``lookahead`` [n, 2, A] and ``estimate`` [n, 2] float32 (``search.lookahead_features``' gains and estimates),
    ``score_now`` [n, 4] float32 (searchnet only), ``legal`` (list of [L_i] legal actions),
    ``legal_padded`` [n, L] int64, ``heuristic`` [n, 5] (the lookahead's win values of the mover's
    best move, ``mcts``' leaf value), ``move_value`` (list of [L_i]: the lookahead's win value of each
    legal move for the mover) and ``score_diff`` [n] (mover's score minus the opponents' mean). Those
    win values are ``search.win_transform`` of the estimated final scores with ``look_scale`` points
    of spread early in the game (a third of it at the end)."""
    rows = np.asarray(rows, dtype=np.intp)
    seats = states.current[rows].astype(np.int64)
    players = states.num_players[rows]
    games, actions, est = search.turn_lookahead(states, None, rows)
    order = np.lexsort((actions, games))  # each game's legal actions increasing, as the action mask lists them
    games, actions, est = games[order], actions[order], est[order]
    where = np.searchsorted(rows, games)  # rows are increasing: the lookahead's games are rows
    own, opponents = search.own_and_opponents(est, seats[where], players[where])
    est_now = search.estimated_final_scores(states, rows)
    own_now, opponents_now = search.own_and_opponents(est_now, seats, players)
    size = action_layout(states.rules).size
    gains = np.zeros((len(rows), 2, size), np.float32)
    gains[where, 0, actions] = own - own_now[where]
    gains[where, 1, actions] = opponents - opponents_now[where]
    values = search.win_transform(est, states, games, look_scale)
    mover_values = values[np.arange(len(where)), seats[where]]  # each legal move's value for its mover
    best = search.best_rows(where, mover_values, len(rows))
    bounds = np.searchsorted(where, np.arange(len(rows) + 1))
    legal = [actions[bounds[j] : bounds[j + 1]].astype(np.int64) for j in range(len(rows))]
    padded = np.zeros((len(rows), max(1, max(len(a) for a in legal))), dtype=np.int64)
    for j, a in enumerate(legal):
        padded[j, : len(a)] = a
    score = states.score[rows].astype(np.float64)
    score_own, score_opp = search.own_and_opponents(score, seats, players)
    inputs = {
        "lookahead": gains,
        "estimate": np.stack([own_now, opponents_now], 1).astype(np.float32),
        "legal": legal,
        "legal_padded": padded,
        "heuristic": values[best],
        "move_value": [mover_values[bounds[j] : bounds[j + 1]] for j in range(len(rows))],
        "score_diff": score_own - score_opp,
    }
    if board:
        inputs["board"] = observe(states, rows, seats)
    if searchnet:
        ended = score_if_ended(states, rows)
        end_own, end_opp = search.own_and_opponents(ended, seats, players)
        inputs["score_now"] = np.stack([score_own, score_opp, end_own, end_opp], 1).astype(np.float32)
    return inputs


def take_inputs(inputs: dict, idx: np.ndarray) -> dict:
    """The inputs (``network_inputs``) of games ``idx`` of a batch: arrays and lists alike."""
    taken = {key: [value[j] for j in idx] if isinstance(value, list) else value[idx] for key, value in inputs.items()}
    if "legal_padded" in taken:  # trim the padding to the longest kept list of legal moves
        taken["legal_padded"] = taken["legal_padded"][:, : max([1, *(len(a) for a in taken["legal"])])]
    return taken


def score_if_ended(states: State, rows: np.ndarray) -> np.ndarray:
    """[n, 5] every seat's score if games ``rows`` ended now (the ruleset's final scoring, automatic
    choices, on copies); finished games: their scores."""
    copy = search.plain_copy(states, rows)
    live = np.flatnonzero(copy.phase != OVER)
    if len(live):
        copy.spec.final_scoring(copy, live, None)
    return copy.score[:, :MAX_PLAYERS].astype(np.float64)


# ---------------------------------------------------------------- rotation augmentation


@cache
def rotation_tables(ruleset: str, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """(board channel permutation, action permutation) of one clockwise quarter turn of the board.

    ``channels[c]``: the channel whose plane becomes channel c; ``actions[a]``: action a's image.
    A tile at rotation r shows rotation r + 1 (rotations count clockwise quarter turns)."""
    obs = observer(ruleset)
    names = list(obs.board_channels)
    at = {name: i for i, name in enumerate(names)}
    channels = np.arange(len(names))
    for i, name in enumerate(names):
        for prefix in ("rot", "legal_r"):
            if name.startswith(prefix) and name[len(prefix) :].isdigit():
                channels[i] = at[f"{prefix}{(int(name[len(prefix) :]) - 1) % 4}"]
        side, _, terrain = name.partition("_")
        if side in DIRECTION_NAMES and terrain:
            before = DIRECTION_NAMES[(DIRECTION_NAMES.index(side) - 1) % 4]
            channels[i] = at[f"{before}_{terrain}"]
    board = board_geometry(reach)
    size, n = board.size, board.num_cells
    row, col = np.divmod(np.arange(n), size)
    cell_image = col * size + (size - 1 - row)  # (x, y) -> (-y, x): north goes east
    layout = action_layout(reach, ruleset)
    actions = np.arange(layout.size)
    place = np.arange(4 * n)
    actions[: 4 * n] = 4 * cell_image[place // 4] + (place % 4 + 1) % 4
    start, stop = layout.segment("retake")
    if stop > start:
        actions[start:stop] = start + cell_image
    return channels, actions


def rotate_inputs(
    board: np.ndarray, gains: np.ndarray, legal: np.ndarray, turns: int, ruleset: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(board [B, C, H, W], gains [B, 2, A], legal [B, L] action ids) turned by ``turns`` clockwise
    quarter turns: the same positions on a turned board (info planes and non-placement actions stay)."""
    turns %= 4
    if turns == 0:
        return board, gains, legal
    reach = (board.shape[-1] - 1) // 2
    channels, actions = rotation_tables(ruleset, reach)
    c = len(channels)
    board, gains, legal = board.copy(), gains.copy(), legal.copy()
    for _ in range(turns):
        planes = np.rot90(board[:, :c], k=-1, axes=(2, 3))[:, channels]
        board[:, :c] = planes
        moved = np.empty_like(gains)
        moved[:, :, actions] = gains
        gains = moved
        legal = actions[legal]
    return board, gains, legal
