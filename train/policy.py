"""The network in training: ``HGPolicy`` plugs ``BoardNet`` (hg_env.agents.network) into
sb3-contrib's ``MaskablePPO``; ``CompactRolloutBuffer`` keeps the rollout's observations (uint8) and
masks (bool) in place instead of SB3's fresh allocations and flattening copies every rollout.

The network itself, and ``run_net`` that runs it over torch's threads, live in
``hg_env.agents.network``: the policy agent plays with them without importing training code.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from hg_env.agents.network import BoardNet, legal_actions, run_net
from hg_env.core.ruleset import DEFAULT_RULESET


class HGPolicy(MaskableActorCriticPolicy):
    """``MaskablePPO`` policy around ``BoardNet`` (``policy_kwargs``: board_reach, channels, layers,
    hidden, lookahead, ruleset; with lookahead the observation space is the Dict of ``hg_env.train.vec_env``)."""

    def __init__(
        self,
        observation_space: spaces.Box | spaces.Dict,
        action_space: spaces.Discrete,
        lr_schedule: Any,
        board_reach: int = 12,
        channels: int = 32,
        layers: int = 3,
        hidden: int = 128,
        lookahead: bool = False,
        ruleset: str = DEFAULT_RULESET,
        **kwargs: Any,
    ) -> None:
        if isinstance(observation_space, spaces.Dict) != lookahead:
            raise ValueError(
                f"policy lookahead={lookahead} needs "
                + ("the Dict observations of HGVecEnv(lookahead=True)" if lookahead else "board tensor observations")
                + f", got {observation_space}"
            )
        self.net_kwargs = dict(
            board_reach=board_reach,
            channels=channels,
            layers=layers,
            hidden=hidden,
            lookahead=lookahead,
            ruleset=ruleset,
        )
        kwargs["net_arch"] = []  # no SB3 MLP: BoardNet has its own heads
        warn_if_threads_spin()
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        self.net = BoardNet(**self.net_kwargs)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(self.net_kwargs)
        data.pop("net_arch", None)
        return data

    # The masked distribution is computed here rather than with sb3-contrib's MaskableCategorical:
    # that one fills masked logits with -1e8, where torch's exp takes a slow path (~10x), and
    # rebuilds the distribution three times per call. It covers each row's legal actions alone (tens,
    # of 3,161): the softmax, entropy and lookahead terms over the dense action space cost more than the
    # network (it gives the same distribution).

    def _log_probs(self, obs: Any, action_masks: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(legal [B, L] action ids, log-probabilities [B, L] (-inf past a row's legal actions), values
        [B, 1]). Without masks every action is legal."""
        batch = len(obs["board"] if isinstance(obs, dict) else obs)
        legal, valid = legal_actions(action_masks, batch, self.net.layout.size, self.device)
        logits, values = run_net(self.net, obs, legal)
        return legal, torch.log_softmax(logits.masked_fill(~valid, -torch.inf), 1), values

    def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks: Any = None):
        legal, log_probs, values = self._log_probs(obs, action_masks)
        pick = log_probs.argmax(1) if deterministic else sample(log_probs)
        return legal.gather(1, pick.unsqueeze(1)).squeeze(1), values, log_probs.gather(1, pick.unsqueeze(1)).squeeze(1)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any = None):
        legal, log_probs, values = self._log_probs(obs, action_masks)
        at = (legal == actions.long().reshape(-1, 1)) & torch.isfinite(log_probs)  # the action's place in the row
        chosen = log_probs.gather(1, at.to(torch.int8).argmax(1, keepdim=True)).squeeze(1)
        chosen = chosen.masked_fill(~at.any(1), -torch.inf)  # an action the mask forbids: log 0
        finite = log_probs.masked_fill(torch.isinf(log_probs), 0.0)  # 0 * log 0 = 0, without nan gradients
        entropy = -(log_probs.exp() * finite).sum(1)
        return values, chosen, entropy

    def _predict(self, observation: torch.Tensor, deterministic: bool = False, action_masks: Any = None):
        legal, log_probs, _ = self._log_probs(observation, action_masks)
        pick = log_probs.argmax(1) if deterministic else sample(log_probs)
        return legal.gather(1, pick.unsqueeze(1)).squeeze(1)

    def get_distribution(self, obs: torch.Tensor, action_masks: Any = None) -> MaskableDistribution:
        logits, _ = self.net(obs)
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def predict_values(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(obs)[1]


SPINNING_THREADS = (
    "torch runs {threads} threads whose GNU OpenMP wait policy spins (OMP_WAIT_POLICY is not PASSIVE): "
    "beside any other busy process their idle threads burn CPU and training costs several times its CPU "
    "time. Call torch.set_num_threads(1), or start Python with OMP_WAIT_POLICY=PASSIVE in the environment "
    "(README: Threads)"
)


def warn_if_threads_spin() -> None:
    """Warn (RuntimeWarning) when torch runs more than one thread and OpenMP's wait policy spins.

    Torch's CPU threads are GNU OpenMP threads, which by default spin while they wait for work;
    beside one busy process on two cores they made the README's MaskablePPO example cost ~7x
    its CPU. A warning rather than a change: torch's thread count is the user's process-wide
    setting (``hgenv`` chooses it from ``run.torch_threads`` with ``OMP_WAIT_POLICY=PASSIVE``, and
    is not warned), and the wait policy cannot be changed once torch is loaded: OpenMP reads
    ``OMP_WAIT_POLICY`` when the library loads, so only the environment as the process saw it
    then counts (this reads it as the process sees it now)."""
    threads = torch.get_num_threads()
    if threads > 1 and os.environ.get("OMP_WAIT_POLICY", "").strip().upper() != "PASSIVE":
        warnings.warn(SPINNING_THREADS.format(threads=threads), RuntimeWarning, stacklevel=3)


def sample(log_probs: torch.Tensor) -> torch.Tensor:
    """One action per row of [B, A] log-probabilities, by inverse CDF with torch's generator.

    u is in (0, 1], so the first index whose cumulative probability reaches u * total
    always has probability > 0: a masked action is never drawn."""
    cumulative = log_probs.exp().cumsum(1)
    u = 1.0 - torch.rand(len(log_probs), 1, device=log_probs.device)
    return torch.searchsorted(cumulative, u * cumulative[:, -1:]).squeeze(1).clamp(max=log_probs.shape[1] - 1)


class CompactRolloutBuffer(MaskableRolloutBuffer):
    """``MaskableRolloutBuffer`` with bool masks, its big arrays allocated once, read in place.

    SB3's buffer allocates the observations (uint8, 53 KB a step) and float32 masks
    (12.6 KB a step) afresh every rollout and copies them into a flat order before
    every update; here they are written and read where they are (rows step-major).
    Dict observations (``lookahead``) are kept as one such array per key."""

    def reset(self) -> None:
        shape = (self.buffer_size, self.n_envs)
        if not hasattr(self, "_store"):
            self.mask_dims = int(self.action_space.n)
            if isinstance(self.observation_space, spaces.Dict):
                observations: Any = {
                    key: np.zeros((*shape, *space.shape), dtype=space.dtype)
                    for key, space in self.observation_space.spaces.items()
                }
            else:
                observations = np.zeros((*shape, *self.obs_shape), dtype=self.observation_space.dtype)
            self._store = (observations, np.ones((*shape, self.mask_dims), dtype=bool))
        self.observations, self.action_masks = self._store
        self.actions = np.zeros((*shape, self.action_dim), dtype=self.action_space.dtype)
        for name in ("rewards", "returns", "episode_starts", "values", "log_probs", "advantages"):
            setattr(self, name, np.zeros(shape, dtype=np.float32))
        self.generator_ready = False
        self.pos, self.full = 0, False

    def add(
        self,
        obs: Any,
        action: np.ndarray,
        reward: np.ndarray,
        episode_start: np.ndarray,
        value: torch.Tensor,
        log_prob: torch.Tensor,
        action_masks: np.ndarray | None = None,
    ) -> None:
        if isinstance(self.observations, dict):
            for key, array in self.observations.items():
                array[self.pos] = obs[key]
        else:
            self.observations[self.pos] = obs
        if action_masks is not None:
            self.action_masks[self.pos] = action_masks.reshape(self.n_envs, self.mask_dims)
        self.actions[self.pos] = np.asarray(action).reshape(self.n_envs, self.action_dim)
        self.rewards[self.pos] = reward
        self.episode_starts[self.pos] = episode_start
        self.values[self.pos] = value.detach().cpu().numpy().reshape(-1)
        self.log_probs[self.pos] = log_prob.detach().cpu().numpy().reshape(-1)
        self.pos += 1
        self.full = self.pos == self.buffer_size

    def get(self, batch_size: int | None = None):
        assert self.full, "the rollout buffer is not full"
        total = self.buffer_size * self.n_envs
        indices = np.random.permutation(total)
        if not self.generator_ready:  # flat views, row = step * n_envs + env: no copies
            for name in ("actions", "values", "log_probs", "advantages", "returns", "action_masks"):
                array = getattr(self, name)
                setattr(self, name, array.reshape(total, *array.shape[2:]))
            if isinstance(self.observations, dict):
                self.observations = {k: v.reshape(total, *v.shape[2:]) for k, v in self.observations.items()}
            else:
                self.observations = self.observations.reshape(total, *self.observations.shape[2:])
            self.generator_ready = True
        batch_size = batch_size or total
        for start in range(0, total, batch_size):
            yield self._get_samples(indices[start : start + batch_size])

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskableRolloutBufferSamples:
        if isinstance(self.observations, dict):
            observations: Any = {key: self.to_torch(array[batch_inds]) for key, array in self.observations.items()}
        else:
            observations = self.to_torch(self.observations[batch_inds])
        rest = (
            self.actions[batch_inds],
            self.values[batch_inds],
            self.log_probs[batch_inds],
            self.advantages[batch_inds],
            self.returns[batch_inds],
            self.action_masks[batch_inds],
        )
        return MaskableRolloutBufferSamples(observations, *map(self.to_torch, rest))
