"""The ``puct`` agent (hg_env.agents.puct) and its search network (hg_env.agents.search_net)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hg_env.agents.base import make_agent  # noqa: E402
from hg_env.agents.model_file import load_model, save_model  # noqa: E402
from hg_env.agents.puct import (  # noqa: E402
    NetworkEvaluator,
    Node,
    PUCTAgent,
    SearchSettings,
    default_model,
    merge_roots,
    ppo_model,
    search_trees,
    settled,
)
from hg_env.agents.search_net import SearchNet, network_inputs, rotate_inputs, rotation_tables  # noqa: E402
from hg_env.core import engine, search  # noqa: E402
from hg_env.core.observation import observe, observer  # noqa: E402
from hg_env.core.rules import Rules  # noqa: E402
from hg_env.core.state import OCCUPY, OVER, PLACE  # noqa: E402

# ---------------------------------------------------------------- a tiny synthetic game


class TwoStepGame:
    """Seat 0 picks a row (3 moves), seat 1 a column (2 moves), seat 0 wins PAYOFF[row, column].

    The evaluation after seat 0's move is optimistic (the best column for seat 0), so a one-ply look
    prefers row 0; seat 1 answers every row with its worst column, so row 1 (0.5 guaranteed) is the
    best move, which only the search below the first move finds."""

    PAYOFF = np.array([[0.9, 0.1], [0.6, 0.5], [0.8, 0.2]])
    num_seats = 2

    def start(self, tree: np.ndarray, visit: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.full((len(tree), 2), -1)

    def step(self, positions: np.ndarray, actions: np.ndarray) -> None:
        for i in np.flatnonzero(actions >= 0):
            positions[i, int((positions[i] >= 0).sum())] = actions[i]

    def describe(self, positions: np.ndarray, i: int) -> tuple[tuple, int, bool]:
        depth = int((positions[i] >= 0).sum())
        return (depth,), depth % 2, depth == 2

    def evaluate(self, positions: np.ndarray, rows: np.ndarray, depths: np.ndarray | None = None) -> list:
        out = []
        for i in rows:
            if positions[i, 0] < 0:
                out.append((np.arange(3), np.full(3, 1 / 3), np.array([0.5, 0.5])))
            else:
                best = self.PAYOFF[positions[i, 0]].max()
                out.append((np.arange(2), np.full(2, 0.5), np.array([best, 1 - best])))
        return out

    def outcome(self, positions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        p = self.PAYOFF[positions[rows, 0], positions[rows, 1]]
        return np.stack([p, 1 - p], 1)


def _root(game: TwoStepGame, prior: np.ndarray | None = None) -> Node:
    root = Node(0)
    actions, uniform, value = game.evaluate(np.full((1, 2), -1), np.array([0]))[0]
    root.expand(actions, uniform if prior is None else prior, value)
    return root


def test_search_finds_the_known_best_move_of_a_tiny_game():
    game = TwoStepGame()
    roots = search_trees(game, [_root(game)], SearchSettings(sims=200, c_puct=1.0, batch=4), np.random.default_rng(0))
    root = roots[0]
    assert root.best() == 1  # the one-ply evaluation alone would pick row 0 (0.9)
    assert root.n[1] > root.n[0] and root.n[1] > root.n[2]
    assert root.w[1] / root.n[1] == pytest.approx(0.5, abs=0.05)


def test_qprior_counts_each_move_s_own_value_as_visits():
    """With ``qprior`` a move's one-turn value is its mean before any visit (mcts' prior visit, the
    bias of the visited moves added); without it an unvisited move takes its node's value."""
    node = Node(0)
    node.expand(np.arange(3), np.full(3, 1 / 3), np.array([0.5, 0.5]), move_value=np.array([0.2, 0.7, 0.4]))
    assert node.q() == pytest.approx([0.5, 0.5, 0.5])
    assert node.q(1.0) == pytest.approx([0.2, 0.7, 0.4])
    assert node.select(0.0, 1.0) == 1 and node.select(0.0) == 0  # greedy on values; first of equals
    node.n[1], node.w[1] = 2, 0.6  # mean 0.3: its own value overestimated it by 0.4
    assert node.q(1.0) == pytest.approx([0.2 - 0.4, (0.6 + 0.7 - 0.4) / 3, 0.4 - 0.4])
    assert node.q(2.0)[1] == pytest.approx((0.6 + 2 * (0.7 - 0.4)) / 4)
    assert node.best(1.0) == 1


