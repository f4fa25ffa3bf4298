"""PPO training: config validation, the network's action layout, train -> checkpoint -> resume ->
evaluate on configs/tiny.toml, corrupt checkpoints and policy files, the policy agent; hardening:
bounds checked before anything is created, checkpoints that are data, logs that resume exactly."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest
import tomli_w
import torch
from sb3_contrib import MaskablePPO

import hg_env.train.train as train_module
from hg_env.agents.base import make_agent
from hg_env.agents.model_file import load_model
from hg_env.agents.network import BoardNet
from hg_env.agents.policy import PolicyAgent
from hg_env.arena import tournament
from hg_env.arena.evaluate import evaluate
from hg_env.cli import main as cli_main
from hg_env.core import engine
from hg_env.core.actions import action_layout, sample_uniform
from hg_env.core.observation import observe
from hg_env.core.state import OVER
from hg_env.train.checkpoint import CHECKPOINT_FORMAT
from hg_env.train.config import ConfigError, config_from_dict, load_config, to_toml
from hg_env.train.policy import sample
from hg_env.train.train import CheckpointError, TrainingDiverged, checkpoint_paths, train

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "tiny.toml"


def tiny_config(out_dir: Path, name: str = "tiny"):
    config = load_config(TINY)
    config.run.out_dir = str(out_dir)
    config.run.name = name
    return config


class CreatesMarker:
    """Unpickling this object opens (creates) the marker file: what a crafted file would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def tensorboard_scalars(run: Path) -> dict[tuple[str, str, int], float]:
    """(folder, tag, step) -> value of every scalar a run logged; each must appear once. The
    wall-clock values (time/*) are left out: they differ between any two runs."""
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto.event_pb2 import Event

    out: dict[tuple[str, str, int], float] = {}
    for path in sorted((run / "tensorboard").rglob("events.out.tfevents.*")):
        for record in RawEventFileLoader(str(path)).Load():
            event = Event.FromString(record)
            for value in event.summary.value:
                key = (path.parent.name, value.tag, event.step)
                if not value.tag.startswith("time/"):
                    assert key not in out, f"{key} logged twice"
                    out[key] = value.simple_value
    return out


def write_config(path: Path, table: str, key: str, value) -> Path:
    """configs/tiny.toml with one value changed (``table`` may be dotted: "env.rules")."""
    raw = tomllib.loads(TINY.read_text())
    section = raw
    for name in table.split("."):
        section = section.setdefault(name, {})
    section[key] = value
    path.write_text(tomli_w.dumps(raw), encoding="utf-8")
    return path


def run_cli_expecting_bad_input(args: list[str], capsys: pytest.CaptureFixture) -> str:
    """Run hgenv; it must exit with status 2 after one line on stderr; returns that line."""
    with pytest.raises(SystemExit) as exit_:
        cli_main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"hgenv {args[0]}: "), err
    return err


