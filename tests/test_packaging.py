"""Packaging: agents/ and train/ install inside the hg_env namespace, never as top-level packages; a wheel
and an editable install build without a warning (pyproject.toml says how the layout does it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
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


ROOT = Path(__file__).resolve().parent.parent
# What setuptools and pip print when something is wrong with a build: none of it may appear.
WARNINGS = re.compile(r"warning|deprecat|!!", re.IGNORECASE)


def _packages_on_disk() -> set[str]:
    """Every folder with an __init__.py under hg_env/, agents/ and train/, named as it installs."""
    found = set()
    for top, name in (("hg_env", "hg_env"), ("agents", "hg_env.agents"), ("train", "hg_env.train")):
        for init in (ROOT / top).glob("**/__init__.py"):  # ** does not follow the links hg_env/agents, /train
            found.add(".".join([name, *init.parent.relative_to(ROOT / top).parts]))
    return found


def test_the_layout_links_agents_and_train_into_the_package() -> None:
    """agents/ and train/ stay at the top; hg_env/agents, hg_env/train and src/hg_env are relative links
    (they survive a clone or a copy anywhere), and pyproject lists no package by hand."""
    import tomllib

    for link, target in (("hg_env/agents", "../agents"), ("hg_env/train", "../train"), ("src/hg_env", "../hg_env")):
        assert (ROOT / link).is_symlink() and os.readlink(ROOT / link) == target, link
    assert [p.name for p in (ROOT / "src").iterdir() if not p.name.endswith(".egg-info")] == ["hg_env"]
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "package-dir" not in setuptools and not isinstance(setuptools.get("packages"), list)
    assert setuptools["packages"]["find"] == {"where": ["src"], "include": ["hg_env", "hg_env.*"], "namespaces": False}


def _copy_of_the_sources(tmp_path: Path) -> Path:
    """The repository's sources, links kept as links (what a clone holds)."""
    source = tmp_path / "repo"
    skip = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "runs", "results", "__pycache__")
    shutil.copytree(ROOT, source, ignore=skip, symlinks=True)
    return source


def test_the_wheel_ships_every_package_py_typed_and_the_tile_data(tmp_path: Path) -> None:
    """PEP 561: hg_env (and hg_env.agents / hg_env.train inside it) declares its type hints; a wheel built
    from a copy of the sources, with no warning, holds every package (hg_env.arena and any new one included:
    setuptools finds them), py.typed and the tile catalogues, as real files."""
    pytest.importorskip("setuptools", minversion="77")  # the build backend (license = "MIT" needs PEP 639)
    assert (ROOT / "hg_env" / "py.typed").exists()
    source = _copy_of_the_sources(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-w", tmp_path],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert not WARNINGS.search(done.stdout + done.stderr), done.stdout + done.stderr
    (wheel,) = tmp_path.glob("hg_env-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "hg_env/py.typed" in names
    assert {f"hg_env/data/{r}_tiles.json" for r in ("hg2020", "hg2002", "carcassonne")} <= names
    assert {"hg_env/agents/base.py", "hg_env/arena/evaluate.py", "hg_env/tables.py", "hg_env/train/config.py"} <= names
    assert {f"hg_env/arena/models/ppo_{r}.zip" for r in ("hg2020", "hg2002", "carcassonne")} <= names  # ladder rungs
    assert "hg_env/arena/models/puct_hg2020.zip" in names  # puct's search network, the hg2020 ladder's top rung
    reference = {
        f"hg_env/arena/reference/{r}.{kind}"
        for r in ("hg2020", "hg2002", "carcassonne")
        for kind in ("jsonl", "options.json")
    }
    assert reference <= names  # the ladder's reference games and the agent options they pin
    packages = {name.rsplit("/", 1)[0].replace("/", ".") for name in names if name.endswith("/__init__.py")}
    assert packages == _packages_on_disk()
    assert {name.split("/")[0] for name in names} == {"hg_env", "hg_env-0.1.0.dist-info"}


def test_an_editable_install_warns_nothing_and_adds_only_src(tmp_path: Path) -> None:
    """``pip install -e .`` builds its wheel with setuptools' build_editable: no warning (a flat layout, or
    agents/ mapped in with package-dir, installs an import hook and warns "Editable installation"), and
    the install is one path entry, the copy's src/, where hg_env alone is importable."""
    pytest.importorskip("setuptools", minversion="77")
    source = _copy_of_the_sources(tmp_path)
    out = tmp_path / "wheel"
    out.mkdir()
    build = "import sys; from setuptools import build_meta; print(build_meta.build_editable(sys.argv[1]))"
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", build, str(out)], cwd=source, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    # pip prints the backend's Python warnings; its log lines ("Editable install will be performed using
    # .pth file ...", every editable install's) only with -v.
    assert not WARNINGS.search(done.stderr), done.stderr
    wheel = zipfile.ZipFile(out / done.stdout.split()[-1])
    (pth,) = [name for name in wheel.namelist() if name.endswith(".pth")]
    assert wheel.read(pth).decode().split() == [str(source / "src")]
    assert not [name for name in wheel.namelist() if name.endswith(".py")]  # no import hook module


def test_the_version_is_the_installed_distributions() -> None:
    import importlib.metadata

    import hg_env

    assert hg_env.__version__ == importlib.metadata.version("hg-env")


def test_played_games_are_not_committed() -> None:
    """`hgenv play` saves its records under games/ in the working directory."""
    root = Path(__file__).resolve().parent.parent
    assert "games/" in (root / ".gitignore").read_text().split()
