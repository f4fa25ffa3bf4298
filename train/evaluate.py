"""Evaluation games: an agent (usually a trained policy) against a fixed opponent, seats swapped.

    hgenv evaluate --model runs/default/final_model.zip --opponents random greedy --games 200

Each deck order (seeded from ``seed``) is played ``num_players`` times, the
agent sitting once in every seat and the opponent (one agent spec) in all the
others; all games run at once on the batched core, both sides deciding in
batches. A game is won when the agent scores strictly more than every
opponent seat, half won on a tie for first (shared victory, R8.2.4), lost
otherwise. The 95% interval is a normal approximation over decks (the games
of one deck share its tiles, so the deck is the independent unit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hg_env.agents.base import Agent, make_agent

from hg_env.core import engine
from hg_env.core.observation import observe
from hg_env.core.rules import Rules
from hg_env.core.state import OVER


@dataclass
class EvalResult:
    opponent: str
    games: int
    wins: float  # ties for first count half
    win_rate: float
    ci_low: float
    ci_high: float
    mean_score: float  # the agent's
    mean_opponent_score: float  # the best opponent seat's

    def line(self) -> str:
        return (
            f"vs {self.opponent}: win rate {self.win_rate:.3f} [{self.ci_low:.3f}, {self.ci_high:.3f}] "
            f"over {self.games} games, mean score {self.mean_score:.1f} vs {self.mean_opponent_score:.1f}"
        )


def deck_seeds(seed: int, decks: int) -> list[int]:
    """Deck seeds of an evaluation: the same for every opponent, so comparisons are paired."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(decks, dtype=np.uint64) >> np.uint64(1)]


def play_games(
    agent: Agent,
    opponent: Agent,
    games: int,
    seed: int = 0,
    num_players: int = 2,
    rules: Rules | None = None,
    decks: slice = slice(None),
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``games`` (rounded up to a multiple of ``num_players``) at once.

    ``decks`` plays only those deck orders of the evaluation (a task of ``hgenv evaluate
    --ray``); the agents' generators then start from the chunk's first deck.
    Returns the final scores [G, players] and the agent's seat [G]."""
    rules = rules or Rules()
    seeds = deck_seeds(seed, math.ceil(games / num_players))[decks]
    total = len(seeds) * num_players
    state = engine.new_games(
        num_players, rules, seeds=[seeds[g // num_players] for g in range(total)], record_events=False
    )
    seats = np.arange(total) % num_players
    first = 2 * (decks.start or 0)  # 0 for the whole evaluation: its seeds as they always were
    agent.reset(seed + first)
    opponent.reset(seed + first + 1)
    while True:
        live = state.phase != OVER
        if not live.any():
            break
        actions = np.full(total, -1, dtype=np.int64)
        mine = live & (state.current == seats)
        for who, rows in ((agent, np.flatnonzero(mine)), (opponent, np.flatnonzero(live & ~mine))):
            if len(rows):
                obs = observe(state, rows, state.current[rows]) if who.uses_observation else None
                masks = engine.legal_action_mask(state, rows)
                actions[rows] = who.act_batch(obs, masks, state.take(rows))
        engine.step(state, actions)  # ValueError naming the game if an agent chose an illegal move
    return state.score[:, :num_players].astype(np.int64), seats


def evaluate(
    agent: Agent,
    opponent_spec: str,
    games: int,
    seed: int = 0,
    num_players: int = 2,
    rules: Rules | None = None,
    ray_address: str | None = None,
) -> EvalResult:
    """Win rate of ``agent`` against the agent ``opponent_spec`` (module docstring).

    ``ray_address`` plays the decks in chunks as Ray tasks ("" for a local Ray instance;
    hg_env.train.distributed)."""
    opponent = make_agent(opponent_spec, seed=seed + 1)
    if ray_address is None:
        scores, seats = play_games(agent, opponent, games, seed, num_players, rules)
    else:
        from hg_env.train import distributed

        scores, seats = distributed.evaluation_games(agent, opponent, games, seed, num_players, rules, ray_address)
    rows = np.arange(len(seats))
    mine = scores[rows, seats]
    others = scores.copy()
    others[rows, seats] = np.iinfo(np.int64).min
    best_other = others.max(1)
    points = np.where(mine > best_other, 1.0, np.where(mine == best_other, 0.5, 0.0))
    per_deck = points.reshape(-1, num_players).mean(1)
    rate = float(points.mean())
    half = 1.96 * float(per_deck.std(ddof=1)) / math.sqrt(len(per_deck)) if len(per_deck) > 1 else 1.0
    return EvalResult(
        opponent=opponent_spec,
        games=len(points),
        wins=float(points.sum()),
        win_rate=rate,
        ci_low=max(0.0, rate - half),
        ci_high=min(1.0, rate + half),
        mean_score=float(mine.mean()),
        mean_opponent_score=float(best_other.mean()),
    )


def main(args) -> int:
    """Entry point of ``hgenv evaluate`` (args from hg_env.cli)."""
    import torch

    if not 1 <= args.games <= 1_000_000:
        raise ValueError(f"--games must be 1..1000000, got {args.games}")
    if not 1 <= args.threads <= 256:
        raise ValueError(f"--threads must be 1..256, got {args.threads}")
    if not 0 <= args.seed < 2**63:
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")
    if "," in args.model:
        raise ValueError(f"--model {args.model!r}: a model file name may not contain ','")
    for spec in args.opponents:  # a bad spec is named before any game is played
        make_agent(spec)
    torch.set_num_threads(args.threads)
    agent = make_agent(f"policy:path={args.model}")
    where = "" if args.ray is None else f", on Ray ({args.ray or 'a local instance'})"
    print(f"evaluating {args.model}: {args.games} games per opponent, seats swapped, seed {args.seed}{where}")
    for spec in args.opponents:
        result = evaluate(agent, spec, args.games, seed=args.seed, num_players=args.players, ray_address=args.ray)
        print("  " + result.line(), flush=True)
    return 0
