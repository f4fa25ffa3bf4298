"""``mcts``: information-set Monte-Carlo tree search on the batched core.

Spec (the defaults): ``mcts:sims=300,c=0.1,rollout=none,depth=0,batch=8,widen=2,deals=16,time=0,scale=40,
virtual=loss``.
At the defaults a two-player game takes about 25 s of thinking on one core of
the development machine (``time=`` caps the seconds per decision instead).

Hidden information. The search never reads the deck order. Simulations start
from copies of the position whose undrawn tiles are re-dealt
(``hg_env.core.search.redeal``): a uniformly random order of exactly the tiles
that can still come, given what is public (board, discards, tile to place,
deck sizes), separately for the regular and the menhir deck. With
``deals=D > 0`` each decision draws D such deals up front and the j-th visit of
every root action plays deal ``j mod D``: root actions are compared on the
same draws (common random numbers), which cuts the noise of the comparison.
``deals=0`` re-deals for every simulation.

The tree. Nodes are decision points; each edge is one legal flat action of the
seat to move. Decisions within one turn (placement, shaman retake, occupant)
are separate levels; a menhir extra turn is simply another decision of the same
seat. Draws are chance nodes: below an edge, children are keyed by what the
step revealed (phase, seat to move, tile drawn), so different deals of the
simulations fan out into different subtrees.

One simulation:

1. *Select* down the tree with UCB1 (exploration constant ``c``) among the
   first ``ceil(widen * sqrt(N + 1))`` edges of a node (progressive widening;
   edges are sorted by their heuristic value, best first, and each edge's
   heuristic value counts as one prior visit, shifted by the mean gap between
   heuristic and simulated values of the visited edges).
2. *Expand* the first new node: every legal action is valued with
   ``hg_env.core.search.turn_lookahead``: placements are stepped (one batched
   ``engine.step`` over all of them) and take the value of their best occupant,
   occupants are valued straight from the area accumulators. This orders and
   initialises the edges.
3. *Evaluate* the leaf: with ``rollout=none`` (or ``depth=0``) its value is
   that of its best edge for the seat to move (a one-step greedy backup);
   with ``rollout=random|greedy`` it is played on for ``depth`` decisions by
   that policy, all leaves of a batch together on the batched core, and then
   valued.
4. *Back up* the value vector: each edge adds the value of the seat that chose
   it.

Values are in [0, 1]: ``search.win_values`` (mean over opponents of a logistic
of the difference of estimated final scores, exact 1 / 0.5 / 0 at game end).
Its spread is ``scale`` points at the start of the game and a third of that at
the end; the default 40 keeps values nearly linear in the score difference for
most of the game, so the search still plays for points when clearly ahead or
behind (it measured a little better against greedy than 10).
``batch`` simulations run together so that their steps, expansions and
rollouts share batched core calls; their visits under way keep them apart:
with ``virtual=loss`` such a visit counts as a lost one until its value comes
back, with ``virtual=visit`` it only counts in the exploration term (as
WU-UCT does; neither kept batches of 64 from playing much worse than batches
of 8, docs/search_agent.md). The move played
is the most visited edge at the root (ties: best mean value). With
``time > 0`` the search also stops after that many seconds per decision
(results then depend on machine speed). The subtree below the chosen
placement is kept for the occupant decision that follows it, and reused only in
the position that placement leads to (``search.position_key``).
"""

from __future__ import annotations

import copy
import math
import time as _time
from typing import TYPE_CHECKING, Any

import numpy as np

from hg_env.agents.base import Agent, ranked, register
from hg_env.agents.greedy import greedy_actions
from hg_env.core import engine, search
from hg_env.core.state import OVER, PLACE

if TYPE_CHECKING:
    from hg_env.core.state import State
    from hg_env.game import Game

ROLLOUTS = ("none", "random", "greedy")
VIRTUAL = ("loss", "visit")  # how a simulation under way counts until its value comes back
VIRTUAL_DOC = (  # the option's help, the same in both searches (mcts, puct)
    "how a simulation under way counts until its value comes back: 'loss' (a visit of value 0) "
    "or 'visit' (a visit for the exploration term only, as WU-UCT)"
)


def check_virtual(virtual: str) -> None:
    """ValueError naming the choices unless ``virtual`` is one of ``VIRTUAL``."""
    if virtual not in VIRTUAL:
        raise ValueError(f"virtual must be one of {', '.join(VIRTUAL)}, got {virtual!r}")


def start_visit(node: Any, k: int, virtual: str) -> None:
    """Count a visit of edge ``k`` under way: a lost visit (``virtual="loss"``) or a pending one."""
    if virtual == "loss":
        node.n[k] += 1
    else:
        node.pending[k] += 1
    node.total += 1


