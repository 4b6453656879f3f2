"""A step's nested runs as spans: the steps a subgraph node, or an agent used as a tool, ran inside
one top-level step (`Step.nested_parts()`, in file order).

Each nested step's node executions become `invoke_node`/`invoke_agent` spans under the span of what ran
them: a graph node's nested steps under that node's span (`inspector.node.path` names the path down),
an agent tool's run (recorded under `<ToolsNode>, <tool>:<call id>`) under one `invoke_agent {tool}`
span, child of the call's `execute_tool` span. The nested step itself is an `inspector.step` event on
the root, like a top-level step, with `inspector.step.path` and the span ids of its node executions
(`inspector.step.spans`), written before its top-level step's event, in file order, so a reader puts
the nested step lines back where and as they were; its branch decisions follow it as `inspector.branch`
events with the same path.

A nested graph's steps are written before the step of the enclosing graph that ran them, so the span
of a node nested two deep is only made when that later step is: such steps wait (`pending`) until it
registers the span they belong under, and one that never finds it goes under its top-level node.
"""

from __future__ import annotations

from typing import Any, Protocol

from opentelemetry.trace import NonRecordingSpan, Span, SpanContext

from graph_core.topology import Topology
from inspector.otel import names as n
from inspector.recording.format import BudgetRecord, StepRecord
from inspector.recording.model import NodeRun, Step
from inspector.recording.nesting import nested_topology
from inspector.recording.reader import Run

__all__ = ["emit_nested"]


class Mapper(Protocol):
    """What this uses of `mapping.Mapper` (named here, not imported: that module imports this one)."""

    run: Run
    content: bool

    def node(
        self,
        root: Span,
        key: str,
        index: int,
        node_run: NodeRun,
        base: int,
        previous: dict[str, str],
        budget_after: BudgetRecord | None,
        budget_before: BudgetRecord,
        *,
        where: dict[tuple[str, ...], SpanContext] | None = None,
        topology: Topology | None = None,
    ) -> str: ...

    def start_span(self, key: str, name: str, parent: Span | None, start: int, **options: Any) -> Span: ...

    def end_span(self, span: Span, end: int) -> None: ...

    def at(self, base: int, seconds: float | None) -> int: ...

    def budget_attributes(self, budget: BudgetRecord) -> dict[str, Any]: ...

    def json_value(self, value: Any) -> str: ...


_Part = tuple[StepRecord, BudgetRecord, list[NodeRun]]


def emit_nested(
    mapper: Mapper, root: Span, step: Step, base: int, where: dict[tuple[str, ...], SpanContext]
) -> None:
    """The spans and events of the nested steps of `step`, whose top-level node and tool spans are
    in `where` (by node path, and by an agent tool's nested-run path)."""
    _Nested(mapper, root, step, base, where).emit()


