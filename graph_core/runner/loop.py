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
from collections.abc import Awaitable, Generator
from dataclasses import replace
from operator import attrgetter, itemgetter
from types import GeneratorType
from typing import Any, TypeGuard

from graph_core.branch import Branch
from graph_core.callbacks import Boundary, BranchDecision
from graph_core.context import _SCOPE  # pyright: ignore[reportPrivateUsage]
from graph_core.errors import GraphError, GraphRunError, HandlerError, MaxStepsExceededError, NodeRunError
from graph_core.interrupt import AbandonedTask, InterruptSignal
from graph_core.lambda_ import Executable
from graph_core.runner import aio, channels
from graph_core.runner.interrupts import capture, is_interrupt
from graph_core.runner.plan import NodePlan
from graph_core.runner.run import Await, RunContext, RunData, Task, Wait, notify_handlers
from graph_core.state import StreamHandler
from graph_core.stream import acollect, acopy_stream, aone_chunk, collect, copy_stream, one_chunk

__all__ = ["HandlerError", "run_graph"]

Effects = Generator[Wait | Await, Any, Any]
_NOT_ENDED: Any = object()


def _node_error(rc: RunContext, task: Task) -> GraphError:
    error = task.error
    assert error is not None
    if task.node.graph is not None and isinstance(error, GraphRunError):
        # an engine error of the nested run gets the embedding node keys (a node error has its path)
        if not getattr(error, "node_path", None):
            error.locate((*rc.path, task.node.key))
        return error  # a nested run's node error already reports its full path
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
        if rc.aio and streaming:  # a stream handler of an `astream` run reads on a worker thread
            result = yield Await(aio.in_thread(_locked, handler, aio.AsyncStream(value, rc.loop), frame))
            if _is_awaitable(result):
                result = yield Await(result)
            return aio.as_async_stream(result)
        if rc.stream and not streaming:
            value = (yield Await(acollect(value))) if rc.aio else collect(value)
        elif streaming and not rc.stream:
            value = one_chunk(value)
        with frame.lock:
            result = handler(value, frame.value)
        if _is_awaitable(result):
            result = yield Await(result)
        if streaming:
            return result if rc.stream else collect(result)
    except InterruptSignal:
        raise  # a pre-handler may interrupt: its node becomes a rerun node
    except Exception as exc:
        raise _handler_error(rc, node, which, exc) from exc
    if rc.stream:
        return aone_chunk(result) if rc.aio else one_chunk(result)
    return result


def _locked(handler: Any, value: Any, frame: Any) -> Any:
    with frame.lock:
        return handler(value, frame.value)


_SYNC_TYPES: set[type] = {str, list, dict, tuple, int, float, bool, type(None)}


def _is_awaitable(value: Any) -> TypeGuard[Awaitable[Any]]:
    """`inspect.isawaitable` with a per-type cache of negative answers (it is asked on every step).

    Except for generators (a generator-based coroutine is flagged per code object), whether a value is
    awaitable depends on its type only, so a type found not awaitable once is never checked again.
    """
    cls = type(value)
    if cls in _SYNC_TYPES:
        return False
    if inspect.isawaitable(value):
        return True
    if cls is not GeneratorType:
        _SYNC_TYPES.add(cls)
    return False