def end_visit(node: Any, k: int, value: float, virtual: str) -> None:
    """The value of a visit of edge ``k`` came back (``start_visit`` counted it)."""
    node.w[k] += value
    if virtual != "loss":
        node.n[k] += 1
        node.pending[k] -= 1


def prior_visit_means(w: np.ndarray, n: np.ndarray, prior: np.ndarray, weight: float) -> np.ndarray:
    """Mean value of each edge (value sums ``w`` over visits ``n``) with its heuristic value ``prior``
    counted as ``weight`` visits.

    The heuristic values an edge right after the move, the simulations after the replies to it, so the
    two differ by a bias common to all edges; it is estimated over the visited edges and added to every
    prior. An unvisited edge's mean is its prior plus that bias."""
    seen = n > 0
    bias = float(np.mean(w[seen] / n[seen] - prior[seen])) if seen.any() else 0.0
    return (w + weight * prior + weight * bias) / (n + weight)  # weight 1: (w + prior + bias) / (n + 1) exactly


def occupant_subtree(root: Any, k: int) -> Any | None:
    """The searched child below root edge ``k`` (a placement) where the same seat decides again on the
    same tile, its occupant; None when that edge drew a tile, ended the game or was not searched."""
    for (move, _phase, current, tile), child in root.children.items():
        if move == k and current == root.player and tile < 0 and child.expanded and not child.terminal:
            return child
    return None


def subtree_to_keep(state: State, row: int, root: Any, k: int) -> tuple[bytes, Any] | None:
    """After placement ``k`` of ``root`` (the search of game ``row`` of ``state``): its searched
    occupant subtree (``occupant_subtree``) with the key of the position that placement leads to
    (``search.position_key``), where it is to be reused and nowhere else; None when there is none."""
    child = occupant_subtree(root, k) if state.phase[row] == PLACE else None
    if child is None:
        return None
    after = search.plain_copy(state, np.array([row]))
    engine.step(after, root.actions[k : k + 1])  # a placement with an occupant to choose draws nothing
    if int(after.current[0]) != root.player or int(after.tile_to_place[0]) >= 0:
        return None
    return search.position_key(after, 0), child


class Node:
    """A decision point: edges sorted by heuristic value, with visit counts and value sums."""

    __slots__ = ("actions", "children", "n", "pending", "player", "prior", "terminal", "total", "value", "w")

    def __init__(self, player: int, terminal: bool = False) -> None:
        self.player = player
        self.terminal = terminal
        self.actions: np.ndarray | None = None  # legal actions, best heuristic value first
        self.prior = self.n = self.w = self.pending = None
        self.value: np.ndarray | None = None  # value vector of the best edge (leaf evaluation)
        self.total = 0
        self.children: dict[tuple, Node] = {}

    @property
    def expanded(self) -> bool:
        return self.actions is not None

    def expand(self, actions: np.ndarray, values: np.ndarray) -> None:
        """Set the edges, best heuristic value for the seat to move first."""
        order = np.argsort(-values[:, self.player], kind="stable")
        self.actions = actions[order]
        self.prior = values[order, self.player]
        self.value = values[order[0]]
        self.n = np.zeros(len(order))
        self.w = np.zeros(len(order))
        self.pending = np.zeros(len(order))  # visits under way whose values have not come back

    def means(self) -> np.ndarray:
        """Mean value of each edge, with its heuristic value as one prior visit (``prior_visit_means``)."""
        return prior_visit_means(self.w, self.n, self.prior, 1.0)

    def select(self, c: float, widen: float) -> int:
        """UCB1 over the first ``ceil(widen * sqrt(N + 1))`` edges (progressive widening); ``n`` counts the
        visits under way too, the means only those whose values came back."""
        width = min(len(self.actions), max(1, math.ceil(widen * math.sqrt(self.total + 1))))
        bonus = c * np.sqrt(math.log(self.total + 1) / (self.n[:width] + self.pending[:width] + 1))
        return int(np.argmax(self.means()[:width] + bonus))

    def best_action_index(self) -> int:
        """The most visited edge; ties go to the best mean."""
        return int(np.lexsort((-self.means(), -self.n))[0])


