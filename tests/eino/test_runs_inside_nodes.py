"""A graph run started inside a running node (not added as a graph node) is part of that node, as a Go
graph invoked with the node's ctx is: Eino's behaviour that the ports of `TestGraphInterruptWithinLambda`,
`TestToolCompositeInterruptWithNestedGraphInterrupt` and `TestWithMessageFuture_NestedGraph` rest on,
checked here where the Go tests do not reach (callback paths, later steps, tools and address segments
inside the inner run, `detached_runs`)."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.callbacks import RunInfo
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.context import detached_runs
from graph_core.errors import InterruptError
from graph_core.interrupt import (
    InterruptSignal,
    address_segment,
    composite_interrupt,
    get_resume_data,
    interrupt,
    was_interrupted,
)
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import ToolsNode


class _Log:
    """Records (kind, node key, path) of every start it hears."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, str | None, tuple[str, ...]]] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        self.starts.append((info.kind, info.node_key, info.path))


def _chain(*nodes: tuple[str, Any]) -> Graph:
    graph = Graph()
    previous = START
    for key, fn in nodes:
        graph.add_lambda_node(key, fn)
        graph.add_edge(previous, key)
        previous = key
    graph.add_edge(previous, END)
    return graph


def test_the_callers_callbacks_observe_the_run_under_the_nodes_path_once_each() -> None:
    inner = _chain(("double", lambda v: v * 2)).compile(name="inner")
    log, own = _Log(), _Log()
    outer = _chain(("call", lambda v: inner.invoke(v, callbacks=[log, own]))).compile()

    assert outer.invoke(2, callbacks=[log]) == 4
    assert log.starts == [
        ("Graph", None, ()),
        ("Lambda", "call", ("call",)),
        ("Graph", None, ("call",)),  # the inner graph, as a nested run of the node
        ("Lambda", "double", ("call", "double")),
    ]
    assert own.starts == [("Graph", None, ("call",)), ("Lambda", "double", ("call", "double"))]


def test_a_run_inside_a_node_of_an_unobserved_run_keeps_its_own_path() -> None:
    log = _Log()
    inner = _chain(("double", lambda v: v * 2)).compile()
    outer = _chain(("call", lambda v: inner.invoke(v, callbacks=[log]))).compile()
    assert outer.invoke(2) == 4
    assert log.starts == [("Graph", None, ()), ("Lambda", "double", ("double",))]


def test_detached_runs_take_nothing_from_the_node_but_runs_inside_their_nodes_do() -> None:
    log, own = _Log(), _Log()
    innermost = _chain(("leaf", lambda v: v + 1)).compile()
    inner = _chain(("middle", lambda v: innermost.invoke(v))).compile()

    def call(value: int) -> int:
        with detached_runs():
            return inner.invoke(value, callbacks=[own])

    outer = _chain(("call", call)).compile()
    assert outer.invoke(1, callbacks=[log]) == 2
    assert log.starts == [("Graph", None, ()), ("Lambda", "call", ("call",))]
    assert own.starts == [  # the detached run keeps its own path; the run inside its node is part of it
        ("Graph", None, ()),
        ("Lambda", "middle", ("middle",)),
        ("Graph", None, ("middle",)),
        ("Lambda", "leaf", ("middle", "leaf")),
    ]


