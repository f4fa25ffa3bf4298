"""``SingleAgentEnv``: one learner against fixed opponents, as a ``gymnasium.Env``.

For stable-baselines3 and sb3-contrib's ``MaskablePPO``::

    from sb3_contrib import MaskablePPO
    from hg_env.agents import make_agent
    from hg_env.train.policy import HGPolicy
    import hg_env

    env = hg_env.SingleAgentEnv(opponents=[make_agent("greedy", seed=0)], reward="win")
    model = MaskablePPO(HGPolicy, env).learn(10_000)   # uses env.action_masks()

The observation is the board tensor of ``hg_env.aec`` (uint8 [C, H, W]) seen from
the learner; ``action_masks()`` is the legal-action mask. Opponents play their
turns inside ``step``; the learner's reward is everything it earned since its
previous action (see the reward modes of ``hg_env.aec``).

The board tensor is not an image: its channels are counts and flags with their own
bounds (``board_space``). Networks made for it: ``hg_env.train.policy.HGPolicy`` (the
project's own) or ``hg_env.agents.features.BoardCNN`` as the features extractor of
``"MlpPolicy"``. SB3's ``"CnnPolicy"`` (NatureCNN, for RGB frames of 36x36 pixels or
more) refuses it with an AssertionError naming the space; plain ``"MlpPolicy"``
flattens it into a 7-million-parameter first layer.

By name, through Gymnasium's registry (the ``hg_env:`` prefix imports hg_env, which
registers the ids; Gymnasium 1.x has no entry-point plugins)::

    env = gymnasium.make("hg_env:hg_env/HuntersGatherers-v0", opponents=[...])  # also
    # hg_env/HuntersGatherersClassic-v0 (hg2002) and hg_env/Carcassonne-v0 (carcassonne)
    env.get_wrapper_attr("action_masks")()   # the mask through Gymnasium's wrappers (SB3 reads it so)

An opponent is an ``hg_env.agents.Agent`` (called with the game as its search hook, and
the observation only if ``agent.uses_observation``) or any callable
``(observation, action_mask) -> action``.

Illegal learner actions: by default (``illegal_action="lose"``) the episode ends
with ``illegal_reward``, as PettingZoo's ``TerminateIllegalWrapper`` does (SB3's
``check_env`` samples unmasked actions); the env warns once, naming the first such
move, and ``info["illegal_action"]`` names every one. ``illegal_action="raise"``
raises ValueError instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import logger, spaces

from hg_env.aec import raw_env
from hg_env.core import search
from hg_env.core.actions import action_layout, sample_uniform
from hg_env.core.observation import channel_high
from hg_env.game import check_action


def board_space(board_reach: int = 12, ruleset: str = "hg2020") -> spaces.Box:
    """The board tensor's space: uint8 [C, H, W], channel c bounded by ``channel_high(ruleset, board_reach)[c]``.

    It prints as ``Box(0, channel_high('hg2020', 12), (85, 25, 25), uint8)`` rather than as
    its 53,125 bounds (SB3 quotes the space in its errors, e.g. when ``"CnnPolicy"`` refuses it)."""
    high = channel_high(ruleset, board_reach)
    size = 2 * board_reach + 1
    bounds = np.ascontiguousarray(np.broadcast_to(high[:, None, None], (len(high), size, size)))
    space = spaces.Box(low=0, high=bounds, dtype=np.uint8)
    space.high_repr = f"channel_high({ruleset!r}, {board_reach})"
    return space


def env_spaces(
    board_reach: int, lookahead: bool = False, ruleset: str = "hg2020"
) -> tuple[spaces.Box | spaces.Dict, spaces.Discrete]:
    """The observation and action spaces of ``HGVecEnv`` and ``SingleAgentEnv``, and of a network that
    reads them (hg_env.agents.model_file): the board tensor (``board_space``), or with ``lookahead`` a
    ``Dict`` of it, the one-turn lookahead's per-action gains and the estimates (``hg_env.vector``)."""
    board = board_space(board_reach, ruleset)
    actions = action_layout(board_reach, ruleset).size
    if not lookahead:
        return board, spaces.Discrete(actions)
    gains = (len(search.LOOKAHEAD_FEATURES), actions)  # see hg_env.vector
    observation = spaces.Dict(
        {
            "board": board,
            "lookahead": spaces.Box(-np.inf, np.inf, gains, dtype=np.float32),
            "estimate": spaces.Box(-np.inf, np.inf, (len(search.ESTIMATE_FEATURES),), dtype=np.float32),
        }
    )
    return observation, spaces.Discrete(actions)


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against ``opponents``; see the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array", "svg"], "render_fps": 2}

    def __init__(
        self,
        opponents: Sequence[Any] | Callable | None = None,
        seat: int | None = None,
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        **env_kwargs: Any,
    ) -> None:
        super().__init__()
        self.aec = raw_env(**env_kwargs)
        n = self.aec.num_players
        if opponents is None:
            opponents = [None] * (n - 1)  # None: uniformly random legal moves
        elif callable(opponents) or hasattr(opponents, "act"):
            opponents = [opponents] * (n - 1)
        opponents = list(opponents)
        if len(opponents) != n - 1:
            raise ValueError(f"{n} players need {n - 1} opponents, got {len(opponents)}")
        for opp in opponents:
            if opp is not None and not (callable(opp) or hasattr(opp, "act")):
                raise ValueError(
                    f"an opponent must be an Agent or a callable (observation, mask) -> action, got {opp!r}"
                )
        if seat is not None and not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
            raise ValueError(f"seat must be None (random each episode) or 0..{n - 1}, got {seat!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.opponents = opponents
        self.fixed_seat = seat
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = self.aec.render_mode
        self.observation_space = board_space(self.aec.rules.reach, self.aec.rules.ruleset)
        self.action_space = self.aec.action_space("player_0")
        self.seat = 0 if seat is None else int(seat)
        self._warned_illegal = False

    @property
    def game(self):
        """The underlying ``hg_env.Game`` (read-only use)."""
        return self.aec.game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        n = self.aec.num_players
        self.seat = int(self.np_random.integers(n)) if self.fixed_seat is None else int(self.fixed_seat)
        self.aec.reset(seed=int(self.np_random.integers(2**31 - 1)), options=options)
        for opp in self.opponents:
            if hasattr(opp, "reset"):
                opp.reset(seed=int(self.np_random.integers(2**31 - 1)))
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        learner = self.aec.possible_agents[self.seat]
        if self.aec.terminations[learner]:
            raise RuntimeError("the episode is over: call reset()")
        action = check_action(action)  # a float or string is a caller's bug, not an illegal move: it raises
        if not self.action_masks()[action] if 0 <= action < self.action_space.n else True:
            message = f"illegal action {action} ({self._describe(action)}) for {learner} in phase {self.game.phase}"
            if self.illegal_action == "raise":
                raise ValueError(message)
            if not self._warned_illegal:  # once per env: check_env and unmasked learners send many
                logger.warn(message + "; the episode ends with illegal_reward (said once; info['illegal_action'])")
                self._warned_illegal = True
            for agent in self.aec.agents:
                self.aec.terminations[agent] = True
            return self._observation(), self.illegal_reward, True, False, self._info(illegal_action=message)
        self.aec.step(action)
        self._play_opponents()
        reward = float(self.aec._cumulative_rewards[learner])
        terminated = bool(self.aec.terminations[learner])
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """[A] bool legal actions of the learner (all False once the game is over)."""
        if self.game.is_over:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.game.action_mask()

    def render(self) -> str | np.ndarray | None:
        return self.aec.render()

    # ------------------------------------------------------------ helpers

    def _play_opponents(self) -> None:
        """Let the opponents decide until it is the learner's turn or the game is over."""
        while not self.game.is_over and self.game.current_player != self.seat:
            seat = self.game.current_player
            opp = self.opponents[seat if seat < self.seat else seat - 1]
            mask = self.game.action_mask()
            if opp is None:
                action = int(sample_uniform(mask[None], self.np_random)[0])
            elif hasattr(opp, "act"):
                obs = self.aec.observe(self.aec.agents[seat])["observation"] if opp.uses_observation else None
                action = int(opp.act(obs, mask, game=self.game))
            else:
                action = int(opp(self.aec.observe(self.aec.agents[seat])["observation"], mask))
            self.aec.step(action)

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def _info(self, **extra: Any) -> dict:
        info = {"seat": self.seat, "scores": self.game.scores, "action_mask": self.action_masks()}
        if self.game.is_over:
            info["winners"] = self.game.winners
        info.update(extra)
        return info

    def _describe(self, action: int) -> str:
        if 0 <= action < self.action_space.n:
            return self.game.describe(action)
        return f"outside the action space [0, {self.action_space.n})"
