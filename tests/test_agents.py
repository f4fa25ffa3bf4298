"""Agents: spec strings, legal play over seeded games, hidden information, the search helpers."""

from __future__ import annotations

import numpy as np
import pytest

from hg_env.agents.base import make_agent, resolved_options
from hg_env.agents.greedy import GreedyAgent, greedy_actions
from hg_env.agents.mcts import MCTSAgent, Node
from hg_env.core import engine, search
from hg_env.core.rules import Rules
from hg_env.core.ruleset import get_ruleset
from hg_env.core.state import OCCUPY, OVER, PLACE
from hg_env.game import Game
from tests.invariants import check_tiles


def play(specs: list[str], seed: int) -> Game:
    """One game between agents built from specs; engine.step rejects any illegal action."""
    agents = [make_agent(spec, seed=100 * seed + seat) for seat, spec in enumerate(specs)]
    game = Game(num_players=len(specs), seed=seed)
    while not game.is_over:
        mask = game.action_mask()
        action = agents[game.current_player].act(None, mask.copy(), game)
        assert mask[action], f"{specs[game.current_player]} chose illegal {game.describe(action)}"
        game.step(action)
    return game


def test_specs_build_agents_with_options() -> None:
    mcts = make_agent("mcts:sims=200,c=1.4,rollout=greedy,depth=4", seed=1)
    assert isinstance(mcts, MCTSAgent)
    assert (mcts.sims, mcts.c, mcts.rollout, mcts.depth) == (200, 1.4, "greedy", 4)
    assert mcts.spec == "mcts:sims=200,c=1.4,rollout=greedy,depth=4"
    assert isinstance(make_agent("greedy"), GreedyAgent)
    with pytest.raises(ValueError, match="rollout must be one of"):
        make_agent("mcts:rollout=smart")
    with pytest.raises(ValueError, match="sims must be >= 1"):
        make_agent("mcts:sims=0")
    with pytest.raises(ValueError, match="has no option 'depht'"):
        make_agent("mcts:depht=3")
    with pytest.raises(ValueError, match="unknown agent 'greeedy'"):
        make_agent("greeedy")


def test_resolved_options_are_the_specs_and_the_defaults_without_the_model_path() -> None:
    """What the ladder pins: every option an agent plays with, whether its spec sets it or not."""
    options = resolved_options("mcts:sims=16,rollout=greedy")
    assert options == {**resolved_options("mcts"), "sims": 16, "rollout": "greedy"}
    assert options["agent"] == "mcts" and options["c"] == MCTSAgent().c  # a default, as the agent has it
    assert resolved_options("policy:path=any/where.zip,ruleset=hg2002") == {
        "agent": "policy",
        "deterministic": True,
        "ruleset": "hg2002",
    }
    assert resolved_options("random") == {"agent": "random"}
    assert resolved_options("mcts:time=inf")["time"] == "inf"  # JSON has no infinity
    with pytest.raises(ValueError, match="has no option 'depht'"):
        resolved_options("mcts:depht=3")


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_and_greedy_play_only_legal_actions(num_players: int) -> None:
    for seed in range(2):
        specs = ["greedy", "random"] * 3
        game = play(specs[:num_players], seed=10 * num_players + seed)
        assert game.is_over and len(game.scores) == num_players


@pytest.mark.parametrize("num_players", [2, 3])
def test_mcts_plays_only_legal_actions(num_players: int) -> None:
    specs = ["mcts:sims=3,batch=2", "greedy", "mcts:sims=2,rollout=random,depth=3"]
    assert play(specs[:num_players], seed=7).is_over


