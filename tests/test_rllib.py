"""Self-play PPO on RLlib (hg_env.train.rllib_ppo): the env wrapper (with and without the lookahead
inputs), the masked BoardNet module, a tiny run whose exported model is the trained module's network
and beats random, the final evaluation's warning, and a run that checkpoints, resumes and exports a
policy the tournaments play."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="RLlib is not installed (pip install -e '.[train,rllib]')")
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hg_env.agents.base import make_agent
from hg_env.agents.network import LOOKAHEAD_INIT
from hg_env.arena.tournament import GAMES_FILE, TournamentConfig, read_results, run_tournament
from hg_env.core.rules import Rules
from hg_env.core.search import lookahead_features
from hg_env.single_agent import env_spaces
from hg_env.train import rllib_ppo
from hg_env.train.config import ConfigError, config_from_dict
from hg_env.train.train import worse_than_random, write_final_eval

TINY = {
    "run": {"backend": "rllib", "name": "tiny", "total_timesteps": 256, "checkpoint_every": 128, "torch_threads": 1},
    "env": {"num_envs": 2, "reward": "score_diff", "reward_scale": 0.02},
    "policy": {"channels": 8, "layers": 1, "hidden": 16},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "eval": {"every": 0, "final_games": 2, "opponents": ["random"]},
    "ray": {"num_env_runners": 1},
}


def _tiny(tmp_path: Path, lookahead: bool = False, **run: object) -> object:
    raw = json.loads(json.dumps(TINY))
    raw["run"].update(out_dir=str(tmp_path), **run)
    raw["policy"]["lookahead"] = lookahead
    return config_from_dict(raw)


def _batch(observation: dict) -> dict:
    """One observation of ``SelfPlayEnv`` as a batch of one for an RLModule."""
    return {Columns.OBS: tree_map(lambda array: torch.as_tensor(array)[None], observation)}


def tree_map(fn, tree):
    return {k: tree_map(fn, v) for k, v in tree.items()} if isinstance(tree, dict) else fn(tree)


def test_selfplay_env_gives_the_player_to_act_our_observation_under_rllibs_keys() -> None:
    env = rllib_ppo.SelfPlayEnv({"num_players": 2, "reward": "score", "reward_scale": 0.5})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.agents, 0.0)
    for _ in range(1000):
        (agent,) = obs  # exactly one player to act
        assert set(obs[agent]) == {"observations", "action_mask"}
        assert env.observation_spaces[agent].contains(obs[agent])
        action = rng.choice(np.flatnonzero(obs[agent]["action_mask"]))
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        for a, r in rewards.items():
            totals[a] += r
        if terminated["__all__"]:
            break
    assert terminated["__all__"] and not truncated["__all__"]
    assert set(obs) == set(env.agents), "every player sees the final position"
    scores = infos["player_0"]["scores"]
    assert [totals[a] for a in env.agents] == pytest.approx([0.5 * s for s in scores])  # "score" reward, scaled


def test_selfplay_env_with_lookahead_gives_the_inputs_of_the_sb3_path() -> None:
    env = rllib_ppo.SelfPlayEnv({"num_players": 2, "reward": "score_diff", "lookahead": True})
    rules = env.aec.rules
    sb3_space, _ = env_spaces(rules.reach, True, rules.ruleset)  # what HGVecEnv gives the same network
    assert env.observation_spaces["player_0"]["observations"] == sb3_space
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng([3, 1])  # the env's lookahead generator after reset(seed=3)
    for _ in range(6):
        (agent,) = obs
        assert env.observation_spaces[agent].contains(obs[agent])
        ours, legal = obs[agent]["observations"], obs[agent]["action_mask"].astype(bool)
        seat = np.array([env.aec.agent_name_mapping[agent]])
        gains, estimates = lookahead_features(env.aec.game.state, rng, seat)  # the same features, the same draw
        np.testing.assert_array_equal(ours["lookahead"], gains[0])
        np.testing.assert_array_equal(ours["estimate"], estimates[0])
        assert ours["lookahead"][0, legal].any() and not ours["lookahead"][:, ~legal].any()
        obs, *_ = env.step({agent: int(np.flatnonzero(legal)[0])})


def test_boardnet_module_with_lookahead_starts_from_the_lookahead_valuation() -> None:
    env = rllib_ppo.SelfPlayEnv({"lookahead": True})
    agent = env.agents[0]
    net = dict(board_reach=Rules().reach, channels=8, layers=1, hidden=16, lookahead=True)
    spaces = {"observation_space": env.observation_spaces[agent], "action_space": env.action_spaces[agent]}
    module = rllib_ppo.BoardNetRLModule(**spaces, model_config={"board_net": net})
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    logits = module.forward_inference(_batch(obs[agent]))[Columns.ACTION_DIST_INPUTS][0]
    legal = torch.as_tensor(obs[agent]["action_mask"]).bool()
    own, opponents = torch.as_tensor(obs[agent]["observations"]["lookahead"])
    valuation = LOOKAHEAD_INIT[0] * own + LOOKAHEAD_INIT[1] * opponents  # greedy:opponents=0.75's
    assert (logits[~legal] == FLOAT_MIN).all()
    assert (logits[legal] - valuation[legal]).abs().max() < 0.1, "the other heads start near zero"


def test_boardnet_module_masks_illegal_actions() -> None:
    env = rllib_ppo.SelfPlayEnv({})
    agent = env.agents[0]
    model_config = {"board_net": dict(board_reach=Rules().reach, channels=8, layers=1, hidden=16)}
    spaces = {"observation_space": env.observation_spaces[agent], "action_space": env.action_spaces[agent]}
    module = rllib_ppo.BoardNetRLModule(**spaces, model_config=model_config)
    obs, _ = env.reset(seed=0)
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs[agent].items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    legal = torch.as_tensor(obs[agent]["action_mask"]).bool()
    assert (logits[~legal] == FLOAT_MIN).all() and (logits[legal] > FLOAT_MIN).all()
    assert module.compute_values(batch).shape == (1,)


def test_rllib_config_needs_what_the_backend_supports(tmp_path: Path) -> None:
    raw = json.loads(json.dumps(TINY))
    raw["env"]["num_envs"], raw["ray"]["num_env_runners"] = 3, 2
    with pytest.raises(ConfigError, match=r"env.num_envs must be a multiple of ray.num_env_runners"):
        config_from_dict(raw)
    raw = json.loads(json.dumps(TINY))
    raw["imitation"] = {"decisions": 64}
    with pytest.raises(ConfigError, match=r"imitation.decisions must be 0 with run.backend"):
        config_from_dict(raw)
    raw = json.loads(json.dumps(TINY))
    raw["policy"]["lookahead"] = True  # the SB3 path's network and inputs
    assert rllib_ppo.net_kwargs(config_from_dict(raw))["lookahead"] is True
    raw["run"]["backend"] = "tf"
    with pytest.raises(ConfigError, match=r"run.backend must be one of \('sb3', 'rllib'\)"):
        config_from_dict(raw)


def _fake_result(opponent: str, win_rate: float, games: int = 100) -> dict:
    return {
        "opponent": opponent,
        "games": games,
        "wins": win_rate * games,
        "win_rate": win_rate,
        "ci_low": 0.0,
        "ci_high": 1.0,
        "mean_score": 3.0,
        "mean_opponent_score": 45.0,
    }


def test_final_evaluation_warns_loudly_when_the_agent_does_worse_than_random(tmp_path: Path, capsys) -> None:
    final = {"random": _fake_result("random", 0.0), "greedy": _fake_result("greedy", 0.0)}
    write_final_eval(tmp_path, final)
    err = capsys.readouterr().err
    assert err.startswith("WARNING: the trained agent does worse than random: it won 0.0% of its 100 games")
    assert "mean score 3.0 vs 45.0" in err and err.count("\n") == 1
    saved = json.loads((tmp_path / "final_eval.json").read_text())
    assert saved["random"]["warning"] == err.strip(), "the run's summary says it too"
    assert "warning" not in saved["greedy"] and "warning" not in final["random"]
    assert worse_than_random({"random": _fake_result("random", 0.495, games=200)}) is not None


@pytest.mark.parametrize(
    "final",
    [
        {"random": _fake_result("random", 0.5), "greedy": _fake_result("greedy", 0.0)},  # as good as random
        {"random": _fake_result("random", 0.98)},
        {"greedy": _fake_result("greedy", 0.0)},  # no game against random: nothing to compare with
    ],
)
def test_final_evaluation_is_quiet_when_the_agent_is_not_worse_than_random(final, tmp_path: Path, capsys) -> None:
    assert worse_than_random(final) is None
    write_final_eval(tmp_path, final)
    assert capsys.readouterr().err == ""
    assert json.loads((tmp_path / "final_eval.json").read_text()) == final


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def tiny_lookahead_run(tmp_path_factory, local_ray) -> Path:
    """A tiny run of the network with the lookahead inputs (128 steps, 20 final games against random)."""
    config = _tiny(tmp_path_factory.mktemp("rllib"), lookahead=True, total_timesteps=128)
    config.eval.final_games = 20
    return rllib_ppo.train(config, progress=False)


def test_tiny_lookahead_run_exports_a_model_that_beats_random(tiny_lookahead_run: Path) -> None:
    final = json.loads((tiny_lookahead_run / "final_eval.json").read_text())
    assert final["random"]["games"] == 20 and final["random"]["win_rate"] >= 0.8, final["random"]
    assert "warning" not in final["random"]


def test_exported_model_plays_as_the_trained_rl_module(tiny_lookahead_run: Path) -> None:
    """Move for move through a game: the exported file's agent (its own lookahead, on the same
    re-deal) and the learner's RLModule restored from the last checkpoint pick the same moves,
    from the same logits."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from hg_env.agents.network import run_net
    from hg_env.agents.policy import PolicyAgent

    last = rllib_ppo.checkpoint_paths(tiny_lookahead_run)[-1]
    module = RLModule.from_checkpoint(last / "learner_group" / "learner" / "rl_module" / rllib_ppo.MODULE_ID)
    agent = PolicyAgent(path=str(tiny_lookahead_run / "final_model.zip"))
    assert agent.net.lookahead
    env = rllib_ppo.SelfPlayEnv({"lookahead": True})
    env.reset(seed=5)
    moves = 0
    while not env.aec.game.is_over:
        player = env.aec.agent_selection
        before = env.lookahead_rng.bit_generator.state
        obs = env._observe(player)  # the features the env runners would give the module
        agent.rng.bit_generator.state = before  # the agent's own lookahead draws the same re-deal
        played = agent.act(obs["observations"]["board"], obs["action_mask"], game=env.aec.game)
        with torch.no_grad():
            logits = module.forward_inference(_batch(obs))[Columns.ACTION_DIST_INPUTS][0]
            exported, _ = run_net(agent.net, tree_map(lambda a: torch.as_tensor(a)[None], obs["observations"]))
        legal = torch.as_tensor(obs["action_mask"]).bool()
        torch.testing.assert_close(exported[0][legal], logits[legal])
        assert played == int(logits.argmax()), f"move {moves}: the exported model and the module disagree"
        env.step({player: played})
        moves += 1
    assert moves > 50


