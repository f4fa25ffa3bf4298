"""Expert iteration (hg_env.train.expert): a tiny run end to end with its gate, exact resume, config checks."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hg_env.agents.base import make_agent  # noqa: E402
from hg_env.agents.model_file import load_model  # noqa: E402
from hg_env.agents.search_net import SearchNet  # noqa: E402
from hg_env.core import engine  # noqa: E402
from hg_env.core.rules import Rules  # noqa: E402
from hg_env.train.config import ConfigError  # noqa: E402
from hg_env.train.expert import (  # noqa: E402
    INPUT_NAMES,
    checkpoint_paths,
    concat_packs,
    expert_config_from_dict,
    is_expert_config,
    read_expert_checkpoint,
    train_expert,
    unpack_batch,
)

# Games start after 150 greedy decisions (of about 160): a generation takes seconds.
TINY = {
    "run": {"name": "tiny", "backend": "expert", "generations": 2},
    "search": {"sims": 4, "deals": 2, "batch": 2, "temperature_decisions": 2},
    "selfplay": {"games": 2, "opening": 150},
    "learn": {"epochs": 2, "batch_size": 8},
    "gate": {"games": 2, "sims": 2, "threshold": 0.0},
}


def _config(out: Path, **changes: dict):
    raw = {table: dict(values) for table, values in TINY.items()}
    raw["run"]["out_dir"] = str(out)
    for table, values in changes.items():
        raw.setdefault(table, {}).update(values)
    return expert_config_from_dict(raw)


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return read_expert_checkpoint(path)["learner"]


@pytest.fixture(scope="module")
def straight_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two generations, never stopped."""
    out = tmp_path_factory.mktemp("straight")
    return train_expert(_config(out), progress=False)


def test_a_tiny_run_learns_gates_and_ships_a_search_network(straight_run: Path) -> None:
    lines = [json.loads(line) for line in (straight_run / "expert.jsonl").read_text().splitlines()]
    assert [line["generation"] for line in lines] == [1, 2]
    assert sum(line["samples"] for line in lines) > 0
    for line in lines:
        assert 0.0 <= line["gate_win_rate"] <= 1.0
        low, high = line["gate_interval"]
        assert low <= line["gate_win_rate"] <= high
        assert line["accepted"] is True  # threshold 0: the learner always passes
    last = [line for line in lines if line["samples"]][-1]
    assert last["loss_policy"] > 0 and last["loss_value"] > 0
    loaded = load_model(straight_run / "final_model.zip")
    assert loaded.metadata["kind"] == "searchnet" and isinstance(loaded.net, SearchNet)
    assert loaded.metadata["extra"]["generations"] == 2
    final = {k: v for k, v in loaded.net.state_dict().items()}
    learner = _weights(checkpoint_paths(straight_run)[-1])
    assert all(torch.equal(final[k], learner[k]) for k in final)  # the last learner passed: it is the best
    agent = make_agent(f"puct:path={straight_run / 'final_model.zip'},sims=4,deals=1,batch=2", seed=0)
    state = engine.new_games(2, Rules(), seeds=[0], record_events=False)
    mask = engine.legal_action_mask(state)
    assert mask[0, agent.act_batch(None, mask, state)[0]]


def test_a_learner_below_the_threshold_leaves_the_best_network(tmp_path: Path) -> None:
    run_dir = train_expert(_config(tmp_path, run={"generations": 1}, gate={"threshold": 1.0}), progress=False)
    line = json.loads((run_dir / "expert.jsonl").read_text())
    assert line["accepted"] is (line["gate_win_rate"] >= 1.0)
    if not line["accepted"]:  # the starting PPO model stays the best and is what ships
        assert load_model(run_dir / "final_model.zip").metadata["kind"] == "boardnet"


