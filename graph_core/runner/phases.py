"""The phases of one superstep, as plain functions handing one `Step` value along.

The loop in `graph_core.runner.loop` calls them in Eino's order (start -> pre-handlers -> collect ->
post-handlers -> route -> report), the way LangGraph's `PregelLoop.tick` calls the functions of its
`_algo` module: each phase reads the run and the step so far and records what it produced on the `Step`,
so no phase reassigns another's locals and each can be tested without running a graph. The generator
phases yield `Await` only when a user callable returned an awaitable (and `Wait` never: the loop alone
waits for tasks).

Cheap on purpose: `start_step` and `collect_completed` run on every step, so they loop once over the
tasks with no comprehension or generator frame, and `Step` has slots and no `__init__`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Generator, Sequence
from dataclasses import replace
from operator import attrgetter, itemgetter
from types import GeneratorType
from typing import Any, TypeGuard

from graph_core.astream import acollect, acopy_stream, aone_chunk
from graph_core.callbacks import Boundary, BranchDecision
from graph_core.context import _SCOPE  # pyright: ignore[reportPrivateUsage]
from graph_core.errors import GraphError, GraphRunError, HandlerError, MaxStepsExceededError, NodeRunError
from graph_core.interrupt import InterruptSignal
from graph_core.lambda_ import Executable
from graph_core.runner import aio
from graph_core.runner.interrupts import is_interrupt
from graph_core.runner.plan import NodePlan
from graph_core.runner.run import Await, RunContext, RunData, Task, Wait
from graph_core.state import StreamHandler
from graph_core.stream import collect, copy_stream, one_chunk

__all__ = [
    "NOT_ENDED",
    "Effects",
    "Step",
    "call_handler",
    "collect_completed",
    "interrupted_from_outside",
    "is_awaitable",
    "report_end",
    "report_failure",
    "resolve_failures",
    "run_handler",
    "start_step",
]

Effects = Generator[Wait | Await, Any, Any]
NOT_ENDED: Any = object()  # what the route phase returns when END was not written

_KEY = attrgetter("node.key")
_ORDER = attrgetter("node.order")
_FIRST = itemgetter(0)


class Step:
    """What one superstep has produced so far, handed from phase to phase and reported at its end.

    One plain object per step instead of locals reassigned along one long loop: each phase fills its
    fields; on an error, `failing` names the nodes the failing phase blames at `on_step_end`.
    """

    __slots__ = (
        "completed",
        "decisions",
        "failing",
        "finished",
        "halted",
        "number",
        "post",
        "pre",
        "restored",
        "tasks",
    )

    number: int  # the step's number (`RunData.step` when it started)
    tasks: list[Task]  # every task of the step, in `pending` order
    pre: Sequence[Task]  # the tasks whose pre-handler runs this step
    post: bool  # some task of the step has a post-handler
    restored: Any  # the checkpoint restored for this (first, resumed) step, else None
    finished: list[Task]  # every task the step completed (halted ones too), in node order
    completed: list[Task]  # the completed tasks whose outputs are routed
    halted: list[Task]  # after `collect_completed`, the failed tasks; after `resolve_failures`, the
    # interrupted ones (rerun nodes)
    failing: tuple[str, ...]  # on an error: the nodes it is reported against
    decisions: list[BranchDecision]  # the branch decisions of the route phase

    @property
    def done(self) -> tuple[str, ...]:
        """The keys of the completed tasks, in node order (computed only when reported or asked)."""
        return tuple(map(_KEY, self.finished))


_SYNC_TYPES: set[type] = {str, list, dict, tuple, int, float, bool, type(None)}


def is_awaitable(value: Any) -> TypeGuard[Awaitable[Any]]:
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


def _locked(handler: Any, value: Any, frame: Any) -> Any:
    with frame.lock:
        return handler(value, frame.value)


def interrupted_from_outside(rc: RunContext) -> bool:
    """Eino `WithGraphInterrupt`: the `interrupt_event` was set while (or before) this step's tasks ran."""
    return rc.interrupt_event is not None and rc.interrupt_event.is_set()


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


