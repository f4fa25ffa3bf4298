"""Seeded fuzzing of training configs: hundreds of malformed files (wrong types, non-finite numbers,
out-of-range values, unknown keys and tables, bad names) each stop ``hgenv train`` with one line
naming the key, exit status 2, and nothing created on disk."""

from __future__ import annotations

import dataclasses
import random
import tomllib
from pathlib import Path

import pytest
import tomli_w

from hg_env.cli import main as cli_main
from hg_env.train.config import TrainConfig

TINY = Path(__file__).resolve().parents[1] / "configs" / "tiny.toml"
CASES = 300
BAD_NAMES = ["", ".", "..", "a/b", "../up", "/abs", "a\\b", "a\0b", "x" * 300]
WRONG_TYPES = ["text", [1, 2], {"a": 1}, True, 1.5, 7]


def fields() -> list[tuple[str, dataclasses.Field, object]]:
    """(table, field, default) of every key of the config."""
    config = TrainConfig()
    return [
        (section.name, f, getattr(getattr(config, section.name), f.name))
        for section in dataclasses.fields(TrainConfig)
        for f in dataclasses.fields(getattr(config, section.name))
    ]


def malformed(rng: random.Random) -> tuple[dict, str]:
    """A copy of configs/tiny.toml with one defect, and the key its error must name."""
    raw = tomllib.loads(TINY.read_text())
    table, f, default = rng.choice(fields())
    where = f"{table}.{f.name}"
    bounds = f.metadata.get("range")
    kind = rng.choice(["type", "range", "nonfinite", "unknown_key", "unknown_table", "string"])
    if kind == "unknown_key":
        raw.setdefault(table, {})[f"{f.name}_typo"] = 1
        return raw, f"'{table}.{f.name}_typo'"
    if kind == "unknown_table":
        raw[f"{table}s"] = {}
        return raw, f"'{table}s'"
    if kind == "string" or f.name in ("name", "out_dir", "rules", "opponents", "reward"):
        return _bad_string(raw, rng)
    if kind == "nonfinite" and isinstance(default, float):
        value = rng.choice([float("inf"), float("-inf"), float("nan")])
    elif kind in ("range", "nonfinite") and bounds is not None:
        value = _out_of(bounds, rng)
    else:  # a value of another type (an int is fine where a float is meant)
        wrong = [v for v in WRONG_TYPES if type(v) is not type(default)]
        if isinstance(default, float):
            wrong = [v for v in wrong if isinstance(v, bool) or not isinstance(v, int)]
        value = rng.choice(wrong)
    raw.setdefault(table, {})[f.name] = value
    return raw, where


def _out_of(bounds, rng: random.Random) -> float:
    if isinstance(bounds.low, int) and isinstance(bounds.high, int):
        return rng.choice([bounds.low - 1, bounds.high + 1, -(10**18), 10**18])
    low = bounds.low if bounds.low_open else bounds.low - rng.choice([1e-9, 0.5, 1e9])
    high = bounds.high if bounds.high_open else bounds.high * 2 + 1
    return rng.choice([low, high])


def _bad_string(raw: dict, rng: random.Random) -> tuple[dict, str]:
    choice = rng.randrange(6)
    if choice == 0:
        raw["run"]["name"] = rng.choice(BAD_NAMES)
        return raw, "run.name"
    if choice == 1:
        raw["run"]["out_dir"] = rng.choice(["", "runs\0x"])
        return raw, "run.out_dir"
    if choice == 2:
        raw["env"]["reward"] = rng.choice(["points", "", "WIN"])
        return raw, "env.reward"
    if choice == 3:
        raw["eval"]["opponents"] = rng.choice([["nobody"], ["random", 3], "greedy", ["mcts:sims=x"]])
        return raw, "eval.opponents"
    if choice == 4:
        raw["env"]["rules"] = rng.choice([{"board_rech": 8}, {"board_reach": 0}, {"board_reach": "12"}, 5])
        return raw, "env.rules"
    raw["env"]["rules"] = {"board_reach": rng.choice([95, 10**6])}
    return raw, "env.rules.board_reach"


def test_malformed_configs_are_refused_naming_the_key_and_create_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "fuzz.toml"
    rng = random.Random(0)
    for case in range(CASES):
        raw, key = malformed(rng)
        path.write_text(tomli_w.dumps(raw), encoding="utf-8")
        with pytest.raises(SystemExit) as exit_:
            cli_main(["train", "--config", str(path), "--no-progress"])
        err = capsys.readouterr().err
        assert exit_.value.code == 2, (case, raw)
        assert err.count("\n") == 1 and err.startswith(f"hgenv train: {path}: "), (case, err)
        assert key in err, (case, key, err)
        assert [p.name for p in tmp_path.iterdir()] == ["fuzz.toml"], (case, err)
