"""DAG mode (`ALL_PREDECESSOR`): waits for all predecessors, skip propagation, eager execution, no budget."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, TriggerMode
from graph_core.errors import GraphRunError
from tests.helpers import ALL_MODES, run_in

DAG = TriggerMode.ALL_PREDECESSOR


@ALL_MODES
def test_node_waits_for_all_predecessors(how: str) -> None:
    """a -> c and a -> b -> c: in DAG mode c runs once, with both inputs merged."""
    seen: list[Any] = []
    g = Graph()
    g.add_lambda_node("a", lambda x: {"a": x})
    g.add_lambda_node("b", lambda x: {"b": x["a"] + 1})
    g.add_lambda_node("c", lambda x: seen.append(x) or x)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    assert run_in(g.compile(trigger_mode=DAG), 1, how) == {"a": 1, "b": 2}
    assert seen == [{"a": 1, "b": 2}]


@ALL_MODES
def test_unselected_branch_target_is_skipped_and_end_waits_only_for_the_chosen(how: str) -> None:
    """TestBaseDAGBranch: the branch picks "1", "2" is skipped, END fed by both returns "hi1"."""
    ran: list[str] = []
    g = Graph()
    g.add_lambda_node("1", lambda x: ran.append("1") or x + "1")
    g.add_lambda_node("2", lambda x: ran.append("2") or x + "2")
    g.add_branch(START, Branch(lambda x: "1", ["1", "2"]))
    g.add_edge("1", END)
    g.add_edge("2", END)
    assert run_in(g.compile(trigger_mode=DAG), "hi", how) == "hi1"
    assert ran == ["1"]


@ALL_MODES
def test_skip_propagates_transitively(how: str) -> None:
    ran: list[str] = []

    def node(tag: str) -> Any:
        return lambda x: ran.append(tag) or x + tag

    g = Graph()
    for key in ("x", "y", "y2", "z"):
        g.add_lambda_node(key, node(key))
    g.add_branch(START, Branch(lambda v: "x", ["x", "y"]))
    g.add_edge("y", "y2")  # skipped because y is
    g.add_edge("x", "z")
    g.add_edge("y2", "z")  # z waits only for x
    g.add_edge("z", END)
    assert run_in(g.compile(trigger_mode=DAG), "", how) == "xz"
    assert ran == ["x", "z"]


@ALL_MODES
def test_all_predecessors_of_end_skipped_fails(how: str) -> None:
    """TestSkipBranch: nothing becomes ready, "no tasks to execute, last completed nodes: [1]"."""
    g = Graph()
    g.add_lambda_node("1", lambda x: x)
    g.add_lambda_node("2", lambda x: x)
    g.add_edge(START, "1")
    g.add_branch("1", Branch.multi(lambda x: set(), ["2"]))
    g.add_edge("2", END)
    with pytest.raises(GraphRunError, match=r"no tasks to execute, last completed nodes: \[1\]"):
        run_in(g.compile(trigger_mode=DAG), "x", how)


@pytest.mark.parametrize("how", ["sync", "async"])
def test_node_skipped_by_one_predecessor_waits_for_the_others(how: str) -> None:
    """c's predecessors: a (whose branch skipped c) and b (ready): c runs once, with b's value only."""
    seen: list[Any] = []
    g = Graph()
    g.add_lambda_node("a", lambda x: x + "a")
    g.add_lambda_node("b", lambda x: x + "b")
    g.add_lambda_node("c", lambda x: seen.append(x) or x + "c")
    g.add_edge(START, "a")
    g.add_branch("a", Branch.multi(lambda x: {"b"}, ["b", "c"]))
    g.add_edge("b", "c")
    g.add_edge("c", END)
    assert run_in(g.compile(trigger_mode=DAG), "v", how) == "vabc"
    assert seen == ["vab"]


@pytest.mark.parametrize("how", ["sync", "async"])
def test_eager_execution_starts_successors_while_siblings_run(how: str) -> None:
    """fast -> after runs while slow still runs: `after` releases `slow`, which would otherwise deadlock."""
    release = threading.Event()

    def slow(x: Any) -> Any:
        assert release.wait(5), "eager execution did not start `after` while `slow` ran"
        return {"slow": x}

    def after(x: Any) -> Any:
        release.set()
        return {"after": x}

    g = Graph()
    g.add_lambda_node("slow", slow)
    g.add_lambda_node("fast", lambda x: x)
    g.add_lambda_node("after", after)
    g.add_edge(START, "slow")
    g.add_edge(START, "fast")
    g.add_edge("fast", "after")
    g.add_edge("slow", END)
    g.add_edge("after", END)
    assert run_in(g.compile(trigger_mode=DAG), 1, how) == {"slow": 1, "after": 1}


def test_no_step_limit_and_no_runtime_override() -> None:
    g = Graph()
    keys = [f"n{i}" for i in range(30)]
    for key in keys:
        g.add_lambda_node(key, lambda x: x + 1)
    g.add_edge(START, keys[0])
    for a, b in itertools.pairwise(keys):
        g.add_edge(a, b)
    g.add_edge(keys[-1], END)
    compiled = g.compile(trigger_mode=DAG)
    assert compiled.invoke(0) == 30
    with pytest.raises(GraphRunError, match="cannot set max run steps in dag"):
        compiled.invoke(0, max_steps=5)
