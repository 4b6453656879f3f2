"""Phases 5 and 6 of a superstep (`graph_core.runner.route`) called on their own, without the loop or a
driver: writes into channels, branch decisions, skip reports, and the next tasks read from the channels."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START, Branch, Graph
from graph_core.callbacks import BranchDecision
from graph_core.errors import GraphRunError
from graph_core.runner.phases import NOT_ENDED, Effects
from graph_core.runner.route import apply_writes, prepare_next_tasks, route_lone, write_now
from graph_core.runner.run import Handlers, RunContext, RunData, Task
from graph_core.stream import run_coroutine
from graph_core.topology import TriggerMode


class _StepEnd:
    def on_step_end(self, info: Any) -> None:  # its presence makes the route record decisions
        pass


def _context(*, dag: bool = False, observed: bool = False) -> tuple[RunContext, RunData]:
    """`a` branches to `b` or `c` (both into END); `a` also has a plain edge to `d`, which ends too."""
    g = Graph()
    for key in "abcd":
        g.add_lambda_node(key, lambda x: x)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: "b" if x == "go-b" else "c", ["b", "c"]))
    g.add_edge("a", "d")
    for key in "bcd":
        g.add_edge(key, END)
    compiled = g.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR if dag else TriggerMode.ANY_PREDECESSOR)
    callbacks = (_StepEnd(),) if observed else ()
    return compiled._context(  # pyright: ignore[reportPrivateUsage]
        stream=False, handlers=Handlers(callbacks), max_steps=None
    )


def _drive(gen: Effects) -> Any:
    """Run a generator phase that yields nothing (every callable here is sync)."""
    try:
        effect = next(gen)
    except StopIteration as stop:
        return stop.value
    raise AssertionError(f"unexpected effect {effect!r}")


def _done(rc: RunContext, key: str, output: Any) -> Task:
    task = Task(rc.plan.nodes[key], None, 0)
    task.output = output
    return task


def test_writes_go_to_the_edge_targets_and_the_chosen_branch_end() -> None:
    rc, data = _context(observed=True)
    decisions: list[Any] = []
    touched = _drive(apply_writes(rc, data, [_done(rc, "a", "go-b")], decisions))
    assert list(touched) == ["d", "b"]
    assert data.values == {"d": {"a": "go-b"}, "b": {"a": "go-b"}}
    assert decisions == [BranchDecision("a", 0, ("b",), ("c",))]
    assert data.control == {}  # Pregel channels take no control reports


def test_a_dag_reports_ready_and_skips_the_ends_not_chosen() -> None:
    rc, data = _context(dag=True)
    touched = _drive(apply_writes(rc, data, [_done(rc, "a", "go-c")], []))
    assert data.control["c"] == {"a": "ready"} and data.control["b"] == {"a": "skipped"}
    assert "b" in data.skipped  # its only predecessor skipped it
    assert "b" in touched


def test_decisions_are_built_only_when_someone_reads_them() -> None:
    rc, data = _context()
    decisions: list[Any] = []
    _drive(apply_writes(rc, data, [_done(rc, "a", "go-b")], decisions))
    assert decisions == []


def test_a_failing_condition_names_its_node() -> None:
    rc, data = _context()
    task = _done(rc, "a", "go-b")
    object.__setattr__(task.node.branches[0], "condition", lambda x: 1 / 0)
    with pytest.raises(
        GraphRunError, match="calculate next step fail, node: a, error: branch invoke run error"
    ):
        _drive(apply_writes(rc, data, [task], []))


def test_the_next_tasks_are_read_in_node_order_and_empty_their_channels() -> None:
    rc, data = _context()
    touched = _drive(apply_writes(rc, data, [_done(rc, "a", "go-c")], []))
    assert prepare_next_tasks(rc, data, touched) is NOT_ENDED
    assert data.pending == [("c", "go-c"), ("d", "go-c")]
    assert data.values == {}


def test_end_ready_returns_the_output_at_once() -> None:
    rc, data = _context()
    touched = _drive(apply_writes(rc, data, [_done(rc, "d", "answer")], []))
    assert prepare_next_tasks(rc, data, touched) == "answer"
    assert data.pending == []


def test_a_dag_node_waits_for_every_control_predecessor() -> None:
    """END has three predecessors in DAG mode: it runs once `b` (skipped), `c` and `d` all reported."""
    rc, data = _context(dag=True)
    touched = _drive(apply_writes(rc, data, [_done(rc, "a", "go-c")], []))  # b skipped: END hears from it
    assert prepare_next_tasks(rc, data, touched) is NOT_ENDED
    assert [key for key, _ in data.pending] == ["c", "d"]
    touched = _drive(apply_writes(rc, data, [_done(rc, "c", {"c": 2})], []))
    assert prepare_next_tasks(rc, data, touched) is NOT_ENDED
    assert data.pending == []  # END still waits for `d`
    touched = _drive(apply_writes(rc, data, [_done(rc, "d", {"d": 1})], []))
    assert prepare_next_tasks(rc, data, touched) == {"c": 2, "d": 1}


def test_a_merge_error_is_a_run_error_with_the_phase_prefix() -> None:
    rc, data = _context()
    touched = _drive(apply_writes(rc, data, [_done(rc, "c", 1), _done(rc, "d", 2)], []))
    with pytest.raises(GraphRunError, match=r"failed to calculate next tasks: .*unsupported type: int"):
        prepare_next_tasks(rc, data, touched)


def _sync_driven(rc: RunContext) -> RunContext:
    """What `drive_sync` sets: an awaitable condition result is resolved in place."""
    rc.resolve = run_coroutine
    return rc


@pytest.mark.parametrize("dag", [False, True])
@pytest.mark.parametrize("output", ["go-b", "go-c"])
def test_write_now_writes_what_apply_writes_writes(dag: bool, output: str) -> None:
    rc, data = _context(dag=dag, observed=True)
    decisions: list[Any] = []
    touched = _drive(apply_writes(rc, data, [_done(rc, "a", output)], decisions))
    rc2, data2 = _context(dag=dag, observed=True)
    decisions2: list[Any] = []
    assert write_now(_sync_driven(rc2), data2, [_done(rc2, "a", output)], decisions2) == touched
    assert (data2.values, data2.control, data2.skipped) == (data.values, data.control, data.skipped)
    assert decisions2 == decisions


def test_write_now_resolves_an_async_condition_in_place() -> None:
    rc, data = _context()
    task = _done(rc, "a", "go-b")

    async def later(x: str) -> str:
        return "c"

    object.__setattr__(task.node.branches[0], "condition", later)
    assert list(write_now(_sync_driven(rc), data, [task], [])) == ["d", "c"]


def _loop() -> tuple[RunContext, RunData]:
    """The ReAct shape: `chat` branches to `tools` or END, `tools` goes back to `chat`; sync-driven."""
    g = Graph()
    g.add_lambda_node("chat", lambda x: x)
    g.add_lambda_node("tools", lambda x: x)
    g.add_edge(START, "chat")
    g.add_branch("chat", Branch(lambda x: "tools" if x == "call" else END, ["tools", END]))
    g.add_edge("tools", "chat")
    rc, data = g.compile()._context(  # pyright: ignore[reportPrivateUsage]
        stream=False, handlers=Handlers(()), max_steps=None
    )
    return _sync_driven(rc), data


def test_route_lone_hands_the_output_to_the_one_target_without_filling_a_channel() -> None:
    rc, data = _loop()
    assert route_lone(rc, data, _done(rc, "chat", "call"), []) is NOT_ENDED
    assert data.pending == [("tools", "call")]
    assert data.values == {}
    assert route_lone(rc, data, _done(rc, "tools", "result"), []) is NOT_ENDED  # a plain edge
    assert data.pending == [("chat", "result")]
    assert route_lone(rc, data, _done(rc, "chat", "answer"), []) == "answer"  # END: the run's output


def test_route_lone_of_other_shapes_is_apply_writes_then_prepare_next_tasks() -> None:
    """Two targets (an edge and a chosen end), and a decision someone observes."""
    rc, data = _context(observed=True)
    decisions: list[Any] = []
    assert route_lone(_sync_driven(rc), data, _done(rc, "a", "go-c"), decisions) is NOT_ENDED
    assert data.pending == [("c", "go-c"), ("d", "go-c")]
    assert data.values == {}
    assert decisions == [BranchDecision("a", 0, ("c",), ("b",))]


def test_route_lone_names_the_node_of_a_failing_or_wrong_condition() -> None:
    rc, data = _loop()
    task = _done(rc, "chat", "call")
    object.__setattr__(task.node.branches[0], "condition", lambda x: "nowhere")
    with pytest.raises(GraphRunError, match=r"node: chat, error: branch invoke run error: .*unintended"):
        route_lone(rc, data, task, [])
