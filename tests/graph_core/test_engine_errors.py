"""Audit: engine errors keep Eino's texts and say where they happened (eino-semantics §2.2, §2.6, §2.8)."""

from __future__ import annotations

import pytest

from graph_core import END, START, Graph
from graph_core.errors import GraphRunError, MaxStepsExceededError, NodeRunError


def _chain(*keys: str) -> Graph:
    graph = Graph()
    previous = START
    for key in keys:
        graph.add_lambda_node(key, lambda x: x)
        graph.add_edge(previous, key)
        previous = key
    graph.add_edge(previous, END)
    return graph


def _outer(inner: Graph, **compile_options: object) -> Graph:
    outer = Graph()
    outer.add_graph_node("a", inner, compile_options=dict(compile_options))
    outer.add_edge(START, "a")
    outer.add_edge("a", END)
    return outer


def test_a_nested_graph_run_error_names_the_subgraph_node_as_eino_wrapGraphNodeError_does() -> None:
    """Eino prefixes the parent node key to a subgraph's GraphRunError: the text gains `node path: [a]`."""
    outer = _outer(_chain("1", "2"), max_run_steps=1)
    with pytest.raises(MaxStepsExceededError) as info:
        outer.compile().invoke(0)
    assert not isinstance(info.value, NodeRunError)
    assert info.value.node_path == ["a"]
    assert str(info.value) == "[GraphRunError] exceeds max steps\n------------------------\nnode path: [a]"


def test_a_twice_nested_graph_run_error_lists_every_embedding_node_once() -> None:
    middle = _outer(_chain("1"), max_run_steps=-1)
    top = Graph()
    top.add_graph_node("m", middle)
    top.add_edge(START, "m")
    top.add_edge("m", END)
    with pytest.raises(GraphRunError) as info:
        top.compile().invoke(0)
    assert info.value.node_path == ["m", "a"]
    assert str(info.value).endswith(
        "max run steps limit must be at least 1\n------------------------\nnode path: [m, a]"
    )


def test_a_top_level_graph_run_error_has_no_node_path() -> None:
    """No node is to blame, so (as before) there is no `node_path` for recorders to write."""
    with pytest.raises(MaxStepsExceededError) as info:
        _chain("1", "2").compile(max_run_steps=1).invoke(0)
    assert not hasattr(info.value, "node_path")
    assert str(info.value) == "[GraphRunError] exceeds max steps"


def test_the_nested_node_path_is_the_same_in_stream_and_async_runs() -> None:
    import asyncio

    compiled = _outer(_chain("1", "2"), max_run_steps=1).compile()
    with pytest.raises(MaxStepsExceededError) as streamed:
        list(compiled.stream(0))
    with pytest.raises(MaxStepsExceededError) as awaited:
        asyncio.run(compiled.ainvoke(0))
    assert streamed.value.node_path == awaited.value.node_path == ["a"]
