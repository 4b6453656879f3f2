"""Fan-in of streams: Eino's chunk type checks and the per-node `StreamMergeWithSourceEOF` option."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graph_core import END, START, Graph, Lambda
from graph_core.errors import GraphBuildError, GraphRunError
from graph_core.graph import FanInMergeConfig
from graph_core.stream import SourceEOF, concat_chunks, merge_streams
from tests.helpers import wire


def fan_in(s1: Any, s2: Any, target: Any, **compile_options: Any) -> Any:
    """s1 and s2 both stream into `target` in the same step (Eino's RealStreamNode shape)."""
    g = Graph()
    g.add_lambda_node("s1", Lambda(stream=lambda _: iter(s1)))
    g.add_lambda_node("s2", Lambda(stream=lambda _: iter(s2)))
    g.add_lambda_node("merge", target)
    g.add_edge(START, "s1")
    g.add_edge(START, "s2")
    g.add_edge("s1", "merge")
    g.add_edge("s2", "merge")
    g.add_edge("merge", END)
    return g.compile(**compile_options)


def recorder(chunks: Iterator[Any]) -> Iterator[Any]:
    yield from chunks


def test_source_eof_markers_name_each_finished_predecessor() -> None:
    compiled = fan_in(
        [{"a": 1}, {"b": 2}],
        [{"c": 3}],
        Lambda(transform=recorder),
        fan_in_merge={"merge": FanInMergeConfig(stream_merge_with_source_eof=True)},
    )
    chunks = list(compiled.stream(None))
    eofs = [c for c in chunks if isinstance(c, SourceEOF)]
    assert sorted(e.source for e in eofs) == ["s1", "s2"]  # Eino: 2 SourceEOFs, named s1 and s2
    data = [c for c in chunks if not isinstance(c, SourceEOF)]
    assert sorted(k for c in data for k in c) == ["a", "b", "c"]
    # each marker comes after its own source's chunks
    assert chunks.index(SourceEOF("s1")) > chunks.index({"b": 2})
    assert chunks.index(SourceEOF("s2")) > chunks.index({"c": 3})
    assert str(SourceEOF("s1")) == "EOF from source stream: s1"


def test_without_the_option_no_markers() -> None:
    compiled = fan_in([{"a": 1}], [{"c": 3}], Lambda(transform=recorder))
    assert not any(isinstance(c, SourceEOF) for c in compiled.stream(None))


def test_concat_skips_the_markers() -> None:
    """An invoke-only node gets the concatenation of its merged input: the markers do not count."""
    seen: list[Any] = []
    compiled = fan_in(
        [{"a": 1}],
        [{"c": 3}],
        lambda merged: seen.append(merged) or "done",
        fan_in_merge={"merge": FanInMergeConfig(stream_merge_with_source_eof=True)},
    )
    assert list(compiled.stream(None)) == ["done"]
    assert seen == [{"a": 1, "c": 3}]
    assert concat_chunks([SourceEOF("x"), "a", SourceEOF("y"), "b"]) == "ab"
    assert concat_chunks([SourceEOF("x"), {"k": 1}]) == {"k": 1}


def test_markers_pass_through_an_input_key() -> None:
    g = Graph()
    g.add_lambda_node("s1", Lambda(stream=lambda _: iter([{"q": "a"}])))
    g.add_lambda_node("s2", Lambda(stream=lambda _: iter([{"q": "b"}, {"other": 0}])))
    g.add_lambda_node("take", Lambda(transform=recorder), input_key="q")
    for s in ("s1", "s2"):
        g.add_edge(START, s)
        g.add_edge(s, "take")
    g.add_edge("take", END)
    config = {"take": FanInMergeConfig(stream_merge_with_source_eof=True)}
    chunks = list(g.compile(fan_in_merge=config).stream(None))
    assert sorted(c for c in chunks if isinstance(c, str)) == ["a", "b"]
    assert sorted(c.source for c in chunks if isinstance(c, SourceEOF)) == ["s1", "s2"]


def test_option_on_end() -> None:
    g = Graph()
    g.add_lambda_node("s1", Lambda(stream=lambda _: iter([{"a": 1}])))
    g.add_lambda_node("s2", Lambda(stream=lambda _: iter([{"b": 2}])))
    for s in ("s1", "s2"):
        g.add_edge(START, s)
        g.add_edge(s, END)
    compiled = g.compile(fan_in_merge={END: FanInMergeConfig(stream_merge_with_source_eof=True)})
    chunks = list(compiled.stream(None))
    assert sorted(c.source for c in chunks if isinstance(c, SourceEOF)) == ["s1", "s2"]
    assert compiled.invoke(None) == {"a": 1, "b": 2}  # invoke mode: maps merge, the option is ignored


def test_unmergeable_chunk_type_fails_while_computing_next_tasks() -> None:
    compiled = fan_in(["x"], ["y"], Lambda(transform=recorder))
    with pytest.raises(GraphRunError) as caught:
        list(compiled.stream(None))
    assert "failed to calculate next tasks: (mergeValues | stream type) unsupported chunk type: str" in str(
        caught.value
    )


def test_chunk_type_mismatch() -> None:
    compiled = fan_in([{"a": 1}], ["y"], Lambda(transform=recorder))
    with pytest.raises(GraphRunError, match=r"\(mergeStream\) chunk type mismatch. expect: dict, got: str"):
        list(compiled.stream(None))


def test_empty_sources_and_producer_errors_are_not_type_errors() -> None:
    """An empty source has no chunk type; a producer failing on its first chunk fails where it is read."""
    compiled = fan_in([], [{"c": 3}], Lambda(transform=recorder))
    assert list(compiled.stream(None)) == [{"c": 3}]

    def broken(_: Any) -> Iterator[dict[str, int]]:
        raise KeyError("boom")
        yield {}

    g = Graph()
    g.add_lambda_node("s1", Lambda(stream=broken))
    g.add_lambda_node("s2", Lambda(stream=lambda _: iter([{"c": 3}])))
    g.add_lambda_node("merge", Lambda(transform=recorder))
    for s in ("s1", "s2"):
        g.add_edge(START, s)
        g.add_edge(s, "merge")
    g.add_edge("merge", END)
    from graph_core.errors import NodeRunError

    with pytest.raises(NodeRunError) as caught:
        list(g.compile().stream(None))
    assert caught.value.node_path == ["s1"]


def test_config_for_an_unknown_node_is_a_build_error() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    wire(g, "a")
    with pytest.raises(GraphBuildError, match="'nope'"):
        g.compile(fan_in_merge={"nope": FanInMergeConfig(stream_merge_with_source_eof=True)})


def test_named_merge_unit() -> None:
    chunks = list(merge_streams([iter([1]), iter([])], names=["one", "two"]))
    assert sorted(map(repr, chunks)) == sorted(["1", "SourceEOF('one')", "SourceEOF('two')"])
    assert chunks.index(1) < chunks.index(SourceEOF("one"))
