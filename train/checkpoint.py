"""Checkpoints of ``hgenv train`` that are data, never code, and logs that resume exactly.

A checkpoint (``checkpoints/step_*.pt``) is one ``torch.save`` of a dict that
holds only tensors and plain values (numbers, strings, lists, dicts, None), and
is read back with ``torch.load(weights_only=True)``: a file from someone else
cannot run code. Before that, ``load_checkpoint_file`` (of PPO and of expert
iteration) checks that it is at most ``MAX_CHECKPOINT_BYTES`` and torch.save's
zip with its records stored and intact (CRCs): what torch then allocates is
bounded by the file's own size, and flipped bits are named rather than loaded.
Everything that is not a tensor is converted on the way:

* numpy arrays -> tensors (and back, same dtype and shape);
* numpy generators -> their ``bit_generator.state`` (a dict of ints); numpy's
  global generator -> ``get_state(legacy=False)`` with its key as a tensor;
  Python's ``random`` -> its state as lists; torch's -> its byte tensor;
* the games in progress (the batched core ``State``) -> ``state.arrays()`` by
  name, ``state.rules.as_dict()``, ``state.num_players`` and its events; they
  are rebuilt with ``engine.new_games`` and every array is copied back by name,
  so nothing here depends on the State's field names;
* the other attributes of ``hg_env.vector.VectorEnv`` by type (arrays,
  generators, plain values); those the config rebuilds are left out.

Logs on resume. A run killed after an evaluation but before the checkpoint that
follows it (or during that checkpoint's write) resumes from the checkpoint
before, and plays those steps again: without care, ``eval.jsonl`` and
TensorBoard would hold them twice. So every checkpoint records how many bytes
``eval.jsonl`` had, and the values logged but not yet written to TensorBoard
(SB3 writes an update's losses, and the evaluation made at a checkpoint, at the
next rollout); ``rewind_logs`` cuts ``eval.jsonl`` back to that size and
rewrites every TensorBoard event file of the run without its events past the
checkpoint's step. Rewriting the event files (read with tensorboard's own
``RawEventFileLoader``, written back record by record with its
``RecordWriter``, atomically) keeps one set of files that any TensorBoard
reads, with every scalar exactly once; the alternatives (a new log folder per
resume, or ``purge_step``, which only hides the old events from TensorBoard's
own reader) leave duplicates for other readers. Only wall-clock values differ
from an uninterrupted run (``time/*``, and SB3's ``time/iterations``, which
counts from the resume).
"""

from __future__ import annotations

import io
import pickle
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hg_env.agents.model_file import check_torch_zip, load_error
from hg_env.core import engine
from hg_env.core.rules import Rules
from hg_env.core.state import State
from hg_env.fileio import atomic_write_bytes

CHECKPOINT_FORMAT = "hg_env-ppo-checkpoint-v2"
MAX_CHECKPOINT_BYTES = 8 * 2**30  # far above any run's (a GPU run's kept samples are hundreds of MB)
EVAL_LOG = "eval.jsonl"
BIT_GENERATORS = ("PCG64",)  # what np.random.default_rng makes; the only kind a checkpoint restores


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be used; the message names the file."""


# ---------------------------------------------------------------- the file


def write_checkpoint(path: Path, payload: dict) -> None:
    """``torch.save`` of ``payload`` (tensors and plain values only), atomically."""
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    atomic_write_bytes(path, buffer.getvalue())


def load_checkpoint_file(path: Path) -> Any:
    """What a checkpoint file holds (of PPO or expert iteration), read without running code and in about
    its own size of memory; CheckpointError naming the file."""
    try:
        size = path.stat().st_size
        if size > MAX_CHECKPOINT_BYTES:
            raise CheckpointError(
                f"checkpoint {path} is {size} bytes, more than the {MAX_CHECKPOINT_BYTES} a checkpoint may hold; "
                "it was not read"
            )
        data = path.read_bytes()
    except OSError as err:
        raise CheckpointError(f"checkpoint {path} cannot be read ({err})") from None
    head = data[:4]
    # torch.save writes a zip (b"PK\x03\x04"); its legacy format and plain pickles open with the pickle
    # PROTO opcode. Anything else (random bytes, text) is not a checkpoint at all, not one with extra content.
    if head and not head.startswith((b"PK\x03\x04", b"\x80")):
        raise CheckpointError(
            f"{path} is not a checkpoint: not a torch.save file (it starts with {head!r}); "
            "delete it to resume from the one before"
        )
    if head.startswith(b"\x80"):  # the legacy format allocates the storage sizes it declares before reading them
        raise CheckpointError(
            f"checkpoint {path} is a pickle, not torch.save's zip format, and was refused without reading it "
            f"(the checkpoints of hgenv train before {CHECKPOINT_FORMAT} were pickles, which cannot be read "
            "safely): start a new run.name; otherwise delete it to resume from the one before"
        )
    try:  # what torch reads is bounded by the file's own size: records stored, their CRCs checked
        check_torch_zip(path, "the checkpoint", data, len(data), "bytes the file itself holds")
    except ValueError as err:
        raise CheckpointError(
            f"checkpoint {path} is corrupt or truncated ({err}); delete it to resume from the one before"
        ) from None
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:  # objects other than tensors: refused without being built
        raise CheckpointError(
            f"checkpoint {path} holds more than tensors and plain values; it was refused without running it "
            f"({load_error(err)}). Delete it to resume from the one before"
        ) from None
    except Exception as err:
        raise CheckpointError(
            f"checkpoint {path} is corrupt or truncated ({load_error(err)}); delete it to resume from the one before"
        ) from None


def read_checkpoint(path: Path, required: tuple[str, ...]) -> dict:
    """The payload of a PPO checkpoint (``load_checkpoint_file``), checked for its format and ``required`` keys."""
    payload = load_checkpoint_file(path)
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise CheckpointError(
            f"{path} is not a checkpoint of this hgenv train (format {found!r}, expected {CHECKPOINT_FORMAT!r}); "
            "delete it to resume from the one before, or start a new run.name"
        )
    missing = [key for key in required if key not in payload]
    if missing:
        raise CheckpointError(f"{path} is incomplete: it lacks {missing}; delete it to resume from the one before")
    return payload


# ---------------------------------------------------------------- arrays and generators


def to_tensors(value: np.ndarray | dict[str, np.ndarray] | None) -> torch.Tensor | dict[str, torch.Tensor] | None:
    """A numpy array (or a dict of them, or None) as tensors of the same dtype and shape (copies)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {key: torch.from_numpy(np.array(array)) for key, array in value.items()}
    return torch.from_numpy(np.array(value))


