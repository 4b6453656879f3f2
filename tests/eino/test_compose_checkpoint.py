"""Ports of Eino's `compose/checkpoint_test.go` (cloudwego/eino ca0441ac0bce): static interrupts,
rerun nodes, checkpoints of nested graphs, external interrupts (`WithGraphInterrupt`, here
`GraphInterrupt`) and when a rerun node keeps its input (`persistRerunInput`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from graph_core import END, START, Graph, Lambda, TriggerMode
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import GraphRunError, InterruptError
from graph_core.interrupt import InterruptContext, InterruptInfo, get_interrupt_state, interrupt
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.stream import collect
from graph_core.tools import ToolsNode
from tests.eino.gates import Gate, interrupted_run

DAG = TriggerMode.ALL_PREDECESSOR
PREGEL = TriggerMode.ANY_PREDECESSOR


@dataclass
class TestStruct:
    """Go `testStruct`: the graph state of most tests here."""

    __test__ = False  # not a pytest class
    a: str = ""


def _store() -> InMemoryCheckpointStore:
    return InMemoryCheckpointStore()


def _interrupt_of(run: Any) -> InterruptInfo:
    with pytest.raises(InterruptError) as caught:
        run()
    return caught.value.info


def _root(info: InterruptInfo) -> InterruptContext:
    return info.interrupt_contexts[0]


def _chain(context: InterruptContext | None) -> list[tuple[str, Any, bool]]:
    """A context and its parents as (address, info, is_root_cause), innermost first (Eino's Parent)."""
    found: list[tuple[str, Any, bool]] = []
    while context is not None:
        found.append((context.address, context.info, context.is_root_cause))
        context = context.parent_context
    return found


# -- static interrupts ---------------------------------------------------------------------------------


def test_simple_check_point() -> None:
    """checkpoint_test.go TestSimpleCheckPoint (DAG): interrupt after `1` and before `2` in one stop; the
    graph itself is the root cause (info: its state); resume data aimed at it replaces the state."""
    graph = Graph(state=TestStruct)
    graph.add_lambda_node("1", lambda v: v + "1")
    graph.add_lambda_node("2", lambda v: v + "2", pre=lambda v, s: v + s.a)
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", END)
    compiled = graph.compile(
        trigger_mode=DAG,
        checkpoint_store=_store(),
        interrupt_after=["1"],
        interrupt_before=["2"],
        name="root",
    )
    info = _interrupt_of(lambda: compiled.invoke("start", checkpoint_id="1"))
    assert info.state == TestStruct("")
    assert info.before_nodes == ["2"] and info.after_nodes == ["1"]
    assert info.rerun_nodes_extra == {} and info.sub_graphs == {}
    assert _chain(_root(info)) == [("runnable:root", TestStruct(""), True)]
    data = {_root(info).id: TestStruct("state")}
    assert compiled.invoke("start", checkpoint_id="1", resume_data=data) == "start1state2"


@pytest.mark.parametrize("how", ["invoke", "stream"])
def test_custom_struct_in_any(how: str) -> None:
    """checkpoint_test.go TestCustomStructInAn2y: a dataclass output under an output key is saved in the
    checkpoint (interrupt after `1`) and comes back as itself; invoke and stream."""
    graph = Graph(state=TestStruct)
    graph.add_lambda_node("1", lambda v: TestStruct(v + "1"), output_key="1")

    def pre(value: dict[str, Any], state: TestStruct) -> dict[str, Any]:
        value["1"].a += state.a
        return value

    graph.add_lambda_node("2", lambda v: v["1"].a + "2", pre=pre)
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", END)
    compiled = graph.compile(checkpoint_store=_store(), interrupt_after=["1"], name="root")

    def run(value: Any, **options: Any) -> Any:
        return (
            compiled.invoke(value, **options)
            if how == "invoke"
            else collect(compiled.stream(value, **options))
        )

    info = _interrupt_of(lambda: run("start", checkpoint_id="1"))
    assert info.state == TestStruct("") and info.after_nodes == ["1"]
    assert info.rerun_nodes_extra == {} and info.sub_graphs == {}
    assert _chain(_root(info)) == [("runnable:root", TestStruct(""), True)]
    assert (
        run("start", checkpoint_id="1", resume_data={_root(info).id: TestStruct("state")}) == "start1state2"
    )


def _sub_graph() -> Graph:
    sub = Graph(state=TestStruct)
    sub.add_lambda_node("1", lambda v: v + "1")
    sub.add_lambda_node("2", lambda v: v + "2", pre=lambda v, s: v + s.a)
    sub.add_edge(START, "1")
    sub.add_edge("1", "2")
    sub.add_edge("2", END)
    return sub


@pytest.mark.parametrize("how", ["invoke", "stream"])
def test_sub_graph(how: str) -> None:
    """checkpoint_test.go TestSubGraph: a nested graph stops after its node `1`; the parent reports the
    nested info under `sub_graphs`; the nested graph is the root cause (its state as info) under the
    top-level graph; resume data aimed at it replaces the nested state."""
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v + "1")
    graph.add_graph_node("2", _sub_graph(), compile_options={"interrupt_after": ["1"]})
    graph.add_lambda_node("3", lambda v: v + "3")
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", "3")
    graph.add_edge("3", END)
    compiled = graph.compile(checkpoint_store=_store(), name="root")

    def run(value: Any, **options: Any) -> Any:
        return (
            compiled.invoke(value, **options)
            if how == "invoke"
            else collect(compiled.stream(value, **options))
        )

    info = _interrupt_of(lambda: run("start", checkpoint_id="1"))
    sub = info.sub_graphs["2"]
    assert (sub.state, sub.after_nodes, sub.before_nodes, sub.rerun_nodes_extra, sub.sub_graphs) == (
        TestStruct(""),
        ["1"],
        [],
        {},
        {},
    )
    assert _chain(_root(info)) == [
        ("runnable:root;node:2", TestStruct(""), True),
        ("runnable:root", None, False),
    ]
    assert (
        run("start", checkpoint_id="1", resume_data={_root(info).id: TestStruct("state")}) == "start11state23"
    )


