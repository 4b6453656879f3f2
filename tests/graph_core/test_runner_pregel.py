"""Pregel runs (the default trigger mode): supersteps, END short-circuit, fan-in, budget, errors."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph
from graph_core.errors import GraphRunError, MaxStepsExceededError, NodeRunError
from tests.helpers import SYNC_ASYNC, run_in, wire


class Steps:
    def __init__(self) -> None:
        self.steps: list[tuple[int, tuple[str, ...]]] = []

    def on_step_end(self, step: Any) -> None:
        self.steps.append((step.index, step.nodes))


@SYNC_ASYNC
def test_chain_runs_one_node_per_step(how: str) -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x + "a")
    g.add_lambda_node("b", lambda x: x + "b")
    wire(g, "a", "b")
    steps = Steps()
    assert run_in(g.compile(), "", how, callbacks=[steps]) == "ab"
    assert steps.steps == [(0, ("a",)), (1, ("b",))]


@SYNC_ASYNC
def test_end_short_circuits_the_run(how: str) -> None:
    """TestPregelEnd: node1 -> END and node1 -> node2 -> END returns node1's output; node2 never runs."""
    ran: list[str] = []
    g = Graph()
    g.add_lambda_node("node1", lambda x: ran.append("node1") or "node1")
    g.add_lambda_node("node2", lambda x: ran.append("node2") or "node2")
    wire(g, "node1")
    g.add_edge("node1", "node2")
    g.add_edge("node2", END)
    assert run_in(g.compile(), "x", how) == "node1"
    assert ran == ["node1"]


@SYNC_ASYNC
def test_node_triggered_in_a_step_does_not_wait_for_other_predecessors(how: str) -> None:
    """a -> c and a -> b -> c: c runs in step 1 (from a) and again in step 2 (from b)."""
    seen: list[Any] = []
    g = Graph()
    g.add_lambda_node("a", lambda x: "a")
    g.add_lambda_node("b", lambda x: "b")
    g.add_lambda_node("c", lambda x: seen.append(x) or x)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", "c")
    g.add_lambda_node("c2", lambda x: None)
    g.add_branch("c", Branch(lambda x: END if x == "b" else "c2", [END, "c2"]))
    steps = Steps()
    assert run_in(g.compile(), "go", how, callbacks=[steps]) == "b"
    assert seen == ["a", "b"]
    assert steps.steps == [(0, ("a",)), (1, ("b", "c")), (2, ("c", "c2"))]


@SYNC_ASYNC
def test_fan_in_merges_dicts_in_one_step(how: str) -> None:
    g = Graph()
    g.add_lambda_node("x", lambda v: v, output_key="x")
    g.add_lambda_node("y", lambda v: v * 2, output_key="y")
    g.add_lambda_node("join", lambda d: d)
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    g.add_edge("x", "join")
    g.add_edge("y", "join")
    g.add_edge("join", END)
    assert run_in(g.compile(), 3, how) == {"x": 3, "y": 6}


@SYNC_ASYNC
def test_fan_in_of_duplicate_keys_and_of_strings_fails(how: str) -> None:
    g = Graph()
    g.add_lambda_node("x", lambda v: {"k": 1})
    g.add_lambda_node("y", lambda v: {"k": 2})
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    g.add_edge("x", END)
    g.add_edge("y", END)
    with pytest.raises(GraphRunError, match=r"duplicated key \('k'\) found"):
        run_in(g.compile(), 0, how)

    g = Graph()
    g.add_lambda_node("x", lambda v: "a")
    g.add_lambda_node("y", lambda v: "b")
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    g.add_edge("x", END)
    g.add_edge("y", END)
    with pytest.raises(GraphRunError, match=r"\(mergeValues\) unsupported type: str"):
        run_in(g.compile(), 0, how)


def loop_graph(limit: int) -> Graph:
    """One node looping on itself `limit` times, then END: exactly `limit` supersteps."""
    g = Graph()
    g.add_lambda_node("n", lambda x: x + 1)
    g.add_edge(START, "n")
    g.add_branch("n", Branch(lambda x: END if x >= limit else "n", ["n", END]))
    return g


@SYNC_ASYNC
def test_budget_allows_exactly_max_steps(how: str) -> None:
    compiled = loop_graph(11).compile()
    assert compiled.max_run_steps == 11  # one node + 10
    assert run_in(compiled, 0, how) == 11
    with pytest.raises(MaxStepsExceededError, match="exceeds max steps") as info:
        run_in(loop_graph(12).compile(), 0, how)
    assert str(info.value) == "[GraphRunError] exceeds max steps"