def start_step(rc: RunContext, data: RunData) -> Step:
    """Phase 1, start: cancellation and budget, the step boundary, the step's tasks, `on_step_start`."""
    if rc.cancel_event is not None and rc.cancel_event.is_set():
        raise GraphRunError("context has been canceled: context canceled")
    step = data.step
    if rc.max_steps is not None and step >= rc.max_steps:
        raise MaxStepsExceededError(rc.max_steps, path=rc.path)
    handlers = rc.handlers
    # a nested run (embedded, or run under a `parent_path`) has no step boundaries of its own
    presets = _at_boundary(rc, data) if handlers.boundary and not rc.nested and not rc.path else None
    s = Step()
    s.number = step
    restored = s.restored = rc.restored
    if restored is not None:  # the first step of a resumed run: rerun nodes get their records back
        rc.restored = restored.later()  # (records a run inside a rerunning node inherited: until used)
    nodes = rc.plan.nodes
    running = data.running
    pending = data.pending
    tasks: list[Task]
    pre: Sequence[Task]
    if len(pending) == 1 and restored is None and not presets:  # a step of one task: no loop
        key, value = pending[0]
        node = nodes[key]
        tasks = [Task(node, value, step)]
        running[key] = value
        pre = tasks if node.pre is not None else ()
        post = node.post is not None
    else:
        skip = restored.skip_pre_handler if restored is not None else ()
        tasks = []
        pre = []
        post = False
        for key, value in pending:
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
                task.resume = restored.take(key)
    data.pending = []
    if rc.keep_inputs and rc.stream:
        copy: Any = acopy_stream if rc.aio else copy_stream
        for task in tasks:
            task.input, task.original = copy(task.input, 2)
    s.tasks = tasks
    s.pre = pre
    s.post = post
    s.finished = s.halted = []
    s.failing = ()
    s.decisions = []
    if handlers.step_start:
        info = rc.step_info(step, tuple(map(_KEY, tasks)), step)
        for fn in handlers.step_start:
            fn(info)
    return s


def run_handler(rc: RunContext, data: RunData, s: Step, task: Task, which: str) -> Effects:
    """Phases 2 and 4, one task's pre- or post-handler (`which`), under the state lock.

    A pre-handler replaces the task's input; one that interrupts halts its task (finished without
    running: a rerun node, which on resume reads its interrupt record here too). A post-handler replaces
    the output. A plain handler in stream mode sees the concatenated stream. The general form, for a run
    driven on an event loop (it yields `Await`); a sync-driven run calls `call_handler`.
    """
    node = task.node
    pre = which == "pre"
    handler = node.pre if pre else node.post
    value = task.input if pre else task.output
    frame = rc.frame
    assert frame is not None
    token = _resume_scope(rc, s, task) if pre and task.resume is not None else None
    streaming = isinstance(handler, StreamHandler)
    try:
        if rc.aio and streaming:  # a stream handler of an `astream` run reads on a worker thread
            result = yield Await(aio.in_thread(_locked, handler, aio.AsyncStream(value, rc.loop), frame))
            if is_awaitable(result):
                result = yield Await(result)
            result = aio.as_async_stream(result)
        else:
            if rc.stream and not streaming:
                value = (yield Await(acollect(value))) if rc.aio else collect(value)
            elif streaming and not rc.stream:
                value = one_chunk(value)
            with frame.lock:
                result = handler(value, frame.value)
            if is_awaitable(result):
                result = yield Await(result)
            if streaming:
                if not rc.stream:
                    result = collect(result)
            elif rc.stream:
                result = aone_chunk(result) if rc.aio else one_chunk(result)
    except InterruptSignal as signal:
        if not pre:
            raise
        _halt(rc, data, s, task, signal)
        return
    except Exception as exc:
        s.failing = (node.key,)
        raise _handler_error(rc, node, which, exc) from exc
    finally:
        if token is not None:
            _SCOPE.reset(token)
    if pre:
        task.input = data.running[node.key] = result
    else:
        task.output = result