class _GraphCallbacks:
    """Go `testGraphCallback`: counts the graph-level callbacks (nested graphs' included)."""

    def __init__(self) -> None:
        self.counts = {"start": 0, "end": 0, "stream_start": 0, "stream_end": 0, "error": 0}

    def _count(self, info: Any, which: str) -> None:
        if info.kind == "Graph":
            self.counts[which] += 1

    def on_start(self, info: Any, _: Any) -> None:
        self._count(info, "start")

    def on_start_with_stream_input(self, info: Any, _: Any) -> None:
        self._count(info, "stream_start")

    def on_end(self, info: Any, _: Any) -> None:
        self._count(info, "end")

    def on_end_with_stream_output(self, info: Any, _: Any) -> None:
        self._count(info, "stream_end")

    def on_error(self, info: Any, _: Any) -> None:
        self._count(info, "error")


def _nested_sub_graph() -> Graph:
    sub = Graph(state=TestStruct)
    sub.add_lambda_node("1", lambda v: v + "1")
    sub.add_graph_node(
        "2",
        _sub_graph(),
        compile_options={"interrupt_after": ["1"]},
        pre=lambda v, s: v + s.a,
        output_key="2",
    )
    sub.add_lambda_node("3", lambda v: v + "3", output_key="3")

    def pre(value: dict[str, Any], state: TestStruct) -> dict[str, Any]:
        value["state"] = state.a
        return value

    sub.add_lambda_node("4", lambda v: f"{v['2']}4\n{v['3']}4\n{v['state']}4\n", pre=pre)
    sub.add_edge(START, "1")
    sub.add_edge("1", "2")
    sub.add_edge("1", "3")
    sub.add_edge("3", "4")
    sub.add_edge("2", "4")
    sub.add_edge("4", END)
    return sub


