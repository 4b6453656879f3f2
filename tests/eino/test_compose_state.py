"""Eino's `compose/state_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md).

Type names in `process_state` errors are Python's (Go prints `*compose.testStruct`).
"""

from __future__ import annotations

import contextvars
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph_core import (
    END,
    START,
    Graph,
    Lambda,
    get_interrupt_state,
    interrupt,
    process_state,
    stream_handler,
)
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError, NodeRunError
from graph_core.interrupt import composite_interrupt
from graph_core.stream import collect, copy_stream

EXPECTED = "TransformableLambda: StreamableLambda: InvokableLambda: how are you "


@dataclass
class TestState:
    __test__ = False  # not a pytest test class

    ms: list[str] = field(default_factory=lambda: [])


def test_state_graph_with_edge() -> None:
    """compose/state_test.go TestStateGraphWithEdge: invokable -> streamable -> transformable lambdas
    with pre/post handlers appending to the state (four entries when the last post handler runs); the
    same output by invoke, stream and transform."""
    seen_lengths: list[int] = []

    def l1_pre(value: str, state: TestState) -> str:
        state.ms.append(value)
        return value

    def l1_post(value: str, state: TestState) -> str:
        state.ms.append(value)
        return value

    def l2(value: str) -> Any:
        for part in ("StreamableLambda: " + value).split():
            yield part + " "

    def l2_post(value: str, state: TestState) -> str:
        state.ms.append(value)
        return value

    def l3(stream: Any) -> Any:
        for part in ["TransformableLambda:"]:
            yield part + " "
        yield from stream

    def l3_post(value: str, state: TestState) -> str:
        state.ms.append(value)
        seen_lengths.append(len(state.ms))
        return value

    g = Graph(state=TestState)
    g.add_lambda_node("invokable", lambda s: "InvokableLambda: " + s, pre=l1_pre, post=l1_post)
    g.add_lambda_node("streamable", Lambda(stream=l2), post=l2_post)
    g.add_lambda_node("transformable", Lambda(transform=l3), post=l3_post)
    g.add_edge(START, "invokable")
    g.add_edge("invokable", "streamable")
    g.add_edge("streamable", "transformable")
    g.add_edge("transformable", END)
    r = g.compile()

    assert r.invoke("how are you") == EXPECTED
    assert collect(r.stream("how are you")) == EXPECTED
    assert collect(r.transform(["how are you"])) == EXPECTED
    assert seen_lengths == [4, 4, 4]


@dataclass
class UserState:
    user_id: int = 10


def run_in_node(state: Any, fn: Any) -> Any:
    """Run `fn()` inside the single node of a graph whose state factory returns `state`."""
    g = Graph(state=lambda: state)
    g.add_lambda_node("1", lambda _: fn())
    g.add_edge(START, "1")
    g.add_edge("1", END)
    return g.compile().invoke(None)


def test_state_graph_utils_get_state_success() -> None:
    """compose/state_test.go TestStateGraphUtils/getState_success: process_state finds the state."""
    assert run_in_node(UserState(), lambda: process_state(UserState, lambda s: s.user_id)) == 10


def test_state_graph_utils_get_state_nil() -> None:
    """compose/state_test.go TestStateGraphUtils/getState_nil: the state is nil: "cannot find state with
    type: ... in states chain, current state type: <nil>" (Python: NoneType)."""
    with pytest.raises(
        NodeRunError,
        match="cannot find state with type: UserState in states chain, current state type: NoneType",
    ):
        run_in_node(None, lambda: process_state(UserState, lambda s: s))


def test_state_graph_utils_get_state_type_error() -> None:
    """compose/state_test.go TestStateGraphUtils/getState_type_error: asking for another type names both."""
    with pytest.raises(
        NodeRunError, match="cannot find state with type: str in states chain, current state type: UserState"
    ):
        run_in_node(UserState(), lambda: process_state(str, lambda s: s))


@dataclass
class TwoFields:
    field1: str = ""
    field2: str = ""


