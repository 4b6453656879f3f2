"""Audit: per-run options behave as Eino's call options do (eino-semantics §0, §2.6)."""

from __future__ import annotations

import pytest

from graph_core import END, START, Graph, TriggerMode
from graph_core.errors import GraphRunError


def _dag() -> Graph:
    graph = Graph()
    graph.add_lambda_node("a", lambda x: x + 1)
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    return graph


def test_a_dag_run_accepts_a_zero_runtime_max_steps_as_eino_ignores_non_positive_values() -> None:
    """Eino's resolveMaxSteps refuses only a positive WithRuntimeMaxSteps on a DAG."""
    compiled = _dag().compile(trigger_mode=TriggerMode.ALL_PREDECESSOR)
    assert compiled.invoke(1, max_steps=0) == 2
    assert list(compiled.stream(1, max_steps=-3)) == [2]


def test_a_dag_run_refuses_a_positive_runtime_max_steps() -> None:
    compiled = _dag().compile(trigger_mode=TriggerMode.ALL_PREDECESSOR)
    with pytest.raises(GraphRunError, match=r"^\[GraphRunError\] cannot set max run steps in dag$"):
        compiled.invoke(1, max_steps=1)