def test_kill_and_resume_gives_identical_weights(straight_run: Path, tmp_path: Path) -> None:
    config = _config(tmp_path)
    run_dir = train_expert(config, progress=False, stop_after=1)  # killed after generation 1's checkpoint
    assert [p.name for p in checkpoint_paths(run_dir)] == ["gen_00001.pt"]
    assert not (run_dir / "final_model.zip").exists()
    with (run_dir / "expert.jsonl").open("a") as f:  # a line of generation 2 written before the kill
        f.write('{"generation": 2, "partial": true}\n')
    with pytest.raises(ValueError, match="already holds a run"):
        train_expert(config, progress=False)
    train_expert(config, resume=True, progress=False)
    a, b = _weights(checkpoint_paths(straight_run)[-1]), _weights(checkpoint_paths(run_dir)[-1])
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    final_a = load_model(straight_run / "final_model.zip").net.state_dict()
    final_b = load_model(run_dir / "final_model.zip").net.state_dict()
    assert all(torch.equal(final_a[k], final_b[k]) for k in final_a)

    def generations(path: Path) -> list[dict]:
        lines = [json.loads(line) for line in (path / "expert.jsonl").read_text().splitlines()]
        return [{k: v for k, v in line.items() if "seconds" not in k} for line in lines]

    assert generations(run_dir) == generations(straight_run)  # the partial line was cut on resume


def test_resume_refuses_another_config_and_a_missing_checkpoint(tmp_path: Path) -> None:
    from hg_env.train.checkpoint import CheckpointError

    with pytest.raises(CheckpointError, match="nothing to resume"):
        train_expert(_config(tmp_path), resume=True, progress=False)
    train_expert(_config(tmp_path, run={"generations": 1}), progress=False, stop_after=1)
    with pytest.raises(ValueError, match="another config"):
        train_expert(_config(tmp_path, learn={"epochs": 3}), resume=True, progress=False)


def test_samples_pack_and_unpack_to_the_same_arrays() -> None:
    rng = np.random.default_rng(0)
    from hg_env.train.expert import pack_samples

    shape = (3, 5, 5)
    items = []
    for n in (2, 4):
        board = (rng.random(shape) < 0.2) * rng.integers(1, 9, size=shape)
        legal = np.sort(rng.choice(20, n, replace=False))
        items.append(
            {
                "board": board.astype(np.uint8),
                "legal": legal,
                "gains": rng.random((2, n)).astype(np.float32),
                "visits": np.full(n, 1 / n),
                "estimate": [1.0, 2.0],
                "score_now": [0.0, 1.0, 2.0, 3.0],
                "outcome": 1.0,
                "margin": 0.25,
                "search_value": 0.75,
            }
        )
    pack = concat_packs([pack_samples(items[:1]), pack_samples(items[1:])])
    batch = unpack_batch(pack, np.array([1, 0]), shape, 20)
    for j, item in zip((1, 0), items):
        n = len(item["legal"])
        assert np.array_equal(batch["board"][j], item["board"])
        assert np.array_equal(batch["legal"][j, :n], item["legal"]) and batch["valid"][j].sum() == n
        assert np.allclose(batch["gains"][j][:, item["legal"]], item["gains"])
        assert np.allclose(batch["visits"][j, :n], item["visits"])


def test_config_errors_name_the_key() -> None:
    assert is_expert_config({"run": {"backend": "expert"}}) and not is_expert_config({"run": {}})
    with pytest.raises(ConfigError, match=re.escape("unknown key 'search.simz'")):
        expert_config_from_dict({"run": {"backend": "expert"}, "search": {"simz": 3}})
    with pytest.raises(ConfigError, match=re.escape("gate.threshold must be")):
        expert_config_from_dict({"run": {"backend": "expert"}, "gate": {"threshold": 2.0}})
    with pytest.raises(ConfigError, match=re.escape("selfplay.chunks")):
        expert_config_from_dict({"run": {"backend": "expert"}, "selfplay": {"games": 2, "chunks": 3}})
    with pytest.raises(ConfigError, match=re.escape("start.model")):
        expert_config_from_dict({"run": {"backend": "expert"}, "start": {"model": "nowhere.zip"}})


def test_the_search_s_qprior_reaches_the_self_play_agent(tmp_path: Path) -> None:
    from hg_env.agents.puct import ppo_model
    from hg_env.train.expert import _agent

    loaded = load_model(ppo_model("hg2020"))
    agent = _agent(loaded.net, loaded.metadata, _config(tmp_path, search={"qprior": 2.0}), seed=0)
    assert agent.settings.move_weight == 2.0
    assert _agent(loaded.net, loaded.metadata, _config(tmp_path), seed=0).settings.move_weight == 0.0
    with pytest.raises(ConfigError, match=re.escape("search.qprior must be")):
        _config(tmp_path, search={"qprior": -1.0})


