"""Model files are data, never code: save_model / load_model, plain MaskablePPO zips read without
unpickling, the allow-list, export_sb3, and the policy agent on all of them."""

from __future__ import annotations

import base64
import io
import json
import pickle
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from torch import nn

from hg_env.agents.base import make_agent
from hg_env.agents.features import BoardCNN
from hg_env.agents.model_file import MODEL_FORMAT, export_sb3, load_model, save_model
from hg_env.agents.network import BoardNet
from hg_env.agents.puct import default_model, ppo_model
from hg_env.arena import tournament
from hg_env.arena.evaluate import evaluate
from hg_env.train.policy import HGPolicy
from hg_env.train.vec_env import HGVecEnv
from tests.test_train import CreatesMarker, positions

NET_KWARGS = {"board_reach": 12, "channels": 8, "layers": 1, "hidden": 16, "lookahead": False, "ruleset": "hg2020"}


class MyActivation(nn.ReLU):
    """A class of the user's own: not on the allow-list."""


def saved_boardnet(path: Path, **changes) -> BoardNet:
    torch.manual_seed(0)
    net = BoardNet(**NET_KWARGS)
    save_model(path, net, kind="boardnet", net_kwargs=NET_KWARGS, ruleset="hg2020", board_reach=12, **changes)
    return net


def rewrite_zip(path: Path, replace: dict[str, bytes], drop: tuple[str, ...] = ()) -> None:
    """The same zip with some entries replaced (or dropped)."""
    with zipfile.ZipFile(path) as z:
        entries = {name: z.read(name) for name in z.namelist()}
    entries.update(replace)
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            if name not in drop:
                z.writestr(name, data)


def logits_of(net: nn.Module, obs: np.ndarray) -> torch.Tensor:
    with torch.no_grad():
        return net(torch.from_numpy(obs))[0]