@pytest.mark.parametrize(
    ("mode", "how"), [(PREGEL, "invoke"), (PREGEL, "stream"), (DAG, "invoke"), (DAG, "stream")]
)
def test_nested_sub_graph(mode: TriggerMode, how: str) -> None:
    """checkpoint_test.go TestNestedSubGraph: three levels, three stops (inner after `1`, middle after
    `3`, middle before `4`), each resumed with data aimed at the root-cause graph, which replaces that
    graph's state; Pregel and DAG, invoke and stream."""
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v + "1")
    graph.add_graph_node(
        "2", _nested_sub_graph(), compile_options={"interrupt_after": ["1", "3"], "interrupt_before": ["4"]}
    )
    graph.add_lambda_node("3", lambda v: v + "3")
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", "3")
    graph.add_edge("3", END)
    compiled = graph.compile(trigger_mode=mode, checkpoint_store=_store(), name="root")

    def run(value: Any, **options: Any) -> Any:
        return (
            compiled.invoke(value, **options)
            if how == "invoke"
            else collect(compiled.stream(value, **options))
        )

    info = _interrupt_of(lambda: run("start", checkpoint_id="1"))
    sub = info.sub_graphs["2"]
    assert (sub.state, sub.after_nodes, sub.sub_graphs) == (TestStruct(""), ["1"], {})
    assert _chain(_root(info)) == [
        ("runnable:root;node:2", TestStruct(""), True),
        ("runnable:root", None, False),
    ]

    info = _interrupt_of(
        lambda: run("start", checkpoint_id="1", resume_data={_root(info).id: TestStruct("state")})
    )
    sub = info.sub_graphs["2"]
    assert (sub.state, sub.after_nodes, sub.before_nodes) == (TestStruct("state"), ["3"], [])
    inner = sub.sub_graphs["2"]
    assert (inner.state, inner.after_nodes, inner.sub_graphs) == (TestStruct(""), ["1"], {})
    assert _chain(_root(info)) == [
        ("runnable:root;node:2;node:2", TestStruct(""), True),
        ("runnable:root;node:2", TestStruct("state"), False),
        ("runnable:root", None, False),
    ]
    assert _root(info).id == "runnable:root;node:2;node:2"

    info = _interrupt_of(
        lambda: run("start", checkpoint_id="1", resume_data={_root(info).id: TestStruct("state")})
    )
    sub = info.sub_graphs["2"]
    assert (sub.state, sub.before_nodes, sub.after_nodes, sub.sub_graphs) == (
        TestStruct("state"),
        ["4"],
        [],
        {},
    )
    assert _chain(_root(info)) == [
        ("runnable:root;node:2", TestStruct("state"), True),
        ("runnable:root", None, False),
    ]
    result = run("start", checkpoint_id="1", resume_data={_root(info).id: TestStruct("state2")})
    assert result == "start11state1state24\nstart1134\nstate24\n3"


def test_nested_sub_graph_callbacks() -> None:
    """checkpoint_test.go TestNestedSubGraph, the graph callback counts over the three interrupted runs
    and the resume, in invoke then stream mode: 10 starts each (3 top-level runs + the innermost graph
    once x 3 + the middle graph twice x 2), 3 ends each, 14 errors (7 per mode)."""
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v + "1")
    graph.add_graph_node(
        "2", _nested_sub_graph(), compile_options={"interrupt_after": ["1", "3"], "interrupt_before": ["4"]}
    )
    graph.add_lambda_node("3", lambda v: v + "3")
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", "3")
    graph.add_edge("3", END)
    compiled = graph.compile(checkpoint_store=_store(), name="root")
    counts = _GraphCallbacks()
    for how, checkpoint_id in (("invoke", "1"), ("stream", "2")):
        data = None
        for _ in range(3):
            with pytest.raises(InterruptError) as caught:
                if how == "invoke":
                    compiled.invoke(
                        "start", checkpoint_id=checkpoint_id, callbacks=[counts], resume_data=data
                    )
                else:
                    compiled.stream(
                        "start", checkpoint_id=checkpoint_id, callbacks=[counts], resume_data=data
                    )
            data = {_root(caught.value.info).id: TestStruct("state")}
        if how == "invoke":
            compiled.invoke("start", checkpoint_id=checkpoint_id, callbacks=[counts], resume_data=data)
        else:
            collect(
                compiled.stream("start", checkpoint_id=checkpoint_id, callbacks=[counts], resume_data=data)
            )
    assert counts.counts == {"start": 10, "end": 3, "stream_start": 10, "stream_end": 3, "error": 14}


