"""Run files edited by hand: well-formed JSON lines whose contents no recorder writes.

Each must read as a `RunFileError` naming the problem (status 2 from the CLI, never a traceback), or, with
`lenient=True`, as a `RunFileWarning` and a marked placeholder.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.recording import Recorder, RunFileError, RunFileWarning, read_run
from inspector.recording.synthetic import react_topology, simulate_react


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


def _record(path: Path) -> Path:
    simulate_react(Recorder(path, topology=react_topology(), clock=_clock(), run_id="r1"), 3)
    return path


def _edit_step(path: Path, position: int, edit: Any) -> int:
    """Apply `edit(obj)` to the `position`-th top-level step line; returns its 1-based line number."""
    lines = path.read_text().splitlines(keepends=True)
    numbers = [i for i, line in enumerate(lines) if line.startswith('{"kind":"step",')]
    i = numbers[position]
    obj = json.loads(lines[i])
    edit(obj)
    lines[i] = json.dumps(obj, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    return i + 1


def _set_input(value: Any) -> Any:
    def edit(obj: dict[str, Any]) -> None:
        obj["runs"][0]["input"] = value

    return edit


def _set_delta(ops: Any) -> Any:
    def edit(obj: dict[str, Any]) -> None:
        assert "delta" in obj
        obj["delta"] = ops

    return edit


MARKERS = [
    {"$ref": "x"},
    {"$ref": [1]},
    {"$ref": None},
    {"$refs": "zz"},
    {"$refs": [[0]]},
    {"$refs": [["a", 1]]},
]


@pytest.mark.parametrize("marker", MARKERS, ids=[json.dumps(m) for m in MARKERS])
def test_a_malformed_value_marker_is_a_run_file_error(marker: Any, tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit_step(path, 0, _set_input(marker))
    run = read_run(path)
    with pytest.raises(RunFileError, match=r"malformed|not a value id"):
        _ = run.steps[0].node_runs


@pytest.mark.parametrize("marker", MARKERS, ids=[json.dumps(m) for m in MARKERS])
def test_lenient_reads_a_malformed_marker_as_a_placeholder(marker: Any, tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit_step(path, 0, _set_input(marker))
    run = read_run(path, lenient=True)
    with pytest.warns(RunFileWarning):
        value = run.steps[0].node_runs[0].input
    lost = value[0] if isinstance(value, list) else value
    assert lost["$type"] == "lost"


DELTAS = [
    [["frob", ["messages"], 1]],  # unknown op
    [["append", ["nomessages", 5], [1]]],  # a path the state does not have
    [["append", ["messages"], {"$refs": "x"}]],  # a malformed append
    [[1]],  # an op without a path
]


@pytest.mark.parametrize("ops", DELTAS, ids=[json.dumps(d) for d in DELTAS])
def test_a_delta_that_does_not_apply_names_its_line(ops: Any, tmp_path: Path, capsys: Any) -> None:
    path = _record(tmp_path / "run.jsonl")
    line_no = _edit_step(path, 1, _set_delta(ops))
    run = read_run(path)
    with pytest.raises(RunFileError) as info:
        _ = run.steps[1].state
    assert info.value.line_no == line_no and "does not apply" in str(info.value)
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line_no}:" in err and "Traceback" not in err


def test_lenient_keeps_the_state_before_a_delta_that_does_not_apply(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    _edit_step(path, 1, _set_delta(DELTAS[0]))
    run = read_run(path, lenient=True)
    with pytest.warns(RunFileWarning, match="does not apply"):
        state = run.steps[1].state
    assert state == run.steps[0].state
    assert len(run.steps[2].state["messages"]) > len(state["messages"])  # later steps still apply


@pytest.mark.parametrize("calls", [7, "x", [7], [[1]], True], ids=str)
def test_a_message_with_malformed_tool_calls_is_corrupt_and_shown_when_lenient(
    calls: Any, tmp_path: Path, capsys: Any
) -> None:
    reference = _record(tmp_path / "a.jsonl")
    path = _record(tmp_path / "b.jsonl")
    lines = path.read_text().splitlines(keepends=True)
    i = next(
        i for i, line in enumerate(lines) if '"tool_calls"' in line and line.startswith('{"kind":"value"')
    )
    obj = json.loads(lines[i])
    obj["value"]["tool_calls"] = calls
    lines[i] = json.dumps(obj, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    # Tool calls that are not objects are no message a recorder writes: the file is corrupt there
    # (issue 37), and the lenient reading shows the rest with a warning.
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{i + 1}:" in err and "Traceback" not in err
    assert main(["show", "--lenient", str(path)]) == 0
    assert main(["diff", "--lenient", str(reference), str(path)]) == 1  # the requested calls differ
    assert "Traceback" not in capsys.readouterr().err
    with pytest.warns(RunFileWarning):  # said when the value is read
        run = read_run(path, lenient=True)
        names = [tool.name for step in run.steps for r in step.node_runs for tool in r.tools]
    assert all(isinstance(name, str) for name in names)


def _replace_line(path: Path, starts: str, make: Any) -> int:
    """Replace the first line starting with `starts` by `make(line)`; returns its 1-based number."""
    lines = path.read_text().splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if line.startswith(starts))
    lines[i] = make(lines[i])
    path.write_text("".join(lines))
    return i + 1


@pytest.mark.parametrize(
    "make",
    [
        lambda line: line[:50] + "\n",  # cut off in the middle of the file
        lambda line: '{"kind":"step","index":1,"nodes":5}\n',  # JSON, but not a step
    ],
    ids=["cut-off", "invalid"],
)
def test_lenient_skips_a_broken_step_line_in_the_middle(make: Any, tmp_path: Path, capsys: Any) -> None:
    path = _record(tmp_path / "run.jsonl")
    steps = len(read_run(path).steps)
    line_no = _replace_line(path, '{"kind":"step","index":1,', make)
    with pytest.raises(RunFileError) as info:
        _ = [step.nodes for step in read_run(path).steps]
    assert info.value.line_no == line_no
    with pytest.warns(RunFileWarning, match=f":{line_no}: skipped"):
        run = read_run(path, lenient=True)
    assert [step.index for step in run.steps] == [i for i in range(steps) if i != 1]
    assert run.status == "ok" and all(step.state is not None for step in run.steps)
    assert main(["show", "--lenient", str(path)]) == 0
    assert f"{path}:{line_no}: skipped a corrupt line" in capsys.readouterr().err


def test_lenient_skips_a_cut_off_segment_line(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "approval.jsonl"
    path.write_bytes((Path(__file__).parents[2] / "fixtures" / "runs" / "approval.jsonl").read_bytes())
    line_no = _replace_line(path, '{"kind":"segment",', lambda line: line[:40] + "\n")
    with pytest.raises(RunFileError):
        read_run(path)
    with pytest.warns(RunFileWarning, match=f":{line_no}: skipped"):
        run = read_run(path, lenient=True)
    assert len(run.steps) == 4 and run.status == "ok"  # the resumed steps read on, in one segment
    assert main(["show", "--lenient", str(path)]) == 0
    assert "Traceback" not in capsys.readouterr().err