def test_expert_and_ppo_configs_read_their_tables_with_one_checker(tmp_path: Path) -> None:
    """train.config's ``load_checked`` and ``sections_from_dict`` read both kinds of config: the
    same messages for an unknown table, a table that is not one, and the file's name in front."""
    from hg_env.train.config import load_config
    from hg_env.train.expert import load_expert_config

    path = tmp_path / "bad.toml"
    for text, message in (("[gat]\ngames = 4\n", "unknown table 'gat'"), ("gate = 3\n", "[gate] must be a table")):
        path.write_text(text + '[run]\nbackend = "expert"\n')
        with pytest.raises(ConfigError, match=re.escape(f"{path}: {message}")):
            load_expert_config(path)
    path.write_text("[opponentz]\n")
    with pytest.raises(ConfigError, match=re.escape(f"{path}: unknown table 'opponentz' (did you mean 'opponents'?)")):
        load_config(path)
    path.write_text('[run]\nbackend = "expert"\nname = "x"\n')
    assert load_expert_config(path, {"gate": {"games": 6}}).gate.games == 6  # overrides, as hgenv train --set


def test_a_refused_start_creates_nothing(tmp_path: Path) -> None:
    """train.checkpoint's ``open_run_dir`` (PPO's and expert iteration's): the checks come first."""
    from hg_env.train.checkpoint import CheckpointError, open_run_dir

    run_dir = tmp_path / "run"
    with pytest.raises(CheckpointError, match="nothing to resume"):
        open_run_dir(run_dir, True, checkpoint_paths, read_expert_checkpoint)
    assert not run_dir.exists()
    assert open_run_dir(run_dir, False, checkpoint_paths, read_expert_checkpoint, ("checkpoints", "logs")) is None
    assert sorted(p.name for p in run_dir.iterdir()) == ["checkpoints", "logs"]
    (run_dir / "final_model.zip").write_bytes(b"")
    with pytest.raises(ValueError, match="already holds a run"):
        open_run_dir(run_dir, False, checkpoint_paths, read_expert_checkpoint)


def test_the_shipped_configs_are_expert_configs_hgenv_train_dispatches() -> None:
    from hg_env.train.expert import load_expert_config

    root = Path(__file__).resolve().parent.parent / "configs"
    for name in (
        "expert.toml",
        "expert_gpu.toml",
        "expert_mcts.toml",
        "expert_mcts_sv.toml",
        "expert_value.toml",
        "expert_value_mlp.toml",
        "expert_value_carcassonne.toml",
    ):
        config = load_expert_config(root / name)
        assert config.run.backend == "expert"
    assert load_expert_config(root / "expert_mcts.toml").teacher.agent == "mcts"
    assert load_expert_config(root / "expert_mcts_sv.toml").learn.search_value == 0.5
    value = load_expert_config(root / "expert_value.toml").teacher
    assert (value.agent, value.fit_skip, value.epochs) == ("policy", True, 0)
    carcassonne = load_expert_config(root / "expert_value_carcassonne.toml")  # the same recipe, another game
    assert carcassonne.env.ruleset == "carcassonne" and carcassonne.teacher == value
    mlp = load_expert_config(root / "expert_value_mlp.toml").teacher
    assert (mlp.agent, mlp.fit_skip, mlp.epochs, mlp.holdout) == ("policy", True, 1, 8)
    assert load_expert_config(root / "expert_gpu.toml").selfplay.workers > 1


def test_a_generation_s_cpu_seconds_count_its_self_play_workers(tmp_path: Path) -> None:
    """Two worker processes play the self-play chunks: their CPU is the generation's too, so the log's
    cpu_seconds exceed what the main process alone spent on the whole run."""
    import time

    own = time.process_time()
    run_dir = train_expert(
        _config(tmp_path, run={"generations": 1}, selfplay={"workers": 2, "chunks": 2}), progress=False
    )
    own = time.process_time() - own
    line = json.loads((run_dir / "expert.jsonl").read_text())
    assert line["cpu_seconds"] > own


TEACHER = {"agent": "mcts:sims=6,deals=2,batch=2", "games": 3, "chunks": 2, "epochs": 1}


