"""Evaluation games: an agent (a trained policy, your own model or function) against fixed opponents, seats swapped.

    hgenv evaluate --model runs/default/final_model.zip --opponents random greedy --games 200

    import hg_env
    results = hg_env.evaluate(model, opponents=["greedy"], games=200)   # model: your MaskablePPO
    print(results["greedy"])   # vs greedy: win rate 0.615 [0.546, 0.680] over 200 games, mean score ...

Each deck order (seeded from ``seed``) is played ``num_players`` times, the
agent sitting once in every seat and the opponent (one agent spec) in all the
others; all games run at once on the batched core, both sides deciding in
batches. A game is won when the agent scores strictly more than every
opponent seat, half won on a tie for first (shared victory, R8.2.4), lost
otherwise. The 95% interval is Wilson's (``win_interval``, which says why).

``evaluate_agent`` (exported as ``hg_env.evaluate``) takes any agent: a spec
string, an ``hg_env.agents.Agent``, a function ``(observation, action_mask) ->
action`` (called per game with that game's board tensor), or a stable-baselines3
model in memory (sb3-contrib ``MaskablePPO`` trained on ``SingleAgentEnv`` or
``HGVecEnv``, with or without ``lookahead``; its ``policy`` plays the most probable
legal move). This module imports torch only for such a model.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hg_env.agents.base import Agent, FunctionAgent, make_agent
from hg_env.core import engine
from hg_env.core.observation import observe
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from hg_env.core.ruleset import DEFAULT_RULESET, RULESETS
from hg_env.core.state import OVER, State
from hg_env.rule_flags import parse_flags
from hg_env.tables import render_table

Z_95 = 1.959963984540054  # the standard normal's 97.5% quantile


def win_interval(points: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of a win rate: ``points`` (wins, ties counting half) out of ``games``.

    The one interval of every win rate hg_env reports: ``hgenv evaluate``, ``hg_env.evaluate``,
    training evaluations (``eval.jsonl``) and tournament tables (hg_env.arena.ratings).

    Why Wilson. A normal approximation over decks or a bootstrap over decks (what evaluations and
    tournaments used before) estimates the spread from the outcomes themselves, so it collapses to
    zero width whenever they do not vary: four games split 1-1 on each deck gave
    ``0.500 [0.500, 0.500]``, a 200-0 sweep ``[1.000, 1.000]``, both claiming certainty. Wilson's
    interval comes from the binomial model: it is never empty, stays inside [0, 1], keeps close to
    its nominal coverage from a few games up and at rates near 0 or 1 (Brown, Cai & DasGupta,
    Statistical Science 16(2), 2001), needs no seed and costs nothing in a tournament matrix.

    It counts games as independent. Evaluations and tournaments play every deck order from every
    seat (paired decks): that cancels the seat advantage and the luck of the deal from the *rate*;
    the games of one deck are then correlated, negatively when the deck favours a seat (the
    interval is then a little too wide) and positively when it favours one agent whatever its seat
    (a little too narrow)."""
    if games <= 0:
        raise ValueError(f"a win rate needs at least one game, got {games}")
    if not 0 <= points <= games:
        raise ValueError(f"points must be in [0, games={games}], got {points}")
    rate = points / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return max(0.0, centre - half), min(1.0, centre + half)


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

    __str__ = line

    @classmethod
    def from_games(cls, opponent: str, scores: np.ndarray, seats: np.ndarray) -> EvalResult:
        """The result of finished games: final scores [G, players] and the agent's seat [G]."""
        rows = np.arange(len(seats))
        mine = scores[rows, seats]
        others = scores.astype(np.int64)
        others[rows, seats] = np.iinfo(np.int64).min
        best_other = others.max(1)
        points = np.where(mine > best_other, 1.0, np.where(mine == best_other, 0.5, 0.0))
        low, high = win_interval(float(points.sum()), len(points))
        return cls(
            opponent=opponent,
            games=len(points),
            wins=float(points.sum()),
            win_rate=float(points.mean()),
            ci_low=low,
            ci_high=high,
            mean_score=float(mine.mean()),
            mean_opponent_score=float(best_other.mean()),
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
    opening: Callable[[State], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``games`` (rounded up to a multiple of ``num_players``) at once.

    ``decks`` plays only those deck orders of the evaluation (a task of ``hgenv evaluate
    --ray``); the agents' generators then start from the chunk's first deck. ``opening`` plays
    the first moves of the new games before the agents do (expert iteration's gate: greedy's).
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
    if opening is not None:
        opening(state)
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
    hg_env.arena.distributed)."""
    opponent = make_agent(opponent_spec, seed=seed + 1)
    if ray_address is None:
        scores, seats = play_games(agent, opponent, games, seed, num_players, rules)
    else:
        from hg_env.arena import distributed

        scores, seats = distributed.evaluation_games(agent, opponent, games, seed, num_players, rules, ray_address)
    return EvalResult.from_games(opponent_spec, scores, seats)


def evaluate_agent(
    agent: Any,
    opponents: Sequence[str] | str = ("greedy", "mcts"),
    games: int = 200,
    ruleset: str = DEFAULT_RULESET,
    num_players: int = 2,
    seed: int = 0,
) -> dict[str, EvalResult]:
    """Win rate of ``agent`` against each opponent spec, seats swapped on paired decks (``hg_env.evaluate``).

    ``agent``: a spec string (``"greedy"``), an ``hg_env.agents.Agent``, a function
    ``(observation, action_mask) -> action``, or a stable-baselines3 model (or its policy) in
    memory (module docstring). Every opponent plays the same deck orders (seeded from ``seed``).
    Returns ``{opponent spec: EvalResult}`` in the order given; ``print`` a result for its line,
    ``evaluation_table`` for a Markdown table. ValueError naming a bad argument before any game."""
    opponents = [opponents] if isinstance(opponents, str) else list(opponents)
    if not opponents or not all(isinstance(spec, str) for spec in opponents):
        raise ValueError(f"opponents must be a non-empty list of agent specs, got {opponents!r}")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 1 <= games <= 1_000_000:
        raise ValueError(f"games must be an integer in 1..1000000, got {games!r}")
    if isinstance(num_players, bool) or num_players not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        raise ValueError(f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
    if ruleset not in RULESETS:
        raise ValueError(f"ruleset must be one of {RULESETS}, got {ruleset!r}")
    for spec in opponents:  # a bad spec is named before any game is played
        make_agent(spec)
    player = as_agent(agent, seed=seed)
    rules = Rules(ruleset=ruleset)
    return {spec: evaluate(player, spec, int(games), seed, num_players, rules) for spec in opponents}


def as_agent(agent: Any, seed: int | None = None) -> Agent:
    """An ``Agent`` from anything ``evaluate_agent`` takes (its docstring)."""
    if isinstance(agent, str):
        return make_agent(agent, seed=seed)
    if isinstance(agent, Agent):
        return agent
    policy = _sb3_policy(agent)
    if policy is not None:
        from hg_env.agents.policy import PolicyAgent

        return PolicyAgent.from_policy(policy, seed=seed)
    if callable(agent):
        return FunctionAgent(agent, seed=seed)
    raise ValueError(
        "agent must be a spec string, an hg_env.agents.Agent, a function (observation, action_mask) -> action "
        f"or a stable-baselines3 model, got {agent!r}"
    )


def _sb3_policy(obj: Any) -> Any:
    """The actor-critic policy of an SB3 model, or the policy itself; None for anything else.

    Only a live torch module can be one, so torch is never imported here for other agents."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    policy = getattr(obj, "policy", obj)
    if isinstance(policy, torch.nn.Module) and hasattr(policy, "observation_space"):
        if not (hasattr(policy, "net") or hasattr(policy, "action_net")):
            raise ValueError(f"{type(policy).__name__} is not an actor-critic policy: hg_env plays those")
        return policy
    return None


def evaluation_table(results: dict[str, EvalResult], style: str = "markdown") -> str:
    """The results of ``evaluate_agent`` as a table (hg_env.tables.render_table)."""
    header = ("opponent", "games", "win rate", "95% interval", "mean score", "opponent's mean score")
    rows = [
        [
            *(f"`{r.opponent}`", r.games, f"{r.win_rate:.3f}", f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"),
            *(f"{r.mean_score:.1f}", f"{r.mean_opponent_score:.1f}"),
        ]
        for r in results.values()
    ]
    return render_table(header, rows, style=style, align="lrrrrr")


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
    agent = make_agent(f"policy:path={args.model}" + (f",ruleset={args.ruleset}" if args.ruleset else ""))
    reach = (agent.board_shape[-1] - 1) // 2  # the board the model was trained on
    ruleset = agent.ruleset or DEFAULT_RULESET
    flags = parse_flags(ruleset, args.flags)
    if flags.pop("board_reach", reach) != reach:
        raise ValueError(f"--flag board_reach: {args.model} plays on the board it was trained on, board_reach={reach}")
    rules = Rules(ruleset=ruleset, board_reach=reach, **flags)
    where = "" if args.ray is None else f", on Ray ({args.ray or 'a local instance'})"
    if not args.json:
        print(f"evaluating {args.model}: {args.games} games per opponent, seats swapped, seed {args.seed}{where}")
    results = {}
    for spec in args.opponents:
        results[spec] = evaluate(
            agent, spec, args.games, seed=args.seed, num_players=args.players, rules=rules, ray_address=args.ray
        )
        print(json.dumps(asdict(results[spec])) if args.json else "  " + results[spec].line(), flush=True)
    if not args.json:
        print("\n" + evaluation_table(results), end="")
    return 0
