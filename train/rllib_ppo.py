"""Self-play PPO on RLlib (Ray): ``hgenv train --config configs/rllib_quick.toml [--resume]``.

A config with ``[run] backend = "rllib"`` trains here instead of in hg_env.train.train
(sb3-contrib). RLlib's new API stack:

* ``SelfPlayEnv``: hg_env's PettingZoo AEC env as an RLlib ``MultiAgentEnv``. Only
  the player to act gets an observation; rewards go to every player (RLlib adds
  them up until that player's next turn). The observation is what the SB3 path's
  ``HGVecEnv`` gives the same network (``hg_env.single_agent.env_spaces``: the board
  tensor, or with ``policy.lookahead`` the dict of the board tensor and the one-turn
  lookahead's per-action gains and estimates, ``hg_env.vector.lookahead_observation``)
  and the action mask, under the keys RLlib's action-masking modules read,
  ``{"observations", "action_mask"}``; the AEC env itself is unchanged.
* ``BoardNetRLModule``: the project's ``BoardNet`` (hg_env.agents.network), the very network
  and forward pass (``run_net``) of the SB3 path, as a torch RLModule with a value head;
  illegal actions get the logit ``FLOAT_MIN``. With ``policy.lookahead = true`` the first
  policy is the lookahead's valuation (``greedy:opponents=0.75``), as in the SB3 path.
* Every ``player_i`` maps to the one module ``"shared"``: the policy plays all seats
  (self-play). ``[opponents]`` is not used.

What runs where. This process (the driver) holds the algorithm and its learner
(``run.torch_threads`` torch threads); ``ray.num_env_runners`` Ray actors play the
``env.num_envs`` games (split evenly) with copies of the policy, one CPU each.
A PPO iteration samples ``ppo.n_steps * env.num_envs`` decisions (each decision
one env step: the game has one player to act), then learns on them. With
``[ray] address = ""`` a local Ray instance starts (``ray.num_cpus`` CPUs, 0 = all);
with an address (``"auto"`` on a cluster node) the env runners spread over the
cluster, so more of them means more games played at once. Every node needs
this package with the [train,rllib] extras. With ``policy.lookahead`` the env
runners also compute each decision's lookahead features, one game at a time (the
SB3 path computes them for its 64 games in one batch): most of a decision's cost.
At the end the run prints its whole CPU time, this process and its Ray instance
together ("RLlib run: N CPU s in all": Ray's processes are not children that
``time`` or ``getrusage`` would count).

The [ppo] table maps onto RLlib's PPO: learning_rate -> lr (linear schedule to
final_learning_rate over run.total_timesteps), batch_size -> minibatch_size,
n_epochs -> num_epochs, gamma, gae_lambda -> lambda_, clip_range -> clip_param,
ent_coef -> entropy_coeff, vf_coef -> vf_loss_coeff, max_grad_norm -> grad_clip
(global norm); target_kl > 0 turns on RLlib's adaptive KL penalty with that target
(SB3 stops the epoch early instead).

Run directory ``<run.out_dir>/<run.name>/``::

    config.toml        the resolved config (a resumed run must match it, but for run.total_timesteps)
    checkpoints/       step_<steps>/: RLlib checkpoints (Algorithm.save_to_path) and our step counter
    progress.jsonl     one line per iteration: steps, steps/s, mean return of each seat, mean game length
    eval.jsonl         evaluations against [eval] opponents (if eval.every)
    final_model.zip    the trained policy for the ``policy:path=...`` agent (tournaments, evaluate)
    final_eval.json    the exported file's evaluation (a "warning" beside ``random``'s result if it
                       did worse than random: hg_env.train.train.write_final_eval)

Resuming. ``--resume`` restores the newest checkpoint: weights, optimizer and
counters (RLlib's state); games in progress start afresh, so a resumed run is
not bit-for-bit the uninterrupted one.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces

from hg_env.aec import raw_env
from hg_env.agents.model_file import save_model
from hg_env.agents.network import BoardNet, run_net
from hg_env.agents.policy import PolicyAgent
from hg_env.arena.evaluate import EvalResult, evaluate
from hg_env.fileio import atomic_write_text, read_jsonl
from hg_env.progress import progress_bar
from hg_env.single_agent import env_spaces
from hg_env.train.config import TrainConfig, load_config, to_toml
from hg_env.train.policy import HGPolicy
from hg_env.train.train import (
    EVAL_SEED,
    CheckpointError,
    _crossed,
    _differences,
    _rules,
    _tune_malloc,
    write_final_eval,
)
from hg_env.vector import lookahead_observation

try:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.metrics import (
        ENV_RUNNER_RESULTS,
        EPISODE_AGENT_RETURN_MEAN,
        EPISODE_LEN_MEAN,
        NUM_ENV_STEPS_SAMPLED,
    )
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ModuleNotFoundError as err:  # this module is only imported for run.backend = "rllib"
    raise ModuleNotFoundError(
        f"run.backend = 'rllib' needs RLlib ({err.name} is missing): pip install -e '.[train,rllib]'", name=err.name
    ) from None

MODULE_ID = "shared"  # the one policy every seat maps to
STATE_FILE = "hg_state.json"  # our counters, beside RLlib's files in a checkpoint


# ---------------------------------------------------------------- environment


class SelfPlayEnv(MultiAgentEnv):
    """Every seat of ``hg_env.aec.raw_env`` for RLlib (module docstring).

    ``config``: ``num_players``, ``reward``, ``reward_scale`` (rewards are multiplied by it),
    ``rules`` (the ruleset and its flags, a dict) and ``lookahead`` (bool: observations with the
    one-turn lookahead's features, from a generator of their own, seeded as ``hg_env.vector``'s)."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.lookahead = bool(config.get("lookahead", False))
        self.aec = raw_env(
            num_players=config.get("num_players", 2), reward=config.get("reward", "win"), **config.get("rules", {})
        )
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        rules = self.aec.rules
        observation, _ = env_spaces(rules.reach, self.lookahead, rules.ruleset)  # the SB3 path's inputs
        mask = self.aec.observation_space(self.agents[0])["action_mask"]
        space = spaces.Dict({"observations": observation, "action_mask": mask})
        self.observation_spaces = {agent: space for agent in self.agents}
        self.action_spaces = {agent: self.aec.action_space(agent) for agent in self.agents}
        self.lookahead_rng = np.random.default_rng()

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.aec.reset(seed=seed, options=options)
        if seed is not None:  # later resets without a seed continue the stream
            self.lookahead_rng = np.random.default_rng([seed, 1])
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: dict) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.aec.agent_selection
        self.aec.step(int(action_dict[agent]))  # ValueError naming the move if it is illegal
        rewards = {a: r * self.reward_scale for a, r in self.aec.rewards.items()}
        if self.aec.game.is_over:
            observations = {a: self._observe(a) for a in self.agents}
            infos = {a: {"scores": self.aec.game.scores} for a in self.agents}
            return observations, rewards, {"__all__": True}, {"__all__": False}, infos
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, rewards, {"__all__": False}, {"__all__": False}, {}

    def _observe(self, agent: str) -> dict[str, Any]:
        ours = self.aec.observe(agent)
        observation: Any = ours["observation"]
        if self.lookahead:  # seen from the agent's seat (in a finished game: no gains, the estimates)
            seat = np.array([self.aec.agent_name_mapping[agent]])
            batch = lookahead_observation(observation[None], self.aec.game.state, self.lookahead_rng, seat)
            observation = {key: value[0] for key, value in batch.items()}
        return {"observations": observation, "action_mask": ours["action_mask"]}


