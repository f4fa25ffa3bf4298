"""Training configuration: one TOML file holds every hyperparameter of a run.

    hgenv train --config configs/default.toml

The file has one table per dataclass below (``[run]``, ``[env]``, ``[policy]``,
``[ppo]``, ``[opponents]``, ``[imitation]``, ``[eval]``, ``[ray]``); the field
comments are the documentation, bounds included (``1..4096``: integers from 1 to 4096;
``(0, 1]``: numbers above 0, up to 1). A key left out takes the default written
here, and the run directory keeps a copy of the fully resolved file
(``config.toml``), so a run never depends on defaults that might change later.

Validation is strict and happens before anything is created: an unknown table
or key, a value of the wrong type, a number that is not finite or out of its
bounds raises ``ConfigError`` naming the key (``ppo.n_epochs must be 1..1000,
got 0``). Command-line overrides (``--name``, ``--total-timesteps``, ``--seed``) go through
the same checks (``load_config(path, overrides)``).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import tomli_w

from hg_env.core.actions import action_layout
from hg_env.core.observation import channel_names
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from hg_env.core.ruleset import RULESETS
from hg_env.core.search import ESTIMATE_FEATURES, LOOKAHEAD_FEATURES

REWARDS = ("win", "score_diff", "score")
BACKENDS = ("sb3", "rllib")
MAX_ROLLOUT_BYTES = 16 * 2**30  # observations and masks of one rollout (ppo.n_steps * env.num_envs decisions)
T = TypeVar("T")


class ConfigError(ValueError):
    """A bad configuration file: the message names the key and what is wrong."""


@dataclass(frozen=True)
class Range:
    """Allowed values of a number: ``low..high`` (ints) or an interval, each end open or closed."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def __str__(self) -> str:
        if isinstance(self.low, int) and isinstance(self.high, int):
            return f"{self.low}..{self.high}"
        return f"in {'(' if self.low_open else '['}{self.low:g}, {self.high:g}{')' if self.high_open else ']'}"


def bounded(default: float, low: float, high: float, *, low_open: bool = False, high_open: bool = False) -> Any:
    """A dataclass field holding a number within ``Range(low, high, ...)`` (checked by ``config_from_dict``)."""
    return field(default=default, metadata={"range": Range(low, high, low_open, high_open)})


def range_of(cls: type, name: str) -> Range:
    """The bounds of a numeric field, e.g. ``range_of(PolicyConfig, "channels")``."""
    return next(f for f in dataclasses.fields(cls) if f.name == name).metadata["range"]


@dataclass
class RunConfig:
    """What to run and where."""

    name: str = "run"  # the run directory is <out_dir>/<name>: a plain folder name (no / or \, not . or .., no NUL)
    # "sb3": sb3-contrib MaskablePPO in this process against the opponent pool (hg_env.train.train);
    # "rllib": RLlib PPO on Ray, every seat played by the learner (self-play; hg_env.train.rllib_ppo,
    # which reads [ray] and not [opponents])
    backend: str = "sb3"
    out_dir: str = "runs"  # any folder (no NUL)
    seed: int = bounded(0, 0, 2**32 - 1)  # 0..2**32-1; seeds games, network and PPO: a run is reproducible on 1 thread
    total_timesteps: int = bounded(100_000, 1, 10**9)  # 1..10**9 learner decisions (environment steps) of PPO
    torch_threads: int = bounded(2, 1, 256)  # 1..256; the network's row blocks (policy.run_net); same count, same bits
    checkpoint_every: int = bounded(50_000, 1, 10**9)  # 1..10**9 environment steps between checkpoints (whole rollouts)
    keep_checkpoints: int = bounded(3, 1, 1000)  # 1..1000; older checkpoints are deleted
    # true: glibc keeps freed memory in the process (mallopt), ~1.7x faster training on CPU; it changes
    # malloc for the whole Python process, so it is off unless asked for (no effect outside glibc)
    tune_malloc: bool = False


@dataclass
class EnvConfig:
    """The batched self-play environment (hg_env.train.vec_env.HGVecEnv)."""

    ruleset: str = "hg2020"  # the game: "hg2020", "hg2002" or "carcassonne" (docs/rules/)
    num_envs: int = bounded(64, 1, 4096)  # 1..4096 games stepped together
    num_players: int = bounded(2, MIN_PLAYERS, MAX_PLAYERS)  # 2..5
    reward: str = "score_diff"  # "win" (+1/-1 at the end), "score_diff" (dense) or "score"
    reward_scale: float = bounded(0.05, 0.0, 100.0, low_open=True)  # (0, 100]; PPO sees reward * reward_scale
    # the ruleset's flags (hg_env.Rules), e.g. {board_reach = 12}; board_reach 1..(tiles - 1)
    rules: dict[str, Any] = field(default_factory=dict)


