"""The Carcassonne family as PettingZoo AEC environments: one env, a ``ruleset`` each.

Env card
--------
============================  ==============================================================
Import                        ``import hg_env; env = hg_env.env(num_players=3, ruleset="hg2020")``
Rulesets and env names        one per folder of hg_env/rulesets/, each with its own versioned env
                              name, registry ids and spaces: see "Rulesets" at the end
Agents                        ``player_0 ... player_{n-1}``, n = 2..5; ``player_0`` starts
Action space                  ``Discrete(A)``, A per ruleset (below); N = (2 * board_reach + 1)^2
                              cells (625 by default)
Observation space             ``Dict(observation=Box(uint8, [C, H, W]), action_mask=Box(int8, [A]))``
Observation shape (default)   ``(C, 25, 25)``, C per ruleset (below); channels:
                              ``hg_env.channel_names(ruleset)``
Global state                  ``env.state()``: the board tensor seen from ``player_0`` (a centralised critic)
Rewards                       ``"win"`` (default), ``"score_diff"`` or ``"score"``, see below
Render modes                  ``"ansi"``, ``"rgb_array"`` (``pip install hg-env[render]``)
Rules                         docs/rules/, a page per ruleset
============================  ==============================================================

Turn order. The agent to act (``env.agent_selection``) is always the one whose
decision it is: it places the drawn tile, may take a pawn back after the shaman
(hg2020), then may place an occupant (or, in Carcassonne, take its abbot back).
An extra-tile turn (menhir, bonus tile) keeps the same agent (R3.3).
Decisions with no choice but "none" are skipped (R3.7).

Actions. One flat ``Discrete`` space for every decision; each ruleset's layout is in
"Rulesets" below, drawn in ``hg_env.core.actions``.

``hg_env.encode``, ``hg_env.decode`` and ``hg_env.describe`` convert between
indices and readable moves (``place 41 at (1,0) r0``, ``pawn on zone 2``). The
action mask is exact: an action is unmasked iff the rules allow it now. Agents
that are not acting get an all-zero mask.

Observations. ``observation`` is the board seen from the observing agent, as
documented in ``hg_env.core.observation`` (own pieces first, the other seats
after it in turn order): tiles with their rotations and sides, contents (animals,
fish, lakes, menhirs or gold, mushrooms; coats of arms, monasteries, gardens),
special powers, occupants and their owners, per-area planes (open connections,
size, value, occupants per seat), the legal placements of the drawn tile, and the
scores, supplies, phase, turn, tile to place and unseen tiles as info planes.
``hg_env.channel_names(ruleset)`` names the channels, ``hg_env.channel_scale``
gives factors to [0, 1].

Rewards (keyword ``reward``):

* ``"win"``: 0 until the game ends, then a rank value in [-1, 1]:
  ``1 - 2 * rank / (n - 1)``, where tied players share the mean of their ranks.
  Two players: +1 winner, -1 loser, 0 each on a tie (shared victory, R8.2.4).
* ``"score_diff"``: every step, the change of the agent's score minus the mean
  change of the other players' scores.
* ``"score"``: every step, the change of the agent's score.

Rewards go to the agents they belong to, including agents that did not act
(accumulated as PettingZoo does). Games always end (R8.1); there is no truncation.

Errors. ``raw_env`` raises ``ValueError`` naming the problem for an illegal move, an
action that is not an int, bad options or flags, and leaves the env exactly as it
was (rewards, RNG, game). ``env()`` adds PettingZoo's standard wrappers.

Reset options. ``reset(seed=..., options={"regular_deck": [...], "menhir_deck": [...]})``
(``"bonus_deck"`` in hg2002, only ``"regular_deck"`` in carcassonne) replays a given deck order,
checked as docs/rules/README.md "Decks given in draw order" says. A key that names a deck this
ruleset does not have, or is one typo away from a deck name (``"regular_decks"``), raises
``ValueError``: a deck silently dealt at random would spoil an experiment. Other keys are left
alone, as Gymnasium leaves options to the env (wrappers and tools pass their own; PettingZoo's
``api_test`` passes ``{"options": 1}``).

Warnings. ``pettingzoo.test.api_test`` passes; it warns, on every observation,
"Observation is not a NumPy array" and, twice, "Observation space for each agent probably
should be gymnasium.spaces.box or gymnasium.spaces.discrete". Both are PettingZoo's checks for
envs without an action mask: it exempts its own masked games by name (a list inside
``api_test``), and the ``Dict(observation, action_mask)`` observation above is the same
convention as those games (chess, go, connect four), so the warnings are expected and harmless.
Nothing in hg_env warns during ``api_test`` (tests/test_env.py checks every ruleset).

Version history: v0, the first release of each env.

Rulesets
--------
Each ruleset's part of this card is written in its folder (``Presentation.card``), its
registry ids follow from what it declares.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hg_env.core.actions import action_layout
from hg_env.core.observation import channel_high, channel_names, observe
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, check_int
from hg_env.core.ruleset import DEFAULT_RULESET, get_ruleset, rulesets
from hg_env.game import Game, check_action
from hg_env.presentation import presentation


def _card(ruleset: str) -> str:
    """A ruleset's part of the env card: its own text, then the ids it is registered under."""
    shown, env_name = presentation(ruleset), get_ruleset(ruleset).env_name
    name, version = env_name.rsplit("_v", 1)
    ids = [f"``hg_env/{name}-v{version}`` (PettingZoo >= 1.27)"] * bool(shown.factory)
    ids += [f"``hg_env/{shown.gym_name}-v{version}`` (Gymnasium)"] * bool(shown.gym_name)
    registered = ("\n\nRegistered as " + " and\n".join(ids) + ".") if ids else ""
    return f"\n{shown.card.rstrip() or env_name}{registered}\n"


