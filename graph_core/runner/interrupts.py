"""Stopping a run at an interrupt and restarting it from a checkpoint (Eino §7.2-7.3).

`capture` turns the run's plain data (`RunData`) plus the interrupted tasks into a `Checkpoint`, saves it
when this is the top-level run and a store and checkpoint ID are set, and returns the `InterruptError`
to raise; a nested graph hands its checkpoint up inside that error instead, and the parent records it
under `sub_graphs`. `restore` does the reverse at the start of a resumed run: channels, pending tasks (the
rerun nodes with their original inputs), the state, and the saved records each rerun node will find in
its run scope. Streams are concatenated when captured and become one-chunk streams when restored.

A graph run started inside a rerunning node (`graph_core.runner.inside`) may find its nodes'
records in that node's record instead (`inherit`), as Eino finds them by address in the ctx: they are
handed to its tasks whenever those nodes run, each once, checkpoint of its own or not.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from graph_core.astream import aone_chunk
from graph_core.checkpoint.codec import CheckpointSerializationError, deep_copy, encode_checkpoint
from graph_core.checkpoint.model import Checkpoint
from graph_core.errors import GraphRunError, InterruptError
from graph_core.interrupt import (
    AbandonedTask,
    InterruptContext,
    InterruptInfo,
    InterruptSignal,
    PointRecord,
    ResumeTargets,
)
from graph_core.runner.run import RunContext, RunData, Task
from graph_core.runner.zero import zero_input
from graph_core.stream import collect, one_chunk

__all__ = [
    "CheckpointPlan",
    "Point",
    "Restored",
    "capture",
    "check_fits",
    "inherit",
    "is_interrupt",
    "restore",
]


@dataclass(slots=True)
class CheckpointPlan:
    """Where the top-level run writes its checkpoint on interrupt (None when nothing is saved)."""

    store: Any
    checkpoint_id: str


@dataclass(slots=True)
class Restored:
    """What the first step after a resume needs: each rerun node's record, and whose pre-handler to skip.

    `inherited` are records a run inside a rerunning node found in that node's record (see `inherit`),
    by node key, not yet handed out: they outlive the first step, until their nodes run.
    """

    points: dict[str, PointRecord] = field(default_factory=lambda: {})
    skip_pre_handler: set[str] = field(default_factory=lambda: set())
    carried: tuple[str, ...] = ()  # channels restored with content: read with the first step's targets
    inherited: dict[str, PointRecord] = field(default_factory=lambda: {})

    def take(self, key: str) -> PointRecord | None:
        """The record of the task of node `key` starting now, if any (an inherited one only once)."""
        record = self.points.get(key)
        if record is None and self.inherited:
            record = self.inherited.pop(key, None)
        return record

    def later(self) -> Restored | None:
        """What the next steps still need: the inherited records not handed out yet, if any."""
        return Restored(inherited=self.inherited) if self.inherited else None


def _node_parts(record: PointRecord | None) -> dict[str, PointRecord]:
    """The records of a graph's nodes among the parts of the graph's record, by node key."""
    if record is None:
        return {}
    return {key[5:]: part for key, part in record.children.items() if key.startswith("node:")}


def inherit(rc: RunContext, record: PointRecord | None) -> None:
    """Hand the nodes' records found in `record` (the run's record in its caller's, or a graph node's
    record without a checkpoint of its own) to the tasks of a run that restored no checkpoint."""
    parts = _node_parts(record)
    if parts:
        rc.restored = Restored(inherited=parts)


def is_interrupt(error: BaseException | None) -> bool:
    """A task that stopped at an interrupt (its own, its nested graph's, or an interrupt timeout's)."""
    return isinstance(error, InterruptSignal | AbandonedTask) or (
        isinstance(error, InterruptError) and error.checkpoint is not None
    )


def _value(value: Any, stream: bool) -> Any:
    return collect(value) if stream else value


def _state_copy(state: Any) -> Any:
    try:
        return deep_copy(state)
    except CheckpointSerializationError:
        return copy.deepcopy(state)  # no store needs it serialized; the caller still gets a copy


@dataclass(slots=True)
class Point:
    """One interrupt point of a stopped run as a tree: a graph, a node, a tool call.

    Each graph level builds its own and hangs its interrupted nodes' points under it (a nested graph's
    point is its node's); the top-level run links the tree into `InterruptContext`s (`linked`).
    """

    address: str
    info: Any = None
    root_cause: bool = False
    children: list[Point] = field(default_factory=lambda: [])

    @classmethod
    def of(cls, record: PointRecord) -> Point:
        children = [cls.of(child) for child in record.children.values()]
        return cls(record.address, record.info, not children, children)

    def linked(self, parent: InterruptContext | None = None) -> list[InterruptContext]:
        """The root causes under (and including) this point, each linked to its parents (Eino)."""
        context = InterruptContext(
            self.address,
            self.address,
            self.info,
            self.root_cause,
            parent.address if parent is not None else None,
            parent,
        )
        roots = [context] if self.root_cause else []
        for child in self.children:
            roots.extend(child.linked(context))
        return roots


def capture(
    rc: RunContext,
    data: RunData,
    interrupted: list[Task],
    *,
    before: list[str] = (),  # type: ignore[assignment]
    after: list[str] = (),  # type: ignore[assignment]
    external: bool = False,
) -> InterruptError:
    """Build the checkpoint and the error to raise; routing of completed tasks has already happened."""
    stream = rc.stream
    cp = Checkpoint(
        values={t: {s: _value(v, stream) for s, v in row.items()} for t, row in data.values.items()},
        control={t: dict(row) for t, row in data.control.items()},
        skipped=sorted(data.skipped),
        before_nodes=list(before),
        after_nodes=list(after),
        has_state=rc.plan.has_state,
        state=rc.state_value,
    )
    inputs = [(key, _value(value, stream)) for key, value in data.pending]
    data.pending = []
    info = InterruptInfo(before_nodes=list(before), after_nodes=list(after))
    graph_address = rc.address()
    state_copy = _state_copy(cp.state) if cp.has_state else None
    point = Point(graph_address, state_copy)
    persist = rc.interrupt_event is not None  # Eino `persistRerunInput`: set with WithGraphInterrupt
    for task in sorted(interrupted, key=lambda t: t.node.order):
        key = task.node.key
        error = task.error
        if persist:  # otherwise the node reruns with its input type's zero value (see `restore`)
            original = task.original
            inputs.append((key, _value(original, stream) if original is not None else None))
        cp.rerun_nodes.append(key)
        if isinstance(error, InterruptError):  # Eino: a nested graph's node is listed under sub_graphs only
            sub: Checkpoint = error.checkpoint
            cp.sub_graphs[key] = sub
            cp.skip_pre_handler.append(key)
            cp.points[key] = PointRecord(rc.address(key))
            info.sub_graphs[key] = error.info
            if error.point is not None:
                point.children.append(error.point)
            continue
        info.rerun_nodes.append(key)
        if isinstance(error, InterruptSignal):
            record = PointRecord.of(error)
            cp.points[key] = record
            info.rerun_nodes_extra[key] = error.info
            point.children.append(Point.of(record))
    inputs.sort(key=lambda item: rc.plan.nodes[item[0]].order)
    cp.inputs = inputs
    point.root_cause = not point.children  # Eino: a graph whose parts interrupted is their parent only
    info.interrupt_contexts = point.linked()
    if not rc.nested:
        info.state = state_copy
        saving: CheckpointPlan | None = rc.extras.get("checkpoint_plan")
        if saving is not None:
            saving.store.set(saving.checkpoint_id, encode_checkpoint(cp))
            return InterruptError(info, checkpoint_id=saving.checkpoint_id, checkpoint=cp, point=point)
    else:
        info.state = cp.state
    return InterruptError(info, checkpoint=cp, point=point)


def check_fits(plan: Any, cp: Checkpoint, where: str) -> None:
    """Refuse a checkpoint written by another graph (or an older shape of this one) before any step runs:
    every node it names must be a node here, and every nested checkpoint must belong to a graph node."""
    nodes = plan.nodes
    named = [
        *cp.values,
        *(source for row in cp.values.values() for source in row),
        *cp.control,
        *(source for row in cp.control.values() for source in row),
        *cp.skipped,
        *(key for key, _ in cp.inputs),
        *cp.rerun_nodes,
        *cp.skip_pre_handler,
        *cp.points,
        *cp.sub_graphs,
    ]
    for key in named:
        if key not in nodes:
            known = [k for k, n in nodes.items() if n.kind not in ("start", "end")]
            raise GraphRunError(
                f"cannot resume {where}: it names node {key!r}, which this graph does not have (its nodes: "
                f"{known}); was the checkpoint written by another graph?"
            )
    for key, sub in cp.sub_graphs.items():
        graph = nodes[key].graph
        if graph is None:
            raise GraphRunError(
                f"cannot resume {where}: it holds a nested checkpoint for node {key!r}, which is not a graph "
                "node here; was the checkpoint written by another graph?"
            )
        check_fits(graph.plan, sub, f"{where} (nested graph at node {key!r})")


def restore(
    rc: RunContext,
    data: RunData,
    cp: Checkpoint,
    resume: ResumeTargets | None,
    inherited: PointRecord | None = None,
) -> None:
    """Load `cp` into a fresh run: the step counter restarts at 0 and START is not routed again.

    `inherited`: the run's record in its caller's (a run inside a rerunning node). Its nodes' records
    give the restored ones their addresses as the caller's checkpoint holds them (a ToolsNode completes
    a tool call's address after the run inside it saved its own), and those not restored here are
    handed out as their nodes run.
    """
    wrap = (aone_chunk if rc.aio else one_chunk) if rc.stream else None
    data.values = {t: {s: wrap(v) if wrap else v for s, v in row.items()} for t, row in cp.values.items()}
    data.control = {t: dict(row) for t, row in cp.control.items()}
    data.skipped = set(cp.skipped)
    pending = [(k, wrap(v) if wrap else v) for k, v in cp.inputs]
    saved = {k for k, _ in cp.inputs}
    for key in cp.rerun_nodes:  # Eino `restoreTasks`: a rerun node without a saved input gets the zero value
        if key not in saved:
            zero = zero_input(rc.plan.nodes[key])
            pending.append((key, wrap(zero) if wrap else zero))
    pending.sort(key=lambda item: rc.plan.nodes[item[0]].order)
    data.pending = pending
    data.step = 0
    data.started = True
    if cp.has_state and rc.frame is not None and rc.plan.has_state:
        state = cp.state
        address = rc.address()
        # Eino: data aimed at the graph is its state; None is no data (Go `hasData` false for nil)
        if resume is not None and resume.by_address.get(address) is not None:
            state = resume.by_address[address]
        rc.frame.value = state
        data.state = state
    parts = _node_parts(inherited)
    points: dict[str, PointRecord] = {}
    for key in cp.rerun_nodes:
        record = cp.points.get(key) or PointRecord(rc.address(key))
        part = parts.pop(key, None)
        if part is not None:
            record.readdress(part.address)
        record.sub = cp.sub_graphs.get(key)
        points[key] = record.with_resume(resume)
    carried = tuple(sorted(set(cp.values) | set(cp.control), key=lambda k: rc.plan.nodes[k].order))
    rc.restored = Restored(points, set(cp.skip_pre_handler), carried, parts)
