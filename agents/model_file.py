"""Model files that are data, never code: ``save_model``, ``load_model``, ``export_sb3``.

A model file (``final_model.zip``, ``snapshots/step_*.zip`` of ``hgenv train``)
is a zip holding two entries:

``model.json``
    ``format`` ("hg_env-model") and ``version``, the network's ``kind`` and its
    ``net_kwargs`` (plain numbers and names), the ``ruleset`` and ``board_reach``
    it plays, its observation and action spaces as plain keys (shapes, dtypes,
    action count), its parameter count, the hg_env version that wrote it and
    ``extra`` (free JSON: the run's config, its step count, ...).
``weights.pt``
    ``torch.save`` of the network's state dict: tensors only.

Loading reads the JSON, rebuilds the network from an allow-list of kinds and
its plain kwargs, reads the weights with ``torch.load(weights_only=True)`` and
checks that every tensor's name and shape is the rebuilt network's, and that
every value is finite. Nothing in the file is unpickled as an object, so a file
from a stranger cannot run code. Every problem is one ``ValueError`` naming the
file and what differs.

Memory: before torch reads anything, the weights may hold no more bytes than
the network that ``model.json`` declares needs (its tensors, counted on the
meta device or from its layer widths, plus a margin for torch's own zip and
pickle), both by the sizes the zip declares and by the bytes actually
decompressed (read in bounded chunks), and ``weights.pt`` must be torch's zip
format with stored (uncompressed) members within the same bound: a small
file cannot expand to gigabytes.

Strictness: a model file holds ``model.json`` and ``weights.pt`` once each and
nothing else; ``version`` is an int (``true`` is not 1); ``observation`` and
``action`` are required (the spaces the model reads; ``save_model`` always
writes them). A boardnet's tensors have the same shapes at every board reach
(it is a per-cell network), so its weights cannot tell the reach it was trained
at; a file whose own run config (``extra.config``, written by ``hgenv train``)
names another reach than it declares is refused.

Kinds: ``"boardnet"`` (``hg_env.agents.network.BoardNet``, what ``hgenv train``
writes), ``"searchnet"`` (``hg_env.agents.search_net.SearchNet``, the network of ``puct``
that expert iteration writes: a boardnet's kwargs and tensors plus its value head) and
``"maskable_policy"`` (an sb3-contrib ``MaskableActorCriticPolicy`` of allow-listed parts, what
``export_sb3`` writes for e.g. an ``"MlpPolicy"``).

``load_model`` also reads a plain sb3-contrib ``MaskablePPO`` zip
(``model.save(...)``) without unpickling it: only the plain fields of its
``data`` JSON are read (``":type:"`` strings, ``_shape``, ``n``, plain
``policy_kwargs``), never its ``":serialized:"`` pickles; ``policy.pth`` is read
with ``weights_only=True``. The policy class, activation function and features
extractor must be on the allow-list (``ALLOWED_*`` below); anything else is
refused, with how to export the model instead. Its spaces are rebuilt from the
board reach (the size of the observation, or the action count) and whether it
reads the lookahead (a Dict observation): those of ``HGVecEnv`` and
``SingleAgentEnv``. Its ruleset is "hg2020" unless given.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from gymnasium import spaces
from torch import nn
from torch.overrides import TorchFunctionMode

from hg_env.core.ruleset import RULESETS, get_ruleset
from hg_env.fileio import atomic_write_bytes

MODEL_FORMAT = "hg_env-model"
MODEL_VERSION = 1
DEFAULT_RULESET = "hg2020"
METADATA, WEIGHTS = "model.json", "weights.pt"
KINDS = ("boardnet", "searchnet", "maskable_policy")
BOARD_KINDS = ("boardnet", "searchnet")  # per-cell networks: the same net_kwargs
MAX_JSON_BYTES = 64 * 2**20  # model.json, or an SB3 zip's data (it carries pickles we never read)
MAX_WEIGHTS_BYTES = 8 * 2**30
# torch.save's own bytes around the tensors' data (its pickle, zip headers, 64-byte alignment):
# measured about 300 bytes per tensor; this allows far more, and far less than a bomb needs.
WEIGHTS_MARGIN_BYTES, WEIGHTS_MARGIN_PER_TENSOR = 2**20, 4096
READ_CHUNK = 2**20

# Qualified names (module.qualname) of the classes a model may name. SB3 aliases: "MlpPolicy" is
# MaskableActorCriticPolicy, "CnnPolicy" MaskableActorCriticCnnPolicy, "MultiInputPolicy" the last one.
_MASKABLE = "sb3_contrib.common.maskable.policies."
ALLOWED_POLICIES = (
    _MASKABLE + "MaskableActorCriticPolicy",
    _MASKABLE + "MaskableActorCriticCnnPolicy",
    _MASKABLE + "MaskableMultiInputActorCriticPolicy",
)
HG_POLICIES = ("hg_env.train.policy.HGPolicy", "train.policy.HGPolicy")  # train.policy: before hg_env.train
ALLOWED_ACTIVATIONS = tuple(
    f"torch.nn.modules.activation.{name}"
    for name in ("Tanh", "ReLU", "ELU", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Softplus", "Mish", "SELU", "CELU")
)
_SB3_LAYERS = "stable_baselines3.common.torch_layers."
ALLOWED_EXTRACTORS = (
    _SB3_LAYERS + "FlattenExtractor",
    _SB3_LAYERS + "CombinedExtractor",
    _SB3_LAYERS + "NatureCNN",
    "hg_env.agents.features.BoardCNN",
    "hg_env.train.features.BoardCNN",  # its name in files written before it moved to hg_env.agents
)
# Allow-listed names that files may hold but that now live elsewhere: file names, not import paths.
MOVED_CLASSES = {"hg_env.train.features.BoardCNN": "hg_env.agents.features.BoardCNN"}
# A boardnet's sizes (ints, inclusive): the ranges of hg_env.train.config.PolicyConfig, which trains it.
BOARDNET_SIZES = {"channels": (1, 1024), "layers": (1, 64), "hidden": (1, 4096)}
_POLICY_OPTIONS = (  # plain policy_kwargs of a MaskableActorCriticPolicy that shape the network
    "net_arch",
    "activation_fn",
    "features_extractor_class",
    "features_extractor_kwargs",
    "share_features_extractor",
    "normalize_images",
)
_IGNORED_OPTIONS = ("ortho_init", "optimizer_class", "optimizer_kwargs")  # training only: never built
_HOW_TO_EXPORT = (
    "train it with an allow-listed policy (MlpPolicy, MultiInputPolicy, hg_env.train.policy.HGPolicy; "
    "features extractors: hg_env.agents.features.BoardCNN or SB3's own) and save it with "
    "hg_env.agents.model_file.export_sb3(model, path, ruleset=...), which writes weights and plain metadata only"
)


@dataclass
class LoadedModel:
    """A network rebuilt from a model file: ``net(obs) -> (logits [B, A], values [B, 1])`` in eval
    mode, with ``net.lookahead`` telling whether it reads the Dict observation; ``metadata`` is the
    file's model.json (for an SB3 zip, the same keys, described from its plain fields)."""

    net: nn.Module
    metadata: dict[str, Any]


