"""Phases 5 and 6 of a superstep: apply the completed tasks' writes (deciding their branches on the
way), then prepare the next step's tasks from the channels that became ready (Eino's
`calculateNextTasks`, LangGraph's `apply_writes` + `prepare_next_tasks`).

Plain functions over the run's data (`RunContext`, `RunData`, the completed `Task`s); `apply_writes` is
a generator only because a branch condition may return an awaitable (it then yields `Await`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph_core.astream import acollect, acopy_stream
from graph_core.branch import Branch
from graph_core.callbacks import BranchDecision
from graph_core.errors import GraphRunError
from graph_core.runner import aio, channels
from graph_core.runner.phases import NOT_ENDED, Effects, is_awaitable
from graph_core.runner.plan import NodePlan
from graph_core.runner.run import Await, RunContext, RunData, Task
from graph_core.stream import collect, copy_stream, one_chunk
from graph_core.topology import END

__all__ = [
    "apply_writes",
    "aprepare_next_tasks",
    "branch_error",
    "prepare_next_tasks",
    "route_chosen",
    "route_lone",
    "write_now",
]


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
        raise branch_error(rc, node, prefix, exc) from exc


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
        raise branch_error(rc, node, prefix, exc) from exc


def branch_error(rc: RunContext, node: NodePlan, prefix: str, exc: Exception) -> GraphRunError:
    kind = "collect" if rc.stream else "invoke"  # Eino: stream runs use every branch's collect surface
    return GraphRunError(
        f"{prefix}: calculate next step fail, node: {node.key}, error: branch {kind} run error: {exc}"
    )


def apply_writes(
    rc: RunContext,
    data: RunData,
    completed: list[Task],
    decisions: list[Any],
    prefix: str = "failed to calculate next tasks",
    *,
    carried: tuple[str, ...] = (),
) -> Effects:
    """Phase 5, apply writes (the first half of Eino's `calculateNextTasks`): each completed task's output
    goes into the channels of its successors and of the ends its branches chose (decided here, in node
    order; a DAG also reports the ends not chosen as skipped). Returns the channels touched, in order.

    `carried` names channels restored from a checkpoint, which are checked for readiness with this
    step's targets. In a step where some task interrupted (Eino's `resolveCompletedTasks`), the writes
    happen and nothing is read: they stay in the channels for the checkpoint. The general form, for a
    run driven on an event loop (a condition may be awaited); a sync-driven run calls `write_now`.
    """
    aio_run = rc.aio
    copy: Any = acopy_stream if aio_run else copy_stream
    touched: dict[str, None] = dict.fromkeys(carried) if carried else {}
    for task in completed:
        node = task.node
        output = task.output
        branches = node.branches
        if not branches:
            _write(rc, data, node, output, (), touched, decisions)
            continue
        outputs = copy(output, len(branches) + 1) if rc.stream else None
        picks: list[tuple[str, ...]] = []
        for index, branch in enumerate(branches):
            arg = output if outputs is None else outputs[index]
            picked = None if aio_run else _choose(rc, node, branch, arg, prefix)
            if not isinstance(picked, tuple):  # an `astream` run or an async condition
                picked = yield from _choose_later(rc, node, branch, arg, prefix, picked)
            picks.append(picked)
        _write(rc, data, node, output if outputs is None else outputs[-1], picks, touched, decisions)
    return touched


def write_now(
    rc: RunContext,
    data: RunData,
    completed: list[Task],
    decisions: list[Any],
    prefix: str = "failed to calculate next tasks",
    *,
    carried: tuple[str, ...] = (),
) -> dict[str, None]:
    """`apply_writes` as a plain call, for a run driven on its own thread (`rc.resolve` set: an async
    condition's awaitable is resolved in place, as the sync driver resolves an `Await`). No generator
    frame per step."""
    touched: dict[str, None] = dict.fromkeys(carried) if carried else {}
    for task in completed:
        node = task.node
        output = task.output
        branches = node.branches
        if not branches:
            _write(rc, data, node, output, (), touched, decisions)
        elif len(branches) == 1 and not rc.stream:  # the common case: one branch, invoke mode
            _write(
                rc,
                data,
                node,
                output,
                (_choose_now(rc, node, branches[0], output, prefix),),
                touched,
                decisions,
            )
        else:
            outputs = copy_stream(output, len(branches) + 1) if rc.stream else None
            picks = [
                _choose_now(rc, node, branch, output if outputs is None else outputs[index], prefix)
                for index, branch in enumerate(branches)
            ]
            _write(rc, data, node, output if outputs is None else outputs[-1], picks, touched, decisions)
    return touched


def route_lone(
    rc: RunContext,
    data: RunData,
    task: Task,
    decisions: list[Any],
    prefix: str = "failed to calculate next tasks",
) -> Any:
    """Phases 5 and 6 at once for a step of one completed task whose writes land in empty channels, in
    a sync-driven, invoke-mode Pregel run (the ReAct loop's every step).

    A lone writer's target channel holds only its value, so reading it gives that value back: when the
    task has one target, it is the next task with the task's output as its input (or, END, the output
    is the run's), with no channel filled only to be emptied. Any other shape goes through `_write` and
    `prepare_next_tasks` (branch conditions are still called once, here)."""
    node = task.node
    output = task.output
    branches = node.branches
    if not branches:
        targets = node.successors
        if len(targets) == 1:
            target = targets[0]
            if target == END:
                return output
            data.pending = [(target, output)]
            return NOT_ENDED
        picks: Sequence[tuple[str, ...]] = ()
    elif len(branches) == 1:  # `_choose_now` unrolled for invoke mode: the ReAct loop's every step
        branch = branches[0]
        kind = branch.kind
        try:
            result = branch.condition(
                iter((output,)) if kind == "stream" or kind == "stream_multi" else output
            )
        except Exception as exc:
            raise branch_error(rc, node, prefix, exc) from exc
        if type(result) is not str or (kind != "single" and kind != "stream") or result not in branch.ends:
            return route_chosen(rc, data, node, output, result, decisions, prefix)
        if node.successors or rc.handlers.step_end:
            picks = ((result,),)
        elif result == END:
            return output
        else:
            data.pending = [(result, output)]
            return NOT_ENDED
    else:
        picks = [_choose_now(rc, node, branch, output, prefix) for branch in branches]
    touched: dict[str, None] = {}
    _write(rc, data, node, output, picks, touched, decisions)
    return prepare_next_tasks(rc, data, touched, prefix)


def route_chosen(
    rc: RunContext,
    data: RunData,
    node: NodePlan,
    output: Any,
    result: Any,
    decisions: list[Any],
    prefix: str = "failed to calculate next tasks",
) -> Any:
    """The rest of `route_lone` for a node with one branch whose condition returned `result`: the
    choice checked (an awaitable resolved in place), the writes made, the next tasks read."""
    branch = node.branches[0]
    kind = branch.kind
    try:
        if type(result) is str and (kind == "single" or kind == "stream") and result in branch.ends:
            picks = ((result,),)
        else:
            if is_awaitable(result):
                assert rc.resolve is not None
                result = rc.resolve(result)
            picks = (branch.selected(result),)
    except Exception as exc:
        raise branch_error(rc, node, prefix, exc) from exc
    touched: dict[str, None] = {}
    _write(rc, data, node, output, picks, touched, decisions)
    return prepare_next_tasks(rc, data, touched, prefix)


def _choose_now(rc: RunContext, node: NodePlan, branch: Branch, output: Any, prefix: str) -> tuple[str, ...]:
    """`_choose`, an awaitable condition result resolved in place (`rc.resolve`)."""
    chosen = _choose(rc, node, branch, output, prefix)
    if type(chosen) is tuple:
        return chosen
    assert isinstance(chosen, Await) and rc.resolve is not None
    try:
        return branch.selected(rc.resolve(chosen.awaitable))
    except Exception as exc:
        raise branch_error(rc, node, prefix, exc) from exc


def _write(
    rc: RunContext,
    data: RunData,
    node: NodePlan,
    output: Any,
    picks: Sequence[tuple[str, ...]],
    touched: dict[str, None],
    decisions: list[Any],
) -> None:
    """One completed task's writes: `output` into its successors' channels and those of the ends its
    branches picked (`picks[i]`: branch i's choice), in that order; skips reported in a DAG."""
    plan = rc.plan
    dag = plan.dag
    targets = node.successors
    skipped: tuple[str, ...] = ()
    if picks:
        branches = node.branches
        if len(picks) == 1:
            chosen = picks[0]
            ends = branches[0].ends
        else:
            merged: dict[str, None] = {}
            all_ends: dict[str, None] = {}
            for picked, branch in zip(picks, branches, strict=True):
                merged.update(dict.fromkeys(picked))
                all_ends.update(dict.fromkeys(branch.ends))
            chosen, ends = tuple(merged), tuple(all_ends)
        if chosen:
            targets = (*targets, *(t for t in chosen if t not in targets)) if targets else chosen
        if dag:  # Pregel channels ignore skip reports (Eino §2.3)
            skipped = tuple(e for e in ends if e not in chosen and e not in node.successors)
        if rc.handlers.step_end:  # decisions are only reported at on_step_end
            known = rc.decisions
            for index, picked in enumerate(picks):
                key = (node.key, index, picked, chosen)
                decision = known.get(key)
                if decision is None:  # decisions repeat in loops: each is built once per run
                    rest = tuple(e for e in branches[index].ends if e not in chosen)
                    decision = known[key] = BranchDecision(node.key, index, picked, rest)
                decisions.append(decision)
    channel_values = data.values
    source = node.key
    if rc.stream and len(targets) > 1:
        copy: Any = acopy_stream if rc.aio else copy_stream
        values: Any = copy(output, len(targets))
    else:
        values = None
    for i, target in enumerate(targets):
        slot = channel_values.get(target)
        if slot is None:
            slot = channel_values[target] = {}
        slot[source] = output if values is None else values[i]
        touched[target] = None
        if dag:
            channels.report_ready(data, source, target)
    for target in skipped:
        channels.report_skip(plan, data, source, target, touched)


def _ready(rc: RunContext, data: RunData, touched: dict[str, None], carried: bool) -> list[str]:
    plan = rc.plan
    if plan.dag:
        return [key for key in touched if channels.is_ready(plan, data, key)]
    if carried:  # a restored channel may have been read already
        return [key for key in touched if key in data.values]
    return list(touched)  # Pregel: every touched channel was just written


def prepare_next_tasks(
    rc: RunContext,
    data: RunData,
    touched: dict[str, None],
    prefix: str = "failed to calculate next tasks",
    *,
    carried: bool = False,
) -> Any:
    """Phase 6, prepare the next tasks (the second half of Eino's `calculateNextTasks`): read every ready
    channel among those touched into `data.pending`, in node order; when END's channel is ready, return
    its value instead (the run's output). `NOT_ENDED` otherwise. A plain call: the sync engine's path."""
    plan = rc.plan
    stream = rc.stream
    ready = _ready(rc, data, touched, carried)
    try:
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


def aprepare_next_tasks(
    rc: RunContext,
    data: RunData,
    touched: dict[str, None],
    prefix: str = "failed to calculate next tasks",
    *,
    carried: bool = False,
) -> Effects:
    """`prepare_next_tasks` of an `astream` run: reading a merged channel peeks at async streams."""
    plan = rc.plan
    ready = _ready(rc, data, touched, carried)
    try:
        if "end" in ready:
            return (yield Await(channels.aread(plan, data, "end")))
        ready.sort(key=lambda key: plan.nodes[key].order)
        pending: list[tuple[str, Any]] = []
        for key in ready:
            pending.append((key, (yield Await(channels.aread(plan, data, key)))))
        data.pending = pending
    except ValueError as exc:
        raise GraphRunError(f"{prefix}: {exc}") from exc
    return NOT_ENDED