@pytest.mark.slow
def test_tiny_run_checkpoints_resumes_and_exports_a_policy_that_plays(tmp_path: Path, local_ray) -> None:
    from ray.rllib.core.rl_module.rl_module import RLModule

    config = _tiny(tmp_path)
    run_dir = rllib_ppo.train(config, progress=False, stop_after=128)  # as if killed after the first checkpoint
    assert [p.name for p in rllib_ppo.checkpoint_paths(run_dir)] == ["step_0000000128"]
    with (run_dir / "progress.jsonl").open("a") as f:
        f.write('{"steps": 192}\n')  # logged after the checkpoint, before the kill
    assert not (run_dir / "final_model.zip").exists()
    with pytest.raises(ValueError, match="already holds a run"):
        rllib_ppo.train(config, progress=False)

    rllib_ppo.train(config, resume=True, progress=False)
    steps = [json.loads(line)["steps"] for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert steps == [128, 256], "the resumed run goes on from the checkpoint's step count"
    last = rllib_ppo.checkpoint_paths(run_dir)[-1]
    assert last.name == "step_0000000256"
    assert set(json.loads((run_dir / "final_eval.json").read_text())) == {"random"}

    # The exported policy is the trained module's network...
    agent = make_agent(f"policy:path={run_dir / 'final_model.zip'}")
    module = RLModule.from_checkpoint(last / "learner_group" / "learner" / "rl_module" / rllib_ppo.MODULE_ID)
    trained, exported = module.net.state_dict(), agent.net.state_dict()
    assert trained.keys() == exported.keys()
    assert all(torch.equal(trained[k], exported[k]) for k in trained)
    # ... and plays legal games in a tournament.
    spec = f"policy:path={run_dir / 'final_model.zip'}"
    run_tournament(TournamentConfig((spec, "random"), games=2), tmp_path / "t", progress=False, plot=False)
    results = read_results(tmp_path / "t" / GAMES_FILE)
    assert len(results) == 2 and all(r["error"] is None for r in results)
