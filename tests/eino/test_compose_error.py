"""Eino's `compose/error_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md).

Eino's `internalError` (original error + node path) is graph_core's `NodeRunError`: `.node_path`, and
the original error as `__cause__` (and `.error`).
"""

from __future__ import annotations

import threading

import pytest

from graph_core import END, START, Graph
from graph_core.errors import NodeRunError
from graph_core.stream import StreamError


def failing_graph() -> Graph:
    g = Graph()

    def fail(_: str) -> str:
        raise ValueError("my error")

    g.add_lambda_node("1", fail)
    g.add_edge(START, "1")
    g.add_edge("1", END)
    return g


def test_common_error() -> None:
    """compose/error_test.go TestCommonError: a node error comes back wrapped with the original error;
    transforming an empty input stream fails in node 1 with "stream reader is empty, concat fail"."""
    r = failing_graph().compile()
    with pytest.raises(NodeRunError) as info:
        r.invoke("input")
    assert str(info.value.__cause__) == "my error"

    with pytest.raises(NodeRunError) as info:
        list(r.transform([]))
    assert isinstance(info.value.__cause__, StreamError)
    assert "stream reader is empty, concat fail" in str(info.value.__cause__)
    assert info.value.node_path == ["1"]


def test_sub_graph_node_error() -> None:
    """compose/error_test.go TestSubGraphNodeError: a failing node of a nested graph reports the path
    [a, 1] and the original error."""
    g = Graph()
    g.add_graph_node("a", failing_graph())
    g.add_edge(START, "a")
    g.add_edge("a", END)
    with pytest.raises(NodeRunError) as info:
        g.compile().invoke("input")
    assert str(info.value.__cause__) == "my error"
    assert info.value.node_path == ["a", "1"]


class Canceled(Exception):
    """What the slow node raises when it sees the cancellation (Go's `context.Canceled`)."""


def test_context_cancel_during_run() -> None:
    """compose/error_test.go TestContextCancelDuringRun: cancelling while a slow node runs; the node
    sees it and returns the cancellation error, which comes back wrapped with path [slow_node] and the
    original as cause. (Go's node watches `ctx.Done()`; here it watches the run's `cancel_event`.)"""
    cancel = threading.Event()
    started = threading.Event()

    def slow_node(value: str) -> str:
        started.set()
        if cancel.wait(timeout=5):
            raise Canceled("context canceled")
        return value + "_processed"

    g = Graph()
    g.add_lambda_node("slow_node", slow_node)
    g.add_edge(START, "slow_node")
    g.add_edge("slow_node", END)
    r = g.compile()

    outcome: list[BaseException] = []

    def run() -> None:
        try:
            r.invoke("input", cancel_event=cancel)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(timeout=5)  # Go sleeps 50 ms; waiting for the node to start is deterministic
    cancel.set()
    worker.join(timeout=10)

    assert len(outcome) == 1
    error = outcome[0]
    assert isinstance(error, NodeRunError)
    assert error.node_path == ["slow_node"]
    assert isinstance(error.__cause__, Canceled)