@pytest.fixture(scope="module")
def mlp_zip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MaskablePPO]:
    """A plain MaskablePPO("MlpPolicy") trained a few hundred steps on HGVecEnv(num_envs=2), saved by SB3."""
    torch.manual_seed(0)
    model = MaskablePPO(
        "MlpPolicy", HGVecEnv(num_envs=2, seed=0), n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(256)
    path = tmp_path_factory.mktemp("sb3") / "mlp.zip"
    model.save(path)
    return path, model


# ---------------------------------------------------------------- no code runs


def test_loading_a_model_never_runs_code_embedded_in_it(tmp_path: Path, mlp_zip) -> None:
    marker = tmp_path / "marker"
    payload = pickle.dumps(CreatesMarker(marker), protocol=2)
    # Our format: the weights entry is a pickle that would create the marker.
    ours = tmp_path / "ours.zip"
    saved_boardnet(ours)
    buffer = io.BytesIO()
    torch.save({"stem.weight": CreatesMarker(marker)}, buffer)
    rewrite_zip(ours, {"weights.pt": buffer.getvalue()})
    with pytest.raises(ValueError, match=r"ours\.zip: weights\.pt is not a plain state dict of tensors"):
        load_model(ours)
    # A MaskablePPO zip: every ":serialized:" entry of its data carries the payload; SB3's own loader
    # would run it. Ours never reads them: the model loads and plays, and no marker appears.
    sb3 = tmp_path / "sb3.zip"
    sb3.write_bytes(mlp_zip[0].read_bytes())
    with zipfile.ZipFile(sb3) as z:
        data = json.loads(z.read("data"))
    for entry in data.values():
        if isinstance(entry, dict) and ":serialized:" in entry:
            entry[":serialized:"] = base64.b64encode(payload).decode()
    rewrite_zip(sb3, {"data": json.dumps(data).encode()})
    agent = make_agent(f"policy:path={sb3}", seed=0)
    assert evaluate(agent, "random", games=2, seed=0).games == 2
    # Its policy.pth made a pickle that would create the marker: refused.
    rewrite_zip(sb3, {"policy.pth": payload})
    with pytest.raises(ValueError, match=r"sb3\.zip: policy\.pth is not a plain state dict of tensors"):
        make_agent(f"policy:path={sb3}")
    assert not marker.exists()


# ---------------------------------------------------------------- our format


def test_a_saved_model_loads_back_with_identical_logits(tmp_path: Path) -> None:
    path = tmp_path / "model.zip"
    net = saved_boardnet(path, extra={"steps": 7})
    loaded = load_model(path)
    obs, _ = positions(6)
    assert torch.equal(logits_of(net.eval(), obs), logits_of(loaded.net, obs))
    assert not loaded.net.training
    meta = loaded.metadata
    assert meta["format"] == MODEL_FORMAT and meta["kind"] == "boardnet" and meta["net_kwargs"] == NET_KWARGS
    assert meta["observation"] == {"shape": [85, 25, 25], "dtype": "uint8"} and meta["action"] == {"n": 3161}
    assert meta["parameters"] == sum(p.numel() for p in net.parameters()) and meta["extra"] == {"steps": 7}
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["model.json", "weights.pt"]


def test_weights_that_do_not_match_their_metadata_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "model.zip"
    saved_boardnet(path)
    with zipfile.ZipFile(path) as z:
        meta, weights = json.loads(z.read("model.json")), z.read("weights.pt")

    def refused(change: dict, message: str, entries: dict | None = None) -> None:
        rewrite_zip(
            path, {"model.json": json.dumps({**meta, **change}).encode(), "weights.pt": weights, **(entries or {})}
        )
        with pytest.raises(ValueError) as err:
            load_model(path)
        assert str(err.value).startswith(f"{path}: ") and message in str(err.value), str(err.value)

    refused(
        {"net_kwargs": {**NET_KWARGS, "channels": 16}},
        "weights do not match its metadata: place_side has shape (3, 8, 8), the metadata's network needs (3, 16, 16)",
    )
    refused({"net_kwargs": {**NET_KWARGS, "layers": 2}}, "convs.1.weight is missing")
    refused({"net_kwargs": {**NET_KWARGS, "lookahead": True}}, "observation")  # other spaces than the file says
    refused({"board_reach": 8, "net_kwargs": {**NET_KWARGS, "board_reach": 8}}, "not those of board_reach 8")
    state = torch.load(io.BytesIO(weights), weights_only=True)
    extra = io.BytesIO()
    torch.save({**state, "surprise": torch.zeros(3)}, extra)
    refused({}, "surprise is not part of the metadata's network", {"weights.pt": extra.getvalue()})
    refused({"kind": "resnet"}, "unknown network kind 'resnet'")
    refused({"format": "other"}, "has format 'other'")
    refused({"version": 99}, "model file version 99")
    refused({"net_kwargs": {**NET_KWARGS, "channels": 10**9}}, "channels must be an int 1..1024")
    rewrite_zip(path, {"model.json": b"{not json", "weights.pt": weights})
    with pytest.raises(ValueError, match=r"model\.zip: model\.json is not valid JSON"):
        load_model(path)


def test_a_model_of_another_ruleset_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "model.zip"
    saved_boardnet(path)
    assert load_model(path, ruleset="hg2020").metadata["ruleset"] == "hg2020"
    with pytest.raises(ValueError, match=r"model\.zip: the model plays ruleset 'hg2020', not 'carcassonne'"):
        make_agent(f"policy:path={path},ruleset=carcassonne")


def test_missing_truncated_and_foreign_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"model file .*none\.zip does not exist"):
        load_model(tmp_path / "none.zip")
    path = tmp_path / "model.zip"
    saved_boardnet(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"model\.zip is not a model file: not a readable zip archive"):
        load_model(path)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ValueError, match=r"notes\.txt is not a model file"):
        load_model(text)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("readme.md", "hi")
    with pytest.raises(ValueError, match=r"other\.zip is not a model file: it holds neither model\.json"):
        load_model(other)


# ---------------------------------------------------------------- plain MaskablePPO zips


def test_a_plain_maskable_ppo_model_plays_a_legal_game(mlp_zip) -> None:
    path, model = mlp_zip
    loaded = load_model(path)
    assert loaded.metadata["kind"] == "maskable_policy" and loaded.metadata["ruleset"] == "hg2020"
    obs, masks = positions(5)
    with torch.no_grad():
        expected = model.policy.get_distribution(torch.from_numpy(obs)).distribution.logits
    assert torch.allclose(torch.log_softmax(logits_of(loaded.net, obs), 1), expected, atol=1e-6)  # both normalised
    agent = make_agent(f"policy:path={path}", seed=0)
    predicted, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert np.array_equal(agent.act_batch(obs, masks), predicted)
    spec = tournament.schedule(tournament.TournamentConfig(agents=(f"policy:path={path}", "random"), games=2))[0]
    line = tournament.play_game(spec)  # one act() per decision; an illegal move would be recorded as an error
    assert line["error"] is None and line["decisions"] > 50