def test_state_chain() -> None:
    """compose/state_test.go TestStateChain: a node writes the state with process_state, its post
    handler writes too, the next node's pre handler reads both: "startnode1node2". (Eino builds it as a
    Chain; graph_core has no Chain, so it is the same two nodes in a line.)"""

    def node1(value: str) -> str:
        process_state(TwoFields, lambda s: setattr(s, "field1", "node1"))
        return value

    def post1(value: str, state: TwoFields) -> str:
        state.field2 = "node2"
        return value

    g = Graph(state=TwoFields)
    g.add_lambda_node("node_0", node1, post=post1)
    g.add_lambda_node("node_1", lambda s: s, pre=lambda v, s: v + s.field1 + s.field2)
    g.add_edge(START, "node_0")
    g.add_edge("node_0", "node_1")
    g.add_edge("node_1", END)
    assert g.compile().invoke("start") == "startnode1node2"


def test_stream_state() -> None:
    """compose/state_test.go TestStreamState: a stream pre handler replaces the input by five chunks of
    the state's field, a stream post handler reads a copy of the output into the state and passes the
    other copy on; when transform returns the state is "111111" and the output is five "1"s."""

    @dataclass
    class Field1:
        field1: str = "1"

    s = Field1()

    def pre(stream: Any, state: Field1) -> Any:
        return iter([state.field1] * 5)

    def post(stream: Any, state: Field1) -> Any:
        first, second = copy_stream(stream, 2)
        for chunk in first:
            state.field1 += chunk
        return second

    g = Graph(state=lambda: s)
    g.add_lambda_node(
        "1", Lambda(transform=lambda stream: stream), pre=stream_handler(pre), post=stream_handler(post)
    )
    g.add_edge(START, "1")
    g.add_edge("1", END)
    output = g.compile().transform(iter(()))
    assert s.field1 == "111111"
    assert list(output) == ["1"] * 5


@dataclass
class NestedOuterState:
    value: str = "outer"
    counter: int = 0


@dataclass
class NestedInnerState:
    value: str = "inner"


def one_node_graph(key: str, fn: Any, state: Any = None) -> Graph:
    g = Graph(state=state)
    g.add_lambda_node(key, fn)
    g.add_edge(START, key)
    g.add_edge(key, END)
    return g


def test_nested_graph_state_access() -> None:
    """compose/state_test.go TestNestedGraphStateAccess: a nested graph's node sees its own state and
    its parent's."""

    def inner_node(value: str) -> str:
        outer = process_state(NestedOuterState, lambda s: s.value)
        inner = process_state(NestedInnerState, lambda s: s.value)
        return f"{value}_inner={inner}_outer={outer}"

    outer = Graph(state=NestedOuterState)
    outer.add_graph_node("inner_graph", one_node_graph("inner_node", inner_node, NestedInnerState))
    outer.add_edge(START, "inner_graph")
    outer.add_edge("inner_graph", END)
    assert outer.compile().invoke("start") == "start_inner=inner_outer=outer"


def test_nested_graph_state_shadowing() -> None:
    """compose/state_test.go TestNestedGraphStateShadowing: an inner state of the same type shadows the
    outer one."""

    @dataclass
    class CommonState:
        value: str

    def inner_node(value: str) -> str:
        return value + "_" + process_state(CommonState, lambda s: s.value)

    outer = Graph(state=lambda: CommonState("outer"))
    inner = one_node_graph("inner_node", inner_node, lambda: CommonState("inner"))
    outer.add_graph_node("inner_graph", inner)
    outer.add_edge(START, "inner_graph")
    outer.add_edge("inner_graph", END)
    assert outer.compile().invoke("start") == "start_inner"


def read_outer(value: str) -> str:
    counter, outer_value = process_state(NestedOuterState, lambda s: (s.counter, s.value))
    return f"{value}_counter={counter}_value={outer_value}"


def test_nested_graph_state_after_resume() -> None:
    """compose/state_test.go TestNestedGraphStateAfterResume: the outer node sets the counter to 42, the
    nested graph interrupts before its node; on resume the nested node sees the restored outer state."""

    def outer_node(value: str) -> str:
        process_state(NestedOuterState, lambda s: setattr(s, "counter", 42))
        return value

    outer = Graph(state=NestedOuterState)
    outer.add_lambda_node("outer_node", outer_node)
    inner = one_node_graph("inner_node", read_outer, NestedInnerState)
    outer.add_graph_node("inner_graph", inner, compile_options={"interrupt_before": ["inner_node"]})
    outer.add_edge(START, "outer_node")
    outer.add_edge("outer_node", "inner_graph")
    outer.add_edge("inner_graph", END)
    r = outer.compile(checkpoint_store=InMemoryCheckpointStore())

    with pytest.raises(InterruptError):
        r.invoke("start", checkpoint_id="state_resume_test")
    assert r.invoke("start", checkpoint_id="state_resume_test") == "start_counter=42_value=outer"


