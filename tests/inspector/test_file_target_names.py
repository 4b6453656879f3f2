"""A `path/to/file.py:attr` TARGET is loaded under a name derived from the file, the same in every process:
what the file defines (node functions, classes in recorded values) is named the same in every recording,
so two identical runs diff as equivalent (they differed when the name was random per process)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.target import load_target, module_name_for

GRAPH = """
from graph_core import END, START, Graph


class Thing:
    def __repr__(self) -> str:
        return "Thing()"


def write(text: str) -> Thing:
    return Thing()


builder = Graph()
builder.add_lambda_node("write", write)
builder.add_edge(START, "write")
builder.add_edge("write", END)
graph = builder.compile()
"""


def _inspector(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": "random"}  # the old name came from hash(): random per process
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_file_is_named_after_its_stem(tmp_path: Path) -> None:
    path = tmp_path / "my_graph_for_naming.py"
    path.write_text(GRAPH)
    assert module_name_for(path) == "my_graph_for_naming"
    loaded = load_target(f"{path}:graph")
    assert sys.modules["my_graph_for_naming"].__file__ == str(path.resolve())
    assert loaded.topology() == load_target(f"{path}:graph").topology()  # loaded again: the same name
    assert module_name_for(path) == "my_graph_for_naming"


@pytest.mark.parametrize("stem", ["json", "my-agent", "class"])
def test_a_stem_python_could_not_import_gets_a_stable_prefixed_name(stem: str, tmp_path: Path) -> None:
    """A standard-library name, no identifier, a keyword: a stable prefix + the stem + a hash of the path."""
    path = tmp_path / f"{stem}.py"
    path.write_text(GRAPH)
    name = module_name_for(path)
    assert re.fullmatch(rf"_inspector_target_{re.escape(stem.replace('-', '_'))}_[0-9a-f]{{8}}", name)
    assert module_name_for(path) == name
    other = tmp_path / "elsewhere" / f"{stem}.py"
    other.parent.mkdir()
    other.write_text(GRAPH)
    assert module_name_for(other) != name


def test_a_stem_taken_by_another_file_in_this_process_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = types.ModuleType("taken_stem_for_naming")
    taken.__file__ = str(tmp_path / "somewhere_else.py")
    monkeypatch.setitem(sys.modules, "taken_stem_for_naming", taken)
    path = tmp_path / "taken_stem_for_naming.py"
    path.write_text(GRAPH)
    load_target(f"{path}:graph")
    assert sys.modules["taken_stem_for_naming"] is taken
    assert module_name_for(path).startswith("_inspector_target_taken_stem_for_naming_")


def test_two_recordings_of_a_graph_core_file_target_are_equivalent(tmp_path: Path) -> None:
    (tmp_path / "gc_thing.py").write_text(GRAPH)
    for name in ("a.jsonl", "b.jsonl"):
        done = _inspector("record", "gc_thing.py:graph", "--input", "hi", "-o", name, "-q", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert '"$type":"gc_thing.Thing"' in (tmp_path / "a.jsonl").read_text()
    assert main(["diff", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 0


def test_the_topology_of_a_graph_core_file_target_is_the_same_bytes_each_call(tmp_path: Path) -> None:
    (tmp_path / "gc_thing.py").write_text(GRAPH)
    first, second = (
        _inspector("topology", "gc_thing.py:graph", "-f", "json", cwd=tmp_path) for _ in range(2)
    )
    assert first.returncode == 0 and first.stdout == second.stdout


def test_a_file_named_like_an_installed_package_does_not_stand_in_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`import stem` would find another module (here a package on the path, not imported yet): the file
    gets the prefixed name, so the package is still what `import` gives everyone else."""
    installed = tmp_path / "site" / "shadowed_pkg_for_naming"
    installed.mkdir(parents=True)
    (installed / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    path = tmp_path / "work" / "shadowed_pkg_for_naming.py"
    path.parent.mkdir()
    path.write_text(GRAPH)
    assert module_name_for(path).startswith("_inspector_target_shadowed_pkg_for_naming_")
    load_target(f"{path}:graph")
    assert "shadowed_pkg_for_naming" not in sys.modules


def test_a_file_shadowing_an_installed_package_keeps_its_name_when_loaded_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`agents.py` next to the graph while a package `agents` is installed (not imported yet): the
    file gets the prefixed name. Loading it put its folder first on `sys.path`, where `import agents`
    then finds the file itself; loaded again it must keep its name, not take `agents` (which then
    stood in for the package for the rest of the process)."""
    site = tmp_path / "site"
    (site / "shadowed_for_naming").mkdir(parents=True)
    (site / "shadowed_for_naming" / "__init__.py").write_text("PACKAGE = True\n")
    monkeypatch.syspath_prepend(str(site))
    path = tmp_path / "project" / "shadowed_for_naming.py"
    path.parent.mkdir()
    path.write_text(GRAPH)
    first = load_target(f"{path}:graph")
    name = module_name_for(path)
    assert name.startswith("_inspector_target_shadowed_for_naming_")
    second = load_target(f"{path}:graph")
    assert module_name_for(path) == name
    assert "shadowed_for_naming" not in sys.modules
    assert first.topology() == second.topology()