def test_mcts_virtual_visit_keeps_the_means_of_edges_under_way() -> None:
    """``virtual=visit``: a visit under way lowers its edge's exploration bonus, not its mean; after a
    search every visit has come back (all root visits counted, none pending)."""
    node = Node(0)
    node.expand(np.arange(2), np.array([[0.6, 0.4], [0.5, 0.5]]))
    node.n[:] = 4
    node.w[:] = [2.4, 2.0]
    node.pending[0] = 30
    node.total = 38
    assert node.means() == pytest.approx([0.6, 0.5])  # (w + prior + bias) / (n + 1), bias 0
    assert node.select(0.01, 2.0) == 0  # little exploration: the better mean, whatever is under way
    assert node.select(1.0, 2.0) == 1  # the pending visits did lower edge 0's bonus

    game = Game(num_players=2, seed=4)
    driver = make_agent("greedy", seed=0)
    for _ in range(6):
        game.step(driver.act(None, game.action_mask(), game))
    agent = make_agent("mcts:sims=96,batch=32,virtual=visit", seed=2)
    action, root, _ = agent._search(game.state, 0, {})
    assert game.action_mask()[action]
    assert root.n.sum() == root.total == 96 and not root.pending.any()
    with pytest.raises(ValueError, match="virtual must be one of loss, visit"):
        make_agent("mcts:virtual=win")


def test_mcts_reuses_its_occupant_subtree_only_after_its_own_placement() -> None:
    """mcts keeps the subtree below its placement for the occupant decision that follows, under the
    key of the position that placement leads to: after another placement (one a player other than the
    agent chose, as in ``hgenv bench agents``, which asks every agent the first one's positions) it
    searches afresh instead of reusing moves that belong to another position."""
    game = Game(num_players=2, seed=4)
    driver = make_agent("greedy", seed=0)
    agent = make_agent("mcts:sims=48", seed=1)
    while True:  # a placement after which mcts keeps a subtree, and another placement that needs an occupant
        if game.phase == "place":
            action = agent.act(None, game.action_mask(), game)
            others = [a for a in game.legal_actions() if a != action and _occupant_follows(game, a)]
            if agent._kept and others:
                break
        game.step(driver.act(None, game.action_mask(), game))
    (kept,) = agent._kept.values()
    own, other = game.copy(), game.copy()
    own.step(action)
    other.step(others[0])
    assert agent._search(own.state, 0, agent._kept)[1] is kept  # continued, not started afresh
    assert agent._search(other.state, 0, {search.position_key(own.state, 0): kept})[1] is not kept
    assert other.action_mask()[agent.act(None, other.action_mask(), other)]  # a fresh search, legal


def test_mcts_deciding_many_games_at_once_reuses_each_games_subtree() -> None:
    """act_batch keeps a subtree per game (by its position key): each game's occupant decision continues
    the search of its placement, as in a game played alone (``hgenv tournament --at-once``)."""
    state = engine.new_games(2, Rules(), seeds=list(range(6)), record_events=False)
    agent = make_agent("mcts:sims=24,deals=2", seed=0)
    actions = agent.act_batch(None, engine.legal_action_mask(state), state)
    kept = dict(agent._kept)
    engine.step(state, actions)
    occupying = np.flatnonzero(state.phase == OCCUPY)
    assert len(kept) == len(occupying) >= 2  # one subtree per game whose placement leaves an occupant to choose
    searched, search_one = {}, agent._search
    agent._search = lambda state, game, kept: searched.setdefault(game, search_one(state, game, kept))
    agent.act_batch(None, engine.legal_action_mask(state), state)
    for game in occupying:
        node = kept[search.position_key(state, int(game))]
        assert searched[game][1] is node and node.n.sum() > agent.sims  # continued: its visits carried over


def _occupant_follows(game: Game, action: int) -> bool:
    after = game.copy()
    after.step(action)
    return after.phase == "occupy" and after.current_player == game.current_player


def test_mcts_greedy_rollouts_play_legally() -> None:
    assert play(["mcts:sims=2,rollout=greedy,depth=2", "random"], seed=3).is_over


def test_greedy_beats_random_on_paired_decks() -> None:
    for seed in range(2):
        assert play(["greedy", "random"], seed).winners == [0]
        assert play(["random", "greedy"], seed).winners == [1]