# -- rerun nodes -----------------------------------------------------------------------------------------


def test_dag_interrupt() -> None:
    """checkpoint_test.go TestDAGInterrupt: two nodes of one step are interrupt-after nodes; the resume
    merges both outputs at the passthrough."""
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v, output_key="1")
    graph.add_lambda_node("2", lambda v: v, output_key="2")
    graph.add_passthrough_node("3")
    graph.add_edge(START, "1")
    graph.add_edge(START, "2")
    graph.add_edge("1", "3")
    graph.add_edge("2", "3")
    graph.add_edge("3", END)
    compiled = graph.compile(checkpoint_store=_store(), interrupt_after=["1", "2"])
    info = _interrupt_of(lambda: compiled.invoke("input", checkpoint_id="1"))
    assert info.after_nodes == ["1", "2"]
    assert compiled.invoke("", checkpoint_id="1") == {"1": "input", "2": "input"}


@pytest.mark.parametrize("how", ["invoke", "stream"])
def test_rerun_node_interrupt(how: str) -> None:
    """checkpoint_test.go TestRerunNodeInterrupt: a node interrupts every other run; its pre-handler reads
    the state, which the resume's state modifier changed; stream mode yields one chunk."""
    times = 0

    def node(value: str) -> str:
        nonlocal times
        times += 1
        if times % 2 == 1:
            interrupt("test extra")
        return value

    graph = Graph(state=TestStruct)
    graph.add_lambda_node("1", node, pre=lambda v, s: s.a)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(checkpoint_store=_store())

    def modify(state: TestStruct) -> None:
        state.a = "state"

    if how == "invoke":
        info = _interrupt_of(lambda: compiled.invoke("input", checkpoint_id="1"))
        assert info.rerun_nodes == ["1"]
        assert compiled.invoke("", checkpoint_id="1", state_modifier=modify) == "state"
        return
    info = _interrupt_of(lambda: compiled.stream("input", checkpoint_id="2"))
    assert info.rerun_nodes == ["1"] and info.rerun_nodes_extra["1"] == "test extra"
    assert list(compiled.stream("", checkpoint_id="2", state_modifier=modify)) == ["state"]


def test_interface_resume() -> None:
    """checkpoint_test.go TestInterfaceResume: a node whose input is an interface (here: None) interrupts
    and reruns."""
    times = 0

    def node(value: Any) -> str:
        nonlocal times
        if times == 0:
            times += 1
            interrupt("test extra")
        return "success"

    graph = Graph()
    graph.add_lambda_node("1", node)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(checkpoint_store=_store())
    assert _interrupt_of(lambda: compiled.invoke(None, checkpoint_id="1")).rerun_nodes == ["1"]
    assert compiled.invoke(None, checkpoint_id="1") == "success"


def test_early_fail_callback() -> None:
    """checkpoint_test.go TestEarlyFailCallback: a run refused before its first step (a step budget on a
    DAG) still reports the graph's start and error, and no end."""
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(trigger_mode=DAG)
    counts = _GraphCallbacks()
    with pytest.raises(GraphRunError, match="cannot set max run steps in dag"):
        compiled.invoke("", callbacks=[counts], max_steps=1)
    assert (counts.counts["start"], counts.counts["error"], counts.counts["end"]) == (1, 1, 0)


