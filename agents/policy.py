"""``policy``: a trained PPO policy (``hgenv train``) playing from the board tensor.

Spec: ``policy:path=runs/quick/final_model.zip,deterministic=true``.

``path`` is a model saved by ``hgenv train`` (``final_model.zip``, or a
snapshot in ``snapshots/``): a MaskablePPO zip whose policy is
``hg_env.train.policy.HGPolicy``. Only the policy is loaded (no optimizer, no rollout
buffer). With ``deterministic=true`` (the default) the agent plays the most
probable legal move; with ``false`` it samples from the policy with its own
seeded generator, so games stay reproducible.

A policy trained with ``lookahead = true`` also reads the one-turn lookahead's
gain of every legal move (``hg_env.core.search.lookahead_features``), computed
here from the game state on a re-deal drawn from the agent's generator: it
needs the state (``act(..., game=game)``, ``act_batch(..., state=state)``),
as ``greedy`` does.

Needs torch and sb3-contrib (the ``[train]`` extra); ``hg_env`` itself never
imports torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from hg_env.agents.base import Agent, register

if TYPE_CHECKING:
    from hg_env.train.policy import HGPolicy

    from hg_env.core.state import State
    from hg_env.game import Game


def load_policy(path: str | Path) -> HGPolicy:
    """The ``HGPolicy`` of a model zip saved by ``hgenv train``; ValueError naming the file otherwise."""
    from hg_env.train.policy import HGPolicy
    from stable_baselines3.common.save_util import load_from_zip_file

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"policy file {path} does not exist (train one with: hgenv train --config configs/quick.toml)")
    try:
        data, params, _ = load_from_zip_file(path, device="cpu")
        policy = HGPolicy(data["observation_space"], data["action_space"], lambda _: 0.0, **data["policy_kwargs"])
        policy.load_state_dict(params["policy"])
    except Exception as err:  # zip, JSON, pickle and state-dict errors all mean the same to the user
        raise ValueError(
            f"{path} is not a readable policy saved by hgenv train (corrupt, truncated or another format): "
            f"{type(err).__name__}: {err}"
        ) from None
    policy.set_training_mode(False)
    return policy


@register
class PolicyAgent(Agent):
    """A trained ``HGPolicy``: the most probable legal move, or a sample (module docstring)."""

    name = "policy"
    uses_observation = True

    def __init__(self, seed: int | None = None, path: str = "", deterministic: bool = True) -> None:
        super().__init__(seed)
        if not path:
            raise ValueError("the policy agent needs a model file: policy:path=runs/quick/final_model.zip")
        self.path = path
        self.deterministic = deterministic
        self.policy = load_policy(path)

    @classmethod
    def from_policy(cls, policy: HGPolicy, deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
        """An agent around a policy in memory (evaluation during training); it shares the weights."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        agent.path, agent.deterministic, agent.policy = "", deterministic, policy
        agent.spec = "policy:(in memory)"
        return agent

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if observation is None:
            raise ValueError("the policy agent reads the board tensor: pass the observation")
        state = None if game is None else game.state
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], state)[0])

    def act_batch(self, observations: Any, action_masks: np.ndarray, state: State | None = None) -> np.ndarray:
        import torch

        from hg_env.vector import lookahead_observation

        masks = np.asarray(action_masks, dtype=bool)
        if observations is None:
            raise ValueError("the policy agent reads the board tensor: pass the observations")
        net = self.policy.net
        if state is not None and state.rules.ruleset != net.ruleset:
            raise ValueError(
                f"{self.path or 'this policy'} was trained on {net.ruleset!r} and does not play {state.rules.ruleset!r}"
            )
        channels = np.asarray(observations).shape[1]
        if channels != net.num_channels:
            raise ValueError(
                f"{self.path or 'this policy'} reads {net.num_channels}-channel observations of {net.ruleset!r}, "
                f"got {channels} channels (another ruleset or board size?)"
            )
        inputs: Any = torch.as_tensor(np.asarray(observations))
        if self.policy.net.lookahead:
            if state is None:
                raise ValueError(
                    f"{self.path or 'this policy'} reads lookahead features: pass the game (act(..., game=game)) "
                    "or the batched state (act_batch(..., state=state))"
                )
            arrays = lookahead_observation(np.asarray(observations), state, self.rng)
            inputs = {key: torch.as_tensor(value) for key, value in arrays.items()}
        with torch.no_grad():
            logits, _ = self.policy.net(inputs)
        logits = logits.double().numpy()
        logits[~masks] = -np.inf
        if not self.deterministic:  # Gumbel-max with the agent's generator: a sample of softmax(logits)
            logits += self.rng.gumbel(size=logits.shape)
        actions = logits.argmax(1)
        return np.where(masks.any(1), actions, -1).astype(np.int64)