def test_loading_sizes_the_network_without_importing_torch_dynamo() -> None:
    """The declared network is sized on the meta device with its value fills skipped: filling a meta
    tensor would import torch._dynamo, seconds of CPU in every process that loads a model. (An SB3
    policy's own optimizer imports it: that cost is SB3's.)"""
    code = "import sys; from hg_env.agents.model_file import load_model; load_model(sys.argv[1]); "
    code += "print('torch._dynamo' in sys.modules)"
    for path in (default_model("hg2020"), ppo_model("hg2020")):  # a searchnet, a boardnet
        run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
        assert run.stdout.split() == ["False"], path


def test_policies_off_the_allow_list_are_refused_with_how_to_export(tmp_path: Path) -> None:
    env = HGVecEnv(num_envs=2, seed=0)
    path = tmp_path / "custom.zip"
    MaskablePPO("MlpPolicy", env, n_steps=8, policy_kwargs={"activation_fn": MyActivation}).save(path)
    with pytest.raises(ValueError) as err:
        load_model(path)
    assert "activation function 'tests.test_model_file.MyActivation' is not on the allow-list" in str(err.value)
    assert "export_sb3" in str(err.value)
    with pytest.raises(ValueError, match="MyActivation' is not on the allow-list"):
        export_sb3(MaskablePPO("MlpPolicy", env, n_steps=8, policy_kwargs={"activation_fn": MyActivation}), path)


def test_export_sb3_and_sb3_zips_of_allowed_policies_give_the_same_network(tmp_path: Path, mlp_zip) -> None:
    obs, _ = positions(4)
    _, mlp = mlp_zip
    cnn = MaskablePPO(
        "MlpPolicy",
        HGVecEnv(num_envs=2, seed=0),
        n_steps=8,
        seed=0,
        policy_kwargs={
            "features_extractor_class": BoardCNN,
            "features_extractor_kwargs": {"channels": 8, "features_dim": 32},
            "net_arch": {"pi": [32], "vf": [16]},
            "activation_fn": nn.ReLU,
        },
    )
    board = MaskablePPO(
        HGPolicy, HGVecEnv(num_envs=2, seed=0), n_steps=8, seed=0, policy_kwargs=dict(NET_KWARGS, channels=4)
    )
    for name, model in (("mlp", mlp), ("cnn", cnn), ("board", board)):
        exported, plain = tmp_path / f"{name}_export.zip", tmp_path / f"{name}_sb3.zip"
        export_sb3(model, exported)
        model.save(plain)
        with torch.no_grad():
            expected = model.policy.get_distribution(torch.from_numpy(obs)).distribution.logits
        for path in (exported, plain):
            logits = logits_of(load_model(path).net, obs)
            assert torch.allclose(torch.log_softmax(logits, 1), torch.log_softmax(expected, 1), atol=1e-6), path
    assert load_model(tmp_path / "board_sb3.zip").metadata["kind"] == "boardnet"
    with pytest.raises(ValueError, match="board_reach=8 given, but the policy's spaces are those of reach 12"):
        export_sb3(mlp, tmp_path / "x.zip", board_reach=8)


def test_a_model_of_another_board_names_the_observation_it_reads(tmp_path: Path) -> None:
    path = tmp_path / "small.zip"
    MaskablePPO("MlpPolicy", HGVecEnv(num_envs=2, seed=0, board_reach=4), n_steps=8).save(path)
    assert load_model(path).metadata["board_reach"] == 4
    obs, masks = positions(2)  # boards of reach 12
    with pytest.raises(ValueError, match=r"small\.zip reads observations of shape \(\d+, 9, 9\), got \(85, 25, 25\)"):
        make_agent(f"policy:path={path}").act_batch(obs, masks)


# ---------------------------------------------------------------- hostile and lenient files


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def _write_zip(path: Path, entries: list[tuple[str, bytes]], compression: int = zipfile.ZIP_DEFLATED) -> None:
    """A zip of these members in this order (a name may repeat), written as given."""
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in entries:
            z.writestr(name, data)