def test_a_teacher_generation_learns_from_mcts_root_visits_and_keeps_its_chunks(tmp_path: Path) -> None:
    """Generation 1 learns from the teacher's games (mcts against itself), gated like any other; its
    chunks stay on disk, and a run started again (killed before its first checkpoint) reuses them."""
    config = _config(tmp_path, run={"generations": 2}, teacher=TEACHER)
    run_dir = train_expert(config, progress=False)
    lines = [json.loads(line) for line in (run_dir / "expert.jsonl").read_text().splitlines()]
    assert [line["teacher"] for line in lines] == [TEACHER["agent"], ""]
    assert lines[0]["samples"] > 0 and lines[0]["loss_policy"] > 0
    chunks = sorted((run_dir / "teacher").glob("chunk_*.npz"))
    assert [p.name for p in chunks] == ["chunk_0000.npz", "chunk_0001.npz"]
    pack = read_expert_checkpoint(checkpoint_paths(run_dir)[0])["packs"][0]
    first = np.load(chunks[0])
    raw, starts = first["visits"], first["legal_ptr"][:-1]
    assert np.allclose(np.add.reduceat(raw, starts), 1.0)  # the chunk keeps the visit distributions
    targets = pack["visits"].numpy()[: len(raw)]  # the learner's: all on the most visited (visit_temperature 0)
    assert set(np.unique(targets)) <= {0.0, 1.0} and np.allclose(np.add.reduceat(targets, starts), 1.0)
    assert np.array_equal(raw[targets == 1], np.maximum.reduceat(raw, starts))
    assert np.array_equal(first["outcome"], pack["outcome"].numpy()[: len(first["outcome"])])
    assert ((first["search_value"] > 0) & (first["search_value"] < 1)).all()  # mcts' root values

    again = tmp_path / "again"
    again.mkdir()
    (again / "tiny").mkdir()
    (again / "tiny" / "teacher").mkdir()
    chunks[1].rename(again / "tiny" / "teacher" / chunks[1].name)  # one chunk kept from a killed run
    rerun = train_expert(_config(again, run={"generations": 1}, teacher=TEACHER), progress=False)
    a, b = _weights(checkpoint_paths(run_dir)[0]), _weights(checkpoint_paths(rerun)[0])
    assert all(torch.equal(a[k], b[k]) for k in a)  # the chunk played again equals the one kept


def test_a_teacher_chunk_of_another_teacher_is_refused_by_name(tmp_path: Path) -> None:
    from hg_env.train.expert import teacher_key, teacher_play

    config = _config(tmp_path, teacher={**TEACHER, "games": 1, "chunks": 1})
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    teacher_play(config, np.random.default_rng(0), run_dir)
    other = _config(tmp_path, teacher={**TEACHER, "games": 1, "chunks": 1, "agent": "mcts:sims=7"})
    assert teacher_key(other) != teacher_key(config)
    with pytest.raises(ValueError, match=r"chunk_0000.npz holds games of another teacher"):
        teacher_play(other, np.random.default_rng(0), run_dir)
    with pytest.raises(ValueError, match="another seed or size"):
        teacher_play(config, np.random.default_rng(1), run_dir)
    (run_dir / "teacher" / "chunk_0000.npz").write_bytes(b"not a chunk")
    with pytest.raises(ValueError, match=re.escape("chunk_0000.npz is corrupt")):
        teacher_play(config, np.random.default_rng(0), run_dir)


def test_the_search_s_value_enters_the_win_target_and_old_chunks_learn_from_outcomes(tmp_path: Path) -> None:
    """``learn.search_value`` mixes the search's root value into the win target: where it equals the
    outcome nothing changes, where it differs the weights do. A chunk of an earlier version (no search
    values) is read with NaN ones and learned from its outcomes alone."""
    from hg_env.train.expert import _start, learn, read_teacher_chunk, teacher_key, teacher_play

    config = _config(tmp_path, teacher=TEACHER)
    run_dir = tmp_path / "tiny"
    run_dir.mkdir()
    pack, held_out = teacher_play(config, np.random.default_rng(0), run_dir)
    assert held_out is None and len(pack["outcome"]) > 0 and np.isfinite(pack["search_value"]).all()

    def weights_after(search_value: float, values: np.ndarray) -> dict:
        learning = _config(tmp_path, learn={"search_value": search_value})
        run = _start(learning, "cpu")
        learn(run.learner, run.optimizer, dict(pack, search_value=values), learning, np.random.default_rng(0), 1)
        return {k: v.clone() for k, v in run.learner.state_dict().items()}

    plain = weights_after(0.0, pack["search_value"])
    same = weights_after(1.0, pack["outcome"].copy())
    mixed = weights_after(0.5, pack["search_value"])
    assert all(torch.equal(plain[k], same[k]) for k in plain)
    assert not all(torch.equal(plain[k], mixed[k]) for k in plain)
    old = weights_after(0.5, np.full_like(pack["search_value"], np.nan))  # no search values: outcomes alone
    assert all(torch.equal(plain[k], old[k]) for k in plain)

    path = run_dir / "teacher" / "chunk_0000.npz"
    with np.load(path) as data:
        kept = {key: data[key] for key in data.files if key != "search_value"}
    np.savez_compressed(path, **kept)
    seed = int(kept["seed"])
    read = read_teacher_chunk(path, teacher_key(config), int(kept["games"]), seed)
    assert np.isnan(read["search_value"]).all() and len(read["search_value"]) == len(read["outcome"])


