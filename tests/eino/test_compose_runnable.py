"""Eino's `compose/runnable_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md).

Eino wraps one paradigm of a lambda into a runnable with all four (invoke, stream, collect, transform).
graph_core derives the missing paradigms of a `Lambda` the same way; the port runs a one-node graph
through the graph's four entry points. Go's per-call `WithLambdaOption("100")` has no graph_core
counterpart (Python closes over the value), so the "100" is bound in the lambda.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graph_core import END, START, Graph, Lambda
from graph_core.stream import collect


def option_invoke(n: int) -> str:
    return f"{n}+100"


def option_stream(n: int) -> Iterator[str]:
    yield str(n)
    yield "+"
    yield "100"


def option_collect(stream: Iterator[int]) -> str:
    first = next(stream, None)
    if first is None:
        raise ValueError("unpected EOF")
    return f"{first}+100"


def option_transform(stream: Iterator[int]) -> Iterator[str]:
    first = next(stream, None)
    if first is None:
        raise ValueError("unpected EOF")
    yield str(first)
    yield "+"
    yield "100"


PARADIGMS: dict[str, Lambda] = {
    "invoke_to_runnable": Lambda(invoke=option_invoke),
    "stream_to_runnable": Lambda(stream=option_stream),
    "transform_to_runnable": Lambda(transform=option_transform),
    "collect_to_runnable": Lambda(collect=option_collect),
}


@pytest.mark.parametrize("subtest", list(PARADIGMS))
def test_runnable_lambda(subtest: str) -> None:
    """compose/runnable_test.go TestRunnableLambda/{invoke,stream,transform,collect}_to_runnable: a
    lambda with only that paradigm gives "10+100" by invoke, stream, collect and transform."""
    g = Graph()
    g.add_lambda_node("l", PARADIGMS[subtest])
    g.add_edge(START, "l")
    g.add_edge("l", END)
    r = g.compile()
    results: list[Any] = [
        r.invoke(10),
        collect(r.stream(10)),
        r.collect(iter([10])),
        collect(r.transform(iter([10]))),
    ]
    assert results == ["10+100"] * 4
