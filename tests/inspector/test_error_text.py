"""Errors read `Type: message` without the engine's repeated `[GraphRunError]`/`[NodeRunError]` tag in show,
record's last line and the TUI, while the run file keeps the message as raised."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core import Graph
from inspector.cli import main
from inspector.cli.show import timeline
from inspector.errortext import error_text, untagged
from inspector.recording import Recorder, read_run
from inspector.tui.node_detail import render_stop
from inspector.tui.session import Session


def test_untagged_drops_only_a_leading_engine_tag() -> None:
    assert untagged("[GraphRunError] exceeds max steps") == "exceeds max steps"
    assert untagged("[NodeRunError] boom\nnode path: [a]") == "boom\nnode path: [a]"
    assert untagged("boom [GraphRunError] later") == "boom [GraphRunError] later"
    assert untagged("[GraphRunError]no space") == "[GraphRunError]no space"
    assert untagged("[OtherError] kept") == "[OtherError] kept"
    assert error_text("MaxStepsExceededError", "[GraphRunError] exceeds max steps") == (
        "MaxStepsExceededError: exceeds max steps"
    )


@pytest.fixture
def runaway(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """A run that exhausted its step budget, recorded through the CLI; its stderr."""
    out = tmp_path / "runaway.jsonl"
    assert main(["record", "fixtures.runaway:agent", "--input", "go", "-o", str(out)]) == 1
    return out, capsys.readouterr().err


def test_record_last_line_names_the_type_once(runaway: tuple[Path, str]) -> None:
    _, err = runaway
    last = err.strip().splitlines()[-1]
    assert last.endswith("; the run failed: MaxStepsExceededError: exceeds max steps")
    assert "[GraphRunError]" not in last


def test_show_and_tui_name_the_type_once_and_the_file_keeps_the_tag(
    runaway: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = runaway
    run = read_run(path)
    assert run.error is not None and run.error.message == "[GraphRunError] exceeds max steps"
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "error: MaxStepsExceededError: exceeds max steps\n" in out
    assert "[GraphRunError]" not in out
    assert main(["show", str(path), "--json"]) == 0
    assert "[GraphRunError] exceeds max steps" in capsys.readouterr().out  # data stays as recorded
    report = Session(run).stop_report()
    assert report is not None
    shown = render_stop(report).plain
    assert "MaxStepsExceededError: exceeds max steps" in shown and "[GraphRunError]" not in shown


def _failing_run(path: Path) -> Path:
    def bad(_: object) -> object:
        raise ValueError("boom")

    graph = Graph()
    graph.add_lambda_node("bad", bad)
    graph.add_edge("start", "bad")
    graph.add_edge("bad", "end")
    with pytest.raises(Exception, match=r"\[NodeRunError\] boom"):
        graph.compile().invoke("x", callbacks=[Recorder(path)])
    return path


def test_node_failure_reads_without_the_node_run_error_tag(tmp_path: Path) -> None:
    run = read_run(_failing_run(tmp_path / "fail.jsonl"))
    assert run.error is not None and run.error.message.startswith("[NodeRunError] boom")
    text = "\n".join(timeline(run))
    assert "error: NodeRunError: boom" in text
    assert "[NodeRunError]" not in text
    report = Session(run).stop_report()
    assert report is not None
    shown = render_stop(report).plain
    assert "ValueError: boom  (raised as NodeRunError)" in shown and "[NodeRunError]" not in shown
