"""Lone steps: supersteps of one task each, run back to back as plain code while nothing observes the run.

A ReAct loop is a chain of such steps (chat, tools, chat, ...): every step has one task, one pre-handler
and one branch. The phases in `phases` and `route` cover every shape of step; run one after another they
cost a `Step` per step, the task's entry in `RunData.running`, the state lock around the pre-handler and
a function call per phase. `run_lone` does the same work for the steps that need none of it, in one loop:
cancellation and budget checks, the pre-handler, the node's component in its run scope, the branch's
choice (`route_lone`'s work: the output goes straight to the chosen node as its input, or is the run's
output at END).

When it applies (`fits`, checked once per run): a sync-driven (`drive_sync` with no interrupt gate),
invoke-mode Pregel run with no callbacks at all (observers see every step through the general phases:
the Recorder's view is unchanged), no interrupt-before/-after nodes, no interrupt event and no
checkpoint store in use. Per step (`run_lone` stops at the first that does not fit and hands it to the
general phases): one pending task, nothing left in the channels, no checkpoint being restored, and a
node whose component takes its input as it is (`NodePlan.direct`), with no post-handler and no stream
pre-handler.

What the general phases would do and this loop skips, and why nothing can tell:
- `RunData.running` holds a task's input only while it runs; an eager DAG reads it, a Pregel step of one
  task empties it again before anything reads it;
- the state lock (`StateFrame.lock`) keeps a pre-handler from racing the tasks of its step and their
  tool threads; a Pregel step's pre-handler runs before its one task starts and after every task of the
  step before has ended, so no code of the run can hold or want the lock meanwhile;
- the `Step` record is read by the later phases and by `on_step_start`/`on_step_end`, which this run
  has none of.
A failure is finished by the general phases, with the `Step` they would have had: a pre-handler's
interrupt or error, a node's error or interrupt (`_fail`).
"""

from __future__ import annotations

from typing import Any

from graph_core.context import _SCOPE, RunScope  # pyright: ignore[reportPrivateUsage]
from graph_core.errors import GraphRunError, MaxStepsExceededError
from graph_core.interrupt import InterruptSignal
from graph_core.runner.interrupts import capture
from graph_core.runner.phases import (
    _SYNC_TYPES,  # pyright: ignore[reportPrivateUsage]
    NOT_ENDED,
    Step,
    _halt,  # pyright: ignore[reportPrivateUsage]
    _handler_error,  # pyright: ignore[reportPrivateUsage]
    collect_completed,
    is_awaitable,
    resolve_failures,
)
from graph_core.runner.plan import NodePlan
from graph_core.runner.route import branch_error, route_chosen, route_lone
from graph_core.runner.run import (
    _SCOPE_SLOTS,  # pyright: ignore[reportPrivateUsage]
    RunContext,
    RunData,
    Task,
)
from graph_core.state import StreamHandler
from graph_core.topology import END

__all__ = ["fits", "run_lone"]

PREFIX = "failed to calculate next tasks"  # what a failing branch's error starts with (as `route_lone`'s)
_NEW = object.__new__


def fits(rc: RunContext) -> bool:
    """Whether this run may take lone steps at all: see the module docstring."""
    return (
        rc.run_now is not None
        and rc.resolve is not None
        and not rc.plan.dag
        and not rc.stream
        and not rc.aio
        and not rc.handlers.callbacks
        and not rc.interrupt_before
        and not rc.interrupt_after
        and rc.interrupt_event is None
        and not rc.keep_inputs
        and "checkpoint_plan" not in rc.extras
    )


def _step(task: Task) -> Step:
    """The `Step` the general phases would have after starting `task`'s step."""
    s = Step()
    s.number = task.step
    s.tasks = [task]
    s.pre = [task] if task.node.pre is not None else ()
    s.post = False
    s.restored = None
    s.finished = s.halted = []
    s.failing = ()
    s.decisions = []
    return s


def _fail(rc: RunContext, data: RunData, s: Step, arrived: list[Task]) -> Exception:
    """A lone step whose task failed or was halted by its pre-handler, finished by the general phases:
    a node error fails the step; an interrupt ends it with the checkpoint (the task's outputs routed
    nowhere: a lone step has no other task, so there are no after nodes)."""
    collect_completed(rc, data, s, arrived, None)
    resolve_failures(rc, s)  # raises a node's error
    data.step += 1
    return capture(rc, data, s.halted)


