"""Exporting an uncompiled `Graph` must leave it open: the user may keep adding nodes afterwards.

`as_topology` compiles a `Graph` to read its topology; compiling freezes the graph (and every nested
graph), so `to_json(graph)` followed by `graph.add_edge(...)` used to raise "graph has been compiled".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.errors import GraphBuildError
from inspector.export import as_topology, render, to_dot, to_json, to_mermaid, to_networkx
from inspector.lint import lint


def echo(value: Any) -> Any:
    return value


def chain(*keys: str) -> Graph:
    graph = Graph()
    for key in keys:
        graph.add_lambda_node(key, echo)
    for source, target in zip((START, *keys), (*keys, END), strict=True):
        graph.add_edge(source, target)
    return graph


EXPORTS: list[Callable[[Any], Any]] = [as_topology, to_json, to_dot, to_mermaid, to_networkx, lint]


@pytest.mark.parametrize("export", EXPORTS, ids=lambda f: f.__name__)
def test_graph_stays_open_after_export(export: Callable[[Any], Any]) -> None:
    graph = chain("a")
    export(graph)
    graph.add_lambda_node("b", echo)  # raised "graph has been compiled, cannot be modified"
    assert graph.compile().invoke(1) == 1


def test_nested_graph_stays_open_and_a_later_export_sees_its_additions() -> None:
    inner = chain("x")
    outer = Graph()
    outer.add_graph_node("sub", inner)
    outer.add_edge(START, "sub")
    outer.add_edge("sub", END)
    first = as_topology(outer)
    inner.add_lambda_node("y", echo)  # the nested graph was frozen by the parent's compile too
    inner.add_edge("x", "y")
    inner.add_edge("y", END)
    outer.add_lambda_node("z", echo)
    outer.add_edge("sub", "z")
    outer.add_edge("z", END)
    second = as_topology(outer)
    assert [n.key for n in second.nodes if n.key not in {m.key for m in first.nodes}] == ["z"]
    nested = next(n.graph for n in second.nodes if n.key == "sub")
    assert nested is not None and "y" in [n.key for n in nested.nodes]
    assert outer.compile().invoke(3) == 3


def test_export_of_a_later_state_reflects_additions() -> None:
    graph = Graph()
    graph.add_lambda_node("a", echo)
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    before = as_topology(graph)
    graph.add_lambda_node("b", echo)
    graph.add_edge("a", "b")
    graph.add_edge("b", END)
    after = as_topology(graph)
    assert {n.key for n in after.nodes} - {n.key for n in before.nodes} == {"b"}


def test_compiled_graph_stays_frozen_after_export() -> None:
    graph = chain("a")
    graph.compile()
    to_json(graph)
    with pytest.raises(GraphBuildError, match="has been compiled"):
        graph.add_lambda_node("b", echo)


def test_invalid_graph_still_raises_and_stays_open() -> None:
    graph = Graph()
    graph.add_lambda_node("a", echo)
    graph.add_edge(START, "a")
    with pytest.raises(GraphBuildError, match="end node not set"):
        to_json(graph)
    graph.add_edge("a", END)
    assert to_json(graph) == to_json(graph.compile())


def test_render_leaves_the_graph_open() -> None:
    graph = chain("a")
    assert render(graph, format="svg").lstrip().startswith(b"<")
    graph.add_lambda_node("b", echo)
