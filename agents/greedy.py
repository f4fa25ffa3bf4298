"""``greedy``: the move with the best immediate gain plus the estimated value of the occupant placed.

For every legal action the agent steps a copy of the game (all candidates at
once on the batched core) and values the result with
``hg_env.core.search.estimated_final_scores`` for its own seat:

* the points scored right away (closed forests and rivers, logboat, hunting
  trap; R6, R7) are in the score;
* the occupant it places is worth its expected final value: a gatherer or
  fisher ``p_close * value`` of its forest or river (expected completion), a
  hunter the meadow's animal value, a hut the fish of its river system, each
  to the majority only; a pawn kept in supply is worth a little, so pawns are
  not thrown onto worthless areas;
* a placement is valued with its best occupant (the occupant decision after
  it, or after the shaman's retake, is looked ahead on the same tile).

It maximises the change of its own estimated final score; by default it
ignores what the move gives its opponents. ``greedy:opponents=0.75`` values a
move by its own estimated gain minus 0.75 times the opponents' mean estimated
gain instead (the valuation a ``lookahead`` policy starts from, hg_env.agents.network).
Ties between equally good moves are broken by the seeded generator, so the
agent is never plain random but still varies.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from hg_env.agents.base import Agent, ranked, register
from hg_env.core import search

if TYPE_CHECKING:
    from hg_env.core.state import State
    from hg_env.game import Game


def greedy_actions(state: State, rng: np.random.Generator | None = None, opponent_weight: float = 0.0) -> np.ndarray:
    """[B] the greedy action of every game (-1 for finished games); ``state`` is not changed.

    A move is valued by the mover's estimated final score after it, minus
    ``opponent_weight`` times its opponents' mean. The candidates are evaluated
    on re-dealt copies, so the hidden deck order is never read.
    """
    out = np.full(state.batch_size, -1, dtype=np.int64)
    games, actions, mine, others = search.move_values(state, rng if rng is not None else np.random.default_rng(0))
    if not len(games):
        return out
    if opponent_weight:
        mine = mine - opponent_weight * others
    present, group = np.unique(games, return_inverse=True)
    best = search.best_rows(group, mine, len(present), rng)
    out[present] = actions[best]
    return out


@register
class GreedyAgent(Agent):
    """Best immediate gain plus the estimated value of the occupant placed (module docstring)."""

    name = "greedy"
    option_docs = {"opponents": "weight of the opponents' mean estimated gain, taken from its own"}

    def __init__(self, seed: int | None = None, opponents: float = 0.0) -> None:
        super().__init__(seed)
        if not np.isfinite(opponents) or opponents < 0:
            raise ValueError(f"greedy: opponents must be a number >= 0, got {opponents!r}")
        self.opponent_weight = float(opponents)

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        if game is None:
            raise ValueError("the greedy agent needs the game: call act(observation, mask, game=game)")
        return int(greedy_actions(game.state, self.rng, self.opponent_weight)[0])

    def explain(self, game: Game, top: int = 8) -> list[dict]:
        """Each move's ``gain``: the change of the mover's estimated final score it brings (less
        ``opponents`` times the opponents' mean change), on a re-deal of the agent's own generator (a copy:
        explaining does not change its moves); ``weight`` 1 for the best, 0 for the worst."""
        state = game.state
        _, actions, own, others = search.move_values(state, copy.deepcopy(self.rng))
        now = search.estimated_final_scores(state)
        seat = int(state.current[0])
        mean_now = (now[0, : game.num_players].sum() - now[0, seat]) / max(game.num_players - 1, 1)
        gain = (own - now[0, seat]) - self.opponent_weight * (others - mean_now)
        spread = float(gain.max() - gain.min()) if len(gain) else 0.0
        weight = (gain - gain.min()) / spread if spread > 0 else np.ones(len(gain))
        return ranked(actions, gain, weight, top, gain=gain)

    def act_batch(self, observations: Any, action_masks: np.ndarray, state: State | None = None) -> np.ndarray:
        if state is None:
            raise ValueError("the greedy agent needs the batched state: call act_batch(obs, masks, state=state)")
        actions = greedy_actions(state, self.rng, self.opponent_weight)
        actions[~np.asarray(action_masks).any(1)] = -1
        return actions
