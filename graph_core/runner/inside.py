"""A graph run started inside a running node: part of that node, as Eino's ctx makes a Go graph run.

A lambda or tool that calls `other.invoke(...)` (instead of embedding `other` as a graph node) starts a
top-level run: own budget, own checkpoint store. Eino hands that run the node's `ctx`, so it is part of
the node, and `CompiledGraph` does the same with the `RunPoint` found here:

- its interrupt addresses start with the node's (or tool call's, or address segment's), then
  `runnable:<name>`, and the node wraps its `InterruptError` with `composite_interrupt`;
- when the node reruns after such an interrupt, the run finds its nodes' records (and the resume data)
  in the node's record (`graph_core.runner.interrupts.inherit`);
- the node run's callbacks observe it too, under the node's path (see `graph_core.context`).

`graph_core.context.detached_runs()` opts runs out (an ADK agent composes its agent addresses itself).
"""

from __future__ import annotations

from dataclasses import dataclass

from graph_core.context import current_scope, detached
from graph_core.interrupt import RUNNABLE_PREFIX, PointRecord, ResumeTargets, locate, part_record

__all__ = ["RunPoint", "run_point"]


@dataclass(frozen=True, slots=True)
class RunPoint:
    """Where a graph run started inside a running node stands (see `run_point`).

    `root` is the run's root address (the node's address, then `runnable:<name>`); `record` the run's
    record in the node's saved record when the node reruns after an interrupt that held the run's points
    (its nodes' records are its parts, `node:<key>`); `resume` the resumed caller run's data; `segments`
    what the run's node path adds to the node's for observers (`:<call id>` in a tool call: the
    ToolsNode knows the tool's name, the call does not; the node's address segments).
    """

    root: str
    record: PointRecord | None
    resume: ResumeTargets | None
    segments: tuple[str, ...]


def run_point(graph_name: str) -> RunPoint | None:
    """Where a top-level run of the graph named `graph_name` starting here stands, as in Eino, whose
    graphs append `runnable:<name>` to the address in the ctx: None outside any node (or in a
    `detached_runs()` block), else a point of the running node (or tool call, or address segment)."""
    if current_scope() is None or detached():
        return None
    address, record, segments, call_id = locate()
    key = RUNNABLE_PREFIX + graph_name
    own = part_record(record, (*segments, key)) if record is not None else None
    # the address the caller's checkpoint holds, which a ToolsNode completed; else the one it will
    root = own.address if own is not None else ";".join([address, *segments, key])
    resume = record.resume if record is not None else None
    return RunPoint(root, own, resume, ((f":{call_id}",) if call_id else ()) + segments)
