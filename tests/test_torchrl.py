"""The PettingZoo env in TorchRL: ``PettingZooWrapper(hg_env.env(), use_mask=True)`` plays whole games."""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("torchrl", reason="torchrl is not installed (pip install -e '.[torchrl]')")
import torch
from torchrl.envs import PettingZooWrapper

import hg_env


def _random_masked_policy(env: PettingZooWrapper, generator: torch.Generator):
    """Uniform over each group's legal actions (those of a group not acting are ignored)."""

    def policy(td):
        for group in env.group_map:
            mask = td[group, "action_mask"]
            weights = mask.float().reshape(-1, mask.shape[-1])  # torchrl unmasks all actions of idle groups
            actions = torch.multinomial(weights, 1, generator=generator)
            td[group, "action"] = actions.reshape(mask.shape[:-1])
        return td

    return policy


def test_torchrl_pettingzoo_wrapper_plays_legal_games_with_masks() -> None:
    env = PettingZooWrapper(hg_env.env(num_players=2), use_mask=True, seed=0)
    assert set(env.group_map) == {"player_0", "player_1"}
    obs_spec = env.observation_spec["player_0", "observation", "observation"]
    assert obs_spec.shape[-3:] == (85, 25, 25) and obs_spec.dtype == torch.uint8

    steps = 300
    td = env.rollout(steps, _random_masked_policy(env, torch.Generator().manual_seed(0)), break_when_any_done=False)
    assert td.batch_size == torch.Size([steps])

    acting = torch.stack([td[g, "mask"].reshape(steps) for g in env.group_map], 1)
    legal = torch.stack([td[g, "action_mask"].reshape(steps, -1) for g in env.group_map], 1)
    assert (acting.sum(1) == 1).all(), "exactly one player acts at every step"
    assert legal[acting].any(-1).all(), "the acting player always has a legal action"
    chosen = torch.stack([td[g, "action"].reshape(steps) for g in env.group_map], 1)[acting]
    assert legal[acting].gather(1, chosen.unsqueeze(1)).all(), "every played action was legal"

    done = td["next", "done"].reshape(steps)
    ends = done.nonzero().squeeze(-1).tolist()
    assert len(ends) >= 2, "a random game lasts about 120 decisions: 300 steps finish two"
    assert ends[0] > 50 and all(b - a > 50 for a, b in itertools.pairwise(ends)), (
        "no game was cut short by an illegal move"
    )
    rewards = torch.stack([td["next", g, "reward"].reshape(steps) for g in env.group_map], 1)
    assert (rewards[~done] == 0).all(), "the 'win' reward is paid at the end only"
    for end in ends:  # +1 / -1, or 0 / 0 on a shared victory; an illegal move would give -1 / 0
        assert rewards[end].sum() == 0 and set(rewards[end].abs().tolist()) <= {0.0, 1.0}