def positions(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of random games at different stages."""
    rng = np.random.default_rng(seed)
    state = engine.new_games(2, seeds=list(range(count)), record_events=False)
    stop = rng.integers(0, 90, size=count)
    for t in range(90):
        actions = sample_uniform(engine.legal_action_mask(state), rng)
        actions[(stop <= t) | (state.phase == OVER)] = -1
        engine.step(state, actions)
    live = np.flatnonzero(state.phase != OVER)
    return observe(state, live, state.current[live]), engine.legal_action_mask(state, live)


# ---------------------------------------------------------------- config


@pytest.mark.parametrize("name", ["tiny", "quick", "default", "long", "throughput", "rllib_quick", "rllib_throughput"])
def test_shipped_configs_are_valid_and_round_trip(name: str) -> None:
    config = load_config(ROOT / "configs" / f"{name}.toml")
    assert config.run.name == name
    assert config_from_dict(tomllib.loads(to_toml(config))) == config


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"ppo": {"n_epoch": 3}}, "unknown key 'ppo.n_epoch' (did you mean 'ppo.n_epochs'?)"),
        ({"optimizer": {}}, "unknown table 'optimizer'"),
        ({"ppo": {"n_epochs": 2.5}}, "ppo.n_epochs must be an int, got 2.5"),
        ({"ppo": {"n_epochs": True}}, "ppo.n_epochs must be an int"),
        ({"ppo": {"n_epochs": 0}}, "ppo.n_epochs must be 1..1000, got 0"),
        ({"ppo": {"learning_rate": "fast"}}, "ppo.learning_rate must be a number"),
        ({"ppo": {"gamma": 1.5}}, "ppo.gamma must be in (0, 1]"),
        ({"ppo": {"batch_size": 10_000}}, "ppo.batch_size must be <= ppo.n_steps * env.num_envs = 4096"),
        ({"env": {"reward": "points"}}, "env.reward must be one of"),
        ({"env": {"rules": {"board_rech": 8}}}, "env.rules: unknown rule flag(s) ['board_rech']"),
        ({"env": {"num_players": 7}}, "env.num_players must be 2..5"),
        ({"run": {"name": "a/b"}}, "run.name must be a plain folder name"),
        ({"eval": {"opponents": ["greedy", "nobody"]}}, "eval.opponents: unknown agent 'nobody'"),
        ({"eval": {"opponents": "greedy"}}, "eval.opponents must be a list of strings"),
        ({"ppo": 3}, "[ppo] must be a table"),
        ({"policy": {"lookahead": 1}}, "policy.lookahead must be true or false"),
        (
            {"policy": {"lookahead": True}, "imitation": {"decisions": 10}},
            "imitation.decisions must be 0 with policy.lookahead = true",
        ),
    ],
)
def test_bad_configs_name_the_key(raw: dict, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        config_from_dict(raw)
    assert message in str(err.value)


def test_config_file_errors_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[ppo]\nn_epochs = 0\n")
    with pytest.raises(ConfigError, match=r"bad\.toml: ppo\.n_epochs must be 1\.\.1000"):
        load_config(bad)
    bad.write_text("[ppo\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(SystemExit) as exit_:
        cli_main(["train", "--config", str(bad)])
    assert exit_.value.code == 2
    assert re.fullmatch(r"hgenv train: .*bad\.toml: not valid TOML.*\n", capsys.readouterr().err)


@pytest.mark.parametrize(
    ("table", "key", "value", "message"),
    [
        ("ppo", "ent_coef", float("inf"), "ppo.ent_coef must be a finite number, got inf"),
        ("ppo", "learning_rate", float("nan"), "ppo.learning_rate must be a finite number, got nan"),
        ("env", "reward_scale", float("inf"), "env.reward_scale must be a finite number, got inf"),
        ("env", "num_envs", 10**12, "env.num_envs must be 1..4096, got 1000000000000"),
        ("env.rules", "board_reach", 1_000_000, "env.rules.board_reach must be 1..94"),
        ("run", "seed", 2**32, "run.seed must be 0..4294967295, got 4294967296"),
        ("run", "name", "a\0b", "run.name must be a plain folder name"),
        ("ppo", "n_steps", 65536, "ppo.n_steps * env.num_envs must be small enough for one rollout to fit"),
    ],
)
def test_numbers_must_be_finite_and_in_bounds_before_anything_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, table, key, value, message
) -> None:
    """ent_coef = inf trained to a NaN model, reward_scale = inf died as an "illegal action", a huge
    num_envs or board_reach exhausted memory, seed = 2**32 failed after the run folder existed."""
    config = write_config(tmp_path / "bad.toml", table, key, value)
    monkeypatch.chdir(tmp_path)
    err = run_cli_expecting_bad_input(["train", "--config", str(config), "--no-progress"], capsys)
    assert "bad.toml: " in err and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]  # no run folder


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (["--name", "../escaped"], "run.name must be a plain folder name"),
        (["--name", "ABSOLUTE"], "run.name must be a plain folder name"),
        (["--name", ".."], "run.name must be a plain folder name"),
        (["--total-timesteps", "-5"], "run.total_timesteps must be 1..1000000000, got -5"),
        (["--total-timesteps", "0"], "run.total_timesteps must be 1..1000000000, got 0"),
    ],
)
def test_command_line_overrides_are_validated_like_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, override, message
) -> None:
    """--name ../escaped wrote outside runs/, --total-timesteps -5 trained nothing, 0 was ignored."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    override = [str(tmp_path / "abs") if a == "ABSOLUTE" else a for a in override]
    err = run_cli_expecting_bad_input(["train", "--config", str(TINY), "--no-progress", *override], capsys)
    assert message in err
    assert [p.name for p in tmp_path.rglob("*")] == ["work"]  # nothing written, inside runs/ or out of it


def test_unreadable_config_files_are_named_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('[run]\nname = "café"\n'.encode("latin-1"))
    err = run_cli_expecting_bad_input(["train", "--config", str(latin1)], capsys)
    assert "latin1.toml: not UTF-8 text (byte 0xe9 at offset 17); save the file as UTF-8" in err
    nul = tmp_path / "nul.toml"
    nul.write_text('[run]\nname = "a\\u0000b"\n', encoding="utf-8")  # a NUL by TOML escape
    assert "nul.toml: run.name must be a plain folder name" in run_cli_expecting_bad_input(
        ["train", "--config", str(nul)], capsys
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latin1.toml", "nul.toml"]


def test_train_leaves_malloc_alone_unless_tune_malloc_is_set(tmp_path: Path, monkeypatch) -> None:
    """train() changed glibc's malloc settings for the whole process as a side effect."""
    calls = []
    monkeypatch.setattr(train_module, "_tune_malloc", lambda: calls.append(1))
    config = tiny_config(tmp_path)
    config.run.total_timesteps, config.imitation.decisions, config.eval.final_games = 1, 0, 0
    train(config, progress=False)
    assert calls == []
    config.run.name, config.run.tune_malloc = "tuned", True
    train(config, progress=False)
    assert calls == [1]


# ---------------------------------------------------------------- network


def test_network_logits_follow_the_action_layout_and_batching() -> None:
    torch.manual_seed(0)
    net = BoardNet(channels=8, layers=2, hidden=16)
    obs, masks = positions(12)
    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs))
        alone = [net(torch.from_numpy(obs[i : i + 1]))[0][0] for i in range(len(obs))]
    layout = action_layout(12)
    assert logits.shape == (len(obs), layout.size) and values.shape == (len(obs), 1)
    # The packed batch gives every observation the logits it gets alone.
    assert torch.allclose(logits, torch.stack(alone), atol=1e-5)
    # Placement logits live on cells with a tile or a legal placement: every legal placement has one.
    n = layout.board.num_cells
    place = logits[:, : 4 * n].reshape(len(obs), n, 4)
    active = (obs[:, 0].reshape(len(obs), n) > 0) | masks[:, : 4 * n].reshape(len(obs), n, 4).any(2)
    assert (place[torch.from_numpy(~active)] == 0).all()
    assert (place[torch.from_numpy(active)] != 0).any()