@SYNC_ASYNC
def test_runtime_max_steps_overrides_compile_value(how: str) -> None:
    compiled = loop_graph(5).compile(max_run_steps=100)
    with pytest.raises(MaxStepsExceededError):
        run_in(compiled, 0, how, max_steps=4)
    assert run_in(compiled, 0, how, max_steps=5) == 5
    with pytest.raises(GraphRunError, match="max run steps limit must be at least 1"):
        run_in(loop_graph(5).compile(max_run_steps=-1), 0, how)


@SYNC_ASYNC
def test_budget_is_reported_at_step_boundaries(how: str) -> None:
    budgets: list[tuple[str, int, int, int | None, int | None]] = []

    class Observer:
        def on_step_start(self, s: Any) -> None:
            budgets.append(
                ("start", s.index, s.budget.steps_used, s.budget.steps_max, s.budget.steps_remaining)
            )

        def on_step_end(self, s: Any) -> None:
            budgets.append(
                ("end", s.index, s.budget.steps_used, s.budget.steps_max, s.budget.steps_remaining)
            )

    run_in(loop_graph(2).compile(max_run_steps=5), 0, how, callbacks=[Observer()])
    assert budgets == [
        ("start", 0, 0, 5, 5),
        ("end", 0, 1, 5, 4),
        ("start", 1, 1, 5, 4),
        ("end", 1, 2, 5, 3),
    ]


@SYNC_ASYNC
def test_node_error_carries_path_and_cause(how: str) -> None:
    boom = ValueError("boom")

    def fail(x: Any) -> Any:
        raise boom

    g = Graph()
    g.add_lambda_node("bad", fail)
    wire(g, "bad")
    with pytest.raises(NodeRunError) as info:
        run_in(g.compile(), 1, how)
    assert info.value.node_path == ["bad"]
    assert info.value.__cause__ is boom
    assert str(info.value) == "[NodeRunError] boom\n------------------------\nnode path: [bad]"


@SYNC_ASYNC
def test_no_successors_fails_with_last_completed_nodes(how: str) -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("dead", lambda x: x)
    g.add_edge("a", "dead")
    g.add_edge("a", END)
    g.add_branch(START, Branch(lambda x: "dead", ["dead", "a"]))
    with pytest.raises(GraphRunError, match=r"no tasks to execute, last completed nodes: \[dead\]"):
        run_in(g.compile(), 1, how)


@SYNC_ASYNC
def test_branch_from_start_straight_to_end(how: str) -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: "a")
    g.add_branch(START, Branch(lambda x: END, ["a", END]))
    g.add_edge("a", END)
    assert run_in(g.compile(), "in", how) == "in"


@SYNC_ASYNC
def test_branch_returning_unknown_end_fails(how: str) -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("b", lambda x: x)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: "nowhere", ["b", END]))
    g.add_edge("b", END)
    with pytest.raises(GraphRunError, match="branch invocation returns unintended end node: nowhere"):
        run_in(g.compile(), 1, how)


@SYNC_ASYNC
def test_cancel_event_stops_between_steps(how: str) -> None:
    cancel = threading.Event()

    def step(x: int) -> int:
        if x == 2:
            cancel.set()
        return x + 1

    g = Graph()
    g.add_lambda_node("n", step)
    g.add_edge(START, "n")
    g.add_branch("n", Branch(lambda x: "n", ["n", END]))
    with pytest.raises(GraphRunError, match="context has been canceled: context canceled"):
        run_in(g.compile(max_run_steps=100), 0, how, cancel_event=cancel)


@SYNC_ASYNC
def test_parallel_tasks_in_one_step_overlap(how: str) -> None:
    """Both tasks of a step must be running at once: each waits for the other on a barrier."""
    barrier = threading.Barrier(2, timeout=5)

    def meet(tag: str) -> Any:
        def fn(x: Any) -> Any:
            barrier.wait()
            return {tag: x}

        return fn

    g = Graph()
    g.add_lambda_node("l", meet("l"))
    g.add_lambda_node("r", meet("r"))
    g.add_edge(START, "l")
    g.add_edge(START, "r")
    g.add_edge("l", END)
    g.add_edge("r", END)
    assert run_in(g.compile(), 1, how) == {"l": 1, "r": 1}


def test_async_lambdas_are_awaited() -> None:
    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return x * 2

    g = Graph()
    g.add_lambda_node("d", double)
    wire(g, "d")
    compiled = g.compile()
    assert asyncio.run(compiled.ainvoke(4)) == 8
    assert compiled.invoke(4) == 8


@SYNC_ASYNC
def test_async_branch_condition(how: str) -> None:
    async def pick(x: int) -> str:
        return END if x > 2 else "n"

    g = Graph()
    g.add_lambda_node("n", lambda x: x + 1)
    g.add_edge(START, "n")
    g.add_branch("n", Branch(pick, ["n", END]))
    assert run_in(g.compile(), 0, how) == 3
