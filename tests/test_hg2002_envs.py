"""The classic ruleset through the project's interfaces: the PettingZoo AEC env (``api_test``, ``seed_test``,
its registered name), the Gymnasium adapter (SB3 ``check_env``), the greedy and MCTS agents, and a tiny
PPO run whose model plays a classic tournament and refuses to play hg2020."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import hg_env
from hg_env import Game
from hg_env.agents.base import make_agent
from hg_env.core.observation import AREA_FEATURES, channel_names, decode_board, observe, observer
from tests.invariants import check_tiles
from tests.oracle import areas
from tests.scenario import run
from tests.test_hg2002_examples import fire_meadow, shrine_meadow

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- PettingZoo and Gymnasium


@pytest.mark.parametrize("num_players", [2, 5])
def test_pettingzoo_api_test(num_players: int) -> None:
    env = hg_env.env(ruleset="hg2002", num_players=num_players)
    assert env.metadata["name"] == "hunters_gatherers_classic_v0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: hg_env.env(ruleset="hg2002", num_players=3), num_cycles=200)


def test_registered_names_make_classic_envs() -> None:
    """hg_env registers ``hg_env/hunters_gatherers_classic-v0`` (PettingZoo) and
    ``hg_env/HuntersGatherersClassic-v0`` (Gymnasium); both play hg2002."""
    import gymnasium

    if hasattr(pettingzoo, "make"):  # PettingZoo >= 1.27
        env = pettingzoo.make("aec", "hg_env/hunters_gatherers_classic-v0", num_players=3)
        env.reset(seed=0)
        assert env.possible_agents == ["player_0", "player_1", "player_2"]
        assert env.unwrapped.game.ruleset == "hg2002"
        assert env.action_space("player_0").n == 4 * 25 * 25 + 19
    single = gymnasium.make("hg_env/HuntersGatherersClassic-v0", num_players=2)
    obs, _info = single.reset(seed=0)
    assert obs.shape == single.observation_space.shape == (77, 25, 25)
    assert single.unwrapped.game.ruleset == "hg2002"


def test_bonus_turn_keeps_the_same_agent() -> None:
    """K1 in the AEC env: after a land tile closes a gold forest, the same agent places the bonus tile."""
    for seed in range(40):
        env = hg_env.raw_env(ruleset="hg2002", num_players=2)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env.game.is_over:
            before, extra_before = env.agent_selection, env.game.extra_turn
            env.step(int(rng.choice(np.flatnonzero(env.observe(before)["action_mask"]))))
            if env.game.extra_turn and not extra_before:
                assert env.agent_selection == before
                assert env.game.tile_to_place in range(79, 91)
                return
    pytest.fail("no bonus turn in 40 games")


def classic_area_values(area: dict, kind: str) -> int:
    """An area's value by the classic formulas (K3, K4, K7 with S2, K8), from the BFS oracle's summary."""
    if kind == "forest":
        return 2 * len(area["tiles"]) + 2 * area["bonus"]
    if kind == "river":
        return len(area["tiles"]) + area["fish"]
    if kind == "meadow":
        m, a, d, t = area["animals"]
        fire = (87, 0) in area["zones"]
        return 2 * m + 2 * a + 2 * (d - (0 if fire else min(d, t)))
    return area["fish"]


def test_observation_decodes_and_its_area_planes_use_the_classic_values() -> None:
    """The 77-channel classic observation: tiles, occupants, supplies (5 pawns, 2 huts), scores and the
    bonus deck decode back; its area planes equal a BFS over the board valued by the classic formulas."""
    names = {name: i for i, name in enumerate(channel_names("hg2002"))}
    assert {"gold", "mushrooms", "shrine", "fire", "bonus_left"} <= set(names) | set(observer("hg2002").info_fields)
    checked = 0
    for seed in range(6):
        game = Game(2 + seed % 4, seed=40 + seed, ruleset="hg2002")
        rng = np.random.default_rng(seed)
        while not game.is_over:
            seat, n = game.current_player, game.num_players
            tensor = observe(game.state, np.array([0]), np.array([seat]))[0]
            assert tensor.shape == (len(names), 25, 25)
            decoded = decode_board(tensor, 12, "hg2002")
            assert decoded["tiles"] == sorted(game.placed_tiles())
            assert decoded["occupants"] == sorted(
                ((p - seat) % n, kind, x, y, z) for p, kind, x, y, z in game.occupants()
            )
            info = decoded["info"]
            assert all((info[f"pawns_p{k}"], info[f"huts_p{k}"]) == game.supply((seat + k) % n) for k in range(n))
            assert info["bonus_left"] == game.deck_sizes[1] and info["extra_turn"] == game.extra_turn
            if checked % 9 == 0:  # the oracle is slow: every 9th observation
                _check_area_planes(game, seat, tensor, names)
            checked += 1
            game.step(int(rng.choice(game.legal_actions())))
    assert checked > 600


@pytest.mark.parametrize(("fire_in_meadow", "value"), [(True, 4), (False, 0)])
def test_meadow_value_plane_follows_the_fire(fire_in_meadow: bool, value: int) -> None:
    """S2 in the observation: before X15's last tile the hunted meadow holds 2 deer and 2 tigers: worth
    2 x 2 = 4 with the fire in it, 0 without."""
    scenario = fire_meadow(fire_in_meadow)
    game = run(scenario, upto=len(scenario.plays) - 1)
    tensor = observe(game.state, np.array([0]), np.array([0]))[0]
    names = {name: i for i, name in enumerate(channel_names("hg2002"))}
    assert tensor[names["meadow_value"], 0 + 12, 1 + 12] == value  # tile 16 at (1, 0)
    _check_area_planes(game, 0, tensor, names)


def _check_area_planes(game: Game, seat: int, tensor: np.ndarray, names: dict) -> None:
    n = game.num_players
    expected: dict[tuple[int, str], np.ndarray] = {}
    for partition, found in areas(game.state, 0).items():
        for area in found:
            kind = "system" if partition == "system" else area["type"]
            occupants = [area["occupants"][(seat + k) % n] if k < n else 0 for k in range(5)]
            features = np.minimum([area["open"], len(area["tiles"]), classic_area_values(area, kind), *occupants], 255)
            for tile in {t for t, _ in area["zones"]}:
                expected[tile, kind] = np.maximum(expected.get((tile, kind), 0), features)
    for tile, x, y, _ in game.placed_tiles():
        for kind in ("forest", "meadow", "river", "system"):
            got = [tensor[names[f"{kind}_{f}"], y + 12, x + 12] for f in AREA_FEATURES]
            assert list(expected.get((tile, kind), np.zeros(8, dtype=int))) == got, (tile, kind)


def test_single_agent_env_passes_sb3_check_env() -> None:
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(hg_env.SingleAgentEnv(ruleset="hg2002", num_players=2), skip_render_check=True)


# ---------------------------------------------------------------- agents


def play(specs: list[str], seed: int) -> Game:
    """One hg2002 game between agents built from specs; every chosen action must be legal."""
    agents = [make_agent(spec, seed=100 * seed + seat) for seat, spec in enumerate(specs)]
    game = Game(num_players=len(specs), seed=seed, ruleset="hg2002")
    while not game.is_over:
        mask = game.action_mask()
        seat = game.current_player
        obs = observe(game.state, np.array([0]), np.array([seat]))[0] if agents[seat].uses_observation else None
        action = agents[seat].act(obs, mask.copy(), game.copy())
        assert mask[action], f"{specs[seat]} chose illegal {game.describe(action)}"
        game.step(action)
    check_tiles(game.state, 0)
    return game


@pytest.mark.parametrize("num_players", [2, 4])
def test_greedy_plays_legal_classic_games(num_players: int) -> None:
    game = play((["greedy", "random"] * 3)[:num_players], seed=num_players)
    assert game.is_over and len(game.scores) == num_players


def test_mcts_plays_legal_classic_games() -> None:
    game = play(["mcts:sims=8", "greedy"], seed=1)
    assert game.is_over


def test_greedy_beats_random_in_the_classic_game() -> None:
    assert play(["greedy", "random"], seed=0).winners == [0]
    assert play(["random", "greedy"], seed=0).winners == [1]


@pytest.mark.parametrize("red_on_shrine", [True, False])
def test_estimate_at_the_end_follows_the_shrine(red_on_shrine: bool) -> None:
    """S1 and the search estimate (hg_env/core/search.py: "at the end of the game the estimate equals the
    final score"): in the occupy phase of the last land tile of X13 the estimate gives the shrine's
    meadow to the shrine hunter, as final scoring does (X14, without him: to the majority)."""
    from hg_env.core import search

    scenario = dataclasses.replace(shrine_meadow(red_on_shrine), flags={"auto_skip_forced_actions": False})
    game = run(scenario, upto=len(scenario.plays) - 1)
    last = scenario.plays[-1]
    game.place(last.x, last.y, last.rotation)
    assert game.phase == "occupy" and game.deck_sizes[0] == 0
    estimate = search.estimated_final_scores(game.state)[0, :2].tolist()
    game.occupy(None)
    assert game.is_over and estimate == game.scores == ([4, 0] if red_on_shrine else [0, 4])


# ---------------------------------------------------------------- a tiny training run


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """configs/tiny.toml with ``[env] ruleset = "hg2002"``, trained once for this module."""
    import tomllib

    from hg_env.train.config import config_from_dict
    from hg_env.train.train import train

    raw = tomllib.loads((ROOT / "configs" / "tiny.toml").read_text(encoding="utf-8"))
    raw["env"]["ruleset"] = "hg2002"
    raw["run"]["out_dir"] = str(tmp_path_factory.mktemp("runs"))
    return train(config_from_dict(raw), progress=False)


def test_tiny_classic_run_plays_a_classic_tournament(trained: Path, tmp_path: Path) -> None:
    """The trained model reads 77-channel classic observations and plays a 2-agent hg2002 tournament
    with legal moves only."""
    from hg_env.agents.model_file import load_model
    from hg_env.arena.tournament import TournamentConfig, read_results, run_tournament

    model = trained / "final_model.zip"
    assert model.is_file() and load_model(model).metadata["ruleset"] == "hg2002"
    config = TournamentConfig(agents=(f"policy:path={model}", "random"), players=2, games=2, seed=0, ruleset="hg2002")
    summary = run_tournament(config, tmp_path / "tour", progress=False, plot=False)
    assert summary.total_games == 2
    results = read_results(tmp_path / "tour" / "games.jsonl")
    assert [r["error"] for r in results] == [None, None]
    assert all(r["record"]["ruleset"] == "hg2002" and r["decisions"] > 50 for r in results)
    for r in results:
        assert Game.from_record(r["record"], ruleset="hg2002").scores == r["scores"]


def test_classic_model_refuses_to_play_hg2020(trained: Path, tmp_path: Path) -> None:
    """A model trained on hg2002 names the mismatch instead of playing hg2020: asked for hg2020 when loaded,
    given an hg2020 game or its 85-channel observation, and by an hg2020 tournament before any game."""
    from hg_env.arena.tournament import GAMES_FILE, TournamentConfig, run_tournament

    spec = f"policy:path={trained / 'final_model.zip'}"
    with pytest.raises(ValueError, match="the model plays ruleset 'hg2002', not 'hg2020'"):
        make_agent(spec + ",ruleset=hg2020")
    agent = make_agent(spec, seed=0)
    game = Game(2, seed=0, ruleset="hg2020")
    obs = observe(game.state, np.array([0]), np.array([0]))[0]
    with pytest.raises(ValueError, match="was trained on 'hg2002' and does not play 'hg2020'"):
        agent.act(obs, game.action_mask(), game)
    with pytest.raises(ValueError, match=r"reads observations of shape \(77, 25, 25\), got \(85, 25, 25\)"):
        agent.act(obs, game.action_mask())
    config = TournamentConfig(agents=(spec, "random"), players=2, games=2, seed=0, ruleset="hg2020")
    with pytest.raises(ValueError, match="plays ruleset 'hg2002', but this tournament plays 'hg2020'"):
        run_tournament(config, tmp_path / "tour", progress=False, plot=False)
    assert not (tmp_path / "tour" / GAMES_FILE).exists()