# ---------------------------------------------------------------- the module


class BoardNetRLModule(TorchRLModule, ValueFunctionAPI):
    """``BoardNet`` as an RLlib module; ``model_config["board_net"]``: its keyword arguments (board_reach,
    channels, layers, hidden, lookahead, ruleset). Reads ``{"observations", "action_mask"}``; masked actions
    get ``FLOAT_MIN``. The network runs through ``run_net``, as in the SB3 path: row blocks on the
    learner's torch threads."""

    def setup(self) -> None:
        self.net = BoardNet(**self.model_config["board_net"])  # RLlib adds its defaults beside ours

    def _logits_and_values(self, batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        obs = batch[Columns.OBS]
        logits, values = run_net(self.net, obs["observations"])
        return logits.masked_fill(obs["action_mask"] == 0, FLOAT_MIN), values.squeeze(-1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, _ = self._logits_and_values(batch)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, values = self._logits_and_values(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: values}  # the loss reuses the values

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return embeddings if embeddings is not None else self._logits_and_values(batch)[1]


def net_kwargs(config: TrainConfig) -> dict[str, Any]:
    """``BoardNet``'s keyword arguments for a config: those of the SB3 path (``HGPolicy``)."""
    p = config.policy
    rules = config.rules()
    return dict(
        board_reach=rules.reach,
        channels=p.channels,
        layers=p.layers,
        hidden=p.hidden,
        lookahead=p.lookahead,
        ruleset=rules.ruleset,
    )


def env_config(config: TrainConfig) -> dict[str, Any]:
    """``SelfPlayEnv``'s config for a training config."""
    e = config.env
    return dict(
        num_players=e.num_players,
        reward=e.reward,
        reward_scale=e.reward_scale,
        rules=config.rules().as_dict(),
        lookahead=config.policy.lookahead,
    )


def ppo_config(config: TrainConfig) -> PPOConfig:
    """RLlib's PPO for a config (module docstring: what maps to what)."""
    e, p, r = config.env, config.ppo, config.run
    runners = config.ray.num_env_runners
    module = RLModuleSpec(module_class=BoardNetRLModule, model_config={"board_net": net_kwargs(config)})
    training: dict[str, Any] = dict(
        lr=[[0, p.learning_rate], [r.total_timesteps, p.final_learning_rate]],
        train_batch_size_per_learner=config.rollout_steps,
        minibatch_size=p.batch_size,
        num_epochs=p.n_epochs,
        gamma=p.gamma,
        lambda_=p.gae_lambda,
        clip_param=p.clip_range,
        entropy_coeff=p.ent_coef,
        vf_loss_coeff=p.vf_coef,
        grad_clip=p.max_grad_norm,
        grad_clip_by="global_norm",
        use_kl_loss=p.target_kl > 0,
    )
    if p.target_kl > 0:
        training["kl_target"] = p.target_kl
    return (
        PPOConfig()
        # RLlib's env checker steps actions sampled from the whole action space: ours are mostly illegal.
        .environment(SelfPlayEnv, env_config=env_config(config), disable_env_checking=True)
        .env_runners(
            num_env_runners=runners,
            num_envs_per_env_runner=e.num_envs // max(runners, 1),
            rollout_fragment_length="auto",
        )
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=_every_seat_to_the_shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module}))
        .learners(num_learners=0)
        .training(**training)
        .debugging(seed=r.seed, log_level="WARN")
    )


