"""`CompiledGraph.transform` and `collect`: Eino's entry points for a run on a multi-chunk input stream."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START, Graph, Lambda
from graph_core.errors import GraphRunError


def echo_chunks() -> Graph:
    g = Graph()
    g.add_lambda_node("t", Lambda(transform=lambda stream: (chunk.upper() for chunk in stream)))
    g.add_edge(START, "t")
    g.add_edge("t", END)
    return g


def test_transform_streams_every_input_chunk_through() -> None:
    assert list(echo_chunks().compile().transform(["a", "b", "c"])) == ["A", "B", "C"]


def test_collect_concatenates_the_transformed_stream() -> None:
    assert echo_chunks().compile().collect(iter(["a", "b"])) == "AB"


def test_an_invoke_only_node_sees_the_concatenated_chunks() -> None:
    g = Graph()
    g.add_lambda_node("n", lambda s: f"<{s}>")
    g.add_edge(START, "n")
    g.add_edge("n", END)
    assert g.compile().collect(["x", "y", "z"]) == "<xyz>"


def test_a_run_refused_at_setup_reports_the_input_chunks_to_the_graph_start() -> None:
    seen: list[Any] = []

    class Observer:
        def on_start_with_stream_input(self, info: Any, input: Any) -> None:
            seen.append(list(input))

        def on_error(self, info: Any, error: BaseException) -> None:
            seen.append(type(error).__name__)

    r = echo_chunks().compile()
    with pytest.raises(GraphRunError, match="checkpoint store"):
        r.transform(["a", "b"], callbacks=[Observer()], checkpoint_id="x")
    assert seen == [["a", "b"], "GraphRunError"]