class MaskablePolicyNet(nn.Module):
    """An sb3-contrib ``MaskableActorCriticPolicy`` seen as the policy agent sees a network."""

    def __init__(self, policy: nn.Module) -> None:
        super().__init__()
        self.policy = policy
        self.lookahead = isinstance(policy.observation_space, spaces.Dict)

    def forward(self, obs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and values exactly as ``MaskableActorCriticPolicy.forward`` computes them."""
        policy = self.policy
        features = policy.extract_features(obs)
        if policy.share_features_extractor:
            latent_pi, latent_vf = policy.mlp_extractor(features)
        else:
            latent_pi = policy.mlp_extractor.forward_actor(features[0])
            latent_vf = policy.mlp_extractor.forward_critic(features[1])
        return policy.action_net(latent_pi), policy.value_net(latent_vf)


# ---------------------------------------------------------------- saving


def save_model(
    path: str | Path,
    net: nn.Module,
    *,
    kind: str,
    net_kwargs: dict,
    ruleset: str,
    board_reach: int,
    extra: dict | None = None,
) -> None:
    """Write ``net`` (its state dict and plain metadata) as a model file, atomically (module docstring).

    ``net`` is what ``load_model`` gives back: a ``BoardNet`` for kind "boardnet", a
    ``MaskablePolicyNet`` for "maskable_policy". ValueError if ``net_kwargs`` do not rebuild
    ``net`` (a file that could not be loaded is never written)."""
    path = Path(path)
    metadata = {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "kind": kind,
        "net_kwargs": net_kwargs,
        "ruleset": ruleset,
        "board_reach": board_reach,
    }
    weights = {name: tensor.detach().cpu() for name, tensor in net.state_dict().items()}
    _check_metadata(path, metadata)
    _build_for(path, kind, net_kwargs, weights, "the network its net_kwargs build")
    from hg_env import __version__

    observation, action = describe_spaces(board_reach, _lookahead(net_kwargs), ruleset)
    metadata.update(
        observation=observation,
        action=action,
        parameters=sum(t.numel() for t in weights.values()),
        hg_env_version=__version__,
        extra=extra or {},
    )
    try:
        text = json.dumps(metadata, indent=2, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{path}: the metadata must be plain JSON (numbers, strings, lists, dicts): {err}") from None
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(METADATA, text)
        z.writestr(WEIGHTS, buffer.getvalue())
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, archive.getvalue())


def export_sb3(model: Any, path: str | Path, *, ruleset: str = DEFAULT_RULESET, board_reach: int | None = None) -> None:
    """Save the policy of a ``MaskablePPO`` (or the policy itself) trained in memory as a model file.

    Works for ``HGPolicy`` and for ``MaskableActorCriticPolicy`` (and its Cnn / MultiInput
    variants) built from allow-listed parts; ``board_reach`` defaults to the one its observation
    space implies. ValueError naming anything not on the allow-list."""
    from hg_env.agents.network import BoardNet

    policy = getattr(model, "policy", model)
    if isinstance(getattr(policy, "net", None), BoardNet):  # HGPolicy (hg_env.train.policy): its BoardNet
        kwargs = dict(policy.net_kwargs)
        _same_reach(path, kwargs["board_reach"], board_reach)
        if kwargs["ruleset"] != ruleset:
            raise ValueError(f"{path}: ruleset={ruleset!r} given, but the policy's network plays {kwargs['ruleset']!r}")
        save_model(
            path, policy.net, kind="boardnet", net_kwargs=kwargs, ruleset=ruleset, board_reach=kwargs["board_reach"]
        )
        return
    name = _qualname(type(policy))
    if name not in ALLOWED_POLICIES:
        raise ValueError(f"{path}: cannot export a policy of class {name}: not on the allow-list; {_HOW_TO_EXPORT}")
    params = policy._get_constructor_parameters()
    lookahead = isinstance(policy.observation_space, spaces.Dict)
    reach = _reach_from_actions(path, int(policy.action_space.n), ruleset)
    _same_reach(path, reach, board_reach)
    kwargs = {
        "policy": name,
        "net_arch": params["net_arch"],
        "activation_fn": _qualname(params["activation_fn"]),
        "features_extractor_class": _qualname(params["features_extractor_class"]),
        "features_extractor_kwargs": params.get("features_extractor_kwargs") or {},
        "share_features_extractor": bool(params.get("share_features_extractor", True)),
        "normalize_images": bool(params["normalize_images"]),
        "board_reach": reach,
        "lookahead": lookahead,
        "ruleset": ruleset,
    }
    save_model(
        path, MaskablePolicyNet(policy), kind="maskable_policy", net_kwargs=kwargs, ruleset=ruleset, board_reach=reach
    )


def _same_reach(path: str | Path, reach: int, given: int | None) -> None:
    if given is not None and given != reach:
        raise ValueError(f"{path}: board_reach={given} given, but the policy's spaces are those of reach {reach}")


# ---------------------------------------------------------------- loading


def load_model(path: str | Path, *, ruleset: str | None = None, device: str = "cpu") -> LoadedModel:
    """The network of a model file or of a plain MaskablePPO zip, in eval mode (module docstring).

    ``ruleset``: the ruleset the caller plays; a model of another one is refused (None: any
    for a model file; "hg2020" for an SB3 zip, which records none)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"model file {path} does not exist (train one with: hgenv train --config configs/quick.toml)")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise ValueError(
            f"{path} is not a model file: not a readable zip archive (corrupt or truncated: {err})"
        ) from None
    with archive:
        listed = archive.namelist()
        twice = sorted({name for name in listed if listed.count(name) > 1})
        if twice:
            raise ValueError(f"{path}: the zip holds {twice[0]} more than once; a model file holds each member once")
        names = set(listed)
        if METADATA in names:
            unknown = sorted(names - {METADATA, WEIGHTS})
            if unknown:
                raise ValueError(
                    f"{path}: unknown member(s) {unknown[:8]}; a model file holds {METADATA} and {WEIGHTS} only"
                )
            if WEIGHTS not in names:
                raise ValueError(f"{path}: the model file lacks {WEIGHTS} (the network's tensors)")
            metadata = _read_json(path, archive, METADATA)
            _check_metadata(path, metadata, written=True)
            _check_ruleset(path, metadata, ruleset)
            weights = _read_weights(path, archive, WEIGHTS, _weights_limit(path, metadata))
        elif {"data", "policy.pth"} <= names:
            metadata = _sb3_metadata(path, _read_json(path, archive, "data"), ruleset or DEFAULT_RULESET)
            weights = _read_weights(path, archive, "policy.pth", _weights_limit(path, metadata))
            if metadata["kind"] == "boardnet":  # HGPolicy: its BoardNet is the policy's "net"
                weights = {k.removeprefix("net."): v for k, v in weights.items()}
            else:  # the policy wrapped in MaskablePolicyNet
                weights = {f"policy.{k}": v for k, v in weights.items()}
        else:
            raise ValueError(
                f"{path} is not a model file: it holds neither {METADATA} and {WEIGHTS} (hgenv train, save_model) "
                f"nor data and policy.pth (a MaskablePPO zip); it holds {sorted(names)[:8]}"
            )
    _check_ruleset(path, metadata, ruleset)
    net = _build_for(path, metadata["kind"], metadata["net_kwargs"], weights, "the metadata's network")
    _check_finite(path, weights)
    net.load_state_dict(weights)
    return LoadedModel(net.to(device).eval(), metadata)