def test_widen_lets_only_a_node_s_best_moves_compete():
    """``widen`` (mcts' progressive widening): a node with N visits chooses among its
    ``ceil(widen * sqrt(N + 1))`` best moves, ranked by their own values where known, else by prior."""
    node = Node(0)
    node.expand(
        np.arange(4), np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.5, 0.5]), move_value=np.array([0.6, 0.9, 0.1, 0.5])
    )
    assert list(node.ranked) == [1, 0, 3, 2]
    node.n[:] = [3, 3, 0, 0]
    node.w[:] = [1.5, 0.3, 0.0, 0.0]  # move 1 disappointed: mean (0.3 + 0.9 + bias) / 4
    node.total = 6
    bonus = 2.0 * node.prior * np.sqrt(7) / (1.0 + node.n)
    everything = int(np.argmax(node.q(1.0) + bonus))
    assert everything == 3  # the untried move with the largest prior
    assert node.select(2.0, 1.0) == everything
    assert node.select(2.0, 1.0, widen=1.0) == 3  # ceil(sqrt(7)) = 3 compete: moves 1, 0 and 3
    assert node.select(2.0, 1.0, widen=0.5) == 0  # ceil(sqrt(7) / 2) = 2 compete: moves 1 and 0
    by_prior = Node(0)
    by_prior.expand(np.arange(3), np.array([0.2, 0.5, 0.3]), np.array([0.5, 0.5]))
    assert list(by_prior.ranked) == [1, 2, 0]
    assert by_prior.select(1.0, widen=0.5) == 1  # one move competes: the prior's favourite


def test_priors_steer_the_visits():
    """A prior that prefers a move makes the search visit it more (same values)."""
    game = TwoStepGame()
    settings = SearchSettings(sims=30, c_puct=2.0, batch=2)
    flat = search_trees(game, [_root(game)], settings, np.random.default_rng(0))[0]
    leaning = search_trees(game, [_root(game, np.array([0.05, 0.05, 0.9]))], settings, np.random.default_rng(0))[0]
    assert leaning.n[2] > flat.n[2]


def test_a_visit_under_way_counts_only_against_exploration_with_virtual_visit():
    """``virtual="visit"`` (WU-UCT): a simulation under way lowers its move's exploration bonus but
    not its mean, so the simulations of one batch do not take a good move for a lost one."""
    node = Node(0)
    node.expand(np.arange(2), np.full(2, 0.5), np.array([0.5, 0.5]))
    node.n[:] = 4
    node.w[:] = [3.2, 2.0]
    node.pending[0] = 20
    node.total = 28
    assert node.q() == pytest.approx([0.8, 0.5])
    bonus = 0.5 * np.sqrt(29) / np.array([25.0, 5.0])
    assert node.select(1.0) == int(np.argmax(np.array([0.8, 0.5]) + bonus)) == 1
    assert node.select(0.1) == 0  # with little exploration the better mean wins, whatever is under way


def test_virtual_visit_search_finds_the_best_move_and_settles_every_visit():
    game = TwoStepGame()
    settings = SearchSettings(sims=200, c_puct=1.0, batch=16, virtual="visit")
    root = search_trees(game, [_root(game)], settings, np.random.default_rng(0))[0]
    assert root.best() == 1
    assert root.n.sum() == root.total == 200 and not root.pending.any()
    assert root.w[1] / root.n[1] == pytest.approx(0.5, abs=0.05)


def test_a_root_is_settled_when_its_lead_exceeds_the_simulations_left():
    root = Node(0)
    root.expand(np.arange(3), np.full(3, 1 / 3), np.array([0.5, 0.5]))
    root.n[:] = [3, 10, 0]
    assert settled(root, 6) and not settled(root, 7)  # 7 more could all go to move 0: a tie with move 1
    assert settled(root, 0)
    single = Node(0)
    single.expand(np.arange(1), np.ones(1), np.array([0.5, 0.5]))
    assert settled(single, 100)  # one move: nothing to decide


