"""Interrupts inside nested graphs: the parent records a subgraph checkpoint and reruns the graph node."""

from __future__ import annotations

import pytest

from graph_core import Graph
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import get_resume_data, interrupt, was_interrupted
from tests.helpers import wire


def _outer(calls: list[str], *, inner_before: tuple[str, ...] = ()) -> Graph:
    inner = Graph(state=lambda: {"inner": 0})

    def ask(text: str) -> str:
        calls.append("ask")
        if not was_interrupted():
            interrupt("question?")
        return f"{text}+{get_resume_data()}"

    def first(text: str) -> str:
        calls.append("first")
        return text + "1"

    inner.add_lambda_node("first", first)
    inner.add_lambda_node("ask", ask)
    wire(inner, "first", "ask")

    def pre(text: str, state: dict[str, int]) -> str:
        calls.append("pre")
        return text

    outer = Graph(state=lambda: {"outer": 0})
    outer.add_lambda_node("head", lambda t: calls.append("head") or t + "h")
    outer.add_graph_node("sub", inner, pre=pre, compile_options={"interrupt_before": inner_before})
    outer.add_lambda_node("tail", lambda t: calls.append("tail") or t + "t")
    wire(outer, "head", "sub", "tail")
    return outer


def test_nested_interrupt_resumes_inside_the_subgraph() -> None:
    calls: list[str] = []
    compiled = _outer(calls).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as caught:
        compiled.invoke("x", checkpoint_id="t")
    info = caught.value.info
    assert info.rerun_nodes == []  # Eino: the subgraph node is listed under sub_graphs only
    assert list(info.sub_graphs) == ["sub"]
    assert info.sub_graphs["sub"].rerun_nodes == ["ask"]
    assert [c.address for c in info.interrupt_contexts] == ["runnable:;node:sub;node:ask"]
    assert compiled.invoke(None, checkpoint_id="t", resume_data="A") == "+At"
    # the subgraph node's pre-handler is skipped on its rerun; `first` does not run again
    assert calls == ["head", "pre", "first", "ask", "ask", "tail"]


def test_static_interrupt_inside_a_subgraph() -> None:
    calls: list[str] = []
    compiled = _outer(calls, inner_before=("ask",)).compile(checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError) as first:
        compiled.invoke("x", checkpoint_id="t")
    assert first.value.info.rerun_nodes == []
    assert first.value.info.sub_graphs["sub"].before_nodes == ["ask"]
    with pytest.raises(InterruptError):  # `ask` itself interrupts next
        compiled.invoke(None, checkpoint_id="t")
    assert compiled.invoke(None, checkpoint_id="t", resume_data="B") == "+Bt"
    assert calls == ["head", "pre", "first", "ask", "ask", "tail"]
