"""The game's shell is a downward stack too: ``game`` imports ``record`` (records are data) and ``render``
(to draw itself), and neither imports ``game`` back, not even to name its type (``render.GameView`` names
what the drawing reads). Imports inside functions and under ``TYPE_CHECKING`` count here."""

from __future__ import annotations

import ast
from pathlib import Path

import hg_env

PACKAGE = Path(hg_env.__file__).parent
SHELL = ("game", "record", "render", "replay", "play", "presentation", "aec")


def top_level_imports(path: Path) -> set[str]:
    """The top-level hg_env modules a file imports anywhere (``from hg_env import render`` included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "hg_env":
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hg_env."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("hg_env."))
    return found


def test_game_record_and_render_import_no_circle() -> None:
    graph = {name: top_level_imports(PACKAGE / f"{name}.py") & set(SHELL) - {name} for name in SHELL}
    assert "record" in graph["game"] and "render" in graph["game"]  # the files were read
    assert "game" not in graph["record"] and "game" not in graph["render"]

    def reaches(start: str, goal: str, seen: frozenset = frozenset()) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in graph[start])

    assert [name for name in SHELL if reaches(name, name)] == []
