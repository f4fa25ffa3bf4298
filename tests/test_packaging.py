"""Packaging: agents/ and train/ install inside the hg_env namespace, never as top-level packages."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True)


def test_no_generic_top_level_packages(tmp_path: Path) -> None:
    """Outside the repository, `agents` and `train` are not importable; hg_env.agents / hg_env.train are."""
    done = _run(
        """
        import importlib.util
        assert importlib.util.find_spec("agents") is None, "top-level package 'agents' is installed"
        assert importlib.util.find_spec("train") is None, "top-level package 'train' is installed"
        import hg_env.agents, hg_env.train.config
        print("ok")
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_a_users_own_train_py_does_not_shadow_ours(tmp_path: Path) -> None:
    """A researcher's train.py and agents.py next to their script do not break our imports."""
    (tmp_path / "train.py").write_text("RAISE = 1 / 0  # a user's own training script\n")
    (tmp_path / "agents.py").write_text("MINE = True\n")
    done = _run(
        """
        from hg_env.agents import make_agent
        from hg_env.train.config import TrainConfig
        import agents
        assert agents.MINE
        print(make_agent("random").name, TrainConfig().run.name)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["random", "run"]


def test_every_package_of_the_repository_is_installed() -> None:
    """pyproject's explicit package list names every package folder (a wheel would miss the others)."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    mapped = {"agents": "hg_env.agents", "train": "hg_env.train"}
    found = set()
    for init in root.glob("**/__init__.py"):
        parts = init.parent.relative_to(root).parts
        if parts and parts[0] in ("hg_env", *mapped) and ".venv" not in parts:
            name = ".".join(parts)
            found.add(mapped.get(parts[0], parts[0]) + name[len(parts[0]) :])
    assert found == listed


def test_the_wheel_ships_py_typed_and_the_tile_data(tmp_path: Path) -> None:
    """PEP 561: hg_env (and hg_env.agents / hg_env.train inside it) declares its type hints; a wheel built
    from a copy of the sources holds py.typed and the tile catalogues."""
    import shutil
    import zipfile

    pytest.importorskip("setuptools", minversion="77")  # the build backend (license = "MIT" needs PEP 639)
    root = Path(__file__).resolve().parent.parent
    assert (root / "hg_env" / "py.typed").exists()
    source = tmp_path / "src"
    skip = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "runs", "results", "__pycache__")
    shutil.copytree(root, source, ignore=skip)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q", "-w", tmp_path],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("hg_env-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "hg_env/py.typed" in names
    assert {f"hg_env/data/{r}_tiles.json" for r in ("hg2020", "hg2002", "carcassonne")} <= names
    assert {"hg_env/agents/base.py", "hg_env/arena/evaluate.py", "hg_env/tables.py"} <= names


def test_the_version_is_the_installed_distributions() -> None:
    import importlib.metadata

    import hg_env

    assert hg_env.__version__ == importlib.metadata.version("hg-env")


def test_played_games_are_not_committed() -> None:
    """`hgenv play` saves its records under games/ in the working directory."""
    root = Path(__file__).resolve().parent.parent
    assert "games/" in (root / ".gitignore").read_text().split()
