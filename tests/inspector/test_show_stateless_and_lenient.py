"""`inspector show` of a graph without state lists what went into and came out of each node, and a run
read with `--lenient` names its steps alike in the timeline and the conversation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.cli import main
from tests.tui.conftest import stateless_dag

WEATHER = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"


def test_a_graph_without_state_shows_each_nodes_input_and_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = stateless_dag(tmp_path / "dag.jsonl", 2)
    assert main(["show", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:5] == [
        "step 0  n0  [steps 1]  750.0 ms",
        "    n0: 'input 0' -> 'output 0'",
        "step 1  n1  [steps 2]  750.0 ms",
        "    n1: 'input 1' -> 'output 1'",
    ]


def test_an_agent_with_state_shows_no_flow_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(WEATHER)]) == 0
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("    chat: ")]


def test_lenient_steps_are_named_alike_in_the_timeline_and_the_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "weather.jsonl"
    shutil.copy(WEATHER, path)
    lines = path.read_text().splitlines(keepends=True)
    second = [i for i, line in enumerate(lines) if line.startswith('{"kind":"step"')][1]
    lines[second] = "not a step line\n"  # step 1 is lost: positions now run behind the step numbers
    path.write_text("".join(lines))
    assert main(["show", str(path), "--lenient"]) == 0
    out = capsys.readouterr().out.splitlines()
    timeline = {line.split()[1] for line in out if line.startswith("step ")}
    assert timeline == {"0", "2"}
    start = out.index("conversation (who said what, in reading order):")
    named = {line.split()[1] for line in out[start + 1 :] if line.startswith("  step ")}
    assert named <= timeline and "2" in named
