"""graph_core's imports run one way: no module imports one that (directly or not) imports it back.

Every import counts, as a reader follows them: module level, inside functions, under `TYPE_CHECKING`.
A package's `__init__` importing its own submodules is not a cycle. Built with `ast`, nothing imported.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import graph_core

ROOT = Path(graph_core.__file__).parent


def _module(path: Path) -> str:
    parts = ["graph_core", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module(p): p for p in ROOT.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        own = path.name == "__init__.py"
        edges[name] = {
            t
            for t in _imports(path, name)
            if t in files and t != name and not (own and t.startswith(name + "."))
        }
    return edges


def test_no_runner_module_imports_the_builder() -> None:
    edges = _graph()
    back = sorted(
        name
        for name, targets in edges.items()
        if name.startswith("graph_core.runner") and "graph_core.graph" in targets
    )
    assert back == []


def test_graph_core_has_no_import_cycle() -> None:
    try:
        tuple(TopologicalSorter(_graph()).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle: {' -> '.join(error.args[1])}") from None