def _every_seat_to_the_shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return MODULE_ID


# ---------------------------------------------------------------- export


def _trained_net(algo: Any, config: TrainConfig) -> BoardNet:
    """A ``BoardNet`` with the learner's weights of the shared module."""
    weights = algo.learner_group.get_weights([MODULE_ID])[MODULE_ID]
    net = BoardNet(**net_kwargs(config))
    net.load_state_dict({k.removeprefix("net."): torch.as_tensor(np.asarray(v)) for k, v in weights.items()})
    return net


def policy_for_agents(net: BoardNet, config: TrainConfig) -> HGPolicy:
    """The network as the ``HGPolicy`` that ``PolicyAgent.from_policy`` plays (evaluation)."""
    kwargs = net_kwargs(config)
    observation, action = env_spaces(kwargs["board_reach"], kwargs["lookahead"], kwargs["ruleset"])
    policy = HGPolicy(observation, action, lambda _: 0.0, **kwargs)
    policy.net.load_state_dict(net.state_dict())
    policy.set_training_mode(False)
    return policy


def export_policy(net: BoardNet, config: TrainConfig, path: Path, steps: int) -> None:
    """Save the network as a model file (hg_env.agents.model_file), what ``policy:path=...`` loads."""
    rules = _rules(config)
    save_model(
        path,
        net,
        kind="boardnet",
        net_kwargs=net_kwargs(config),
        ruleset=rules.ruleset,
        board_reach=rules.reach,
        extra={"steps": steps, "run": config.run.name, "backend": "rllib", "config": dataclasses.asdict(config)},
    )


# ---------------------------------------------------------------- checkpoints


def checkpoint_paths(run_dir: Path) -> list[Path]:
    """Checkpoints of a run, oldest first (whole ones: a kill while saving leaves only a .tmp folder)."""
    return sorted(p for p in (run_dir / "checkpoints").glob("step_*") if p.is_dir() and p.suffix != ".tmp")


