"""The debugger on LangGraph targets, through `DebugController`: pauses, step, continue, abort, conditions,
and edits made with LangGraph's `update_state` that change what the graph does next."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fixtures.langgraph_react as react
from fixtures.langgraph_approval import build as build_approval
from inspector.adapters.langgraph import as_target
from inspector.debug import DebugController
from inspector.errors import DebugError
from inspector.recording import read_run
from tests.debug.conftest import clock, lines_of


def _controller(path: Path, graph: Any = None, value: Any = None, **options: Any) -> DebugController:
    target = as_target(graph if graph is not None else react.build_agent())
    return DebugController(
        target,
        value if value is not None else target.input_from_text("Weather in Hangzhou?"),
        output=path,
        topology=target.topology(),
        compiled=target,
        meta={"target": "fixtures.langgraph_react:agent"},
        recorder_options={"clock": clock(), "run_id": path.stem},
        **options,
    )


def _pauses(controller: DebugController, command: str = "resume") -> list[tuple[int, tuple[str, ...], str]]:
    seen: list[tuple[int, tuple[str, ...], str]] = []
    pause = controller.wait()
    while pause is not None:
        seen.append((pause.step, pause.nodes, pause.reason))
        getattr(controller, command)()
        pause = controller.wait()
    return seen


def test_break_before_tools_then_continue_to_the_end(tmp_path: Path) -> None:
    controller = _controller(tmp_path / "run.jsonl", breakpoints=["tools"])
    controller.start()
    assert _pauses(controller) == [(1, ("tools",), "breakpoint before tools")]
    assert controller.outcome == "ok"
    run = read_run(tmp_path / "run.jsonl")
    assert run.status == "ok" and [s.nodes for s in run.steps] == [("agent",), ("tools",), ("agent",)]


def test_the_paused_file_holds_the_steps_before_the_pause(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = _controller(path, breakpoints=["tools"])
    controller.start()
    assert controller.wait() is not None
    steps = [json.loads(line) for line in lines_of(path, "step")]
    assert [(s["index"], s["nodes"]) for s in steps] == [(0, ["agent"])]
    view = controller.view()
    assert view["input"] == {"tools": None}
    assert view["state"]["messages"][-1]["tool_calls"][0]["arguments"] == '{"city": "Hangzhou"}'
    controller.abort()


def test_hold_before_step_0_then_step_one_superstep_at_a_time(tmp_path: Path) -> None:
    controller = _controller(tmp_path / "run.jsonl", stop_at_start=True)
    controller.start()
    assert _pauses(controller, "step") == [
        (0, ("agent",), "start"),
        (1, ("tools",), "step"),
        (2, ("agent",), "step"),
    ]
    assert controller.outcome == "ok"


def test_continue_runs_to_the_next_hit(tmp_path: Path) -> None:
    controller = _controller(tmp_path / "run.jsonl", breakpoints=["agent"])
    controller.start()
    assert _pauses(controller) == [
        (0, ("agent",), "breakpoint before agent"),
        (2, ("agent",), "breakpoint before agent"),
    ]


def test_a_breakpoint_set_while_held_stops_the_run_later(tmp_path: Path) -> None:
    controller = _controller(tmp_path / "run.jsonl", stop_at_start=True)
    controller.start()
    assert controller.wait() is not None
    controller.add_breakpoint("tools")
    controller.resume()
    pause = controller.wait()
    assert pause is not None and (pause.step, pause.reason) == (1, "breakpoint before tools")
    controller.remove_breakpoint("tools")
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"


def test_unknown_breakpoint_lists_the_graphs_nodes(tmp_path: Path) -> None:
    with pytest.raises(DebugError, match="no node `tool` in the graph; its nodes are: agent, tools"):
        _controller(tmp_path / "run.jsonl", breakpoints=["tool"])


def test_abort_at_a_pause_ends_the_run_as_aborted(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = _controller(path, breakpoints=["tools"])
    controller.start()
    assert controller.wait() is not None
    controller.abort()
    assert controller.wait() is None and controller.outcome == "aborted"
    assert [json.loads(line)["step"] for line in lines_of(path, "aborted")] == [1]
    run = read_run(path)
    assert run.status == "error" and run.error is not None and run.error.type == "RunAborted"
    assert [s.nodes for s in run.steps] == [("agent",)]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("calls(get_weather)", [(1, ("tools",), "condition `calls(get_weather)`")]),
        ("len(messages) > 2", [(2, ("agent",), "condition `len(messages) > 2`")]),
        ("before(tools)", [(1, ("tools",), "condition `before(tools)`")]),
    ],
)
def test_a_condition_holds_the_run_where_it_holds(
    tmp_path: Path, condition: str, expected: list[tuple[int, tuple[str, ...], str]]
) -> None:
    controller = _controller(tmp_path / "run.jsonl", conditions=[condition])
    controller.start()
    assert _pauses(controller) == expected
    assert controller.outcome == "ok"


def test_editing_the_model_answer_sends_the_agent_to_its_end(tmp_path: Path) -> None:
    """The assistant message edited to call no tool: `update_state(as_node="agent")` evaluates the agent's
    conditional edge again, so the tools never run and the run ends after the edit."""
    path = tmp_path / "run.jsonl"
    controller = _controller(path, breakpoints=["tools"])
    controller.start()
    assert controller.wait() is not None
    edit = controller.edit("state.messages[-1]", {"role": "assistant", "content": "No need to look it up."})
    assert edit.step == 1 and edit.new == {"role": "assistant", "content": "No need to look it up."}
    assert edit.old["tool_calls"][0]["name"] == "get_weather"
    pause = controller.pause
    assert pause is not None and pause.nodes == ()  # nothing runs next: the branch chose the end
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"
    assert controller.result["messages"][-1].content == "No need to look it up."
    run = read_run(path)
    assert run.status == "ok" and [s.nodes for s in run.steps] == [("agent",)]
    (line,) = lines_of(path, "edit")
    assert json.loads(line) | {"old": None, "t": None} == {
        "kind": "edit",
        "step": 1,
        "path": "state.messages[-1]",
        "old": None,
        "new": {"role": "assistant", "content": "No need to look it up."},
        "t": None,
    }


def test_editing_the_tool_call_changes_what_the_tool_is_asked(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    controller = _controller(path, breakpoints=["tools"])
    controller.start()
    assert controller.wait() is not None
    controller.edit("state.messages[-1].tool_calls[0].arguments", '{"city": "Beijing"}')
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"
    run = read_run(path)
    assert [call.output for call in run.steps[1].node_runs[0].tools] == [
        "Beijing: sunny, 26°C, humidity 30%, wind 2 m/s"
    ]
    # the message keeps LangGraph's id: the edited call replaced the model's, it was not appended
    assert [m.type for m in controller.result["messages"]] == ["human", "ai", "tool", "ai"]


def test_editing_the_input_before_step_0(tmp_path: Path) -> None:
    """Before step 0 the edit is written as `__start__`, so the first node reads the edited input."""
    controller = _controller(tmp_path / "run.jsonl", stop_at_start=True)
    controller.start()
    assert controller.wait() is not None
    edit = controller.edit("state.messages[0].content", "Weather in Beijing?")
    assert (edit.step, edit.old, edit.new) == (0, "Weather in Hangzhou?", "Weather in Beijing?")
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"
    run = read_run(tmp_path / "run.jsonl")
    assert run.steps[0].node_runs[0].input["messages"][0]["content"] == "Weather in Beijing?"


def test_bad_edits_change_nothing(tmp_path: Path) -> None:
    controller = _controller(tmp_path / "run.jsonl", breakpoints=["tools"])
    controller.start()
    assert controller.wait() is not None
    before = controller.view()
    with pytest.raises(DebugError, match="`state` has no key `nope` \\(keys: messages\\)"):
        controller.edit("state.nope", 1)
    with pytest.raises(DebugError, match="input is not editable: edit the state instead"):
        controller.edit("input.tools.tool_calls[0].arguments", "{}")
    with pytest.raises(DebugError, match="must be a JSON object"):
        controller.edit("state.messages[-1].tool_calls[0].arguments", "[1]")
    with pytest.raises(DebugError, match="Input should be a valid string"):
        controller.edit("state.messages[0].content", 5)
    assert controller.view() == before and controller.edits == []
    controller.resume()
    assert controller.wait() is None and controller.outcome == "ok"


def test_a_graph_with_its_own_checkpointer_keeps_it_and_its_interrupt_resumes_with_data(
    tmp_path: Path,
) -> None:
    graph = build_approval()
    saver = graph.checkpointer
    controller = _controller(tmp_path / "run.jsonl", graph, {"request": "Ship it"}, breakpoints=["approve"])
    controller.start()
    pause = controller.wait()
    assert pause is not None and (pause.step, pause.kind) == (1, "boundary")
    controller.resume()
    pause = controller.wait()  # the graph's own interrupt(): held as an interrupt, resumed with data
    assert pause is not None and (pause.kind, pause.nodes) == ("interrupt", ("approve",))
    controller.resume("yes")
    assert controller.wait() is None and controller.outcome == "ok"
    assert graph.checkpointer is saver
    thread = controller._checkpoint_id  # pyright: ignore[reportPrivateUsage]
    assert thread is not None
    stored = graph.get_state({"configurable": {"thread_id": thread}})
    assert stored.values["approved"] is True and stored.values["messages"][-1].content.startswith("Sent:")


def test_a_graph_without_a_checkpointer_is_left_without_one(tmp_path: Path) -> None:
    graph = react.build_agent()
    controller = _controller(tmp_path / "run.jsonl", graph, breakpoints=["tools"])
    controller.start()
    assert _pauses(controller) == [(1, ("tools",), "breakpoint before tools")]
    assert graph.checkpointer is None
