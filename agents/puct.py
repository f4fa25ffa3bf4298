"""``puct``: information-set PUCT search guided by a network's priors and values (AlphaZero-style).

Spec (the defaults): ``puct:path=<shipped model>,sims=160,c_puct=1.5,deals=16,batch=8,time=0,temperature=0,
mix=0.5,scale=40,noise=0,qprior=0,virtual=loss,net_depth=0,beta=0.3,reuse=0,widen=0,stop=0,look_scale=10,
draws=1,trees=1``.
``path`` defaults to the game's ruleset's shipped search network (``puct_<ruleset>.zip`` in
``hg_env/arena/models/``; hg2020's: the PPO model with a value fitted to 3,584 of its own games,
``hgenv train --config configs/expert_value.toml``), else its shipped PPO model (``ppo_<ruleset>.zip``).
A model of ``hgenv train`` (kind ``boardnet``) or a search network of expert iteration (kind
``searchnet``, ``hg_env.agents.search_net``) both work. At the defaults a move costs about 15% less
CPU than ``mcts`` at its defaults (hg2020, either network).

Hidden information is handled as ``mcts`` does (``hg_env.agents.mcts``): simulations start from
copies of the position whose undrawn tiles are re-dealt (``hg_env.core.search.redeal``), never from
the real deck order; with ``deals=D > 0`` each decision draws D deals up front and the j-th visit of
each root move plays deal ``j mod D`` (common random numbers for the root's comparison), ``deals=0``
re-deals for every simulation. Nodes are decision points, below an edge children are keyed by what
the step revealed (phase, seat to move, tile drawn).

One simulation selects down the tree by PUCT, ``argmax Q + c_puct * P * sqrt(N + 1) / (1 + n)``
(``P`` the network's prior of the move, ``Q`` its mean value for the seat to move, an unvisited move
taking its node's own value; with ``qprior=K > 0`` each move's own one-turn lookahead value counts as
K visits of its mean instead, as ``mcts`` counts it as one; with ``widen=w > 0`` only a node's
``ceil(w * sqrt(N + 1))`` best moves by those values, else by prior, compete: ``mcts``' progressive
widening), steps the chosen moves on the batched
core, and evaluates the first new node: its legal moves come from ``hg_env.core.search.turn_lookahead``
(which also gives the lookahead features the network reads and each move's one-turn value), its
priors are the network's softmax over exactly those moves, and its value mixes the network's value
with the lookahead's (``mix``: the weight of the lookahead, as AlphaGo mixed its value network with
rollouts). The lookahead's win values, of the leaf and of each move, are a logistic of the estimated
final lead with ``look_scale`` points of spread early in the game, a third of it at the end
(``search.win_transform``; ``mcts`` uses 40). With ``draws=M > 1`` the lookahead's value of a leaf on
a tile just drawn is its mean over that draw and M - 1 others from the tiles unseen
(``search.redraw``), all in the same call: the chance of the draw is averaged at the leaf rather than
across simulations; the leaf keeps its own tile's moves, priors and network value. ``batch``
simulations per searched game run together, kept apart by their visits under way: with
``virtual=loss`` such a visit counts as a lost one until its value comes back, with ``virtual=visit``
it only lowers its move's exploration bonus and leaves its mean alone (as WU-UCT does;
docs/search_agent.md compares the two). All games searched at once (``act_batch``: every game of an
evaluation, every game of expert iteration's self-play) share one lookahead and one network call per
step: leaves are evaluated in batches.

Three ways to spend less CPU per simulation or per move. With ``net_depth=K > 0`` only leaves fewer
than K decision levels below the root are evaluated by the network; deeper ones skip its board
planes and forward pass: their priors are a softmax of ``beta`` times each move's one-turn gain in
lead (points), their value mixes the lookahead's with the search network's value skip
(``SearchNet.linear_value``: the whole value of the shipped hg2020 network, whose MLP is silent).
With ``reuse=1`` the occupant decision that follows the agent's placement continues the subtree
searched below that placement (as ``mcts`` does), and its visits count toward ``sims``. With ``stop=1``
a decision stops after the round in which its most visited move's lead in visits passes the
simulations left (``settled``): the rest could not change the move played, so at ``temperature=0``
the agent plays the moves of the whole search at less CPU (with ``deals > 0`` the deals are drawn up
front, so its generator ends where it would have and so do its games), and a larger ``sims`` costs
less where the choice is clear early.

With ``trees=K > 1`` a decision grows K independent trees of ``sims`` simulations each, on deals of
their own, side by side (root parallelization, Chaslot et al. 2008): each round's leaves of all K
share one lookahead and one network call, so K trees cost far less than K times one, and no tree's
paths wait on another's values as a larger ``batch`` makes them wait. The move is chosen on the
trees' summed visits (``merge_roots``), and ``stop`` stops them together. Two trees of 160 cost less
than ``mcts`` and played weaker than one (docs/search_agent.md): the search gains from the rounds of
one tree.

Values are in [0, 1] for the seat to move. A ``searchnet`` gives a win probability. A PPO model's
value head predicts its training reward: with ``reward = "score_diff"`` the rest of the game's score
difference times ``reward_scale`` (both read from the model file's run config), turned into a win
value by the logistic of ``mcts`` (``scale`` points of spread early, a third of it at the end); with
``reward = "win"`` a value in [-1, 1]. Finished games give exact results. The move played is the most
visited (ties: best mean, then prior), or with ``temperature > 0`` a sample proportional to
``visits ** (1 / temperature)`` drawn from the agent's generator; ``noise > 0`` mixes Dirichlet noise
into the root priors (self-play exploration). ``time > 0`` also stops a decision after that many
seconds (results then depend on the machine). Everything random comes from the agent's seeded
generator and the network runs deterministically on the CPU, so a seeded agent repeats its games.

The tree search itself (``search_trees``) works on any game given as a ``SearchGame`` (the batched
core's is ``CoreGame``); tests run it on a tiny synthetic game with a known best move.
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from hg_env.agents.base import Agent, register
from hg_env.agents.mcts import (
    VIRTUAL_DOC,
    check_virtual,
    end_visit,
    prior_visit_means,
    start_visit,
    subtree_to_keep,
)
from hg_env.core import engine, search
from hg_env.core.seats import MAX_PLAYERS
from hg_env.core.state import OVER, PLACE

if TYPE_CHECKING:
    from torch import nn

    from hg_env.core.state import State
    from hg_env.game import Game

DIRICHLET_ALPHA = 0.3


def ppo_model(ruleset: str) -> Path:
    """The shipped PPO model of a ruleset (``ppo_<ruleset>.zip``): the ladder's ``ppo`` rung, expert
    iteration's start."""
    import hg_env.arena.models

    return Path(hg_env.arena.models.__file__).parent / f"ppo_{ruleset}.zip"