def _choose(rc: RunContext, node: NodePlan, branch: Branch, output: Any, prefix: str) -> Effects:
    is_stream = branch.kind == "stream" or branch.kind == "stream_multi"
    try:
        if rc.aio:  # an `astream` run: a sync condition reading the stream does so on a worker thread
            if not is_stream:
                arg = yield Await(acollect(output))
                result = branch.condition(arg)
            elif aio.is_async_fn(branch.condition):
                result = branch.condition(aio.AsyncStream(output, rc.loop))
            else:
                result = aio.in_thread(branch.condition, aio.AsyncStream(output, rc.loop))
        else:
            if rc.stream:
                arg = output if is_stream else collect(output)
            else:
                arg = one_chunk(output) if is_stream else output
            result = branch.condition(arg)
        if type(result) is str and (branch.kind == "single" or branch.kind == "stream"):
            if result in branch.ends:  # the common case, without the generic validation below
                return (result,)
        elif _is_awaitable(result):
            result = yield Await(result)
        return branch.selected(result)
    except Exception as exc:
        kind = "collect" if rc.stream else "invoke"  # Eino: stream runs use every branch's collect surface
        raise GraphRunError(
            f"{prefix}: calculate next step fail, node: {node.key}, error: branch {kind} run error: {exc}"
        ) from exc


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
    copy: Any = acopy_stream if rc.aio else copy_stream
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
                chosen = yield from _choose(rc, node, branches[0], first, prefix)
                picks.append((0, chosen))
                ends = branches[0].ends
            else:
                merged: dict[str, None] = {}
                all_ends: dict[str, None] = {}
                for index, branch in enumerate(branches):
                    arg = outputs[index] if outputs is not None else output
                    picked = yield from _choose(rc, node, branch, arg, prefix)
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
        return _NOT_ENDED
    ready = [key for key in touched if key in channel_values] if not dag else None
    if ready is None:
        ready = [key for key in touched if channels.is_ready(plan, data, key)]
    try:
        if rc.aio:  # reading a merged channel peeks at async streams: awaited
            if "end" in ready:
                return (yield Await(channels.aread(plan, data, "end")))
            ready.sort(key=lambda key: plan.nodes[key].order)
            pending: list[tuple[str, Any]] = []
            for key in ready:
                pending.append((key, (yield Await(channels.aread(plan, data, key)))))
            data.pending = pending
            return _NOT_ENDED
        if "end" in ready:
            return channels.read(plan, data, "end", stream=stream)
        if len(ready) == 1:
            data.pending = [(ready[0], channels.read(plan, data, ready[0], stream=stream))]
        else:
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


def _interrupted_from_outside(rc: RunContext) -> bool:
    """Eino `WithGraphInterrupt`: the `interrupt_event` was set while (or before) this step's tasks ran."""
    return rc.interrupt_event is not None and rc.interrupt_event.is_set()


def _after_nodes(rc: RunContext, done: tuple[str, ...], halted: list[Task]) -> list[str]:
    """The after nodes of a step in which some tasks interrupted (Eino `resolveInterruptCompletedTasks`):
    completed interrupt-after nodes, or every completed node when an interrupt from outside waited for
    them (none when it abandoned some)."""
    stopped = {t.node.key for t in halted}
    external = _interrupted_from_outside(rc) and not any(isinstance(t.error, AbandonedTask) for t in halted)
    return [k for k in done if k not in stopped and (external or k in rc.interrupt_after)]


def _static_interrupt(rc: RunContext, data: RunData, done: tuple[str, ...]) -> Effects:
    """Eino's interrupt-after (a completed node) and interrupt-before (a computed next task).

    An interrupt from outside (`interrupt_event`, Eino's `cancel()` without a timeout) waited for the
    step's running tasks: every task of the step is an after node, and the next tasks are saved.
    """
    external = _interrupted_from_outside(rc)
    after = list(done) if external else [k for k in done if k in rc.interrupt_after]
    before = [k for k, _ in data.pending if k in rc.interrupt_before]
    if after or before:
        if rc.aio:
            yield Await(aio.settle(data, []))
        raise capture(rc, data, [], before=before, after=after, external=external)


def _at_boundary(rc: RunContext, data: RunData) -> dict[str, Any]:
    """Hand the next step to the `on_step_boundary` handlers, then take back what they changed.

    Returns the presets (node key -> output used instead of running the component this step).
    """
    boundary = Boundary(data.step, rc.budget(data.step), list(data.pending), rc.state_value)
    for fn in rc.handlers.boundary:
        fn(boundary)
    before = [key for key, _ in data.pending]
    after = [key for key, _ in boundary.pending]
    if after != before:
        raise GraphRunError(
            f"step boundary {data.step}: the next tasks may not change (were [{', '.join(before)}], "
            f"now [{', '.join(after)}])"
        )
    data.pending = boundary.pending
    frame = rc.frame
    if frame is not None and rc.plan.has_state and boundary.state is not frame.value:
        frame.value = data.state = boundary.state
    unknown = [key for key in boundary.presets if key not in after]
    if unknown:
        raise GraphRunError(f"step boundary {data.step}: presets for nodes not in this step: {unknown}")
    return boundary.presets


