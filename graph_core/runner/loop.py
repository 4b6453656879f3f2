"""The superstep loop of a graph run: one tick of named phases, written once, driven sync or async.

`run_graph` is a generator: it yields `Wait` when tasks must run and `Await` when a user callable
returned an awaitable, and returns the graph output. `_steps` is the whole superstep, top to bottom, in
Eino's order (§2.2), the way LangGraph's `PregelLoop.tick` reads: each phase is a call to a function
over the run's plain data, in `phases` (prepare, handlers, collect, report) and `route` (writes,
branches, next tasks), tested one by one in tests/graph_core/test_runner_phases.py and
tests/graph_core/test_runner_route.py. START's output is routed before the first step (not a step).

While nothing observes or can interrupt the run, its steps of one task run as lone steps (`lone`):
the same phases for one task as one plain loop, any other step through the phases here.

The imports run one way: `graph` (the builder) -> `compiled` -> `driver` -> `loop` -> `lone` -> `route`
-> `phases` -> `run` -> `plan` -> `graph_core.spec`; no module below imports one above it.
"""

from __future__ import annotations

from typing import Any

from graph_core.errors import GraphError, GraphRunError, HandlerError
from graph_core.interrupt import AbandonedTask
from graph_core.runner import aio
from graph_core.runner import lone as lone_steps
from graph_core.runner.interrupts import capture
from graph_core.runner.phases import (
    NOT_ENDED,
    Effects,
    Step,
    call_handler,
    collect_completed,
    interrupted_from_outside,
    report_end,
    report_failure,
    resolve_failures,
    run_handler,
    start_step,
)
from graph_core.runner.route import (
    apply_writes,
    aprepare_next_tasks,
    prepare_next_tasks,
    route_lone,
    write_now,
)
from graph_core.runner.run import Await, RunContext, RunData, Task, Wait, notify_handlers

__all__ = ["Effects", "HandlerError", "run_graph"]


def _after_nodes(rc: RunContext, done: tuple[str, ...], halted: list[Task]) -> list[str]:
    """The after nodes of a step in which some tasks interrupted (Eino `resolveInterruptCompletedTasks`):
    completed interrupt-after nodes, or every completed node when an interrupt from outside waited for
    them (none when it abandoned some)."""
    stopped = {t.node.key for t in halted}
    external = interrupted_from_outside(rc) and not any(isinstance(t.error, AbandonedTask) for t in halted)
    return [k for k in done if k not in stopped and (external or k in rc.interrupt_after)]


def _static_interrupt(rc: RunContext, data: RunData, done: tuple[str, ...]) -> Effects:
    """Eino's interrupt-after (a completed node) and interrupt-before (a computed next task).

    An interrupt from outside (`interrupt_event`, Eino's `cancel()` without a timeout) waited for the
    step's running tasks: every task of the step is an after node, and the next tasks are saved.
    """
    external = interrupted_from_outside(rc)
    after = list(done) if external else [k for k in done if k in rc.interrupt_after]
    before = [k for k, _ in data.pending if k in rc.interrupt_before]
    if after or before:
        if rc.aio:
            yield Await(aio.settle(data, []))
        raise capture(rc, data, [], before=before, after=after, external=external)