@pytest.mark.parametrize("with_legal", [False, True])
def test_network_over_threads_matches_one_thread_and_repeats_bit_for_bit(with_legal: bool) -> None:
    """run_net cuts a batch into row blocks, one thread each, forward and backward: the outputs and
    gradients equal one thread's up to rounding, and two runs give the same bits."""
    from hg_env.agents.network import legal_actions, run_net

    torch.manual_seed(0)
    net = BoardNet(channels=8, layers=2, hidden=16)
    obs, masks = positions(24)
    obs = torch.from_numpy(obs)
    legal = legal_actions(masks, len(masks), net.layout.size, "cpu")[0] if with_legal else None

    def outputs_and_grads(threads: int) -> list[torch.Tensor]:
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            net.zero_grad()
            logits, values = run_net(net, obs, legal)
            (logits.square().mean() + values.sum()).backward()
            with torch.no_grad():
                plain = run_net(net, obs, legal)
        finally:
            torch.set_num_threads(before)
        assert torch.equal(plain[0], logits) and torch.equal(plain[1], values)
        return [logits.detach(), values.detach()] + [p.grad.clone() for p in net.parameters()]

    one, two, again = outputs_and_grads(1), outputs_and_grads(2), outputs_and_grads(2)
    assert one[0].shape == (len(obs), legal.shape[1] if with_legal else net.layout.size)
    for a, b, c in zip(one, two, again):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
        assert torch.equal(b, c)


