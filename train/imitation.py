"""Behaviour cloning of the greedy agent: an optional warm start of the policy before PPO.

Configured by the ``[imitation]`` table (hg_env.train.config.ImitationConfig). Games of
greedy against itself are played in chunks of ``games`` at once on the batched
core (a fraction ``epsilon`` of the moves random, so that the data also shows
positions greedy would not reach; and a fraction ``student_moves`` played by the
network being trained, as DAgger does, so that it also learns what to do in the
positions its own mistakes lead to). Every decision of every seat is a sample:

* the policy learns greedy's preferences: greedy values every legal move (its
  own estimated final score after the move, ``hg_env.core.search.turn_lookahead``)
  and the target is ``softmax(value / temperature)`` over the legal moves, the
  cross-entropy to it the loss. Many moves tie (greedy breaks ties at random):
  soft targets teach the whole tied set and the order of the rest, where the
  one move greedy happened to play would be a noisy label;
* the value learns the return of that seat from that decision, with the same
  reward, ``reward_scale`` and ``gamma`` as PPO (rewards as ``hg_env.vector``
  gives them: everything that happened since the seat's previous decision).

Each chunk is learned from ``passes`` times, then dropped (a chunk of 32 games
is about 3,400 decisions, 180 MB of board tensors). PPO then starts from a
policy that plays about like greedy, and a value function that already knows
what a position is worth, instead of from random moves.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from hg_env.aec import rank_rewards
from hg_env.core import engine, search
from hg_env.core.actions import sample_uniform
from hg_env.core.observation import observe
from hg_env.core.rules import Rules
from hg_env.core.state import OVER
from hg_env.progress import progress_bar
from hg_env.train.config import ImitationConfig


def play_chunk(
    games: int,
    num_players: int,
    rules: Rules,
    rng: np.random.Generator,
    epsilon: float,
    reward: str,
    reward_scale: float,
    gamma: float,
    temperature: float,
    opponent_weight: float,
    student: nn.Module | None = None,
    student_moves: float = 0.0,
) -> dict[str, np.ndarray]:
    """Play ``games`` games of the teacher to the end; every decision as (obs, mask, target, return)."""
    state = engine.new_games(
        num_players, rules, seeds=rng.integers(2**63 - 1, size=games).tolist(), record_events=False
    )
    obs, masks, labels, phases, game_of, seat_of, measure = [], [], [], [], [], [], []
    while True:
        rows = np.flatnonzero(state.phase != OVER)
        if not len(rows):
            break
        seats = state.current[rows].astype(np.int64)
        obs.append(observe(state, rows, seats))
        mask = engine.legal_action_mask(state, rows)
        masks.append(mask)
        greedy, target = teacher_targets(state.take(rows), rng, temperature, opponent_weight)
        labels.append(target)
        phases.append(state.phase[rows])
        game_of.append(rows)
        seat_of.append(seats)
        measure.append(_measure(state.score[rows, :num_players], seats, reward))
        played = np.where(rng.random(len(rows)) < epsilon, sample_uniform(mask, rng), greedy)
        if student is not None and student_moves > 0:  # DAgger: visit the states the student leads to
            own = rng.random(len(rows)) < student_moves
            if own.any():
                with torch.no_grad():
                    logits, _ = student(torch.from_numpy(obs[-1][own]))
                played[own] = logits.masked_fill(~torch.from_numpy(mask[own]), -torch.inf).argmax(1).numpy()
        actions = np.full(games, -1, dtype=np.int64)
        actions[rows] = played
        engine.step(state, actions)
    game_of, seat_of, measure = np.concatenate(game_of), np.concatenate(seat_of), np.concatenate(measure)
    final = state.score[:, :num_players].astype(np.int64)
    returns = np.zeros(len(game_of), dtype=np.float32)
    for g in range(games):
        for s in range(num_players):
            idx = np.flatnonzero((game_of == g) & (seat_of == s))  # this seat's decisions, in order
            if not len(idx):
                continue
            end = _measure(final[g : g + 1], np.array([s]), reward)[0]
            if reward == "win":
                rewards = np.zeros(len(idx))
                rewards[-1] = rank_rewards(final[g].tolist())[s]
            else:  # the change of the measure between this seat's decisions, then to the end
                rewards = np.diff(np.append(measure[idx], end))
            returns[idx] = _discounted(rewards, gamma) * reward_scale
    return {
        "obs": np.concatenate(obs),
        "masks": np.concatenate(masks),
        "targets": np.concatenate(labels),
        "phases": np.concatenate(phases),
        "returns": returns,
    }


def teacher_targets(
    state, rng: np.random.Generator, temperature: float, opponent_weight: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's move in every game and ``softmax(value / temperature)`` over its legal
    moves, [B, A] float32. ``value`` is greedy's valuation of each move (its estimated final
    score after it), minus ``opponent_weight`` times the opponents' mean estimate: with
    weight 0 the teacher is exactly hg_env.agents.greedy."""
    games, actions, mine, others = search.move_values(state, rng)  # like greedy, never reads the deck order
    if opponent_weight:
        mine = mine - opponent_weight * others
    present, group = np.unique(games, return_inverse=True)
    best = search.best_rows(group, mine, len(present), rng)
    moves = np.full(state.batch_size, -1, dtype=np.int64)
    moves[present] = actions[best]
    logits = (mine - mine[best][group]) / temperature  # <= 0, 0 for the best
    weights = np.exp(logits)
    totals = np.bincount(group, weights=weights, minlength=len(present))
    targets = np.zeros((state.batch_size, engine.legal_action_mask(state).shape[1]), dtype=np.float32)
    targets[games, actions] = weights / totals[group]
    return moves, targets