def to_arrays(value: torch.Tensor | dict[str, torch.Tensor] | None) -> np.ndarray | dict[str, np.ndarray] | None:
    """The inverse of ``to_tensors``."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {key: tensor.numpy() for key, tensor in value.items()}
    return value.numpy()


def generator_state(rng: np.random.Generator) -> dict:
    """A numpy generator's state: a dict of ints."""
    state = rng.bit_generator.state
    if state["bit_generator"] not in BIT_GENERATORS:
        raise TypeError(f"cannot checkpoint a {state['bit_generator']} generator; use np.random.default_rng")
    return state


def generator_from(state: dict) -> np.random.Generator:
    """A numpy generator in ``state`` (of ``generator_state``)."""
    kind = state.get("bit_generator")
    if kind not in BIT_GENERATORS:
        raise ValueError(f"unknown bit generator {kind!r}")
    rng = np.random.Generator(getattr(np.random, kind)())
    rng.bit_generator.state = state
    return rng


def global_rng_states() -> dict:
    """torch's, numpy's global and Python's random generators, as tensors and plain values."""
    numpy_state = np.random.get_state(legacy=False)
    numpy_state["state"]["key"] = torch.from_numpy(numpy_state["state"]["key"].astype(np.int64))
    version, internal, gauss_next = random.getstate()
    return {
        "torch": torch.get_rng_state(),
        "numpy": numpy_state,
        "python": {"version": version, "internal": list(internal), "gauss_next": gauss_next},
    }


def restore_global_rngs(states: dict) -> None:
    """Put torch's, numpy's and Python's generators back where ``global_rng_states`` saw them."""
    torch.set_rng_state(states["torch"])
    numpy_state = dict(states["numpy"])
    numpy_state["state"] = dict(numpy_state["state"], key=numpy_state["state"]["key"].numpy().astype(np.uint32))
    np.random.set_state(numpy_state)
    python = states["python"]
    random.setstate((python["version"], tuple(python["internal"]), python["gauss_next"]))


# ---------------------------------------------------------------- the games in progress


def encode_state(state: State) -> dict:
    """The batched games as tensors by array name, plus rules, player counts and events."""
    return {
        "arrays": {name: torch.from_numpy(np.array(array)) for name, array in state.arrays().items()},
        "rules": state.rules.as_dict(),
        "num_players": torch.from_numpy(np.array(state.num_players)),
        "events": state.events,
    }


def decode_state(saved: dict) -> State:
    """The games of ``encode_state``: fresh games of the same rules, every array copied back by name.

    ValueError naming the arrays that differ (a checkpoint of another version of the engine)."""
    num_players = saved["num_players"].numpy()
    fresh = engine.new_games(
        num_players,
        Rules.from_kwargs(**saved["rules"]),
        seeds=[0] * len(num_players),
        record_events=saved["events"] is not None,
    )
    target, arrays = fresh.arrays(), dict(saved["arrays"])
    if "frontier_need" not in arrays and {"need", "frontier"} <= set(arrays):  # saved before it was kept: derived
        need, frontier = arrays["need"].numpy(), arrays["frontier"].numpy().astype(np.intp)
        known = np.take_along_axis(need, np.maximum(frontier, 0), axis=1)
        arrays["frontier_need"] = torch.from_numpy(np.where(frontier >= 0, known, 0).astype(np.uint16))
    if set(target) != set(arrays):
        missing, extra = sorted(set(target) - set(arrays)), sorted(set(arrays) - set(target))
        raise ValueError(f"the saved games lack arrays {missing} and have unknown arrays {extra}")
    for name, array in target.items():
        value = arrays[name].numpy()
        if value.shape != array.shape or value.dtype != array.dtype:
            raise ValueError(
                f"the saved games' {name} is {value.dtype} {value.shape}, this engine's is {array.dtype} {array.shape}"
            )
        array[...] = value
    if saved["events"] is not None:
        fresh.events = [list(events) for events in saved["events"]]
    return fresh