def test_lookahead_network_starts_from_the_lookahead_valuation() -> None:
    """With the other heads silent, the logits of legal moves are own gain - 0.75 * opponents' gain."""
    from hg_env.core.search import lookahead_features

    torch.manual_seed(0)
    net = BoardNet(channels=8, layers=1, hidden=16, lookahead=True)
    state = engine.new_games(2, seeds=[5, 6, 7], record_events=False)
    rng = np.random.default_rng(1)
    for _ in range(40):
        engine.step(state, sample_uniform(engine.legal_action_mask(state), rng))
    rows = np.arange(3)
    gains, estimates = lookahead_features(state, np.random.default_rng(2))
    inputs = {
        "board": torch.from_numpy(observe(state, rows, state.current)),
        "lookahead": torch.from_numpy(gains),
        "estimate": torch.from_numpy(estimates),
    }
    for head in (net.place_out, net.retake_out, net.other_out, net.zone_out):
        torch.nn.init.zeros_(head.weight)
    with torch.no_grad():
        logits, values = net(inputs)
    expected = gains[:, 0] - 0.75 * gains[:, 1]
    mask = engine.legal_action_mask(state)
    np.testing.assert_allclose(logits.numpy()[mask], expected[mask], rtol=1e-5, atol=1e-5)
    assert values.shape == (3, 1)
    with pytest.raises(ValueError, match="reads a dict with the lookahead features"):
        net(inputs["board"])
    with pytest.raises(ValueError, match="reads board tensors"):
        BoardNet(channels=8, layers=1, hidden=16)(inputs)


def test_sampling_never_draws_a_masked_action() -> None:
    torch.manual_seed(0)
    logits = torch.randn(64, 50)
    masks = torch.rand(64, 50) < 0.1
    masks[:, 7] = True
    log_probs = torch.log_softmax(logits.masked_fill(~masks, -torch.inf), 1)
    for _ in range(20):
        actions = sample(log_probs)
        assert masks[torch.arange(64), actions].all()


# ---------------------------------------------------------------- train, checkpoint, resume, evaluate


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """configs/tiny.toml trained without interruption."""
    return train(tiny_config(tmp_path_factory.mktemp("runs")), progress=False)


def test_tiny_run_writes_everything(trained: Path) -> None:
    assert (trained / "final_model.zip").is_file()
    assert load_config(trained / "config.toml").run.name == "tiny"
    assert [p.name for p in checkpoint_paths(trained)] == ["step_0000000256.pt", "step_0000000512.pt"]
    assert sorted(p.name for p in (trained / "snapshots").iterdir()) == ["step_0000000256.zip"]
    evals = [json.loads(line) for line in (trained / "eval.jsonl").read_text().splitlines()]
    assert [e["steps"] for e in evals] == [256] and set(evals[0]) == {"steps", "random", "greedy"}
    final = json.loads((trained / "final_eval.json").read_text())
    assert final["greedy"]["games"] == 2 and 0 <= final["random"]["win_rate"] <= 1
    assert any((trained / "tensorboard").rglob("events.out.tfevents.*"))