def test_greedy_act_batch_plays_many_games_at_once() -> None:
    state = engine.new_games(3, seeds=list(range(6)), record_events=False)
    agent = make_agent("greedy", seed=0)
    while (state.phase != OVER).any():
        mask = engine.legal_action_mask(state)
        actions = agent.act_batch(None, mask, state)
        assert ((actions == -1) == ~mask.any(1)).all()
        engine.step(state, actions)  # raises on an illegal action
    assert (state.score[:, :3] > 0).all()


def test_greedy_with_opponents_weight_maximises_own_minus_opponents_gain() -> None:
    """greedy:opponents=w picks the move with the largest own gain - w * opponents' mean gain."""
    state = engine.new_games(3, seeds=list(range(4)), record_events=False)
    rng = np.random.default_rng(0)
    for _ in range(60):
        engine.step(state, greedy_actions(state, rng))
        gains, _ = search.lookahead_features(state, np.random.default_rng(9))
        choice = greedy_actions(state, np.random.default_rng(9), opponent_weight=0.75)
        value = np.where(engine.legal_action_mask(state), gains[:, 0] - 0.75 * gains[:, 1], -np.inf)
        np.testing.assert_allclose(value[np.arange(4), choice], value.max(1), rtol=1e-5, atol=1e-4)
    assert make_agent("greedy:opponents=0.75").opponent_weight == 0.75
    with pytest.raises(ValueError, match="opponents must be a number >= 0"):
        make_agent("greedy:opponents=-1")


def _game_after(seed: int, moves: int, regular_deck=None, menhir_deck=None) -> Game:
    game = Game(2, seed=seed, regular_deck=regular_deck, menhir_deck=menhir_deck)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        game.step(int(greedy_actions(game.state, rng)[0]))
    return game


def _same_past_other_future(game: Game, seed: int) -> Game:
    """The same game so far (same tiles drawn, same decisions) with the undrawn tiles in another order."""
    s, rng = game.state, np.random.default_rng(seed)
    decks = []
    for deck, nxt, n in ((s.regular_deck, s.regular_next, s.regular_len), (s.extra_deck, s.extra_next, s.extra_len)):
        drawn, rest = deck[0, : nxt[0]].tolist(), deck[0, nxt[0] : n[0]].tolist()
        decks.append(drawn + rng.permutation(rest).tolist())
    other = Game(2, seed=None, regular_deck=decks[0], menhir_deck=decks[1])
    for action in game.history:
        other.step(action)
    assert other.state.regular_deck[0].tolist() != game.state.regular_deck[0].tolist()
    return other


def test_redeal_changes_only_the_hidden_order() -> None:
    game = _game_after(seed=4, moves=50)
    state = search.plain_copy(game.state)
    before = state.copy()
    search.redeal(state, np.random.default_rng(0))
    check_tiles(state, 0)
    nxt, mnxt = int(state.regular_next[0]), int(state.extra_next[0])
    assert state.regular_deck[0, :nxt].tolist() == before.regular_deck[0, :nxt].tolist()
    assert state.extra_deck[0, :mnxt].tolist() == before.extra_deck[0, :mnxt].tolist()
    regular, menhir = search.hidden_tiles(before, 0)
    assert sorted(state.regular_deck[0, nxt:78].tolist()) == regular.tolist()
    assert sorted(state.extra_deck[0, mnxt:16].tolist()) == menhir.tolist()
    assert state.regular_deck[0].tolist() != before.regular_deck[0].tolist()
    for name in ("board_tile", "score", "supply", "occupant_seat", "tile_to_place", "phase"):
        assert np.array_equal(getattr(state, name), getattr(before, name)), name


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_redraw_draws_the_tile_to_place_again_from_the_unseen_tiles(ruleset: str) -> None:
    """``search.redraw``: a game on a tile just drawn puts it back and draws again by the rules from the
    tiles it cannot see (in an extra-tile turn, from its extra deck); the board, the scores and the seat
    to move stay. A game on another decision is left as it was."""
    rng = np.random.default_rng(0)
    state = engine.new_games(2, Rules(ruleset=ruleset), seeds=list(range(96)), record_events=False)
    for step in range(200):  # until some game is in an extra-tile turn (Carcassonne has none)
        engine.step(state, engine.sample_legal(state, rng))
        if step >= 40 and ((state.extra_turn & (state.phase == PLACE)).any() or ruleset == "carcassonne"):
            break
    before = search.plain_copy(state)
    drawn = search.redraw(state, np.arange(96), rng)
    assert np.array_equal(drawn, np.flatnonzero(before.phase == PLACE)) and 0 < len(drawn) < 96
    for name in ("board_tile", "score", "supply", "current", "phase", "extra_turn", "occupant_seat"):
        assert np.array_equal(getattr(state, name), getattr(before, name)), name
    left = np.setdiff1d(np.arange(96), drawn)
    for name in ("tile_to_place", "regular_deck", "regular_next", "extra_deck", "extra_next", "discarded"):
        assert np.array_equal(getattr(state, name)[left], getattr(before, name)[left]), name
    mask = engine.legal_action_mask(state)
    for g in drawn:
        check_tiles(state, int(g))
        regular, extra = search.hidden_tiles(before, int(g))
        pool = extra if before.extra_turn[g] else regular
        assert state.tile_to_place[g] in {*pool.tolist(), int(before.tile_to_place[g])}
        assert mask[g].any()
    assert (state.tile_to_place[drawn] != before.tile_to_place[drawn]).mean() > 0.5
    assert before.extra_turn[drawn].any() == (ruleset != "carcassonne")  # a menhir or gold tile's extra turn


