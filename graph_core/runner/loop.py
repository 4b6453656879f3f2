"""The step logic of a graph run, written once and driven by a sync or an async driver.

`run_graph` is a generator: it yields `Wait` when tasks must run and `Await` when a user callable returned
an awaitable, and returns the graph output. Everything else (budget, cancellation, state handlers,
branches, channels, callbacks, step events) happens here, in Eino's order (§2.2):

    START's output is routed (not a step); then per step: cancelled? budget exhausted? -> pre-handlers
    -> run tasks (Pregel: wait for all; DAG: eager, wait for one) -> post-handlers -> route outputs through
    edges and branches -> END written? return at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Generator
from typing import Any

from graph_core.branch import Branch
from graph_core.callbacks import BranchDecision
from graph_core.errors import GraphError, GraphRunError, MaxStepsExceededError, NodeRunError
from graph_core.runner import channels
from graph_core.runner.plan import NodePlan
from graph_core.runner.run import Await, RunContext, RunData, Task, Wait
from graph_core.state import StreamHandler
from graph_core.stream import collect, copy_stream, one_chunk

__all__ = ["HandlerError", "run_graph"]

Effects = Generator[Wait | Await, Any, Any]
_NOT_ENDED: Any = object()


class HandlerError(GraphError, RuntimeError):
    """A state pre- or post-handler failed; the original error is `__cause__`."""


def _node_error(rc: RunContext, task: Task) -> GraphError:
    error = task.error
    assert error is not None
    if task.node.graph is not None and isinstance(error, GraphRunError):
        return error  # a nested run already reports its full path
    wrapped = NodeRunError(error, (*rc.path, task.node.key))
    wrapped.__cause__ = error
    return wrapped


def _handler_error(rc: RunContext, node: NodePlan, which: str, exc: BaseException) -> NodeRunError:
    inner = HandlerError(f"run node[{node.key}] {which} processor fail: {exc}")
    inner.__cause__ = exc
    error = NodeRunError(inner, (*rc.path, node.key))
    error.__cause__ = exc
    return error


def _run_handler(rc: RunContext, node: NodePlan, which: str, value: Any) -> Effects:
    """A state handler under the state lock; a plain handler in stream mode sees the concatenated stream."""
    handler = node.pre if which == "pre" else node.post
    frame = rc.frame
    assert frame is not None
    streaming = isinstance(handler, StreamHandler)
    try:
        if rc.stream and not streaming:
            value = collect(value)
        elif streaming and not rc.stream:
            value = one_chunk(value)
        with frame.lock:
            result = handler(value, frame.value)
        if inspect.isawaitable(result):
            result = yield Await(result)
        if streaming:
            return result if rc.stream else collect(result)
    except Exception as exc:
        raise _handler_error(rc, node, which, exc) from exc
    return one_chunk(result) if rc.stream else result


def _choose(rc: RunContext, node: NodePlan, branch: Branch, output: Any, prefix: str) -> Effects:
    if rc.stream:
        arg = output if branch.is_stream else collect(output)
    else:
        arg = one_chunk(output) if branch.is_stream else output
    try:
        result = branch.condition(arg)
        if inspect.isawaitable(result):
            result = yield Await(result)
        return branch.selected(result)
    except Exception as exc:
        kind = "collect" if rc.stream and branch.is_stream else "invoke"
        raise GraphRunError(
            f"{prefix}: calculate next step fail, node: {node.key}, error: branch {kind} run error: {exc}"
        ) from exc


def _route(
    rc: RunContext,
    data: RunData,
    completed: list[tuple[NodePlan, Any]],
    decisions: list[Any],
    prefix: str = "failed to calculate next tasks",
) -> Effects:
    """Eino's `calculateNextTasks`: deliver outputs, evaluate branches, then collect ready channels."""
    plan = rc.plan
    stream = rc.stream
    touched: dict[str, None] = {}
    for node, output in completed:
        targets = node.successors
        skipped: tuple[str, ...] = ()
        if node.branches:
            outputs = copy_stream(output, len(node.branches) + 1) if stream else None
            chosen: dict[str, None] = {}
            ends: dict[str, None] = {}
            picks: list[tuple[int, tuple[str, ...]]] = []
            for index, branch in enumerate(node.branches):
                arg = outputs[index] if outputs is not None else output
                picked = yield from _choose(rc, node, branch, arg, prefix)
                picks.append((index, picked))
                chosen.update(dict.fromkeys(picked))
                ends.update(dict.fromkeys(branch.ends))
            if outputs is not None:
                output = outputs[-1]
            targets = (*targets, *(t for t in chosen if t not in targets))
            skipped = tuple(e for e in ends if e not in chosen and e not in node.successors)
            for index, picked in picks:
                rest = tuple(e for e in node.branches[index].ends if e not in chosen)
                decisions.append(BranchDecision(node.key, index, picked, rest))
        values = copy_stream(output, len(targets)) if stream and len(targets) > 1 else None
        for i, target in enumerate(targets):
            slot = data.values.get(target)
            if slot is None:
                slot = data.values[target] = {}
            slot[node.key] = values[i] if values is not None else output
            touched[target] = None
            if plan.dag:
                channels.report_ready(data, node.key, target)
        for target in skipped:
            channels.report_skip(plan, data, node.key, target, touched)
    ready = [key for key in touched if channels.is_ready(plan, data, key)]
    try:
        if "end" in ready:
            return channels.read(plan, data, "end", stream=stream)
        ready.sort(key=lambda key: plan.nodes[key].order)
        data.pending = [(key, channels.read(plan, data, key, stream=stream)) for key in ready]
    except ValueError as exc:
        raise GraphRunError(f"{prefix}: {exc}") from exc
    return _NOT_ENDED