def default_model(ruleset: str) -> Path:
    """The network ``puct`` uses when no path is given: the ruleset's shipped search network
    (``puct_<ruleset>.zip``: hg2020's is built by ``configs/expert_value.toml``) where there is one,
    else its shipped PPO model."""
    search_net = ppo_model(ruleset).with_name(f"puct_{ruleset}.zip")
    return search_net if search_net.is_file() else ppo_model(ruleset)


# ---------------------------------------------------------------- the tree


class Node:
    """A decision point: legal moves with the network's priors, visit counts and value sums."""

    __slots__ = (
        "actions",
        "children",
        "move_value",
        "n",
        "pending",
        "player",
        "prior",
        "ranked",
        "terminal",
        "total",
        "value",
        "w",
    )

    def __init__(self, player: int, terminal: bool = False) -> None:
        self.player = player
        self.terminal = terminal
        self.actions: np.ndarray | None = None
        self.prior = self.n = self.w = self.pending = self.ranked = None
        self.value: np.ndarray | None = None  # [seats] value vector of this node (its evaluation)
        self.move_value: np.ndarray | None = None  # [moves] each move's one-turn value for the seat to move
        self.total = 0
        self.children: dict[tuple, Node] = {}

    @property
    def expanded(self) -> bool:
        return self.actions is not None

    def expand(
        self, actions: np.ndarray, prior: np.ndarray, value: np.ndarray, move_value: np.ndarray | None = None
    ) -> None:
        self.actions = np.asarray(actions, dtype=np.int64)
        self.prior = np.asarray(prior, dtype=np.float64)
        self.value = np.asarray(value, dtype=np.float64)
        self.move_value = None if move_value is None else np.asarray(move_value, dtype=np.float64)
        self.n = np.zeros(len(self.actions))
        self.w = np.zeros(len(self.actions))
        self.pending = np.zeros(len(self.actions))  # visits under way whose values have not come back
        # the moves best first (progressive widening): by their own values where known, else by prior
        key = self.prior if self.move_value is None else self.move_value
        self.ranked = np.argsort(-key, kind="stable")

    def q(self, move_weight: float = 0.0) -> np.ndarray:
        """Mean value of every move for the seat to move. With ``move_weight > 0`` and the moves' own
        values known, each move's value counts as that many visits (``mcts``' prior visit,
        ``prior_visit_means``); otherwise an unvisited move takes the node's value."""
        if move_weight > 0 and self.move_value is not None:
            return prior_visit_means(self.w, self.n, self.move_value, move_weight)
        first = float(self.value[self.player])
        return np.where(self.n > 0, self.w / np.maximum(self.n, 1), first)

    def select(self, c_puct: float, move_weight: float = 0.0, widen: float = 0.0) -> int:
        """``argmax Q + c_puct * P * sqrt(N + 1) / (1 + n)`` (first of equals); ``n`` counts the visits
        under way too, ``Q`` only those whose values came back. With ``widen > 0`` only the
        ``ceil(widen * sqrt(N + 1))`` best moves (``ranked``) compete, as in ``mcts``."""
        score = self.q(move_weight) + c_puct * self.prior * math.sqrt(self.total + 1) / (1.0 + self.n + self.pending)
        if widen > 0:
            width = math.ceil(widen * math.sqrt(self.total + 1))
            if width < len(score):
                top = np.sort(self.ranked[:width])  # in action order: the first of equals, as without widening
                return int(top[np.argmax(score[top])])
        return int(np.argmax(score))

    def sibling(self) -> Node:
        """A new root of the same decision: this node's moves, priors and values, no visits (``trees``)."""
        node = Node(self.player, self.terminal)
        node.expand(self.actions, self.prior, self.value, self.move_value)
        return node

    def best(self, move_weight: float = 0.0) -> int:
        """The most visited move; ties: the best mean, then the highest prior."""
        return int(np.lexsort((-self.prior, -self.q(move_weight), -self.n))[0])


