"""Audit: branch failures are wrapped with Eino's texts (eino-semantics §2.2, graph_run.go calculateBranch).

Eino picks the wording by the run mode, not the branch kind: a stream-mode run evaluates every branch
through its collect surface ("branch collect run error"), an invoke-mode run through invoke.
"""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START, Branch, Graph
from graph_core.errors import GraphRunError


def _fail(_: Any) -> str:
    raise ValueError("no route")


def _graph(branch: Branch, *, from_start: bool) -> Graph:
    graph = Graph()
    graph.add_lambda_node("a", lambda x: x)
    graph.add_lambda_node("b", lambda x: x)
    if from_start:
        graph.add_branch(START, branch)
        graph.add_edge("a", END)
    else:
        graph.add_edge(START, "a")
        graph.add_branch("a", branch)
    graph.add_edge("b", END)
    return graph


@pytest.mark.parametrize("kind", ["single", "stream"])
def test_a_failing_branch_in_a_stream_run_is_a_collect_error_whatever_its_kind(kind: str) -> None:
    compiled = _graph(Branch(_fail, ["b", END], kind=kind), from_start=False).compile()  # type: ignore[arg-type]
    with pytest.raises(GraphRunError) as info:
        list(compiled.stream(1))
    assert str(info.value) == (
        "[GraphRunError] failed to calculate next tasks: calculate next step fail, node: a, "
        "error: branch collect run error: no route"
    )


@pytest.mark.parametrize("kind", ["single", "stream"])
def test_a_failing_branch_in_an_invoke_run_is_an_invoke_error_whatever_its_kind(kind: str) -> None:
    compiled = _graph(Branch(_fail, ["b", END], kind=kind), from_start=False).compile()  # type: ignore[arg-type]
    with pytest.raises(GraphRunError, match=r"error: branch invoke run error: no route$"):
        compiled.invoke(1)


def test_a_failing_branch_on_start_uses_the_start_step_prefix() -> None:
    compiled = _graph(Branch(_fail, ["a", "b"]), from_start=True).compile()
    with pytest.raises(GraphRunError) as info:
        list(compiled.stream(1))
    assert str(info.value) == (
        "[GraphRunError] calculate next tasks fail: calculate next step fail, node: start, "
        "error: branch collect run error: no route"
    )


def test_a_start_branch_selecting_nothing_fails_with_no_tasks_after_graph_start() -> None:
    graph = Graph()
    graph.add_lambda_node("a", lambda x: x)
    graph.add_branch(START, Branch.multi(lambda _: [], ["a"]))
    graph.add_edge("a", END)
    with pytest.raises(GraphRunError, match=r"^\[GraphRunError\] no tasks to execute after graph start$"):
        graph.compile().invoke(1)