def test_lambda_nested_graph_state_access() -> None:
    """compose/state_test.go TestLambdaNestedGraphStateAccess: a graph invoked from inside a lambda
    node (not embedded) still sees the calling graph's state."""

    def inner_node(value: str) -> str:
        outer_value, counter = process_state(NestedOuterState, lambda s: (s.value, s.counter))
        inner = process_state(NestedInnerState, lambda s: s.value)
        return f"{value}_inner={inner}_outer={outer_value}_{counter}"

    inner_runnable = one_node_graph("inner_node", inner_node, NestedInnerState).compile()
    outer = one_node_graph("lambda_with_graph", inner_runnable.invoke, lambda: NestedOuterState(counter=100))
    assert outer.compile().invoke("start") == "start_inner=inner_outer=outer_100"


def test_lambda_nested_graph_state_after_resume() -> None:
    """compose/state_test.go TestLambdaNestedGraphStateAfterResume: outer node sets the counter to 99; a
    lambda runs a standalone inner graph (own checkpoint store) whose node interrupts with state; the
    lambda wraps that with a composite interrupt. Resuming the inner node's interrupt reruns the lambda,
    which resumes the inner graph, whose node now sees the restored outer state."""

    def outer_node(value: str) -> str:
        process_state(NestedOuterState, lambda s: setattr(s, "counter", 99))
        return value

    def inner_lambda(value: str) -> str:
        if get_interrupt_state() is None:
            interrupt("inner interrupt", state=NestedInnerState("inner"))
        return read_outer(value)

    inner_runnable = one_node_graph("inner_lambda", inner_lambda, NestedInnerState).compile(
        name="inner", checkpoint_store=InMemoryCheckpointStore()
    )

    def composite_lambda(value: str) -> str:
        try:
            return inner_runnable.invoke(value, checkpoint_id="inner-cp")
        except InterruptError as error:
            composite_interrupt("composite interrupt", None, [error])
            raise

    outer = Graph(state=NestedOuterState)
    outer.add_lambda_node("outer_node", outer_node)
    outer.add_lambda_node("composite_lambda", composite_lambda)
    outer.add_edge(START, "outer_node")
    outer.add_edge("outer_node", "composite_lambda")
    outer.add_edge("composite_lambda", END)
    r = outer.compile(name="root", checkpoint_store=InMemoryCheckpointStore())

    with pytest.raises(InterruptError) as info:
        r.invoke("start", checkpoint_id="lambda_state_resume_test")
    assert info.value.info.rerun_nodes == ["composite_lambda"]
    resume = {info.value.info.interrupt_contexts[0].id: None}  # Eino `ResumeWithData(ctx, id, nil)`
    out = r.invoke("start", checkpoint_id="lambda_state_resume_test", resume_data=resume)
    assert "counter=99" in out
    assert "value=outer" in out


def test_nested_graph_state_concurrency() -> None:
    """compose/state_test.go TestNestedGraphStateConcurrency: ten threads increment the outer counter
    under process_state (read, sleep, write) and ten use the inner state; the lock makes every
    increment count. (Go relies on -race; here the final counter proves the lock is held.)"""
    outer_state = NestedOuterState()

    def inner_node(value: str) -> str:
        errors: list[BaseException] = []

        def bump(s: NestedOuterState) -> None:
            current = s.counter
            time.sleep(0.001)
            s.counter = current + 1

        def work(fn: Any) -> None:
            try:
                fn()
            except BaseException as exc:
                errors.append(exc)

        threads = []
        for i in range(20):
            target = (
                (lambda: process_state(NestedOuterState, bump))
                if i < 10
                else (lambda: process_state(NestedInnerState, lambda s: None))
            )
            # a goroutine inherits its ctx; a Python thread gets the node's context explicitly
            ctx = contextvars.copy_context()
            threads.append(threading.Thread(target=ctx.run, args=(work, target)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return value

    outer = Graph(state=lambda: outer_state)
    outer.add_graph_node("inner_graph", one_node_graph("inner_node", inner_node, NestedInnerState))
    outer.add_edge(START, "inner_graph")
    outer.add_edge("inner_graph", END)
    assert outer.compile().invoke("start") == "start"
    assert outer_state.counter == 10