def _refused(path: Path, message: str) -> str:
    with pytest.raises(ValueError) as err:
        load_model(path)
    text = str(err.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text, text
    return text


def test_a_weights_bomb_is_refused_before_torch_reads_it(tmp_path: Path, monkeypatch) -> None:
    """A small zip whose weights.pt inflates far past what its declared network needs (32 MiB of zeros
    for a network of ~41 kB) is refused from the zip's declared size, and from what it inflates to when
    the header lies, and a torch zip with a compressed record is refused: torch.load never runs and the
    loader's memory stays within the bound."""
    import tracemalloc

    path = tmp_path / "bomb.zip"
    saved_boardnet(path)
    meta = _entries(path)["model.json"]
    zeros = bytes(32 * 2**20)
    _write_zip(path, [("model.json", meta), ("weights.pt", zeros)])
    assert path.stat().st_size < 2**20

    def no_torch_load(*args, **kwargs):
        raise AssertionError("torch.load ran on a bomb")

    monkeypatch.setattr(torch, "load", no_torch_load)
    tracemalloc.start()
    try:
        _refused(path, "weights.pt claims 33554432 bytes, more than the")
        # The header lies: the central directory and the local header say 1000 bytes.
        data = bytearray(path.read_bytes())
        with zipfile.ZipFile(path) as z:
            info = z.getinfo("weights.pt")
        central = data.index(b"PK\x01\x02", data.index(b"weights.pt", info.header_offset + 30 + 10) - 46)
        for at in (info.header_offset + 22, central + 24):  # uncompressed size fields
            data[at : at + 4] = (1000).to_bytes(4, "little")
        path.write_bytes(bytes(data))
        _refused(path, "weights.pt")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20, peak
    monkeypatch.undo()
    # weights.pt itself a zip (torch's format) whose tensor records are deflated: torch would inflate them.
    saved_boardnet(path)
    entries = _entries(path)
    inner = tmp_path / "inner.zip"
    with zipfile.ZipFile(io.BytesIO(entries["weights.pt"])) as z:
        _write_zip(inner, [(name, z.read(name)) for name in z.namelist()])
    _write_zip(path, [("model.json", entries["model.json"]), ("weights.pt", inner.read_bytes())])
    _refused(path, "weights.pt holds compressed record")
    # torch's legacy (non-zip) format allocates the storage sizes its pickle declares: not read.
    legacy = io.BytesIO()
    torch.save(
        torch.load(io.BytesIO(entries["weights.pt"]), weights_only=True), legacy, _use_new_zipfile_serialization=False
    )
    _write_zip(path, [("model.json", entries["model.json"]), ("weights.pt", legacy.getvalue())])
    _refused(path, "weights.pt is not a plain state dict of tensors (not torch.save's zip format")


def test_model_json_without_its_spaces_is_refused_at_load(tmp_path: Path) -> None:
    """The format (module docstring, README: Model files) lists the observation and action spaces as
    part of model.json; without them the policy agent used to fail later with KeyError: 'observation'."""
    path = tmp_path / "model.zip"
    saved_boardnet(path)
    meta = json.loads(_entries(path)["model.json"])
    for key in ("observation", "action"):
        rewrite_zip(path, {"model.json": json.dumps({k: v for k, v in meta.items() if k != key}).encode()})
        _refused(path, f"model.json lacks '{key}'")
        with pytest.raises(ValueError, match=f"lacks '{key}'"):
            make_agent(f"policy:path={path}")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_weights_are_refused_naming_the_tensor(tmp_path: Path, bad: float) -> None:
    path = tmp_path / "model.zip"
    torch.manual_seed(0)
    net = BoardNet(**NET_KWARGS)
    with torch.no_grad():
        net.convs[0].weight[0, 0] = bad
    save_model(path, net, kind="boardnet", net_kwargs=NET_KWARGS, ruleset="hg2020", board_reach=12)
    _refused(path, "weights are not finite: convs.0.weight holds 1 NaN or infinite value(s)")
    with torch.no_grad():
        for tensor in net.parameters():
            tensor.fill_(bad)
    save_model(path, net, kind="boardnet", net_kwargs=NET_KWARGS, ruleset="hg2020", board_reach=12)
    with pytest.raises(ValueError, match="weights are not finite"):
        make_agent(f"policy:path={path}")


def test_lenient_acceptances_are_refused(tmp_path: Path) -> None:
    """version true is not 1; each member once; no unknown members; a relabelled board reach."""
    path = tmp_path / "model.zip"
    saved_boardnet(path, extra={"config": {"env": {"rules": {}}}})  # as hgenv train: the default reach 12
    entries = _entries(path)
    meta = json.loads(entries["model.json"])
    rewrite_zip(path, {"model.json": json.dumps({**meta, "version": True}).encode()})
    _refused(path, "model.json version must be an integer, got True")
    with pytest.warns(UserWarning, match="Duplicate name"):
        _write_zip(path, [("model.json", entries["model.json"]), *[("weights.pt", entries["weights.pt"])] * 2])
    _refused(path, "the zip holds weights.pt more than once")
    _write_zip(path, [*entries.items(), ("notes.txt", b"hi")])
    _refused(path, "unknown member(s) ['notes.txt']; a model file holds model.json and weights.pt only")
    _write_zip(path, [("model.json", entries["model.json"])])
    _refused(path, "the model file lacks weights.pt")
    # Relabelled to reach 6, spaces and all: the boardnet's tensors fit any reach, its run config does not.
    from hg_env.agents.model_file import describe_spaces

    observation, action = describe_spaces(6, False, "hg2020")
    relabelled = {
        **meta,
        "board_reach": 6,
        "net_kwargs": {**NET_KWARGS, "board_reach": 6},
        "observation": observation,
        "action": action,
    }
    _write_zip(path, [("model.json", json.dumps(relabelled).encode()), ("weights.pt", entries["weights.pt"])])
    _refused(path, "declares board_reach 6 but its run config (extra.config.env.rules) trained it at 12")
    relabelled["extra"]["config"]["env"]["rules"]["board_reach"] = 6  # a consistent file of reach 6 loads
    _write_zip(path, [("model.json", json.dumps(relabelled).encode()), ("weights.pt", entries["weights.pt"])])
    assert load_model(path).metadata["board_reach"] == 6


JUNK = [None, True, False, -1, 0, 2**70, 1.5, float("nan"), "x", "", [], [1, "a"], {}, {"a": 1}, "boardnet"]


def test_fuzz_damaged_model_files_load_identically_or_give_one_value_error(tmp_path: Path) -> None:
    """150 seeded random damages to a model file (a model.json field or net_kwarg replaced by junk or
    deleted, a member repeated, added, dropped, truncated, a NaN or infinity in a tensor, or bytes of the
    weights flipped): each loads
    to the same logits (the damage was harmless) or raises one ValueError naming the file."""
    path = tmp_path / "model.zip"
    net = saved_boardnet(path, extra={"steps": 3}).eval()
    entries = _entries(path)
    meta = json.loads(entries["model.json"])
    obs, _ = positions(2)
    expected = logits_of(net, obs)
    rng = np.random.default_rng(30)
    refused = 0
    for _ in range(150):
        bad_meta = json.loads(entries["model.json"])
        members = [("model.json", None), ("weights.pt", entries["weights.pt"])]
        roll = rng.random()
        if roll < 0.3:
            key = list(meta)[rng.integers(len(meta))]
            if rng.random() < 0.7:
                bad_meta[key] = JUNK[rng.integers(len(JUNK))]
            else:
                del bad_meta[key]
        elif roll < 0.5:
            key = list(NET_KWARGS)[rng.integers(len(NET_KWARGS))]
            bad_meta["net_kwargs"][key] = JUNK[rng.integers(len(JUNK))]
        elif roll < 0.6:
            members.append(members[int(rng.integers(2))])
        elif roll < 0.7:
            members.append((["notes.txt", "weights.pt.bak", "data"][rng.integers(3)], b"{}"))
        elif roll < 0.75:
            members.pop(int(rng.integers(2)))
        elif roll < 0.8:
            members[1] = ("weights.pt", entries["weights.pt"][: int(rng.integers(len(entries["weights.pt"])))])
        elif roll < 0.9:  # a well-formed weights.pt with a NaN or an infinity in one tensor
            state = {name: tensor.clone() for name, tensor in net.state_dict().items()}
            name = sorted(state)[rng.integers(len(state))]
            state[name].view(-1)[int(rng.integers(state[name].numel()))] = float(rng.choice([np.nan, np.inf, -np.inf]))
            buffer = io.BytesIO()
            torch.save(state, buffer)
            members[1] = ("weights.pt", buffer.getvalue())
        else:
            data = bytearray(entries["weights.pt"])
            for at in rng.integers(len(data), size=int(rng.integers(1, 5))):
                data[at] ^= int(rng.integers(1, 256))
            members[1] = ("weights.pt", bytes(data))
        text = json.dumps(bad_meta).encode()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # zipfile: duplicate names, on purpose
            _write_zip(path, [(name, text if data is None else data) for name, data in members])
        try:
            loaded = load_model(path)
        except ValueError as err:
            assert str(err).startswith(f"{path}") and "\n" not in str(err), str(err)
            refused += 1
            continue
        assert torch.equal(logits_of(loaded.net, obs), expected)
    assert refused >= 100, refused