def test_a_fresh_run_inside_a_rerunning_node_finds_its_record_at_a_later_step() -> None:
    """No checkpoint store for the inner graph: it runs anew and its node two steps in is the rerun."""
    seen: list[Any] = []

    def ask(value: str) -> str:
        if not was_interrupted():
            interrupt("ask")
        seen.append(get_resume_data())
        return value + "!"

    inner = _chain(("first", lambda v: v + "a"), ("second", lambda v: v + "b"), ("ask", ask)).compile(
        name="inner"
    )

    def call(value: str) -> str:
        try:
            return inner.invoke(value)
        except InterruptError as stop:
            composite_interrupt(None, None, [stop])
            raise

    outer = _chain(("call", call)).compile(name="root", checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        outer.invoke("x", checkpoint_id="cp")
    [point] = caught.value.info.interrupt_contexts
    assert point.address == "runnable:root;node:call;runnable:inner;node:ask"
    assert outer.invoke(None, checkpoint_id="cp", resume_data={point.id: "yes"}) == "ab!"
    assert seen == ["yes"]


class _Asking:
    def __init__(self) -> None:
        self.info = ToolInfo("asking", "asks", {})

    def invoke(self, arguments: str) -> str:
        if not was_interrupted():
            interrupt("tool asks")
        return "answer " + str(get_resume_data())


def test_a_tool_of_a_run_inside_a_tool_call_has_its_own_call_address() -> None:
    """Both ToolsNodes see the call ID `c1`: the inner tool's address names the inner call only once,
    after the outer call's (completed by the outer ToolsNode)."""
    inner = Graph()
    inner.add_tools_node("tools", ToolsNode([_Asking()]))
    inner.add_edge(START, "tools")
    inner.add_edge("tools", END)
    compiled_inner = inner.compile(name="inner")
    call = Message.assistant("", tool_calls=[ToolCall("c1", "asking", "{}")])

    class Wrapper:
        info = ToolInfo("wrapper", "runs the inner graph", {})

        def invoke(self, arguments: str) -> str:
            try:
                return compiled_inner.invoke(call)[0].content
            except InterruptError as stop:
                composite_interrupt("wrapper waits", None, [stop])
                raise

    outer = Graph()
    outer.add_tools_node("tools", ToolsNode([Wrapper()]))
    outer.add_edge(START, "tools")
    outer.add_edge("tools", END)
    compiled = outer.compile(name="root", checkpoint_store=InMemoryCheckpointStore())
    message = Message.assistant("", tool_calls=[ToolCall("c1", "wrapper", "{}")])
    with pytest.raises(InterruptError) as caught:
        compiled.invoke(message, checkpoint_id="cp")
    [point] = caught.value.info.interrupt_contexts
    assert point.address == (
        "runnable:root;node:tools;tool:wrapper:c1;runnable:inner;node:tools;tool:asking:c1"
    )
    assert [p.info for p in point.outermost_first()][2:4] == ["wrapper waits", None]
    output = compiled.invoke(message, checkpoint_id="cp", resume_data={point.id: 42})
    assert [m.content for m in output] == ["answer 42"]


def test_a_run_inside_an_address_segment_is_a_part_of_that_segment() -> None:
    def ask(value: str) -> str:
        if not was_interrupted():
            interrupt("ask")
        return f"{value}: {get_resume_data()}"

    inner = _chain(("ask", ask)).compile(name="inner")

    def batch(value: str) -> str:
        stops: list[InterruptSignal | InterruptError] = []
        done: list[str] = []
        for part in ("p0", "p1"):
            with address_segment("process", part):
                try:
                    done.append(inner.invoke(part))
                except InterruptError as stop:
                    stops.append(stop)
        if stops:
            composite_interrupt(None, None, stops)
        return ", ".join(done)

    outer = _chain(("batch", batch)).compile(name="root", checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        outer.invoke("x", checkpoint_id="cp")
    contexts = caught.value.info.interrupt_contexts
    assert [p.address for p in contexts] == [
        "runnable:root;node:batch;process:p0;runnable:inner;node:ask",
        "runnable:root;node:batch;process:p1;runnable:inner;node:ask",
    ]
    data = {contexts[0].id: "first", contexts[1].id: "second"}
    assert outer.invoke(None, checkpoint_id="cp", resume_data=data) == "p0: first, p1: second"


def test_composite_interrupt_refuses_an_error_that_is_no_interrupt() -> None:
    def node(value: str) -> str:
        composite_interrupt(None, None, [ValueError("boom")])  # type: ignore[list-item]
        return value

    with pytest.raises(Exception, match="not an interrupt signal nor an InterruptError"):
        _chain(("node", node)).compile().invoke("x")
