"""The README as a researcher meets it: every Python block runs, every repository path that the
README or a docstring cites exists, and every published number has its figure marker (hg_env.figures).

Blocks run as written when that takes under a minute. Longer ones run in the default suite at the
small budget of ``SMALL_BUDGETS`` (the same calls, fewer steps and games) and as written under
``pytest -m slow``.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hg_env import figures

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _python_blocks(text: str) -> list[tuple[str, str]]:
    """(label, code) of every ```python block; the label is the section heading above it and the
    block's number in that section: "### One learner: Gymnasium and MaskablePPO [1]"."""
    blocks, heading, number = [], "", 0
    for part in re.split(r"(```python\n.*?```)", text, flags=re.S):
        if part.startswith("```python\n"):
            number += 1
            blocks.append((f"{heading} [{number}]", part.removeprefix("```python\n").removesuffix("```")))
        else:
            headings = re.findall(r"^#+ .*$", part, flags=re.M)
            if headings:
                heading, number = headings[-1], 0
    return blocks


BLOCKS = _python_blocks(README)

# Blocks whose real budget takes over ten seconds: (text in the block, its replacement) for the default suite;
# the slow suite runs them as written.
SMALL_BUDGETS = {
    "### One learner: Gymnasium and MaskablePPO [1]": [  # minutes as written (its figure, sb3-example, says)
        ("n_steps=512, batch_size=128", "n_steps=32, batch_size=32, n_epochs=1"),
        ("model.learn(4_096)", "model.learn(64)"),
        ("games=200", "games=2"),
    ],
    "## Ladder [1]": [("games=20", "games=4")],  # about 12 s as written
}


def _run(heading: str, code: str) -> None:
    if "sb3_contrib" in code:
        torch = pytest.importorskip("torch")
        pytest.importorskip("sb3_contrib")
        # One torch thread: on a shared 2-core machine torch's threads spin against the other processes
        # (a 10x slower forward pass); the block's result does not depend on it.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            exec(compile(code, f"README.md block under {heading!r}", "exec"), {})
        finally:
            torch.set_num_threads(threads)
        return
    exec(compile(code, f"README.md block under {heading!r}", "exec"), {})


def _small(heading: str, code: str) -> str:
    for text, replacement in SMALL_BUDGETS[heading]:
        assert text in code, f"README block under {heading!r} no longer has {text!r}: update SMALL_BUDGETS"
        code = code.replace(text, replacement)
    return code


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=[f"{i}: {h}" for i, (h, _) in enumerate(BLOCKS)])
def test_readme_example_runs(index: int, capsys) -> None:
    heading, code = BLOCKS[index]
    _run(heading, _small(heading, code) if heading in SMALL_BUDGETS else code)


@pytest.mark.slow
@pytest.mark.parametrize("heading", sorted(SMALL_BUDGETS))
def test_readme_example_runs_at_its_real_budget(heading: str, capsys) -> None:
    (code,) = [code for h, code in BLOCKS if h == heading]
    _run(heading, code)


def test_small_budgets_name_blocks_of_the_readme() -> None:
    assert set(SMALL_BUDGETS) <= {heading for heading, _ in BLOCKS}


# ---------------------------------------------------------------- cited paths

ENV_ID = re.compile(r"^hg_env/\w+-v\d+$")  # registry ids (hg_env/HuntersGatherers-v0), not paths


def _repository_files(root: Path) -> set[str]:
    """The files of the repository at ``root``, as posix paths relative to it: the tracked files
    (``git ls-files``) that are on disk, so what ``make run`` writes into the git-ignored runs/ and
    results/ never counts. Without git (an unpacked archive, or git refusing the checkout), the
    files on disk minus the names .gitignore lists and hidden folders."""
    if (root / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, timeout=60)
        if listed.returncode == 0:  # else (a checkout git refuses to read: another owner) as without git
            return {path for path in listed.stdout.decode().split("\0") if path and (root / path).is_file()}
    ignore_file = root / ".gitignore"
    ignored = ignore_file.read_text(encoding="utf-8").splitlines() if ignore_file.exists() else []
    patterns = [line.strip().strip("/") for line in ignored if line.strip() and not line.startswith(("#", "!"))]

    def skipped(name: str) -> bool:
        return name.startswith(".") or any(fnmatch.fnmatch(name, pattern) for pattern in patterns)

    files = set()
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if not skipped(name)]  # prune: never walks .venv
        for name in names:
            if not skipped(name) or name == ".gitignore":
                files.add((Path(folder) / name).relative_to(root).as_posix())
    return files


