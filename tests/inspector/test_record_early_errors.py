"""Recording a run the engine refuses before its first step: the file exists, with status `error`.

Before the engine reported setup errors to the graph callbacks, such a run left no recording at all
(`inspector record` and CI recordings of a misconfigured run came back empty).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from graph_core import END, START, Graph, TriggerMode
from graph_core.errors import GraphRunError
from inspector.cli import main
from inspector.recording import Recorder, read_run
from tests.helpers import ENTRY_POINTS, run_entry


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.001


def _graph() -> Graph:
    graph = Graph()
    graph.add_lambda_node("shout", lambda x: x.upper())
    graph.add_edge(START, "shout")
    graph.add_edge("shout", END)
    return graph


CASES = [
    pytest.param({"max_run_steps": -1}, {}, "max run steps limit must be at least 1", id="budget"),
    pytest.param(
        {"trigger_mode": TriggerMode.ALL_PREDECESSOR},
        {"max_steps": 3},
        "cannot set max run steps in dag",
        id="dag-max-steps",
    ),
    pytest.param(
        {}, {"checkpoint_id": "cp"}, "receive checkpoint id but have not set checkpoint store", id="no-store"
    ),
]


@ENTRY_POINTS
@pytest.mark.parametrize(("compile_options", "run_options", "reason"), CASES)
def test_a_run_refused_at_setup_is_recorded_with_its_error(
    tmp_path: Path, how: str, compile_options: dict[str, Any], run_options: dict[str, Any], reason: str
) -> None:
    compiled = _graph().compile(name="Shouter", **compile_options)
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, clock=_clock(), run_id="early")
    with pytest.raises(GraphRunError) as caught:
        run_entry(compiled, "hi", how, callbacks=[recorder], **run_options)
    assert recorder.fault is None
    run = read_run(path)
    assert run.status == "error"
    assert run.error is not None
    assert run.error.type == "GraphRunError"
    assert run.error.message == str(caught.value) == f"[GraphRunError] {reason}"
    assert len(run.steps) == 0
    assert run.topology == compiled.topology()  # the header still says which graph it was
    assert run.header.input == "hi"


def test_inspector_record_writes_a_recording_of_a_run_refused_at_setup(tmp_path: Path, capsys: Any) -> None:
    source = tmp_path / "g.py"
    source.write_text(
        "from graph_core import Graph, START, END\n"
        "g = Graph()\n"
        "g.add_lambda_node('shout', lambda x: x.upper())\n"
        "g.add_edge(START, 'shout')\n"
        "g.add_edge('shout', END)\n"
        "graph = g.compile(max_run_steps=-1)\n"
    )
    out = tmp_path / "run.jsonl"
    main(["record", f"{source}:graph", "--input", "hello", "-o", str(out), "-q"])
    assert "max run steps limit must be at least 1" in capsys.readouterr().err
    run = read_run(out)
    assert run.status == "error"
    assert run.error is not None and "max run steps limit must be at least 1" in run.error.message
