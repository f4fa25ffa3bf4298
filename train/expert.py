"""Expert iteration: the search network of ``puct`` improved from its own search (``hgenv train``
with ``[run] backend = "expert"``, e.g. ``configs/expert.toml``).

Each generation:

1. **Self-play.** ``selfplay.games`` games, every seat played by ``puct`` with the *best* network
   so far, all games searched together (one lookahead and one network call per simulation step for
   all of them), Dirichlet noise at the roots, the first ``search.temperature_decisions`` decisions of
   each game sampled in proportion to the visits and the rest the most visited move. The first
   ``selfplay.opening`` decisions of every game are greedy's (cheap; variety and, in tests, short
   games). ``selfplay.workers`` processes play the games' fixed chunks (``selfplay.chunks``) side by
   side: the chunks, not the workers, fix the result.
2. **Targets.** Every searched decision (more than one legal move) gives a sample: the mover's board,
   lookahead features and scores (``hg_env.agents.search_net.network_inputs``), the root's visit
   distribution, the search's value of the position (the mean value of its most visited move, for
   the mover), and once the game ends its outcome for the mover (1 win, 0.5 tie, 0 loss, as
   ``search.win_values``) and score margin (own final score minus the opponents' mean).
3. **Learning.** The *learner* (a ``SearchNet``, trained on across generations with one Adam
   optimizer) takes ``learn.epochs`` passes over the samples of the last ``learn.window``
   generations: cross-entropy to the visit distribution, ``learn.value_coef`` x binary
   cross-entropy of the win logit to the outcome (mixed with the search's value, weight
   ``learn.search_value``: one outcome is shared by all of a game's positions, the search values each
   on its own), ``learn.margin_coef`` x squared error of the margin; each minibatch is turned by a
   random number of quarter turns (``learn.augment``, ``search_net.rotate_inputs``).
4. **Gating.** The learner's search plays the best network's search (``gate.games`` games, paired
   decks, seats swapped, all searched at once, after the same greedy opening as self-play); it
   becomes the best network when it wins at least ``gate.threshold`` of them.

**The teacher.** With ``teacher.games > 0`` generation 1 plays no self-play: ``teacher.agent`` (an
``mcts`` spec) plays that many games against itself, one agent per game; its root visits
(``MCTSAgent.root_visits``), sharpened by ``teacher.visit_temperature`` (default 0: the move it plays),
are the policy targets, the games' outcomes and margins the value targets; the
learner takes ``teacher.epochs`` passes over them and is gated as usual. The teacher's games come in
``teacher.chunks`` fixed chunks, each kept in ``<run>/teacher/chunk_*.npz`` once played (with what fixes
its games: teacher, opening, game, size, seed): a run killed before its first checkpoint, started
again, plays only the missing chunks, and chunks played elsewhere (another machine's processes) can
be copied in. With ``teacher.agent = "policy"`` the starting model's policy plays the teacher's games
instead, all of a chunk's games decided together (about 0.12 CPU-s a game on hg2020, some 250 times
cheaper than ``mcts``'): value targets in bulk, the policy's own distribution as the policy
target. ``teacher.fit_skip`` then fits the value head's skip (a linear value of the mover's leads,
``hg_env.agents.search_net``) to all the teacher's samples by regression before any gradient pass
(``fit_value_skip``); with ``teacher.epochs = 0`` none follows (``configs/expert_value.toml``).
``teacher.holdout = K`` keeps the last K chunks out of the fit and the gradient passes: the log gives
the losses on them before and after learning (``configs/expert_value_mlp.toml``).
Later generations are expert iteration from there.

The first best network is the starting PPO model (``start.model``, default the shipped
``ppo_<ruleset>.zip``), searched with its own policy and value heads; the learner starts from its
weights with a fresh value head (``SearchNet.from_boardnet``).

Runs resume exactly. After every generation a checkpoint (``checkpoints/gen_*.pt``: tensors and
plain values only, read back with ``torch.load(weights_only=True)``) holds both networks, the
optimizer, the kept samples, the run's generator and the size of ``expert.jsonl``; ``--resume``
continues from the newest, cutting the log back to it, and a killed run resumed gives the same
weights bit for bit as one never stopped (on the same machine and thread count). The run directory
also gets ``config.toml``, ``expert.jsonl`` (one line per generation: samples, losses, the gate's
result, seconds) and ``final_model.zip`` (the best network; kind ``searchnet`` once a learner has
passed a gate, else the starting model).

The network runs on CUDA when there is one (learning, and the search of gating and of a
single-process self-play), else on the CPU.
"""

from __future__ import annotations

import dataclasses
import io
import json
import multiprocessing
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hg_env.agents.base import make_agent
from hg_env.agents.greedy import greedy_actions
from hg_env.agents.model_file import load_model, save_model
from hg_env.agents.puct import NetworkEvaluator, PUCTAgent, choose, ppo_model
from hg_env.agents.search_net import LOOKAHEAD_SPREAD, MARGIN_SCALE, SearchNet, network_inputs, rotate_inputs
from hg_env.core import engine, search
from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from hg_env.core.ruleset import RULESETS
from hg_env.core.state import OVER
from hg_env.fileio import atomic_write_bytes, atomic_write_text
from hg_env.train.checkpoint import (
    CheckpointError,
    generator_from,
    generator_state,
    load_checkpoint_file,
    open_run_dir,
    write_checkpoint,
)
from hg_env.train.config import (
    ConfigError,
    _require,
    bounded,
    check_folder_name,
    load_checked,
    sections_from_dict,
)

CHECKPOINT_FORMAT = "hg_env-expert-checkpoint-v2"  # v2: the value skip reads 6 inputs (v1: 3)
POLICY_TEACHER = "policy"  # teacher.agent: the starting model's policy plays the teacher's games
LOG = "expert.jsonl"
BACKEND = "expert"


# ---------------------------------------------------------------- configuration


@dataclass
class ExpertRunConfig:
    """What to run and where."""

    name: str = "expert"  # the run directory is <out_dir>/<name>: a plain folder name
    backend: str = BACKEND  # "expert": this file (hgenv train reads it to pick expert iteration)
    out_dir: str = "runs"  # any folder (no NUL)
    seed: int = bounded(0, 0, 2**32 - 1)  # 0..2**32-1; seeds games, search and learning
    generations: int = bounded(6, 1, 100_000)  # 1..100000 generations (self-play, learning, gate)
    torch_threads: int = bounded(1, 1, 256)  # 1..256 torch threads of the main process
    keep_checkpoints: int = bounded(2, 1, 1000)  # 1..1000; older checkpoints are deleted


