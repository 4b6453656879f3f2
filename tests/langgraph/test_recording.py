"""LangGraph runs recorded superstep by superstep: states equal LangGraph's own checkpoints, step for step;
node runs, tool calls, messages, budgets, errors and interrupts are those of graph_core recordings."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import StateGraph
from langgraph.prebuilt import ToolNode

from fixtures import langgraph_approval, langgraph_react, langgraph_runaway
from graph_core.errors import InterruptError
from inspector.adapters.langgraph import StepTranslator, as_target
from inspector.recording import Recorder, Run, read_run
from tests.langgraph.graphs import call, fan_out, lookup, loop, nested, react_loop

_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _plain(value: Any) -> Any:
    """A LangGraph state value as a recording shows it: messages as (role, content, tool call names)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_plain(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    if hasattr(value, "type") and hasattr(value, "content"):
        names = [c["name"] for c in getattr(value, "tool_calls", [])]
        return (_ROLES[value.type], value.content, names)
    return value


def _recorded(value: Any) -> Any:
    """A recorded state in the same terms (a message is a dict with `role`)."""
    if isinstance(value, dict) and "role" in value:
        names = [c["name"] for c in value.get("tool_calls", [])]  # pyright: ignore[reportUnknownVariableType]
        return (value["role"], value.get("content", ""), names)
    if isinstance(value, dict):
        return {k: _recorded(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_recorded(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _record(graph: Any, value: Any, path: Path, **options: Any) -> Run:
    with contextlib.suppress(Exception):  # a failing run is recorded too; the tests read the file
        as_target(graph).invoke(value, callbacks=[Recorder(path)], checkpoint_id="t", **options)
    return read_run(path)


def _history(graph: Any) -> list[Any]:
    snapshots = graph.get_state_history({"configurable": {"thread_id": "t"}})
    return sorted(snapshots, key=lambda s: s.metadata["step"])


CASES = {
    "loop": (loop, {"n": 0, "log": []}),
    "subgraph": (nested, {"n": 1, "log": []}),
    "send_fan_out": (fan_out, {"topics": ["a", "b", "c"]}),
    "react": (
        lambda: react_loop([call(1, "Paris"), call(2, "Rome"), AIMessage("Both are mild.")]),
        {"messages": [{"role": "user", "content": "Paris or Rome?"}]},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_per_step_equals_langgraph_state_history(case: str, tmp_path: Path) -> None:
    build, value = CASES[case]
    graph = build().compile(checkpointer=InMemorySaver())
    run = _record(graph, value, tmp_path / "run.jsonl")
    history = _history(graph)
    # LangGraph's step 0 writes the input; its step k runs the nodes of our step k - 1
    assert [h.metadata["step"] for h in history] == list(range(-1, len(run.steps) + 1))
    assert run.status == "ok"
    for step in run.steps:
        before, after = history[step.index + 1], history[step.index + 2]
        assert _recorded(step.state) == _plain(after.values), f"step {step.index}"
        assert sorted(step.nodes) == sorted(set(before.next)), f"step {step.index}"
        assert (step.budget.steps_used, step.budget.steps_max) == (step.index + 1, 10007)
    assert _recorded(run.output) == _plain(history[-1].values)


def test_a_send_fan_out_runs_one_node_three_times_in_one_step(tmp_path: Path) -> None:
    run = _record(
        fan_out().compile(checkpointer=InMemorySaver()), {"topics": ["a", "b"]}, tmp_path / "r.jsonl"
    )
    worker = run.steps[1]
    assert worker.nodes == ("worker",)
    assert sorted(r.output["results"][0] for r in worker.node_runs) == ["notes on a", "notes on b"]
    assert [b.chosen for b in run.steps[0].branches] == [["worker"]]


def test_subgraph_steps_are_recorded_under_the_subgraph_node(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    _record(nested().compile(checkpointer=InMemorySaver()), {"n": 1, "log": []}, path)
    nested_lines = [line for line in path.read_text().splitlines() if '"path":["child"]' in line]
    assert len(nested_lines) == 2
    assert '"nodes":["inner_a"]' in nested_lines[0] and '"nodes":["inner_b"]' in nested_lines[1]


def test_react_agent_messages_tool_calls_and_budget(tmp_path: Path) -> None:
    run = _record(
        langgraph_react.build_agent(),
        {"messages": [{"role": "user", "content": langgraph_react.QUESTION}]},
        tmp_path / "r.jsonl",
    )
    assert [s.nodes for s in run.steps] == [("agent",), ("tools",), ("agent",)]
    model_run = run.steps[0].node_runs[0]
    assert model_run.component == "ChatModel"
    assert model_run.output["tool_calls"] == [
        {"id": "call_weather_1", "name": "get_weather", "arguments": '{"city": "Hangzhou"}'}
    ]
    (tool,) = run.steps[1].node_runs[0].tools
    assert (tool.name, tool.tool_call_id, tool.input) == (
        "get_weather",
        "call_weather_1",
        '{"city": "Hangzhou"}',
    )
    assert tool.output.startswith("Hangzhou: light rain")
    budget = run.steps[-1].budget
    assert (budget.model_calls, budget.tool_calls, budget.total_tokens) == (2, 1, 332)
    assert [b.chosen for b in run.steps[0].branches] == [["tools"]]
    assert [b.chosen for b in run.steps[2].branches] == [["end"]]
    assert run.steps[2].ended


def test_a_graph_recursion_error_is_a_spent_step_budget(tmp_path: Path) -> None:
    graph = langgraph_runaway.build_agent()
    with pytest.raises(GraphRecursionError):
        as_target(graph).invoke(
            {"messages": [{"role": "user", "content": "go"}]}, callbacks=[Recorder(tmp_path / "r.jsonl")]
        )
    run = read_run(tmp_path / "r.jsonl")
    assert run.status == "error" and run.error is not None
    assert (run.error.type, run.error.cause_type) == ("MaxStepsExceededError", "GraphRecursionError")
    assert "Recursion limit of 12 reached" in (run.error.cause_message or "")
    assert len(run.steps) == 12 and run.unfinished is None
    last = run.steps[-1].budget
    assert (last.steps_used, last.steps_max, last.steps_remaining) == (12, 12, 0)
    assert run.steps[-1].branches == []  # the run did not choose to stop: the budget stopped it


def test_a_failing_node_is_an_unfinished_step_with_the_node_error(tmp_path: Path) -> None:
    graph = react_loop([call(1, "Atlantis"), AIMessage("never")]).compile()
    run = _record(graph, {"messages": [{"role": "user", "content": "?"}]}, tmp_path / "r.jsonl")
    assert run.status == "error" and run.error is not None
    assert (run.error.type, run.error.node_path, run.error.cause_type) == (
        "NodeRunError",
        ["tools"],
        "ValueError",
    )
    assert run.unfinished is not None and run.unfinished.nodes == ("tools",)
    (failed,) = run.unfinished.failed_nodes
    assert failed.error is not None and failed.error.message == "no such city: Atlantis"


def test_a_tool_error_turned_into_a_message_is_a_failed_tool_call(tmp_path: Path) -> None:
    builder = react_loop([call(1, "Atlantis"), AIMessage("Sorry.")])
    builder.nodes["tools"].runnable = ToolNode([lookup], handle_tool_errors=True)  # pyright: ignore[reportAttributeAccessIssue]
    run = _record(builder.compile(), {"messages": [{"role": "user", "content": "?"}]}, tmp_path / "r.jsonl")
    assert run.status == "ok"
    (tool,) = run.steps[1].node_runs[0].tools
    assert tool.error is not None and tool.error.type == "ToolCallFailed"
    assert "no such city: Atlantis" in tool.error.message


def test_interrupt_and_resume_are_two_segments_of_one_file(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    graph = langgraph_approval.build()
    target = as_target(graph)
    with pytest.raises(InterruptError):
        target.invoke({"request": "Ship it"}, callbacks=[Recorder(path)], checkpoint_id="t1")
    first = read_run(path)
    assert first.status == "interrupted" and first.interrupt is not None
    assert (first.interrupt.rerun_nodes, first.interrupt.checkpoint_id) == (["approve"], "t1")
    assert first.unfinished is not None and first.unfinished.nodes == ("approve",)
    target.invoke(None, callbacks=[Recorder(path, resume=True)], checkpoint_id="t1", resume_data="yes")
    run = read_run(path)
    assert run.status == "ok" and len(run.segments) == 2
    assert [(s.segment, s.index, s.nodes) for s in run.steps] == [
        (0, 0, ("draft",)),
        (1, 0, ("approve",)),
        (1, 1, ("send",)),
    ]
    assert run.steps[1].state["approved"] is True
    assert [b.chosen for b in run.steps[1].branches] == [["send"]]
    history = _history_of(graph, "t1")
    assert _recorded(run.steps[-1].state) == _plain(history[-1].values)


def _history_of(graph: Any, thread: str) -> list[Any]:
    snapshots = graph.get_state_history({"configurable": {"thread_id": thread}})
    return sorted(snapshots, key=lambda s: s.metadata["step"])


def test_static_interrupt_before_a_node(tmp_path: Path) -> None:
    graph = loop(limit=2).compile(checkpointer=InMemorySaver(), interrupt_before=["finish"])
    path = tmp_path / "r.jsonl"
    with pytest.raises(InterruptError) as raised:
        as_target(graph).invoke({"n": 0, "log": []}, callbacks=[Recorder(path)], checkpoint_id="t")
    assert raised.value.info.before_nodes == ["finish"]
    run = read_run(path)
    assert run.status == "interrupted" and run.interrupt is not None
    assert run.interrupt.before_nodes == ["finish"]
    assert [s.nodes for s in run.steps] == [("work",), ("work",)]


def test_an_uncompiled_state_graph_is_compiled_without_a_checkpointer(tmp_path: Path) -> None:
    builder: StateGraph[Any, Any, Any, Any] = loop()
    target = as_target(builder)
    assert target.checkpoint_store is None
    assert target.invoke({"n": 0, "log": []})["n"] == 3


def test_static_interrupt_after_a_node(tmp_path: Path) -> None:
    graph = loop(limit=2).compile(checkpointer=InMemorySaver(), interrupt_after=["work"])
    path = tmp_path / "r.jsonl"
    with pytest.raises(InterruptError) as raised:
        as_target(graph).invoke({"n": 0, "log": []}, callbacks=[Recorder(path)], checkpoint_id="t")
    assert (raised.value.info.after_nodes, raised.value.info.before_nodes) == (["work"], [])
    run = read_run(path)
    assert run.status == "interrupted" and [s.nodes for s in run.steps] == [("work",)]
    assert run.steps[0].next_nodes == ("work",)


class _Log:
    """Every callback as (method, what it was about), in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def on_start(self, info: Any, input: Any) -> None:
        self.calls.append(("on_start", (info.path, info.kind, input)))

    def on_end(self, info: Any, output: Any) -> None:
        self.calls.append(("on_end", (info.path, output)))

    def on_step_start(self, step: Any) -> None:
        self.calls.append(("on_step_start", (step.index, step.nodes, step.budget)))

    def on_step_end(self, step: Any) -> None:
        self.calls.append(("on_step_end", (step.index, step.nodes, step.state, step.next_nodes)))


@pytest.mark.parametrize("case", ["loop", "send_fan_out"])
def test_the_debug_stream_translates_as_the_tasks_stream_does(case: str) -> None:
    """The adapter asks for `tasks` (what `debug` wraps, without LangGraph building timestamps and
    checkpoint payloads); a caller feeding `debug` events gets the same callbacks."""
    build, value = CASES[case]
    graph = build().compile(checkpointer=InMemorySaver())
    logs: list[list[tuple[str, Any]]] = []
    for mode, thread in (("tasks", "a"), ("debug", "b")):
        log = _Log()
        translator = StepTranslator([log], topology=as_target(graph).topology(), limit=25)
        translator.start(value)
        config: Any = {"configurable": {"thread_id": thread}}
        for event_mode, chunk in graph.stream(value, config, stream_mode=[mode, "values"]):
            translator.feed((), event_mode, chunk)
        translator.finish()
        logs.append(log.calls)
    assert logs[0] == logs[1]
    assert [c for c, _ in logs[0]].count("on_step_end") >= 2


def test_parallel_results_are_reported_in_the_order_of_the_steps_tasks() -> None:
    """Parallel tasks (a `Send` fan-out) finish in any order; the node runs are reported in the order
    LangGraph listed the step's tasks, so a run recorded twice lists them alike. The stream of a real
    run is fed with each step's results reversed, and the callbacks equal those of the stream as is."""
    build, value = CASES["send_fan_out"]
    graph = build().compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    events = list(graph.stream(value, config, stream_mode=["tasks", "values"]))
    shuffled: list[tuple[str, Any]] = []
    results: list[tuple[str, Any]] = []
    for event in events:
        if event[0] == "tasks" and "result" in event[1]:
            results.append(event)
            continue
        shuffled.extend(reversed(results))
        results = []
        shuffled.append(event)
    shuffled.extend(reversed(results))
    assert shuffled != events  # (the fan-out step's three results did come in another order)
    logs: list[list[tuple[str, Any]]] = []
    for stream in (events, shuffled):
        log = _Log()
        translator = StepTranslator([log], topology=as_target(graph).topology(), limit=25)
        translator.start(value)
        for event_mode, chunk in stream:
            translator.feed((), event_mode, chunk)
        translator.finish()
        logs.append(log.calls)
    assert logs[0] == logs[1]
    workers = [call[1][2] for call in logs[0] if call[0] == "on_start" and call[1][0] == ("worker",)]
    assert [w["topic"] for w in workers] == ["a", "b", "c"]  # the order `plan` sent them in
