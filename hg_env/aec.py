"""Hunters & Gatherers as a PettingZoo AEC environment (``hunters_gatherers_v0``).

Env card
--------
============================  ==============================================================
Import                        ``import hg_env; env = hg_env.env(num_players=3)``
Registry                      ``pettingzoo.make("aec", "hg_env/hunters_gatherers-v0")`` (PettingZoo >= 1.27)
Agents                        ``player_0 ... player_{n-1}``, n = 2..5; ``player_0`` starts
Action space                  ``Discrete(5N + 36)``, N = (2 * board_reach + 1)^2 (3161 by default)
Observation space             ``Dict(observation=Box(uint8, [C, H, W]), action_mask=Box(int8, [A]))``
Observation shape (default)   ``(85, 25, 25)``; channels: ``hg_env.channel_names()``
Rewards                       ``"win"`` (default), ``"score_diff"`` or ``"score"``, see below
Render modes                  ``"ansi"``, ``"rgb_array"`` (``pip install hg-env[render]``)
============================  ==============================================================

Turn order. The agent to act (``env.agent_selection``) is always the one whose
decision it is: it places the drawn tile, may take a pawn back after the shaman,
then may place an occupant. A menhir extra turn keeps the same agent (R3.3).
Decisions with no choice but "none" are skipped (R3.7).

Actions. One flat ``Discrete`` space for every decision; the layout, drawn in
``hg_env.core.actions``::

    [0, 4N)          place the drawn tile on cell c with rotation r: 4 * c + r
    [4N, 4N+8)       pawn on local zone 0..7 of the tile just placed
    [4N+8, 4N+18)    hut on local zone 0..9
    [4N+18, 5N+18)   shaman: take back the own pawn on cell c
    [5N+18, 5N+35)   pit trap (option): tigers eat k in-range deer
    5N+35            none

``hg_env.encode``, ``hg_env.decode`` and ``hg_env.describe`` convert between
indices and readable moves (``place 41 at (1,0) r0``, ``pawn on zone 2``). The
action mask is exact: an action is unmasked iff the rules allow it now. Agents
that are not acting get an all-zero mask.

Observations. ``observation`` is the board seen from the observing agent, as
documented in ``hg_env.core.observation`` (own pieces first, the other seats
after it in turn order): tiles with their rotations and sides, animals (cancelled
ones marked), fish, lakes, menhirs, mushrooms, special powers, occupants and
their owners, per-area planes (open connections, size, value, occupants per
seat) for forests, meadows, rivers and river systems, the legal placements of
the drawn tile, and the scores, supplies, phase, turn, tile to place and unseen
tiles as info planes. ``hg_env.channel_names()`` names the channels,
``hg_env.channel_scale()`` gives factors to [0, 1].

Rewards (keyword ``reward``):

* ``"win"``: 0 until the game ends, then a rank value in [-1, 1]:
  ``1 - 2 * rank / (n - 1)``, where tied players share the mean of their ranks.
  Two players: +1 winner, -1 loser, 0 each on a tie (shared victory, R8.2.4).
* ``"score_diff"``: every step, the change of the agent's score minus the mean
  change of the other players' scores.
* ``"score"``: every step, the change of the agent's score.

Rewards go to the agents they belong to, including agents that did not act
(accumulated as PettingZoo does). Games always end (R8.1); there is no truncation.

Version history: v0, the first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hg_env.core.actions import action_layout
from hg_env.core.observation import channel_high, channel_names, observe
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from hg_env.game import Game

REWARDS = ("win", "score_diff", "score")
RESET_OPTIONS = ("regular_deck", "menhir_deck")
_THE_GAME = np.zeros(1, dtype=np.intp)  # the Game's state holds one game: row 0


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (illegal move, bounds, order)."""
    environment = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


def rank_rewards(scores: list[int]) -> list[float]:
    """``1 - 2 * rank / (n - 1)`` with tied players sharing the mean of their ranks."""
    scores_arr = np.asarray(scores)
    n = len(scores_arr)
    above = (scores_arr[None, :] > scores_arr[:, None]).sum(1)  # players strictly ahead
    tied = (scores_arr[None, :] == scores_arr[:, None]).sum(1)
    rank = above + (tied - 1) / 2
    return (1 - 2 * rank / (n - 1)).tolist()


class raw_env(AECEnv):
    """Hunters & Gatherers without wrappers; see the module docstring (env card)."""

    metadata = {
        "name": "hunters_gatherers_v0",
        "render_modes": ["ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, num_players: int = 2, reward: str = "win", render_mode: str | None = None, **rule_flags: Any
    ) -> None:
        super().__init__()
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an int {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
        if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ValueError(f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.rules = Rules.from_kwargs(**rule_flags)
        self.num_players = int(num_players)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.layout = action_layout(self.rules.reach)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        size = self.rules.board.size
        high = np.broadcast_to(
            channel_high(self.rules.reach)[:, None, None], (len(channel_names(self.rules.reach)), size, size)
        )
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0, high=np.ascontiguousarray(high), dtype=np.uint8),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.layout.size,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.layout.size) for a in self.possible_agents}
        self.game: Game | None = None
        self.np_random, self.np_random_seed = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------ AEC API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """New game. ``seed`` fixes the deck order; ``options`` may give ``regular_deck`` /
        ``menhir_deck`` (tile id lists, drawn in that order)."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:  # a warning, not an error: PettingZoo's api_test passes arbitrary options
            logger.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}")
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        game_seed = int(self.np_random.integers(2**63 - 1))
        self.game = Game(
            self.num_players,
            seed=game_seed,
            regular_deck=options.get("regular_deck"),
            menhir_deck=options.get("menhir_deck"),
            **self.rules.as_dict(),
        )
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._scores = self.game.scores
        self.agent_selection = self.agents[self.game.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        state = self.game.state
        board = observe(state, _THE_GAME, np.array([seat]))[0]
        if not self.game.is_over and seat == self.game.current_player:
            mask = self.game.action_mask().view(np.int8)  # bool and int8 share a layout: no copy
        else:
            mask = np.zeros(self.layout.size, dtype=np.int8)
        return {"observation": board, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act (phase {self.game.phase}); got action None")
        self._cumulative_rewards[agent] = 0
        self.game.step(int(action))  # ValueError naming the move if it is illegal
        scores = self.game.scores
        self._set_rewards(scores)
        self._scores = scores
        if self.game.is_over:
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"scores": scores, "winners": self.game.winners}
        self.agent_selection = self.agents[self.game.current_player]
        self._accumulate_rewards()

    def _set_rewards(self, scores: list[int]) -> None:
        if self.reward_mode == "win":
            values = rank_rewards(scores) if self.game.is_over else [0.0] * self.num_players
        else:
            delta = np.subtract(scores, self._scores).astype(float)
            if self.reward_mode == "score_diff":
                delta = delta - (delta.sum() - delta) / (self.num_players - 1)
            values = delta.tolist()
        self.rewards = dict(zip(self.agents, values))

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        return self.game.render(self.render_mode)

    def close(self) -> None:
        pass
