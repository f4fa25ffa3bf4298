"""``HGVecEnv``: stable-baselines3's ``VecEnv`` over the batched self-play env ``hg_env.vector``.

All N games live in one process and are stepped together with array operations;
there are no subprocesses. sb3-contrib's ``MaskablePPO`` reads the legal moves
through ``env_method("action_masks")``.

Opponents are agent spec strings (``"random"``, ``"greedy"``, ``"mcts:sims=50"``,
``"policy:path=..."``) or ``hg_env.agents.Agent`` objects; each new game draws one from
the pool with probability proportional to ``opponent_weights`` (see
``hg_env.vector``). ``"random"`` is the env's own uniform sampler.

With ``lookahead=True`` the observations are a ``Dict`` of the board tensor and
the one-turn lookahead's per-action gains (``hg_env.vector``); ``HGPolicy`` with
``lookahead=True`` reads them.

``infos`` of a finished game hold ``terminal_observation``, ``final_scores``,
``learner_seat``, ``opponent`` (index in the pool), ``outcome`` (1 win, 0 shared
victory, -1 loss) and ``episode`` (``r``: summed reward, ``l``: learner steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from hg_env.agents.base import Agent, make_agent
from hg_env.single_agent import env_spaces
from hg_env.vector import VectorEnv


def resolve_opponents(opponents: Sequence[str | Agent | None], seed: int | None = None) -> list[Agent | None]:
    """Spec strings -> agents (``"random"`` -> None: the env's own uniform sampler)."""
    out: list[Agent | None] = []
    for i, opp in enumerate(opponents):
        if isinstance(opp, str):
            out.append(None if opp == "random" else make_agent(opp, seed=None if seed is None else seed + i))
        else:
            out.append(opp)
    return out


class HGVecEnv(VecEnv):
    """N Hunters & Gatherers games for one learner against an opponent pool (module docstring)."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        reward: str = "win",
        seed: int | None = None,
        opponents: Sequence[str | Agent | None] = ("random",),
        opponent_weights: Sequence[float] | None = None,
        learner_seat: int | None = None,
        lookahead: bool = False,
        **rule_flags: Any,
    ) -> None:
        self.venv = VectorEnv(
            num_envs,
            num_players=num_players,
            reward=reward,
            seed=seed,
            opponents=resolve_opponents(opponents, seed),
            opponent_weights=opponent_weights,
            learner_seat=learner_seat,
            lookahead=lookahead,
            **rule_flags,
        )
        super().__init__(num_envs, *env_spaces(self.venv.rules.reach, lookahead, self.venv.rules.ruleset))
        self._seed = seed
        self._seed_next = seed  # used by the next reset() only; later resets continue the stream
        self._actions: np.ndarray | None = None

    def set_opponents(self, opponents: Sequence[str | Agent | None], weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool; games started from now on draw from it."""
        self.venv.set_opponents(resolve_opponents(opponents, self._seed), weights)

    def action_masks(self) -> np.ndarray:
        """[N, A] bool legal actions of each learner."""
        return self.venv.action_masks()

    # ------------------------------------------------------------ VecEnv API

    def reset(self) -> np.ndarray | dict[str, np.ndarray]:
        seed, self._seed_next = self._seed_next, None
        return self.venv.reset(seed=seed)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The next ``reset`` restarts every game from this seed."""
        self._seed_next = seed
        return [seed] * self.num_envs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        obs, rewards, dones, infos = self.venv.step(self._actions)
        self._actions = None
        return obs, rewards, dones, infos

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self.venv, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """``action_masks`` gives one [A] mask per game, as sb3-contrib's ``get_action_masks`` expects."""
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))