def _check_budget(rc: RunContext, data: RunData) -> None:
    if rc.cancel_event is not None and rc.cancel_event.is_set():
        raise GraphRunError("context has been canceled: context canceled")
    if rc.max_steps is not None and data.step >= rc.max_steps:
        raise MaxStepsExceededError(rc.max_steps, path=rc.path)


def _steps(rc: RunContext, data: RunData) -> Effects:
    plan = rc.plan
    handlers = rc.handlers
    need_all = not plan.dag
    last: tuple[str, ...] = ()
    while True:
        _check_budget(rc, data)
        step = data.step
        tasks = [Task(plan.nodes[key], value, step) for key, value in data.pending]
        data.pending = []
        keys = tuple(t.node.key for t in tasks)
        if handlers.step_start:
            info = rc.step_info(step, keys, step)
            for fn in handlers.step_start:
                fn(info)
        done: tuple[str, ...] = ()
        failing: tuple[str, ...] = ()
        decisions: list[BranchDecision] = []
        try:
            for task in tasks:
                failing = (task.node.key,)
                if task.node.pre is not None:
                    task.input = yield from _run_handler(rc, task.node, "pre", task.input)
                data.running[task.node.key] = task.input
            failing = ()
            completed: list[Task] = yield Wait(tasks, need_all)
            if not completed:
                raise GraphRunError(f"no tasks to execute, last completed nodes: [{', '.join(last)}]")
            if len(completed) > 1:
                completed.sort(key=lambda t: t.node.order)
            done = tuple(t.node.key for t in completed)
            for key in done:
                data.running.pop(key, None)
            failed = [t for t in completed if t.error is not None]
            if failed:
                failing = tuple(t.node.key for t in failed)
                raise _node_error(rc, failed[0])
            for task in completed:
                failing = (task.node.key,)
                if task.node.post is not None:
                    task.output = yield from _run_handler(rc, task.node, "post", task.output)
            failing = ()
            result = yield from _route(rc, data, [(t.node, t.output) for t in completed], decisions)
        except GraphError:
            if handlers.step_end and (done or failing):
                info = rc.step_info(step, done, step + 1, branches=tuple(decisions), errors=failing)
                for fn in handlers.step_end:
                    fn(info)
            raise
        data.step += 1
        last = done
        if handlers.step_end:
            ended = result is not _NOT_ENDED
            info = rc.step_info(
                step,
                done,
                step + 1,
                branches=tuple(decisions),
                next_nodes=() if ended else tuple(k for k, _ in data.pending),
                ended=ended,
            )
            for fn in handlers.step_end:
                fn(info)
        if result is not _NOT_ENDED:
            return result


def _notify(fns: tuple[Any, ...], info: Any, value: Any, *, stream: bool) -> Any:
    """Call graph-level handlers; in stream mode each gets its own copy and the caller keeps the last."""
    if not fns:
        return value
    if stream:
        copies = copy_stream(value, len(fns) + 1)
        for fn, copy in zip(fns, copies, strict=False):
            fn(info, copy)
        return copies[-1]
    for fn in fns:
        fn(info, value)
    return value


def run_graph(rc: RunContext, data: RunData, input: Any) -> Effects:
    """One graph run: graph callbacks (top level only; a nested graph reports as its parent's node)."""
    handlers = rc.handlers
    report = not rc.nested
    info = rc.graph_info() if report else None
    try:
        if report:
            starts = handlers.start_stream if rc.stream else handlers.start
            input = _notify(starts, info, input, stream=rc.stream)
        if not data.started:
            data.started = True
            start = [(rc.plan.nodes["start"], input)]
            result = yield from _route(rc, data, start, [], "calculate next tasks fail")
            if result is not _NOT_ENDED:
                return _finish(rc, info, result)
            if not data.pending:
                raise GraphRunError("no tasks to execute after graph start")
        result = yield from _steps(rc, data)
        return _finish(rc, info, result)
    except Exception as exc:
        if report:
            for fn in handlers.error:
                fn(info, exc)
        raise


def _finish(rc: RunContext, info: Any, result: Any) -> Any:
    if info is None:
        return result
    ends = rc.handlers.end_stream if rc.stream else rc.handlers.end
    return _notify(ends, info, result, stream=rc.stream)