class SearchGame(Protocol):
    """A game the tree search plays on: batched positions (numpy-backed), decided one row at a time."""

    num_seats: int

    def start(self, tree: np.ndarray, visit: np.ndarray, rng: np.random.Generator) -> Any:
        """Positions to simulate from: one per (tree, visit of its root move), hidden information resampled."""

    def step(self, positions: Any, actions: np.ndarray) -> None:
        """Play ``actions`` (-1: leave that row as it is), in place."""

    def describe(self, positions: Any, i: int) -> tuple[tuple, int, bool]:
        """(what the step revealed, as a hashable key; the seat to move; whether the game is over) of row i."""

    def evaluate(self, positions: Any, rows: np.ndarray, depths: np.ndarray) -> list[tuple]:
        """For each running row: (legal actions, priors summing to 1, value vector [num_seats]), and
        optionally a fourth entry, each move's own value for the seat to move (``Node.move_value``).
        ``depths``: each row's decision level below its root (its root's moves lead to level 1)."""

    def outcome(self, positions: Any, rows: np.ndarray) -> np.ndarray:
        """[len(rows), num_seats] exact values of finished games."""


@dataclass
class SearchSettings:
    """What a search does per decision (the agent's options)."""

    sims: int = 160
    c_puct: float = 1.5
    batch: int = 8
    time: float = 0.0
    noise: float = 0.0
    move_weight: float = 0.0  # visits each move's one-turn value counts for in its mean (0: none)
    virtual: str = "loss"  # a visit under way counts as a loss ("loss") or only against exploration ("visit")
    widen: float = 0.0  # progressive widening: a node tries its ceil(widen * sqrt(N + 1)) best moves (0: all)
    stop: bool = False  # a tree stops once its most visited root move cannot be overtaken (``settled``)


def search_trees(
    game: SearchGame,
    roots: list[Node],
    settings: SearchSettings,
    rng: np.random.Generator,
    decisions: np.ndarray | None = None,
) -> list[Node]:
    """Simulate from every (expanded) root at once until it has ``settings.sims`` visits (a root kept
    from an earlier search keeps its visits); the roots, searched.

    Each round every tree still short of its simulations selects up to ``batch`` paths (virtual
    loss: a visit counts before its value comes back), all paths are stepped together, and all new
    leaves are evaluated in one ``game.evaluate`` call. ``decisions[t]``: the decision tree t
    searches (default: one per tree); trees of the same decision are chosen from together (their
    visits summed, ``merge_roots``), so with ``settings.stop`` they stop together, once their summed
    visits are ``settled`` against all their simulations left, and ``settings.time`` is per decision."""
    if settings.noise > 0:
        for root in roots:
            if len(root.actions) > 1:
                eta = rng.dirichlet(np.full(len(root.actions), DIRICHLET_ALPHA))
                root.prior = (1 - settings.noise) * root.prior + settings.noise * eta
    decisions = np.arange(len(roots)) if decisions is None else np.asarray(decisions, dtype=np.intp)
    count = len(np.unique(decisions))
    deadline = _time.perf_counter() + settings.time * count if settings.time > 0 else math.inf
    done = np.array([int(root.n.sum()) for root in roots], dtype=np.int64)  # a kept root's visits count
    while True:
        if settings.stop:
            for d in np.unique(decisions[done < settings.sims]):
                trees = np.flatnonzero(decisions == d)
                visits = sum(roots[t].n for t in trees)
                if settled_visits(visits, int((settings.sims - done[trees]).sum())):
                    done[trees] = settings.sims
        todo = np.flatnonzero(done < settings.sims)
        if not len(todo) or _time.perf_counter() >= deadline:
            break
        counts = np.minimum(settings.batch, settings.sims - done[todo])
        _simulate(game, roots, np.repeat(todo, counts), settings, rng)
        done[todo] += counts
    return roots