def test_graph_start_interrupt() -> None:
    """checkpoint_test.go TestGraphStartInterrupt: a nested graph stops before its first node."""
    sub = Graph()
    sub.add_lambda_node("1", lambda v: v + "sub1")
    sub.add_edge(START, "1")
    sub.add_edge("1", END)
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v + "1")
    graph.add_graph_node("2", sub, compile_options={"interrupt_before": ["1"]})
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", END)
    compiled = graph.compile(checkpoint_store=_store())
    info = _interrupt_of(lambda: compiled.invoke("input", checkpoint_id="1"))
    assert info.sub_graphs["2"].before_nodes == ["1"]
    assert compiled.invoke("", checkpoint_id="1") == "input1sub1"


class _FailStore:
    """Go `failStore`: any use of the store fails the test."""

    def get(self, checkpoint_id: str) -> bytes | None:
        raise AssertionError("cannot call store")

    def set(self, checkpoint_id: str, data: bytes) -> None:
        raise AssertionError("cannot call store")


def test_with_force_new_run() -> None:
    """checkpoint_test.go TestWithForceNewRun: `force_new_run` neither reads nor writes the store."""
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v + "1")
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(checkpoint_store=_FailStore())
    assert compiled.invoke("input", checkpoint_id="1", force_new_run=True) == "input1"


def test_pre_handler_interrupt() -> None:
    """checkpoint_test.go TestPreHandlerInterrupt: after a pre-handler interrupt the node reruns with its
    input type's zero value (the run cannot be interrupted from outside, so the input is not kept)."""
    times = 0

    def pre(value: str, state: TestStruct) -> str:
        nonlocal times
        if times == 0:
            times += 1
            interrupt("")
        return value

    graph = Graph(state=TestStruct)
    graph.add_lambda_node("1", lambda v: v + "1", pre=pre)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(checkpoint_store=_store())
    assert _interrupt_of(lambda: compiled.invoke("input", checkpoint_id="1")).rerun_nodes == ["1"]
    assert compiled.invoke("", checkpoint_id="1") == "1"


# -- interrupts from outside -------------------------------------------------------------------------------


def _slow_chain(gate: Gate) -> Graph:
    def one(value: str) -> str:
        gate.pass_()
        return value + "1"

    graph = Graph()
    graph.add_lambda_node("1", one)
    graph.add_lambda_node("2", lambda v: v + "2")
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", END)
    return graph


CANCEL_CASES = [
    pytest.param(3600.0, "after", id="interrupt after nodes"),
    pytest.param(None, "after", id="infinite timeout"),
    pytest.param(0.0, "rerun", id="interrupt rerun nodes - input is preserved"),
]


@pytest.mark.parametrize("mode", [PREGEL, DAG])
@pytest.mark.parametrize(("timeout", "expect"), CANCEL_CASES)
def test_cancel_interrupt(mode: TriggerMode, timeout: float | None, expect: str) -> None:
    """checkpoint_test.go TestCancelInterrupt, Pregel and DAG: interrupted from outside while `1` runs.
    With a timeout it outlives, or none, the run waits for `1` and reports it as an after node; with
    timeout 0, `1` is abandoned and becomes a rerun node that keeps its input. The resume finishes."""
    gate = Gate()
    compiled = _slow_chain(gate).compile(trigger_mode=mode, checkpoint_store=_store())
    error = interrupted_run(
        lambda stop: compiled.invoke("input", checkpoint_id="1", interrupt_event=stop), gate, timeout
    )
    assert isinstance(error, InterruptError)
    if expect == "after":
        assert (error.info.after_nodes, error.info.rerun_nodes) == (["1"], [])
    else:
        assert (error.info.after_nodes, error.info.rerun_nodes) == ([], ["1"])
    assert compiled.invoke("input", checkpoint_id="1") == "input12"


