"""Audit: resuming a checkpoint that another graph wrote, or bytes that are not a checkpoint, fails before
any step with an error naming the checkpoint ID and what does not fit."""

from __future__ import annotations

import pytest

from graph_core import END, START, Graph, get_interrupt_state, get_resume_data, interrupt
from graph_core.checkpoint import CheckpointSerializationError, InMemoryCheckpointStore
from graph_core.errors import GraphRunError, InterruptError
from graph_core.runner.compiled import CompiledGraph


def _approve(text: str) -> str:
    if get_interrupt_state() is None:
        interrupt("ask", state={"text": text})
    return f"{text}:{get_resume_data()}"


def _one_node(key: str, fn: object, store: InMemoryCheckpointStore) -> CompiledGraph:
    graph = Graph()
    graph.add_lambda_node(key, fn)  # type: ignore[arg-type]
    graph.add_edge(START, key)
    graph.add_edge(key, END)
    return graph.compile(checkpoint_store=store)


def _nested(inner_key: str, store: InMemoryCheckpointStore) -> CompiledGraph:
    inner = Graph()
    inner.add_lambda_node(inner_key, _approve)
    inner.add_edge(START, inner_key)
    inner.add_edge(inner_key, END)
    outer = Graph()
    outer.add_graph_node("sub", inner.compile())
    outer.add_edge(START, "sub")
    outer.add_edge("sub", END)
    return outer.compile(checkpoint_store=store)


def test_checkpoint_of_another_graph_is_refused_by_node_name() -> None:
    store = InMemoryCheckpointStore()
    with pytest.raises(InterruptError):
        _one_node("approve", _approve, store).invoke("hi", checkpoint_id="order-1")
    ran: list[str] = []
    other = _one_node("other", lambda text: ran.append(text) or text, store)
    with pytest.raises(GraphRunError, match=r"checkpoint 'order-1'.*node 'approve'.*\['other'\]") as caught:
        other.invoke("hi", checkpoint_id="order-1")
    assert not isinstance(caught.value, InterruptError)
    assert ran == []


def test_nested_checkpoint_of_another_inner_graph_is_refused_before_any_step() -> None:
    store = InMemoryCheckpointStore()
    with pytest.raises(InterruptError):
        _nested("approve", store).invoke("hi", checkpoint_id="c")
    with pytest.raises(GraphRunError, match=r"checkpoint 'c'.*nested graph at node 'sub'.*node 'approve'"):
        _nested("renamed", store).invoke(None, checkpoint_id="c")
    assert _nested("approve", store).invoke(None, checkpoint_id="c", resume_data="yes") == ":yes"


def test_rerun_node_that_is_no_longer_a_graph_node_is_refused() -> None:
    store = InMemoryCheckpointStore()
    with pytest.raises(InterruptError):
        _nested("approve", store).invoke("hi", checkpoint_id="c")
    flat = _one_node("sub", lambda text: text, store)
    with pytest.raises(GraphRunError, match=r"checkpoint 'c'.*nested checkpoint for node 'sub'.*not a graph"):
        flat.invoke(None, checkpoint_id="c")


def test_bytes_that_are_not_a_checkpoint_name_the_checkpoint_id() -> None:
    store = InMemoryCheckpointStore()
    store.set("junk", b"not json")
    with pytest.raises(CheckpointSerializationError, match=r"checkpoint 'junk'.*invalid JSON"):
        _one_node("approve", _approve, store).invoke(None, checkpoint_id="junk")