def test_resume_continues_exactly_and_rewrites_a_damaged_config_copy(trained: Path, tmp_path: Path) -> None:
    config = tiny_config(tmp_path)
    run = train(config, progress=False, stop_after=256)  # stops after the checkpoint at 256 steps, as a kill
    assert not (run / "final_model.zip").exists()
    assert [p.name for p in checkpoint_paths(run)] == ["step_0000000000.pt", "step_0000000256.pt"]
    with pytest.raises(ValueError, match="already holds a run: pass --resume"):
        train(config, progress=False)
    # The run's config.toml is a copy (the checkpoints hold the config): a damaged one does not block the
    # resume, which writes it again.
    saved = run / "config.toml"
    saved.write_bytes(saved.read_bytes()[:25])
    train(config, resume=True, progress=False)
    assert load_config(saved) == config
    ours, theirs = load_model(run / "final_model.zip").net, load_model(trained / "final_model.zip").net
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert torch.equal(a, b), name
    assert (run / "eval.jsonl").read_text() == (trained / "eval.jsonl").read_text()
    assert tensorboard_scalars(run) == tensorboard_scalars(trained)


def test_resume_refuses_a_changed_config(trained: Path) -> None:
    config = tiny_config(trained.parent)
    config.ppo.n_epochs = 3
    with pytest.raises(CheckpointError, match=r"other settings \(ppo.n_epochs: 1 there, 3 now\)"):
        train(config, resume=True, progress=False)


def test_corrupt_checkpoint_is_named(trained: Path, tmp_path: Path) -> None:
    config = tiny_config(tmp_path)
    run = train(config, progress=False, stop_after=256)
    last = checkpoint_paths(run)[-1]
    last.write_bytes(last.read_bytes()[:1000])  # cut short, as by a full disk
    with pytest.raises(CheckpointError, match=rf"checkpoint .*{last.name} is corrupt or truncated"):
        train(config, resume=True, progress=False)
    with pytest.raises(CheckpointError, match="nothing to resume"):
        train(tiny_config(tmp_path, "never_ran"), resume=True, progress=False)