def run_lone(rc: RunContext, data: RunData) -> tuple[Any, Step | None]:
    """Run lone steps while the next step is one (see the module docstring).

    Returns END's value and None when the run ended, else `NOT_ENDED` and the last step run here (None if
    none was), for the general phases to take the next step from. Between two lone steps the next task's
    key and input stay in locals (`carried`; `data.pending` is empty, as while a step runs), the task's
    run scope is built in place (`RunContext.node_scope` unrolled), and a `Task` is made only when a
    failure or a route other than one branch's plain choice needs one.
    """
    pending = data.pending
    if len(pending) != 1 or data.values or rc.restored is not None or _SCOPE_SLOTS is None:
        return NOT_ENDED, None
    nodes = rc.plan.nodes
    frame = rc.frame
    cancel = rc.cancel_event
    max_steps = rc.max_steps
    resolve = rc.resolve
    assert resolve is not None
    set_callbacks, set_path, set_step, set_name, set_state, set_extras, set_resume = _SCOPE_SLOTS
    callbacks, graph_name, extras, paths = rc.handlers.callbacks, rc.graph_name, rc.extras, rc.node_paths
    set_scope, reset_scope = _SCOPE.set, _SCOPE.reset
    done: Task | None = None  # the last step's task, made when the loop ends
    done_node: NodePlan | None = None
    done_step = 0
    carried = False
    key, value = pending[0]
    while True:
        node = nodes[key]
        direct = node.direct
        pre = node.pre
        if direct is None or node.post is not None or type(pre) is StreamHandler:
            if carried:
                data.pending = [(key, value)]
            break
        # phase 1, start (`start_step`)
        if cancel is not None and cancel.is_set():
            raise GraphRunError("context has been canceled: context canceled")
        step = data.step
        if max_steps is not None and step >= max_steps:
            raise MaxStepsExceededError(max_steps, path=rc.path)
        if not carried:
            data.pending = []
        original = value
        # phase 2, the pre-handler (`call_handler`), without the state lock (module docstring)
        if pre is not None:
            assert frame is not None
            halted: InterruptSignal | None = None
            try:
                value = pre(value, frame.value)
                if type(value) not in _SYNC_TYPES and is_awaitable(value):
                    value = resolve(value)
            except InterruptSignal as signal:
                halted = signal
            except Exception as exc:
                raise _handler_error(rc, node, "pre", exc) from exc
            if halted is not None:  # the task does not run: a rerun node
                task = Task(node, original, step)
                s = _step(task)
                data.running[key] = original
                _halt(rc, data, s, task, halted)
                raise _fail(rc, data, s, [])
        # phase 3, the task (`execute_sync`'s direct call), in the node's run scope
        path = paths.get(key)
        if path is None:
            path = paths[key] = (*rc.path, key)
        scope = _NEW(RunScope)
        set_callbacks(scope, callbacks)
        set_path(scope, path)
        set_step(scope, step)
        set_name(scope, graph_name)
        set_state(scope, frame)
        set_extras(scope, extras)
        set_resume(scope, None)
        token = set_scope(scope)
        failed: Exception | None = None
        output: Any = None
        try:
            output = direct(value)
        except Exception as exc:
            failed = exc
        finally:
            reset_scope(token)
        if failed is not None:
            task = Task(node, original, step)
            task.input = value
            task.error = failed
            raise _fail(rc, data, _step(task), [task])
        done_node, done_step = node, step
        # phases 5 and 6 (no post-handler): the output to its branch's choice, or END's value
        branches = node.branches
        if len(branches) == 1 and not node.successors:  # `route_lone`'s common case, unrolled
            branch = branches[0]
            kind = branch.kind
            try:
                result = branch.condition(
                    iter((output,)) if kind == "stream" or kind == "stream_multi" else output
                )
            except Exception as exc:
                raise branch_error(rc, node, PREFIX, exc) from exc
            if type(result) is str and (kind == "single" or kind == "stream") and result in branch.ends:
                data.step = step + 1
                if result == END:
                    return output, None
                key, value = result, output
                carried = True
                continue
            result = route_chosen(rc, data, node, output, result, [], PREFIX)
        else:
            task = Task(node, original, step)
            task.input = value
            task.output = output
            result = route_lone(rc, data, task, [], PREFIX)
        data.step = step + 1
        if result is not NOT_ENDED:
            return result, None
        carried = False
        pending = data.pending
        if len(pending) != 1 or data.values:
            break
        key, value = pending[0]
    if done_node is None:
        return NOT_ENDED, None
    done = Task(done_node, None, done_step)
    ended = _step(done)  # for the next step's "no tasks" error, which names the nodes completed last
    ended.finished = ended.completed = [done]
    return NOT_ENDED, ended