def call_handler(rc: RunContext, data: RunData, s: Step, task: Task, which: str) -> None:
    """`run_handler` as a plain call, for a run driven on its own thread (`rc.resolve` set: an awaitable
    a handler returns is resolved in place, as the sync driver resolves an `Await`). No generator frame
    per handler: the ReAct agent runs one on every step."""
    node = task.node
    pre = which == "pre"
    if pre:
        handler = node.pre
        value = task.input
        token = None if task.resume is None else _resume_scope(rc, s, task)
    else:
        handler = node.post
        value = task.output
        token = None
    frame = rc.frame
    assert frame is not None
    streaming = isinstance(handler, StreamHandler)
    try:
        if rc.stream:
            if not streaming:
                value = collect(value)
        elif streaming:
            value = one_chunk(value)
        with frame.lock:
            result = handler(value, frame.value)
        if type(result) not in _SYNC_TYPES and is_awaitable(result):
            resolve = rc.resolve
            assert resolve is not None
            result = resolve(result)
        if streaming:
            if not rc.stream:
                result = collect(result)
        elif rc.stream:
            result = one_chunk(result)
    except InterruptSignal as signal:
        if not pre:
            raise
        _halt(rc, data, s, task, signal)
        return
    except Exception as exc:
        s.failing = (node.key,)
        raise _handler_error(rc, node, which, exc) from exc
    finally:
        if token is not None:
            _SCOPE.reset(token)
    if pre:
        task.input = data.running[node.key] = result
    else:
        task.output = result


def _resume_scope(rc: RunContext, s: Step, task: Task) -> Any:
    """A rerun node's pre-handler runs in the node's scope with its saved interrupt record."""
    return _SCOPE.set(rc.scope(task.node.key, s.number).child(resume=task.resume))


def _halt(rc: RunContext, data: RunData, s: Step, task: Task, signal: InterruptSignal) -> None:
    """A pre-handler interrupted: its task is finished without running (a rerun node)."""
    signal.address = rc.address(task.node.key)
    task.error = signal
    s.finished = [*s.finished, task]  # a new list: a fresh step's `finished` and `halted` are one
    del data.running[task.node.key]


def collect_completed(rc: RunContext, data: RunData, s: Step, arrived: list[Task], last: Step | None) -> bool:
    """Phase 3, collect: take the tasks the driver completed.

    Returns True when the still running tasks of an eager DAG must be waited for first (some task
    interrupted, or an interrupt came from outside); the loop then waits and collects again.
    """
    running = data.running
    if len(arrived) == 1 and not s.finished:  # one task: nothing to merge, sort or filter
        task = arrived[0]
        running.pop(task.node.key, None)
        s.finished = s.completed = arrived
        if task.error is None:  # `halted` stays the step's empty list
            return bool(running) and interrupted_from_outside(rc)
        s.halted = [task]
        return bool(running) and (is_interrupt(task.error) or interrupted_from_outside(rc))
    finished = s.finished = [*s.finished, *arrived] if s.finished else arrived
    if not finished:
        done = ", ".join(last.done) if last is not None else ""
        raise GraphRunError(f"no tasks to execute, last completed nodes: [{done}]")
    if len(finished) > 1:
        finished.sort(key=_ORDER)
    failed = []
    for task in finished:
        running.pop(task.node.key, None)
        if task.error is not None:
            failed.append(task)
    s.completed = finished
    s.halted = failed  # until `resolve_failures`: interrupts stay halted, any other error fails the step
    if not running:
        return False
    return (bool(failed) and all(is_interrupt(t.error) for t in failed)) or interrupted_from_outside(rc)


def resolve_failures(rc: RunContext, s: Step) -> None:
    """Phase 3, end (only when some task failed): a node error fails the step; interrupted tasks stay
    halted (rerun nodes) and the others' outputs go on to be routed."""
    failed = s.halted
    error = next((t for t in failed if not is_interrupt(t.error)), None)
    if error is not None:
        s.failing = tuple(map(_KEY, failed))
        raise _node_error(rc, error)
    s.completed = [t for t in s.finished if t.error is None]


def report_end(rc: RunContext, data: RunData, s: Step, result: Any) -> None:
    """Phase 6, report: `on_step_end` with the step's outcome and the next step's nodes."""
    ended = result is not NOT_ENDED
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
    """Phase 6 of a failed step: `on_step_end` with the nodes the failing phase blamed (nothing when the
    step failed before any task completed or was blamed, as in Eino)."""
    done = s.done
    if done or s.failing:
        info = rc.step_info(s.number, done, s.number + 1, branches=tuple(s.decisions), errors=s.failing)
        for fn in rc.handlers.step_end:
            fn(info)