def encode_object(obj: Any, rebuilt: tuple[str, ...]) -> dict:
    """Every attribute of ``obj`` but ``rebuilt``, by type: arrays, generators, State, plain values."""
    out = {}
    for name, value in vars(obj).items():
        if name in rebuilt:
            continue
        if isinstance(value, State):
            out[name] = {"state": encode_state(value)}
        elif isinstance(value, np.random.Generator):
            out[name] = {"generator": generator_state(value)}
        elif isinstance(value, np.ndarray):
            out[name] = {"array": torch.from_numpy(np.array(value))}
        elif isinstance(value, np.generic):
            out[name] = {"value": value.item()}
        elif value is None or isinstance(value, (bool, int, float, str)):
            out[name] = {"value": value}
        else:
            raise TypeError(f"cannot checkpoint {type(obj).__name__}.{name} ({type(value).__name__})")
    return out


def restore_object(obj: Any, saved: dict) -> None:
    """Set the attributes ``encode_object`` saved (data attributes only: never a method's name)."""
    for name, entry in saved.items():
        if not name.isidentifier() or hasattr(type(obj), name):
            raise ValueError(f"{type(obj).__name__} has no data attribute {name!r}")
        if "state" in entry:
            value = decode_state(entry["state"])
        elif "generator" in entry:
            value = generator_from(entry["generator"])
        elif "array" in entry:
            value = entry["array"].numpy()
        else:
            value = entry["value"]
        setattr(obj, name, value)


# ---------------------------------------------------------------- logs


def open_run_dir(
    run_dir: Path,
    resume: bool,
    checkpoints: Callable[[Path], list[Path]],
    read: Callable[[Path], dict],
    folders: Sequence[str] = ("checkpoints",),
) -> dict | None:
    """Check ``run_dir`` for a fresh start or a resume, then create its ``folders``; on ``resume``
    the payload of its newest checkpoint (``checkpoints(run_dir)``'s last), as ``read`` returns it
    (``read`` checks it against the config). Nothing is created before the checks pass."""
    payload = None
    if resume:
        saved = checkpoints(run_dir)
        if not saved:
            raise CheckpointError(f"nothing to resume: no checkpoint in {run_dir / 'checkpoints'}")
        payload = read(saved[-1])
    elif checkpoints(run_dir) or (run_dir / "final_model.zip").exists():
        raise ValueError(f"{run_dir} already holds a run: pass --resume to continue it, or choose another run.name")
    for sub in folders:
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    return payload


def eval_log_size(run_dir: Path) -> int:
    """Bytes in the run's eval.jsonl (what a checkpoint records)."""
    path = run_dir / EVAL_LOG
    return path.stat().st_size if path.exists() else 0


def rewind_logs(run_dir: Path, step: int | None, eval_bytes: int = 0) -> None:
    """Cut the run's logs back to a checkpoint (module docstring): eval.jsonl to ``eval_bytes``,
    TensorBoard to the events up to ``step``. ``step=None``: a fresh start, every log emptied
    (leftovers of an attempt stopped before its first checkpoint)."""
    path = run_dir / EVAL_LOG
    if path.exists() and path.stat().st_size > eval_bytes:
        with path.open("r+b") as f:
            f.truncate(eval_bytes)
    for events in sorted((run_dir / "tensorboard").rglob("events.out.tfevents.*")):
        if step is None:
            events.unlink()
        elif events.parent.name != "imitation":  # the warm start: all before the first checkpoint
            _drop_events_after(events, step)


def _drop_events_after(path: Path, step: int) -> None:
    """Rewrite a TensorBoard event file without its events past ``step`` (a cut last record goes too)."""
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.summary.writer.record_writer import RecordWriter

    records = list(RawEventFileLoader(str(path)).Load())
    kept = [record for record in records if Event.FromString(record).step <= step]
    if len(kept) == len(records) and _whole(path, records):
        return
    buffer = io.BytesIO()
    writer = RecordWriter(buffer)
    for record in kept:
        writer.write(record)
    atomic_write_bytes(path, buffer.getvalue())


def _whole(path: Path, records: list[bytes]) -> bool:
    """True if the file is exactly these records (no cut record at its end)."""
    return path.stat().st_size == sum(len(r) + 16 for r in records)  # 8 length + 4 + 4 crc bytes each