@dataclass
class PolicyConfig:
    """The network (hg_env.agents.network.BoardNet). Its sizes' ranges are those a model file may hold
    (hg_env.agents.model_file.BOARDNET_SIZES; a test keeps them equal)."""

    channels: int = bounded(32, 1, 1024)  # 1..1024 features per active cell
    layers: int = bounded(3, 1, 64)  # 1..64 sparse plus-shaped convolutions
    hidden: int = bounded(128, 1, 4096)  # 1..4096: width of the info MLP and the trunk
    lookahead: bool = False  # also read the one-turn lookahead's gain of every legal move (hg_env.agents.network)


@dataclass
class PPOConfig:
    """sb3-contrib MaskablePPO. A rollout (ppo.n_steps * env.num_envs decisions) must fit in 16 GiB."""

    learning_rate: float = bounded(3e-4, 0.0, 1.0, low_open=True, high_open=True)  # (0, 1)
    final_learning_rate: float = bounded(3e-4, 0.0, 1.0, low_open=True, high_open=True)  # (0, 1); linear schedule
    n_steps: int = bounded(64, 1, 65536)  # 1..65536 steps per game per rollout
    batch_size: int = bounded(512, 2, 2**20)  # 2..ppo.n_steps * env.num_envs
    n_epochs: int = bounded(2, 1, 1000)  # 1..1000
    gamma: float = bounded(0.995, 0.0, 1.0, low_open=True)  # (0, 1]
    gae_lambda: float = bounded(0.95, 0.0, 1.0, low_open=True)  # (0, 1]
    clip_range: float = bounded(0.2, 0.0, 1.0, low_open=True, high_open=True)  # (0, 1)
    ent_coef: float = bounded(0.01, 0.0, 1.0)  # [0, 1]
    vf_coef: float = bounded(0.5, 0.0, 10.0)  # [0, 10]
    max_grad_norm: float = bounded(0.5, 0.0, 1000.0, low_open=True)  # (0, 1000]
    target_kl: float = bounded(0.0, 0.0, 10.0)  # [0, 10]: stop an update early past this KL; 0 = never


@dataclass
class OpponentsConfig:
    """The opponent pool. Each new game draws its opponent with probability proportional to its
    weight: random, greedy, or one of the latest ``snapshots`` frozen copies of the learner
    (``snapshot_weight`` is shared equally among them; until the first snapshot it is unused).
    random_weight + greedy_weight must be > 0."""

    random_weight: float = bounded(1.0, 0.0, 1e6)  # [0, 1e6]
    greedy_weight: float = bounded(1.0, 0.0, 1e6)  # [0, 1e6]
    snapshot_weight: float = bounded(0.0, 0.0, 1e6)  # [0, 1e6]
    snapshots: int = bounded(3, 1, 100)  # 1..100: how many latest snapshots stay in the pool
    snapshot_every: int = bounded(100_000, 1, 10**9)  # 1..10**9 environment steps between snapshots (whole rollouts)


@dataclass
class ImitationConfig:
    """Optional warm start before PPO: behaviour cloning of the greedy agent.

    Games of greedy against itself (``epsilon`` of the moves random, to see more
    positions) are played in batches; every decision is a sample: the policy
    learns softmax(greedy's value of each legal move / temperature) (cross-entropy)
    and the value learns the return of that seat (the same reward, scale and
    gamma as PPO). 0 decisions: no warm start (it must be 0 with policy.lookahead).
    See hg_env.train.imitation."""

    decisions: int = bounded(0, 0, 10**9)  # 0..10**9 greedy-labelled decisions to learn from
    games: int = bounded(32, 1, 4096)  # 1..4096 games played at once; their decisions are one chunk of data
    passes: int = bounded(2, 1, 1000)  # 1..1000 times each chunk is learned from
    batch_size: int = bounded(256, 1, 2**20)  # 1..2**20
    learning_rate: float = bounded(1e-3, 0.0, 1.0, low_open=True, high_open=True)  # (0, 1)
    value_coef: float = bounded(0.5, 0.0, 100.0)  # [0, 100]
    epsilon: float = bounded(0.1, 0.0, 1.0)  # [0, 1]
    temperature: float = bounded(1.0, 0.0, 1e4, low_open=True)  # (0, 1e4] points; smaller = only greedy's best moves
    opponent_weight: float = bounded(0.0, 0.0, 1.0)  # [0, 1]: teacher's value = own - this * opponents' (0: greedy)
    student_moves: float = bounded(0.0, 0.0, 1.0)  # [0, 1] of the moves played by the network itself (DAgger)