def _preset(node: NodePlan, output: Any) -> NodePlan:
    """A copy of `node` whose component returns `output` (a preset from a step boundary)."""
    return replace(node, executable=Executable(invoke=lambda _input: output), graph=None)


class Step:
    """What one superstep has produced so far, handed from phase to phase and reported at its end.

    One plain object per step (slots, no `__init__` frame) instead of locals reassigned along one long
    loop: each phase fills its fields, and on an error `failing` names the nodes the phase blames.
    """

    __slots__ = (
        "completed",
        "decisions",
        "done",
        "failing",
        "halted",
        "number",
        "post",
        "pre",
        "restored",
        "tasks",
    )

    number: int  # the step's number (`RunData.step` when it started)
    tasks: list[Task]  # every task of the step, in `pending` order
    pre: list[Task]  # the tasks whose pre-handler runs this step
    post: bool  # some task of the step has a post-handler
    restored: Any  # the checkpoint restored for this (first, resumed) step, else None
    completed: list[Task]  # the tasks completed (halted ones included until the failures are resolved)
    done: tuple[str, ...]  # the keys of the completed tasks, in node order
    halted: list[Task]  # tasks that interrupted (rerun nodes)
    failing: tuple[str, ...]  # on an error: the nodes it is reported against at on_step_end
    decisions: list[BranchDecision]  # the branch decisions of the route phase


_KEY = attrgetter("node.key")
_ORDER = attrgetter("node.order")
_FIRST = itemgetter(0)


def start_step(rc: RunContext, data: RunData) -> Step:
    """Phase 1, start: cancellation and budget, the step boundary, the step's tasks, `on_step_start`."""
    _check_budget(rc, data)
    presets = _at_boundary(rc, data) if rc.handlers.boundary and not rc.nested else None
    s = Step()
    s.number = step = data.step
    restored = s.restored = rc.restored
    if restored is not None:  # the first step of a resumed run: rerun nodes get their records back
        rc.restored = None
    skip = restored.skip_pre_handler if restored is not None else ()
    nodes = rc.plan.nodes
    running = data.running
    tasks: list[Task] = []
    pre: list[Task] = []
    post = False
    for key, value in data.pending:
        node = nodes[key]
        if presets and key in presets:
            node = _preset(node, presets[key])
        task = Task(node, value, step)
        tasks.append(task)
        running[key] = value
        if node.pre is not None and key not in skip:
            pre.append(task)
        if node.post is not None:
            post = True
        if restored is not None:
            task.resume = restored.points.get(key)
    data.pending = []
    if rc.keep_inputs and rc.stream:
        copy: Any = acopy_stream if rc.aio else copy_stream
        for task in tasks:
            task.input, task.original = copy(task.input, 2)
    s.tasks = tasks
    s.pre = pre
    s.post = post
    s.completed = []
    s.halted = []
    s.done = s.failing = ()
    s.decisions = []
    if rc.handlers.step_start:
        info = rc.step_info(step, tuple(map(_KEY, tasks)), step)
        for fn in rc.handlers.step_start:
            fn(info)
    return s


def run_pre_handlers(rc: RunContext, data: RunData, s: Step) -> Effects:
    """Phase 2, pre-handlers: each replaces its task's input; one that interrupts halts its task."""
    for task in s.pre:
        key = task.node.key
        token = None
        if task.resume is not None:  # a rerun pre-handler reads its interrupt record too
            token = _SCOPE.set(rc.scope(key, s.number).child(resume=task.resume))
        try:
            task.input = yield from _run_handler(rc, task.node, "pre", task.input)
        except InterruptSignal as signal:
            signal.address = rc.address(key)
            task.error = signal
            s.completed.append(task)  # a halted task completes without running
            del data.running[key]
            continue
        except GraphError:
            s.failing = (key,)
            raise
        finally:
            if token is not None:
                _SCOPE.reset(token)
        data.running[key] = task.input


