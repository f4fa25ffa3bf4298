"""PPO training: config validation, the network's action layout, train -> checkpoint -> resume ->
evaluate on configs/tiny.toml, corrupt checkpoints and policy files, the policy agent."""

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
import torch
from hg_env.agents.base import make_agent
from hg_env.agents.policy import PolicyAgent
from hg_env.train import tournament
from hg_env.train.config import ConfigError, config_from_dict, load_config, to_toml
from hg_env.train.evaluate import evaluate
from hg_env.train.model_file import load_model
from hg_env.train.policy import BoardNet, sample
from hg_env.train.train import CheckpointError, checkpoint_paths, train

from hg_env.cli import main as cli_main
from hg_env.core import engine
from hg_env.core.actions import action_layout, sample_uniform
from hg_env.core.observation import observe
from hg_env.core.state import OVER

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "tiny.toml"


def tiny_config(out_dir: Path, name: str = "tiny"):
    config = load_config(TINY)
    config.run.out_dir = str(out_dir)
    config.run.name = name
    return config


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
    assert final["greedy"]["games"] == 4 and 0 <= final["random"]["win_rate"] <= 1
    assert any((trained / "tensorboard").rglob("events.out.tfevents.*"))


def test_resume_continues_exactly(trained: Path, tmp_path: Path) -> None:
    config = tiny_config(tmp_path)
    run = train(config, progress=False, stop_after=256)  # stops after the checkpoint at 256 steps, as a kill
    assert not (run / "final_model.zip").exists()
    assert [p.name for p in checkpoint_paths(run)] == ["step_0000000000.pt", "step_0000000256.pt"]
    with pytest.raises(ValueError, match="already holds a run: pass --resume"):
        train(config, progress=False)
    train(config, resume=True, progress=False)
    ours, theirs = load_model(run / "final_model.zip").net, load_model(trained / "final_model.zip").net
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert torch.equal(a, b), name
    assert (run / "eval.jsonl").read_text() == (trained / "eval.jsonl").read_text()


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
    with pytest.raises(CheckpointError, match=rf"checkpoint .*{last.name} is corrupt, truncated"):
        train(config, resume=True, progress=False)
    with pytest.raises(CheckpointError, match="nothing to resume"):
        train(tiny_config(tmp_path, "never_ran"), resume=True, progress=False)


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
    """policy.lookahead: Dict observations through MaskablePPO, exact resume, the agent needs the state."""

    def config(name: str):
        c = tiny_config(tmp_path, name)
        c.policy.lookahead, c.imitation.decisions = True, 0
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
    assert 0 <= evaluate(make_agent(spec, seed=0), "greedy", games=2, seed=3).win_rate <= 1
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


def test_quickstart_on_the_tiny_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # the tiny config trains into ./runs/tiny
    assert cli_main(["quickstart", "--config", str(TINY), "--games", "2", "--out", "results"]) == 0
    out = capsys.readouterr().out
    assert "| # | agent |" in out and "policy:path=runs/tiny/final_model.zip" in out
    for name in ("ratings.png", "final_board.png", "summary.md"):
        assert (tmp_path / "results" / name).is_file(), name
    # A second run reuses the trained policy and the finished tournament.
    assert cli_main(["quickstart", "--config", str(TINY), "--games", "2", "--out", "results"]) == 0
    assert "using the trained policy" in capsys.readouterr().out


def test_ctrl_c_then_resume(tmp_path: Path) -> None:
    """A real interruption (SIGINT) of hgenv train, then --resume finishes the run."""
    cmd = [sys.executable, "-m", "hg_env.cli", "train", "--config", str(TINY), "--no-progress"]
    first = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