def save_checkpoint(algo: Any, steps: int, config: TrainConfig, run_dir: Path) -> Path:
    path = run_dir / "checkpoints" / f"step_{steps:010d}"
    tmp = path.with_suffix(".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    atomic_write_text(tmp / STATE_FILE, json.dumps({"steps": steps}) + "\n")
    if path.exists():  # the same step saved again: replace it whole
        shutil.rmtree(path)
    os.replace(tmp, path)
    for old in checkpoint_paths(run_dir)[: -config.run.keep_checkpoints]:
        shutil.rmtree(old)
    return path


def restore_checkpoint(algo: Any, path: Path, run_dir: Path) -> int:
    """Restore ``algo`` from a checkpoint folder and rewind the logs to it; returns the steps done."""
    try:
        steps = int(json.loads((path / STATE_FILE).read_text(encoding="utf-8"))["steps"])
        algo.restore_from_path(str(path.resolve()))
    except Exception as err:
        raise CheckpointError(
            f"checkpoint {path} is unreadable ({type(err).__name__}: {err}); delete it to resume from the one before"
        ) from None
    for log in ("progress.jsonl", "eval.jsonl"):  # lines written after the checkpoint are written again
        lines = [line for line in read_jsonl(run_dir / log)[0] if line["steps"] <= steps]
        if (run_dir / log).exists():
            atomic_write_text(run_dir / log, "".join(json.dumps(line) + "\n" for line in lines))
    return steps


def prepare_run_dir(config: TrainConfig, resume: bool) -> Path:
    run_dir = Path(config.run.out_dir) / config.run.name
    saved = run_dir / "config.toml"
    if resume:
        if not checkpoint_paths(run_dir):
            raise CheckpointError(f"nothing to resume: no checkpoint in {run_dir / 'checkpoints'}")
        differ = _differences(load_config(saved), config) if saved.exists() else []
        if differ:
            detail = ", ".join(f"{key}: {theirs!r} there, {ours!r} now" for key, theirs, ours in differ)
            raise CheckpointError(f"{saved} has other settings ({detail}); resume with the config it was trained with")
    elif checkpoint_paths(run_dir) or (run_dir / "final_model.zip").exists():
        raise ValueError(f"{run_dir} already holds a run: pass --resume to continue it, or choose another run.name")
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    atomic_write_text(saved, to_toml(config))
    return run_dir


# ---------------------------------------------------------------- the run


def _connect(config: TrainConfig) -> tuple[Any, bool]:
    """Ray for this run; True if this process started it (and so shuts it down and counts its CPU)."""
    import ray

    if ray.is_initialized():
        return ray, False
    if config.ray.address:
        ray.init(address=config.ray.address, logging_level="WARNING")
        return ray, False
    ray.init(num_cpus=config.ray.num_cpus or None, include_dashboard=False, logging_level="WARNING")
    return ray, True


def _evaluate(agent: PolicyAgent, config: TrainConfig, games: int, seed: int) -> dict[str, EvalResult]:
    return {
        spec: evaluate(agent, spec, games, seed, config.env.num_players, _rules(config))
        for spec in config.eval.opponents
    }


def train(config: TrainConfig, resume: bool = False, progress: bool = True, stop_after: int | None = None) -> Path:
    """Run (or resume) an RLlib run; returns its directory. ``stop_after`` stops after the first
    checkpoint at or past that many steps, as an interruption would (for tests)."""
    from hg_env.arena.distributed import _descendants_cpu_seconds

    if config.run.backend != "rllib":
        raise ValueError(f"hg_env.train.rllib_ppo trains run.backend = 'rllib', got {config.run.backend!r}")
    run_dir = prepare_run_dir(config, resume)
    if config.run.tune_malloc:
        _tune_malloc()  # the learner's process only: the env runners keep glibc's defaults
    torch.set_num_threads(config.run.torch_threads)
    ray, started = _connect(config)
    algo = ppo_config(config).build_algo()
    try:
        steps = 0
        if resume:
            path = checkpoint_paths(run_dir)[-1]
            steps = restore_checkpoint(algo, path, run_dir)
            print(f"resuming {run_dir} from {path.name} ({steps} steps)", file=sys.stderr)
        total, start_steps = config.run.total_timesteps, steps
        bar = progress_bar(
            total=total, initial=steps, desc=f"rllib {config.run.name}", unit="step", disable=not progress
        )
        wall0, cpu0 = time.perf_counter(), time.process_time()
        children0 = _descendants_cpu_seconds() if started else 0.0
        overhead = 0.0  # checkpoints and evaluations, left out of steps/s
        while steps < total:
            result = algo.train()
            runners = result[ENV_RUNNER_RESULTS]
            before, steps = steps, steps + int(runners[NUM_ENV_STEPS_SAMPLED])
            bar.update(steps - before)
            elapsed = time.perf_counter() - wall0 - overhead
            line = {
                "steps": steps,
                "steps_per_s": round((steps - start_steps) / max(elapsed, 1e-9), 1),
                "return_mean_by_seat": _finite(runners.get(EPISODE_AGENT_RETURN_MEAN)),  # adding up to 0
                "episode_len_mean": _finite(runners.get(EPISODE_LEN_MEAN)),
            }
            with (run_dir / "progress.jsonl").open("a", encoding="utf-8") as f:
                f.write(json.dumps(line, allow_nan=False) + "\n")
            t0 = time.perf_counter()
            if config.eval.every and _crossed(before, steps, config.eval.every):
                agent = PolicyAgent.from_policy(policy_for_agents(_trained_net(algo, config), config))
                evaluation = _evaluate(agent, config, config.eval.games, EVAL_SEED)
                line = {spec: result.outcome() for spec, result in evaluation.items()}
                with (run_dir / "eval.jsonl").open("a", encoding="utf-8") as f:
                    f.write(json.dumps({"steps": steps, **line}) + "\n")
            if _crossed(before, steps, config.run.checkpoint_every) or steps >= total:
                save_checkpoint(algo, steps, config, run_dir)
            overhead += time.perf_counter() - t0
            if stop_after is not None and steps >= stop_after:
                bar.close()
                return run_dir
        bar.close()
        if steps > start_steps:
            seconds = time.perf_counter() - wall0 - overhead
            cpu = time.process_time() - cpu0 + (_descendants_cpu_seconds() - children0 if started else 0.0)
            cpu_note = f", {cpu:.0f} CPU s (this process and its Ray instance)" if started else ""
            print(
                f"RLlib PPO: {steps - start_steps} steps in {seconds:.0f} s = {(steps - start_steps) / seconds:.0f} "
                f"steps/s (sampling and learning; evaluation and checkpoints left out){cpu_note}",
                file=sys.stderr,
            )
        exported = run_dir / "final_model.zip"
        export_policy(_trained_net(algo, config), config, exported, steps)
        print(f"final model: {exported}", file=sys.stderr)
    finally:
        algo.stop()
        ray_cpu = _descendants_cpu_seconds() if started else 0.0  # before its processes end
        if started:
            ray.shutdown()
    if config.eval.final_games and config.eval.opponents:
        # The exported file itself is evaluated: what `policy:path=` and `hgenv evaluate` will play.
        final = _evaluate(PolicyAgent(path=str(exported)), config, config.eval.final_games, EVAL_SEED + 1)
        for result in final.values():
            print("  " + result.line(), file=sys.stderr)
        write_final_eval(run_dir, {spec: result.outcome() for spec, result in final.items()})
    if started:  # what the whole command cost, comparable with an SB3 run's CPU time
        print(
            f"RLlib run: {time.process_time() + ray_cpu:.0f} CPU s in all (this process and its Ray instance: "
            "start-up, training, export and final evaluation)",
            file=sys.stderr,
        )
    return run_dir


def _finite(value: Any) -> Any:
    """A metric for JSON: None where RLlib has no value yet (NaN: no game ended in the iteration)."""
    if isinstance(value, dict):
        return {key: _finite(v) for key, v in value.items()}
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def main(config: TrainConfig, args: Any) -> int:
    """``hgenv train`` for ``run.backend = "rllib"`` (called by hg_env.train.train.main)."""
    try:
        run_dir = train(config, resume=args.resume, progress=not args.no_progress)
    except KeyboardInterrupt:
        print("\ninterrupted: continue with --resume (from the newest checkpoint)", file=sys.stderr)
        return 130
    print(f"run directory: {run_dir}")
    return 0
