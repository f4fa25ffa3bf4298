"""Carcassonne through every interface: records, the PettingZoo and Gymnasium envs (observation planes
against the BFS oracle), the agents and their search (lookahead against stepping, hidden deck order), a
tiny training run on configs/carcassonne_quick.toml and a tournament with its model."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import hg_env
from hg_env import Game
from hg_env.agents.base import make_agent
from hg_env.arena.tournament import TournamentConfig, run_tournament
from hg_env.core import engine, search
from hg_env.core.observation import AREA_FEATURES, channel_names, decode_board, observer
from hg_env.core.state import OCCUPY
from hg_env.train.config import load_config
from hg_env.train.train import train
from tests.oracle import areas
from tests.scenario import run
from tests.test_carcassonne_examples import E3, E15

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "carcassonne_quick.toml"
BLOCK = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


def random_game(seed: int, players: int = 3, **flags) -> Game:
    """A finished random game in which the abbot is taken back whenever that is legal (records must
    name the figure's zone)."""
    rng = np.random.default_rng(seed)
    game = Game(players, seed=seed, ruleset="carcassonne", **flags)
    while not game.is_over:
        if game.phase == "occupy" and game.legal_choices("retake") and rng.random() < 0.5:
            x, y, _ = game.legal_choices("retake")[0]
            game.decide("retake", x, y)
        else:
            game.step(int(rng.choice(game.legal_actions())))
    return game


# ---------------------------------------------------------------- records


@pytest.mark.parametrize("flags", [{}, {"river": True, "abbot": True}, {"abbot": False, "board_reach": 20}])
def test_records_round_trip(flags: dict) -> None:
    """A record (JSON) replays to the identical game, the abbot's returns included."""
    game = random_game(4, **flags)
    record = json.loads(json.dumps(game.to_record(players=["a", "b", "c"])))
    assert record["ruleset"] == "carcassonne" and record["rules"]["ruleset"] == "carcassonne"
    assert all(record["rules"][k] == v for k, v in flags.items())
    replay = Game.from_record(record, ruleset="carcassonne")
    assert replay.is_over and replay.scores == game.scores and replay.events == game.events
    for name, array in game.state.arrays().items():
        np.testing.assert_array_equal(replay.state.arrays()[name], array, err_msg=name)
    if flags.get("abbot", True):
        assert any(entry[0] == "retake" for entry in record["decisions"])
    half = Game.from_record(record, upto=len(record["decisions"]) // 2)
    assert half.placed_tiles() == Game.from_record(record, upto=len(record["decisions"]) // 2).placed_tiles()


def test_records_never_replay_under_another_ruleset() -> None:
    """A Carcassonne record refuses another ruleset, and the other rulesets' records refuse Carcassonne."""
    record = random_game(5, players=2).to_record()
    for other in ("hg2020", "hg2002"):
        with pytest.raises(ValueError, match=f"game of 'carcassonne', not '{other}'"):
            Game.from_record(record, ruleset=other)
        with pytest.raises(ValueError, match=f"game of '{other}', not 'carcassonne'"):
            Game.from_record(Game(2, seed=1, ruleset=other).to_record(), ruleset="carcassonne")
    bad = {**record, "rules": {**record["rules"], "hut_targets": "any"}}
    with pytest.raises(ValueError, match="hut_targets"):
        Game.from_record(bad)


# ---------------------------------------------------------------- PettingZoo, Gymnasium, SB3


@pytest.mark.parametrize(("players", "flags"), [(2, {}), (3, {"river": True}), (4, {"abbot": False})])
def test_pettingzoo_api_test(players: int, flags: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(hg_env.env(num_players=players, ruleset="carcassonne", **flags), num_cycles=300)


@pytest.mark.parametrize("flags", [{}, {"river": True}])
def test_pettingzoo_seed_test(flags: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: hg_env.env(num_players=3, ruleset="carcassonne", **flags), num_cycles=200)


def test_env_names_and_registries() -> None:
    """The AEC env is ``carcassonne_v0``; Gymnasium knows the single-agent adapter by name."""
    import gymnasium

    from hg_env.aec import carcassonne_env

    env = carcassonne_env(num_players=2, river=True)
    assert env.unwrapped.metadata["name"] == "carcassonne_v0" and env.unwrapped.rules.river is True
    single = gymnasium.make("hg_env/Carcassonne-v0", num_players=2)
    obs, _ = single.reset(seed=0)
    assert obs.shape == single.observation_space.shape and single.unwrapped.aec.rules.ruleset == "carcassonne"


def test_single_agent_env_passes_sb3_check_env() -> None:
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(hg_env.SingleAgentEnv(num_players=2, ruleset="carcassonne"), skip_render_check=True)
        check_env(hg_env.SingleAgentEnv(num_players=3, ruleset="carcassonne", river=True), skip_render_check=True)


def _expected_area_planes(game: Game, seat: int) -> dict[tuple[int, str], np.ndarray]:
    """(tile, area type) -> the AREA_FEATURES maxima the observation should paint there, from the BFS
    oracle: city 2/tile + 2/coat, road 1/tile, field 3 per completed bordering city, cloister (monastery
    or garden) open = empty neighbours, tiles = value = tiles in its 3x3 block."""
    n = game.num_players
    found = areas(game.state, 0)["area"]
    where = {zone: a for a in found for zone in a["zones"]}
    out: dict[tuple[int, str], np.ndarray] = {}

    def paint(tiles, kind, open_, count, value, occupants) -> None:
        relative = [occupants[(seat + k) % n] if k < n else 0 for k in range(5)]
        features = np.minimum([open_, count, value, *relative], 255)
        for tile in tiles:
            out[(tile, kind)] = np.maximum(out.get((tile, kind), 0), features)

    for a in found:
        if a["type"] == "river":  # the Carcassonne river: no plane
            continue
        kind = a["type"]
        if kind == "city":
            value = 2 * len(a["tiles"]) + 2 * a["bonus"]
        elif kind == "road":
            value = len(a["tiles"])
        else:
            cities = {id(where[c]) for c in a["borders"] if not where[c]["open"]}
            value = 3 * len(cities)
        paint({t for t, _ in a["zones"]}, kind, a["open"], len(a["tiles"]), value, a["occupants"])
    placed = {(x, y) for _, x, y, _ in game.placed_tiles()}
    catalogue = game.rules.spec.tiles
    for tile, x, y, _ in game.placed_tiles():
        zones = catalogue.TILE_ZONE[tile]
        cloister = [z for z in zones[zones >= 0] if catalogue.ZONE_TYPE[z] in (4, 5)]  # Z_BLOCK_A, Z_BLOCK_B
        if not cloister:
            continue
        count = sum((x + dx, y + dy) in placed for dx, dy in BLOCK)
        occupants = np.zeros(5, dtype=int)
        for p, _kind, ox, oy, local in game.occupants():
            if (ox, oy) == (x, y) and catalogue.TILE_ZONE[tile, local] == cloister[0]:
                occupants[p] += 1
        paint({tile}, "cloister", 9 - count, count, count, occupants)
    return out


@pytest.mark.parametrize("flags", [{}, {"river": True}])
def test_observation_round_trip_and_area_planes_match_the_oracle(flags: dict) -> None:
    """Tiles, occupants (meeples and abbots) and supplies decode back; the city, field, road and cloister
    planes equal a BFS over the board (every 5th observation)."""
    names = {name: i for i, name in enumerate(channel_names(ruleset="carcassonne"))}
    kinds = [name for name, _, _ in observer("carcassonne").area_types]
    assert kinds == ["city", "field", "road", "cloister"]
    env = hg_env.env(num_players=3, ruleset="carcassonne", **flags)
    rng = np.random.default_rng(0)
    checked = 0
    env.reset(seed=11)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        game = env.unwrapped.game
        seat, n = game.current_player, game.num_players
        tensor = obs["observation"]
        decoded = decode_board(tensor, ruleset="carcassonne")
        assert decoded["tiles"] == sorted(game.placed_tiles())
        assert decoded["occupants"] == sorted(((p - seat) % n, k, x, y, z) for p, k, x, y, z in game.occupants())
        info = decoded["info"]
        for k in range(n):
            assert (info[f"meeples_p{k}"], info[f"abbots_p{k}"]) == game.supply((seat + k) % n)
        if checked % 5 == 0:
            expected = _expected_area_planes(game, seat)
            for tile, x, y, _ in game.placed_tiles():
                for kind in kinds:
                    got = [tensor[names[f"{kind}_{f}"], y + 12, x + 12] for f in AREA_FEATURES]
                    assert list(expected.get((tile, kind), np.zeros(8, dtype=int))) == got, (tile, kind)
        checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 100


# ---------------------------------------------------------------- agents


@pytest.mark.parametrize(
    ("specs", "flags"),
    [
        (["greedy", "random"], {}),
        (["random", "greedy", "greedy"], {"river": True}),
        (["mcts:sims=8", "greedy"], {}),
        (["greedy", "mcts:sims=8"], {"river": True, "abbot": False}),
    ],
)
def test_agents_play_legal_games(specs: list[str], flags: dict) -> None:
    """Greedy and MCTS (8 simulations) play whole games; ``Game.step`` refuses any illegal action."""
    agents = [make_agent(spec, seed=seat) for seat, spec in enumerate(specs)]
    game = Game(len(specs), seed=3, ruleset="carcassonne", **flags)
    while not game.is_over:
        mask = game.action_mask()
        action = agents[game.current_player].act(None, mask.copy(), game)
        assert mask[action], f"{specs[game.current_player]} chose illegal {game.describe(action)}"
        game.step(action)
    assert len(game.placed_tiles()) + int(game.state.discarded[0].sum()) == (84 if flags.get("river") else 72)


def _stepped(state, action: int) -> np.ndarray:
    """Reference for ``turn_lookahead``: step the action (a placement: then every deployment, keeping the
    placer's best) and estimate the final scores."""
    copy = search.plain_copy(state)
    actor = int(state.current[0])
    engine.step(copy, [action])
    if copy.phase[0] != OCCUPY or copy.current[0] != actor or state.phase[0] == OCCUPY:
        return search.estimated_final_scores(copy)[0]
    outcomes = []
    for option in np.flatnonzero(engine.legal_action_mask(copy)[0]):
        child = search.plain_copy(copy)
        engine.step(child, [option])
        outcomes.append(search.estimated_final_scores(child)[0])
    return max(outcomes, key=lambda v: v[actor])


def _lookahead_matches_stepping(game: Game) -> None:
    state = search.plain_copy(game.state)
    _, actions, values = search.turn_lookahead(state)
    assert sorted(actions.tolist()) == game.legal_actions()
    for action, value in zip(actions, values):
        np.testing.assert_allclose(value, _stepped(state, int(action)), err_msg=game.describe(int(action)))


@pytest.mark.parametrize(("seed", "moves", "flags"), [(0, 21, {}), (1, 60, {}), (2, 5, {"river": True})])
def test_turn_lookahead_values_each_action_by_stepping_it(seed: int, moves: int, flags: dict) -> None:
    """The search's one-turn lookahead (greedy, MCTS priors) on Carcassonne: each legal action valued as
    stepping it (a placement: with the placer's best deployment)."""
    rng = np.random.default_rng(seed)
    game = Game(2, seed=seed, ruleset="carcassonne", **flags)
    for _ in range(moves):
        game.step(int(rng.choice(game.legal_actions())))
    _lookahead_matches_stepping(game)


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param(E3, id="monk"),
        pytest.param(E15, id="abbot"),
    ],
)
def test_turn_lookahead_values_the_figure_of_a_completed_cloister(scenario) -> None:
    """E3 / E15 before the eighth neighbour: placing it completes the monastery (monk) or the garden
    (abbot); the lookahead must value that placement as stepping it does (9 points and, for the monk, a
    meeple back in the supply)."""
    game = run(scenario, upto=len(scenario.plays) - 1)
    _lookahead_matches_stepping(game)


def _same_past_other_future(game: Game, seed: int) -> Game:
    """The same game so far with its undrawn tiles in another order, each deal rank (river tiles, the
    lake, land tiles: V1.2) shuffled on its own."""
    s, rng = game.state, np.random.default_rng(seed)
    nxt, n = int(s.regular_next[0]), int(s.regular_len[0])
    drawn, rest = s.regular_deck[0, :nxt].tolist(), s.regular_deck[0, nxt:n].tolist()
    rank = s.spec.deal_rank(s.spec.tiles, s.rules)
    future = [t for r in sorted({rank[t] for t in rest}) for t in rng.permutation([t for t in rest if rank[t] == r])]
    other = Game(2, regular_deck=drawn + future, ruleset="carcassonne", river=game.rules.river)
    for action in game.history:
        other.step(action)
    assert other.state.regular_deck[0].tolist() != s.regular_deck[0].tolist()
    return other


@pytest.mark.parametrize("spec", ["greedy", "mcts:sims=6,batch=3"])
@pytest.mark.parametrize(("moves", "river"), [(30, False), (31, False), (4, True), (5, True)])
def test_search_agents_never_read_the_hidden_deck_order(spec: str, moves: int, river: bool) -> None:
    """The search redeals the unseen tiles (the river's before the land's): the same past with another
    future gives the same decision, in the river phase too."""
    rng = np.random.default_rng(moves)
    game = Game(2, seed=8, ruleset="carcassonne", river=river)
    for _ in range(moves):
        game.step(int(rng.choice(game.legal_actions())))
    other = _same_past_other_future(game, seed=1)
    first = make_agent(spec, seed=9).act(None, game.action_mask(), game)
    assert first == make_agent(spec, seed=9).act(None, other.action_mask(), other)


# ---------------------------------------------------------------- training and tournaments


def test_carcassonne_quick_config_is_valid() -> None:
    """configs/carcassonne_quick.toml: configs/quick.toml's budget on Carcassonne."""
    config, quick = load_config(QUICK), load_config(ROOT / "configs" / "quick.toml")
    assert config.env.ruleset == "carcassonne" and config.run.name == "carcassonne_quick"
    assert config.rules().spec.name == "carcassonne"
    assert (config.run.total_timesteps, config.ppo, config.policy) == (
        quick.run.total_timesteps,
        quick.ppo,
        quick.policy,
    )


def test_tiny_training_run_and_a_tournament_with_its_model(tmp_path: Path) -> None:
    """configs/carcassonne_quick.toml on a tiny budget trains a Carcassonne policy, which then plays a
    2-agent Carcassonne tournament against greedy (and refuses Hunters & Gatherers games)."""
    config = load_config(QUICK)
    config.run.out_dir, config.run.name = str(tmp_path), "tiny"
    config.run.total_timesteps, config.run.checkpoint_every = 256, 256
    config.env.num_envs, config.ppo.n_steps, config.ppo.batch_size = 8, 32, 64
    config.policy.channels, config.policy.layers, config.policy.hidden = 8, 1, 16
    config.eval.final_games = 2
    run = train(config, progress=False)
    model = run / "final_model.zip"
    assert model.is_file() and json.loads((run / "final_eval.json").read_text())["greedy"]["games"] == 2
    spec = f"policy:path={model}"
    summary = run_tournament(
        TournamentConfig((spec, "greedy"), games=2, ruleset="carcassonne"), tmp_path / "t", progress=False, plot=False
    )
    assert summary.total_games == 2
    lines = [json.loads(line) for line in (tmp_path / "t" / "games.jsonl").read_text().splitlines()]
    assert all(line["error"] is None and line["record"]["ruleset"] == "carcassonne" for line in lines)
    for line in lines:
        assert Game.from_record(line["record"]).scores == line["scores"]
    agent, other = make_agent(spec, seed=0), Game(2, seed=0)
    with pytest.raises(ValueError, match="trained on 'carcassonne' and does not play 'hg2020'"):
        agent.act(hg_env.observe(other.state, np.array([0]), np.array([0]))[0], other.action_mask(), other)