def _check_ruleset(path: Path, metadata: dict, ruleset: str | None) -> None:
    if ruleset is not None and metadata["ruleset"] != ruleset:
        raise ValueError(f"{path}: the model plays ruleset {metadata['ruleset']!r}, not {ruleset!r}")


def _check_finite(path: Path, weights: dict[str, torch.Tensor]) -> None:
    """NaN or infinite weights give NaN logits: the agent would play the first legal move forever."""
    for name, tensor in weights.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            bad = int((~torch.isfinite(tensor)).sum())
            raise ValueError(f"{path}: weights are not finite: {name} holds {bad} NaN or infinite value(s)")


def _read_entry(path: Path, archive: zipfile.ZipFile, name: str, limit: int, what: str = "") -> bytes:
    """The bytes of one member, refused past ``limit`` by its declared size and by what it inflates to."""
    info = archive.getinfo(name)
    beyond = f"more than the {limit} {what or 'a model file may hold'}"
    if info.file_size > limit:
        raise ValueError(f"{path}: {name} claims {info.file_size} bytes, {beyond}")
    chunks, size = [], 0
    try:
        with archive.open(info) as member:  # chunk by chunk: the declared size is not trusted
            while chunk := member.read(READ_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise ValueError(f"{path}: {name} expands past {limit} bytes, {beyond}")
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError) as err:
        raise ValueError(f"{path}: {name} cannot be read (corrupt or truncated: {err})") from None
    return b"".join(chunks)


