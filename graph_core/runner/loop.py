"""The step logic of a graph run, written once and driven by a sync or an async driver.

`run_graph` is a generator: it yields `Wait` when tasks must run and `Await` when a user callable returned
an awaitable, and returns the graph output. Everything else (budget, cancellation, state handlers,
branches, channels, callbacks, step events) happens here, in Eino's order (§2.2):

    START's output is routed (not a step); then per step: cancelled? budget exhausted? -> pre-handlers
    -> run tasks (Pregel: wait for all; DAG: eager, wait for one) -> post-handlers -> route outputs through
    edges and branches -> END written? return at once.
"""

from __future__ import annotations

from typing import Any

from graph_core.astream import acollect, acopy_stream
from graph_core.branch import Branch
from graph_core.callbacks import BranchDecision
from graph_core.errors import GraphError, GraphRunError, HandlerError
from graph_core.interrupt import AbandonedTask
from graph_core.runner import aio, channels
from graph_core.runner.interrupts import capture
from graph_core.runner.phases import (
    NOT_ENDED,
    Effects,
    Step,
    collect_completed,
    interrupted_from_outside,
    is_awaitable,
    report_end,
    report_failure,
    resolve_failures,
    run_handler,
    start_step,
)
from graph_core.runner.plan import NodePlan
from graph_core.runner.run import Await, RunContext, RunData, Task, Wait, notify_handlers
from graph_core.stream import collect, copy_stream, one_chunk

__all__ = ["Effects", "HandlerError", "run_graph"]


def _choose(
    rc: RunContext, node: NodePlan, branch: Branch, output: Any, prefix: str
) -> tuple[str, ...] | Await:
    """A branch's chosen ends in a sync-driven run, as a plain call (no generator frame on every step);
    an `Await` when the condition returned an awaitable, which `_choose_later` then finishes."""
    is_stream = branch.kind == "stream" or branch.kind == "stream_multi"
    try:
        if rc.stream:
            arg = output if is_stream else collect(output)
        else:
            arg = one_chunk(output) if is_stream else output
        result = branch.condition(arg)
        if type(result) is str and (branch.kind == "single" or branch.kind == "stream"):
            if result in branch.ends:  # the common case, without the generic validation below
                return (result,)
        elif is_awaitable(result):
            return Await(result)
        return branch.selected(result)
    except Exception as exc:
        raise _branch_error(rc, node, prefix, exc) from exc


def _choose_later(
    rc: RunContext, node: NodePlan, branch: Branch, output: Any, prefix: str, pending: Await | None
) -> Effects:
    """`_choose` of an `astream` run (`pending` None), or the end of one whose condition was async."""
    try:
        if pending is not None:
            result = yield pending
        else:  # an `astream` run: a sync condition reading the stream does so on a worker thread
            if branch.kind != "stream" and branch.kind != "stream_multi":
                arg = yield Await(acollect(output))
                result = branch.condition(arg)
            elif aio.is_async_fn(branch.condition):
                result = branch.condition(aio.AsyncStream(output, rc.loop))
            else:
                result = aio.in_thread(branch.condition, aio.AsyncStream(output, rc.loop))
            if type(result) is str and (branch.kind == "single" or branch.kind == "stream"):
                if result in branch.ends:
                    return (result,)
            elif is_awaitable(result):
                result = yield Await(result)
        return branch.selected(result)
    except Exception as exc:
        raise _branch_error(rc, node, prefix, exc) from exc


def _branch_error(rc: RunContext, node: NodePlan, prefix: str, exc: Exception) -> GraphRunError:
    kind = "collect" if rc.stream else "invoke"  # Eino: stream runs use every branch's collect surface
    return GraphRunError(
        f"{prefix}: calculate next step fail, node: {node.key}, error: branch {kind} run error: {exc}"
    )