@dataclass
class EvalConfig:
    """Evaluation games against fixed agents, seats swapped on paired decks, deterministic policy."""

    every: int = bounded(100_000, 0, 10**9)  # 0..10**9 environment steps between evaluations; 0 = only at the end
    games: int = bounded(100, 2, 10_000)  # 2..10000 per opponent (rounded up: each deck is played from every seat)
    final_games: int = bounded(200, 0, 10_000)  # 0..10000 per opponent, after training
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])  # agent specs


@dataclass
class RayConfig:
    """Where ``run.backend = "rllib"`` runs (hg_env.train.rllib_ppo). The ``env.num_envs`` games are
    split evenly among the env runners; the learner runs in this process."""

    address: str = ""  # "": a local Ray instance on this machine; "auto" or "HEAD:6379": a running cluster
    num_cpus: int = bounded(0, 0, 100_000)  # 0..100000 CPUs of the local instance (0: all); unused with an address
    num_env_runners: int = bounded(2, 0, 100_000)  # 0..100000 Ray actors playing games, one CPU each; 0: this process


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

    def rules(self) -> Rules:
        """The game's rules: ``env.ruleset`` with the flags of ``env.rules``."""
        return Rules(ruleset=self.env.ruleset, **self.env.rules)

    @property
    def rollout_steps(self) -> int:
        """Environment steps per PPO rollout."""
        return self.ppo.n_steps * self.env.num_envs


# ---------------------------------------------------------------- loading and checks


def load_config(path: str | Path, overrides: dict[str, dict[str, Any]] | None = None) -> TrainConfig:
    """Read and validate a TOML config file, with ``overrides`` (``{"run": {"name": "x"}}``) applied
    to its tables first; ConfigError naming the file and key on any problem."""
    return load_checked(path, overrides, config_from_dict)


