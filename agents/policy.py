"""``policy``: a trained policy (``hgenv train``, or your own MaskablePPO) playing from the board tensor.

Spec: ``policy:path=runs/quick/final_model.zip,deterministic=true[,ruleset=hg2020]``.

``path`` is a model file (hg_env.agents.model_file): ``final_model.zip`` or a
snapshot of ``hgenv train``, a file written by ``export_sb3``, or a plain
sb3-contrib ``MaskablePPO`` zip of an allow-listed policy. Loading it runs no
code from it: only plain JSON and tensors are read. ``ruleset`` (default: the
one the file names; "hg2020" for a MaskablePPO zip) must match the model's.
With ``deterministic=true`` (the default) the agent plays the most probable
legal move; with ``false`` it samples from the policy with its own seeded
generator, so games stay reproducible.

A policy trained with ``lookahead = true`` also reads the one-turn lookahead's
gain of every legal move (``hg_env.core.search.lookahead_features``), computed
here from the game state on a re-deal drawn from the agent's generator: it
needs the state (``act(..., game=game)``, ``act_batch(..., state=state)``),
as ``greedy`` does.

Needs torch (the ``[train]`` extra), and sb3-contrib for a model of an SB3 policy
(``MlpPolicy``, ...); a model of ``hgenv train`` plays without it. ``hg_env`` itself
never imports torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from hg_env.agents.base import Agent, ranked, register

if TYPE_CHECKING:
    from torch import nn

    from hg_env.core.state import State
    from hg_env.game import Game


@register
class PolicyAgent(Agent):
    """A trained network: the most probable legal move, or a sample (module docstring)."""

    name = "policy"
    uses_observation = True
    option_docs = {
        "path": "model file: final_model.zip, a snapshot or a MaskablePPO zip",
        "deterministic": "true: the most probable legal move; false: a seeded sample",
        "ruleset": "the model's ruleset (default: the file's; another is refused)",
    }

    def __init__(
        self, seed: int | None = None, path: str = "", deterministic: bool = True, ruleset: str | None = None
    ) -> None:
        super().__init__(seed)
        if not path:
            raise ValueError("the policy agent needs a model file: policy:path=runs/quick/final_model.zip")
        from hg_env.agents.model_file import load_model

        self.path = path
        self.deterministic = deterministic
        loaded = load_model(path, ruleset=ruleset or None)
        self.net: nn.Module = loaded.net
        self.ruleset: str | None = loaded.metadata["ruleset"]
        observation = loaded.metadata["observation"]
        self.board_shape: tuple[int, ...] | None = tuple(observation.get("board", observation)["shape"])

    def model_file(self, ruleset: str) -> str | None:
        return getattr(self, "path", None) or None  # from_policy: in memory

    @classmethod
    def from_policy(cls, policy: Any, deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
        """An agent around a policy in memory; it shares the weights. ``policy``: an ``HGPolicy``
        (evaluation during training) or any stable-baselines3 actor-critic policy on hg_env's
        observations (``"MlpPolicy"``, ``"MultiInputPolicy"`` with lookahead, ``BoardCNN``)."""
        from gymnasium import spaces

        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        net = getattr(policy, "net", None)
        if net is None:
            from hg_env.agents.model_file import MaskablePolicyNet

            net = MaskablePolicyNet(policy)
        space = policy.observation_space
        board = space["board"] if isinstance(space, spaces.Dict) else space
        agent.path, agent.deterministic, agent.net, agent.board_shape = "", deterministic, net, tuple(board.shape)
        agent.ruleset = getattr(net, "ruleset", None)
        agent.spec = "policy:(in memory)"
        return agent

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if observation is None:
            raise ValueError("the policy agent reads the board tensor: pass the observation")
        state = None if game is None else game.state
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], state)[0])

    def _logits(self, observations: Any, masks: np.ndarray, state: State | None) -> np.ndarray:
        """[B, A] float64 logits of the network, -inf for illegal actions (``act_batch``'s checks)."""
        import torch

        from hg_env.agents.network import run_net
        from hg_env.vector import lookahead_observation

        if observations is None:
            raise ValueError("the policy agent reads the board tensor: pass the observations")
        observations = np.asarray(observations)
        if state is not None and self.ruleset is not None and state.rules.ruleset != self.ruleset:
            who = self.path or "this policy"
            raise ValueError(f"{who} was trained on {self.ruleset!r} and does not play {state.rules.ruleset!r}")
        if self.board_shape is not None and observations.shape[1:] != self.board_shape:
            raise ValueError(
                f"{self.path or 'this policy'} reads observations of shape {self.board_shape}, "
                f"got {observations.shape[1:]}: "
                "the model was trained on another board (board_reach) or ruleset"
            )
        device = next(self.net.parameters()).device  # a model trained on a GPU stays there
        inputs: Any = torch.as_tensor(observations, device=device)
        if self.net.lookahead:
            if state is None:
                raise ValueError(
                    f"{self.path or 'this policy'} reads lookahead features: pass the game (act(..., game=game)) "
                    "or the batched state (act_batch(..., state=state))"
                )
            arrays = lookahead_observation(np.asarray(observations), state, self.rng)
            inputs = {key: torch.as_tensor(value, device=device) for key, value in arrays.items()}
        with torch.no_grad():
            logits, _ = run_net(self.net, inputs)
        logits = logits.double().cpu().numpy()
        logits[~masks] = -np.inf
        return logits

    def explain(self, game: Game, top: int = 8) -> list[dict]:
        """The network's probability ``p`` of each legal move (a softmax over the legal moves); ``weight``
        is ``p`` over the most probable move's."""
        from hg_env.core.observation import observe

        masks = game.action_mask()[None]
        obs = observe(game.state, np.array([0]), np.array([game.current_player]))
        logits = self._logits(obs, masks, game.state)[0]
        legal = np.flatnonzero(masks[0])
        p = np.exp(logits[legal] - logits[legal].max())
        p /= p.sum()
        return ranked(legal, p, p / p.max(), top, p=p)

    def act_batch(self, observations: Any, action_masks: np.ndarray, state: State | None = None) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        logits = self._logits(observations, masks, state)
        if not self.deterministic:  # Gumbel-max with the agent's generator: a sample of softmax(logits)
            logits += self.rng.gumbel(size=logits.shape)
        actions = logits.argmax(1)
        return np.where(masks.any(1), actions, -1).astype(np.int64)