def collect_completed(
    rc: RunContext, data: RunData, s: Step, arrived: list[Task], last: tuple[str, ...]
) -> bool:
    """Phase 3, collect: take the tasks the driver completed; True when the still running tasks of an
    eager DAG must be waited for first (some task interrupted, or an interrupt came from outside)."""
    completed = s.completed
    completed += arrived
    if not completed:
        raise GraphRunError(f"no tasks to execute, last completed nodes: [{', '.join(last)}]")
    if len(completed) > 1:
        completed.sort(key=_ORDER)
    running = data.running
    failed: list[Task] = []
    for task in completed:
        running.pop(task.node.key, None)
        if task.error is not None:
            failed.append(task)
    s.halted = failed  # until `resolve_failures`: interrupts stay halted, any other error fails the step
    s.done = tuple(map(_KEY, completed))
    if not running:
        return False
    return (bool(failed) and all(is_interrupt(t.error) for t in failed)) or _interrupted_from_outside(rc)


def resolve_failures(rc: RunContext, s: Step) -> None:
    """Phase 3, end (only when some task failed): a node error fails the step; interrupted tasks are set
    aside as halted (rerun nodes) and the others go on."""
    failed = s.halted
    error = next((t for t in failed if not is_interrupt(t.error)), None)
    if error is not None:
        s.failing = tuple(map(_KEY, failed))
        raise _node_error(rc, error)
    s.completed = [t for t in s.completed if t.error is None]


def run_post_handlers(rc: RunContext, s: Step) -> Effects:
    """Phase 4, post-handlers: each replaces its completed task's output."""
    for task in s.completed:
        if task.node.post is not None:
            try:
                task.output = yield from _run_handler(rc, task.node, "post", task.output)
            except GraphError:
                s.failing = (task.node.key,)
                raise


def report_end(rc: RunContext, data: RunData, s: Step, result: Any) -> None:
    """Phase 6, report: `on_step_end` with the step's outcome and the next step's nodes."""
    ended = result is not _NOT_ENDED
    info = rc.step_info(
        s.number,
        s.done,
        s.number + 1,
        branches=tuple(s.decisions),
        next_nodes=() if ended else tuple(map(_FIRST, data.pending)),
        ended=ended,
        interrupted=tuple(map(_KEY, s.halted)),
    )
    for fn in rc.handlers.step_end:
        fn(info)


def report_failure(rc: RunContext, s: Step) -> None:
    """Phase 6 of a failed step: `on_step_end` with the nodes the failing phase blamed."""
    if s.done or s.failing:
        info = rc.step_info(s.number, s.done, s.number + 1, branches=tuple(s.decisions), errors=s.failing)
        for fn in rc.handlers.step_end:
            fn(info)


def _steps(rc: RunContext, data: RunData) -> Effects:
    """The superstep loop (Eino's `run` loop, LangGraph's `tick`): the phases in order, one `Step`."""
    handlers = rc.handlers
    need_all = not rc.plan.dag
    last: tuple[str, ...] = ()
    while True:
        s = start_step(rc, data)
        try:
            if s.pre:
                yield from run_pre_handlers(rc, data, s)
            tasks = s.tasks
            if s.completed:  # some pre-handler interrupted: its task does not run
                tasks = [t for t in tasks if t.error is None]
            if collect_completed(rc, data, s, (yield Wait(tasks, need_all)), last):
                collect_completed(
                    rc, data, s, (yield Wait([], True)), last
                )  # eager DAG: let them finish first
                data.running.clear()
            if s.halted:
                resolve_failures(rc, s)
            if s.post:
                yield from run_post_handlers(rc, s)
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
        last = s.done
        if handlers.step_end:
            report_end(rc, data, s, result)
        # some tasks interrupted: the others' outputs were delivered to the channels (END's too) and
        # the run stops; on resume they are read after the rerun step, as in Eino
        if result is not _NOT_ENDED:
            return result
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
            if result is not _NOT_ENDED:
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