def _read_json(path: Path, archive: zipfile.ZipFile, name: str) -> dict:
    try:
        value = json.loads(_read_entry(path, archive, name, MAX_JSON_BYTES).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ValueError(f"{path}: {name} is not valid JSON ({type(err).__name__}: {err})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{path}: {name} must hold a JSON object, got {type(value).__name__}")
    return value


def _weights_limit(path: Path, metadata: dict) -> tuple[int, str]:
    """The most bytes the weights of the declared network take in torch.save's format, and why."""
    parameters, tensors = _network_size(path, metadata["kind"], metadata["net_kwargs"])
    limit = min(MAX_WEIGHTS_BYTES, 4 * parameters + WEIGHTS_MARGIN_BYTES + WEIGHTS_MARGIN_PER_TENSOR * tensors)
    return limit, f"its declared network ({parameters} float32 parameters in {tensors} tensors) needs"


def check_torch_zip(path: Path, name: str, data: bytes, limit: int, why: str) -> None:
    """torch.save's zip, members stored: what torch then reads is bounded by ``limit``, not by a
    declared storage size (the legacy format allocates those before reading) or a compressed record;
    ValueError naming ``path`` otherwise (also a record that fails its CRC check)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as inner:
            members = inner.infolist()
            packed = [m.filename for m in members if m.compress_type != zipfile.ZIP_STORED]
            if packed:
                raise ValueError(f"{path}: {name} holds compressed record {packed[0]}; torch.save stores its records")
            total = sum(m.file_size for m in members)
            if total > limit:
                raise ValueError(f"{path}: {name}'s records claim {total} bytes, more than the {limit} {why}")
            damaged = inner.testzip()  # torch does not check its records' CRCs: flipped bits would load
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as err:
        raise ValueError(
            f"{path}: {name} is not a plain state dict of tensors (not torch.save's zip format: {err})"
        ) from None
    if damaged is not None:
        raise ValueError(f"{path}: {name} is corrupt: its record {damaged} fails its CRC check")


def _read_weights(path: Path, archive: zipfile.ZipFile, name: str, bound: tuple[int, str]) -> dict[str, torch.Tensor]:
    limit, why = bound
    data = _read_entry(path, archive, name, limit, why)
    check_torch_zip(path, name, data, limit, why)
    try:
        weights = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as err:  # the restricted unpickler refuses anything but tensors and plain values
        raise ValueError(
            f"{path}: {name} is not a plain state dict of tensors (refused without running it: {load_error(err)})"
        ) from None
    if not (isinstance(weights, dict) and all(isinstance(v, torch.Tensor) for v in weights.values())):
        raise ValueError(f"{path}: {name} must hold a dict of tensors (a state dict)")
    return weights


def load_error(err: BaseException) -> str:
    """The first sentence of a ``torch.load(weights_only=True)`` error that says what went wrong."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    refused = [line.removeprefix("WeightsUnpickler error:") for line in lines if "WeightsUnpickler error:" in line]
    line = (refused or lines or [""])[0]
    return f"{type(err).__name__}: {line.split('. ')[0].strip()}"


def _check_metadata(path: Path, metadata: dict, written: bool = False) -> None:
    """Format, version, kind and the plain fields every model file has (``written``: a file read
    back, which also has its spaces and run config)."""
    if metadata.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: {METADATA} has format {metadata.get('format')!r}, expected {MODEL_FORMAT!r}")
    version = metadata.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ValueError(f"{path}: {METADATA} version must be an integer, got {version!r}")
    if version != MODEL_VERSION:
        raise ValueError(
            f"{path}: model file version {metadata.get('version')!r}; this hg_env reads version {MODEL_VERSION} "
            "(a newer hg_env may read it)"
        )
    if metadata.get("kind") not in KINDS:
        raise ValueError(f"{path}: unknown network kind {metadata.get('kind')!r}; known kinds: {list(KINDS)}")
    ruleset = metadata.get("ruleset")
    if ruleset not in RULESETS:
        raise ValueError(f"{path}: the metadata's ruleset must be one of {RULESETS}, got {ruleset!r}")
    reach = metadata.get("board_reach")
    _check_reach(path, reach, ruleset)
    kwargs = metadata.get("net_kwargs")
    if not isinstance(kwargs, dict):
        raise ValueError(f"{path}: the metadata's net_kwargs must be a JSON object, got {kwargs!r}")
    if kwargs.get("board_reach") != reach:
        raise ValueError(
            f"{path}: the metadata's board_reach is {reach} but its network is built for "
            f"board_reach {kwargs.get('board_reach')!r}"
        )
    if metadata["kind"] in BOARD_KINDS and kwargs.get("ruleset", ruleset) != ruleset:
        raise ValueError(
            f"{path}: the metadata's ruleset is {ruleset!r} but its network plays {kwargs.get('ruleset')!r}"
        )
    if written:
        missing = [key for key in ("observation", "action") if key not in metadata]
        if missing:
            raise ValueError(
                f"{path}: {METADATA} lacks {missing[0]!r} (the spaces the model reads and acts in, "
                "which save_model writes)"
            )
        _check_run_reach(path, metadata.get("extra"), reach, ruleset)
    if "observation" in metadata:  # written by save_model; checked against what the reach and lookahead give
        observation, action = describe_spaces(reach, _lookahead(kwargs), ruleset)
        if metadata["observation"] != observation or metadata.get("action") != action:
            raise ValueError(
                f"{path}: the metadata's spaces (observation {metadata['observation']}, action "
                f"{metadata.get('action')}) are not those of board_reach {reach} (observation {observation}, "
                f"action {action})"
            )


def _check_run_reach(path: Path, extra: Any, reach: int, ruleset: str) -> None:
    """The reach in the run config that ``hgenv train`` records in ``extra`` is the one declared:
    a boardnet's weights cannot tell (the module docstring), its run's config can."""
    config = extra.get("config") if isinstance(extra, dict) else None
    env = config.get("env") if isinstance(config, dict) else None
    rules = env.get("rules") if isinstance(env, dict) else None
    if isinstance(rules, dict):
        trained = rules.get("board_reach", 12)  # hg_env.Rules' default; None: unbounded, as Rules reads it
        if trained is None:
            trained = get_ruleset(ruleset).tiles.num_tiles - 1
        if trained != reach:
            raise ValueError(
                f"{path}: the model declares board_reach {reach} but its run config (extra.config.env.rules) "
                f"trained it at {trained!r}"
            )


def _check_reach(path: Path, reach: Any, ruleset: str) -> None:
    largest = get_ruleset(ruleset).tiles.num_tiles - 1  # as hg_env.Rules: a larger board is no different
    if isinstance(reach, bool) or not isinstance(reach, int) or not 1 <= reach <= largest:
        raise ValueError(f"{path}: board_reach must be an int 1..{largest} ({ruleset}), got {reach!r}")


def _lookahead(kwargs: dict) -> bool:
    return kwargs.get("lookahead", False) is True


def describe_spaces(board_reach: int, lookahead: bool, ruleset: str = DEFAULT_RULESET) -> tuple[dict, dict]:
    """The observation and action spaces of hg_env's envs (``hg_env.single_agent.env_spaces``) as plain JSON."""
    from hg_env.single_agent import env_spaces

    observation, action = env_spaces(board_reach, lookahead, ruleset)

    def box(space: spaces.Box) -> dict:
        return {"shape": list(space.shape), "dtype": str(space.dtype)}

    if isinstance(observation, spaces.Dict):
        described = {key: box(space) for key, space in observation.spaces.items()}
    else:
        described = box(observation)
    return described, {"n": int(action.n)}


def _compare_weights(path: Path, expected: dict[str, torch.Tensor], got: dict[str, torch.Tensor], whose: str) -> None:
    problem = state_dict_mismatch(expected, got, whose)
    if problem:
        raise ValueError(f"{path}: weights do not match its metadata: {problem}")


def state_dict_mismatch(expected: dict[str, torch.Tensor], got: dict[str, torch.Tensor], whose: str) -> str | None:
    """What differs between two state dicts (names, shapes, dtypes), in words; None if nothing."""
    missing = [k for k in expected if k not in got]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        return f"{missing[0]} is missing{more}: {whose} needs it"
    unknown = [k for k in got if k not in expected]
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        return f"{unknown[0]} is not part of {whose}{more}"
    for name, tensor in expected.items():
        if tuple(got[name].shape) != tuple(tensor.shape):
            return f"{name} has shape {tuple(got[name].shape)}, {whose} needs {tuple(tensor.shape)}"
        if got[name].dtype != tensor.dtype:
            return f"{name} is {got[name].dtype}, {whose} needs {tensor.dtype}"
    return None


# ---------------------------------------------------------------- rebuilding networks


def _build_for(path: Path, kind: str, kwargs: dict, weights: dict[str, torch.Tensor], whose: str) -> nn.Module:
    """The network of ``kind`` from plain kwargs, once its tensors are known to match ``weights``.

    Memory is only spent on a network the weights can fill: a BoardNet is first built on the
    meta device (shapes, no data); a policy's layers are first counted from its net_arch."""
    try:
        if kind in BOARD_KINDS:
            with _shapes_only():
                _compare_weights(path, _build_boardnet(path, kwargs, kind).state_dict(), weights, whose)
            net = _build_boardnet(path, kwargs, kind)
        else:
            held = sum(t.numel() for t in weights.values())
            needed, _ = _network_size(path, kind, kwargs)
            if needed != held:
                raise ValueError(
                    f"{path}: weights do not match its metadata: {whose} has {needed} parameters, the file holds {held}"
                )
            net = _build_maskable_policy(path, kwargs)
    except (TypeError, KeyError, AssertionError, RuntimeError) as err:  # odd kwargs that passed the checks
        raise ValueError(f"{path}: cannot build a {kind} network from {kwargs}: {type(err).__name__}: {err}") from None
    _compare_weights(path, net.state_dict(), weights, whose)
    return net


_FILLS = frozenset({"normal_", "uniform_", "zero_", "fill_", "copy_", "mul_", "div_", "add_", "sub_", "clamp_"})


class _SkipFills(TorchFunctionMode):
    """Skips the calls that only fill a meta tensor's values (nn.init's, ``fill_``, ``copy_``, ...)."""

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        tensor = next((a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)), None)
        fills = getattr(func, "__module__", None) == "torch.nn.init" or getattr(func, "__name__", "") in _FILLS
        if fills and tensor is not None and tensor.is_meta:
            return tensor
        return func(*args, **kwargs)