@dataclass
class ExpertEnvConfig:
    """The game."""

    ruleset: str = "hg2020"  # "hg2020", "hg2002" or "carcassonne"
    num_players: int = bounded(2, MIN_PLAYERS, MAX_PLAYERS)  # 2..5
    rules: dict[str, Any] = field(default_factory=dict)  # the ruleset's flags (hg_env.Rules), board_reach 12 only


@dataclass
class StartConfig:
    """The network expert iteration starts from."""

    model: str = ""  # a lookahead PPO model file (hgenv train); "": the shipped ppo_<ruleset>.zip


@dataclass
class SearchConfig:
    """The search of self-play (puct's options; hg_env.agents.puct)."""

    sims: int = bounded(48, 1, 100_000)  # 1..100000 simulations per decision
    c_puct: float = bounded(1.5, 0.0, 100.0)  # [0, 100]
    deals: int = bounded(8, 0, 1024)  # 0..1024 re-deals shared by a root's moves
    batch: int = bounded(8, 1, 1024)  # 1..1024 simulations of one game run together
    mix: float = bounded(0.5, 0.0, 1.0)  # [0, 1] weight of the lookahead's value against the network's
    qprior: float = bounded(0.0, 0.0, 100.0)  # [0, 100] visits a move's one-turn lookahead value counts for
    noise: float = bounded(0.25, 0.0, 1.0)  # [0, 1] Dirichlet noise at the roots
    temperature_decisions: int = bounded(16, 0, 10_000)  # 0..10000 first decisions of a game sampled by visits


@dataclass
class TeacherConfig:
    """Generation 1 learns from a stronger search's games (distillation) instead of its own."""

    # "": none; an mcts spec ("mcts", "mcts:sims=150", ...) whose root visits are the targets; "policy": the
    # starting model's policy, all of a chunk's games batched (cheap games: value targets in bulk)
    agent: str = ""
    games: int = bounded(0, 0, 100_000)  # 0..100000 games the teacher plays against itself (0: no teacher)
    chunks: int = bounded(1, 1, 4096)  # 1..4096 fixed groups of games, each kept on disk once played
    epochs: int = bounded(4, 0, 1000)  # 0..1000 passes over the teacher's samples (0: none, e.g. fit_skip alone)
    # "policy" only: after a game's first search.temperature_decisions decisions (sampled from the policy),
    # the chance [0, 1] that a decision is sampled too rather than the most probable move
    explore: float = bounded(0.15, 0.0, 1.0)
    # fit the value head's skip (hg_env.agents.search_net) to the teacher's samples by regression before any
    # gradient pass: a linear value of the leads, fitted on every sample at once
    fit_skip: bool = False
    # [0, 10] policy targets: the teacher's visits ** (1/T), renormalised; 0: all on its most visited move.
    # mcts spreads its visits (progressive widening, UCB over heuristic values): the move it plays is the target.
    visit_temperature: float = bounded(0.0, 0.0, 10.0)
    # 0..4095 of the teacher's chunks, the last ones, held out: neither fitted nor learned from; the log gives the
    # losses on them before and after learning (loss_holdout_start_*, loss_holdout_*), to tell learning from
    # memorising (one outcome is shared by all of a game's positions)
    holdout: int = bounded(0, 0, 4095)


@dataclass
class SelfPlayConfig:
    """The games of a generation."""

    games: int = bounded(24, 1, 100_000)  # 1..100000 games per generation
    opening: int = bounded(0, 0, 10_000)  # 0..10000 first decisions of every game played by greedy
    chunks: int = bounded(1, 1, 4096)  # 1..4096 fixed groups of games, each searched together
    workers: int = bounded(1, 1, 256)  # 1..256 processes playing chunks side by side (1: this process)


@dataclass
class LearnConfig:
    """Learning from the samples."""

    epochs: int = bounded(2, 1, 1000)  # 1..1000 passes over the kept samples per generation
    batch_size: int = bounded(128, 1, 65536)  # 1..65536 samples per minibatch
    learning_rate: float = bounded(3e-4, 0.0, 1.0, low_open=True)  # (0, 1] Adam
    weight_decay: float = bounded(1e-4, 0.0, 1.0)  # [0, 1]
    value_coef: float = bounded(1.0, 0.0, 100.0)  # [0, 100] weight of the outcome loss
    margin_coef: float = bounded(0.5, 0.0, 100.0)  # [0, 100] weight of the score-margin loss
    # [0, 1] weight of the search's root value in the win target, the outcome's is 1 minus it
    # (samples without one, from chunks of an earlier version, take the outcome alone)
    search_value: float = bounded(0.0, 0.0, 1.0)
    window: int = bounded(2, 1, 1000)  # 1..1000 generations of samples kept
    augment: bool = True  # turn every minibatch by a random number of quarter turns


@dataclass
class GateConfig:
    """The match that decides whether the learner replaces the best network."""

    games: int = bounded(20, 2, 100_000)  # 2..100000 games (paired decks, seats swapped)
    threshold: float = bounded(0.55, 0.0, 1.0)  # [0, 1] learner's win rate needed (ties count half)
    sims: int = bounded(0, 0, 100_000)  # 0..100000 simulations per decision (0: search.sims)