class _Nested:
    def __init__(
        self, mapper: Mapper, root: Span, step: Step, base: int, where: dict[tuple[str, ...], SpanContext]
    ) -> None:
        self.mapper = mapper
        self.root = root
        self.step = step
        self.base = base
        self.where = where
        self.parts = step.nested_parts()
        self.events: list[list[tuple[str, dict[str, Any], int]]] = [[] for _ in self.parts]
        self.previous: dict[tuple[str, ...], tuple[dict[str, str], BudgetRecord]] = {}
        self.agents: dict[tuple[tuple[str, ...], int], Span] = {}

    def emit(self) -> None:
        pending: dict[tuple[str, ...], list[int]] = {}
        for number, (record, _, _) in enumerate(self.parts):
            path = tuple(record.path)
            if path in self.where:
                self._resolve(self.part(number, self.where[path]), pending)
            else:
                pending.setdefault(path, []).append(number)
        for path, numbers in pending.items():  # no enclosing step registered them: under the top node
            parent = self.where.get(path[:1])
            for number in numbers:
                self.part(number, parent)
        for events in self.events:
            for name, attrs, time in events:
                self.root.add_event(name, attrs, timestamp=time)

    def _resolve(
        self, registered: dict[tuple[str, ...], SpanContext], pending: dict[tuple[str, ...], list[int]]
    ) -> None:
        for path, context in registered.items():
            for number in pending.pop(path, ()):
                self._resolve(self.part(number, context), pending)

    def part(self, number: int, parent: SpanContext | None) -> dict[tuple[str, ...], SpanContext]:
        """The spans and events of nested step `number` under `parent` (the root when None); returns
        the span contexts it registered for steps nested further down."""
        mapper, run = self.mapper, self.mapper.run
        record, budget, node_runs = self.parts[number]
        path = tuple(record.path)
        topology = nested_topology(run.topology, path)
        if parent is not None and len(path) > 1 and ":" in path[-1]:
            parent = self._agent(number, path, parent)
        parent_span: Span = self.root if parent is None else NonRecordingSpan(parent)
        previous, before = self.previous.get(path, ({}, self.step.budget_before))
        if record.index == 0:
            previous = {}
        registered: dict[tuple[str, ...], SpanContext] = {}
        spans: dict[str, str] = {}
        key = f"step {self.step.position} nested {number}"
        for position, node_run in enumerate(node_runs):
            spans[node_run.node] = mapper.node(
                parent_span,
                f"{key} {position}",
                record.index,
                node_run,
                self.base,
                previous,
                budget,
                before,
                where=registered,
                topology=topology,
            )
        self.previous[path] = (spans, budget)
        end = mapper.at(self.base, record.t + (record.duration or 0.0))
        attrs: dict[str, Any] = {
            n.STEP: record.index,
            n.STEP_PATH: list(path),
            n.STEP_T: record.t,
            n.STEP_NODES: list(record.nodes),
            n.STEP_DURATION: record.duration if record.duration is not None else -1.0,
            n.STEP_ENDED: record.ended,
            n.STEP_ERRORS: list(record.errors),
            n.STEP_INTERRUPTED: list(record.interrupted),
            n.STEP_SPANS: [spans[r.node] for r in node_runs],
            **mapper.budget_attributes(budget),
        }
        if record.next_nodes is not None:
            attrs[n.STEP_NEXT] = list(record.next_nodes)
        if mapper.content:
            if record.full:
                attrs[n.STATE] = mapper.json_value(run.resolve(record.state))
            elif record.delta is not None:
                attrs[n.STATE_DELTA] = mapper.json_value(run.resolve(record.delta))
        events = self.events[number]
        events.append((n.EVENT_STEP, attrs, end))
        for decision in run.branches_of(record, segment=self.step.segment):
            branch = {
                n.STEP: record.index,
                n.STEP_PATH: list(path),
                n.BRANCH_SOURCE: decision.source,
                n.BRANCH_INDEX: decision.branch_index,
                n.BRANCH_CHOSEN: list(decision.chosen),
                n.BRANCH_SKIPPED: list(decision.skipped or ()),
            }
            events.append((n.EVENT_BRANCH, branch, end))
        return registered

    def _agent(self, number: int, path: tuple[str, ...], call: SpanContext) -> SpanContext:
        """The `invoke_agent {tool}` span of an agent tool's run (under its call's span), made when its
        first step is: it spans the steps recorded under `path`."""
        found = self.agents.get((path, call.span_id))
        if found is None:
            records = [r for r, _, _ in self.parts[number:] if tuple(r.path) == path]
            start = min(r.t for r in records)
            end = max(r.t + (r.duration or 0.0) for r in records)
            name = path[-1].partition(":")[0]
            attrs: dict[str, Any] = {
                n.OPERATION: n.OP_AGENT,
                n.OI_KIND: n.OI_AGENT,
                n.AGENT_NAME: name,
                n.OI_NODE_ID: name,
                n.RUN_ID: self.mapper.run.run_id,
                n.NODE_PATH: list(path),
            }
            mapper = self.mapper
            found = mapper.start_span(
                f"step {self.step.position} agent {'/'.join(path)}",
                f"{n.OP_AGENT} {name}",
                NonRecordingSpan(call),
                mapper.at(self.base, start),
                attributes=attrs,
            )
            mapper.end_span(found, mapper.at(self.base, end))
            self.agents[(path, call.span_id)] = found
        return found.get_span_context()