def test_stop_ends_a_search_once_its_choice_cannot_change():
    """``SearchSettings.stop``: a tree stops after the round in which its most visited root move's
    lead passes the simulations left; the move chosen is the one the whole search chooses."""
    game = TwoStepGame()
    full = search_trees(game, [_root(game)], SearchSettings(sims=200, c_puct=1.0, batch=4), np.random.default_rng(0))
    stopped = search_trees(
        game, [_root(game)], SearchSettings(sims=200, c_puct=1.0, batch=4, stop=True), np.random.default_rng(0)
    )
    assert full[0].n.sum() == 200 and stopped[0].n.sum() < 200
    assert stopped[0].best() == full[0].best() == 1
    assert settled(stopped[0], 200 - int(stopped[0].n.sum()))
    visits = stopped[0].n.sum()  # the round before the last had not settled it
    assert not settled(_replay(game, int(visits) - 4), 200 - (int(visits) - 4))


def test_trees_of_one_decision_are_chosen_from_and_stopped_together():
    """Root parallelization: two trees of the same decision (``decisions``) search apart; their merged
    root sums their visits and values, and with ``stop`` they stop together once the summed visits
    are settled against the simulations left to both (never one tree alone)."""
    game = TwoStepGame()
    settings = SearchSettings(sims=100, c_puct=1.0, batch=4)
    trees = search_trees(game, [_root(game), _root(game)], settings, np.random.default_rng(0), np.array([0, 0]))
    merged = merge_roots(trees)
    assert [t.n.sum() for t in trees] == [100, 100] and merged.n.sum() == 200
    assert np.array_equal(merged.n, trees[0].n + trees[1].n) and np.allclose(merged.w, trees[0].w + trees[1].w)
    assert merged.best() == 1 and merged.actions is trees[0].actions
    assert merge_roots(trees[:1]) is trees[0]
    stop = SearchSettings(sims=100, c_puct=1.0, batch=4, stop=True)
    stopped = search_trees(game, [_root(game), _root(game)], stop, np.random.default_rng(0), np.array([0, 0]))
    visits = [int(t.n.sum()) for t in stopped]
    assert visits[0] == visits[1] < 100  # the same rounds: stopped together
    assert settled(merge_roots(stopped), 200 - sum(visits)) and merge_roots(stopped).best() == 1
    apart = search_trees(game, [_root(game), _root(game)], stop, np.random.default_rng(0))  # two decisions
    assert all(settled(t, 100 - int(t.n.sum())) for t in apart)


def _replay(game: TwoStepGame, sims: int) -> Node:
    settings = SearchSettings(sims=sims, c_puct=1.0, batch=4)
    return search_trees(game, [_root(game)], settings, np.random.default_rng(0))[0]


# ---------------------------------------------------------------- the batched core


def _position(decisions: int = 6, seed: int = 3):
    state = engine.new_games(2, Rules(), seeds=[seed], record_events=False)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        engine.step(state, engine.sample_legal(state, rng))
    return state


class PreferAction(torch.nn.Module):
    """A network that adds ``bonus`` to the logit of one action (or to its value)."""

    def __init__(self, net: torch.nn.Module, action: int, bonus: float = 0.0, value: float | None = None) -> None:
        super().__init__()
        self.net, self.action, self.bonus, self.value = net, action, bonus, value
        self.layout, self.lookahead = net.layout, net.lookahead

    def forward(self, obs, legal=None):
        logits, value = self.net(obs, legal)
        logits = logits + self.bonus * (legal == self.action)
        if self.value is not None:
            value = torch.full_like(value, self.value)
        return logits, value


@pytest.fixture(scope="module")
def shipped():
    loaded = load_model(ppo_model("hg2020"))
    return loaded.net, loaded.metadata


def test_the_network_prior_makes_the_search_visit_a_move_more(shipped):
    net, metadata = shipped
    state = _position()
    options = dict(sims=24, deals=4, batch=4)
    plain = PUCTAgent.from_net(net, metadata, seed=0, **options).search(state, np.array([0]))[0]
    least = int(plain.actions[np.argmin(plain.n)])
    biased = PUCTAgent.from_net(PreferAction(net, least, bonus=20.0), metadata, seed=0, **options)
    root = biased.search(state, np.array([0]))[0]
    k = int(np.flatnonzero(root.actions == least)[0])
    assert root.n[k] > plain.n[np.argmin(plain.n)]
    assert root.prior[k] > 0.9


