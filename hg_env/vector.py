"""Batched self-play on the core: N games, one learner seat each, opponents deciding in batches.

``VectorEnv`` is numpy only (no torch). Each step takes one action per game for
the learner, then lets the opponents play (every opponent decides for all the
games where it is to move at once) until it is the learner's turn again or the
game is over; finished games are reported and restarted automatically.

Seats and opponents. At every new game the learner's seat is drawn uniformly
(or fixed with ``learner_seat``) and one opponent is drawn from the pool with
probability proportional to its weight; it plays all the other seats of that
game. An opponent is any object with ``act_batch(observations, action_masks,
state) -> actions`` (the ``hg_env.agents.Agent`` protocol): ``observations`` is the
[G, C, H, W] board tensor of the deciding seats when ``opponent.uses_observation``
is true, else None; ``state`` is the batched core state of those G games (a
copy). ``None`` in the pool means uniformly random legal moves.

Rewards are those of ``hg_env.aec`` (``"win"``, ``"score_diff"``, ``"score"``),
summed over everything that happened since the learner's previous action.

Observations are the [N, C, H, W] board tensors of the learners' seats. With
``lookahead=True`` they are a dict (a gymnasium ``Dict`` space)::

    "board"      uint8   [N, C, H, W]  the board tensor, as above
    "lookahead"  float32 [N, 2, A]     per legal action: the learner's and its opponents'
                                       estimated gain (hg_env.core.search.lookahead_features)
    "estimate"   float32 [N, 2]        the learner's and its opponents' estimated final score

The lookahead reads only public information (it re-deals the hidden decks with
the env's own seeded generator), the same one-turn search ``greedy`` plays by.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hg_env.aec import REWARDS, rank_rewards
from hg_env.core import engine, search
from hg_env.core.actions import action_layout
from hg_env.core.observation import channel_high, channel_names, observe
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, check_int
from hg_env.core.state import OVER, State


def lookahead_observation(
    board: np.ndarray, state: State, rng: np.random.Generator, seats: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """The observation of ``lookahead=True`` (module docstring) from the board tensors of the
    games of ``state``, seen from ``seats`` (default: the seats to move)."""
    gains, estimates = search.lookahead_features(state, rng, seats)
    return {"board": board, "lookahead": gains, "estimate": estimates}


MAX_ENVS = 1 << 16  # games in one process: beyond this the state alone needs gigabytes


class VectorEnv:
    """N games of self-play for one learner; see the module docstring."""

    render_mode = None  # boards are drawn per game: hg_env.render on Game.from_record or the AEC env

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        reward: str = "win",
        seed: int | None = None,
        opponents: Sequence[Any] | None = None,
        opponent_weights: Sequence[float] | None = None,
        learner_seat: int | None = None,
        lookahead: bool = False,
        **rule_flags: Any,
    ) -> None:
        num_envs = check_int("num_envs", num_envs, 1, MAX_ENVS)
        num_players = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if learner_seat is not None and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, (int, np.integer))
            or not 0 <= learner_seat < num_players
        ):
            raise ValueError(
                f"learner_seat must be None (drawn per game) or 0..{num_players - 1}, got {learner_seat!r}"
            )
        self.num_envs = int(num_envs)
        self.num_players = int(num_players)
        self.reward_mode = reward
        self.rules = Rules.from_kwargs(**rule_flags)
        self.layout = action_layout(self.rules)
        self.fixed_seat = learner_seat
        self.rng = np.random.default_rng(seed)
        self.lookahead = bool(lookahead)
        self.lookahead_rng = np.random.default_rng(None if seed is None else [seed, 1])  # its own stream: the
        # games are the same with and without lookahead features
        self.set_opponents([None] if opponents is None else opponents, opponent_weights)
        size = self.rules.board.size
        reach, ruleset = self.rules.reach, self.rules.ruleset
        self.observation_shape = (len(channel_names(ruleset, reach)), size, size)
        self.observation_high = np.broadcast_to(channel_high(ruleset, reach)[:, None, None], self.observation_shape)
        self.state = None

    # ------------------------------------------------------------ opponents

    def set_opponents(self, opponents: Sequence[Any], weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool; games started from now on draw from it."""
        opponents = list(opponents)
        if not opponents:
            raise ValueError("the opponent pool is empty")
        for opp in opponents:
            if opp is not None and not hasattr(opp, "act_batch"):
                raise ValueError(f"an opponent needs act_batch(observations, masks, state), got {opp!r}")
        w = np.ones(len(opponents)) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (len(opponents),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(
                f"opponent weights must be {len(opponents)} non-negative numbers, not all 0, got {weights!r}"
            )
        self.opponents = opponents
        self.opponent_probs = w / w.sum()

    # ------------------------------------------------------------ the loop

    def reset(self, seed: int | None = None) -> np.ndarray | dict[str, np.ndarray]:
        """Start N new games; returns the learners' observations (module docstring)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.lookahead_rng = np.random.default_rng([seed, 1])
        n = self.num_envs
        self.seats = np.zeros(n, dtype=np.int64)
        self.opponent_of = np.zeros(n, dtype=np.int64)
        self.episode_reward = np.zeros(n)
        self.episode_length = np.zeros(n, dtype=np.int64)
        self.state = engine.new_games(
            self.num_players, self.rules, seeds=self._draw_games(np.arange(n)), record_events=False
        )
        self._play_opponents()
        self._last_scores = self.state.score.astype(np.int64)  # the opponents' opening moves are not the learner's
        return self.observations()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray | dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict]]:
        """One learner action per game -> (observations, rewards, dones, infos); finished games restart.

        Raises ValueError naming the game and move if an action is illegal."""
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        engine.step(self.state, actions)
        self._play_opponents()
        rewards = self._rewards()
        self.episode_reward += rewards
        self.episode_length += 1
        done = self.state.phase == OVER
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        finished = np.flatnonzero(done)
        if len(finished):
            final_obs = self._observe(finished)
            for k, i in enumerate(finished):
                scores = self.state.score[i, : self.num_players].tolist()
                me = scores[self.seats[i]]
                best_other = max(s for j, s in enumerate(scores) if j != self.seats[i])
                infos[i] = {
                    "terminal_observation": final_obs[k]
                    if not self.lookahead
                    else {key: value[k] for key, value in final_obs.items()},
                    "final_scores": scores,
                    "learner_seat": int(self.seats[i]),
                    "opponent": int(self.opponent_of[i]),
                    "outcome": int(np.sign(me - best_other)),  # 1 win, 0 shared victory, -1 loss
                    "episode": {"r": float(self.episode_reward[i]), "l": int(self.episode_length[i])},
                }
            self._restart(finished)
        return self.observations(), rewards.astype(np.float32), done, infos

    def observations(self) -> np.ndarray | dict[str, np.ndarray]:
        """Each learner's observation: the [N, C, H, W] uint8 board tensors, or with ``lookahead``
        a dict of them and the lookahead features (module docstring)."""
        return self._observe(np.arange(self.num_envs))

    def _observe(self, games: np.ndarray) -> np.ndarray | dict[str, np.ndarray]:
        board = observe(self.state, games, self.seats[games])
        if not self.lookahead:
            return board
        state = self.state if len(games) == self.num_envs else self.state.take(games)  # games: sorted
        return lookahead_observation(board, state, self.lookahead_rng, self.seats[games])

    def action_masks(self) -> np.ndarray:
        """[N, A] bool legal actions of each learner."""
        return engine.legal_action_mask(self.state)

    # ------------------------------------------------------------ helpers

    def _draw_games(self, games: np.ndarray) -> list[int]:
        """Seat, opponent and deck seed of each new game."""
        k = len(games)
        if self.fixed_seat is None:
            self.seats[games] = self.rng.integers(self.num_players, size=k)
        else:
            self.seats[games] = self.fixed_seat
        self.opponent_of[games] = self.rng.choice(len(self.opponents), size=k, p=self.opponent_probs)
        return self.rng.integers(2**63 - 1, size=k).tolist()

    def _restart(self, games: np.ndarray) -> None:
        seeds = self._draw_games(games)
        engine.reset_games(self.state, games, seeds=seeds)
        self.episode_reward[games] = 0
        self.episode_length[games] = 0
        self._play_opponents(games)
        self._last_scores[games] = self.state.score[games]  # opening moves score nothing the learner earned

    def _play_opponents(self, games: np.ndarray | None = None) -> None:
        """Opponents decide, in batches, until every game waits for its learner or is over."""
        state = self.state
        scope = np.zeros(self.num_envs, dtype=bool)
        scope[np.arange(self.num_envs) if games is None else games] = True
        while True:
            waiting = np.flatnonzero(scope & (state.phase != OVER) & (state.current != self.seats))
            if not len(waiting):
                return
            actions = np.full(self.num_envs, -1, dtype=np.int64)
            for k in np.unique(self.opponent_of[waiting]):
                games_k = waiting[self.opponent_of[waiting] == k]
                actions[games_k] = self._decide(self.opponents[k], games_k)
            engine.step(state, actions)

    def _decide(self, opponent: Any, games: np.ndarray) -> np.ndarray:
        if opponent is None:  # uniform: the draws sample_uniform makes from the masks, without them
            return engine.sample_legal(self.state, self.rng, games)
        masks = engine.legal_action_mask(self.state, games)
        obs = observe(self.state, games, self.state.current[games]) if opponent.uses_observation else None
        actions = np.asarray(opponent.act_batch(obs, masks, self.state.take(games)), dtype=np.int64)
        if actions.shape != (len(games),):
            raise ValueError(f"opponent {opponent!r} returned {actions.shape} actions for {len(games)} games")
        return actions

    def _rewards(self) -> np.ndarray:
        """The learner's reward for everything since its previous action."""
        n, p = self.num_envs, self.num_players
        scores = self.state.score[:, :p].astype(np.int64)
        delta = scores - self._last_scores[:, :p]
        self._last_scores[:, :p] = scores
        mine = delta[np.arange(n), self.seats]
        if self.reward_mode == "score":
            return mine.astype(float)
        if self.reward_mode == "score_diff":
            return mine - (delta.sum(1) - mine) / (p - 1)
        out = np.zeros(n)
        for i in np.flatnonzero(self.state.phase == OVER):
            out[i] = rank_rewards(scores[i].tolist())[self.seats[i]]
        return out
