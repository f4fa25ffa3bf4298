"""Atomic writes: the target holds its old or its new contents, never a mix, and no temporary file
is left when a write fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hg_env.fileio import atomic_write_bytes, atomic_write_text, read_jsonl


def test_an_interrupted_atomic_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "config.toml"
    atomic_write_text(path, "old = 1\n")

    def killed(fd: int) -> None:
        raise KeyboardInterrupt  # as a Ctrl-C between writing the data and making it durable

    monkeypatch.setattr(os, "fsync", killed)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(path, b"new = 2\n")
    monkeypatch.undo()
    assert path.read_text() == "old = 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
    atomic_write_text(path, "new = 2\n")
    assert path.read_text() == "new = 2\n"


def test_jsonl_reader_leaves_out_a_cut_last_line_only(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    assert read_jsonl(path) == ([], False)
    path.write_text('{"a": 1}\n{"b": 2}\n')
    assert read_jsonl(path) == ([{"a": 1}, {"b": 2}], False)
    path.write_text('{"a": 1}\n{"b": ')
    assert read_jsonl(path) == ([{"a": 1}], True)
    path.write_text('{"a": \n{"b": 2}\n')
    with pytest.raises(ValueError, match=r"games\.jsonl: line 1 is not valid JSON"):
        read_jsonl(path)