def test_the_network_value_is_the_leaf_value(shipped):
    net, metadata = shipped
    state = _position()
    copy = search.plain_copy(state)
    search.redeal(copy, np.random.default_rng(0))
    mover = int(state.current[0])
    for value, expected in ((1000.0, 1.0), (-1000.0, 0.0)):
        evaluator = NetworkEvaluator(PreferAction(net, -1, value=value), metadata, mix=0.0, scale=40.0)
        ((legal, prior, vector, move_value),) = evaluator(copy, np.array([0]))
        assert move_value.shape == legal.shape and 0.0 < move_value.max() < 1.0  # the lookahead's, not the net's
        assert vector[mover] == pytest.approx(expected, abs=1e-6)
        assert vector[1 - mover] == pytest.approx(1 - expected, abs=1e-6)
        assert prior.sum() == pytest.approx(1.0)


class CountRows(torch.nn.Module):
    """A search network that counts the positions its forward pass evaluates."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.net, self.rows = net, 0
        self.layout, self.lookahead, self.linear_value = net.layout, net.lookahead, net.linear_value

    def forward(self, obs, legal=None):
        self.rows += len(legal)
        return self.net(obs, legal)


def test_below_net_depth_leaves_take_lookahead_priors_and_the_linear_value_without_a_forward_pass():
    loaded = load_model(default_model("hg2020"))
    net, metadata = loaded.net.eval(), loaded.metadata
    state = _position()
    counted = {}
    for net_depth in (0, 1):
        counter = CountRows(net)
        agent = PUCTAgent.from_net(counter, metadata, seed=0, sims=24, deals=4, batch=4, net_depth=net_depth)
        root = agent.search(state, np.array([0]))[0]
        assert root.n.sum() == 24
        counted[net_depth] = counter.rows
    assert counted[1] == 1 < counted[0]  # with net_depth=1 only the root is forwarded
    copy = search.plain_copy(state)
    search.redeal(copy, np.random.default_rng(0))
    evaluator = NetworkEvaluator(net, metadata, mix=0.5, scale=40.0, net_depth=1, beta=0.3)
    ((legal, prior_net, value_net, _),) = evaluator(copy, np.array([0]))
    ((legal_deep, prior, value, _),) = evaluator(copy, np.array([0]), np.array([1]))
    assert np.array_equal(legal, legal_deep)
    gains = network_inputs(copy, np.array([0]), board=False)["lookahead"][0][:, legal]
    expected = np.exp(0.3 * (gains[0] - gains[1]) - (0.3 * (gains[0] - gains[1])).max())
    assert prior == pytest.approx(expected / expected.sum())
    assert not np.allclose(prior, prior_net)
    assert not net.value_head.weight.any()  # the shipped value is its skip: the linear value is the same
    assert value == pytest.approx(value_net, abs=1e-6)


def test_the_occupant_decision_continues_the_subtree_of_the_placement_before_it():
    agent = make_agent("puct:sims=16,deals=2,batch=4,reuse=1", seed=0)
    state, rng = _position(8), np.random.default_rng(0)
    for _ in range(20):  # the first placement of the agent that leaves it an occupant to choose
        if state.phase[0] == PLACE:
            action = agent.act_batch(None, engine.legal_action_mask(state), state)
            if agent._kept:
                break
        engine.step(state, engine.sample_legal(state, rng))
    other = make_agent("puct:sims=16,deals=2,batch=4,reuse=0", seed=0)
    other.act_batch(None, engine.legal_action_mask(state), state)
    assert not other._kept  # reuse=0 keeps nothing
    (kept,) = agent._kept.values()
    engine.step(state, action)
    assert state.current[0] == kept.player and state.phase[0] != PLACE
    carried = int(kept.n.sum())
    assert 0 < carried < 16
    elsewhere = agent.search(_position(9), np.array([0]))[0]  # another game's decision: searched afresh
    assert elsewhere is not kept and not agent._kept
    agent._kept = {search.position_key(state, 0): kept}
    root = agent.search(state, np.array([0]))[0]
    assert root is kept and root.n.sum() == 16  # the carried visits count toward sims
    assert np.array_equal(root.actions, np.flatnonzero(engine.legal_action_mask(state)[0]))


def test_puct_plays_legal_moves_with_the_shipped_model_by_default():
    agent = make_agent("puct:sims=8,deals=2,batch=4", seed=1)
    state = engine.new_games(2, Rules(), seeds=[0, 1, 2], record_events=False)
    for _ in range(3):  # placements, then occupant choices (one batched search over the three games)
        masks = engine.legal_action_mask(state)
        actions = agent.act_batch(None, masks, state)
        assert masks[np.arange(3), actions].all()
        engine.step(state, actions)
    finished = np.zeros((1, masks.shape[1]), dtype=bool)
    assert agent.act_batch(None, finished, state.take(np.array([0])))[0] == -1
    with pytest.raises(ValueError, match="needs the batched state"):
        agent.act_batch(None, masks, None)


@pytest.mark.parametrize(
    "options", ["virtual=loss", "virtual=visit", "net_depth=1", "qprior=1,widen=1", "stop=1", "draws=3", "trees=2"]
)
def test_puct_is_deterministic_given_its_seed(options):
    state = _position(9)
    results = []
    for _ in range(2):
        agent = make_agent(f"puct:sims=16,deals=3,batch=4,temperature=1,{options}", seed=7)
        root = agent.search(state, np.array([0]))[0]
        results.append(
            (
                root.actions.copy(),
                root.n.copy(),
                root.w.copy(),
                agent.act_batch(None, engine.legal_action_mask(state), state)[0],
            )
        )
    (a1, n1, w1, x1), (a2, n2, w2, x2) = results
    assert np.array_equal(a1, a2) and np.array_equal(n1, n2) and np.array_equal(w1, w2) and x1 == x2


@pytest.mark.parametrize("options", ["", ",net_depth=1", ",draws=3", ",trees=2"])
def test_puct_never_reads_the_undrawn_order(options):
    state = _position(8)
    other = search.plain_copy(state)
    nxt, length = int(other.regular_next[0]), int(other.regular_len[0])
    rest = other.regular_deck[0, nxt:length].copy()
    other.regular_deck[0, nxt:length] = rest[::-1]  # the same tiles still to come, another order
    assert not np.array_equal(other.regular_deck, state.regular_deck)
    agent_spec = f"puct:sims=16,deals=2,batch=4{options}"
    roots = [make_agent(agent_spec, seed=5).search(s, np.array([0]))[0] for s in (state, other)]
    assert np.array_equal(roots[0].n, roots[1].n) and np.array_equal(roots[0].w, roots[1].w)
    assert roots[0].best() == roots[1].best()


def test_draws_average_the_lookahead_value_of_a_leaf_on_a_drawn_tile():
    """``draws=4``: a leaf on a tile just drawn takes the mean of the lookahead's value over its own draw
    and three redrawn ones (``search.redraw`` with the evaluator's generator), mixed with the network's
    value of its own draw; its moves and priors stay its own tile's. A leaf on an occupant decision, and
    a root (evaluated without depths), are valued as with one draw."""
    state = engine.new_games(2, Rules(), seeds=[3, 4], record_events=False)
    rng = np.random.default_rng(0)
    while set(state.phase.tolist()) != {PLACE, OCCUPY}:  # one game placing, the other on its occupant
        engine.step(state, engine.sample_legal(state, rng))
    loaded = load_model(default_model("hg2020"))
    one = NetworkEvaluator(loaded.net, loaded.metadata, mix=0.5, scale=40.0)
    four = NetworkEvaluator(loaded.net, loaded.metadata, mix=0.5, scale=40.0, draws=4, rng=np.random.default_rng(1))
    rows, depths = np.array([0, 1]), np.array([2, 2])
    plain, drawn = one(state, rows, depths), four(state, rows, depths)
    place = int(np.flatnonzero(state.phase == PLACE)[0])
    copies = search.plain_copy(state, np.full(3, place))
    search.redraw(copies, np.arange(3), np.random.default_rng(1))  # the draws the evaluator made
    assert len({*copies.tile_to_place.tolist(), int(state.tile_to_place[place])}) > 1
    others = network_inputs(copies, np.arange(3), searchnet=False, board=False)["heuristic"]
    own = network_inputs(state, rows, board=False)["heuristic"][place]
    mover = int(state.current[place])
    net_value = 2 * plain[place][2][mover] - own[mover]  # one draw, mix 0.5: (net + lookahead) / 2
    mean = (own[mover] + others[:, mover].sum()) / 4
    assert drawn[place][2][mover] == pytest.approx((net_value + mean) / 2)
    assert drawn[place][2][mover] != pytest.approx(plain[place][2][mover])
    assert np.array_equal(drawn[place][0], plain[place][0]) and np.allclose(drawn[place][1], plain[place][1])
    assert np.allclose(drawn[1 - place][2], plain[1 - place][2])
    roots = four(state, rows)
    assert all(np.allclose(a[2], b[2]) for a, b in zip(roots, plain))
    with pytest.raises(ValueError, match="needs a generator"):
        NetworkEvaluator(loaded.net, loaded.metadata, mix=0.5, scale=40.0, draws=2)


def test_widened_search_visits_only_the_root_s_best_moves_by_their_one_turn_values():
    """With ``widen=1`` a root's 16th simulation chooses among its ceil(sqrt(16)) = 4 best moves, so
    no other move is ever visited; the ranking is the moves' one-turn values (``qprior``)."""
    state = _position(10)  # a placement: 13 moves
    root = make_agent("puct:sims=16,deals=2,batch=4,qprior=1,widen=1", seed=3).search(state, np.array([0]))[0]
    assert len(root.actions) > 4 and root.n.sum() == 16
    assert set(np.flatnonzero(root.n)) <= set(root.ranked[:4])
    assert root.move_value[root.ranked[0]] == root.move_value.max()


def test_trees_search_a_decision_on_deals_of_their_own_and_sum_their_visits(monkeypatch):
    """``trees=3``: three trees of ``sims`` each on the core, each on its own deals (so they differ),
    merged into the root whose summed visits choose the move; one tree's search is the default's."""
    state = _position(10)
    agent = make_agent("puct:sims=16,deals=2,batch=4,trees=3", seed=3)
    seen = []
    original = search_trees

    def spy(game, roots, settings, rng, decisions=None):
        seen.append((game.dealt.regular_deck.copy(), decisions))
        out = original(game, roots, settings, rng, decisions)
        seen.append([(r.n.copy(), r.w.copy()) for r in roots])
        return out

    monkeypatch.setattr("hg_env.agents.puct.search_trees", spy)
    root = agent.search(state, np.array([0]))[0]
    (decks, decisions), visits = seen
    assert list(decisions) == [0, 0, 0] and len(decks) == 3 * 2  # tree t's deal j: row t * deals + j
    assert not np.array_equal(decks[0], decks[2]) and not np.array_equal(decks[2], decks[4])
    assert [int(n.sum()) for n, _ in visits] == [16, 16, 16]
    assert not np.allclose(visits[0][1], visits[1][1])  # other deals, other values
    assert np.array_equal(root.n, sum(n for n, _ in visits)) and root.n.sum() == 48
    assert np.allclose(root.w, sum(w for _, w in visits))
    one = make_agent("puct:sims=16,deals=2,batch=4,trees=1", seed=3).search(state, np.array([0]))[0]
    default = make_agent("puct:sims=16,deals=2,batch=4", seed=3).search(state, np.array([0]))[0]
    assert np.array_equal(one.n, default.n) and np.array_equal(one.w, default.w)


def test_stop_plays_the_moves_of_the_whole_search_with_fewer_simulations():
    """``stop=1`` on the core: over a game's first decisions the same moves as without it (the
    deals are drawn up front, so stopping early leaves the agent's generator where it was), at
    fewer root visits in all."""
    state = _position(4)
    agents = [make_agent(f"puct:sims=64,deals=4,batch=8,qprior=1,c_puct=0.1,stop={s}", seed=2) for s in (0, 1)]
    visits = [0, 0]
    for _ in range(6):
        masks = engine.legal_action_mask(state)
        moves = []
        for i, agent in enumerate(agents):
            root = agent.search(state, np.array([0]), masks)[0]
            visits[i] += int(root.n.sum())
            moves.append(agent.act_batch(None, masks, state)[0])
        assert moves[0] == moves[1]
        engine.step(state, np.array(moves[:1]))
    assert visits[1] < visits[0]


def test_puct_refuses_bad_options_and_another_rulesets_model():
    with pytest.raises(ValueError, match="mix"):
        make_agent("puct:mix=2")
    with pytest.raises(ValueError, match="sims"):
        make_agent("puct:sims=0")
    with pytest.raises(ValueError, match="qprior"):
        make_agent("puct:qprior=-1")
    with pytest.raises(ValueError, match="net_depth"):
        make_agent("puct:net_depth=-1")
    with pytest.raises(ValueError, match="widen"):
        make_agent("puct:widen=-1")
    with pytest.raises(ValueError, match="reuse must be 0 or 1"):
        make_agent("puct:reuse=2")
    with pytest.raises(ValueError, match="stop must be 0 or 1"):
        make_agent("puct:stop=2")
    with pytest.raises(ValueError, match="virtual must be one of loss, visit"):
        make_agent("puct:virtual=win")
    with pytest.raises(ValueError, match="look_scale"):
        make_agent("puct:look_scale=0")
    with pytest.raises(ValueError, match="trees"):
        make_agent("puct:trees=0")
    with pytest.raises(ValueError, match="reuse=1 continues one tree"):
        make_agent("puct:trees=2,reuse=1")
    agent = make_agent(f"puct:path={default_model('hg2002')},sims=2")
    state = engine.new_games(2, Rules(), seeds=[0], record_events=False)
    with pytest.raises(ValueError, match="plays 'hg2002', not 'hg2020'"):
        agent.act_batch(None, engine.legal_action_mask(state), state)


# ---------------------------------------------------------------- the search network


def test_searchnet_starts_from_the_ppo_policy_and_round_trips_through_a_model_file(shipped, tmp_path):
    net, metadata = shipped
    kwargs = metadata["net_kwargs"]
    searchnet = SearchNet.from_boardnet(net, kwargs).eval()
    state = _position(5)
    copy = search.plain_copy(state)
    search.redeal(copy, np.random.default_rng(0))
    inputs = network_inputs(copy, np.array([0]))
    assert inputs["score_now"].shape == (1, 4)
    tensors = {k: torch.as_tensor(inputs[k]) for k in ("board", "lookahead", "estimate", "score_now")}
    legal = torch.as_tensor(inputs["legal_padded"])
    with torch.no_grad():
        logits, out = searchnet(tensors, legal)
        ppo_logits, _ = net({k: tensors[k] for k in ("board", "lookahead", "estimate")}, legal)
    assert torch.equal(logits, ppo_logits) and out.shape == (1, 2)
    path = tmp_path / "search.zip"
    save_model(path, searchnet, kind="searchnet", net_kwargs=kwargs, ruleset="hg2020", board_reach=12)
    loaded = load_model(path)
    assert isinstance(loaded.net, SearchNet) and loaded.metadata["kind"] == "searchnet"
    with torch.no_grad():
        again = loaded.net(tensors, legal)
    assert torch.equal(again[0], logits) and torch.equal(again[1], out)
    agent = make_agent(f"puct:path={path},sims=4,deals=1,batch=2", seed=0)
    mask = engine.legal_action_mask(state)
    assert mask[0, agent.act_batch(None, mask, state)[0]]
    policy = make_agent(f"policy:path={path}", seed=0)  # its policy head alone, without score_now
    board = observe(state, np.array([0]), state.current[:1])
    assert mask[0, policy.act_batch(board, mask, state)[0]]


def test_a_fresh_value_head_starts_as_the_lookahead_s_logistic_of_the_estimated_lead(shipped):
    """The value skip (agents/search_net.py): with the learned part silent, the win logit is the
    estimated lead over 40 points and the margin that lead / 100, as mcts' leaf value at the start."""
    net, metadata = shipped
    searchnet = SearchNet.from_boardnet(net, metadata["net_kwargs"]).eval()
    torch.nn.init.zeros_(searchnet.value_head.weight)
    state = _position(5)
    copy = search.plain_copy(state)
    search.redeal(copy, np.random.default_rng(0))
    inputs = network_inputs(copy, np.array([0]))
    tensors = {k: torch.as_tensor(inputs[k]) for k in ("board", "lookahead", "estimate", "score_now")}
    with torch.no_grad():
        _, out = searchnet(tensors, torch.as_tensor(inputs["legal_padded"]))
    lead = float(inputs["estimate"][0, 0] - inputs["estimate"][0, 1])
    assert out[0, 0].item() == pytest.approx(lead / 40, abs=1e-4)
    assert out[0, 1].item() == pytest.approx(lead / 100, abs=1e-5)


def test_look_scale_is_the_spread_of_the_lookahead_s_win_values():
    """``look_scale``: the lookahead's leaf value and move values are ``search.win_transform`` of the
    same estimates at that spread (10 by default), so a wider spread keeps the order of the moves and
    brings every value towards a half."""
    state = _position(12)
    copy = search.plain_copy(state)
    search.redeal(copy, np.random.default_rng(0))
    sharp = network_inputs(copy, np.array([0]), board=False)
    default = network_inputs(copy, np.array([0]), board=False, look_scale=10.0)
    wide = network_inputs(copy, np.array([0]), board=False, look_scale=40.0)
    assert np.array_equal(sharp["move_value"][0], default["move_value"][0])
    left = search.tiles_left(copy)[0] / search.regular_deck_size(copy)
    spread = (1.0 + 2.0 * left) / 3.0  # the share of look_scale at this point of the game
    odds = {scale: np.log(v / (1 - v)) for scale, v in ((10, sharp["move_value"][0]), (40, wide["move_value"][0]))}
    assert np.allclose(odds[40], odds[10] / 4, atol=1e-9)  # a two-player value: the logistic of lead / spread
    assert np.abs(odds[10]).max() * 10 * spread > 1  # some move's estimated lead is over a point
    mover = int(copy.current[0])
    assert abs(wide["heuristic"][0, mover] - 0.5) <= abs(sharp["heuristic"][0, mover] - 0.5)
    assert np.array_equal(wide["legal"][0], sharp["legal"][0])


def test_rotation_turns_the_board_sides_and_actions_together():
    ob = observer("hg2020")
    state = _position(12)
    copy = search.plain_copy(state)
    search.redeal(copy, np.random.default_rng(0))
    inputs = network_inputs(copy, np.array([0]), searchnet=False)
    board, gains, legal = inputs["board"], inputs["lookahead"], inputs["legal_padded"]
    ch = {name: i for i, name in enumerate(ob.board_channels)}
    sides = [ch[f"{d}_{t}"] for d in "NESW" for t in ("meadow", "forest", "river")]
    turned, turned_gains, turned_legal = rotate_inputs(board, gains, legal, 1, "hg2020")
    # every tile shows the sides of its rotation + 1 where its cell went
    tile_id, rots = turned[0, ch["tile_id"]], turned[0, ch["rot0"] : ch["rot3"] + 1]
    for y, x in zip(*np.nonzero(tile_id)):
        r = int(np.argmax(rots[:, y, x]))
        expected = ob.static[(int(tile_id[y, x]) - 1) * 4 + r][6:18]
        assert np.array_equal(turned[0, sides, y, x], expected)
    assert turned[0, ch["tile"]].sum() == board[0, ch["tile"]].sum()
    # the legal rotation planes and the turned legal placements agree
    n = 625
    planes = turned[0, ch["legal_r0"] : ch["legal_r3"] + 1].reshape(4, n)
    placed = turned_legal[0][turned_legal[0] < 4 * n]
    assert planes[placed % 4, placed // 4].all() and planes.sum() == len(placed)
    assert np.array_equal(turned_gains[0][:, turned_legal[0]], gains[0][:, legal[0]])
    # info planes stay, four turns are none
    c = len(ob.board_channels)
    assert np.array_equal(turned[0, c:], board[0, c:])
    back = rotate_inputs(board, gains, legal, 4, "hg2020")
    assert all(np.array_equal(a, b) for a, b in zip(back, (board, gains, legal)))
    _, actions = rotation_tables("hg2020", 12)
    assert np.array_equal(np.sort(actions), np.arange(len(actions)))  # a permutation


def test_score_now_counts_the_final_scoring_without_ending_the_game():
    state = _position(40)
    copy = search.plain_copy(state)
    inputs = network_inputs(copy, np.array([0]))
    assert copy.phase[0] != OVER
    own, opponents, own_end, opponents_end = inputs["score_now"][0]
    mover = int(state.current[0])
    assert own == state.score[0, mover]
    assert own_end >= own and opponents_end >= opponents  # final scoring only adds points
