"""No import circles in `graph_core` or `inspector`: a module that imports a module importing it back
cannot be read, tested or replaced on its own.

The graph is built from the source with `ast`, counting every import a reader follows: at module level,
inside functions, under `if TYPE_CHECKING:`; relative imports resolved; `from pkg import name` counts
as importing `pkg` and, when `pkg.name` is a module, `pkg.name`. A package's `__init__` importing its own
submodules (to re-export them) is not counted: importing any submodule runs the `__init__` first, so
that edge would close a circle with every submodule that imports the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(tree: ast.AST, module: str, *, is_package: bool) -> set[str]:
    """Every dotted name `module`'s source imports, or may import (`from a import b`: `a` and `a.b`)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
    return found


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports."""
    root = package_dir.parent
    files = {module_name(p, root): p for p in sorted(package_dir.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        names = imports_of(ast.parse(path.read_text(encoding="utf-8")), module, is_package=is_package)
        graph[module] = {
            name
            for name in names
            if name in files and name != module and not (is_package and name.startswith(module + "."))
        }
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path that comes back to its first module) per strongly connected group of
    modules, found with Tarjan's algorithm; [] when the graph has none."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_cycle_in(group, graph) for group in groups]


def _cycle_in(group: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the group's first module back to it, inside the group (breadth first)."""
    members, start = set(group), group[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in previous:
                    previous[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # a strongly connected group always has one


@pytest.mark.parametrize("package", ["inspector", "graph_core"])
def test_no_import_circles(package: str) -> None:
    found = cycles(import_graph(ROOT / package))
    assert not found, "import circles: " + "; ".join(" -> ".join(cycle) for cycle in found)


def test_the_graph_counts_every_kind_of_import(tmp_path: Path) -> None:
    """Each kind of import the docstring names closes a circle the test finds, naming it."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg.a import A\n")  # re-export: not counted
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n"
    )
    (pkg / "b.py").write_text("def f():\n    from . import c\n")  # function level, relative, submodule
    (pkg / "c.py").write_text("from .sub import d\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "d.py").write_text("from ..a import A\n")  # two levels up
    (pkg / "e.py").write_text("import pkg\n")  # the package itself: no circle through the re-export
    graph = import_graph(pkg)
    assert graph["pkg"] == set()
    assert graph["pkg.e"] == {"pkg"}
    assert graph["pkg.b"] == {"pkg", "pkg.c"}
    assert graph["pkg.c"] == {"pkg.sub", "pkg.sub.d"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c", "pkg.sub.d", "pkg.a"]]
    (pkg / "sub" / "d.py").write_text("X = 1\n")
    assert cycles(import_graph(pkg)) == []