def test_a_checkpoint_never_runs_code_embedded_in_it(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    checkpoints = tmp_path / "tiny" / "checkpoints"
    checkpoints.mkdir(parents=True)
    torch.save({"format": CHECKPOINT_FORMAT, "policy": CreatesMarker(marker)}, checkpoints / "step_0000000256.pt")
    with pytest.raises(CheckpointError, match=r"step_0000000256\.pt holds more than tensors and plain values"):
        train(tiny_config(tmp_path), resume=True, progress=False)
    assert not marker.exists()


def test_a_checkpoint_from_another_network_or_config_is_refused_naming_what_differs(
    trained: Path, tmp_path: Path
) -> None:
    config = tiny_config(tmp_path)
    original = checkpoint_paths(trained)[-1]
    payload = torch.load(original, weights_only=True)
    copy = tmp_path / "tiny" / "checkpoints" / original.name
    copy.parent.mkdir(parents=True)

    def refused(changed: dict, message: str, config=config) -> None:
        torch.save(changed, copy)
        with pytest.raises(CheckpointError) as err:
            train(config, resume=True, progress=False)
        assert str(err.value).startswith(str(copy)) and message in str(err.value), str(err.value)

    refused({k: v for k, v in payload.items() if k != "optimizer"}, "is incomplete: it lacks ['optimizer']")
    policy = dict(payload["policy"], **{"net.stem.weight": torch.zeros(8, 10)})
    refused(
        dict(payload, policy=policy),
        "its network differs from this config's: net.stem.weight has shape (8, 10), "
        "this config's network needs (8, 84)",
    )
    wider = tiny_config(tmp_path)
    wider.policy.channels = 16
    refused(payload, "written with other settings (policy.channels: 8 there, 16 now)", wider)
    refused(dict(payload, games={}), "cannot be restored")
    assert not (tmp_path / "tiny" / "final_model.zip").exists()


def test_a_kill_between_an_evaluation_and_its_checkpoint_logs_that_evaluation_once(
    trained: Path, tmp_path: Path
) -> None:
    """Killed after the evaluation at 256 steps and while writing the checkpoint after it, the run
    resumes from the checkpoint before; eval.jsonl and TensorBoard end as the uninterrupted run's."""
    config = tiny_config(tmp_path)
    run = train(config, progress=False, stop_after=256, stop_before_checkpoint=True)
    assert [p.name for p in checkpoint_paths(run)] == ["step_0000000000.pt"]
    assert len((run / "eval.jsonl").read_text().splitlines()) == 1  # the evaluation at 256 was written
    (run / "checkpoints" / ".step_0000000256.pt.k1ll3d.tmp").write_bytes(b"PK\x03\x04 half a checkpoint")
    train(config, resume=True, progress=False)
    assert (run / "eval.jsonl").read_text() == (trained / "eval.jsonl").read_text()
    assert tensorboard_scalars(run) == tensorboard_scalars(trained)
    ours, theirs = load_model(run / "final_model.zip").net, load_model(trained / "final_model.zip").net
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert torch.equal(a, b), name


@pytest.mark.parametrize("poison", ["loss", "parameters"])
def test_training_stops_on_a_non_finite_update_naming_the_step_and_the_last_good_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, poison: str
) -> None:
    config = tiny_config(tmp_path)
    config.imitation.decisions, config.eval.every = 0, 0
    original, updates = MaskablePPO.train, []

    def poisoned(self) -> None:
        original(self)
        updates.append(self.num_timesteps)
        if poison == "loss":
            self.logger.record("train/loss", float("nan"))
        elif len(updates) == 2:
            with torch.no_grad():
                self.policy.net.stem.weight[0, 0] = float("inf")

    monkeypatch.setattr(MaskablePPO, "train", poisoned)
    if poison == "loss":
        expected = r"diverged at step 256: after the PPO update the loss is nan; .*no checkpoint was written yet"
    else:
        expected = (
            r"diverged at step 512: after the PPO update parameter net\.stem\.weight holds NaN or inf; .*"
            r"the last good checkpoint is .*step_0000000256\.pt: --resume continues from it"
        )
    with pytest.raises(TrainingDiverged, match=expected):
        train(config, progress=False)
    run = tmp_path / "tiny"
    saved = [p.name for p in checkpoint_paths(run)]
    assert saved == ([] if poison == "loss" else ["step_0000000256.pt"]) and not (run / "final_model.zip").exists()


def test_policy_agent_plays_legal_moves(trained: Path) -> None:
    spec = f"policy:path={trained / 'final_model.zip'}"
    agent = make_agent(spec, seed=0)
    result = evaluate(agent, "random", games=4, seed=3)
    assert result.games == 4 and 0 <= result.win_rate <= 1
    game_spec = tournament.schedule(tournament.TournamentConfig(agents=(spec, "greedy"), games=2))[0]
    line = tournament.play_game(game_spec)  # one act() per decision, as in a tournament
    assert line["error"] is None and line["decisions"] > 50
    sampled = make_agent(spec + ",deterministic=false", seed=1)
    obs, masks = positions(6, seed=1)
    for _ in range(5):
        actions = sampled.act_batch(obs, masks)
        assert masks[np.arange(len(masks)), actions].all()