def _steps(rc: RunContext, data: RunData) -> Effects:
    """The superstep loop (Eino's `run` loop, LangGraph's `tick`): the phases in order, one `Step` each."""
    handlers = rc.handlers
    need_all = not rc.plan.dag
    inline = rc.resolve is not None  # driven on this thread: handlers and conditions are plain calls
    run_now = rc.run_now if need_all else None  # a lone task runs in place only in a Pregel step
    lone = inline and need_all and not rc.stream  # see `route_lone`
    static_interrupts = bool(rc.interrupt_after or rc.interrupt_before or rc.interrupt_event is not None)
    fast = lone and lone_steps.fits(rc)  # steps of one task, nothing observing: see `lone`
    last: Step | None = None
    while True:
        # 0. steps of one task while nothing observes the run: phases 1-7 as one plain loop
        if fast:
            result, ran = lone_steps.run_lone(rc, data)
            if result is not NOT_ENDED:
                return result
            if ran is not None:
                last = ran
        # 1. prepare the tasks: cancelled? budget left? the step boundary, the step's tasks, on_step_start
        s = start_step(rc, data)
        try:
            # 2. pre-handlers, under the state lock (one that interrupts halts its task)
            for task in s.pre:
                if inline:
                    call_handler(rc, data, s, task, "pre")
                else:
                    yield from run_handler(rc, data, s, task, "pre")
            tasks = s.tasks
            if s.finished:  # some pre-handler interrupted: its task does not run
                tasks = [t for t in tasks if t.error is None]
            # 3. run the tasks (the driver does: Pregel waits for all, an eager DAG for the first; a lone
            # task of a sync-driven Pregel step runs here, as the driver would run it, without the round trip)
            if run_now is not None and len(tasks) == 1:
                run_now(tasks[0], rc)
                arrived = tasks
            else:
                arrived = yield Wait(tasks, need_all)
            if collect_completed(rc, data, s, arrived, last):
                collect_completed(rc, data, s, (yield Wait([], True)), last)  # eager DAG: let them finish
                data.running.clear()
            if s.halted:  # a node error fails the step; interrupted tasks stay halted (rerun nodes)
                resolve_failures(rc, s)
            # 4. post-handlers
            if s.post:
                for task in s.completed:
                    if task.node.post is not None:
                        if inline:
                            call_handler(rc, data, s, task, "post")
                        else:
                            yield from run_handler(rc, data, s, task, "post")
            # 5. apply the writes: outputs into the channels, branches decided on the way
            # 6. prepare the next tasks from the ready channels (or END's value: the output); a step in
            # which some task interrupted reads nothing: the writes wait in the channels for the checkpoint
            restored = s.restored
            completed = s.completed
            if lone and len(completed) == 1 and not s.halted and restored is None and not data.values:
                result = route_lone(rc, data, completed[0], s.decisions)  # both at once: one writer
            else:
                carried = restored.carried if restored is not None else ()
                if inline:
                    touched = write_now(rc, data, completed, s.decisions, carried=carried)
                else:
                    touched = yield from apply_writes(rc, data, completed, s.decisions, carried=carried)
                if s.halted:
                    result = NOT_ENDED
                elif rc.aio:
                    result = yield from aprepare_next_tasks(rc, data, touched, carried=bool(carried))
                else:
                    result = prepare_next_tasks(rc, data, touched, carried=bool(carried))
        except GraphError:
            if handlers.step_end:
                report_failure(rc, s)
            raise
        data.step += 1
        last = s
        # 7. report the step (on_step_end), then end the run if END was reached
        if handlers.step_end:
            report_end(rc, data, s, result)
        if result is not NOT_ENDED:
            return result
        # 8. interrupts: halted tasks (the others' outputs were delivered, END's too, and are read after
        # the rerun step on resume, as in Eino), then interrupt-after/-before and interrupts from outside
        if s.halted:
            if rc.aio:
                yield Await(aio.settle(data, s.halted))
            raise capture(rc, data, s.halted, after=_after_nodes(rc, s.done, s.halted))
        if static_interrupts:
            yield from _static_interrupt(rc, data, s.done)


def run_graph(rc: RunContext, data: RunData, input: Any) -> Effects:
    """One graph run: graph callbacks (top level only; a nested graph reports as its parent's node)."""
    handlers = rc.handlers
    report = not rc.nested
    info = rc.graph_info() if report else None
    try:
        if report:
            if rc.aio:
                input = yield Await(aio.anotify(handlers.start_stream, info, input, rc))
            else:
                starts = handlers.start_stream if rc.stream else handlers.start
                input = notify_handlers(starts, info, input, stream=rc.stream)
        if not data.started:
            data.started = True
            start = Task(rc.plan.nodes["start"], input, data.step)
            start.output = input
            prefix = "calculate next tasks fail"
            if rc.resolve is not None:
                touched = write_now(rc, data, [start], [], prefix)
            else:
                touched = yield from apply_writes(rc, data, [start], [], prefix)
            if rc.aio:
                result = yield from aprepare_next_tasks(rc, data, touched, prefix)
            else:
                result = prepare_next_tasks(rc, data, touched, prefix)
            if result is not NOT_ENDED:
                return (yield from _finish(rc, info, result))
            if not data.pending:
                raise GraphRunError("no tasks to execute after graph start")
            if rc.interrupt_before:
                yield from _static_interrupt(rc, data, ())
        result = yield from _steps(rc, data)
        return (yield from _finish(rc, info, result))
    except Exception as exc:
        if report:
            for fn in handlers.error:
                fn(info, exc)
        raise


def _finish(rc: RunContext, info: Any, result: Any) -> Effects:
    if info is None:
        return result
    if rc.aio:
        return (yield Await(aio.anotify(rc.handlers.end_stream, info, result, rc)))
    ends = rc.handlers.end_stream if rc.stream else rc.handlers.end
    return notify_handlers(ends, info, result, stream=rc.stream)
