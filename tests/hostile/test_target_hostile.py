"""Hostile TARGETs and inputs on the command line: one paragraph on stderr and status 2, never a traceback.

Cases from the bad-input campaign (issue 19): attribute lookups that raise something other than
`AttributeError`, a module raising `KeyboardInterrupt` while it is imported, and `--input-json` nested
deeper than Python's parser recursion limit.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.errors import InspectorError

GRAPH = """
from graph_core import END, START, Graph

def _graph():
    graph = Graph()
    graph.add_lambda_node("echo", lambda x: x)
    graph.add_edge(START, "echo")
    graph.add_edge("echo", END)
    return graph.compile()
"""


def _error(capsys: Any) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return " ".join(captured.err.split())


def _target(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "hostile_target.py"
    path.write_text(GRAPH + source)
    return path


def test_a_module_getattr_that_raises_is_one_paragraph(tmp_path: Path, capsys: Any) -> None:
    path = _target(tmp_path, "\ndef __getattr__(name):\n    raise RuntimeError(f'no lazy {name} today')\n")
    assert main(["topology", f"{path}:graph"]) == 2
    err = _error(capsys)
    assert err.startswith("inspector: error: TARGET")
    assert "looking up `graph` failed with RuntimeError: no lazy graph today" in " ".join(err.split())


def test_a_compiled_property_that_raises_is_one_paragraph(tmp_path: Path, capsys: Any) -> None:
    source = """
class Agent:
    def invoke(self, x):
        return x

    @property
    def compiled(self):
        raise RuntimeError("model server unreachable")

agent = Agent()
"""
    path = _target(tmp_path, source)
    assert main(["topology", f"{path}:agent"]) == 2
    err = _error(capsys)
    assert "failed with RuntimeError: model server unreachable" in err


def test_a_nested_attribute_whose_lookup_raises_is_one_paragraph(tmp_path: Path, capsys: Any) -> None:
    source = """
class Holder:
    @property
    def graph(self):
        raise LookupError("vault is sealed")

holder = Holder()
"""
    path = _target(tmp_path, source)
    assert main(["record", f"{path}:holder.graph", "--input-json", "1", "-o", str(tmp_path / "r.jsonl")]) == 2
    assert "failed with LookupError: vault is sealed" in _error(capsys)
    assert not (tmp_path / "r.jsonl").exists()


def test_a_module_raising_keyboard_interrupt_at_import_is_reported(tmp_path: Path, capsys: Any) -> None:
    path = _target(tmp_path, "\nraise KeyboardInterrupt\n")
    assert main(["topology", f"{path}:graph"]) == 2
    err = _error(capsys)
    assert f"running `{path}` failed with KeyboardInterrupt" in err


def test_a_package_module_raising_keyboard_interrupt_at_import_is_reported(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "interrupting_target.py").write_text("raise KeyboardInterrupt('stop')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "interrupting_target", raising=False)
    assert main(["topology", "interrupting_target:graph"]) == 2
    assert "importing `interrupting_target` failed with KeyboardInterrupt: stop" in _error(capsys)


def test_input_json_nested_60000_deep_is_one_paragraph(tmp_path: Path, capsys: Any) -> None:
    deep = "[" * 60_000 + "]" * 60_000
    out = tmp_path / "r.jsonl"
    assert main(["record", "fixtures.weather:agent", "--input-json", deep, "-o", str(out)]) == 2
    assert "--input-json is nested too deeply to read" in _error(capsys)
    assert not out.exists()


def test_resume_data_nested_60000_deep_is_a_user_error() -> None:
    from inspector.cli.record import parse_json  # the one parser of JSON options

    with pytest.raises(InspectorError, match="--resume-data is nested too deeply"):
        parse_json("{" + '"a":{' * 60_000 + "}" * 60_001, "--resume-data")


def test_input_json_nested_just_under_the_limit_is_recorded(tmp_path: Path, capsys: Any) -> None:
    path = _target(tmp_path, "\ngraph = _graph()\n")
    out = tmp_path / "r.jsonl"
    deep = "[" * 500 + "]" * 500
    assert main(["record", f"{path}:graph", "--input-json", deep, "-o", str(out), "-q"]) == 0
    assert main(["show", str(out)]) == 0
    assert "Traceback" not in capsys.readouterr().err