def test_lookahead_policy_trains_resumes_and_plays(tmp_path: Path) -> None:
    """policy.lookahead: Dict observations through MaskablePPO, exact resume (on two torch threads: the
    network's row blocks), the agent needs the state."""

    def config(name: str):
        c = tiny_config(tmp_path, name)
        c.policy.lookahead, c.imitation.decisions, c.run.torch_threads = True, 0, 2
        # Greedy opponents and evaluations only cost CPU here (the tiny runs above have them).
        c.opponents.greedy_weight, c.eval.opponents = 0.0, ["random"]
        return c

    whole = train(config("whole"), progress=False)
    run = train(config("cut"), progress=False, stop_after=256)
    train(config("cut"), resume=True, progress=False)
    ours, theirs = load_model(run / "final_model.zip").net, load_model(whole / "final_model.zip").net
    assert ours.lookahead
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert torch.equal(a, b), name
    assert (run / "eval.jsonl").read_text() == (whole / "eval.jsonl").read_text()
    spec = f"policy:path={whole / 'final_model.zip'}"
    assert 0 <= evaluate(make_agent(spec, seed=0), "random", games=2, seed=3).win_rate <= 1
    game_spec = tournament.schedule(tournament.TournamentConfig(agents=(spec, "random"), games=2))[0]
    line = tournament.play_game(game_spec)
    assert line["error"] is None and line["decisions"] > 50
    obs, masks = positions(2)
    with pytest.raises(ValueError, match="reads lookahead features: pass the game"):
        make_agent(spec).act_batch(obs, masks)


def test_bad_policy_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"policy:path={tmp_path / 'none.zip'}")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match=r"broken\.zip is not a model file: not a readable zip"):
        PolicyAgent(path=str(broken))
    with pytest.raises(ValueError, match="needs a model file"):
        make_agent("policy")


def test_evaluate_command(trained: Path, capsys: pytest.CaptureFixture) -> None:
    model = str(trained / "final_model.zip")
    assert cli_main(["evaluate", "--model", model, "--games", "2", "--opponents", "random", "--threads", "1"]) == 0
    assert "vs random: win rate" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "none.zip"], "model file none.zip does not exist"),
        (["--games", "0"], "--games must be 1..1000000, got 0"),
        (["--threads", "0"], "--threads must be 1..256, got 0"),
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
    ],
)
def test_evaluate_ends_bad_input_with_one_line(trained: Path, capsys: pytest.CaptureFixture, args, message) -> None:
    command = ["evaluate", "--model", str(trained / "final_model.zip"), "--games", "2", *args]
    assert message in run_cli_expecting_bad_input(command, capsys)


def test_quickstart_on_the_tiny_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # the tiny config trains into ./runs/tiny
    assert cli_main(["quickstart", "--config", str(TINY), "--games", "2", "--out", "results"]) == 0
    out = capsys.readouterr().out
    assert "| # | agent |" in out and "policy:path=runs/tiny/final_model.zip" in out
    # It ends with the trained agent's final evaluation (the README's quickstart-eval), labelled.
    *_, random_line, greedy_line, last = out.rstrip("\n").splitlines()
    assert random_line.startswith("  vs random: won ") and greedy_line.startswith("  vs greedy: won ")
    assert last.startswith("quickstart evaluation: ") and last.endswith("greedy (its final evaluation, 2 games each)")
    for name in ("ratings.png", "final_board.png", "summary.md"):
        assert (tmp_path / "results" / name).is_file(), name
    # A second run reuses the trained policy and the finished tournament.
    assert cli_main(["quickstart", "--config", str(TINY), "--games", "2", "--out", "results"]) == 0
    assert "using the trained policy" in capsys.readouterr().out


