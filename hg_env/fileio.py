"""Files that survive a kill: atomic writes, and JSON Lines whose last line a kill may have cut.

``atomic_write_bytes`` / ``atomic_write_text`` write a temporary file next to
the target, flush and fsync it, ``os.replace`` it over the target and fsync the
folder: after a crash the target holds either its old or its new contents,
never a mix (a ``*.tmp`` file may be left behind; it is never read).

``read_jsonl`` reads a file written one JSON line at a time (a tournament's
``games.jsonl``): a last line cut short by a kill is left out and reported; a
damaged line anywhere else is an error naming the file and line.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (module docstring)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically (module docstring)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows cannot open a folder, and needs no such step)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on folders; the rename is still atomic
    finally:
        os.close(fd)


def read_jsonl(path: str | Path) -> tuple[list[Any], bool]:
    """The values of a JSON Lines file, and whether its last line was cut short (then left out).

    A missing file holds nothing. ValueError naming the file and line for a damaged
    line that is not the last, or a file that is not UTF-8."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], False
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text ({err.reason} at byte {err.start}); the file is damaged") from None
    values, cut = [], False
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError:
            if k == len(lines) - 1:  # no newline after it: the writer was stopped in the middle of it
                cut = True
                break
            raise ValueError(f"{path}: line {k + 1} is not valid JSON; the file is damaged") from None
    return values, cut