@pytest.mark.parametrize(("timeout", "expect"), [(3600.0, "after"), (0.0, "rerun")])
def test_cancel_interrupt_dag_multi_canceled_nodes(timeout: float, expect: str) -> None:
    """checkpoint_test.go TestCancelInterrupt, "dag multi canceled nodes": two slow nodes of one DAG step
    are both after nodes (timeout outlived) or both rerun nodes (timeout 0); the resume merges them."""
    gate = Gate(blocking=2)

    def slow(suffix: str) -> Any:
        def node(value: str) -> str:
            gate.pass_()
            return value + suffix

        return node

    graph = Graph()
    graph.add_lambda_node("1", lambda v: v + "1")
    graph.add_lambda_node("2", slow("2"), output_key="2")
    graph.add_lambda_node("3", slow("3"), output_key="3")
    graph.add_lambda_node("4", lambda v: v)
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("1", "3")
    graph.add_edge("2", "4")
    graph.add_edge("3", "4")
    graph.add_edge("4", END)
    compiled = graph.compile(trigger_mode=DAG, checkpoint_store=_store())
    error = interrupted_run(
        lambda stop: compiled.invoke("input", checkpoint_id="1", interrupt_event=stop), gate, timeout
    )
    assert isinstance(error, InterruptError)
    nodes = error.info.after_nodes if expect == "after" else error.info.rerun_nodes
    assert len(nodes) == 2
    assert compiled.invoke("input", checkpoint_id="1") == {"2": "input12", "3": "input13"}


def test_persist_rerun_input_non_stream() -> None:
    """checkpoint_test.go TestPersistRerunInputNonStream: an abandoned node reruns with its input."""
    gate = Gate()
    received: list[str] = []

    def node(value: str) -> str:
        received.append(value)
        gate.pass_()
        return value + "_processed"

    graph = Graph()
    graph.add_lambda_node("1", node)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(trigger_mode=DAG, checkpoint_store=_store())
    error = interrupted_run(
        lambda stop: compiled.invoke("test_input", checkpoint_id="cp1", interrupt_event=stop), gate, 0
    )
    assert isinstance(error, InterruptError) and error.info.rerun_nodes == ["1"]
    assert received == ["test_input"]
    assert compiled.invoke("", checkpoint_id="cp1") == "test_input_processed"
    assert received == ["test_input", "test_input"] and gate.calls == 2


def test_persist_rerun_input_stream() -> None:
    """checkpoint_test.go TestPersistRerunInputStream: in stream mode the abandoned node's input stream
    is kept (concatenated) and read again on the rerun."""
    gate = Gate()
    received: list[str] = []

    def transform(chunks: Iterator[str]) -> Iterator[str]:  # reads its input before returning, as in Go
        text = "".join(chunks)
        received.append(text)
        gate.pass_()
        return iter([text + "_processed"])

    graph = Graph()
    graph.add_lambda_node("1", Lambda(transform=transform))
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(trigger_mode=DAG, checkpoint_store=_store())

    def run(stop: Any) -> None:
        collect(
            compiled.transform(
                iter(["chunk1", "chunk2", "chunk3"]), checkpoint_id="cp1", interrupt_event=stop
            )
        )

    error = interrupted_run(run, gate, 0)
    assert isinstance(error, InterruptError) and error.info.rerun_nodes == ["1"]
    assert received == ["chunk1chunk2chunk3"]
    assert collect(compiled.transform(iter([]), checkpoint_id="cp1")) == "chunk1chunk2chunk3_processed"
    assert received == ["chunk1chunk2chunk3"] * 2 and gate.calls == 2


@dataclass
class _PrefixState:
    prefix: str = "prefix_"


def test_persist_rerun_input_with_pre_handler() -> None:
    """checkpoint_test.go TestPersistRerunInputWithPreHandler: the kept input is the one before the
    pre-handler, which runs again on the rerun."""
    gate = Gate()
    received: list[str] = []

    def node(value: str) -> str:
        received.append(value)
        gate.pass_()
        return value + "_processed"

    graph = Graph(state=_PrefixState)
    graph.add_lambda_node("1", node, pre=lambda v, s: s.prefix + v)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(trigger_mode=DAG, checkpoint_store=_store())
    error = interrupted_run(
        lambda stop: compiled.invoke("test_input", checkpoint_id="cp1", interrupt_event=stop), gate, 0
    )
    assert isinstance(error, InterruptError) and error.info.rerun_nodes == ["1"]
    assert received == ["prefix_test_input"]
    assert compiled.invoke("", checkpoint_id="cp1") == "prefix_test_input_processed"
    assert received == ["prefix_test_input"] * 2 and gate.calls == 2