@contextlib.contextmanager
def _shapes_only() -> Any:
    """Build networks on the meta device for their shapes alone, skipping what only fills values.

    Why skip: on a meta tensor those ops run through torch._refs, whose first use imports
    torch._dynamo, seconds of CPU in every process that loads a model; shapes never depend on them."""
    with torch.device("meta"), _SkipFills():
        yield


def _network_size(path: Path, kind: str, kwargs: dict) -> tuple[int, int]:
    """(parameters, tensors) of the declared network's state dict, allocating none of them: a
    BoardNet is built on the meta device, a policy's extractor too and its layers are counted
    from net_arch (SB3 moves its MLP to a real device while building it)."""
    try:
        if kind in BOARD_KINDS:
            with _shapes_only():
                state = _build_boardnet(path, kwargs, kind).state_dict()
            return sum(t.numel() for t in state.values()), len(state)
        extractor = _meta_extractor(path, kwargs)
        # its state dict names the extractor three times (features_, pi_, vf_), shared or not
        held = [t.numel() for t in extractor.state_dict().values()] * 3
        head = _policy_head_parameters(path, kwargs, extractor.features_dim)
        pi, vf = _pi_vf(path, kwargs)
        return sum(held) + head, len(held) + 2 * (len(pi) + len(vf) + 2)  # a weight and a bias per layer
    except (TypeError, KeyError, AssertionError, RuntimeError, AttributeError) as err:
        raise ValueError(f"{path}: cannot build a {kind} network from {kwargs}: {type(err).__name__}: {err}") from None