__doc__ += "".join(_card(ruleset) for ruleset in rulesets())

REWARDS = ("win", "score_diff", "score")
_THE_GAME = np.zeros(1, dtype=np.intp)  # the Game's state holds one game: row 0


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (illegal move, bounds, order)."""
    environment = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


def __getattr__(name: str) -> Callable[..., AECEnv]:
    """A ruleset's own factory, ``env(ruleset=R, ...)``, by the name its presentation declares
    (``classic_env``, ``carcassonne_env``: each ruleset folder's ``presentation`` module)."""
    for ruleset in rulesets():
        if name != "env" and presentation(ruleset).factory == name:
            return _factory(ruleset)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _factory(ruleset: str) -> Callable[..., AECEnv]:
    def make(**kwargs: Any) -> AECEnv:
        return env(ruleset=ruleset, **kwargs)

    make.__name__ = make.__qualname__ = presentation(ruleset).factory
    make.__doc__ = f'``env(ruleset="{ruleset}", ...)``: ``{get_ruleset(ruleset).env_name}``.'
    return make


def __dir__() -> list[str]:
    return sorted({*globals(), *(presentation(r).factory for r in rulesets())} - {""})


def _names_a_deck(key: object) -> bool:
    """A reset option key meant as a deck: it says "deck", or is one typo away from a deck option's name."""
    if not isinstance(key, str):
        return False
    return "deck" in key.lower() or bool(difflib.get_close_matches(key, deck_options(), n=1, cutoff=0.8))


@cache
def deck_options() -> tuple[str, ...]:
    """The deck reset options of every ruleset: ``regular_deck`` and each extra deck (``menhir_deck``, ...)."""
    extra = [get_ruleset(r).extra_deck for r in rulesets()]
    return ("regular_deck", *(f"{name}_deck" for name in dict.fromkeys(extra) if name))


def rank_rewards(scores: list[int]) -> list[float]:
    """``1 - 2 * rank / (n - 1)`` with tied players sharing the mean of their ranks."""
    scores_arr = np.asarray(scores)
    n = len(scores_arr)
    above = (scores_arr[None, :] > scores_arr[:, None]).sum(1)  # players strictly ahead
    tied = (scores_arr[None, :] == scores_arr[:, None]).sum(1)
    rank = above + (tied - 1) / 2
    return (1 - 2 * rank / (n - 1)).tolist()


class raw_env(AECEnv):
    """A game of the Carcassonne family without wrappers; see the module docstring (env card)."""

    metadata = {
        "name": "hunters_gatherers_v0",
        "render_modes": ["ansi", "rgb_array", "svg"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        reward: str = "win",
        render_mode: str | None = None,
        ruleset: str = DEFAULT_RULESET,
        **rule_flags: Any,
    ) -> None:
        super().__init__()
        num_players = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.rules = Rules(ruleset=ruleset, **rule_flags)
        self.metadata = {**type(self).metadata, "name": self.rules.spec.env_name}
        self.num_players = num_players
        self.reward_mode = reward
        self.render_mode = render_mode
        self.layout = action_layout(self.rules)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        reach, size = self.rules.reach, self.rules.board.size
        names = channel_names(self.rules.ruleset, reach)
        high = np.broadcast_to(channel_high(self.rules.ruleset, reach)[:, None, None], (len(names), size, size))
        board_space = spaces.Box(low=0, high=np.ascontiguousarray(high), dtype=np.uint8)
        observation_space = spaces.Dict(
            {
                "observation": board_space,
                "action_mask": spaces.Box(low=0, high=1, shape=(self.layout.size,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.layout.size) for a in self.possible_agents}
        self.state_space = board_space
        self.reset_options = (
            "regular_deck",
            *([f"{self.rules.spec.extra_deck}_deck"] if self.rules.spec.extra_deck else []),
        )
        self.game: Game | None = None
        self.np_random, self.np_random_seed = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------ AEC API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """New game. ``seed`` fixes the deck order; ``options`` may give ``regular_deck`` and the
        ruleset's extra deck (``menhir_deck`` / ``bonus_deck``): tile id lists, drawn in that order.
        A bad seed or option raises ValueError and leaves the env as it was."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict or None, got {options!r}")
        options = dict(options or {})
        decks = [key for key in options if key not in self.reset_options and _names_a_deck(key)]
        if decks:  # other keys are not ours: left alone (the env card, "Reset options")
            raise ValueError(
                f"reset option(s) {decks} name no deck of ruleset {self.rules.ruleset!r}; "
                f"its deck options: {list(self.reset_options)}"
            )
        rng, rng_seed = self.np_random, self.np_random_seed
        if seed is not None:
            check_int("seed", seed, 0, 2**63 - 1)
            rng, rng_seed = seeding.np_random(int(seed))
        saved = rng.bit_generator.state
        decks = {key: options[key] for key in self.reset_options if key in options}
        try:
            game = Game(self.num_players, seed=int(rng.integers(2**63 - 1)), **decks, **self.rules.as_dict())
        except ValueError:
            rng.bit_generator.state = saved  # a failed reset draws nothing: the next one gives the same game
            raise
        self.np_random, self.np_random_seed = rng, rng_seed
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._scores = self.game.scores
        self.agent_selection = self.agents[self.game.current_player]

    def _started(self, call: str) -> Game:
        if self.game is None:
            raise RuntimeError(f"call reset() before {call}()")
        return self.game

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._started("observe")
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        seat = self.agent_name_mapping[agent]
        board = observe(game.state, _THE_GAME, np.array([seat]))[0]
        if not game.is_over and seat == game.current_player:
            mask = game.action_mask().view(np.int8)  # bool and int8 share a layout: no copy
        else:
            mask = np.zeros(self.layout.size, dtype=np.int8)
        return {"observation": board, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state for a centralised critic: the board tensor seen from ``player_0``
        (everything public; the deck order stays hidden)."""
        game = self._started("state")
        return observe(game.state, _THE_GAME, np.zeros(1, dtype=np.intp))[0]

    def last(self, observe: bool = True):
        self._started("last")
        return super().last(observe)

    def step(self, action: int | None) -> None:
        game = self._started("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act (phase {game.phase}); got action None")
        game.step(check_action(action, self.layout.size))  # ValueError naming the move if illegal: nothing changed
        self._cumulative_rewards[agent] = 0
        scores = game.scores
        self._set_rewards(scores)
        self._scores = scores
        if game.is_over:
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"scores": scores, "winners": game.winners}
        self.agent_selection = self.agents[game.current_player]
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
            logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'svg'")
            return None
        return self._started("render").render(self.render_mode)

    def close(self) -> None:
        pass