@dataclass
class ExpertConfig:
    run: ExpertRunConfig = field(default_factory=ExpertRunConfig)
    env: ExpertEnvConfig = field(default_factory=ExpertEnvConfig)
    start: StartConfig = field(default_factory=StartConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    teacher: TeacherConfig = field(default_factory=TeacherConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    learn: LearnConfig = field(default_factory=LearnConfig)
    gate: GateConfig = field(default_factory=GateConfig)

    def rules(self) -> Rules:
        return Rules(ruleset=self.env.ruleset, **self.env.rules)


def is_expert_config(raw: dict) -> bool:
    """True for a config file of expert iteration (``[run] backend = "expert"``)."""
    run = raw.get("run")
    return isinstance(run, dict) and run.get("backend") == BACKEND


def load_expert_config(path: str | Path, overrides: dict[str, dict[str, Any]] | None = None) -> ExpertConfig:
    """Read and check an expert-iteration config; ConfigError naming the file and key."""
    return load_checked(path, overrides, expert_config_from_dict)


def expert_config_from_dict(raw: dict[str, Any]) -> ExpertConfig:
    """A checked ExpertConfig from the tables of a TOML file (the checks of hg_env.train.config)."""
    config = sections_from_dict(ExpertConfig, raw)
    check_folder_name(config.run.name, "run.name")
    _require(
        config.run.backend == BACKEND, "run.backend", f"{BACKEND!r} in an expert-iteration config", config.run.backend
    )
    out = config.run.out_dir
    _require(bool(out) and "\0" not in out, "run.out_dir", "a folder (not empty, no NUL)", out)
    _require(config.env.ruleset in RULESETS, "env.ruleset", f"one of {RULESETS}", config.env.ruleset)
    try:
        rules = config.rules()
    except (TypeError, ValueError) as err:
        raise ConfigError(f"env.rules: {err}") from None
    _require(rules.reach == 12, "env.rules.board_reach", "12 (the starting model's board)", rules.reach)
    _require(
        config.selfplay.chunks <= config.selfplay.games,
        "selfplay.chunks",
        f"<= selfplay.games = {config.selfplay.games}",
        config.selfplay.chunks,
    )
    if config.teacher.games:
        name = config.teacher.agent.partition(":")[0]
        _require(
            name == "mcts" or config.teacher.agent == POLICY_TEACHER,
            "teacher.agent",
            f"an mcts spec or {POLICY_TEACHER!r} when teacher.games > 0",
            config.teacher.agent,
        )
        if name == "mcts":
            try:
                make_agent(config.teacher.agent)
            except ValueError as err:
                raise ConfigError(f"teacher.agent: {err}") from None
        _require(
            config.teacher.chunks <= config.teacher.games,
            "teacher.chunks",
            f"<= teacher.games = {config.teacher.games}",
            config.teacher.chunks,
        )
        _require(
            config.teacher.holdout < config.teacher.chunks,
            "teacher.holdout",
            f"< teacher.chunks = {config.teacher.chunks} (some chunks must be learned from)",
            config.teacher.holdout,
        )
    start = start_model(config)
    _require(Path(start).is_file(), "start.model", "an existing model file", start)
    return config


def start_model(config: ExpertConfig) -> str:
    """The run's starting PPO model: ``start.model``, else the ruleset's shipped one."""
    return config.start.model or str(ppo_model(config.env.ruleset))


def to_toml(config: ExpertConfig) -> str:
    import tomli_w

    return tomli_w.dumps(dataclasses.asdict(config))


# ---------------------------------------------------------------- samples


SAMPLE_KEYS = ("board_index", "board_value", "board_ptr", "legal", "gains", "visits", "legal_ptr")
ROW_KEYS = ("estimate", "score_now", "outcome", "margin", "search_value")


def pack_samples(items: list[dict]) -> dict[str, np.ndarray]:
    """Samples as flat arrays: boards sparse (flat index, value), legal moves ragged (``*_ptr`` offsets)."""
    boards = [item["board"].reshape(-1) for item in items]
    wide = np.uint16 if not boards or boards[0].size <= 2**16 else np.int32  # 85 x 625 planes: 2 bytes an entry
    index = [np.flatnonzero(b).astype(wide) for b in boards]
    lengths = [len(item["legal"]) for item in items]
    return {
        "board_index": np.concatenate(index) if items else np.zeros(0, np.int32),
        "board_value": np.concatenate([b[i] for b, i in zip(boards, index)]) if items else np.zeros(0, np.uint8),
        "board_ptr": np.concatenate([[0], np.cumsum([len(i) for i in index])]).astype(np.int64),
        "legal": np.concatenate([item["legal"] for item in items]).astype(np.int64) if items else np.zeros(0, np.int64),
        "gains": np.concatenate([item["gains"].T for item in items]).astype(np.float32)
        if items
        else np.zeros((0, 2), np.float32),
        "visits": np.concatenate([item["visits"] for item in items]).astype(np.float32)
        if items
        else np.zeros(0, np.float32),
        "legal_ptr": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        "estimate": np.array([item["estimate"] for item in items], np.float32).reshape(-1, 2),
        "score_now": np.array([item["score_now"] for item in items], np.float32).reshape(-1, 4),
        "outcome": np.array([item["outcome"] for item in items], np.float32),
        "margin": np.array([item["margin"] for item in items], np.float32),
        "search_value": np.array([item["search_value"] for item in items], np.float32),
    }


def with_search_value(pack: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A pack of an earlier version (no search values) with NaN ones: the win target is then the outcome."""
    if "search_value" not in pack:
        pack["search_value"] = np.full(len(pack["outcome"]), np.nan, np.float32)
    return pack


def concat_packs(packs: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One pack of several (offsets shifted)."""
    out: dict[str, np.ndarray] = {}
    for key in ("board_index", "board_value", "legal", "gains", "visits", *ROW_KEYS):
        out[key] = np.concatenate([p[key] for p in packs])
    for key, data in (("board_ptr", "board_index"), ("legal_ptr", "legal")):
        parts, shift = [np.zeros(1, np.int64)], 0
        for p in packs:
            parts.append(p[key][1:] + shift)
            shift += len(p[data])
        out[key] = np.concatenate(parts)
    return out


def unpack_batch(
    pack: dict[str, np.ndarray], rows: np.ndarray, board_shape: tuple[int, ...], actions: int
) -> dict[str, np.ndarray]:
    """Dense arrays of samples ``rows``: board, gains [B, 2, A], legal [B, L] (+ valid), visits [B, L]."""
    b = len(rows)
    board = np.zeros((b, int(np.prod(board_shape))), np.uint8)
    width = max(1, int(max(pack["legal_ptr"][r + 1] - pack["legal_ptr"][r] for r in rows)))
    legal = np.zeros((b, width), np.int64)
    valid = np.zeros((b, width), bool)
    visits = np.zeros((b, width), np.float32)
    gains = np.zeros((b, 2, actions), np.float32)
    for j, r in enumerate(rows):
        lo, hi = pack["board_ptr"][r], pack["board_ptr"][r + 1]
        board[j, pack["board_index"][lo:hi]] = pack["board_value"][lo:hi]
        lo, hi = pack["legal_ptr"][r], pack["legal_ptr"][r + 1]
        n = hi - lo
        legal[j, :n] = pack["legal"][lo:hi]
        valid[j, :n] = True
        visits[j, :n] = pack["visits"][lo:hi]
        gains[j][:, pack["legal"][lo:hi]] = pack["gains"][lo:hi].T
    return {
        "board": board.reshape(b, *board_shape),
        "gains": gains,
        "legal": legal,
        "valid": valid,
        "visits": visits,
        **{key: pack[key][rows] for key in ROW_KEYS},
    }


# ---------------------------------------------------------------- self-play


def _agent(net: torch.nn.Module, metadata: dict, config: ExpertConfig, seed: int, sims: int = 0) -> PUCTAgent:
    s = config.search
    return PUCTAgent.from_net(
        net,
        metadata,
        seed=seed,
        sims=sims or s.sims,
        c_puct=s.c_puct,
        deals=s.deals,
        batch=s.batch,
        mix=s.mix,
        qprior=s.qprior,
        noise=0.0,
    )


def play_chunk(net: torch.nn.Module, metadata: dict, config: ExpertConfig, games: int, seed: int) -> dict:
    """Self-play of ``games`` games searched together by ``net``; their samples, packed."""
    rng = np.random.default_rng(seed)
    agent = _agent(net, metadata, config, int(rng.integers(2**32)))
    agent.settings.noise = config.search.noise

    def decide(state: Any, rows: np.ndarray, sampled: np.ndarray, items: list[list[dict]]) -> np.ndarray:
        roots = agent.search(state, rows)
        weight = agent.settings.move_weight
        searched = [(root.actions, root.n, float(root.q(weight)[root.best(weight)])) for root in roots]
        _record(state, rows, searched, rng, items)
        actions = np.full(state.batch_size, -1, dtype=np.int64)
        for g, root, sample in zip(rows, roots, sampled):
            actions[g] = root.actions[choose(root, 1.0 if sample else 0.0, rng, weight)]
        return actions

    return _play_games(config, games, rng, decide)


def play_teacher_chunk(config: ExpertConfig, games: int, seed: int) -> dict:
    """``games`` games of the teacher (``teacher.agent``, one per game) against itself; their samples,
    packed like self-play's: the teacher's root visits are the policy targets. The first
    ``search.temperature_decisions`` decisions of a game are sampled in proportion to the visits."""
    if config.teacher.agent == POLICY_TEACHER:
        return play_policy_chunk(config, games, seed)
    rng = np.random.default_rng(seed)
    teachers = [make_agent(config.teacher.agent, seed=int(s)) for s in rng.integers(2**32, size=games)]

    def decide(state: Any, rows: np.ndarray, sampled: np.ndarray, items: list[list[dict]]) -> np.ndarray:
        actions = np.full(state.batch_size, -1, dtype=np.int64)
        searched = []
        for g, sample in zip(rows, sampled):
            action, legal, visits, value = teachers[g].root_visits(state, int(g))
            if sample and len(legal) > 1:
                action = int(rng.choice(legal, p=visits / visits.sum()))
            actions[g] = action
            searched.append((legal, visits, value))
        _record(state, rows, searched, rng, items)
        return actions

    return _play_games(config, games, rng, decide)


def play_policy_chunk(config: ExpertConfig, games: int, seed: int) -> dict:
    """``games`` games of the starting model's policy against itself, all decided together (one lookahead
    and one network call per decision for all of them); their samples, packed: the policy's own
    distribution is the policy target, the outcome and margin the value targets (no search value). A
    game's first ``search.temperature_decisions`` decisions are sampled from the policy, later ones are
    its most probable move, or a sample with probability ``teacher.explore``. The network runs on one
    torch thread (its numbers depend on the thread count in their last bits): a chunk holds the same
    samples in a worker process or in the main one, on any machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _play_policy_chunk(config, games, seed)
    finally:
        torch.set_num_threads(threads)


def _play_policy_chunk(config: ExpertConfig, games: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    loaded = load_model(start_model(config), ruleset=config.env.ruleset)
    evaluator = NetworkEvaluator(loaded.net.eval(), loaded.metadata, mix=0.0, scale=LOOKAHEAD_SPREAD)

    def decide(state: Any, rows: np.ndarray, sampled: np.ndarray, items: list[list[dict]]) -> np.ndarray:
        view = search.plain_copy(state, rows)
        search.redeal(view, rng)  # the policy sees a re-deal, as a search would: never the deck order
        inputs = network_inputs(view, np.arange(len(rows)), searchnet=True)
        evaluations = evaluator.from_inputs(inputs, view, np.arange(len(rows)))
        actions = np.full(state.batch_size, -1, dtype=np.int64)
        for g, sample, (legal, prior, _, _) in zip(rows, sampled, evaluations):
            explore = sample or rng.random() < config.teacher.explore
            actions[g] = legal[int(rng.choice(len(legal), p=prior)) if explore else int(np.argmax(prior))]
        _keep_samples(state, rows, inputs, [(e[0], e[1], float("nan")) for e in evaluations], items)
        return actions

    return _play_games(config, games, rng, decide)


def _play_games(config: ExpertConfig, games: int, rng: np.random.Generator, decide: Any) -> dict:
    """``games`` new games (``_new_games``) played to the end, packed: ``decide(state, rows, sampled, items)``
    records the samples of the live games ``rows`` and returns the actions (``sampled``: the decisions
    within a game's first ``search.temperature_decisions``)."""
    state = _new_games(config, games, rng)
    decisions = np.zeros(games, dtype=np.int64)
    items: list[list[dict]] = [[] for _ in range(games)]
    while True:
        rows = np.flatnonzero(state.phase != OVER)
        if not len(rows):
            break
        actions = decide(state, rows, decisions[rows] < config.search.temperature_decisions, items)
        decisions[rows] += 1
        engine.step(state, actions)
    return _finish(state, items)


def _new_games(config: ExpertConfig, games: int, rng: np.random.Generator) -> Any:
    """``games`` new games seeded from ``rng``, after the greedy opening (``selfplay.opening``)."""
    seeds = [int(s) for s in rng.integers(0, 2**62, size=games)]
    state = engine.new_games(config.env.num_players, config.rules(), seeds=seeds, record_events=False)
    _opening(state, config.selfplay.opening, rng)
    return state


def _record(
    state: Any,
    rows: np.ndarray,
    searched: list[tuple[np.ndarray, np.ndarray, float]],
    rng: np.random.Generator,
    items: list[list[dict]],
) -> None:
    """A sample for each game ``rows[j]`` whose decision was searched (``searched[j]``: its legal moves,
    their root visits and the search's value for the mover; more than one move): the mover's inputs,
    from a re-deal like the search's."""
    keep = [j for j, (legal, _, _) in enumerate(searched) if len(legal) > 1]
    if not keep:
        return
    sub = rows[keep]
    view = search.plain_copy(state, sub)
    search.redeal(view, rng)
    inputs = network_inputs(view, np.arange(len(sub)), searchnet=True)
    _keep_samples(state, sub, inputs, [searched[j] for j in keep], items)


def _keep_samples(
    state: Any,
    rows: np.ndarray,
    inputs: dict,
    searched: list[tuple[np.ndarray, np.ndarray, float]],
    items: list[list[dict]],
) -> None:
    """``_record``'s samples from inputs already built (``network_inputs`` of games ``rows``, on a
    re-deal); decisions with one legal move are left out."""
    for i, (legal, visits, value) in enumerate(searched):
        if len(legal) < 2:
            continue
        g = int(rows[i])
        if not np.array_equal(inputs["legal"][i], legal):
            raise RuntimeError(f"game {g}: the sample's legal moves differ from the search's")
        items[g].append(
            {
                "board": inputs["board"][i],
                "legal": legal,
                "gains": inputs["lookahead"][i][:, legal],
                "visits": visits / visits.sum(),
                "estimate": inputs["estimate"][i],
                "score_now": inputs["score_now"][i],
                "search_value": value,
                "seat": int(state.current[g]),
            }
        )


def _finish(state: Any, items: list[list[dict]]) -> dict:
    """The samples of finished games, with each mover's outcome and score margin, packed."""
    outcome = search.win_values(state)
    score = state.score.astype(np.float64)
    flat = []
    for g, game_items in enumerate(items):
        n = int(state.num_players[g])
        for item in game_items:
            seat = item.pop("seat")
            item["outcome"] = float(outcome[g, seat])
            opponents = (score[g, :n].sum() - score[g, seat]) / max(n - 1, 1)
            item["margin"] = float((score[g, seat] - opponents) * MARGIN_SCALE)
            flat.append(item)
    return pack_samples(flat)


def _chunk_worker(args: tuple) -> dict:
    weights, metadata, config_dict, games, seed = args
    torch.set_num_threads(1)
    config = expert_config_from_dict(config_dict)
    net = _build(metadata["kind"], metadata["net_kwargs"])
    net.load_state_dict(weights)
    return play_chunk(net.eval(), metadata, config, games, seed)


def self_play(net: torch.nn.Module, metadata: dict, config: ExpertConfig, rng: np.random.Generator) -> dict:
    """A generation's games in ``selfplay.chunks`` fixed chunks (seeded from ``rng``), on ``workers`` processes."""
    chunks = config.selfplay.chunks
    sizes = np.diff(np.linspace(0, config.selfplay.games, chunks + 1).round().astype(int))
    seeds = [int(s) for s in rng.integers(0, 2**62, size=chunks)]
    if config.selfplay.workers == 1:
        return concat_packs([play_chunk(net, metadata, config, int(n), s) for n, s in zip(sizes, seeds)])
    weights = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    cpu_meta = dict(metadata)
    tasks = [(weights, cpu_meta, dataclasses.asdict(config), int(n), s) for n, s in zip(sizes, seeds)]
    with multiprocessing.get_context("spawn").Pool(config.selfplay.workers) as pool:
        return concat_packs(pool.map(_chunk_worker, tasks))


def _teacher_worker(args: tuple) -> tuple[int, dict]:
    index, config_dict, games, seed = args
    return index, play_teacher_chunk(expert_config_from_dict(config_dict), games, seed)


def teacher_play(config: ExpertConfig, rng: np.random.Generator, run_dir: Path) -> tuple[dict, dict | None]:
    """The teacher's games in ``teacher.chunks`` fixed chunks (seeded from ``rng``), on ``selfplay.workers``
    processes. Each chunk is kept in ``<run>/teacher/chunk_*.npz`` once played, so a killed run started
    again plays only the chunks it has not (a chunk file must match its chunk: ``teacher_key``, size, seed).
    The policy targets are the visits sharpened by ``teacher.visit_temperature``; the files keep them as played.
    Returns (the samples to learn from, those of the last ``teacher.holdout`` chunks or None)."""
    chunks = config.teacher.chunks
    sizes = np.diff(np.linspace(0, config.teacher.games, chunks + 1).round().astype(int))
    seeds = [int(s) for s in rng.integers(0, 2**62, size=chunks)]
    folder = run_dir / "teacher"
    folder.mkdir(exist_ok=True)
    key = teacher_key(config)
    packs: dict[int, dict] = {}
    for i, (n, seed) in enumerate(zip(sizes, seeds)):
        pack = read_teacher_chunk(folder / f"chunk_{i:04d}.npz", key, int(n), seed)
        if pack is not None:
            packs[i] = pack
    todo = [(i, dataclasses.asdict(config), int(sizes[i]), seeds[i]) for i in range(chunks) if i not in packs]

    def keep(i: int, pack: dict) -> None:
        packs[i] = pack
        buffer = io.BytesIO()
        np.savez_compressed(buffer, key=key, games=sizes[i], seed=np.uint64(seeds[i]), **pack)
        atomic_write_bytes(folder / f"chunk_{i:04d}.npz", buffer.getvalue())

    if config.selfplay.workers == 1 or len(todo) <= 1:
        for task in todo:
            keep(*_teacher_worker(task))
    else:
        with multiprocessing.get_context("spawn").Pool(min(config.selfplay.workers, len(todo))) as pool:
            for i, pack in pool.imap_unordered(_teacher_worker, todo):
                keep(i, pack)
    learned = chunks - config.teacher.holdout

    def targets(span: range) -> dict:
        pack = concat_packs([packs[i] for i in span])
        pack["visits"] = sharpen(pack["visits"], pack["legal_ptr"], config.teacher.visit_temperature)
        return pack

    return targets(range(learned)), targets(range(learned, chunks)) if config.teacher.holdout else None


def sharpen(visits: np.ndarray, ptr: np.ndarray, temperature: float) -> np.ndarray:
    """Packed visit distributions (sample i's are ``visits[ptr[i]:ptr[i + 1]]``) raised to ``1 / T`` and
    renormalised; T = 0 puts all on each sample's most visited move (the first of equals)."""
    if temperature == 1.0 or not len(visits):
        return visits
    lengths = np.diff(ptr)
    sample = np.repeat(np.arange(len(lengths)), lengths)
    if temperature == 0.0:
        top = np.flatnonzero(visits == np.maximum.reduceat(visits, ptr[:-1])[sample])
        first = top[np.r_[True, sample[top][1:] != sample[top][:-1]]]
        out = np.zeros_like(visits)
        out[first] = 1.0
        return out
    powered = visits ** (1.0 / temperature)
    return (powered / np.add.reduceat(powered, ptr[:-1])[sample]).astype(visits.dtype)


def teacher_key(config: ExpertConfig) -> str:
    """What fixes a teacher chunk's games besides its size and seed (kept in the chunk, checked on reuse)."""
    key = {
        "agent": config.teacher.agent,
        "temperature_decisions": config.search.temperature_decisions,
        "opening": config.selfplay.opening,
        "env": dataclasses.asdict(config.env),
    }
    if config.teacher.agent == POLICY_TEACHER:  # its games depend on the starting model too
        from hg_env.arena.ladder import file_sha256

        key["start_sha256"] = file_sha256(start_model(config))
        key["explore"] = config.teacher.explore
        key["torch_threads"] = 1  # _play_policy_chunk's: on more threads its policy targets differ in the last bits
    return json.dumps(key, sort_keys=True)


def read_teacher_chunk(path: Path, key: str, games: int, seed: int) -> dict | None:
    """A kept chunk's samples, or None when there is none; ValueError naming a corrupt or foreign file."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            found = {key: data[key] for key in data.files}
    except Exception as err:
        raise ValueError(f"{path} is corrupt ({type(err).__name__}); delete it to play that chunk again") from None
    with_search_value(found)  # chunks of an earlier version have none
    missing = {"key", "games", "seed", *SAMPLE_KEYS, *ROW_KEYS} - set(found)
    if missing:
        raise ValueError(f"{path} is not a teacher chunk: it lacks {sorted(missing)}")
    if str(found.pop("key")) != key:
        raise ValueError(f"{path} holds games of another teacher, opening or game; delete it to play it again")
    if int(found.pop("games")) != games or int(found.pop("seed")) != seed:
        raise ValueError(f"{path} holds another chunk's games (another seed or size); delete it to play it again")
    return found


# ---------------------------------------------------------------- learning and gating


SKIP_RIDGE = 1e-8  # L2 weight of fit_value_skip's logistic regression: only keeps separable samples finite
INPUT_NAMES = (  # the network's input keys and the unpacked samples' columns they come from
    ("board", "board"),
    ("lookahead", "gains"),
    ("estimate", "estimate"),
    ("score_now", "score_now"),
)


def fit_value_skip(net: SearchNet, pack: dict[str, np.ndarray], batch_size: int = 1024) -> dict[str, float]:
    """Make ``net``'s value the linear one that fits the samples best: the skip's win row by logistic
    regression on the outcomes, its margin row by least squares on the margins, each intercept as the
    value head's bias; the head's MLP part is switched off (its last layer zeroed: gradient passes
    after the fit grow it from there). Returns the fitted losses (binary cross-entropy of the win
    logit, mean squared error of the margin)."""
    device = next(net.parameters()).device
    size = net.layout.board.size
    features = []
    for start in range(0, len(pack["outcome"]), batch_size):
        rows = np.arange(start, min(start + batch_size, len(pack["outcome"])))
        batch = unpack_batch(pack, rows, (net.num_channels, size, size), net.layout.size)
        inputs = {key: torch.as_tensor(batch[name], device=device) for key, name in INPUT_NAMES}
        with torch.no_grad():
            features.append(net.skip_inputs(inputs).double().cpu())
    x = torch.cat(features)
    x = torch.cat([x, torch.ones(len(x), 1, dtype=x.dtype)], 1)  # the intercept
    outcome = torch.as_tensor(pack["outcome"], dtype=torch.float64)
    margin = torch.as_tensor(pack["margin"], dtype=torch.float64)
    win = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([win], max_iter=500, tolerance_grad=1e-10, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimizer.zero_grad()
        value = torch.nn.functional.binary_cross_entropy_with_logits(x @ win, outcome)
        value = value + SKIP_RIDGE * (win[:-1] ** 2).sum()
        value.backward()
        return value

    optimizer.step(loss)
    fitted_margin = torch.linalg.lstsq(x, margin[:, None]).solution[:, 0]
    with torch.no_grad():
        weights = torch.stack([win.detach(), fitted_margin]).float().to(device)
        net.value_skip.weight.copy_(weights[:, :-1])
        net.value_head.bias.copy_(weights[:, -1])
        net.value_head.weight.zero_()
        value_loss = float(torch.nn.functional.binary_cross_entropy_with_logits(x @ win.detach(), outcome))
        margin_loss = float(((x @ fitted_margin - margin) ** 2).mean())
    return {"value": value_loss, "margin": margin_loss}


LOSS_KEYS = ("policy", "value", "margin")


def batch_losses(
    net: SearchNet, pack: dict[str, np.ndarray], rows: np.ndarray, config: ExpertConfig, turns: int = 0
) -> dict[str, torch.Tensor]:
    """The mean losses of samples ``rows`` (turned by ``turns`` quarter turns): cross-entropy to the
    policy targets, binary cross-entropy of the win logit to the win target (the outcome, mixed with
    the search's value by ``learn.search_value``), squared error of the margin."""
    device = next(net.parameters()).device
    size = net.layout.board.size
    batch = unpack_batch(pack, rows, (net.num_channels, size, size), net.layout.size)
    batch["board"], batch["gains"], batch["legal"] = rotate_inputs(
        batch["board"], batch["gains"], batch["legal"], turns, net.ruleset
    )
    inputs = {key: torch.as_tensor(batch[name], device=device) for key, name in INPUT_NAMES}
    logits, out = net(inputs, torch.as_tensor(batch["legal"], device=device))
    valid = torch.as_tensor(batch["valid"], device=device)
    logp = torch.log_softmax(logits.masked_fill(~valid, -1e9), 1)
    policy = -(torch.as_tensor(batch["visits"], device=device) * logp).sum(1).mean()
    target = torch.as_tensor(batch["outcome"], device=device)
    if config.learn.search_value > 0:
        searched = torch.as_tensor(batch["search_value"], device=device)
        mixed = (1 - config.learn.search_value) * target + config.learn.search_value * searched
        target = torch.where(torch.isfinite(searched), mixed, target)
    value = torch.nn.functional.binary_cross_entropy_with_logits(out[:, 0], target)
    margin = torch.nn.functional.mse_loss(out[:, 1], torch.as_tensor(batch["margin"], device=device))
    return {"policy": policy, "value": value, "margin": margin}


def learn(
    net: SearchNet,
    optimizer: torch.optim.Optimizer,
    pack: dict[str, np.ndarray],
    config: ExpertConfig,
    rng: np.random.Generator,
    epochs: int = 0,
) -> dict[str, float]:
    """``epochs`` (0: ``learn.epochs``) passes over the samples; mean losses."""
    n = len(pack["outcome"])
    totals = dict.fromkeys(LOSS_KEYS, 0.0)
    steps = 0
    net.train()
    for _ in range(epochs or config.learn.epochs):
        order = rng.permutation(n)
        for start in range(0, n, config.learn.batch_size):
            rows = order[start : start + config.learn.batch_size]
            turns = int(rng.integers(4)) if config.learn.augment else 0
            losses = batch_losses(net, pack, rows, config, turns)
            loss = losses["policy"] + config.learn.value_coef * losses["value"]
            loss = loss + config.learn.margin_coef * losses["margin"]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            for key in LOSS_KEYS:
                totals[key] += losses[key].item()
            steps += 1
    net.eval()
    return {key: total / max(steps, 1) for key, total in totals.items()}


def held_out_losses(net: SearchNet, pack: dict[str, np.ndarray], config: ExpertConfig, batch_size: int = 512) -> dict:
    """The mean losses (``batch_losses``, unturned) of every sample of ``pack``, without learning."""
    n = len(pack["outcome"])
    totals = dict.fromkeys(LOSS_KEYS, 0.0)
    with torch.no_grad():
        for start in range(0, n, batch_size):
            rows = np.arange(start, min(n, start + batch_size))
            for key, loss in batch_losses(net, pack, rows, config).items():
                totals[key] += loss.item() * len(rows)
    return {key: total / max(n, 1) for key, total in totals.items()}


def gate(
    learner: SearchNet, best: tuple[torch.nn.Module, dict], config: ExpertConfig, seed: int
) -> tuple[float, tuple[float, float]]:
    """The learner's search against the best network's search: (win rate, 95% interval).

    ``gate.games`` games on paired decks, seats swapped (``hg_env.arena.evaluate``'s deck seeds),
    all searched at once (``play_games``); the first ``selfplay.opening`` decisions of every game are greedy's."""
    from hg_env.arena.evaluate import EvalResult, play_games

    sims = config.gate.sims or config.search.sims
    agent = _agent(learner, searchnet_metadata(learner, config), config, seed, sims)
    opponent = _agent(best[0], best[1], config, seed + 1, sims)
    rng = np.random.default_rng(seed)
    scores, seats = play_games(
        agent,
        opponent,
        config.gate.games,
        seed,
        config.env.num_players,
        config.rules(),
        opening=lambda state: _opening(state, config.selfplay.opening, rng),
    )
    result = EvalResult.from_games("best", scores, seats)
    return result.win_rate, (result.ci_low, result.ci_high)


def _opening(state: Any, decisions: int, rng: np.random.Generator) -> None:
    """The first ``decisions`` decisions of every game, played by greedy."""
    for _ in range(decisions):
        live = state.phase != OVER
        if not live.any():
            return
        engine.step(state, np.where(live, greedy_actions(state, rng), -1))


# ---------------------------------------------------------------- networks and checkpoints


def _build(kind: str, kwargs: dict) -> torch.nn.Module:
    from hg_env.agents.network import BoardNet

    return (SearchNet if kind == "searchnet" else BoardNet)(**kwargs)


def searchnet_metadata(net: SearchNet, config: ExpertConfig) -> dict:
    return {"kind": "searchnet", "ruleset": config.env.ruleset, "net_kwargs": net_kwargs(net)}


def net_kwargs(net: torch.nn.Module) -> dict:
    return {
        "board_reach": net.layout.board.reach,
        "channels": net.stem.out_features,
        "layers": len(net.convs),
        "hidden": net.value_out.in_features,
        "lookahead": bool(net.lookahead),
        "ruleset": net.ruleset,
    }


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children: a generation's self-play workers, joined when
    its pool closes, count in the generation's ``cpu_seconds`` too."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def checkpoint_paths(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "checkpoints").glob("gen_*.pt"))


def read_expert_checkpoint(path: Path) -> dict:
    """A checkpoint's payload, read without running code (``load_checkpoint_file``); CheckpointError naming
    the file."""
    payload = load_checkpoint_file(path)
    found = payload.get("format") if isinstance(payload, dict) else None
    if found == "hg_env-expert-checkpoint-v1":
        raise CheckpointError(
            f"{path} was written by an earlier version of expert iteration (its search network's value skip "
            "reads 3 inputs, this version's 6): start the run again (its teacher chunks are reused)"
        )
    if found != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a checkpoint of expert iteration ({CHECKPOINT_FORMAT})")
    return payload


def _tensors(pack: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {key: torch.from_numpy(np.array(value)) for key, value in pack.items()}


def _arrays(pack: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {key: value.numpy() for key, value in pack.items()}


def _log_size(run_dir: Path) -> int:
    path = run_dir / LOG
    return path.stat().st_size if path.exists() else 0


@dataclass
class RunState:
    """Everything a generation changes: what a checkpoint holds."""

    generation: int
    rng: np.random.Generator
    learner: SearchNet
    optimizer: torch.optim.Optimizer
    best: tuple[torch.nn.Module, dict]
    packs: list[dict[str, np.ndarray]]


def save_expert_checkpoint(run_dir: Path, run: RunState, config: ExpertConfig) -> Path:
    best_net, best_meta = run.best
    payload = {
        "format": CHECKPOINT_FORMAT,
        "generation": run.generation,
        "rng": generator_state(run.rng),
        "torch_rng": torch.get_rng_state(),
        "learner": {k: v.detach().cpu() for k, v in run.learner.state_dict().items()},
        "optimizer": run.optimizer.state_dict(),
        "best": {k: v.detach().cpu() for k, v in best_net.state_dict().items()},
        "best_metadata": json.dumps(best_meta),
        "packs": [_tensors(p) for p in run.packs],
        "log_bytes": _log_size(run_dir),
        "config": to_toml(config),
    }
    path = run_dir / "checkpoints" / f"gen_{run.generation:05d}.pt"
    write_checkpoint(path, payload)
    for old in checkpoint_paths(run_dir)[: -config.run.keep_checkpoints]:
        old.unlink()
    return path


def _start(config: ExpertConfig, device: str) -> RunState:
    """Generation 0: the starting PPO model as the best network, the learner from its weights."""
    path = start_model(config)
    loaded = load_model(path, ruleset=config.env.ruleset)
    if loaded.metadata["kind"] != "boardnet" or not loaded.net.lookahead:
        raise ValueError(f"start.model {path}: expert iteration starts from a lookahead boardnet (hgenv train)")
    torch.manual_seed(config.run.seed)
    learner = SearchNet.from_boardnet(loaded.net, loaded.metadata["net_kwargs"]).to(device).eval()
    optimizer = _optimizer(learner, config)
    rng = np.random.default_rng(config.run.seed)
    return RunState(0, rng, learner, optimizer, (loaded.net.to(device).eval(), loaded.metadata), [])


def _optimizer(net: SearchNet, config: ExpertConfig) -> torch.optim.Optimizer:
    return torch.optim.Adam(net.parameters(), lr=config.learn.learning_rate, weight_decay=config.learn.weight_decay)


def _restore(payload: dict, config: ExpertConfig, device: str) -> RunState:
    run = _start(config, device)
    run.generation = int(payload["generation"])
    run.rng = generator_from(payload["rng"])
    torch.set_rng_state(payload["torch_rng"])
    run.learner.load_state_dict(payload["learner"])
    run.optimizer.load_state_dict(payload["optimizer"])
    best_meta = json.loads(payload["best_metadata"])
    best = _build(best_meta["kind"], best_meta["net_kwargs"])
    best.load_state_dict(payload["best"])
    run.best = (best.to(device).eval(), best_meta)
    run.packs = [with_search_value(_arrays(p)) for p in payload["packs"]]
    return run


def _read_for(path: Path, config: ExpertConfig) -> dict:
    """The payload of checkpoint ``path``, refused if another config than ``config`` wrote it."""
    payload = read_expert_checkpoint(path)
    if payload["config"] != to_toml(config):
        raise ValueError(f"{path} was written by another config than the one given; resume with the run's own")
    return payload


def prepare_run_dir(config: ExpertConfig, resume: bool) -> tuple[Path, dict | None]:
    """The run directory, and on ``resume`` its newest checkpoint's payload (same config required)."""
    run_dir = Path(config.run.out_dir) / config.run.name
    payload = open_run_dir(run_dir, resume, checkpoint_paths, lambda path: _read_for(path, config))
    log = run_dir / LOG
    keep = 0 if payload is None else int(payload["log_bytes"])
    if log.exists() and log.stat().st_size > keep:
        with log.open("r+b") as f:
            f.truncate(keep)
    atomic_write_text(run_dir / "config.toml", to_toml(config))
    return run_dir, payload


def train_expert(
    config: ExpertConfig, resume: bool = False, progress: bool = True, stop_after: int | None = None
) -> Path:
    """Run (or resume) expert iteration; returns the run directory. ``stop_after`` stops after the
    checkpoint of that generation, as a kill would (tests)."""
    run_dir, payload = prepare_run_dir(config, resume)
    torch.set_num_threads(config.run.torch_threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if payload is None:
        run = _start(config, device)
    else:
        run = _restore(payload, config, device)
        print(f"resuming {run_dir} at generation {run.generation}", file=sys.stderr)
    while run.generation < config.run.generations:
        started, cpu = time.perf_counter(), _cpu_seconds()
        taught = run.generation == 0 and config.teacher.games > 0
        if taught:
            pack, held_out = teacher_play(config, run.rng, run_dir)
        else:
            pack, held_out = self_play(*run.best, config, run.rng), None
        run.packs = [*run.packs, pack][-config.learn.window :]
        fitted = fit_value_skip(run.learner, pack) if taught and config.teacher.fit_skip else {}
        losses = {f"fit_{key}": value for key, value in fitted.items()}
        if held_out is not None:
            losses.update({f"holdout_start_{k}": v for k, v in held_out_losses(run.learner, held_out, config).items()})
        if not taught or config.teacher.epochs > 0:
            epochs = config.teacher.epochs if taught else 0
            losses.update(learn(run.learner, run.optimizer, concat_packs(run.packs), config, run.rng, epochs))
            if held_out is not None:
                losses.update({f"holdout_{k}": v for k, v in held_out_losses(run.learner, held_out, config).items()})
        win_rate, interval = gate(run.learner, run.best, config, int(run.rng.integers(2**31)))
        accepted = win_rate >= config.gate.threshold
        if accepted:
            best = SearchNet(**net_kwargs(run.learner)).to(device)
            best.load_state_dict(run.learner.state_dict())
            run.best = (best.eval(), searchnet_metadata(run.learner, config))
        run.generation += 1
        line = {
            "generation": run.generation,
            "samples": len(pack["outcome"]),
            "teacher": config.teacher.agent if taught else "",
            "kept_samples": sum(len(p["outcome"]) for p in run.packs),
            **({"holdout_samples": len(held_out["outcome"])} if held_out is not None else {}),
            **{f"loss_{key}": round(value, 6) for key, value in losses.items()},
            "gate_win_rate": round(win_rate, 4),
            "gate_interval": [round(interval[0], 4), round(interval[1], 4)],
            "accepted": bool(accepted),
            "best": run.best[1]["kind"],
            "seconds": round(time.perf_counter() - started, 1),
            "cpu_seconds": round(_cpu_seconds() - cpu, 1),
        }
        with (run_dir / LOG).open("a") as f:
            f.write(json.dumps(line) + "\n")
        save_expert_checkpoint(run_dir, run, config)
        if progress:
            print(
                f"generation {run.generation}/{config.run.generations}: {line['samples']} samples, "
                f"gate {win_rate:.3f} [{interval[0]:.3f}, {interval[1]:.3f}] "
                f"{'accepted' if accepted else 'kept the best'} ({line['seconds']} s)",
                file=sys.stderr,
            )
        if stop_after is not None and run.generation >= stop_after:
            return run_dir
    save_final(run_dir, run, config)
    return run_dir


def save_final(run_dir: Path, run: RunState, config: ExpertConfig) -> None:
    """``final_model.zip``: the best network (the starting model's file kind while no learner passed a gate)."""
    net, meta = run.best
    kwargs = meta["net_kwargs"]
    extra = {"config": dataclasses.asdict(config), "generations": run.generation, "run": config.run.name}
    if meta["kind"] == "boardnet":  # the starting PPO model, with its own run config (the value's scale)
        extra = dict(meta.get("extra") or {}, expert=extra)
    save_model(
        run_dir / "final_model.zip",
        net.cpu(),
        kind=meta["kind"],
        net_kwargs=kwargs,
        ruleset=config.env.ruleset,
        board_reach=kwargs["board_reach"],
        extra=extra,
    )
    print(f"final model: {run_dir / 'final_model.zip'}", file=sys.stderr)


def main(args: Any) -> int:
    """``hgenv train --config <expert config>`` (args from hg_env.cli: --resume, --name, --seed, --no-progress)."""
    overrides: dict[str, Any] = {}
    if args.name is not None:
        overrides["name"] = args.name
    if args.seed is not None:
        overrides["seed"] = args.seed
    if getattr(args, "total_timesteps", None) is not None:
        raise ValueError("--total-timesteps is PPO's; expert iteration counts run.generations")
    config = load_expert_config(args.config, {"run": overrides})
    try:
        run_dir = train_expert(config, resume=args.resume, progress=not args.no_progress)
    except KeyboardInterrupt:
        saved = checkpoint_paths(Path(config.run.out_dir) / config.run.name)
        where = f"continue with --resume, from {saved[-1]}" if saved else "nothing to resume, start again"
        print(f"\ninterrupted: {where}", file=sys.stderr)
        return 130
    print(f"run directory: {run_dir}")
    return 0