def _meta_extractor(path: Path, kwargs: dict) -> nn.Module:
    """A maskable policy's features extractor, built on the meta device as the policy builds it."""
    from stable_baselines3.common.torch_layers import CombinedExtractor, NatureCNN

    from hg_env.single_agent import env_spaces

    ruleset = kwargs.get("ruleset", DEFAULT_RULESET)
    _check_reach(path, kwargs.get("board_reach"), ruleset)
    observation, _ = env_spaces(kwargs["board_reach"], kwargs.get("lookahead") is True, ruleset)
    # each policy class's default extractor: MlpPolicy's, CnnPolicy's, MultiInputPolicy's
    defaults = dict(zip(ALLOWED_POLICIES, (ALLOWED_EXTRACTORS[0], _qualname(NatureCNN), _qualname(CombinedExtractor))))
    name = kwargs.get("features_extractor_class", defaults.get(kwargs.get("policy"), ALLOWED_EXTRACTORS[0]))
    cls = _allowed(path, "features extractor", name, ALLOWED_EXTRACTORS)
    options = dict(_plain_kwargs(path, "features_extractor_kwargs", kwargs.get("features_extractor_kwargs") or {}))
    if kwargs.get("normalize_images") is False and issubclass(cls, (NatureCNN, CombinedExtractor)):
        options["normalized_image"] = True  # as SB3's BaseModel does
    with _shapes_only():
        return cls(observation, **options)