def _docstrings(root: Path, files: set[str]) -> dict[str, str]:
    """Every module, class and function docstring of the installed packages' sources (``files``)."""
    out = {}
    for path in sorted(files):
        if path.endswith(".py") and path.split("/")[0] in ("hg_env", "agents", "train"):
            tree = ast.parse((root / path).read_text(encoding="utf-8"))
            nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef)]
            out[path] = "\n".join(filter(None, map(ast.get_docstring, nodes)))
    return out


def _cited_paths(root: Path, files: set[str]) -> dict[str, set[str]]:
    """Paths under a top folder of the repository cited by its README.md or a docstring -> where."""
    top = sorted({path.split("/")[0] for path in files if "/" in path and not path.startswith(".")})
    pattern = re.compile(r"(?<![\w/.:-])((?:" + "|".join(map(re.escape, top)) + r")/[\w./*<>-]*)")
    readme = (root / "README.md").read_text(encoding="utf-8")
    cited: dict[str, set[str]] = {}
    for source, text in {"README.md": readme, **_docstrings(root, files)}.items():
        for path in pattern.findall(text):
            path = path.rstrip(".,:;)")
            if not ENV_ID.match(path):
                cited.setdefault(path, set()).add(source)
    return cited


def _exists(path: str, files: set[str]) -> bool:
    """Whether a cited path is a file or folder of the repository (``files``)."""
    if "<" in path:  # a placeholder (hg_env/data/<file>): its folder
        path = path.split("<")[0]
    if "*" in path:
        return any(fnmatch.fnmatch(file, path) for file in files)
    if path.startswith("configs/") and f"{path}.toml" in files:  # a config by name (configs/quick)
        return True
    folder = path.rstrip("/") + "/"
    return path in files or any(file.startswith(folder) for file in files)


def _missing_paths(root: Path) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """(every cited path -> where, the cited paths not in the repository -> where)."""
    files = _repository_files(root)
    cited = _cited_paths(root, files)
    return cited, {path: sorted(sources) for path, sources in cited.items() if not _exists(path, files)}


def test_every_repository_path_cited_exists() -> None:
    cited, missing = _missing_paths(ROOT)
    assert {"train/config.py", "docs/rules/hg2002.md", "configs/quick.toml"} <= set(cited)  # the check sees them
    assert not missing, f"cited but not in the repository: {missing}"


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
def test_cited_paths_ignore_what_make_run_writes(tmp_path: Path, with_git: bool) -> None:
    """After ``make run`` the git-ignored runs/ and results/ exist, holding other runs than the README
    cites (runs/default/...): the check judges the repository's own files, with or without git."""
    if with_git and not shutil.which("git"):
        pytest.skip("git is not installed")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("a guide\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text(".venv/\nruns/\n/results/\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "See docs/guide.md; train into runs/default/final_model.zip; tables in results/t1/games.jsonl;"
        " docs/gone.md is cited but missing.\n",
        encoding="utf-8",
    )
    if with_git:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        subprocess.run(["git", "add", "README.md", ".gitignore", "docs"], cwd=tmp_path, check=True)
    for made in ("runs/quick/final_model.zip", "results/quickstart/summary.md", ".venv/bin/python"):  # make run's
        (tmp_path / made).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / made).write_text("", encoding="utf-8")
    cited, missing = _missing_paths(tmp_path)
    assert set(cited) == {"docs/guide.md", "docs/gone.md"}
    assert missing == {"docs/gone.md": ["README.md"]}


def test_every_published_figure_has_its_marker() -> None:
    """Each figure's markers appear once in README.md, none is unknown, and the machine line is there."""
    assert figures.check_markers(README) == []
