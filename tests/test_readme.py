"""The README as a researcher meets it: every Python block runs, every repository path that the
README or a docstring cites exists, and every published number has its figure marker (hg_env.figures).

Blocks run as written when that takes under a minute. Longer ones run in the default suite at the
small budget of ``SMALL_BUDGETS`` (the same calls, fewer steps and games) and as written under
``pytest -m slow``.
"""

from __future__ import annotations

import ast
import re
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

# Blocks whose real budget takes over a minute: (text in the block, its replacement) for the default suite.
SMALL_BUDGETS = {
    "### One learner: Gymnasium and MaskablePPO [1]": [  # minutes as written (its figure, sb3-example, says)
        ("n_steps=512, batch_size=128", "n_steps=32, batch_size=32, n_epochs=1"),
        ("model.learn(4_096)", "model.learn(64)"),
        ("games=200", "games=2"),
    ],
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

TOP = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".") and "egg-info" not in p.name)
PATH = re.compile(r"(?<![\w/.:-])((?:" + "|".join(map(re.escape, TOP)) + r")/[\w./*<>-]*)")
ENV_ID = re.compile(r"^hg_env/\w+-v\d+$")  # registry ids (hg_env/HuntersGatherers-v0), not paths


def _docstrings() -> dict[str, str]:
    """Every module, class and function docstring of the installed packages' sources."""
    out = {}
    for folder in ("hg_env", "agents", "train"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef)]
            out[str(path.relative_to(ROOT))] = "\n".join(filter(None, map(ast.get_docstring, nodes)))
    return out


def _cited_paths() -> dict[str, set[str]]:
    cited: dict[str, set[str]] = {}
    for source, text in {"README.md": README, **_docstrings()}.items():
        for path in PATH.findall(text):
            path = path.rstrip(".,:;)")
            if not ENV_ID.match(path):
                cited.setdefault(path, set()).add(source)
    return cited


def _exists(path: str) -> bool:
    if "<" in path:  # a placeholder (hg_env/data/<file>): its folder
        return (ROOT / path.split("<")[0]).is_dir()
    if "*" in path:
        return any(ROOT.glob(path))
    if path.startswith("configs/") and (ROOT / f"{path}.toml").exists():  # a config by name (configs/quick)
        return True
    return (ROOT / path).exists()


def test_every_repository_path_cited_exists() -> None:
    cited = _cited_paths()
    assert {"train/config.py", "docs/rules/hg2002.md", "configs/quick.toml"} <= set(cited)  # the check sees them
    missing = {path: sorted(sources) for path, sources in cited.items() if not _exists(path)}
    assert not missing, f"cited but not in the repository: {missing}"


def test_every_published_figure_has_its_marker() -> None:
    """Each figure's markers appear once in README.md, none is unknown, and the machine line is there."""
    assert figures.check_markers(README) == []