def _build_boardnet(path: Path, kwargs: dict, kind: str = "boardnet") -> nn.Module:
    """A BoardNet (or for kind "searchnet" a SearchNet) from checked plain kwargs."""
    from hg_env.agents.network import BoardNet

    known = {"board_reach", "channels", "layers", "hidden", "lookahead", "ruleset"}
    if set(kwargs) != known:
        raise ValueError(f"{path}: a boardnet's net_kwargs are {sorted(known)}, got {sorted(kwargs)}")
    if kwargs["ruleset"] not in RULESETS:
        raise ValueError(f"{path}: net_kwargs ruleset must be one of {RULESETS}, got {kwargs['ruleset']!r}")
    _check_reach(path, kwargs["board_reach"], kwargs["ruleset"])
    for key, (low, high) in BOARDNET_SIZES.items():
        value = kwargs[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{path}: net_kwargs {key} must be an int {low}..{high}, got {value!r}")
    if not isinstance(kwargs["lookahead"], bool):
        raise ValueError(f"{path}: net_kwargs lookahead must be true or false, got {kwargs['lookahead']!r}")
    if kind == "searchnet":
        from hg_env.agents.search_net import SearchNet

        if kwargs["lookahead"] is not True:
            raise ValueError(f"{path}: a searchnet reads the lookahead features: net_kwargs lookahead must be true")
        return SearchNet(**kwargs)
    return BoardNet(**kwargs)


def _build_maskable_policy(path: Path, kwargs: dict) -> nn.Module:
    """A MaskableActorCriticPolicy (or variant) of allow-listed parts, wrapped in MaskablePolicyNet."""
    known = {"policy", "board_reach", "lookahead", "ruleset", *_POLICY_OPTIONS}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ValueError(f"{path}: unknown net_kwargs {unknown} of a maskable_policy; known: {sorted(known)}")
    ruleset = kwargs.get("ruleset", DEFAULT_RULESET)
    if ruleset not in RULESETS:
        raise ValueError(f"{path}: net_kwargs ruleset must be one of {RULESETS}, got {ruleset!r}")
    _check_reach(path, kwargs.get("board_reach"), ruleset)
    lookahead = kwargs.get("lookahead", False)
    if not isinstance(lookahead, bool):
        raise ValueError(f"{path}: net_kwargs lookahead must be true or false, got {lookahead!r}")
    from hg_env.single_agent import env_spaces

    observation, action = env_spaces(kwargs["board_reach"], lookahead, ruleset)
    cls = _allowed(path, "policy class", kwargs.get("policy"), ALLOWED_POLICIES)
    options: dict[str, Any] = {"ortho_init": False}  # the weights are loaded over it
    if "net_arch" in kwargs:
        options["net_arch"] = _net_arch(path, kwargs["net_arch"])
    if "activation_fn" in kwargs:
        options["activation_fn"] = _allowed(path, "activation function", kwargs["activation_fn"], ALLOWED_ACTIVATIONS)
    if "features_extractor_class" in kwargs:
        options["features_extractor_class"] = _allowed(
            path, "features extractor", kwargs["features_extractor_class"], ALLOWED_EXTRACTORS
        )
    if "features_extractor_kwargs" in kwargs:
        options["features_extractor_kwargs"] = _plain_kwargs(
            path, "features_extractor_kwargs", kwargs["features_extractor_kwargs"]
        )
    for key in ("share_features_extractor", "normalize_images"):
        if key in kwargs:
            if not isinstance(kwargs[key], bool):
                raise ValueError(f"{path}: net_kwargs {key} must be true or false, got {kwargs[key]!r}")
            options[key] = kwargs[key]
    policy = cls(observation, action, lambda _: 0.0, **options)
    return MaskablePolicyNet(policy)


def _policy_head_parameters(path: Path, kwargs: dict, features: int) -> int:
    """Parameters of a maskable policy's MLP and output layers on ``features`` inputs (its
    extractor's come on top)."""
    from hg_env.single_agent import env_spaces

    ruleset = kwargs.get("ruleset", DEFAULT_RULESET)
    _check_reach(path, kwargs.get("board_reach"), ruleset)
    _, action = env_spaces(kwargs["board_reach"], kwargs.get("lookahead") is True, ruleset)
    pi, vf = _pi_vf(path, kwargs)
    total = 0
    for widths, outputs in ((pi, int(action.n)), (vf, 1)):
        sizes = [int(features), *widths, outputs]
        total += sum((a + 1) * b for a, b in itertools.pairwise(sizes))
    return total


def _pi_vf(path: Path, kwargs: dict) -> tuple[list[int], list[int]]:
    """The hidden layer widths of a maskable policy's actor and critic."""
    arch = _net_arch(path, kwargs.get("net_arch", {"pi": [64, 64], "vf": [64, 64]}))
    return (arch.get("pi", []), arch.get("vf", [])) if isinstance(arch, dict) else (arch, arch)


def _allowed(path: Path, what: str, name: Any, allowed: tuple[str, ...]) -> type:
    """The class of an allow-listed qualified name, imported from our installed packages only."""
    if name not in allowed:
        raise ValueError(f"{path}: refused: {what} {name!r} is not on the allow-list {list(allowed)}; {_HOW_TO_EXPORT}")
    import importlib

    module, _, attr = MOVED_CLASSES.get(name, name).rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _net_arch(path: Path, value: Any) -> list[int] | dict[str, list[int]]:
    """``[64, 64]`` or ``{"pi": [...], "vf": [...]}`` of widths 1..65536, at most 32 layers each."""

    def widths(layers: Any) -> bool:
        return (
            isinstance(layers, list)
            and len(layers) <= 32
            and all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= 65536 for w in layers)
        )

    if widths(value) or (isinstance(value, dict) and set(value) <= {"pi", "vf"} and all(map(widths, value.values()))):
        return value
    raise ValueError(f"{path}: net_arch must be a list of layer widths or {{pi: [...], vf: [...]}}, got {value!r}")


def _plain_kwargs(path: Path, what: str, value: Any) -> dict:
    plain = isinstance(value, dict) and all(
        isinstance(k, str) and (v is None or isinstance(v, (bool, int, float, str))) for k, v in value.items()
    )
    if not plain:
        raise ValueError(f"{path}: {what} must be a JSON object of numbers, strings and booleans, got {value!r}")
    return value


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# ---------------------------------------------------------------- plain MaskablePPO zips

_CLASS_REPR = re.compile(r"^<class '([\w.]+)'>$")
_FUNCTION_REPR = re.compile(r"^<function ([\w.]+)\.\w+ at 0x[0-9a-f]+>$")


