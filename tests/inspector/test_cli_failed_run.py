"""A run that fails in a node: `record` exits 1, `show` names the error and the node path on their own
lines, and the diagnostics say where it failed instead of "none"."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core import END, START, Graph
from inspector.cli import main
from inspector.diagnostics import diagnose
from inspector.recording import read_run


def _refuse(text: str) -> str:
    raise ConnectionError(f"POST http://127.0.0.1:9/v1/chat/completions failed: refused ({text})")


def graph() -> Graph:
    g = Graph()
    g.add_lambda_node("chat", _refuse)
    g.add_edge(START, "chat")
    g.add_edge("chat", END)
    return g


@pytest.fixture
def failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "failed.jsonl"
    assert main(["record", f"{__name__}:graph", "--input", "hi", "-o", str(out), "-q"]) == 1
    assert "the run failed" in capsys.readouterr().err
    return out


def test_a_failed_run_has_a_diagnostic_naming_node_and_error(failed: Path) -> None:
    found = diagnose(read_run(failed))
    assert [(d.severity, d.code, d.step, d.nodes) for d in found] == [("error", "run-failed", 0, ("chat",))]
    assert found[0].message == (
        "the run failed in node chat: ConnectionError: POST http://127.0.0.1:9/v1/chat/completions "
        "failed: refused (hi)"
    )


def test_show_prints_error_and_node_path_on_separate_lines(
    failed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(failed)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "error: NodeRunError: POST http://127.0.0.1:9/v1/chat/completions failed: refused (hi)" in lines
    assert "  caused by ConnectionError" in lines
    assert "node path: chat" in lines
    assert not any("------" in line for line in lines)
    assert "diagnostics: none" not in lines
    assert "  error: [run-failed] (step 0) the run failed in node chat: ConnectionError: " in "\n".join(lines)


def test_a_budget_failure_is_not_reported_twice(tmp_path: Path) -> None:
    out = tmp_path / "runaway.jsonl"
    assert main(["record", "fixtures.runaway:agent", "--input", "go", "-o", str(out), "-q"]) == 1
    assert [d.code for d in diagnose(read_run(out))] == ["budget-exhausted"]


def test_progress_lines_count_in_the_singular_for_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "weather.jsonl"
    assert main(["record", "fixtures.weather:agent", "--input", "Weather?", "-o", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "step 0: chat  (steps 1/13, 1 model call, 0 tool calls, 130 tokens)"
    assert err[1] == "step 1: tools  (steps 2/13, 1 model call, 1 tool call, 130 tokens)"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.metadata

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"inspector {importlib.metadata.version('graph-inspector')}\n"
