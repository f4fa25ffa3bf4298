"""PPO self-play training: ``hgenv train --config configs/quick.toml [--resume]``.

One readable loop around sb3-contrib's ``MaskablePPO`` (CleanRL spirit: every
hyperparameter in the config file, hg_env.train.config documents them):

1. ``HGVecEnv``: ``env.num_envs`` games in one process, the learner's seat
   drawn per game, opponents from the pool deciding in batches; with
   ``policy.lookahead`` the observations carry the one-turn lookahead's gain of
   every legal move (hg_env.vector);
2. optional warm start (plain network only): behaviour cloning of greedy
   (``[imitation]``, hg_env.train.imitation);
3. PPO with ``hg_env.train.policy.HGPolicy`` (sparse board network, per-cell placement
   head, and with lookahead a learned weighting of the lookahead's gains);
4. every ``opponents.snapshot_every`` steps a frozen copy of the learner joins
   the opponent pool; every ``eval.every`` steps evaluation games against
   random and greedy (win rates to TensorBoard and ``eval.jsonl``); every
   ``run.checkpoint_every`` steps a checkpoint;
5. ``final_model.zip`` (load it as the agent ``policy:path=...``) and a final
   evaluation (``final_eval.json``).

The opponent pool and its sampling rule. The pool has fixed slots
``[random, greedy, snapshot 1 .. snapshot k]`` (k = ``opponents.snapshots``).
Every new game draws one opponent, with probability proportional to
``random_weight``, ``greedy_weight`` and ``snapshot_weight / (snapshots taken
so far, at most k)`` for each filled snapshot slot; that opponent plays every
other seat of the game. Snapshots fill the slots round robin, the newest
replacing the oldest.

Run directory ``<run.out_dir>/<run.name>/``::

    config.toml        the resolved config (a copy: the checkpoints hold the one a resume must match)
    checkpoints/       step_<steps>.pt: everything needed to continue (hg_env.train.checkpoint)
    snapshots/         step_<steps>.zip: frozen opponents (model files, hg_env.agents.model_file)
    tensorboard/       SB3's logs plus eval/*, pool/*, imitation/*, time/steps_per_s
    eval.jsonl         one line per evaluation
    final_model.zip    the trained policy (a model file);  final_eval.json  its evaluation

Resuming. ``--resume`` continues from the newest checkpoint: weights,
optimizer, step counter, the games in progress, the opponent pool and every
random generator are restored, so a resumed run continues exactly as if it had
not stopped (bit for bit, on any fixed ``run.torch_threads``); only the steps since
that checkpoint are played again, and the logs are cut back to the checkpoint
first, so they too end as an uninterrupted run's (hg_env.train.checkpoint). The
resumed config must be the checkpoint's, but for ``run.total_timesteps``,
``run.tune_malloc`` and where the run folder is (``run.out_dir``, ``run.name``).

Divergence. After every PPO update the loss and the parameters must be finite;
otherwise training stops with an error naming the step and the last good
checkpoint, before anything is saved from the bad update.

Determinism. Everything is seeded from ``run.seed``; evaluation games use their
own generators and do not disturb training.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import math
import sys
import time
import tomllib
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import VecEnvWrapper
from tqdm import tqdm

from hg_env.agents.base import make_agent
from hg_env.agents.model_file import save_model, state_dict_mismatch
from hg_env.agents.policy import PolicyAgent
from hg_env.arena.evaluate import evaluate
from hg_env.core.rules import Rules
from hg_env.fileio import atomic_write_text
from hg_env.progress import progress_bar
from hg_env.train.checkpoint import (
    CHECKPOINT_FORMAT,
    CheckpointError,
    encode_object,
    eval_log_size,
    generator_from,
    generator_state,
    global_rng_states,
    open_run_dir,
    read_checkpoint,
    restore_global_rngs,
    restore_object,
    rewind_logs,
    to_arrays,
    to_tensors,
    write_checkpoint,
)
from hg_env.train.config import ConfigError, TrainConfig, config_from_dict, load_config, to_toml
from hg_env.train.imitation import imitate_greedy
from hg_env.train.policy import CompactRolloutBuffer, HGPolicy
from hg_env.train.vec_env import HGVecEnv

EVAL_SEED = 10_000  # evaluation decks: the same at every evaluation, so the numbers compare
# Config keys a resumed run may change: its length, malloc tuning, and where the run folder is (a moved run resumes).
RESUMABLE = (("run", "total_timesteps"), ("run", "tune_malloc"), ("run", "out_dir"), ("run", "name"))
ENV_FROM_CONFIG = ("rules", "layout", "opponents", "opponent_probs", "observation_shape", "observation_high")
CHECKPOINT_KEYS = (
    "config",
    "num_timesteps",
    "n_updates",
    "episode_num",
    "policy",
    "optimizer",
    "last_obs",
    "last_episode_starts",
    "ep_info_buffer",
    "games",
    "vec_env",
    "pool",
    "rng",
    "logs",
)


class TrainingDiverged(ValueError):
    """The loss or the parameters stopped being finite; the message names the step and the way back."""


# ---------------------------------------------------------------- environment


class ScaledReward(VecEnvWrapper):
    """Rewards times ``scale`` for PPO; ``infos["episode"]["r"]`` stays in points."""

    def __init__(self, venv: HGVecEnv, scale: float) -> None:
        super().__init__(venv)
        self.scale = scale

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        return obs, rewards * np.float32(self.scale), dones, infos


class OpponentPool:
    """Fixed slots [random, greedy, snapshot 1..k] and their weights (module docstring)."""

    def __init__(self, config: TrainConfig, run_dir: Path) -> None:
        self.config = config.opponents
        self.run_dir = run_dir
        self.seed = config.run.seed
        self.greedy = make_agent("greedy", seed=self.seed + 1)
        self.snapshot_paths: list[str | None] = [None] * self.config.snapshots
        self.snapshot_agents: list[PolicyAgent | None] = [None] * self.config.snapshots
        self.taken = 0

    def agents(self) -> list[Any]:
        return [None, self.greedy, *self.snapshot_agents]  # None: the env's own uniformly random moves

    def weights(self) -> list[float]:
        filled = sum(p is not None for p in self.snapshot_paths)
        share = self.config.snapshot_weight / filled if filled else 0.0
        snapshots = [share if p is not None else 0.0 for p in self.snapshot_paths]
        return [self.config.random_weight, self.config.greedy_weight, *snapshots]

    def add_snapshot(self, model: MaskablePPO, config: TrainConfig, steps: int) -> str:
        path = self.run_dir / "snapshots" / f"step_{steps:010d}.zip"
        save_policy(model, path, config)
        slot = self.taken % len(self.snapshot_paths)
        self.snapshot_paths[slot] = str(path)
        # Seeded: a lookahead policy draws its re-deals from its generator, and runs stay reproducible.
        self.snapshot_agents[slot] = PolicyAgent(path=str(path), seed=self.seed + 2 + self.taken)
        self.taken += 1
        return str(path)

    def state(self) -> dict:
        """Plain values: snapshot file names (in the run's snapshots/), generator states."""
        return {
            "snapshot_files": [None if p is None else Path(p).name for p in self.snapshot_paths],
            "taken": self.taken,
            "greedy_rng": generator_state(self.greedy.rng),
            "snapshot_rngs": [None if a is None else generator_state(a.rng) for a in self.snapshot_agents],
        }

    def restore(self, state: dict) -> None:
        files, rngs = state["snapshot_files"], state["snapshot_rngs"]
        if len(files) != len(self.snapshot_paths) or len(rngs) != len(files):
            raise ValueError(
                f"the pool has {len(files)} snapshot slots, opponents.snapshots is {len(self.snapshot_paths)}"
            )
        for name in files:
            if name is not None and (not isinstance(name, str) or Path(name).name != name or name in (".", "..")):
                raise ValueError(f"snapshot {name!r} is not a file name")
        self.snapshot_paths = [None if n is None else str(self.run_dir / "snapshots" / n) for n in files]
        self.taken, self.greedy.rng = int(state["taken"]), generator_from(state["greedy_rng"])
        self.snapshot_agents = [None if p is None else PolicyAgent(path=p) for p in self.snapshot_paths]
        for agent, rng in zip(self.snapshot_agents, rngs):
            if agent is not None and rng is not None:
                agent.rng = generator_from(rng)


def make_env(config: TrainConfig, pool: OpponentPool) -> ScaledReward:
    e = config.env
    venv = HGVecEnv(
        num_envs=e.num_envs,
        num_players=e.num_players,
        reward=e.reward,
        seed=config.run.seed,
        opponents=pool.agents(),
        opponent_weights=pool.weights(),
        lookahead=config.policy.lookahead,
        **config.rules().as_dict(),
    )
    return ScaledReward(venv, e.reward_scale)


def make_model(config: TrainConfig, env: ScaledReward, run_dir: Path) -> MaskablePPO:
    p = config.ppo
    start, end = p.learning_rate, p.final_learning_rate

    def learning_rate(progress_remaining: float) -> float:  # SB3 counts progress down from 1 to 0
        return end + (start - end) * progress_remaining

    return MaskablePPO(
        HGPolicy,
        env,
        learning_rate=learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl or None,
        rollout_buffer_class=CompactRolloutBuffer,
        policy_kwargs=dict(board_reach=config.rules().reach, ruleset=config.env.ruleset, **vars(config.policy)),
        tensorboard_log=str(run_dir / "tensorboard"),
        seed=config.run.seed,
        device="cpu",
        verbose=0,
    )


# ---------------------------------------------------------------- checkpoints


def checkpoint_paths(run_dir: Path) -> list[Path]:
    """Checkpoints of a run, oldest first."""
    return sorted((run_dir / "checkpoints").glob("step_*.pt"))


def save_policy(model: MaskablePPO, path: Path, config: TrainConfig) -> None:
    """The learner's network as a model file (hg_env.agents.model_file): final_model.zip, snapshots."""
    rules = _rules(config)
    save_model(
        path,
        model.policy.net,
        kind="boardnet",
        net_kwargs=dict(model.policy.net_kwargs),
        ruleset=rules.ruleset,
        board_reach=rules.reach,
        extra={"steps": model.num_timesteps, "run": config.run.name, "config": dataclasses.asdict(config)},
    )


def save_checkpoint(model: MaskablePPO, pool: OpponentPool, config: TrainConfig, run_dir: Path) -> Path:
    """Weights, optimizer, counters, the games in progress, the pool, every generator and the
    logs' positions, as tensors and plain values (hg_env.train.checkpoint), atomically."""
    vec: HGVecEnv = model.env.venv
    payload = {
        "format": CHECKPOINT_FORMAT,
        "config": to_toml(config),
        "num_timesteps": model.num_timesteps,
        "n_updates": model._n_updates,
        "episode_num": model._episode_num,
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "last_obs": to_tensors(model._last_obs),
        "last_episode_starts": to_tensors(model._last_episode_starts),
        "ep_info_buffer": list(model.ep_info_buffer or []),
        "games": encode_object(vec.venv, ENV_FROM_CONFIG),
        "vec_env": {"_seed_next": vec._seed_next},
        "pool": pool.state(),
        "rng": global_rng_states(),
        "logs": {"eval_bytes": eval_log_size(run_dir), "pending": _pending_records(model)},
    }
    path = run_dir / "checkpoints" / f"step_{model.num_timesteps:010d}.pt"
    write_checkpoint(path, payload)  # a kill while writing leaves the last checkpoint whole
    for old in checkpoint_paths(run_dir)[: -config.run.keep_checkpoints]:
        old.unlink()
    return path


def _pending_records(model: MaskablePPO) -> dict:
    """Values logged but not yet written to TensorBoard (SB3 writes them at the next rollout's end)."""
    logger = getattr(model, "_logger", None)
    if logger is None:  # before learn(): nothing logged yet
        return {}
    return {
        key: {"value": float(value), "exclude": list(logger.name_to_excluded.get(key) or ())}
        for key, value in logger.name_to_value.items()
        if isinstance(value, (int, float, np.number))
    }


def load_checkpoint(path: Path, config: TrainConfig) -> dict:
    """The payload of a checkpoint of this run; CheckpointError naming the file and what differs."""
    payload = read_checkpoint(path, CHECKPOINT_KEYS)
    try:
        saved = config_from_dict(tomllib.loads(payload["config"]))
    except (TypeError, tomllib.TOMLDecodeError, ConfigError) as err:
        raise CheckpointError(
            f"{path}: its config is damaged ({err}); delete it to resume from the one before"
        ) from None
    differ = _differences(saved, config)
    if differ:
        detail = ", ".join(f"{key}: {theirs!r} there, {ours!r} now" for key, theirs, ours in differ)
        raise CheckpointError(
            f"{path} was written with other settings ({detail}); only run.total_timesteps, run.tune_malloc and "
            "the run folder may change on --resume: resume with the config it was trained with, or start a new run.name"
        )
    return payload


def restore_checkpoint(model: MaskablePPO, pool: OpponentPool, payload: dict, path: Path) -> None:
    """Put a run back in the state ``save_checkpoint`` saw (the env is rebuilt from the pool)."""
    weights = payload["policy"]
    if not (isinstance(weights, dict) and all(isinstance(t, torch.Tensor) for t in weights.values())):
        raise CheckpointError(
            f"{path}: its policy is not a state dict of tensors; delete it to resume from the one before"
        )
    problem = state_dict_mismatch(model.policy.state_dict(), weights, "this config's network")
    if problem:
        raise CheckpointError(f"{path}: its network differs from this config's: {problem}")
    try:
        model.policy.load_state_dict(payload["policy"])
        model.policy.optimizer.load_state_dict(payload["optimizer"])
        model.num_timesteps = int(payload["num_timesteps"])
        model._n_updates = int(payload["n_updates"])
        model._episode_num = int(payload["episode_num"])
        model._last_obs = to_arrays(payload["last_obs"])
        model._last_episode_starts = to_arrays(payload["last_episode_starts"])
        model.ep_info_buffer = deque(payload["ep_info_buffer"], maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(maxlen=model._stats_window_size)
        pool.restore(payload["pool"])
        vec: HGVecEnv = model.env.venv
        vec.set_opponents(pool.agents(), pool.weights())
        restore_object(vec.venv, payload["games"])
        vec._seed_next = payload["vec_env"]["_seed_next"]
        restore_global_rngs(payload["rng"])
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as err:
        raise CheckpointError(
            f"{path} cannot be restored ({type(err).__name__}: {err}); it is damaged or from another version: "
            "delete it to resume from the one before, or start a new run.name"
        ) from None


# ---------------------------------------------------------------- callbacks


class TrainingCallback(BaseCallback):
    """Progress bar, snapshots, evaluations and checkpoints at rollout boundaries."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir: Path,
        pool: OpponentPool,
        progress: bool,
        stop_after: int | None,
        stop_before_checkpoint: bool = False,
        pending: dict | None = None,
    ):
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.pool = pool
        self.progress = progress
        self.stop_after = stop_after
        self.stop_before_checkpoint = stop_before_checkpoint
        self.pending = pending or {}  # logged before the checkpoint we resume from, not yet written
        self.outcomes: dict[int, list[int]] = {}
        self.last_eval: dict[str, float] = {}
        self.overhead_s = 0.0  # evaluation and checkpoint time, left out of steps/s

    def _on_training_start(self) -> None:
        for key, record in self.pending.items():
            self.logger.record(key, record["value"], exclude=tuple(record["exclude"]) or None)
        self.start_steps = self.num_timesteps
        self.start_time = time.perf_counter()
        self.bar = progress_bar(
            total=self.config.run.total_timesteps,
            initial=self.start_steps,
            desc=f"train {self.config.run.name}",
            unit="step",
            disable=not self.progress,
            dynamic_ncols=True,
        )

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        for info in self.locals["infos"]:
            if "outcome" in info:
                self.outcomes.setdefault(info["opponent"], []).append(info["outcome"])
        return True

    def _on_rollout_end(self) -> None:
        names = ["random", "greedy"] + [f"snapshot_{i}" for i in range(self.config.opponents.snapshots)]
        for k, outcomes in sorted(self.outcomes.items()):
            if outcomes:  # 1 win, 0 shared victory, -1 loss -> 1, 0.5, 0
                self.logger.record(f"train/win_rate_vs_{names[k]}", (np.mean(outcomes) + 1) / 2)
        self.outcomes = {}
        elapsed = time.perf_counter() - self.start_time - self.overhead_s
        self.logger.record("time/steps_per_s", (self.num_timesteps - self.start_steps) / max(elapsed, 1e-9))

    def _on_rollout_start(self) -> None:
        steps = self.num_timesteps
        if steps == self.start_steps:
            return
        check_finite(self.model, self.run_dir)  # after the update that just ran, before anything is saved
        t0 = time.perf_counter()
        previous = steps - self.config.rollout_steps
        if (
            _crossed(previous, steps, self.config.opponents.snapshot_every)
            and self.config.opponents.snapshot_weight > 0
        ):
            self.pool.add_snapshot(self.model, self.config, steps)
            self.training_env.venv.set_opponents(self.pool.agents(), self.pool.weights())
            self.logger.record("pool/snapshots", self.pool.taken)
        if self.config.eval.every and _crossed(previous, steps, self.config.eval.every):
            self.evaluate(self.config.eval.games)
        if self.stop_before_checkpoint and self.stop_after is not None and steps >= self.stop_after:
            raise TrainingStopped(steps)  # as a kill between an evaluation and the checkpoint after it
        if _crossed(previous, steps, self.config.run.checkpoint_every):
            save_checkpoint(self.model, self.pool, self.config, self.run_dir)
        self.overhead_s += time.perf_counter() - t0
        if self.stop_after is not None and steps >= self.stop_after:
            raise TrainingStopped(steps)

    def evaluate(self, games: int) -> dict[str, Any]:
        """Evaluation games of the current policy (deterministic) against each eval opponent."""
        agent = PolicyAgent.from_policy(self.model.policy)
        line: dict[str, Any] = {"steps": self.num_timesteps}
        for spec in self.config.eval.opponents:
            result = evaluate(agent, spec, games, EVAL_SEED, self.config.env.num_players, _rules(self.config))
            self.logger.record(f"eval/win_rate_vs_{spec}", result.win_rate)
            self.logger.record(f"eval/mean_score_vs_{spec}", result.mean_score)
            line[spec] = result.outcome()
            self.last_eval[spec] = result.win_rate
        with (self.run_dir / "eval.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        summary = ", ".join(f"{spec} {rate:.2f}" for spec, rate in self.last_eval.items())
        self.bar.set_postfix_str(f"win vs {summary}")
        tqdm.write(f"step {self.num_timesteps}: win rate vs {summary} ({games} games each)", file=sys.stderr)
        return line

    def _on_training_end(self) -> None:
        self.bar.close()


class TrainingStopped(Exception):
    """Raised after the checkpoint at ``stop_after`` steps, or just before it (a planned interruption
    for tests: ``train(stop_after=..., stop_before_checkpoint=...)``)."""


def check_finite(model: MaskablePPO, run_dir: Path) -> None:
    """TrainingDiverged if the last PPO update left a non-finite loss or parameter."""
    loss = model.logger.name_to_value.get("train/loss")
    if loss is not None and not math.isfinite(loss):
        problem = f"the loss is {loss}"
    else:
        bad = [name for name, p in model.policy.named_parameters() if not torch.isfinite(p).all()]
        if not bad:
            return
        problem = f"parameter {bad[0]} holds NaN or inf" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "")
    saved = checkpoint_paths(run_dir)
    if saved:
        way_back = (
            f"the last good checkpoint is {saved[-1]}: --resume continues from it, but with the same settings "
            "it will likely diverge again; lower ppo.learning_rate (or ppo.ent_coef, env.reward_scale) in a "
            "new run.name"
        )
    else:
        way_back = "no checkpoint was written yet: start again with a lower ppo.learning_rate"
    raise TrainingDiverged(
        f"training diverged at step {model.num_timesteps}: after the PPO update {problem}; nothing of it was "
        f"saved; {way_back}"
    )


def _crossed(before: int, after: int, every: int) -> bool:
    """True if a multiple of ``every`` lies in (before, after]."""
    return after // every > before // every


def _rules(config: TrainConfig) -> Rules:
    return config.rules()


def worse_than_random(final: dict[str, dict[str, Any]]) -> str | None:
    """The WARNING line for a final evaluation (opponent spec -> result) whose agent did worse than
    ``random``: it won less than half of its games against ``random``, the half a random player
    wins. Such a policy learned nothing useful, or something is broken (a 0% RLlib agent was
    exported once). None if it did not, or if ``random`` was not an opponent."""
    result = final.get("random")
    if result is None or result["win_rate"] >= 0.5:
        return None
    return (
        f"WARNING: the trained agent does worse than random: it won {100 * result['win_rate']:.1f}% of its "
        f"{result['games']} games against `random` (a random player wins 50%), mean score "
        f"{result['mean_score']:.1f} vs {result['mean_opponent_score']:.1f}; it learned nothing useful, or "
        "something is broken (the config, the reward, the network's inputs, the export)"
    )


def write_final_eval(run_dir: Path, final: dict[str, dict[str, Any]]) -> None:
    """Write a run's final evaluation, ``final_eval.json`` (opponent spec -> result). If the agent did
    worse than random (``worse_than_random``) the WARNING goes to stderr and into the file, as
    ``"warning"`` beside ``random``'s result (both training paths call this)."""
    warning = worse_than_random(final)
    if warning is not None:
        final = {**final, "random": {**final["random"], "warning": warning}}
        print(warning, file=sys.stderr, flush=True)
    atomic_write_text(run_dir / "final_eval.json", json.dumps(final, indent=2) + "\n")


# ---------------------------------------------------------------- the run


def _tune_malloc() -> None:
    """Keep freed memory in the process (glibc), with ``run.tune_malloc = true`` only: the
    network's many mid-sized tensors are otherwise mapped and unmapped on every call, which costs
    more than the arithmetic (~1.7x). It changes malloc for the whole process."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return  # not glibc: nothing to tune
    libc.mallopt(-3, 32 * 1024 * 1024)  # M_MMAP_THRESHOLD: the largest value glibc allows
    libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
    libc.mallopt(-2, 256 << 20)  # M_TOP_PAD


def prepare_run_dir(config: TrainConfig, resume: bool) -> tuple[Path, dict | None]:
    """The run directory, and on ``resume`` the payload of its newest checkpoint (checked against
    ``config``). Nothing is created before the checks pass; a fresh start empties the logs of an
    attempt stopped before its first checkpoint."""
    run_dir = Path(config.run.out_dir) / config.run.name
    payload = open_run_dir(
        run_dir,
        resume,
        checkpoint_paths,
        lambda path: load_checkpoint(path, config),
        ("checkpoints", "snapshots", "tensorboard"),
    )
    if not resume:
        rewind_logs(run_dir, None)
    atomic_write_text(run_dir / "config.toml", to_toml(config))
    return run_dir, payload


def _differences(a: TrainConfig, b: TrainConfig) -> list[tuple[str, Any, Any]]:
    """(key, value in a, value in b) of every key that differs, but those a resume may change."""
    out = []
    for section in vars(a):
        for key, value in vars(getattr(a, section)).items():
            other = getattr(getattr(b, section), key)
            if (section, key) not in RESUMABLE and other != value:
                out.append((f"{section}.{key}", value, other))
    return out


def train(
    config: TrainConfig,
    resume: bool = False,
    progress: bool = True,
    stop_after: int | None = None,
    stop_before_checkpoint: bool = False,
) -> Path:
    """Run (or resume) a training run; returns its directory.

    ``stop_after`` stops after the first checkpoint at or past that many steps, as an
    interruption would (for tests); with ``stop_before_checkpoint`` it stops just before that
    checkpoint, after the evaluation and snapshot of the same step (a kill between them)."""
    run_dir, payload = prepare_run_dir(config, resume)
    if config.run.tune_malloc:
        _tune_malloc()
    torch.set_num_threads(config.run.torch_threads)
    set_random_seed(config.run.seed)
    pool = OpponentPool(config, run_dir)
    env = make_env(config, pool)
    model = make_model(config, env, run_dir)
    pending = None
    if payload is not None:
        path = checkpoint_paths(run_dir)[-1]
        restore_checkpoint(model, pool, payload, path)
        rewind_logs(run_dir, model.num_timesteps, payload["logs"]["eval_bytes"])
        pending = payload["logs"]["pending"]
        print(f"resuming {run_dir} from {path.name} ({model.num_timesteps} steps)", file=sys.stderr)
    elif config.imitation.decisions:
        try:
            _warm_start(model, config, run_dir, progress)
        except KeyboardInterrupt:
            _say_interrupted(run_dir)
            raise
        save_checkpoint(model, pool, config, run_dir)

    callback = TrainingCallback(config, run_dir, pool, progress, stop_after, stop_before_checkpoint, pending)
    remaining = config.run.total_timesteps - model.num_timesteps
    start_steps, start_time = model.num_timesteps, time.perf_counter()
    if remaining > 0:
        try:
            model.learn(remaining, callback=callback, tb_log_name="ppo", reset_num_timesteps=False)
        except TrainingStopped:
            callback.bar.close()
            return run_dir
        except KeyboardInterrupt:
            callback.bar.close()
            _say_interrupted(run_dir)
            raise
        except TrainingDiverged:
            callback.bar.close()
            raise
        check_finite(model, run_dir)  # the last update: no rollout follows it
        seconds = time.perf_counter() - start_time - callback.overhead_s
        rate = (model.num_timesteps - start_steps) / max(seconds, 1e-9)
        print(
            f"PPO: {model.num_timesteps - start_steps} steps in {seconds:.0f} s = {rate:.0f} steps/s "
            f"(including learning; evaluation and checkpoints left out)",
            file=sys.stderr,
        )
    save_checkpoint(model, pool, config, run_dir)
    save_policy(model, run_dir / "final_model.zip", config)
    print(f"final model: {run_dir / 'final_model.zip'}", file=sys.stderr)
    if config.eval.final_games and config.eval.opponents:
        final = {}
        agent = PolicyAgent.from_policy(model.policy)
        for spec in config.eval.opponents:
            result = evaluate(
                agent, spec, config.eval.final_games, EVAL_SEED + 1, config.env.num_players, _rules(config)
            )
            print("  " + result.line(), file=sys.stderr)
            final[spec] = result.outcome()
        write_final_eval(run_dir, final)
    return run_dir


def _say_interrupted(run_dir: Path) -> None:
    saved = checkpoint_paths(run_dir)
    if saved:
        print(f"\ninterrupted: continue with --resume, from {saved[-1]}", file=sys.stderr)
    else:
        print("\ninterrupted before the first checkpoint: nothing to resume, start again", file=sys.stderr)


def _warm_start(model: MaskablePPO, config: TrainConfig, run_dir: Path, progress: bool) -> None:
    """Behaviour cloning of greedy (hg_env.train.imitation), logged to TensorBoard under imitation/."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tensorboard" / "imitation"))
    try:
        imitate_greedy(
            model.policy.net,
            config.imitation,
            num_players=config.env.num_players,
            rules=_rules(config),
            reward=config.env.reward,
            reward_scale=config.env.reward_scale,
            gamma=config.ppo.gamma,
            seed=config.run.seed,
            log=lambda done, metrics: [writer.add_scalar(k, v, done) for k, v in metrics.items()],
            progress=progress,
        )
    finally:
        writer.close()
    if config.eval.opponents:
        agent = PolicyAgent.from_policy(model.policy)
        for spec in config.eval.opponents:
            result = evaluate(agent, spec, config.eval.games, EVAL_SEED, config.env.num_players, _rules(config))
            print(f"after imitation: {result.line()}", file=sys.stderr)


def main(args) -> int:
    """Entry point of ``hgenv train`` (args from hg_env.cli); overrides are checked as the file is."""
    overrides: dict[str, Any] = {}
    if args.name is not None:
        overrides["name"] = args.name
    if args.total_timesteps is not None:
        overrides["total_timesteps"] = args.total_timesteps
    if args.seed is not None:
        overrides["seed"] = args.seed
    config = load_config(args.config, {"run": overrides})
    if config.run.backend == "rllib":
        from hg_env.train import rllib_ppo

        return rllib_ppo.main(config, args)
    try:
        run_dir = train(config, resume=args.resume, progress=not args.no_progress)
    except KeyboardInterrupt:
        return 130  # train() has said where to resume from
    print(f"run directory: {run_dir}  (TensorBoard: tensorboard --logdir {run_dir / 'tensorboard'})")
    return 0