def _sb3_metadata(path: Path, data: dict, ruleset: str) -> dict:
    """A model file's metadata, described from the plain fields of a MaskablePPO zip's ``data``."""
    policy = _sb3_policy_name(path, data.get("policy_class"))
    options = _sb3_policy_kwargs(path, data.get("policy_kwargs", {}))
    lookahead = _sb3_lookahead(path, data.get("observation_space"))
    action = data.get("action_space")
    if not (isinstance(action, dict) and action.get(":type:") == "<class 'gymnasium.spaces.discrete.Discrete'>"):
        raise ValueError(f"{path}: the model's action space is not Discrete (the flat action space of hg_env)")
    try:
        n = int(action.get("n"))
    except (TypeError, ValueError):
        raise ValueError(f"{path}: the model's action space has no plain action count (n)") from None
    reach = _reach_from_actions(path, n, ruleset)
    observation = data["observation_space"]
    if not lookahead:
        expected = describe_spaces(reach, False, ruleset)[0]
        got = {"shape": observation.get("_shape"), "dtype": observation.get("dtype")}
        if got != expected:
            raise ValueError(
                f"{path}: the model reads observations {got}; hg_env's board of reach {reach} "
                f"({n} actions) gives {expected}"
            )
    if policy in HG_POLICIES:
        kind = "boardnet"
        kwargs = {
            "board_reach": reach,
            "channels": 32,
            "layers": 3,
            "hidden": 128,
            "lookahead": lookahead,
            "ruleset": ruleset,
        }
        unknown = sorted(set(options) - set(kwargs))
        if unknown:
            raise ValueError(f"{path}: unknown HGPolicy options {unknown}")
        kwargs.update(options)
        if kwargs["board_reach"] != reach or kwargs["lookahead"] != lookahead:
            raise ValueError(
                f"{path}: its HGPolicy options (board_reach {kwargs['board_reach']!r}, lookahead "
                f"{kwargs['lookahead']!r}) do not fit its spaces (reach {reach}, lookahead {lookahead})"
            )
    else:
        kind = "maskable_policy"
        unknown = sorted(set(options) - set(_POLICY_OPTIONS) - set(_IGNORED_OPTIONS))
        if unknown:
            raise ValueError(f"{path}: refused: policy option(s) {unknown} are not understood; {_HOW_TO_EXPORT}")
        kwargs = {k: v for k, v in options.items() if k in _POLICY_OPTIONS}
        kwargs.update(policy=policy, board_reach=reach, lookahead=lookahead, ruleset=ruleset)
    return {
        "format": "sb3-contrib MaskablePPO zip",
        "kind": kind,
        "net_kwargs": kwargs,
        "ruleset": ruleset,
        "board_reach": reach,
        "observation": describe_spaces(reach, lookahead, ruleset)[0],
        "action": {"n": n},
    }


def _sb3_policy_name(path: Path, entry: Any) -> str:
    """module.qualname of the policy class, from the plain strings SB3 writes next to its pickle."""
    if isinstance(entry, dict):
        module = entry.get("__module__")
        owners = {m.group(1) for v in entry.values() if isinstance(v, str) and (m := _FUNCTION_REPR.match(v))}
        if isinstance(module, str) and len(owners) == 1:
            name = f"{module}.{owners.pop()}"
            if name in ALLOWED_POLICIES or name in HG_POLICIES:
                return name
            raise ValueError(f"{path}: refused: policy class {name} is not on the allow-list; {_HOW_TO_EXPORT}")
    raise ValueError(
        f"{path}: refused: the model's policy class cannot be told from its plain fields; {_HOW_TO_EXPORT}"
    )


def _sb3_policy_kwargs(path: Path, entry: Any) -> dict:
    """policy_kwargs with classes as qualified names; values SB3 could only pickle are refused."""
    if not isinstance(entry, dict):
        raise ValueError(f"{path}: policy_kwargs is not a JSON object")
    options = {}
    for key, value in entry.items():
        if key in (":type:", ":serialized:"):
            continue
        if isinstance(value, str) and (match := _CLASS_REPR.match(value)):
            value = match.group(1)
        elif isinstance(value, str) and value.startswith("<") and key not in _IGNORED_OPTIONS:
            raise ValueError(f"{path}: refused: policy option {key} = {value} is not plain data; {_HOW_TO_EXPORT}")
        options[key] = value
    return options


def _sb3_lookahead(path: Path, entry: Any) -> bool:
    """False for the board tensor (a Box), True for the Dict observation of ``lookahead=True``."""
    kind = entry.get(":type:") if isinstance(entry, dict) else None
    if kind == "<class 'gymnasium.spaces.box.Box'>":
        return False
    if kind == "<class 'gymnasium.spaces.dict.Dict'>":
        return True
    raise ValueError(f"{path}: the model's observation space ({kind}) is not one of hg_env's (Box or Dict)")


def _reach_from_actions(path: str | Path, n: int, ruleset: str) -> int:
    """The board reach whose flat action space (of this ruleset) has ``n`` actions."""
    from hg_env.core.actions import action_layout

    largest = get_ruleset(ruleset).tiles.num_tiles - 1
    for reach in range(1, largest + 1):
        if action_layout(reach, ruleset).size == n:
            return reach
    raise ValueError(f"{path}: {n} actions is the action space of no {ruleset} board (reach 1..{largest})")
