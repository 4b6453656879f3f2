"""Eino's `compose/values_merge_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md).

Eino's `mergeValues` is graph_core's `graph_core.runner.channels.merge_values` (what a node fed by
several predecessors receives); `RegisterValuesMergeFunc` is `register_values_merge`. Go streams are
typed; graph_core learns a stream's chunk type from its first chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

import graph_core.runner.channels
from graph_core import END, START, Graph, register_values_merge
from graph_core.errors import GraphRunError
from graph_core.runner.channels import MergeError, merge_values
from graph_core.stream import SourceEOF

M1 = {1: 1, 2: 2, 3: 3, 4: 4}
M2 = {5: 5, 6: 6, 7: 7, 8: 8}
M3 = {9: 9, 10: 10, 11: 11}


@dataclass
class TestType:
    __test__ = False  # not a pytest test class

    a: int
    b: list[str] = field(default_factory=lambda: [])


def merge_test_types(values: list[TestType]) -> TestType:
    merged = TestType(0)
    for value in values:
        if merged.a < 0:
            raise ValueError(f"test error: {merged.a}")
        merged.a += value.a
        merged.b.extend(value.b)
    merged.b.sort()
    return merged


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_core.runner.channels, "_MERGE_FUNCS", {})
    register_values_merge(TestType, merge_test_types)


def test_merge_values_merge_maps_regular() -> None:
    """values_merge_test.go Test_mergeValues/merge maps/regular: maps unite."""
    merged = merge_values([M1, M2, M3], stream=False)
    assert len(merged) == len(M1) + len(M2) + len(M3)


def test_merge_values_merge_maps_duplicated_key() -> None:
    """values_merge_test.go Test_mergeValues/merge maps/duplicated key."""
    with pytest.raises(MergeError, match="duplicated key"):
        merge_values([M1, M2, M3, {1: 1}], stream=False)


def test_merge_values_merge_stream() -> None:
    """values_merge_test.go Test_mergeValues/merge stream: three map streams interleave into one with
    every chunk, then end."""
    streams = [iter([{1: "1"}]), iter([{2: "2"}]), iter([{3: "3", 4: "4"}])]
    got: dict[int, str] = {}
    chunks = list(merge_values(streams, stream=True))
    assert len(chunks) == 3
    for chunk in chunks:
        got.update(chunk)
    assert got == {1: "1", 2: "2", 3: "3", 4: "4"}


def test_merge_values_merge_stream_with_source_eof() -> None:
    """values_merge_test.go Test_mergeValues/merge stream with source EOF: with source names, each
    source's end is reported by name and every chunk still arrives."""
    streams = [iter([{1: "1"}]), iter([{2: "2"}]), iter([{3: "3", 4: "4"}])]
    names = ["source0", "source1", "source2"]
    got: dict[int, str] = {}
    ended: set[str] = set()
    for chunk in merge_values(streams, stream=True, names=names):
        if isinstance(chunk, SourceEOF):
            ended.add(chunk.source)
            continue
        got.update(chunk)
    assert ended == set(names)
    assert got == {1: "1", 2: "2", 3: "3", 4: "4"}


VALUES = [TestType(0), TestType(1, ["1"]), TestType(2, ["2", "22"]), TestType(3, ["3", "33", "333"])]


def test_merge_values_custom_merge_regular() -> None:
    """values_merge_test.go Test_mergeValues/custom merge/regular: the registered function merges."""
    assert merge_values(VALUES, stream=False) == TestType(6, ["1", "2", "22", "3", "33", "333"])


def test_merge_values_custom_merge_custom_error() -> None:
    """values_merge_test.go Test_mergeValues/custom merge/custom error: its error is the merge's."""
    values = [TestType(0), TestType(1, ["1"]), TestType(-2, ["2", "22"]), TestType(3, ["3", "33", "333"])]
    with pytest.raises(MergeError, match="test error"):
        merge_values(values, stream=False)


def test_merge_values_custom_merge_type_mismatch() -> None:
    """values_merge_test.go Test_mergeValues/custom merge/type mismatch: a value of another type."""
    with pytest.raises(MergeError, match="type mismatch"):
        merge_values([*VALUES[:3], "test3"], stream=False)


def test_merge_values_custom_merge_stream() -> None:
    """values_merge_test.go Test_mergeValues/custom merge/stream: streams of a registered type merge
    (interleave); merging the four chunks read gives the merged value."""
    chunks = list(merge_values([iter([v]) for v in VALUES], stream=True))
    assert len(chunks) == 4
    assert merge_values(chunks, stream=False) == TestType(6, ["1", "2", "22", "3", "33", "333"])


def test_merge_values_unregistered_type() -> None:
    """values_merge_test.go Test_mergeValues/unregistered type: "unsupported type"."""

    @dataclass
    class Unregistered:
        a: int = 0

    with pytest.raises(MergeError, match="unsupported type"):
        merge_values([Unregistered(), Unregistered()], stream=False)


def test_merge_values_custom_merge_in_a_graph() -> None:
    """values_merge_test.go (custom merge, as a run sees it): two nodes writing `TestType` values to
    one node in the same step get them merged by the registered function; without it the run fails
    with "(mergeValues) unsupported type"."""
    g = Graph()
    g.add_lambda_node("x", lambda _: TestType(1, ["x"]))
    g.add_lambda_node("y", lambda _: TestType(2, ["y"]))
    g.add_lambda_node("join", lambda v: v)
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    g.add_edge("x", "join")
    g.add_edge("y", "join")
    g.add_edge("join", END)
    r = g.compile()
    assert r.invoke(None) == TestType(3, ["x", "y"])
    graph_core.runner.channels._MERGE_FUNCS.clear()  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(GraphRunError, match=r"\(mergeValues\) unsupported type: TestType"):
        r.invoke(None)