@pytest.mark.parametrize("spec", ["greedy", "mcts:sims=6,batch=3"])
def test_search_agents_never_read_the_hidden_deck_order(spec: str) -> None:
    for moves in (30, 31):  # two consecutive decisions
        game = _game_after(seed=5, moves=moves)
        other = _same_past_other_future(game, seed=1)
        first = make_agent(spec, seed=9).act(None, game.action_mask(), game)
        second = make_agent(spec, seed=9).act(None, other.action_mask(), other)
        assert first == second


def test_estimate_is_the_score_once_the_game_is_over() -> None:
    game = play(["greedy", "random"], seed=2)
    est = search.estimated_final_scores(game.state)[0, :2]
    assert est.tolist() == game.scores
    values = search.win_values(game.state)[0, :2]
    assert values.tolist() == [1.0, 0.0]


def _stepped_values(state, action: int, actor: int) -> np.ndarray:
    """Reference for turn_lookahead: step the action, then every occupant, keep the actor's best."""
    copy = search.plain_copy(state)
    engine.step(copy, [action])
    if copy.phase[0] != OCCUPY or copy.current[0] != actor:
        return search.estimated_final_scores(copy)[0]
    options = [search.plain_copy(copy) for _ in np.flatnonzero(engine.legal_action_mask(copy)[0])]
    for option, occupant in zip(options, np.flatnonzero(engine.legal_action_mask(copy)[0])):
        engine.step(option, [occupant])
    return max((search.estimated_final_scores(o)[0] for o in options), key=lambda v: v[actor])


@pytest.mark.parametrize(("seed", "moves"), [(6, 20), (7, 90), (8, 140)])
def test_turn_lookahead_placements_match_stepping_every_occupant(seed: int, moves: int) -> None:
    game = _game_after(seed=seed, moves=moves)
    if game.phase != "place":
        game.step(int(greedy_actions(game.state, np.random.default_rng(0))[0]))
    assert game.phase == "place"
    state = search.plain_copy(game.state)
    _, actions, values = search.turn_lookahead(state)
    assert sorted(actions.tolist()) == game.legal_actions()
    for action, value in zip(actions, values):
        assert np.allclose(_stepped_values(state, int(action), game.current_player), value)


def test_turn_lookahead_values_each_action_by_stepping_it() -> None:
    game = _game_after(seed=6, moves=21)
    assert game.phase == "occupy"
    state = search.plain_copy(game.state)
    games, actions, values = search.turn_lookahead(state)
    assert sorted(actions.tolist()) == game.legal_actions() and (games == 0).all()
    for action, value in zip(actions, values):
        copy = search.plain_copy(state)
        engine.step(copy, [action])
        assert np.allclose(search.estimated_final_scores(copy)[0], value)


