"""The shared engine is a downward stack: no module of ``hg_env.core`` imports one that imports it back.

An import inside a function counts (it is the same dependency, only later); an import under
``if TYPE_CHECKING:`` does not (it names a type and never runs).
"""

from __future__ import annotations

import ast
from pathlib import Path

import hg_env

PACKAGE = Path(hg_env.__file__).parent


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_modules(path: Path, prefix: str) -> set[str]:
    """The modules under ``prefix`` that the file at ``path`` imports anywhere, outside TYPE_CHECKING blocks."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(prefix):
            found.add(node.module)
            for alias in node.names:  # ``from hg_env.core import engine``
                if f"{node.module}.{alias.name}".count(".") == prefix.count(".") + 1:
                    found.add(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith(prefix))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def import_graph(folder: Path, prefix: str) -> dict[str, set[str]]:
    """{module: the sibling modules it imports} for the modules of one folder."""
    modules = {f"{prefix}.{p.stem}": p for p in sorted(folder.glob("*.py")) if p.stem != "__init__"}
    return {name: imported_modules(path, prefix + ".") & set(modules) - {name} for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of the graph as a list of modules (first == last), or [] when there is none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := walk(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (cycle := walk(node)):
            return cycle
    return []


def test_find_cycle_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_core_has_no_import_circle():
    graph = import_graph(PACKAGE / "core", "hg_env.core")
    assert "hg_env.core.engine" in graph and graph["hg_env.core.state"]  # the files were read
    assert find_cycle(graph) == []