def settled(root: Node, left: int) -> bool:
    """Whether ``left`` more simulations cannot change the root's most visited move: its lead in
    visits over the runner-up exceeds them (``Node.best`` then picks it whatever they do)."""
    return settled_visits(root.n, left)


def settled_visits(visits: np.ndarray, left: int) -> bool:
    """``settled`` on a root's visit counts (or several trees' summed)."""
    if left <= 0 or len(visits) < 2:
        return True
    second, first = np.partition(visits, len(visits) - 2)[-2:]
    return first - second > left


def merge_roots(roots: list[Node]) -> Node:
    """One root of the searched trees of a decision (root parallelization): the first's moves, priors
    and values, the visits and value sums of all."""
    if len(roots) == 1:
        return roots[0]
    merged = roots[0].sibling()
    for root in roots:
        merged.n += root.n
        merged.w += root.w
        merged.total += root.total
    return merged


def _select(node: Node, path: list[tuple[Node, int]], settings: SearchSettings) -> int:
    k = node.select(settings.c_puct, settings.move_weight, settings.widen)
    start_visit(node, k, settings.virtual)
    path.append((node, k))
    return int(node.actions[k])


def _simulate(
    game: SearchGame, roots: list[Node], tree: np.ndarray, settings: SearchSettings, rng: np.random.Generator
) -> None:
    """One simulation per entry of ``tree`` (a root's index), all stepped and evaluated together."""
    count = len(tree)
    paths: list[list[tuple[Node, int]]] = [[] for _ in range(count)]
    at = [roots[t] for t in tree]
    actions = np.array([_select(at[i], paths[i], settings) for i in range(count)], dtype=np.int64)
    visit = np.array([int(p[0][0].n[p[0][1]] + p[0][0].pending[p[0][1]]) - 1 for p in paths])
    positions = game.start(tree, visit, rng)
    while True:
        moved = np.flatnonzero(actions >= 0)
        if not len(moved):
            break
        game.step(positions, actions)
        actions = np.full(count, -1, dtype=np.int64)
        for i in moved:
            node, k = paths[i][-1]
            key, player, over = game.describe(positions, int(i))
            key = (k, *key)
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = Node(player, terminal=over)
            at[i] = child
            if child.expanded and not child.terminal:
                actions[i] = _select(child, paths[i], settings)

    fresh: dict[int, int] = {}  # node id -> the simulation that evaluates it
    for i in range(count):
        if not at[i].terminal and not at[i].expanded:
            fresh.setdefault(id(at[i]), i)
    if fresh:
        rows = np.array(sorted(fresh.values()), dtype=np.intp)
        depths = np.array([len(paths[i]) for i in rows])
        for i, evaluation in zip(rows, game.evaluate(positions, rows, depths)):
            at[i].expand(*evaluation)
    result = np.zeros((count, game.num_seats))
    ended = np.array([i for i in range(count) if at[i].terminal], dtype=np.intp)
    if len(ended):
        result[ended] = game.outcome(positions, ended)
    for i in range(count):
        if not at[i].terminal:
            result[i] = at[i].value
        for node, k in paths[i]:
            end_visit(node, k, result[i, node.player], settings.virtual)


def choose(root: Node, temperature: float, rng: np.random.Generator, move_weight: float = 0.0) -> int:
    """Index of the root move to play: the best (``Node.best``), or a sample of visits ** (1 / T)."""
    if temperature <= 0 or root.n.sum() == 0:
        return root.best(move_weight)
    weights = root.n ** (1.0 / temperature)
    return int(rng.choice(len(weights), p=weights / weights.sum()))


# ---------------------------------------------------------------- the batched core as a SearchGame


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow for large |x|."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=np.float64)))