@pytest.mark.slow
def test_agents_play_only_legal_actions_over_many_games() -> None:
    for seed in range(40):
        num_players = 2 + seed % 4
        specs = ["greedy", "random", "greedy", "random", "greedy"][:num_players]
        play(specs[seed % 2 :] + specs[: seed % 2], seed=1000 + seed)
    for seed in range(4):
        play(["mcts:sims=16", "greedy", "random"][: 2 + seed % 2], seed=2000 + seed)


@pytest.mark.parametrize(("reach", "moves"), [(12, 70), (2, 30)])
def test_hole_factors_match_a_plain_loop(reach: int, moves: int) -> None:
    """Each open forest/river side scales its area by min(1, tiles still to come that fit its hole / HOLE_FITS)."""
    from hg_env.core.tiles import ENCLOSURE, PATH

    tiles = get_ruleset("hg2020").tiles
    COMPAT, SIDE_TYPE, SIDE_ZONES, TILE_KIND = tiles.COMPAT, tiles.SIDE_TYPE, tiles.SIDE_ZONES, tiles.TILE_KIND

    game = Game(2, seed=11, board_reach=reach)
    rng = np.random.default_rng(0)
    for _ in range(moves):
        if not game.is_over:
            game.step(int(greedy_actions(game.state, rng)[0]))
    s, board = game.state, game.rules.board
    unseen = [t for t in range(95) if s.tile_cell[0, t] < 0 and not s.discarded[0, t] and TILE_KIND[t] == 1]
    sides = set()
    for tile, x, y, rot in game.placed_tiles():
        for d, (dx, dy) in enumerate([(0, -1), (1, 0), (0, 1), (-1, 0)]):
            if SIDE_TYPE[tile, rot, d] not in (ENCLOSURE, PATH) or game.tile_at(x + dx, y + dy) is not None:
                continue
            root = int(s.area.find(np.array([0]), np.array([SIDE_ZONES[tile, rot, d, 1]]))[0])
            on_board = max(abs(x + dx), abs(y + dy)) <= board.reach
            sides.add((root, board.cell(x + dx, y + dy) if on_board else None))
    expected = np.ones(tiles.num_zones)
    for root, hole in sides:
        fits = 0 if hole is None else sum(COMPAT[t, s.need[0, hole]].any() for t in unseen)
        expected[root] *= min(1.0, fits / search.HOLE_FITS)
    assert np.allclose(search.hole_factors(s, np.array([0]))[0], expected)
    if reach == 2:
        assert (expected == 0).any()  # a small board leaves sides open towards its edge


def test_bitset_and_unique_helpers_of_the_search() -> None:
    from hg_env.core.areas import tile_members, tile_sets
    from hg_env.core.arrays import sorted_unique

    rng = np.random.default_rng(0)
    members = rng.random((7, 3, 95)) < 0.3
    np.testing.assert_array_equal(tile_members(tile_sets(members), 95), members)
    keys = rng.integers(0, 1 << 40, size=500)
    keys[::3] = keys[0]
    np.testing.assert_array_equal(sorted_unique(keys), np.unique(keys))
    assert len(sorted_unique(np.zeros(0, dtype=np.int64))) == 0


def test_close_probability_is_the_same_on_every_cpu() -> None:
    """0.8 ** open from exact rationals: np.power's AVX-512 path rounds some powers differently from
    libm's, which changed the lookahead (and greedy's ties) from one machine to the next."""
    from fractions import Fraction

    k = np.arange(0, 200)
    expected = np.array([float(Fraction(search.CLOSE_PER_OPEN) ** int(n)) for n in k])
    np.testing.assert_array_equal(search.close_probability(k, np.full(len(k), 1e9)), np.where(k > 0, expected, 1.0))
    assert search.close_powers(64)[5] == search.CLOSE_PER_OPEN**5  # libm agrees on every count an area can have