def _route(
    rc: RunContext,
    data: RunData,
    completed: list[Task],
    decisions: list[Any],
    prefix: str = "failed to calculate next tasks",
    *,
    carried: tuple[str, ...] = (),
    deliver_only: bool = False,
) -> Effects:
    """Eino's `calculateNextTasks`: deliver outputs, evaluate branches, then collect ready channels.

    `deliver_only` is Eino's `resolveCompletedTasks` in a step where some task interrupted: outputs go
    into the channels (END's included) and stay there for the checkpoint; nothing is read. `carried`
    names channels restored from a checkpoint, which are checked for readiness with this step's targets.
    """
    plan = rc.plan
    stream = rc.stream
    aio_run = rc.aio
    copy: Any = acopy_stream if aio_run else copy_stream
    dag = plan.dag
    observed = bool(rc.handlers.step_end)  # decisions are only reported at on_step_end
    channel_values = data.values
    touched: dict[str, None] = dict.fromkeys(carried) if carried else {}
    for task in completed:
        node = task.node
        output = task.output
        targets = node.successors
        skipped: tuple[str, ...] = ()
        branches = node.branches
        if branches:
            outputs = copy(output, len(branches) + 1) if stream else None
            picks: list[tuple[int, tuple[str, ...]]] = []
            if len(branches) == 1:
                first = output if outputs is None else outputs[0]
                chosen = None if aio_run else _choose(rc, node, branches[0], first, prefix)
                if not isinstance(chosen, tuple):  # an `astream` run or an async condition
                    chosen = yield from _choose_later(rc, node, branches[0], first, prefix, chosen)
                picks.append((0, chosen))
                ends = branches[0].ends
            else:
                merged: dict[str, None] = {}
                all_ends: dict[str, None] = {}
                for index, branch in enumerate(branches):
                    arg = outputs[index] if outputs is not None else output
                    picked = None if aio_run else _choose(rc, node, branch, arg, prefix)
                    if not isinstance(picked, tuple):
                        picked = yield from _choose_later(rc, node, branch, arg, prefix, picked)
                    picks.append((index, picked))
                    merged.update(dict.fromkeys(picked))
                    all_ends.update(dict.fromkeys(branch.ends))
                chosen, ends = tuple(merged), tuple(all_ends)
            if outputs is not None:
                output = outputs[-1]
            if chosen:
                targets = (*targets, *(t for t in chosen if t not in targets)) if targets else chosen
            if dag:  # Pregel channels ignore skip reports (Eino §2.3)
                skipped = tuple(e for e in ends if e not in chosen and e not in node.successors)
            if observed:
                known = rc.decisions
                for index, picked in picks:
                    key = (node.key, index, picked, chosen)
                    decision = known.get(key)
                    if decision is None:  # decisions repeat in loops: each is built once per run
                        rest = tuple(e for e in branches[index].ends if e not in chosen)
                        decision = known[key] = BranchDecision(node.key, index, picked, rest)
                    decisions.append(decision)
        values = copy(output, len(targets)) if stream and len(targets) > 1 else None
        for i, target in enumerate(targets):
            slot = channel_values.get(target)
            if slot is None:
                slot = channel_values[target] = {}
            slot[node.key] = values[i] if values is not None else output
            touched[target] = None
            if dag:
                channels.report_ready(data, node.key, target)
        for target in skipped:
            channels.report_skip(plan, data, node.key, target, touched)
    if deliver_only:
        return NOT_ENDED
    if dag:
        ready = [key for key in touched if channels.is_ready(plan, data, key)]
    elif carried:  # a restored channel may have been read already
        ready = [key for key in touched if key in channel_values]
    else:  # Pregel: every touched channel was just written
        ready = list(touched)
    try:
        if rc.aio:  # reading a merged channel peeks at async streams: awaited
            if "end" in ready:
                return (yield Await(channels.aread(plan, data, "end")))
            ready.sort(key=lambda key: plan.nodes[key].order)
            pending: list[tuple[str, Any]] = []
            for key in ready:
                pending.append((key, (yield Await(channels.aread(plan, data, key)))))
            data.pending = pending
            return NOT_ENDED
        if "end" in ready:
            return channels.read(plan, data, "end", stream=stream)
        if len(ready) == 1:
            data.pending = [(ready[0], channels.read(plan, data, ready[0], stream=stream))]
        else:
            ready.sort(key=lambda key: plan.nodes[key].order)
            data.pending = [(key, channels.read(plan, data, key, stream=stream)) for key in ready]
    except ValueError as exc:
        raise GraphRunError(f"{prefix}: {exc}") from exc
    return NOT_ENDED


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
    last: Step | None = None
    while True:
        s = start_step(rc, data)
        try:
            for task in s.pre:
                yield from run_handler(rc, data, s, task, "pre")
            tasks = s.tasks
            if s.finished:  # some pre-handler interrupted: its task does not run
                tasks = [t for t in tasks if t.error is None]
            if collect_completed(rc, data, s, (yield Wait(tasks, need_all)), last):
                collect_completed(rc, data, s, (yield Wait([], True)), last)  # eager DAG: let them finish
                data.running.clear()
            if s.halted:
                resolve_failures(rc, s)
            if s.post:
                for task in s.completed:
                    if task.node.post is not None:
                        yield from run_handler(rc, data, s, task, "post")
            restored = s.restored
            result = yield from _route(
                rc,
                data,
                s.completed,
                s.decisions,
                carried=restored.carried if restored is not None else (),
                deliver_only=bool(s.halted),
            )
        except GraphError:
            if handlers.step_end:
                report_failure(rc, s)
            raise
        data.step += 1
        last = s
        if handlers.step_end:
            report_end(rc, data, s, result)
        if result is not NOT_ENDED:
            return result
        # some tasks interrupted: the others' outputs were delivered to the channels (END's too) and
        # the run stops; on resume they are read after the rerun step, as in Eino
        if s.halted:
            if rc.aio:
                yield Await(aio.settle(data, s.halted))
            raise capture(rc, data, s.halted, after=_after_nodes(rc, s.done, s.halted))
        if rc.interrupt_after or rc.interrupt_before or rc.interrupt_event is not None:
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
            result = yield from _route(rc, data, [start], [], "calculate next tasks fail")
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