class NetworkEvaluator:
    """Priors and values of core positions from a network (a PPO ``boardnet`` or a ``searchnet``).

    Positions ``net_depth`` or more decision levels below their root (``net_depth > 0``) are
    evaluated without the network's board planes and forward pass: priors are a softmax of
    ``beta`` times each move's one-turn gain in lead (points), the value mixes the lookahead's with
    a searchnet's ``linear_value`` (a PPO network's: the lookahead's alone).

    Positions must be re-deals (never the real deck order): the lookahead reads the decks as given."""

    def __init__(
        self,
        net: nn.Module,
        metadata: dict,
        mix: float,
        scale: float,
        net_depth: int = 0,
        beta: float = 0.3,
        look_scale: float = 10.0,
        draws: int = 1,
        rng: np.random.Generator | None = None,
    ) -> None:
        self.net = net
        self.kind = metadata.get("kind", "boardnet")
        self.mix, self.scale, self.net_depth, self.beta = mix, scale, net_depth, beta
        self.look_scale, self.draws, self.rng = look_scale, draws, rng
        if draws > 1 and rng is None:
            raise ValueError("draws > 1 redraws tiles: it needs a generator (rng)")
        config = (metadata.get("extra") or {}).get("config") or {}
        env = config.get("env") or {}
        self.reward = env.get("reward", "score_diff")
        self.reward_scale = float(env.get("reward_scale", 0.05))
        if self.kind != "searchnet" and self.reward not in ("score_diff", "win"):
            raise ValueError(
                f"puct reads the value of a model trained with reward 'score_diff' or 'win', not {self.reward!r}"
            )

    def __call__(
        self, states: State, rows: np.ndarray, depths: np.ndarray | None = None
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """For each game ``rows[j]`` of ``states``: (legal actions, priors, value vector, each move's
        value). ``depths[j]``: its decision level below its root (None: all roots, network-evaluated)."""
        from hg_env.agents.search_net import network_inputs, take_inputs
        from hg_env.core.observation import observe

        searchnet = self.kind == "searchnet"
        near = np.ones(len(rows), bool)
        if depths is not None and self.net_depth:
            near = np.asarray(depths) < self.net_depth
        all_near = near.all()  # then the board planes of every game are read
        inputs = network_inputs(states, rows, searchnet=searchnet, board=all_near, look_scale=self.look_scale)
        if depths is not None:
            self._over_draws(inputs, states, rows)
        if all_near:
            return self.from_inputs(inputs, states, rows)
        out: list[Any] = [None] * len(rows)
        deep = np.flatnonzero(~near)
        for j, evaluation in zip(deep, self.from_lookahead(take_inputs(inputs, deep), states, rows[deep])):
            out[j] = evaluation
        if near.any():
            idx = np.flatnonzero(near)
            sub = take_inputs(inputs, idx)
            sub["board"] = observe(states, rows[idx], states.current[rows[idx]].astype(np.int64))
            for j, evaluation in zip(idx, self.from_inputs(sub, states, rows[idx])):
                out[j] = evaluation
        return out

    def _over_draws(self, inputs: dict, states: State, rows: np.ndarray) -> None:
        """With ``draws = M > 1``, in place: the lookahead's value (``heuristic``) of each game on a tile
        just drawn becomes its mean over that draw and M - 1 others (``search.redraw``; the network
        still reads the tile drawn, whose moves the leaf keeps)."""
        from hg_env.agents.search_net import network_inputs

        placing = np.flatnonzero(states.phase[rows] == PLACE)
        if self.draws <= 1 or not len(placing):
            return
        more = self.draws - 1
        copies = search.plain_copy(states, np.repeat(rows[placing], more))
        redrawn = search.redraw(copies, np.arange(copies.batch_size), self.rng)
        if not len(redrawn):
            return
        values = network_inputs(copies, redrawn, searchnet=False, board=False, look_scale=self.look_scale)
        leaf = placing[redrawn // more]
        total = inputs["heuristic"].astype(np.float64)
        np.add.at(total, leaf, values["heuristic"])
        inputs["heuristic"] = total / (1 + np.bincount(leaf, minlength=len(rows)))[:, None]

    def from_inputs(
        self, inputs: dict, states: State, rows: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """``__call__`` on inputs already built by ``network_inputs`` (of those games, with or without
        ``score_now``: a PPO network does not read it)."""
        import torch

        from hg_env.agents.network import run_net

        device = next(self.net.parameters()).device
        legal = inputs["legal_padded"]
        keys = _NET_KEYS if self.kind == "searchnet" else _NET_KEYS[:3]
        tensors = {key: torch.as_tensor(inputs[key], device=device) for key in keys}
        if not self.net.lookahead:
            tensors = tensors["board"]
        with torch.no_grad():
            if hasattr(self.net, "layout"):  # BoardNet and SearchNet take the legal moves directly
                logits, value = run_net(self.net, tensors, torch.as_tensor(legal, device=device))
            else:
                logits, value = run_net(self.net, tensors)
                logits = logits.gather(1, torch.as_tensor(legal, device=device))
        logits = logits.double().cpu().numpy()
        value = value.double().cpu().numpy()
        per_game = [logits[j, : len(actions)] for j, actions in enumerate(inputs["legal"])]
        return self._evaluations(inputs, states, rows, per_game, self._win_value(value, states, rows, inputs))

    def from_lookahead(
        self, inputs: dict, states: State, rows: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """``__call__`` without the network's forward pass, on inputs of ``network_inputs`` (no board
        needed): priors from the lookahead's gains, a searchnet's ``linear_value``."""
        gains = inputs["lookahead"]
        lead_gain = (gains[:, 0] - gains[:, 1]).astype(np.float64)
        per_game = [self.beta * lead_gain[j, actions] for j, actions in enumerate(inputs["legal"])]
        net_value = None
        if self.kind == "searchnet":
            import torch

            device = next(self.net.parameters()).device
            left = (states.regular_len[rows] - states.regular_next[rows]).astype(np.float32)
            arrays = (inputs["estimate"], inputs["score_now"], left)
            with torch.no_grad():
                value = self.net.linear_value(*(torch.as_tensor(a, device=device) for a in arrays))
            net_value = sigmoid(value[:, 0].double().cpu().numpy())
        return self._evaluations(inputs, states, rows, per_game, net_value)

    def _evaluations(
        self, inputs: dict, states: State, rows: np.ndarray, logits: list[np.ndarray], net_value: np.ndarray | None
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """(legal actions, softmax of ``logits``, value vector, move values) per game: the mover's value
        mixes ``net_value`` with the lookahead's by ``mix`` (None: the lookahead's alone)."""
        out = []
        per_game = zip(inputs["legal"], logits, inputs["heuristic"], inputs["move_value"])
        for j, (actions, z, heuristic, move_value) in enumerate(per_game):
            prior = np.exp(z - z.max())
            prior /= prior.sum()
            mover = int(states.current[rows[j]])
            vector = heuristic.copy()
            v = heuristic[mover] if net_value is None else (1 - self.mix) * net_value[j] + self.mix * heuristic[mover]
            vector[mover] = v
            if int(states.num_players[rows[j]]) == 2:
                vector[1 - mover] = 1.0 - v
            out.append((actions, prior, vector, move_value))
        return out

    def _win_value(self, value: np.ndarray, states: State, rows: np.ndarray, inputs: dict) -> np.ndarray:
        """[n] the network's value as a win value in [0, 1] for the seat to move."""
        if self.kind == "searchnet":
            return sigmoid(value[:, 0])
        if self.reward == "win":
            return np.clip((value[:, 0] + 1.0) / 2.0, 0.0, 1.0)
        margin = inputs["score_diff"] + value[:, 0] / self.reward_scale
        frac = search.tiles_left(states)[rows] / search.regular_deck_size(states)
        spread = self.scale * (1.0 + 2.0 * frac) / 3.0
        return sigmoid(margin / spread)


_NET_KEYS = ("board", "lookahead", "estimate", "score_now")  # a PPO network reads the first three


class CoreGame:
    """The batched core as a ``SearchGame``: roots are games of a ``State``; simulations start from
    re-deals (``deals > 0``: D deals per root drawn up front; 0: a fresh re-deal per simulation)."""

    def __init__(self, roots: State, deals: int, rng: np.random.Generator, evaluate: Any) -> None:
        self.roots, self.deals, self.evaluator = roots, deals, evaluate
        self.num_seats = MAX_PLAYERS
        self.dealt = None
        if deals > 0:  # tree t's deal j is row t * deals + j
            self.dealt = search.plain_copy(roots, np.repeat(np.arange(roots.batch_size), deals))
            search.redeal(self.dealt, rng)

    def start(self, tree: np.ndarray, visit: np.ndarray, rng: np.random.Generator) -> State:
        if self.dealt is None:
            states = search.plain_copy(self.roots, tree)
            search.redeal(states, rng)
            return states
        return self.dealt.take(tree * self.deals + visit % self.deals)

    def step(self, positions: State, actions: np.ndarray) -> None:
        engine.step(positions, actions)

    def describe(self, positions: State, i: int) -> tuple[tuple, int, bool]:
        phase = int(positions.phase[i])
        current = int(positions.current[i])
        return (phase, current, int(positions.tile_to_place[i])), current, phase == OVER

    def evaluate(self, positions: State, rows: np.ndarray, depths: np.ndarray) -> list[tuple]:
        return self.evaluator(positions, rows, depths)

    def outcome(self, positions: State, rows: np.ndarray) -> np.ndarray:
        return search.win_values(positions, rows)


# ---------------------------------------------------------------- the agent


@register
class PUCTAgent(Agent):
    """Information-set PUCT with a network's priors and values, leaves in batches (module docstring)."""

    name = "puct"
    option_docs = {
        "path": "model file: a PPO model (hgenv train) or a search network (expert iteration); "
        "default: the shipped network of the game's ruleset (puct_R.zip, else ppo_R.zip)",
        "sims": "simulations per decision (with reuse, the kept subtree's visits count)",
        "c_puct": "exploration: weight of the prior against the mean value",
        "deals": "deck re-deals shared by the root's moves (0: a new deal per simulation)",
        "batch": "simulations of one game run together (kept apart by their visits under way: virtual); games "
        "searched at once share calls",
        "time": "max seconds per decision (0: no limit; otherwise results vary by machine)",
        "temperature": "0: play the most visited move; T > 0: sample visits ** (1/T)",
        "mix": "weight of the one-turn lookahead's value against the network's, in [0, 1]",
        "scale": "points of logistic spread that turn a PPO value (a score difference) into a win value",
        "noise": "Dirichlet noise mixed into the root priors (self-play exploration; 0: none)",
        "qprior": "visits each move's one-turn lookahead value counts for in its mean, as mcts (0: an "
        "unvisited move takes its node's value)",
        "virtual": VIRTUAL_DOC,
        "net_depth": "decision levels evaluated by the network, the root's counted first (1: the root alone; 0: all); "
        "deeper leaves take lookahead priors and the value skip alone, at less CPU",
        "beta": "sharpness of lookahead priors below net_depth: softmax of beta x each move's gain in lead (points)",
        "reuse": "1: the occupant decision after a placement continues the placement's subtree (its visits count "
        "toward sims); 0: every decision is searched afresh",
        "widen": "progressive widening, as mcts: a node tries its ceil(widen*sqrt(N+1)) best moves (by their "
        "one-turn values, else priors); 0: all",
        "draws": "the lookahead's value of a leaf on a tile just drawn: its mean over that draw and draws-1 others "
        "from the unseen tiles (the network reads its own draw); 1: its own draw alone",
        "look_scale": "logistic spread in points (early; a third at the end) of the one-turn lookahead's win "
        "values: its leaf value and each move's value (mcts: its scale, 40)",
        "stop": "1: a decision stops once its most visited move can no longer be overtaken by the simulations "
        "left (the same move at less CPU when temperature=0); 0: all sims",
        "trees": "independent trees per decision, each of sims simulations on deals of its own, searched "
        "together; the move is chosen on their summed visits (root parallelization; 1: one tree)",
    }

    def __init__(
        self,
        seed: int | None = None,
        path: str | None = None,
        sims: int = 160,
        c_puct: float = 1.5,
        deals: int = 16,
        batch: int = 8,
        time: float = 0.0,
        temperature: float = 0.0,
        mix: float = 0.5,
        scale: float = 40.0,
        noise: float = 0.0,
        qprior: float = 0.0,
        virtual: str = "loss",
        net_depth: int = 0,
        beta: float = 0.3,
        reuse: int = 0,
        widen: float = 0.0,
        stop: int = 0,
        look_scale: float = 10.0,
        draws: int = 1,
        trees: int = 1,
    ) -> None:
        super().__init__(seed)
        if min(sims, batch, draws, trees) < 1:
            raise ValueError(
                f"sims, batch, draws and trees must be >= 1, got sims={sims}, batch={batch}, draws={draws}, "
                f"trees={trees}"
            )
        if min(deals, time, temperature, c_puct, qprior, net_depth, beta, widen) < 0:
            raise ValueError("deals, time, temperature, c_puct, qprior, net_depth, beta and widen must be >= 0")
        if not 0.0 <= mix <= 1.0 or not 0.0 <= noise <= 1.0 or scale <= 0 or look_scale <= 0:
            raise ValueError(
                "mix and noise must be in [0, 1], scale and look_scale > 0; "
                f"got mix={mix}, noise={noise}, scale={scale}, look_scale={look_scale}"
            )
        if stop not in (0, 1):
            raise ValueError(f"stop must be 0 or 1, got {stop!r}")
        check_virtual(virtual)
        self.path = path or ""
        self.settings = SearchSettings(
            sims=sims,
            c_puct=c_puct,
            batch=batch,
            time=time,
            noise=noise,
            move_weight=qprior,
            virtual=virtual,
            widen=widen,
            stop=bool(stop),
        )
        self.deals, self.temperature, self.mix, self.scale = deals, temperature, mix, scale
        self.net_depth, self.beta, self.look_scale, self.draws = int(net_depth), beta, look_scale, int(draws)
        if reuse not in (0, 1):
            raise ValueError(f"reuse must be 0 or 1, got {reuse!r}")
        if reuse and trees > 1:
            raise ValueError("reuse=1 continues one tree: it cannot be combined with trees > 1")
        self.reuse, self.trees = bool(reuse), int(trees)
        self._kept: dict[bytes, Node] = {}  # search.position_key -> the subtree kept for that decision (act_batch)
        self._nets: dict[str, tuple[Any, dict]] = {}
        if path:
            self._load(path, None)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._kept = {}

    @classmethod
    def from_net(cls, net: nn.Module, metadata: dict, seed: int | None = None, **options: Any) -> PUCTAgent:
        """An agent around a network in memory (``metadata``: its model file's, at least ``kind``,
        ``ruleset`` and for a PPO model ``extra.config.env``); it shares the weights."""
        agent = cls(seed=seed, **options)
        agent._nets[metadata["ruleset"]] = (net, metadata)
        agent.spec = "puct:(in memory)"
        return agent

    def _load(self, path: str, ruleset: str | None) -> tuple[Any, dict]:
        from hg_env.agents.model_file import load_model

        loaded = load_model(path, ruleset=ruleset)
        entry = (loaded.net, loaded.metadata)
        self._nets[loaded.metadata["ruleset"]] = entry
        return entry

    def model_file(self, ruleset: str) -> str | None:
        if self.path:
            return self.path
        return None if self._nets else str(default_model(ruleset))  # from_net: in memory

    def network(self, ruleset: str) -> tuple[Any, dict]:
        """(network, metadata) that plays ``ruleset``: the given model (refused if it plays another
        ruleset), else the shipped network of that ruleset (``default_model``)."""
        if ruleset in self._nets:
            return self._nets[ruleset]
        if self.path or self._nets:
            have = next(iter(self._nets))
            raise ValueError(f"{self.path or 'this network'} plays {have!r}, not {ruleset!r}")
        return self._load(str(default_model(ruleset)), ruleset)

    # ------------------------------------------------------------ protocol

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("the puct agent needs the game: call act(observation, mask, game=game)")
        return int(self.act_batch(None, np.asarray(action_mask)[None], game.state)[0])

    def act_batch(self, observations: Any, action_masks: np.ndarray, state: State | None = None) -> np.ndarray:
        if state is None:
            raise ValueError("the puct agent needs the batched state: call act_batch(obs, masks, state=state)")
        masks = np.asarray(action_masks, dtype=bool)
        out = np.full(len(masks), -1, dtype=np.int64)
        rows = np.flatnonzero(masks.any(1))
        if len(rows):
            for i, root in zip(rows, self.search(state, rows, masks[rows])):
                k = choose(root, self.temperature, self.rng, self.settings.move_weight)
                out[i] = root.actions[k]
                if self.reuse:
                    self._keep(state, int(i), root, k)
        return out

    def _keep(self, state: State, row: int, root: Node, k: int) -> None:
        """After a placement, keep the subtree of the same seat's decision that follows it on the same
        tile (its occupant), under the key of the position that move leads to (``search.position_key``)."""
        kept = subtree_to_keep(state, row, root, k)
        if kept is not None:
            self._kept[kept[0]] = kept[1]

    def search(self, state: State, rows: np.ndarray, masks: np.ndarray | None = None) -> list[Node]:
        """Search the decisions of games ``rows`` of ``state`` (which is not changed) together; their
        roots, searched (``Node.actions``, ``Node.n``: the moves and their visits; ``choose`` picks).

        A game with one legal move is not searched: its root has that move, visited once."""
        net, metadata = self.network(state.rules.ruleset)
        kept, self._kept = self._kept, {}
        roots_state = search.plain_copy(state, np.asarray(rows, dtype=np.intp))
        if masks is None:
            masks = engine.legal_action_mask(roots_state)
        evaluator = NetworkEvaluator(
            net, metadata, self.mix, self.scale, self.net_depth, self.beta, self.look_scale, self.draws, self.rng
        )
        roots: list[Node] = []
        searched, fresh = [], []
        for j, mask in enumerate(masks):
            root = Node(int(roots_state.current[j]))
            legal = np.flatnonzero(mask)
            if len(legal) == 1:
                root.expand(legal, np.ones(1), np.full(MAX_PLAYERS, 0.5))
                root.n[0] = root.total = 1
            else:
                searched.append(j)
                old = kept.get(search.position_key(roots_state, j)) if kept else None
                if old is not None and np.array_equal(old.actions, legal):  # the key holds the seat to move
                    root = old  # the subtree kept from this seat's placement: its visits count
                else:
                    fresh.append(j)
            roots.append(root)
        if not searched:
            return roots
        if fresh:
            first = roots_state.take(np.array(fresh))
            search.redeal(first, self.rng)  # the root is evaluated on a re-deal too: the real order is never read
            for j, evaluation in zip(fresh, evaluator(first, np.arange(len(fresh)))):
                if not np.array_equal(evaluation[0], np.flatnonzero(masks[j])):
                    raise RuntimeError(f"game {rows[j]}: the lookahead's legal moves differ from the action mask")
                roots[j].expand(*evaluation)
        k = self.trees  # tree i of searched decision s is row s * k + i, on deals of its own
        sub = roots_state.take(np.repeat(searched, k))
        game = CoreGame(sub, self.deals, self.rng, evaluator)
        trees = [tree for j in searched for tree in [roots[j]] + [roots[j].sibling() for _ in range(k - 1)]]
        search_trees(game, trees, self.settings, self.rng, np.repeat(np.arange(len(searched)), k))
        for s, j in enumerate(searched):
            roots[j] = merge_roots(trees[s * k : (s + 1) * k])
        return roots