@register
class MCTSAgent(Agent):
    """Information-set MCTS with heuristic expansion and batched simulations (module docstring)."""

    name = "mcts"
    option_docs = {
        "sims": "simulations per decision",
        "c": "UCB1 exploration constant: higher tries less visited moves more",
        "rollout": "leaf value: none (best move's one-turn lookahead), random or greedy playout",
        "depth": "decisions a random or greedy rollout plays (0: no rollout)",
        "batch": "simulations run together on the batched core (kept apart by their visits under way: virtual)",
        "widen": "progressive widening: a node tries its ceil(widen*sqrt(N+1)) best moves",
        "time": "max seconds per decision (0: no limit; otherwise results vary by machine)",
        "scale": "logistic spread in points: a lead L is worth 1 / (1 + exp(-L / scale))",
        "deals": "deck re-deals shared by the root's moves (0: a new deal per simulation)",
        "virtual": VIRTUAL_DOC,
    }

    def __init__(
        self,
        seed: int | None = None,
        sims: int = 300,
        c: float = 0.1,
        rollout: str = "none",
        depth: int = 0,
        batch: int = 8,
        widen: float = 2.0,
        time: float = 0.0,
        scale: float = 40.0,
        deals: int = 16,
        virtual: str = "loss",
    ) -> None:
        super().__init__(seed)
        if sims < 1:
            raise ValueError(f"sims must be >= 1, got {sims}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {ROLLOUTS}, got {rollout!r}")
        if depth < 0 or deals < 0 or c < 0 or time < 0 or batch < 1 or widen <= 0 or scale <= 0:
            raise ValueError("depth, deals, c and time must be >= 0; batch, widen and scale must be > 0")
        check_virtual(virtual)
        self.sims, self.c, self.rollout, self.depth = sims, c, rollout, depth
        self.batch, self.widen, self.time_limit, self.scale, self.deals = batch, widen, time, scale, deals
        self.virtual = virtual
        self._kept: dict[bytes, Node] = {}  # search.position_key -> the subtree the last act(_batch) kept there

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._kept = {}

    # ------------------------------------------------------------ protocol

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("the mcts agent needs the game: call act(observation, mask, game=game)")
        return self.search(game.state, 0)

    def act_batch(self, observations: Any, action_masks: np.ndarray, state: State | None = None) -> np.ndarray:
        if state is None:
            raise ValueError("the mcts agent needs the batched state: call act_batch(obs, masks, state=state)")
        out = np.full(len(action_masks), -1, dtype=np.int64)
        kept, self._kept = self._kept, {}
        for i in np.flatnonzero(np.asarray(action_masks).any(1)):  # each game reuses the subtree kept for it
            out[i], _, keep = self._search(state, int(i), kept)
            if keep is not None:
                self._kept[keep[0]] = keep[1]
        return out

    # ------------------------------------------------------------ search

    def values(self, state: State, rows: np.ndarray | None = None) -> np.ndarray:
        return search.win_values(state, rows, self.scale)

    def transform(self, est: np.ndarray, state: State, rows: np.ndarray) -> np.ndarray:
        return search.win_transform(est, state, rows, self.scale)

    def search(self, state: State, game: int = 0) -> int:
        """The chosen action for one game of a batched state (which is not changed); the subtree it
        keeps replaces those kept before (one game played one decision at a time)."""
        action, _, keep = self._search(state, game, self._kept)
        self._kept = dict([keep]) if keep is not None else {}
        return action

    def explain(self, game: Game, top: int = 8) -> list[dict]:
        """The root's edges after a search: ``visits``, ``value`` (the mean value, a win chance for the seat
        to move) and ``weight`` (visits over the most visited's), most visited first. The search starts
        afresh on a copy of the agent's generator and keeps no subtree: explaining leaves its play unchanged."""
        rng, self.rng = self.rng, copy.deepcopy(self.rng)
        try:
            action, root, _ = self._search(game.state, 0, {})
        finally:
            self.rng = rng
        if root is None:  # a single legal move: no search
            return ranked(np.array([action]), np.ones(1), np.ones(1), top, visits=np.zeros(1))
        visits, means = root.n, root.means()
        order_key = visits + means / (1 + np.abs(means).max())  # most visited first, ties by value
        return ranked(root.actions, order_key, visits / max(visits.max(), 1), top, visits=visits, value=means)

    def root_visits(self, state: State, game: int = 0) -> tuple[int, np.ndarray, np.ndarray, float]:
        """Search one decision of game ``game``: (the chosen action, the legal actions increasing, their
        root visits, the search's value of the position for the seat to move: the mean value of the
        chosen move). A single legal move is not searched: it has one visit and value NaN. No subtree is
        kept, so the caller may play any move (expert iteration's teacher samples its openings)."""
        action, root, _ = self._search(state, game, self._kept)
        self._kept = {}
        if root is None:
            return action, np.array([action], dtype=np.int64), np.ones(1), float("nan")
        order = np.argsort(root.actions)
        value = float(root.means()[root.best_action_index()])
        return action, root.actions[order].astype(np.int64), root.n[order].copy(), value

    def _search(
        self, state: State, game: int, kept: dict[bytes, Node]
    ) -> tuple[int, Node | None, tuple[bytes, Node] | None]:
        """The chosen action, the searched root (None for a single legal move) and the subtree to keep
        for the next decision (``subtree_to_keep``); the search continues the subtree ``kept`` holds
        for this position, if any."""
        root_state = search.plain_copy(state, np.array([game]))
        legal = np.flatnonzero(engine.legal_action_mask(root_state)[0])
        if len(legal) == 1:
            return int(legal[0]), None, None
        root = kept.get(search.position_key(root_state, 0)) if kept else None  # the key holds the seat to move
        if root is None:
            root = Node(int(root_state.current[0]))
            first = search.plain_copy(root_state)
            search.redeal(first, self.rng)
            _, actions, values = search.turn_lookahead(first, self.transform)
            root.expand(actions, values)
        deals = None
        if self.deals > 0:
            deals = search.plain_copy(root_state, np.zeros(self.deals, dtype=np.intp))
            search.redeal(deals, self.rng)
        deadline = _time.perf_counter() + self.time_limit if self.time_limit > 0 else math.inf
        done = 0
        while done < self.sims and _time.perf_counter() < deadline:
            count = min(self.batch, self.sims - done)
            self._simulate(root, root_state, count, deals)
            done += count
        best = root.best_action_index()
        return int(root.actions[best]), root, subtree_to_keep(root_state, 0, root, best)

    def _simulate(self, root: Node, root_state: State, count: int, deals: State | None) -> None:
        """``count`` simulations from the root, sharing batched steps, expansions and rollouts."""
        paths: list[list[tuple[Node, int]]] = [[] for _ in range(count)]
        at = [root] * count
        actions = np.full(count, -1, dtype=np.int64)
        for i in range(count):
            actions[i] = self._select(root, paths[i])
        if deals is None:
            states = search.plain_copy(root_state, np.zeros(count, dtype=np.intp))
            search.redeal(states, self.rng)
        else:  # the j-th visit of every root action plays deal j: paired comparisons
            visit = [int(root.n[k] + root.pending[k]) - 1 for _, k in (p[0] for p in paths)]
            states = deals.take(np.array(visit) % deals.batch_size)
        while True:
            moved = np.flatnonzero(actions >= 0)
            if not len(moved):
                break
            engine.step(states, actions)
            for i in moved:
                node, k = paths[i][-1]
                phase = int(states.phase[i])
                key = (k, phase, int(states.current[i]), int(states.tile_to_place[i]))
                child = node.children.get(key)
                if child is None:
                    child = Node(int(states.current[i]), terminal=phase == OVER)
                    node.children[key] = child
                at[i] = child
            actions = np.full(count, -1, dtype=np.int64)
            for i in range(count):
                if at[i].expanded and not at[i].terminal:
                    actions[i] = self._select(at[i], paths[i])

        leaves = [i for i in range(count) if not at[i].terminal]
        fresh: dict[int, int] = {}  # node id -> simulation that expands it
        for i in leaves:
            if not at[i].expanded:
                fresh.setdefault(id(at[i]), i)
        if fresh:
            rows = np.array(sorted(fresh.values()))
            games, actions, values = search.turn_lookahead(states, self.transform, rows)
            for i in rows:
                at[i].expand(actions[games == i], values[games == i])

        result = np.zeros((count, states.score.shape[1]))
        ended = np.array([i for i in range(count) if at[i].terminal], dtype=np.intp)
        if len(ended):
            result[ended] = self.values(states, ended)  # exact results
        if leaves:
            rows = np.array(leaves)
            if self.rollout == "none" or self.depth == 0:
                result[rows] = np.stack([at[i].value for i in rows])
            else:
                result[rows] = self._rollout(search.plain_copy(states, rows))
        for i in range(count):
            for node, k in paths[i]:
                end_visit(node, k, result[i, node.player], self.virtual)

    def _select(self, node: Node, path: list[tuple[Node, int]]) -> int:
        """Pick an edge at an expanded node and count the visit under way (``virtual``: as a lost visit
        until its value comes back, or only against the exploration term)."""
        k = node.select(self.c, self.widen)
        start_visit(node, k, self.virtual)
        path.append((node, k))
        return int(node.actions[k])

    def _rollout(self, states: State) -> np.ndarray:
        """Play ``depth`` decisions with the rollout policy on every game at once; their values."""
        for _ in range(self.depth):
            running = states.phase != OVER
            if not running.any():
                break
            if self.rollout == "greedy":
                actions = greedy_actions(states, self.rng)
            else:
                actions = engine.sample_legal(states, self.rng)  # sample_uniform's draws, without the masks
            engine.step(states, np.where(running, actions, -1))
        return self.values(states)