def load_checked(
    path: str | Path, overrides: dict[str, dict[str, Any]] | None, build: Callable[[dict[str, Any]], T]
) -> T:
    """``build`` (which checks) of a TOML file's tables, ``overrides`` applied to them first;
    ConfigError naming the file (``load_config``, expert iteration's ``load_expert_config``)."""
    path = Path(path)
    raw = read_toml(path)
    for table, values in (overrides or {}).items():
        section = raw.setdefault(table, {})
        if isinstance(section, dict):  # not a table: build names it
            section.update(values)
    try:
        return build(raw)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def read_toml(path: Path) -> dict[str, Any]:
    """The tables of a TOML file; ConfigError naming the file and how to fix it."""
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ConfigError(f"cannot read config file {path}: {err.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {data[err.start]:#04x} at offset {err.start}); save the file as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None


def config_from_dict(raw: dict[str, Any]) -> TrainConfig:
    """Build a validated TrainConfig from nested dicts (tables of the TOML file)."""
    config = sections_from_dict(TrainConfig, raw)
    _check(config)
    return config


def sections_from_dict(cls: type[T], raw: dict[str, Any]) -> T:
    """A config dataclass of tables (``TrainConfig``, ``ExpertConfig``) from the TOML file's tables:
    unknown tables refused, every table checked by ``_section``; the checks across keys are the caller's."""
    fields = [f.name for f in dataclasses.fields(cls)]
    _reject_unknown(raw, fields, "table")
    values = {}
    for name in fields:
        table = raw.get(name, {})
        if not isinstance(table, dict):
            raise ConfigError(f"[{name}] must be a table, got {table!r}")
        values[name] = _section(type(getattr(cls(), name)), table, name)
    return cls(**values)


def _reject_unknown(given: dict, known: Any, what: str, prefix: str = "") -> None:
    for key in given:
        if key not in known:
            close = difflib.get_close_matches(str(key), list(known), n=1)
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
            raise ConfigError(f"unknown {what} '{prefix}{key}'{hint}; known: {sorted(known)}")


def _section(cls: type, table: dict, name: str) -> Any:
    """One table: types, finiteness and the bounds of every number."""
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
        if expected is float and not math.isfinite(value):
            raise ConfigError(f"{where} must be a finite number, got {value!r}")
        bounds = fields[key].metadata.get("range")
        if bounds is not None and value not in bounds:
            raise ConfigError(f"{where} must be {bounds}, got {value!r}")
        kwargs[key] = value
    return cls(**kwargs)


def _kind(t: type) -> str:
    return {int: "an int", float: "a number", bool: "true or false", str: "a string", dict: "a table"}.get(
        t, t.__name__
    )


def _require(ok: bool, where: str, rule: str, value: Any) -> None:
    if not ok:
        raise ConfigError(f"{where} must be {rule}, got {value!r}")


def check_folder_name(name: str, where: str) -> None:
    """A plain folder name: not empty, no path separator, not absolute, no NUL, not ``.`` or ``..``."""
    separators = {"/", "\\", os.sep, os.altsep} - {None}
    plain = (
        bool(name)
        and not any(s in name for s in separators)
        and "\0" not in name
        and name not in (".", "..")
        and not Path(name).is_absolute()
        and len(name.encode("utf-8", "surrogateescape")) <= 255
    )
    _require(plain, where, "a plain folder name (no path separators, not absolute, no NUL, not '.' or '..')", name)


def _check(c: TrainConfig) -> None:
    """Checks that involve more than one number, or strings, each naming its key."""
    r, e, p, o, im, ev = c.run, c.env, c.ppo, c.opponents, c.imitation, c.eval
    check_folder_name(r.name, "run.name")
    _require(bool(r.out_dir) and "\0" not in r.out_dir, "run.out_dir", "a folder (not empty, no NUL)", r.out_dir)
    _require(r.backend in BACKENDS, "run.backend", f"one of {BACKENDS}", r.backend)
    if r.backend == "rllib":
        _check_rllib(c)
    _require(e.reward in REWARDS, "env.reward", f"one of {REWARDS}", e.reward)
    _require(e.ruleset in RULESETS, "env.ruleset", f"one of {RULESETS}", e.ruleset)
    if "ruleset" in e.rules:
        raise ConfigError("env.rules: give the ruleset as env.ruleset, not inside env.rules")
    try:
        rules = Rules(ruleset=e.ruleset, **e.rules)
    except (TypeError, ValueError) as err:
        message = str(err)
        flag = next((k for k in e.rules if message.startswith(f"{k} ")), None)  # name the key: env.rules.<flag>
        raise ConfigError(f"env.rules.{message}" if flag else f"env.rules: {message}") from None
    _require(
        p.batch_size <= c.rollout_steps,
        "ppo.batch_size",
        f"<= ppo.n_steps * env.num_envs = {c.rollout_steps}",
        p.batch_size,
    )
    per_decision = _decision_bytes(rules, c.policy.lookahead)
    needed = c.rollout_steps * per_decision
    _require(
        needed <= MAX_ROLLOUT_BYTES,
        "ppo.n_steps * env.num_envs",
        f"small enough for one rollout to fit in {MAX_ROLLOUT_BYTES // 2**30} GiB "
        f"({per_decision // 1000} kB per decision on a board of reach {rules.reach}: "
        f"this one needs {needed / 2**30:.0f} GiB)",
        c.rollout_steps,
    )
    _require(o.random_weight + o.greedy_weight > 0, "opponents.random_weight + greedy_weight", "> 0", 0)
    _require(
        not (c.policy.lookahead and im.decisions),
        "imitation.decisions",
        "0 with policy.lookahead = true (that policy starts from the lookahead's valuation; nothing to clone)",
        im.decisions,
    )
    if ev.opponents:
        from hg_env.agents.base import make_agent

        for spec in ev.opponents:
            try:
                make_agent(spec)
            except ValueError as err:
                raise ConfigError(f"eval.opponents: {err}") from None


def _check_rllib(c: TrainConfig) -> None:
    """What the RLlib backend needs (hg_env.train.rllib_ppo)."""
    _require(c.imitation.decisions == 0, "imitation.decisions", '0 with run.backend = "rllib"', c.imitation.decisions)
    runners = c.ray.num_env_runners
    _require(
        c.env.num_envs % max(runners, 1) == 0,
        "env.num_envs",
        f"a multiple of ray.num_env_runners = {runners} (each runner plays the same number of games)",
        c.env.num_envs,
    )


def _decision_bytes(rules: Rules, lookahead: bool) -> int:
    """Bytes a rollout stores per decision: the uint8 observation, the bool mask, the lookahead floats."""
    size = 2 * rules.reach + 1
    actions = action_layout(rules).size
    extra = 4 * (len(LOOKAHEAD_FEATURES) * actions + len(ESTIMATE_FEATURES)) if lookahead else 0
    return len(channel_names(rules.ruleset, rules.reach)) * size * size + actions + extra


# ---------------------------------------------------------------- writing


def to_toml(config: TrainConfig) -> str:
    """The fully resolved config as TOML (what the run directory keeps as config.toml)."""
    return tomli_w.dumps(dataclasses.asdict(config))
