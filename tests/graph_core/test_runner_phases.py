"""The superstep's phases (`graph_core.runner.phases`) called one by one, without the loop or a driver."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.errors import GraphRunError, MaxStepsExceededError, NodeRunError
from graph_core.interrupt import InterruptSignal
from graph_core.runner.phases import (
    Effects,
    Step,
    call_handler,
    collect_completed,
    report_failure,
    resolve_failures,
    run_handler,
    start_step,
)
from graph_core.runner.run import Handlers, RunContext, RunData, Task
from graph_core.stream import run_coroutine
from graph_core.topology import TriggerMode


def _pre(value: str, state: dict[str, Any]) -> str:
    state["seen"] = value
    return value + "!"


def _context(
    *, callbacks: tuple[Any, ...] = (), max_steps: int | None = None, dag: bool = False
) -> tuple[RunContext, RunData]:
    """A two-node graph (`a` with a pre-handler, then `b` with a post-handler) and a fresh run of it."""
    g = Graph(state=dict)
    g.add_lambda_node("a", lambda x: x, pre=_pre)
    g.add_lambda_node("b", lambda x: x, post=lambda x, _state: x + "?")
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", END)
    g.add_edge("b", END)
    compiled = g.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR if dag else TriggerMode.ANY_PREDECESSOR)
    return compiled._context(  # pyright: ignore[reportPrivateUsage]
        stream=False, handlers=Handlers(callbacks), max_steps=max_steps
    )


def _drive(gen: Effects) -> Any:
    """Run a generator phase that yields nothing (every callable here is sync)."""
    try:
        effect = next(gen)
    except StopIteration as stop:
        return stop.value
    raise AssertionError(f"unexpected effect {effect!r}")


def _started(rc: RunContext, data: RunData) -> Step:
    data.pending = [("b", "in-b"), ("a", "in-a")]
    return start_step(rc, data)


def test_start_builds_the_tasks_in_pending_order_and_notes_which_handlers_run() -> None:
    rc, data = _context()
    s = _started(rc, data)
    assert [(t.node.key, t.input, t.step) for t in s.tasks] == [("b", "in-b", 0), ("a", "in-a", 0)]
    assert [t.node.key for t in s.pre] == ["a"]
    assert s.post is True
    assert data.pending == []
    assert data.running == {"b": "in-b", "a": "in-a"}
    assert (s.number, s.finished, s.halted, s.failing, s.done) == (0, [], [], (), ())


def test_start_refuses_a_step_beyond_the_budget_or_after_cancellation() -> None:
    rc, data = _context(max_steps=3)
    data.step = 3
    with pytest.raises(MaxStepsExceededError):
        _started(rc, data)
    rc, data = _context()
    rc.cancel_event = threading.Event()
    rc.cancel_event.set()
    with pytest.raises(GraphRunError, match="context canceled"):
        _started(rc, data)


def test_pre_handler_replaces_the_input_under_the_state() -> None:
    rc, data = _context()
    s = _started(rc, data)
    task = s.pre[0]
    _drive(run_handler(rc, data, s, task, "pre"))
    assert task.input == "in-a!"
    assert data.running["a"] == "in-a!"
    assert rc.frame is not None and rc.frame.value == {"seen": "in-a"}


def test_a_failing_handler_blames_its_node() -> None:
    rc, data = _context()
    s = _started(rc, data)
    task = s.pre[0]
    task.input = 5  # `_pre` cannot add a str to an int
    with pytest.raises(NodeRunError, match=r"run node\[a\] pre processor fail"):
        _drive(run_handler(rc, data, s, task, "pre"))
    assert s.failing == ("a",)


def test_an_interrupting_pre_handler_halts_its_task() -> None:
    rc, data = _context()
    s = _started(rc, data)
    task = s.pre[0]

    def interrupting(value: str, state: dict[str, Any]) -> str:
        raise InterruptSignal(info="wait")

    object.__setattr__(task.node, "pre", interrupting)
    _drive(run_handler(rc, data, s, task, "pre"))
    assert s.finished == [task]
    assert isinstance(task.error, InterruptSignal)
    assert "a" not in data.running


def test_post_handler_replaces_the_output() -> None:
    rc, data = _context()
    s = _started(rc, data)
    task = s.tasks[0]
    task.output = "out"
    _drive(run_handler(rc, data, s, task, "post"))
    assert task.output == "out?"


def _sync_driven(rc: RunContext) -> RunContext:
    """What `drive_sync` sets: awaitables are resolved in place, so handlers are plain calls."""
    rc.resolve = run_coroutine
    return rc


def test_call_handler_is_run_handler_as_a_plain_call() -> None:
    rc, data = _context()
    s = _started(_sync_driven(rc), data)
    task = s.pre[0]
    assert call_handler(rc, data, s, task, "pre") is None
    assert task.input == "in-a!"
    assert data.running["a"] == "in-a!"
    assert rc.frame is not None and rc.frame.value == {"seen": "in-a"}
    post = s.tasks[0]
    post.output = "out"
    call_handler(rc, data, s, post, "post")
    assert post.output == "out?"


def test_call_handler_resolves_an_async_handler_in_place() -> None:
    rc, data = _context()
    s = _started(_sync_driven(rc), data)
    task = s.pre[0]

    async def later(value: str, state: dict[str, Any]) -> str:
        return value + " later"

    object.__setattr__(task.node, "pre", later)
    call_handler(rc, data, s, task, "pre")
    assert task.input == "in-a later"


def test_call_handler_halts_an_interrupting_task_and_blames_a_failing_one() -> None:
    rc, data = _context()
    s = _started(_sync_driven(rc), data)
    task = s.pre[0]

    def interrupting(value: str, state: dict[str, Any]) -> str:
        raise InterruptSignal(info="wait")

    object.__setattr__(task.node, "pre", interrupting)
    call_handler(rc, data, s, task, "pre")
    assert s.finished == [task]
    assert isinstance(task.error, InterruptSignal)
    assert "a" not in data.running
    rc, data = _context()
    s = _started(_sync_driven(rc), data)
    s.pre[0].input = 5
    with pytest.raises(NodeRunError, match=r"run node\[a\] pre processor fail"):
        call_handler(rc, data, s, s.pre[0], "pre")
    assert s.failing == ("a",)


def test_start_and_collect_of_a_step_of_one_task() -> None:
    rc, data = _context()
    data.pending = [("a", "in-a")]
    s = start_step(rc, data)
    assert [(t.node.key, t.input) for t in s.tasks] == [("a", "in-a")]
    assert [t.node.key for t in s.pre] == ["a"]
    assert s.post is False
    assert data.running == {"a": "in-a"}
    assert collect_completed(rc, data, s, _completed(s, {"a": 1}, {}), None) is False
    assert (s.done, s.halted, data.running) == (("a",), [], {})
    data.pending = [("a", "again")]
    s = start_step(rc, data)
    signal = InterruptSignal(info="x")
    assert collect_completed(rc, data, s, _completed(s, {}, {"a": signal}), None) is False
    assert [t.error for t in s.halted] == [signal]


def _completed(s: Step, outputs: dict[str, Any], errors: dict[str, BaseException]) -> list[Task]:
    done = [t for t in s.tasks if t.node.key in outputs or t.node.key in errors]
    for task in done:
        task.output = outputs.get(task.node.key)
        task.error = errors.get(task.node.key)
    return done


def test_collect_sorts_by_node_order_and_frees_the_running_slots() -> None:
    rc, data = _context()
    s = _started(rc, data)
    assert collect_completed(rc, data, s, _completed(s, {"a": 1, "b": 2}, {}), None) is False
    assert s.done == ("a", "b")
    assert [t.node.key for t in s.completed] == ["a", "b"]
    assert s.halted == []
    assert data.running == {}


def test_collect_of_nothing_names_the_previous_steps_nodes() -> None:
    rc, data = _context()
    previous = _started(rc, data)
    collect_completed(rc, data, previous, _completed(previous, {"a": 1, "b": 2}, {}), None)
    s = start_step(rc, data)
    with pytest.raises(GraphRunError, match=r"no tasks to execute, last completed nodes: \[a, b\]"):
        collect_completed(rc, data, s, [], previous)


def test_collect_asks_to_wait_for_running_tasks_when_one_interrupted() -> None:
    rc, data = _context(dag=True)
    s = _started(rc, data)
    arrived = _completed(s, {}, {"a": InterruptSignal(info="x")})
    assert collect_completed(rc, data, s, arrived, None) is True  # `b` still runs
    assert collect_completed(rc, data, s, _completed(s, {"b": 2}, {}), None) is False
    assert s.done == ("a", "b")


def test_resolve_failures_sets_interrupted_tasks_aside() -> None:
    rc, data = _context()
    s = _started(rc, data)
    collect_completed(rc, data, s, _completed(s, {"b": 2}, {"a": InterruptSignal(info="x")}), None)
    resolve_failures(rc, s)
    assert [t.node.key for t in s.halted] == ["a"]
    assert [t.node.key for t in s.completed] == ["b"]


def test_resolve_failures_raises_the_node_error_and_blames_every_failed_node() -> None:
    rc, data = _context()
    s = _started(rc, data)
    arrived = _completed(s, {}, {"a": InterruptSignal(info="x"), "b": ValueError("boom")})
    collect_completed(rc, data, s, arrived, None)
    with pytest.raises(NodeRunError, match="boom") as caught:
        resolve_failures(rc, s)
    assert caught.value.node_path == ["b"]
    assert s.failing == ("a", "b")


class _StepEnds:
    def __init__(self) -> None:
        self.infos: list[Any] = []

    def on_step_end(self, info: Any) -> None:
        self.infos.append(info)


def test_report_failure_is_silent_before_any_task_completed_or_was_blamed() -> None:
    seen = _StepEnds()
    rc, data = _context(callbacks=(seen,))
    s = _started(rc, data)
    report_failure(rc, s)
    assert seen.infos == []
    s.failing = ("a",)
    report_failure(rc, s)
    assert [(i.index, i.nodes, i.errors) for i in seen.infos] == [(0, (), ("a",))]


def test_a_sync_driven_pregel_step_of_one_task_runs_in_place() -> None:
    """With `run_now` set (the sync driver sets it), a step of one task runs without a `Wait`; a step of
    two still hands its tasks to the driver."""
    from graph_core.runner.loop import run_graph
    from graph_core.runner.run import Wait
    from graph_core.runner.task import execute_sync

    g = Graph(state=dict)
    g.add_lambda_node("a", lambda x: x + "a", pre=_pre)
    g.add_lambda_node("b", lambda x: {"b": x})
    g.add_lambda_node("c", lambda x: {"c": x})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", END)
    g.add_edge("c", END)
    rc, data = g.compile()._context(  # pyright: ignore[reportPrivateUsage]
        stream=False, handlers=Handlers(()), max_steps=None
    )
    rc.resolve = run_coroutine
    rc.run_now = execute_sync
    gen = run_graph(rc, data, "x")
    effect = next(gen)  # `a` (one task, its pre-handler too) ran in place: the first effect is b and c
    assert isinstance(effect, Wait) and [t.node.key for t in effect.tasks] == ["b", "c"]
    for task in effect.tasks:
        execute_sync(task, rc)
    with pytest.raises(StopIteration) as stop:
        gen.send(effect.tasks)
    assert stop.value.value == {"b": "x!a", "c": "x!a"}
    assert rc.frame is not None and rc.frame.value == {"seen": "x"}