def test_persist_rerun_input_backward_compatibility() -> None:
    """checkpoint_test.go TestPersistRerunInputBackwardCompatibility: without an interrupt from outside
    the rerun gets the zero value; the node saved its input in its interrupt state."""
    received: list[str] = []

    def node(value: str) -> str:
        received.append(value)
        if value:
            interrupt("interrupt", state=value)
        return f"{get_interrupt_state()}_processed"

    graph = Graph()
    graph.add_lambda_node("1", node)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    compiled = graph.compile(trigger_mode=DAG, checkpoint_store=_store())
    info = _interrupt_of(lambda: compiled.invoke("test_input", checkpoint_id="cp1"))
    assert info.rerun_nodes == ["1"] and received == ["test_input"]
    assert compiled.invoke("", checkpoint_id="cp1") == "test_input_processed"
    assert received == ["test_input", ""]


def test_persist_rerun_input_sub_graph() -> None:
    """checkpoint_test.go TestPersistRerunInputSubGraph: abandoned inside a nested graph: the nested node
    (or the graph node, whichever the timeout caught first) reruns with its input."""
    gate = Gate()
    received: list[str] = []

    def sub1(value: str) -> str:
        received.append(value)
        gate.pass_()
        return value + "_sub_processed"

    sub = Graph()
    sub.add_lambda_node("sub1", sub1)
    sub.add_edge(START, "sub1")
    sub.add_edge("sub1", END)
    graph = Graph()
    graph.add_lambda_node("1", lambda v: v + "_main")
    graph.add_graph_node("2", sub)
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", END)
    compiled = graph.compile(trigger_mode=DAG, checkpoint_store=_store())
    error = interrupted_run(
        lambda stop: compiled.invoke("test", checkpoint_id="cp1", interrupt_event=stop), gate, 0
    )
    assert isinstance(error, InterruptError)
    if error.info.sub_graphs:
        assert error.info.sub_graphs["2"].rerun_nodes == ["sub1"]
    else:
        assert error.info.rerun_nodes == ["2"]
    assert received == ["test_main"]
    assert compiled.invoke("", checkpoint_id="cp1") == "test_main_sub_processed"
    assert received == ["test_main"] * 2 and gate.calls == 2


class _LongRunningTool:
    """Go `newCheckpointTestTool` around the long-running function: JSON in, JSON-encoded result out."""

    def __init__(self, gate: Gate) -> None:
        self.info = ToolInfo("long_running_tool", "A tool that takes a long time to run", {})
        self.gate = gate

    def invoke(self, arguments: str) -> str:
        self.gate.pass_()
        return json.dumps("result_" + json.loads(arguments)["input"])


def test_tools_node_with_external_graph_interrupt() -> None:
    """checkpoint_test.go TestToolsNodeWithExternalGraphInterrupt: a ToolsNode abandoned by an interrupt
    with timeout 0 reruns with its kept input (the resume's input is ignored)."""
    gate = Gate()
    graph = Graph()
    graph.add_tools_node("tools", ToolsNode([_LongRunningTool(gate)]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    compiled = graph.compile(trigger_mode=DAG, checkpoint_store=_store())
    call = ToolCall(id="call_1", name="long_running_tool", arguments='{"input": "test"}')
    message = Message.assistant("", tool_calls=[call])
    error = interrupted_run(
        lambda stop: compiled.invoke(message, checkpoint_id="cp1", interrupt_event=stop), gate, 0
    )
    assert isinstance(error, InterruptError) and error.info.rerun_nodes == ["tools"]
    result = compiled.invoke(Message.assistant(""), checkpoint_id="cp1")
    assert len(result) == 1 and result[0].content == '"result_test"'
    assert gate.calls == 2
