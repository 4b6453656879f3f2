"""More runner rules: END fan-in, async cancellation, nested graphs in stream mode, stored compile options."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, Lambda, TriggerMode
from graph_core.errors import GraphRunError
from tests.helpers import wire


def test_values_reaching_end_in_one_step_are_merged() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: {"a": x})
    g.add_lambda_node("b", lambda x: {"b": x})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", END)
    g.add_edge("b", END)
    assert g.compile().invoke(1) == {"a": 1, "b": 1}


def test_start_output_fans_out_as_the_same_object() -> None:
    seen: list[Any] = []
    g = Graph()
    g.add_lambda_node("a", lambda x: seen.append(x) or {"a": 1})
    g.add_lambda_node("b", lambda x: seen.append(x) or {"b": 1})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", END)
    g.add_edge("b", END)
    payload = {"shared": True}
    g.compile().invoke(payload)
    assert seen[0] is payload and seen[1] is payload


def test_cancelling_an_ainvoke_task_stops_the_run() -> None:
    started = threading.Event()
    ran: list[int] = []

    async def slow(x: int) -> int:
        ran.append(x)
        started.set()
        await asyncio.sleep(10)
        return x

    g = Graph()
    g.add_lambda_node("n", slow)
    wire(g, "n")

    async def main() -> None:
        task = asyncio.ensure_future(g.compile().ainvoke(1))
        while not started.is_set():
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert ran == [1]


def test_cancel_event_set_before_the_run() -> None:
    cancel = threading.Event()
    cancel.set()
    g = Graph()
    g.add_lambda_node("n", lambda x: x)
    wire(g, "n")
    with pytest.raises(GraphRunError, match="context has been canceled"):
        g.compile().invoke(1, cancel_event=cancel)


def test_nested_graph_in_stream_mode_and_dag_parent() -> None:
    inner = Graph()
    inner.add_lambda_node("split", Lambda(stream=lambda s: iter(s)))
    wire(inner, "split")

    def upper(chunks: Iterator[str]) -> Iterator[str]:
        return (c.upper() for c in chunks)

    outer = Graph()
    outer.add_graph_node("sub", inner)
    outer.add_lambda_node("up", Lambda(transform=upper))
    wire(outer, "sub", "up")
    for mode in TriggerMode:
        compiled = outer.compile(trigger_mode=mode)
        assert list(compiled.stream("abc")) == ["A", "B", "C"]
        assert compiled.invoke("abc") == "ABC"


def test_compile_keeps_interrupt_and_checkpoint_options() -> None:
    g = Graph()
    g.add_lambda_node("n", lambda x: x)
    wire(g, "n")
    store = object()
    compiled = g.compile(interrupt_before=["n"], interrupt_after=("n",), checkpoint_store=store)
    assert compiled.interrupt_before == ("n",)
    assert compiled.interrupt_after == ("n",)
    assert compiled.checkpoint_store is store
    with pytest.raises(GraphRunError, match="receive checkpoint id but have not set checkpoint store"):
        g.compile().invoke(1, checkpoint_id="x")


def test_multi_branch_accepts_dicts_and_empty_selection_ends_nowhere() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: {"a": x})
    g.add_lambda_node("b", lambda x: {"b": x})
    g.add_branch(START, Branch.multi(lambda x: {"a": True, "b": x > 0}, ["a", "b"]))
    g.add_edge("a", END)
    g.add_edge("b", END)
    compiled = g.compile()
    assert compiled.invoke(1) == {"a": 1, "b": 1}
    assert compiled.invoke(0) == {"a": 0}


def test_branch_condition_error_is_wrapped() -> None:
    def bad(x: Any) -> str:
        raise ZeroDivisionError("nope")

    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(bad, [END]))
    with pytest.raises(GraphRunError) as info:
        g.compile().invoke(1)
    assert "calculate next step fail, node: a, error: branch invoke run error: nope" in str(info.value)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