def test_mcts_root_visits_are_its_search_over_the_legal_moves() -> None:
    state = engine.new_games(2, Rules(), seeds=[3], record_events=False)
    agent = make_agent("mcts:sims=12,deals=2,batch=4", seed=0)
    action, legal, visits, value = agent.root_visits(state, 0)
    assert 0.0 < value < 1.0  # the mean value of the move it plays, for the seat to move
    assert np.array_equal(legal, np.flatnonzero(engine.legal_action_mask(state)[0]))
    assert visits.sum() == 12 and visits[np.searchsorted(legal, action)] == visits.max()
    assert action == make_agent("mcts:sims=12,deals=2,batch=4", seed=0).search(state, 0)  # the move it plays


def test_teacher_config_errors_name_the_key() -> None:
    base = {"run": {"backend": "expert"}}
    with pytest.raises(ConfigError, match=re.escape("teacher.agent")):
        expert_config_from_dict({**base, "teacher": {"games": 2, "agent": "greedy"}})
    with pytest.raises(ConfigError, match=re.escape("teacher.agent: agent 'mcts' has no option 'simz'")):
        expert_config_from_dict({**base, "teacher": {"games": 2, "agent": "mcts:simz=3"}})
    with pytest.raises(ConfigError, match=re.escape("teacher.chunks")):
        expert_config_from_dict({**base, "teacher": {"games": 2, "chunks": 3, "agent": "mcts"}})
    assert expert_config_from_dict(base).teacher.games == 0  # no teacher unless asked


def test_visit_temperature_sharpens_the_teacher_s_visits() -> None:
    from hg_env.train.expert import sharpen

    visits = np.array([0.2, 0.5, 0.3, 0.4, 0.4, 0.2, 0.5, 0.5], np.float32)
    ptr = np.array([0, 3, 6, 8])
    assert sharpen(visits, ptr, 1.0) is visits
    assert np.array_equal(sharpen(visits, ptr, 0.0), [0, 1, 0, 1, 0, 0, 1, 0])  # the most visited, first of equals
    half = sharpen(visits, ptr, 0.5)
    assert np.allclose(np.add.reduceat(half, ptr[:-1]), 1.0)
    assert np.allclose(half[:3], np.array([0.04, 0.25, 0.09]) / 0.38)
    with pytest.raises(ConfigError, match=re.escape("teacher.visit_temperature")):
        expert_config_from_dict({"run": {"backend": "expert"}, "teacher": {"visit_temperature": -1.0}})


POLICY_TEACHER = {"agent": "policy", "games": 4, "chunks": 2, "epochs": 0, "fit_skip": True}


def _win_loss(net: SearchNet, pack: dict) -> float:
    """Binary cross-entropy of ``net``'s win logit against the samples' outcomes."""
    size = net.layout.board.size
    batch = unpack_batch(pack, np.arange(len(pack["outcome"])), (net.num_channels, size, size), net.layout.size)
    inputs = {key: torch.as_tensor(batch[name]) for key, name in INPUT_NAMES}
    with torch.no_grad():
        _, out = net(inputs, torch.as_tensor(batch["legal"]))
    target = torch.as_tensor(pack["outcome"])
    return float(torch.nn.functional.binary_cross_entropy_with_logits(out[:, 0].double(), target.double()))


