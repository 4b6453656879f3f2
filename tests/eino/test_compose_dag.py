"""Eino's `compose/dag_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md)."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START, Graph, TriggerMode
from graph_core.errors import GraphBuildError

DAG = TriggerMode.ALL_PREDECESSOR


def test_dag() -> None:
    """compose/dag_test.go TestDAG: in DAG mode node 3 waits for 1 and 2 and node 7 for 1 and 6 (each
    gets the merged output-key map); invoke and stream give "111" for "1". A loop 2 -> 3 -> 2 is refused
    at compile time."""
    g = Graph()
    g.add_lambda_node("1", lambda s: s, output_key="1")
    g.add_lambda_node("2", lambda s: s, output_key="2")

    def node3(m: dict[str, Any]) -> str:
        assert "1" in m, f"node 1 output fail: {m}"
        assert "2" in m, f"node 2 output fail: {m}"
        return m["1"] + m["2"]

    def node7(m: dict[str, Any]) -> str:
        assert "1" in m, f"7:node 1 output fail: {m}"
        assert "6" in m, f"7:node 6 output fail: {m}"
        return m["1"] + m["6"]

    g.add_lambda_node("3", node3)
    g.add_lambda_node("4", lambda s: s)
    g.add_lambda_node("5", lambda s: s)
    g.add_lambda_node("6", lambda s: s, output_key="6")
    g.add_lambda_node("7", node7)
    for source, target in [
        ("1", "3"),
        ("2", "3"),
        ("3", "4"),
        ("4", "5"),
        ("4", "6"),
        ("6", "7"),
        ("1", "7"),
    ]:
        g.add_edge(source, target)
    g.add_edge(START, "1")
    g.add_edge(START, "2")
    g.add_edge("7", END)
    runner = g.compile(trigger_mode=DAG)

    assert runner.invoke("hello") == "hellohellohello"
    assert runner.invoke("1") == "111"
    assert "".join(runner.stream("1")) == "111"

    gg = Graph()
    gg.add_lambda_node("1", lambda s: s, output_key="1")
    gg.add_lambda_node("2", lambda m: m["1"])
    gg.add_lambda_node("3", lambda s: s, output_key="3")
    gg.add_edge("1", "2")
    gg.add_edge("2", "3")
    gg.add_edge("3", "2")
    gg.add_edge(START, "1")
    gg.add_edge("3", END)
    with pytest.raises(GraphBuildError, match="DAG is invalid, has loop"):
        gg.compile(trigger_mode=DAG)
