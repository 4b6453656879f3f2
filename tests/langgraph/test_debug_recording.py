"""A LangGraph run debugged is recorded as the same run recorded plainly (byte for byte, with the same clock
and run id), however often it was held; `recursion_limit` counts the whole run across the stops; edits
after a step of several nodes keep every node's edges; `inspector show` reads the debugged run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fixtures.langgraph_react as react
import fixtures.langgraph_runaway as runaway
from inspector.adapters.langgraph import as_target
from inspector.cli import main
from inspector.debug import DebugController
from inspector.recording import Recorder, read_run
from tests.debug.conftest import clock, lines_of
from tests.langgraph import graphs

META = {"target": "test"}

CASES: dict[str, tuple[Any, Any]] = {
    "react": (react.build_agent, {"messages": [{"role": "user", "content": "Weather in Hangzhou?"}]}),
    "runaway": (runaway.build_agent, {"messages": [{"role": "user", "content": runaway.QUESTION}]}),
    "loop": (lambda: graphs.loop(3).compile(), {"n": 0, "log": []}),
    "nested": (lambda: graphs.nested().compile(), {"n": 1, "log": []}),
    "fan_out": (lambda: graphs.fan_out().compile(), {"topics": ["a", "b"], "results": []}),
}


def _plain(graph: Any, value: Any, path: Path) -> None:
    recorder = Recorder(path, meta=META, clock=clock(), run_id="run")
    try:
        as_target(graph).invoke(value, callbacks=[recorder])
    except Exception:
        pass  # the runaway loop ends with its recursion error, recorded
    finally:
        recorder.close()


def _debugged(graph: Any, value: Any, path: Path, **options: Any) -> DebugController:
    target = as_target(graph)
    return DebugController(
        target,
        value,
        output=path,
        topology=target.topology(),
        compiled=target,
        meta=META,
        recorder_options={"clock": clock(), "run_id": "run"},
        **options,
    )


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("how", ["step", "resume"])
def test_held_at_every_step_the_recording_is_the_plain_one(tmp_path: Path, case: str, how: str) -> None:
    """Stepping holds the run before every superstep (`resume` with a condition that always holds does
    too): each stop ends a `stream` call and the next starts from the checkpoint."""
    build, value = CASES[case]
    _plain(build(), value, tmp_path / "plain.jsonl")
    options: dict[str, Any] = (
        {"stop_at_start": True} if how == "step" else {"conditions": ["not before(nope)"]}
    )
    controller = _debugged(build(), value, tmp_path / "debug.jsonl", **options)
    controller.start()
    held = 0
    while controller.wait() is not None:
        held += 1
        getattr(controller, how)()
    plain = read_run(tmp_path / "plain.jsonl")
    assert held == len(plain.steps) > 1  # held before each step, none past the budget
    assert (tmp_path / "debug.jsonl").read_text() == (tmp_path / "plain.jsonl").read_text()


def test_the_step_budget_counts_the_whole_run_across_stops(tmp_path: Path) -> None:
    controller = _debugged(
        runaway.build_agent(), CASES["runaway"][1], tmp_path / "run.jsonl", stop_at_start=True
    )
    controller.start()
    while controller.wait() is not None:
        controller.step()
    run = read_run(tmp_path / "run.jsonl")
    assert controller.outcome == "error" and len(run.steps) == runaway.RECURSION_LIMIT
    assert run.error is not None and run.error.type == "MaxStepsExceededError"


def test_breakpoints_that_never_hit_leave_the_plain_recording(tmp_path: Path) -> None:
    _plain(react.build_agent(), CASES["react"][1], tmp_path / "plain.jsonl")
    controller = _debugged(
        react.build_agent(), CASES["react"][1], tmp_path / "debug.jsonl", breakpoints=["tools"]
    )
    controller.start()
    controller.remove_breakpoint("tools")
    while controller.wait() is not None:
        controller.resume()
    assert (tmp_path / "debug.jsonl").read_text() == (tmp_path / "plain.jsonl").read_text()


def test_an_edit_after_a_step_of_several_nodes_keeps_each_nodes_edges(tmp_path: Path) -> None:
    """`review` and `audit` ran together and `report` waits for both: the edit is one `bulk_update_state`
    superstep as both nodes, so `report` still runs, and reads the edited results."""
    path = tmp_path / "run.jsonl"
    controller = _debugged(graphs.fan_out().compile(), CASES["fan_out"][1], path, breakpoints=["report"])
    controller.start()
    pause = controller.wait()
    assert pause is not None and pause.nodes == ("report",)
    controller.edit("state.results", ["edited"])  # `operator.add` channel: written as an Overwrite
    assert controller.pause is not None and controller.pause.nodes == ("report",)
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"
    assert controller.result["summary"] == "edited" and controller.result["results"] == ["edited"]
    run = read_run(path)
    assert [s.nodes for s in run.steps][-1] == ("report",)
    assert [json.loads(line)["path"] for line in lines_of(path, "edit")] == ["state.results"]


def test_show_reads_a_debugged_run_with_its_edit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.jsonl"
    controller = _debugged(react.build_agent(), CASES["react"][1], path, breakpoints=["tools"])
    controller.start()
    assert controller.wait() is not None
    controller.edit("state.messages[-1].tool_calls[0].arguments", '{"city": "Beijing"}')
    controller.resume()
    assert controller.wait() is None
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        'edit before step 1: state.messages[-1].tool_calls[0].arguments: \'{"city": "Hangzhou"}\' -> ' in out
    )
    assert "tool get_weather (call_weather_1): 'Beijing: sunny, 26°C" in out