def test_a_policy_teacher_plays_cheap_games_and_the_value_skip_is_fitted_to_them(tmp_path: Path) -> None:
    """``teacher.agent = "policy"``: the starting model's policy plays the games (its own distribution as
    the policy target, no search value); ``teacher.fit_skip`` fits the value skip to them by regression
    (no worse on them than the value it starts from), and with ``teacher.epochs = 0`` no gradient pass
    follows: the shipped network is the starting one with the fitted skip."""
    from hg_env.train.expert import _start, fit_value_skip, teacher_play

    config = _config(tmp_path, run={"generations": 1}, teacher=POLICY_TEACHER)
    run_dir = train_expert(config, progress=False)
    (line,) = [json.loads(text) for text in (run_dir / "expert.jsonl").read_text().splitlines()]
    assert line["teacher"] == "policy" and line["samples"] > 0
    assert "loss_policy" not in line and line["loss_fit_value"] > 0  # fitted, not trained
    first = np.load(sorted((run_dir / "teacher").glob("chunk_*.npz"))[0])
    assert np.isnan(first["search_value"]).all()
    assert np.allclose(np.add.reduceat(first["visits"], first["legal_ptr"][:-1]), 1.0)
    assert (first["visits"] < 1).any()  # the policy's distribution, not only the move it played

    start = _start(config, "cpu").learner
    pack, _ = teacher_play(config, np.random.default_rng(config.run.seed), run_dir)  # the chunks kept on disk
    before = _win_loss(start, pack)
    fitted = fit_value_skip(start, pack)
    assert fitted["value"] == pytest.approx(_win_loss(start, pack), rel=1e-5) and fitted["value"] <= before
    shipped = load_model(str(run_dir / "final_model.zip"))
    assert shipped.metadata["kind"] == "searchnet"
    assert torch.allclose(shipped.net.value_skip.weight, start.value_skip.weight)
    assert not shipped.net.value_head.weight.any()  # the value is the fitted linear one alone
    trunk = [name for name in start.state_dict() if not name.startswith(("value_skip", "value_head"))]
    assert all(torch.equal(shipped.net.state_dict()[name], start.state_dict()[name]) for name in trunk)


def test_held_out_teacher_chunks_are_neither_fitted_nor_learned_and_their_losses_are_logged(tmp_path: Path) -> None:
    """``teacher.holdout = K``: the last K chunks are kept out of the fit and the gradient passes, and the
    log gives the losses on them before and after learning, those of the unchanged network equal to
    its losses on those samples computed apart."""
    from hg_env.train.expert import (
        _start,
        concat_packs,
        fit_value_skip,
        held_out_losses,
        read_teacher_chunk,
        sharpen,
        teacher_key,
    )

    teacher = {**POLICY_TEACHER, "games": 6, "chunks": 3, "holdout": 1, "epochs": 1}
    config = _config(tmp_path, run={"generations": 1}, teacher=teacher, selfplay={"opening": 100})
    run_dir = train_expert(config, progress=False)
    (line,) = [json.loads(text) for text in (run_dir / "expert.jsonl").read_text().splitlines()]
    rng = np.random.default_rng(config.run.seed)
    seeds = [int(s) for s in rng.integers(0, 2**62, size=3)]
    folder, key = run_dir / "teacher", teacher_key(config)
    chunks = [read_teacher_chunk(folder / f"chunk_{i:04d}.npz", key, 2, seeds[i]) for i in range(3)]
    learned, held_out = concat_packs(chunks[:2]), concat_packs(chunks[2:])
    held_out["visits"] = sharpen(held_out["visits"], held_out["legal_ptr"], config.teacher.visit_temperature)
    assert line["samples"] == len(learned["outcome"])
    assert line["holdout_samples"] == len(held_out["outcome"]) > 0
    start = _start(config, "cpu").learner
    assert fit_value_skip(start, learned)["value"] == pytest.approx(line["loss_fit_value"], rel=1e-5)
    before = held_out_losses(start, held_out, config)
    for key in ("policy", "value", "margin"):
        assert line[f"loss_holdout_start_{key}"] == pytest.approx(before[key], rel=1e-5)
        assert line[f"loss_holdout_{key}"] > 0
    assert line["loss_holdout_value"] != line["loss_holdout_start_value"]  # learned in between
    with pytest.raises(ConfigError, match=re.escape("teacher.holdout")):
        _config(tmp_path, teacher={**teacher, "holdout": 3})


def test_policy_teacher_config_errors_name_the_key() -> None:
    base = {"run": {"backend": "expert"}}
    with pytest.raises(ConfigError, match=re.escape("teacher.agent")):
        expert_config_from_dict({**base, "teacher": {"games": 2, "agent": "policy:path=x.zip"}})
    with pytest.raises(ConfigError, match=re.escape("teacher.explore")):
        expert_config_from_dict({**base, "teacher": {"games": 2, "agent": "policy", "explore": 1.5}})


