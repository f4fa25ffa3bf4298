"""Self-play PPO on RLlib (hg_env.train.rllib_ppo): the env wrapper, the masked BoardNet module, and a
tiny run on a local Ray instance that checkpoints, resumes and exports a policy the tournaments play."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="RLlib is not installed (pip install -e '.[train,rllib]')")
import torch
from hg_env.agents.base import make_agent
from hg_env.train import rllib_ppo
from hg_env.train.config import ConfigError, config_from_dict
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hg_env.arena.tournament import GAMES_FILE, TournamentConfig, read_results, run_tournament
from hg_env.core.rules import Rules

TINY = {
    "run": {"backend": "rllib", "name": "tiny", "total_timesteps": 256, "checkpoint_every": 128, "torch_threads": 1},
    "env": {"num_envs": 2, "reward": "score_diff", "reward_scale": 0.02},
    "policy": {"channels": 8, "layers": 1, "hidden": 16},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "eval": {"every": 0, "final_games": 2, "opponents": ["random"]},
    "ray": {"num_env_runners": 1},
}


def _tiny(tmp_path: Path, **run: object) -> object:
    raw = json.loads(json.dumps(TINY))
    raw["run"].update(out_dir=str(tmp_path), **run)
    return config_from_dict(raw)


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
    raw["policy"]["lookahead"] = True
    with pytest.raises(ConfigError, match=r"policy.lookahead must be false with run.backend"):
        config_from_dict(raw)
    raw["run"]["backend"] = "tf"
    with pytest.raises(ConfigError, match=r"run.backend must be one of \('sb3', 'rllib'\)"):
        config_from_dict(raw)


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


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