def test_ctrl_c_then_resume(tmp_path: Path) -> None:
    """A real interruption (SIGINT) of hgenv train, then --resume finishes the run."""
    cmd = [sys.executable, "-m", "hg_env.cli", "train", "--config", str(TINY), "--no-progress"]
    # The run gets SIGINT's default action back: a child inherits "ignored" from its parent (a shell's
    # background job, or a library that set it in this process), and an ignoring run would just finish.
    first = subprocess.Popen(
        cmd,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    checkpoint = tmp_path / "runs" / "tiny" / "checkpoints" / "step_0000000256.pt"
    deadline = time.monotonic() + 60
    while not checkpoint.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    first.send_signal(signal.SIGINT)
    out, _ = first.communicate(timeout=60)
    if first.returncode == 0:
        pytest.skip("the run finished before the interruption")
    assert first.returncode == 130 and "interrupted: continue with --resume" in out
    assert not (tmp_path / "runs" / "tiny" / "final_model.zip").exists()
    second = subprocess.run([*cmd, "--resume"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert "resuming" in second.stderr and (tmp_path / "runs" / "tiny" / "final_model.zip").is_file()


def test_games_in_a_checkpoint_come_back_exactly() -> None:
    """The games in progress of a checkpoint decode to the same arrays and events; a checkpoint written
    before ``frontier_need`` was kept gets it derived; arrays of another engine are named in the error."""
    from hg_env.train.checkpoint import decode_state, encode_state

    state = engine.new_games([2, 3, 4], seeds=[1, 2, 3])
    rng = np.random.default_rng(0)
    for _ in range(30):
        engine.step(state, engine.sample_legal(state, rng))
    saved = encode_state(state)
    for arrays in (saved["arrays"], {k: v for k, v in saved["arrays"].items() if k != "frontier_need"}):
        back = decode_state({**saved, "arrays": arrays})
        for name, array in state.arrays().items():
            np.testing.assert_array_equal(back.arrays()[name], array, err_msg=name)
        assert back.events == state.events
    with pytest.raises(ValueError, match=r"unknown arrays \['ghost'\]"):
        decode_state({**saved, "arrays": {**saved["arrays"], "ghost": torch.zeros(3)}})


@pytest.mark.parametrize("lookahead", [False, True])
def test_policy_over_legal_actions_is_the_dense_masked_softmax(lookahead: bool) -> None:
    """HGPolicy's log-probabilities, chosen log-probs and entropies over each row's legal actions equal
    the masked softmax over the whole action space; sampled and greedy actions are legal."""
    from hg_env.train.policy import HGPolicy
    from hg_env.train.vec_env import HGVecEnv

    env = HGVecEnv(6, num_players=3, seed=4, lookahead=lookahead)
    obs = env.reset()
    for _ in range(5):  # games in several phases
        obs, *_ = env.step(sample_uniform(env.action_masks(), np.random.default_rng(0)))
    policy = HGPolicy(env.observation_space, env.action_space, lambda _: 1e-3, lookahead=lookahead)
    tensors = {k: torch.as_tensor(v) for k, v in obs.items()} if lookahead else torch.as_tensor(obs)
    masks = env.action_masks()
    with torch.no_grad():
        logits, _ = policy.net(tensors)
        dense = torch.log_softmax(logits.masked_fill(~torch.as_tensor(masks), -torch.inf), 1)
        legal, log_probs, _ = policy._log_probs(tensors, masks)
        valid = torch.isfinite(log_probs)
        assert valid.sum(1).tolist() == masks.sum(1).tolist()
        torch.testing.assert_close(log_probs[valid], dense.gather(1, legal)[valid])
        actions = torch.as_tensor([np.flatnonzero(m)[-1] for m in masks])
        _, chosen, entropy = policy.evaluate_actions(tensors, actions, masks)
        torch.testing.assert_close(chosen, dense.gather(1, actions.unsqueeze(1)).squeeze(1))
        torch.testing.assert_close(entropy, -(dense.exp() * dense.masked_fill(dense.isinf(), 0)).sum(1))
        for deterministic in (False, True):
            picked, _, _ = policy(tensors, deterministic=deterministic, action_masks=masks)
            assert masks[np.arange(len(masks)), picked.numpy()].all()
        illegal = torch.as_tensor([np.flatnonzero(~m)[0] for m in masks])
        assert torch.isinf(policy.evaluate_actions(tensors, illegal, masks)[1]).all()