def test_a_checkpoint_of_the_earlier_network_is_refused_by_name(tmp_path: Path) -> None:
    from hg_env.train.checkpoint import CheckpointError

    path = tmp_path / "gen_00001.pt"
    torch.save({"format": "hg_env-expert-checkpoint-v1", "generation": 1}, path)
    with pytest.raises(CheckpointError, match=r"earlier version of expert iteration .* start the run again"):
        read_expert_checkpoint(path)


def test_a_policy_teacher_chunk_is_the_same_on_any_thread_count(tmp_path: Path) -> None:
    from hg_env.train.expert import play_teacher_chunk

    config = _config(tmp_path, teacher=POLICY_TEACHER)
    threads = torch.get_num_threads()
    packs = []
    try:
        for count in (1, 3):
            torch.set_num_threads(count)
            packs.append(play_teacher_chunk(config, 2, 7))
            assert torch.get_num_threads() == count  # left as it was
    finally:
        torch.set_num_threads(threads)
    assert all(np.array_equal(packs[0][key], packs[1][key], equal_nan=True) for key in packs[0])


def test_puct_s_shipped_hg2020_network_is_the_ppo_model_with_expert_value_s_fitted_skip() -> None:
    """puct_hg2020.zip (puct's default on hg2020, the ladder's top rung) was built by
    configs/expert_value.toml: its file names that config; it is the shipped PPO model's network with the
    value skip fitted (the learned value silent); expert iteration still starts from the PPO model."""
    from hg_env.agents.puct import default_model, ppo_model
    from hg_env.train.expert import _start, load_expert_config, start_model

    root = Path(__file__).resolve().parent.parent
    assert default_model("hg2020").name == "puct_hg2020.zip"
    assert default_model("hg2002") == ppo_model("hg2002")  # no search network shipped there
    shipped = load_model(default_model("hg2020"))
    config = load_expert_config(root / "configs/expert_value.toml")
    assert shipped.metadata["kind"] == "searchnet"
    assert shipped.metadata["extra"]["config"]["run"]["name"] == config.run.name
    recorded, teacher = shipped.metadata["extra"]["config"]["teacher"], dataclasses.asdict(config.teacher)
    assert {**teacher, **recorded} == teacher  # keys added since (teacher.holdout) keep the default it ran with
    assert set(teacher) - set(recorded) <= {"holdout"} and teacher["holdout"] == 0
    assert start_model(config) == str(ppo_model("hg2020"))
    assert not shipped.net.value_head.weight.any() and shipped.net.value_skip.weight.abs().sum() > 0
    start = _start(config, "cpu").learner  # the PPO model's network as a SearchNet, seeded by run.seed
    trunk = [name for name in start.state_dict() if not name.startswith(("value_skip", "value_head"))]
    assert all(torch.equal(shipped.net.state_dict()[name], start.state_dict()[name]) for name in trunk)


@pytest.mark.slow
@pytest.mark.parametrize(
    "config, network",
    [
        ("expert_value", "hg_env/arena/models/puct_hg2020.zip"),
        ("expert_value_carcassonne", "docs/measurements/searchnet_carcassonne_value.zip"),
    ],
)
def test_configs_expert_value_rebuilds_the_shipped_search_network(tmp_path: Path, config: str, network: str) -> None:
    """hgenv train --config configs/expert_value.toml (about 5 minutes on two cores) gives puct_hg2020.zip
    again, and its Carcassonne twin (about 10 minutes) the network measured in docs/search_agent.md: the
    same trunk and policy exactly, the fitted skip and biases to 1e-4 (on another CPU the policy's
    self-play may differ in the last bits of a few probabilities)."""
    from hg_env.cli import main

    root = Path(__file__).resolve().parent.parent
    text = (root / f"configs/{config}.toml").read_text().replace("[run]", f'[run]\nout_dir = "{tmp_path}"', 1)
    (tmp_path / f"{config}.toml").write_text(text)
    assert main(["train", "--config", str(tmp_path / f"{config}.toml")]) == 0
    built = load_model(str(tmp_path / config / "final_model.zip")).net.state_dict()
    shipped = load_model(str(root / network)).net.state_dict()
    assert built.keys() == shipped.keys()
    for name, tensor in shipped.items():
        if name.startswith(("value_skip", "value_head")):
            assert torch.allclose(built[name], tensor, atol=1e-4), name
        else:
            assert torch.equal(built[name], tensor), name
