"""Errors raised while a node's output stream is read surface as `NodeRunError` naming that node."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core import END, START, Graph, Lambda
from graph_core.errors import NodeRunError


class Boom(Exception):
    pass


def failing_words(text: str) -> Iterator[str]:
    yield "first "
    raise Boom(f"broke after one chunk of {text!r}")


def passthrough(chunks: Iterator[str]) -> Iterator[str]:
    yield from chunks


def chain(*nodes: tuple[str, Any]) -> Graph:
    g = Graph()
    previous = START
    for key, node in nodes:
        if isinstance(node, Graph):
            g.add_graph_node(key, node)
        else:
            g.add_lambda_node(key, node)
        g.add_edge(previous, key)
        previous = key
    g.add_edge(previous, END)
    return g


def read_all(compiled: Any, how: str) -> list[Any]:
    if how == "stream":
        return list(compiled.stream("x"))

    async def go() -> list[Any]:
        return [chunk async for chunk in compiled.astream("x")]

    return asyncio.run(go())


@pytest.mark.parametrize("how", ["stream", "astream"])
def test_mid_stream_error_names_the_node(how: str) -> None:
    compiled = chain(("words", Lambda(stream=failing_words))).compile()
    with pytest.raises(NodeRunError) as caught:
        read_all(compiled, how)
    assert caught.value.node_path == ["words"]
    assert isinstance(caught.value.__cause__, Boom)
    assert "broke after one chunk" in str(caught.value)


@pytest.mark.parametrize("how", ["stream", "astream"])
def test_error_read_through_a_downstream_node_keeps_the_producer(how: str) -> None:
    """The transform only relays the failure: the node whose stream broke is named."""
    graph = chain(("words", Lambda(stream=failing_words)), ("relay", Lambda(transform=passthrough)))
    compiled = graph.compile()
    with pytest.raises(NodeRunError) as caught:
        read_all(compiled, how)
    assert caught.value.node_path == ["words"]
    assert isinstance(caught.value.__cause__, Boom)


@pytest.mark.parametrize("how", ["stream", "astream"])
def test_error_in_a_transform_of_its_own_names_the_transform(how: str) -> None:
    def picky(chunks: Iterator[str]) -> Iterator[str]:
        for chunk in chunks:
            if chunk == "b":
                raise Boom("no b")
            yield chunk

    compiled = chain(("src", Lambda(stream=lambda t: iter(["a", "b"]))), ("picky", Lambda(transform=picky)))
    with pytest.raises(NodeRunError) as caught:
        read_all(compiled.compile(), how)
    assert caught.value.node_path == ["picky"]
    assert isinstance(caught.value.__cause__, Boom)


@pytest.mark.parametrize("how", ["stream", "astream"])
def test_nested_graph_stream_error_has_the_full_path(how: str) -> None:
    inner = chain(("words", Lambda(stream=failing_words)))
    middle = chain(("inner", inner))
    outer = chain(("middle", middle), ("relay", Lambda(transform=passthrough))).compile()
    with pytest.raises(NodeRunError) as caught:
        read_all(outer, how)
    assert caught.value.node_path == ["middle", "inner", "words"]
    assert isinstance(caught.value.__cause__, Boom)


def test_chunks_before_the_error_reach_the_reader() -> None:
    stream = chain(("words", Lambda(stream=failing_words))).compile().stream("x")
    assert next(stream) == "first "
    with pytest.raises(NodeRunError):
        next(stream)
