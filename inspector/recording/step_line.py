"""The one place a `step` line is built: `step_line(...)` turns a finished step's parts into bytes.

Field order is part of the format (see `format.py`): `kind`, `path`, `full`, `index`, `nodes`, `t`,
`duration`, `next_nodes`, `ended`, `budget`, `budget_before`, `runs`, `branches`, `errors`,
`interrupted`, then `state` or `delta`; fields at their defaults are left out. A loop's usual top-level
step (same nodes and branch decisions as a step before, no snapshot, nothing unusual) is spliced into
a per-decision template instead of serialising a dict: the same bytes, key for key, in a third of the
time (`python3 -m bench recording`). `StepDecisions` works out a step's stored branches, next nodes
and template once per distinct decision, since loops repeat theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import to_json

from graph_core.callbacks import StepInfo
from inspector.recording.elision import compact_branches, compact_next_nodes, counters_into
from inspector.recording.line_json import time_json

__all__ = ["Decided", "StepDecisions", "step_line", "unfinished_line"]

_MAX_DECISIONS = 1024  # distinct (step nodes, branch decisions) kept per run: loops have a handful


class Decided:
    """A step's decisions as stored: next nodes (None when implied), branches (None when there were
    none), the nodes, and the usual line's template (None when the step has no branches)."""

    __slots__ = ("branches", "decisions", "next_nodes", "nodes", "template")

    def __init__(
        self,
        next_nodes: list[str] | None,
        branches: list[dict[str, Any]] | None,
        decisions: tuple[Any, ...],
        nodes: list[str],
    ) -> None:
        self.next_nodes = next_nodes
        self.branches = branches
        self.decisions = decisions  # the engine's decision objects, kept alive while their ids key the cache
        self.nodes = nodes
        self.template = None if branches is None or next_nodes is not None else _template(nodes, branches)


class StepDecisions:
    """Stored decisions by the identity of the engine's (frozen, reused) decision objects."""

    def __init__(self, ends: Mapping[tuple[tuple[str, ...], str, int], tuple[str, ...]]) -> None:
        self._ends = ends  # the run writer's table (filled when a run starts): read, never copied whole
        self._cache: dict[tuple[Any, ...], Decided] = {}

    def of(self, step: StepInfo) -> Decided:
        branches = step.branches
        key = (step.path, step.nodes, step.next_nodes, tuple(map(id, branches)))
        decided = self._cache.get(key)
        if decided is None:
            if len(self._cache) >= _MAX_DECISIONS:  # an engine making new decision objects every step
                self._cache.clear()
            path = step.path
            stored = None
            if branches:
                ends = {(s, i): t for (p, s, i), t in self._ends.items() if p == path}  # this graph's
                stored = compact_branches(branches, step.nodes, ends)
            decided = self._cache[key] = Decided(
                compact_next_nodes(step.next_nodes, branches), stored, branches, list(step.nodes)
            )
        return decided


def _template(nodes: list[str], branches: list[dict[str, Any]]) -> bytes:
    """The usual step line with `%` slots for what changes from step to step (index, times, call
    counts, node runs, delta)."""
    nodes_json = to_json(nodes).replace(b"%", b"%%")
    branches_json = to_json(branches).replace(b"%", b"%%")
    return (
        b'{"kind":"step","index":%d,"nodes":' + nodes_json + b',"t":%b,"duration":%b,'
        b'"budget":{"model_calls":%d,"tool_calls":%d},"runs":%b,"branches":'
        + branches_json
        + b',"delta":%b}\n'
    )


def step_line(
    step: StepInfo,
    decisions: StepDecisions,
    t: float | None,
    duration: float | None,
    budget: dict[str, Any],
    budget_before: dict[str, Any] | None,
    runs: list[dict[str, Any]] | None,
    full: bool,
    payload: Any,
    delta_json: bytes | None,
) -> bytes:
    """A step line, newline included: the step's decisions as stored (`decisions.of`) with the parts
    the recorder's phases made; the template when the step is a loop's usual one, else the event dict
    serialised."""
    path, index = step.path, step.index
    ended, errors, interrupted = step.ended, step.errors, getattr(step, "interrupted", ())
    decided = decisions.of(step)
    template = decided.template
    if (
        template is not None
        and delta_json is not None
        and runs
        and not path
        and budget_before is None
        and len(budget) == 2
        and not ended
        and not errors
        and not interrupted
    ):
        return template % (
            index,
            time_json(t),
            time_json(duration),
            budget["model_calls"],
            budget["tool_calls"],
            to_json(runs),
            delta_json,
        )
    event: dict[str, Any] = {"kind": "step"}
    if path:
        event["path"] = list(path)
    if full:
        event["full"] = True
    event["index"] = index
    event["nodes"] = decided.nodes
    event["t"] = t
    event["duration"] = duration
    if decided.next_nodes is not None:
        event["next_nodes"] = decided.next_nodes
    if ended:
        event["ended"] = True
    event["budget"] = budget
    if budget_before is not None:
        event["budget_before"] = budget_before
    if runs:
        event["runs"] = runs
    if decided.branches is not None:
        event["branches"] = decided.branches
    if errors:
        event["errors"] = list(errors)
    if interrupted:
        event["interrupted"] = list(interrupted)
    if full:
        event["state"] = payload
    else:
        event["delta"] = payload
    return to_json(event) + b"\n"


def unfinished_line(
    path: tuple[str, ...],
    info: StepInfo,
    t: float | None,
    counters: tuple[Any, ...],
    runs: list[dict[str, Any]],
) -> bytes:
    """A `step_unfinished` line: a step that started and never finished, its budget before it stored in
    full (no later line implies it), with what ran in it."""
    before: dict[str, Any] = {
        "steps_used": info.budget.steps_used,
        "steps_max": info.budget.steps_max,
        "steps_remaining": info.budget.steps_remaining,
    }
    counters_into(before, counters)
    event: dict[str, Any] = {"kind": "step_unfinished"}
    if path:
        event["path"] = list(path)
    event |= {"index": info.index, "nodes": list(info.nodes), "t": t, "budget": before}
    if runs:
        event["runs"] = runs
    return to_json(event) + b"\n"