def _measure(scores: np.ndarray, seats: np.ndarray, reward: str) -> np.ndarray:
    """What the dense rewards are differences of: own score, or own minus the others' mean."""
    mine = scores[np.arange(len(seats)), seats].astype(np.float64)
    if reward == "score":
        return mine
    p = scores.shape[1]
    return mine - (scores.sum(1) - mine) / (p - 1)


def _discounted(rewards: np.ndarray, gamma: float) -> np.ndarray:
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def imitate_greedy(
    net: nn.Module,
    config: ImitationConfig,
    *,
    num_players: int,
    rules: Rules,
    reward: str,
    reward_scale: float,
    gamma: float,
    seed: int,
    log: Callable[[int, dict[str, float]], None] | None = None,
    progress: bool = True,
) -> dict[str, float]:
    """Train ``net`` (a hg_env.agents.network.BoardNet) on greedy's moves; returns the last chunk's metrics.

    ``log(decisions_so_far, metrics)`` is called after every chunk."""
    rng = np.random.default_rng([seed, 7])  # its own stream: PPO's generators are left as they are
    order_rng = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    done, metrics = 0, {}
    bar = progress_bar(total=config.decisions, desc="imitation", unit="dec", disable=not progress, dynamic_ncols=True)
    while done < config.decisions:
        chunk = play_chunk(
            config.games,
            num_players,
            rules,
            rng,
            config.epsilon,
            reward,
            reward_scale,
            gamma,
            config.temperature,
            config.opponent_weight,
            net,
            config.student_moves,
        )
        obs = torch.from_numpy(chunk["obs"])
        masks = torch.from_numpy(chunk["masks"])
        targets = torch.from_numpy(chunk["targets"])
        returns = torch.from_numpy(chunk["returns"])
        phases = torch.from_numpy(chunk["phases"])
        sums = np.zeros(3)  # policy loss, value loss, samples
        agree = np.zeros(
            (2, max(rules.spec.phases) + 1)
        )  # per phase code: top move among the teacher's best, decisions
        for pass_number in range(config.passes):
            for idx in torch.randperm(len(obs), generator=order_rng).split(config.batch_size):
                logits, values = net(obs[idx])
                log_probs = torch.log_softmax(logits.masked_fill(~masks[idx], -torch.inf), 1)
                policy_loss = -(targets[idx] * log_probs.masked_fill(~masks[idx], 0.0)).sum(1).mean()
                value_loss = nn.functional.mse_loss(values.squeeze(-1), returns[idx])
                optimizer.zero_grad()
                (policy_loss + config.value_coef * value_loss).backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimizer.step()
                n = len(idx)
                sums += (policy_loss.item() * n, value_loss.item() * n, n)
                if pass_number == 0:  # measured before the batch is learned from: held-out agreement
                    top = targets[idx].gather(1, log_probs.argmax(1, keepdim=True)).squeeze(1)
                    hit = (top >= targets[idx].amax(1) - 1e-6).double()
                    np.add.at(agree, (0, phases[idx].numpy()), hit.numpy())
                    np.add.at(agree, (1, phases[idx].numpy()), 1)
        done += len(obs)
        metrics = {
            "imitation/policy_loss": sums[0] / sums[2],
            "imitation/value_loss": sums[1] / sums[2],
            "imitation/agreement": agree[0].sum() / agree[1].sum(),  # top move is one of the teacher's best
        }
        for phase, name in rules.spec.phases.items():
            if agree[1, phase]:
                metrics[f"imitation/agreement_{name}"] = agree[0, phase] / agree[1, phase]
        bar.update(min(done, config.decisions) - bar.n)  # the last chunk may overshoot the total
        bar.set_postfix_str(
            f"agree {metrics['imitation/agreement']:.2f} value loss {metrics['imitation/value_loss']:.3f}"
        )
        if log is not None:
            log(done, metrics)
    bar.close()
    return metrics
