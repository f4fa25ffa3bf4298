"""Training configuration: one TOML file holds every hyperparameter of a run.

    hgenv train --config configs/default.toml

The file has one table per dataclass below (``[run]``, ``[env]``, ``[policy]``,
``[ppo]``, ``[opponents]``, ``[imitation]``, ``[eval]``, ``[ray]``); the field
comments are the documentation. A key left out takes the default written here, and the run
directory keeps a copy of the fully resolved file (``config.toml``), so a run
never depends on defaults that might change later.

Validation is strict: an unknown table or key, a value of the wrong type or out
of range raises ``ConfigError`` naming the key (``ppo.n_epochs must be an int
>= 1, got 0``).
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

REWARDS = ("win", "score_diff", "score")
BACKENDS = ("sb3", "rllib")


class ConfigError(ValueError):
    """A bad configuration file: the message names the key and what is wrong."""


@dataclass
class RunConfig:
    """What to run and where."""

    name: str = "run"  # the run directory is <out_dir>/<name>
    # "sb3": sb3-contrib MaskablePPO in this process against the opponent pool (hg_env.train.train);
    # "rllib": RLlib PPO on Ray, every seat played by the learner (self-play; hg_env.train.rllib_ppo,
    # which reads [ray] and ignores [opponents])
    backend: str = "sb3"
    out_dir: str = "runs"
    seed: int = 0  # seeds the games, the network and PPO: a run is reproducible on one thread
    total_timesteps: int = 100_000  # learner decisions (environment steps) of PPO
    torch_threads: int = 2  # torch.set_num_threads; 1 makes runs bit-for-bit reproducible
    checkpoint_every: int = 50_000  # environment steps between checkpoints (rounded up to whole rollouts)
    keep_checkpoints: int = 3  # older checkpoints are deleted


@dataclass
class EnvConfig:
    """The batched self-play environment (hg_env.train.vec_env.HGVecEnv)."""

    num_envs: int = 64  # games stepped together
    num_players: int = 2
    reward: str = "score_diff"  # "win" (+1/-1 at the end), "score_diff" (dense) or "score"
    reward_scale: float = 0.05  # PPO sees reward * reward_scale (keeps value targets near [-2, 2])
    rules: dict[str, Any] = field(default_factory=dict)  # rule flags (hg_env.Rules), e.g. {board_reach = 12}


@dataclass
class PolicyConfig:
    """The network (hg_env.train.policy.BoardNet)."""

    channels: int = 32  # features per active cell
    layers: int = 3  # sparse plus-shaped convolutions
    hidden: int = 128  # width of the info MLP and the trunk
    lookahead: bool = False  # also read the one-turn lookahead's gain of every legal move (hg_env.train.policy)


@dataclass
class PPOConfig:
    """sb3-contrib MaskablePPO."""

    learning_rate: float = 3e-4
    final_learning_rate: float = 3e-4  # linear schedule from learning_rate to this over the run
    n_steps: int = 64  # steps per game per rollout: a rollout is n_steps * num_envs decisions
    batch_size: int = 512
    n_epochs: int = 2
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # stop an update early past this KL; 0 = never


@dataclass
class OpponentsConfig:
    """The opponent pool. Each new game draws its opponent with probability proportional to its
    weight: random, greedy, or one of the latest ``snapshots`` frozen copies of the learner
    (``snapshot_weight`` is shared equally among them; until the first snapshot it is unused)."""

    random_weight: float = 1.0
    greedy_weight: float = 1.0
    snapshot_weight: float = 0.0
    snapshots: int = 3  # how many latest snapshots stay in the pool
    snapshot_every: int = 100_000  # environment steps between snapshots (rounded up to whole rollouts)


@dataclass
class ImitationConfig:
    """Optional warm start before PPO: behaviour cloning of the greedy agent.

    Games of greedy against itself (``epsilon`` of the moves random, to see more
    positions) are played in batches; every decision is a sample: the policy
    learns softmax(greedy's value of each legal move / temperature) (cross-entropy)
    and the value learns the return of that seat (the same reward, scale and
    gamma as PPO). 0 decisions: no warm start. See hg_env.train.imitation."""

    decisions: int = 0  # greedy-labelled decisions to learn from
    games: int = 32  # games played at once; their decisions are one chunk of data
    passes: int = 2  # times each chunk is learned from
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_coef: float = 0.5
    epsilon: float = 0.1
    temperature: float = 1.0  # points of greedy's estimated final score; smaller = only its best moves
    opponent_weight: float = 0.0  # teacher values a move by own estimate - this * opponents' (0: greedy)
    student_moves: float = 0.0  # fraction of the moves played by the network itself (DAgger); labels stay the teacher's


@dataclass
class EvalConfig:
    """Evaluation games against fixed agents, seats swapped on paired decks, deterministic policy."""

    every: int = 100_000  # environment steps between evaluations (rounded up to rollouts); 0 = only at the end
    games: int = 100  # per opponent (rounded up to even: each deck is played from both seats)
    final_games: int = 200  # per opponent, after training
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])


@dataclass
class RayConfig:
    """Where ``run.backend = "rllib"`` runs (hg_env.train.rllib_ppo). The ``env.num_envs`` games are
    split evenly among the env runners; the learner runs in this process."""

    address: str = ""  # "": a local Ray instance on this machine; "auto" or "HEAD:6379": a running cluster
    num_cpus: int = 0  # CPUs of the local instance (0: all of this machine); unused with an address
    num_env_runners: int = 2  # Ray actors playing games (one CPU each); 0: play in this process


@dataclass
class TrainConfig:
    run: RunConfig = field(default_factory=RunConfig)
    env: EnvConfig = field(default_factory=EnvConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    ray: RayConfig = field(default_factory=RayConfig)

    @property
    def rollout_steps(self) -> int:
        """Environment steps per PPO rollout."""
        return self.ppo.n_steps * self.env.num_envs


# ---------------------------------------------------------------- loading and checks


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a TOML config file; ConfigError naming the file and key on any problem."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    try:
        return config_from_dict(raw)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def config_from_dict(raw: dict[str, Any]) -> TrainConfig:
    """Build a validated TrainConfig from nested dicts (tables of the TOML file)."""
    sections = {f.name: f.type for f in dataclasses.fields(TrainConfig)}
    _reject_unknown(raw, sections, "table")
    values = {}
    for f in dataclasses.fields(TrainConfig):
        table = raw.get(f.name, {})
        if not isinstance(table, dict):
            raise ConfigError(f"[{f.name}] must be a table, got {table!r}")
        cls = type(getattr(TrainConfig(), f.name))
        values[f.name] = _section(cls, table, f.name)
    config = TrainConfig(**values)
    _check(config)
    return config


def _reject_unknown(given: dict, known: Any, what: str, prefix: str = "") -> None:
    for key in given:
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1)
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
            raise ConfigError(f"unknown {what} '{prefix}{key}'{hint}; known: {sorted(known)}")


def _section(cls: type, table: dict, name: str) -> Any:
    defaults = cls()
    fields = {f.name: f for f in dataclasses.fields(cls)}
    _reject_unknown(table, fields, "key", f"{name}.")
    kwargs = {}
    for key, value in table.items():
        expected = type(getattr(defaults, key))
        where = f"{name}.{key}"
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # 1 is fine where 1.0 is meant
        if expected is list:
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise ConfigError(f"{where} must be a list of strings, got {value!r}")
        elif not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{where} must be {_kind(expected)}, got {value!r} ({type(value).__name__})")
        kwargs[key] = value
    return cls(**kwargs)


def _kind(t: type) -> str:
    return {int: "an int", float: "a number", bool: "true or false", str: "a string", dict: "a table"}.get(
        t, t.__name__
    )


def _require(ok: bool, where: str, rule: str, value: Any) -> None:
    if not ok:
        raise ConfigError(f"{where} must be {rule}, got {value!r}")


def _check(c: TrainConfig) -> None:
    """Value checks, each naming its key."""
    r, e, p, o, im, ev = c.run, c.env, c.ppo, c.opponents, c.imitation, c.eval
    _require(bool(r.name) and "/" not in r.name and r.name not in (".", ".."), "run.name", "a folder name", r.name)
    for key in ("total_timesteps", "checkpoint_every", "torch_threads", "keep_checkpoints"):
        _require(getattr(r, key) >= 1, f"run.{key}", ">= 1", getattr(r, key))
    _require(r.seed >= 0, "run.seed", ">= 0", r.seed)
    _require(r.backend in BACKENDS, "run.backend", f"one of {BACKENDS}", r.backend)
    if r.backend == "rllib":
        _check_rllib(c)
    _require(e.num_envs >= 1, "env.num_envs", ">= 1", e.num_envs)
    _require(
        MIN_PLAYERS <= e.num_players <= MAX_PLAYERS, "env.num_players", f"{MIN_PLAYERS}..{MAX_PLAYERS}", e.num_players
    )
    _require(e.reward in REWARDS, "env.reward", f"one of {REWARDS}", e.reward)
    _require(e.reward_scale > 0, "env.reward_scale", "> 0", e.reward_scale)
    try:
        Rules.from_kwargs(**e.rules)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"env.rules: {err}") from None
    for key in ("channels", "layers", "hidden"):
        _require(getattr(c.policy, key) >= 1, f"policy.{key}", ">= 1", getattr(c.policy, key))
    for key in ("learning_rate", "final_learning_rate"):
        _require(0 < getattr(p, key) < 1, f"ppo.{key}", "in (0, 1)", getattr(p, key))
    for key in ("n_steps", "n_epochs"):
        _require(getattr(p, key) >= 1, f"ppo.{key}", ">= 1", getattr(p, key))
    _require(p.batch_size >= 2, "ppo.batch_size", ">= 2", p.batch_size)
    _require(
        p.batch_size <= c.rollout_steps,
        "ppo.batch_size",
        f"<= ppo.n_steps * env.num_envs = {c.rollout_steps}",
        p.batch_size,
    )
    for key in ("gamma", "gae_lambda"):
        _require(0 < getattr(p, key) <= 1, f"ppo.{key}", "in (0, 1]", getattr(p, key))
    _require(0 < p.clip_range < 1, "ppo.clip_range", "in (0, 1)", p.clip_range)
    for key in ("ent_coef", "vf_coef", "target_kl"):
        _require(getattr(p, key) >= 0, f"ppo.{key}", ">= 0", getattr(p, key))
    _require(p.max_grad_norm > 0, "ppo.max_grad_norm", "> 0", p.max_grad_norm)
    for key in ("random_weight", "greedy_weight", "snapshot_weight"):
        _require(getattr(o, key) >= 0, f"opponents.{key}", ">= 0", getattr(o, key))
    _require(o.random_weight + o.greedy_weight > 0, "opponents.random_weight + greedy_weight", "> 0", 0)
    _require(o.snapshots >= 1, "opponents.snapshots", ">= 1", o.snapshots)
    _require(o.snapshot_every >= 1, "opponents.snapshot_every", ">= 1", o.snapshot_every)
    _require(im.decisions >= 0, "imitation.decisions", ">= 0", im.decisions)
    _require(
        not (c.policy.lookahead and im.decisions),
        "imitation.decisions",
        "0 with policy.lookahead = true (that policy starts from the lookahead's valuation; nothing to clone)",
        im.decisions,
    )
    for key in ("games", "passes", "batch_size"):
        _require(getattr(im, key) >= 1, f"imitation.{key}", ">= 1", getattr(im, key))
    _require(0 < im.learning_rate < 1, "imitation.learning_rate", "in (0, 1)", im.learning_rate)
    _require(im.value_coef >= 0, "imitation.value_coef", ">= 0", im.value_coef)
    _require(0 <= im.epsilon <= 1, "imitation.epsilon", "in [0, 1]", im.epsilon)
    _require(im.temperature > 0, "imitation.temperature", "> 0", im.temperature)
    _require(0 <= im.student_moves <= 1, "imitation.student_moves", "in [0, 1]", im.student_moves)
    _require(0 <= im.opponent_weight <= 1, "imitation.opponent_weight", "in [0, 1]", im.opponent_weight)
    _require(ev.every >= 0, "eval.every", ">= 0", ev.every)
    _require(ev.games >= 2, "eval.games", ">= 2", ev.games)
    _require(ev.final_games >= 0, "eval.final_games", ">= 0", ev.final_games)
    if ev.opponents:
        from hg_env.agents.base import make_agent

        for spec in ev.opponents:
            try:
                make_agent(spec)
            except ValueError as err:
                raise ConfigError(f"eval.opponents: {err}") from None


def _check_rllib(c: TrainConfig) -> None:
    """What the RLlib backend needs (hg_env.train.rllib_ppo)."""
    _require(not c.policy.lookahead, "policy.lookahead", 'false with run.backend = "rllib"', c.policy.lookahead)
    _require(c.imitation.decisions == 0, "imitation.decisions", '0 with run.backend = "rllib"', c.imitation.decisions)
    _require(c.ray.num_cpus >= 0, "ray.num_cpus", ">= 0", c.ray.num_cpus)
    runners = c.ray.num_env_runners
    _require(runners >= 0, "ray.num_env_runners", ">= 0", runners)
    _require(
        c.env.num_envs % max(runners, 1) == 0,
        "env.num_envs",
        f"a multiple of ray.num_env_runners = {runners} (each runner plays the same number of games)",
        c.env.num_envs,
    )


# ---------------------------------------------------------------- writing


def to_toml(config: TrainConfig) -> str:
    """The fully resolved config as TOML (what the run directory keeps as config.toml)."""
    lines = []
    for section in dataclasses.fields(TrainConfig):
        values = getattr(config, section.name)
        lines.append(f"[{section.name}]")
        for f in dataclasses.fields(values):
            lines.append(f"{f.name} = {_toml_value(getattr(values, f.name))}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if value is None:
        raise ConfigError("TOML has no null value")
    return repr(value)
