"""Eino's `compose/branch_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md)."""

from __future__ import annotations

from typing import Any

from graph_core import END, START, Branch, Graph
from graph_core.runner.compiled import CompiledGraph


def three_way(branch: Branch) -> CompiledGraph:
    """START --branch--> {1, 2, 3} -> END, each node echoing its input under its own output key."""
    g = Graph()
    for key in ("1", "2", "3"):
        g.add_lambda_node(key, lambda s: s, output_key=key)
    g.add_branch(START, branch)
    for key in ("1", "2", "3"):
        g.add_edge(key, END)
    return g.compile()


def merged_stream(compiled: CompiledGraph, value: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for chunk in compiled.stream(value):
        result.update(chunk)
    return result


ENDS = {"1": True, "2": True, "3": True}


def test_multi_branch() -> None:
    """compose/branch_test.go TestMultiBranch: a multi-branch on START choosing 1 and 2; invoke and
    stream give both outputs and nothing from 3."""
    r = three_way(Branch.multi(lambda _: {"1": True, "2": True}, ENDS))
    assert r.invoke("start") == {"1": "start", "2": "start"}
    assert merged_stream(r, "start") == {"1": "start", "2": "start"}


def test_stream_multi_branch() -> None:
    """compose/branch_test.go TestStreamMultiBranch: the same with a stream multi-branch whose
    condition closes its input stream without reading it."""

    def condition(stream: Any) -> dict[str, bool]:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
        return {"1": True, "2": True}

    r = three_way(Branch.stream_multi(condition, ENDS))
    assert r.invoke("start") == {"1": "start", "2": "start"}
    assert merged_stream(r, "start") == {"1": "start", "2": "start"}
