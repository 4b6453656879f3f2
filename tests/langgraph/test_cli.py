"""The `inspector` commands take a LangGraph graph as TARGET: topology, lint, record, show, diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.recording import read_run

REACT = "fixtures.langgraph_react:agent"
RUNAWAY = "fixtures.langgraph_runaway:agent"


def test_topology_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", REACT]) == 0
    drawing = capsys.readouterr().out
    assert "agent" in drawing and "tools" in drawing and "▲" in drawing  # the back edge's upward lane
    assert main(["topology", "fixtures.langgraph_approval:builder", "-f", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    labels = {(e["source"], e["target"]): e["label"] for e in document["topology"]["edges"]}
    assert labels[("approve", "send")] == "approved"
    assert labels[("approve", "discard")] == "rejected"


def test_lint_reports_the_cycle_and_budget(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["lint", RUNAWAY])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "cycle `agent` -> `tools` -> `agent`" in out
    assert "step budget: 12 superstep(s)" in out


def test_record_with_input_json_then_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "runaway.jsonl"
    state = json.dumps({"messages": [{"role": "user", "content": "Is it still raining?"}]})
    assert (
        main(["record", RUNAWAY, "--input-json", state, "-o", str(path), "-q"]) == 1
    )  # the run failed (its recursion limit)
    err = capsys.readouterr().err
    assert "recorded 12 steps" in err and "status error" in err
    assert "GraphRecursionError: Recursion limit of 12 reached" in err
    run = read_run(path)
    assert run.header.input == {"messages": [{"role": "user", "content": "Is it still raining?"}]}
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "step 11  tools  [steps 12/12" in out
    assert "ran out in the cycle agent -> tools -> agent after 6 rounds" in out


def test_record_with_input_text_is_one_user_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "react.jsonl"
    assert main(["record", REACT, "--input", "Weather?", "-o", str(path)]) == 0
    progress = capsys.readouterr().err
    assert "step 0: agent  (steps 1/10007, 1 model call, 0 tool calls, 130 tokens)" in progress
    run = read_run(path)
    assert run.status == "ok"
    assert run.steps[0].state["messages"][0] == {"role": "user", "content": "Weather?"}


def test_diff_of_two_recordings_of_the_same_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        assert main(["record", REACT, "--input", "Weather?", "-o", str(path), "-q"]) == 0
    capsys.readouterr()
    assert main(["diff", str(a), str(b)]) == 0


def test_a_resume_needs_a_checkpoint_the_thread_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("")
    status = main(
        [
            "record",
            "fixtures.langgraph_approval:graph",
            "-o",
            str(path),
            "--checkpoint-id",
            "nope",
            "--resume",
        ]
    )
    assert status == 2
    assert "holds no checkpoint `nope`" in " ".join(capsys.readouterr().err.split())


def test_interrupt_then_resume_into_the_same_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The fixture's checkpointer is in memory: both commands run in this process, on the same graph."""
    path, target = tmp_path / "approval.jsonl", "fixtures.langgraph_approval:graph"
    thread = f"cli-{tmp_path.name}"
    assert main(["record", target, "--input-json", '{"request": "Ship it"}', "-o", str(path), "-q",
                 "--checkpoint-id", thread]) == 0  # fmt: skip
    err = " ".join(capsys.readouterr().err.split())
    assert "status interrupted" in err and f"saved checkpoint {thread}" in err
    assert main(["record", target, "-o", str(path), "-q", "--checkpoint-id", thread, "--resume",
                 "--resume-data", '"no"']) == 0  # fmt: skip
    run = read_run(path)
    assert run.status == "ok" and len(run.segments) == 2
    assert [s.nodes for s in run.steps] == [("draft",), ("approve",), ("discard",)]
