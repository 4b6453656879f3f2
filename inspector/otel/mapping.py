"""A recorded `Run` as OpenTelemetry spans: the mapping written down in docs/opentelemetry.md.

One trace per segment (the run, then each resumed continuation, linked to the root it continues):
a root span `invoke_workflow {graph}`; one `invoke_node {node}` span per node execution (or
`invoke_agent {name}` for an agent node); a `chat {model}` span inside each model call and an
`execute_tool {tool}` span per tool call. Steps, branch decisions, state changes (key names, never
values) and interrupts are span events. Times come from the recording, and ids from `KeyedIds`, so
the same recording always gives the same spans.

The spans are made with the SDK's own `Tracer` (start and end times passed in), so whatever exporter
the caller put on the provider sends them: the file writer, OTLP/HTTP, or a test's in-memory list.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Link, Span, SpanContext, Status, StatusCode, TraceFlags, Tracer

from graph_core.topology import Topology
from inspector.otel import names as n
from inspector.otel.ids import KeyedIds, span_id_of, trace_id_of
from inspector.otel.nested_mapping import emit_nested
from inspector.recording.format import BudgetRecord, ErrorRecord
from inspector.recording.model import NodeRun, Segment, Step
from inspector.recording.reader import Run
from inspector.recording.redact import Redaction, make_redaction

__all__ = ["capture_content", "emit_run", "emit_segment", "epoch_ns"]

_AGENT_KINDS = frozenset({"Agent", "ChatModelAgent", "ReActAgent", "Graph", "Workflow", "Chain"})
_BUDGET_ERRORS = {"MaxStepsExceededError": "steps", "MaxIterationsExceededError": "iterations"}


def capture_content(environ: dict[str, str] | None = None) -> bool:
    """Whether `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` asks for message content."""
    value = (os.environ if environ is None else environ).get(n.CAPTURE_CONTENT_ENV, "")
    return value.strip().lower() in ("1", "true", "yes", "span_only", "span_and_event")


def epoch_ns(iso: str, offset: float | None = 0.0) -> int:
    """Nanoseconds since the epoch of `offset` seconds after the ISO time `iso`."""
    try:
        base = datetime.fromisoformat(iso).timestamp()
    except ValueError:
        base = 0.0
    return round((base + (offset or 0.0)) * 1e6) * 1000


def emit_run(
    run: Run,
    tracer: Tracer,
    ids: KeyedIds | None = None,
    *,
    content: bool = False,
    redaction: Redaction | None = None,
) -> None:
    """Make the spans of every segment of `run` with `tracer` (ended, so the provider's processors
    hand them on). `ids`, the provider's id generator, makes them deterministic; `content` adds message
    content and tool arguments/results, masked by `redaction` (the recordings' default rules)."""
    for segment in run.segments:
        emit_segment(run, segment, tracer, ids, content=content, redaction=redaction)


def emit_segment(
    run: Run,
    segment: Segment,
    tracer: Tracer,
    ids: KeyedIds | None = None,
    *,
    content: bool = False,
    redaction: Redaction | None = None,
) -> None:
    """The spans of one segment of `run` (one trace): what a live sink sends when a run ends."""
    mapper = Mapper(run, tracer, ids, content=content, redaction=redaction)
    mapper.segment(segment)


class Mapper:
    """Makes the spans of a run's segments. `segment` makes one whole; a live export calls `begin`
    when the segment's header is there, `step` as each step is written (its node, chat and tool spans
    end, so the batch processor sends them at once), and `finish` when the segment has ended (the
    root, which carries the step events, ends last, as every root does)."""

    def __init__(
        self,
        run: Run,
        tracer: Tracer,
        ids: KeyedIds | None = None,
        *,
        content: bool = False,
        redaction: Redaction | None = None,
    ) -> None:
        self.run = run
        self.tracer = tracer
        self.ids = ids
        self.content = content
        self.redaction = make_redaction(True) if redaction is None else redaction
        self.graph = run.graph_name or (run.topology.name if run.topology else "") or "graph"

    def _start(self, key: str, name: str, parent: Span | None, start: int, **options: Any) -> Span:
        if self.ids is not None:
            self.ids.key = key
        context = trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(name, context=context, start_time=start, **options)

    def _end(self, span: Span, end: int) -> None:
        span.end(end_time=end)

    # What the nested steps' mapping (`nested_mapping`) uses of this one.
    start_span = _start
    end_span = _end

    @staticmethod
    def at(base: int, seconds: float | None) -> int:
        return _at(base, seconds)

    @staticmethod
    def budget_attributes(budget: BudgetRecord) -> dict[str, Any]:
        return _budget_attributes(budget)

    def json_value(self, value: Any) -> str:
        return self._json(value)

    def segment(self, segment: Segment) -> None:
        root = self.begin(segment)
        previous: dict[str, str] = {}
        for position in segment.steps:
            previous = self.step(root, segment, self.run.steps[position], previous)
        self.finish(root, segment, previous)

    def begin(self, segment: Segment) -> Span:
        """The segment's root span, started (what is known once its header is written)."""
        run = self.run
        if self.ids is not None:
            self.ids.segment = segment.index
        start = epoch_ns(segment.started_at)
        links: list[Link] = []
        if segment.index > 0:
            links.append(Link(_context(run.run_id, segment.index - 1, f"root {segment.index - 1}")))
        attrs: dict[str, Any] = {
            n.OPERATION: n.OP_WORKFLOW,
            n.WORKFLOW_NAME: self.graph,
            n.OI_KIND: n.OI_CHAIN,
            n.OI_NODE_ID: self.graph,
            n.RUN_ID: run.run_id,
            n.RUN_STATUS: segment.status,
            n.SEGMENT: segment.index,
            n.STARTED_AT: segment.started_at,
            n.RUN_META: json.dumps(segment.meta, sort_keys=True, default=str),
        }
        if run.graph_name != self.graph:  # an unnamed graph: its workflow name is made up, say so
            attrs[n.GRAPH_NAME] = run.graph_name
        if self.content:
            attrs[n.RUN_INPUT] = self._json(run.resolve(segment.input))
        if segment.resumed_from:
            attrs[n.CONVERSATION_ID] = segment.resumed_from
            attrs[n.RESUMED_FROM] = segment.resumed_from
        if segment.max_run_steps is not None:
            attrs[n.STEPS_MAX] = segment.max_run_steps
        if segment.topology is not None:
            attrs[n.TOPOLOGY] = segment.topology.model_dump_json()
            if segment.topology.trigger_mode:
                mode = segment.topology.trigger_mode
                attrs[n.TRIGGER_MODE] = str(getattr(mode, "value", mode))
        name = f"{n.OP_WORKFLOW} {self.graph}"
        return self._start(f"root {segment.index}", name, None, start, attributes=attrs, links=links)

    def finish(self, root: Span, segment: Segment, previous: dict[str, str]) -> None:
        """End the root of `segment` (ended, or as far as it got): what it spent, its status, the
        step it left unfinished, its interrupt, and its output when content is carried."""
        run = self.run
        start = epoch_ns(segment.started_at)
        root.set_attribute(n.RUN_STATUS, segment.status)
        if self.content:
            root.set_attribute(n.RUN_OUTPUT, self._json(run.resolve(segment.output)))
        if segment.interrupt is not None and segment.interrupt.checkpoint_id and not segment.resumed_from:
            root.set_attribute(n.CONVERSATION_ID, segment.interrupt.checkpoint_id)
        if segment.steps:
            for key, value in _budget_attributes(run.steps[segment.steps[-1]].budget).items():
                root.set_attribute(key, value)
        unfinished = segment.unfinished
        if unfinished is not None:
            root.add_event(
                n.EVENT_UNFINISHED,
                {
                    n.STEP: unfinished.index,
                    n.STEP_T: unfinished.started.t,
                    n.STEP_NODES: list(unfinished.nodes),
                    **_budget_attributes(unfinished.budget_before),
                },
                timestamp=_at(start, unfinished.started.t),
            )
            base = start
            for number, node_run in enumerate(unfinished.node_runs):
                if len(node_run.path) > 1:
                    continue
                self.node(
                    root,
                    f"unfinished {unfinished.index} {number}",
                    unfinished.index,
                    node_run,
                    base,
                    previous,
                    None,
                    unfinished.budget_before,
                )
        if segment.interrupt is not None:
            interrupt = segment.interrupt
            root.add_event(
                n.EVENT_INTERRUPT,
                {
                    n.INTERRUPT_BEFORE: list(interrupt.before_nodes),
                    n.INTERRUPT_AFTER: list(interrupt.after_nodes),
                    n.INTERRUPT_RERUN: list(interrupt.rerun_nodes),
                    **({n.STATE: self._json(run.resolve(interrupt.state))} if self.content else {}),
                    **({n.CHECKPOINT_ID: interrupt.checkpoint_id} if interrupt.checkpoint_id else {}),
                },
                timestamp=epoch_ns(segment.started_at, interrupt.t),
            )
        if segment.error is not None:
            _fail(root, segment.error)
        elif segment.status == "ok":
            root.set_status(Status(StatusCode.OK))
        end = start if segment.duration is None else epoch_ns(segment.started_at, segment.duration)
        root.end(end_time=max(end, start))

    def step(self, root: Span, segment: Segment, step: Step, previous: dict[str, str]) -> dict[str, str]:
        """The spans of one step's node runs and the step's events; returns this step's node key ->
        span id (hex), which the next step's node spans name as what triggered them."""
        base = epoch_ns(segment.started_at)
        spans: dict[str, str] = {}
        tops = [r for r in step.node_runs if len(r.path) <= 1]
        budget_before = step.budget_before
        # Where nested runs hang: only a step with nested graphs' steps asks.
        where: dict[tuple[str, ...], SpanContext] | None = {} if step.nested else None
        for number, node_run in enumerate(tops):
            span_id = self.node(
                root,
                f"step {step.position} {number}",
                step.index,
                node_run,
                base,
                previous,
                step.budget,
                budget_before,
                where=where,
            )
            spans[node_run.node] = span_id
        if where is not None:  # the nested graphs' steps: their spans under the spans that ran them
            emit_nested(self, root, step, base, where)
        changes = self.run.state_changes(step.position - 1, step.position)
        keys = sorted({key for change in changes for key in _changed_keys(change)})
        end = epoch_ns(segment.started_at, step.t + (step.duration or 0.0))
        root.add_event(
            n.EVENT_STEP,
            {
                n.STEP: step.index,
                n.STEP_T: step.t,
                n.STEP_NODES: list(step.nodes),
                n.STEP_DURATION: step.duration if step.duration is not None else -1.0,
                n.STEP_ENDED: step.ended,
                n.STEP_ERRORS: list(step.errors),
                n.STEP_INTERRUPTED: list(step.interrupted),
                **_budget_attributes(step.budget),
                **({n.STATE: self._json(step.state)} if self.content else {}),
            },
            timestamp=end,
        )
        if changes:
            root.add_event(
                n.EVENT_STATE,
                {n.STEP: step.index, n.STATE_KEYS: keys, n.STATE_COUNT: len(changes)},
                timestamp=end,
            )
        for decision in step.branches:
            root.add_event(
                n.EVENT_BRANCH,
                {
                    n.STEP: step.index,
                    n.BRANCH_SOURCE: decision.source,
                    n.BRANCH_INDEX: decision.branch_index,
                    n.BRANCH_CHOSEN: list(decision.chosen),
                    n.BRANCH_SKIPPED: list(decision.skipped or ()),
                },
                timestamp=end,
            )
        return spans

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
    ) -> str:
        """The span of one node execution (and its chat and tool spans) under `root`; returns its span
        id (hex). `where` gets the span contexts a nested run hangs under: the node's, by its node path,
        and each tool call's, by the path its agent's run is recorded under (`tool_call_segment`).
        `topology` is the graph the node is in (the run's unless a nested graph's)."""
        start = _at(base, node_run.started)
        end = start + round((node_run.duration or 0.0) * 1e9)
        agent = node_run.component in _AGENT_KINDS
        op = n.OP_AGENT if agent else n.OP_NODE
        graph = self.run.topology if topology is None else topology
        triggers = _triggers(graph, node_run.node, previous)
        attrs: dict[str, Any] = {
            n.OPERATION: op,
            n.OI_KIND: n.OI_AGENT if agent else n.OI_CHAIN,
            n.OI_NODE_ID: node_run.node,
            n.OI_NODE_NAME: node_run.name or node_run.node,
            n.OI_PARENT_ID: triggers[0][0] if triggers else self.graph,
            n.RUN_ID: self.run.run_id,  # a receiver files a live run's node spans before its root ends
            n.STEP: index,
            n.NODE_KEY: node_run.node,
            n.NODE_PATH: list(node_run.path) or [node_run.node],
            n.NODE_TYPE: node_run.component,
            n.TRIGGERED_BY: [span for _, span in triggers],
            n.NODE_T: node_run.started if node_run.started is not None else -1.0,
            n.NODE_DURATION: node_run.duration if node_run.duration is not None else -1.0,
        }
        if self.content:
            attrs[n.NODE_INPUT] = self._json(node_run.input)
            attrs[n.NODE_OUTPUT] = self._json(node_run.output)
        if node_run.name:
            attrs[n.NODE_NAME] = node_run.name
        if agent:
            attrs[n.AGENT_NAME] = node_run.name or node_run.node
        label = node_run.name if agent and node_run.name else node_run.node
        span = self._start(key, f"{op} {label}", root, start, attributes=attrs)
        context = span.get_span_context()
        span_id = format(context.span_id, "016x")
        node_path = tuple(node_run.path) or (node_run.node,)
        if where is not None:
            where[node_path] = context
        if node_run.component == "ChatModel":
            self.chat(span, key, node_run, start, end, budget_after, budget_before, graph)
        for number, tool in enumerate(node_run.tools):
            tool_context = self.tool(span, f"{key} tool {number}", tool, base)
            if where is not None and tool.tool_call_id:
                # (imported here: the agents package is a third of a live export's start-up)
                from graph_core.agents.adk_agent_tool import tool_call_segment

                where[(*node_path, tool_call_segment(tool.name, tool.tool_call_id))] = tool_context
        if node_run.error is not None:
            _fail(span, node_run.error)
        self._end(span, end)
        return span_id

    def chat(
        self,
        parent: Span,
        key: str,
        node_run: NodeRun,
        start: int,
        end: int,
        budget_after: BudgetRecord | None,
        budget_before: BudgetRecord,
        topology: Topology | None,
    ) -> None:
        model = _model_of(topology, node_run.node)
        output = node_run.output if isinstance(node_run.output, dict) else {}
        attrs: dict[str, Any] = {
            n.OPERATION: n.OP_CHAT,
            n.OI_KIND: n.OI_LLM,
            n.PROVIDER: model[0],
            n.REQUEST_MODEL: model[1],
        }
        finish = output.get("finish_reason")
        if isinstance(finish, str) and finish:
            attrs[n.FINISH_REASONS] = [finish]
        usage = _usage(output, budget_after, budget_before)
        attrs.update(usage)
        if self.content:
            attrs[n.INPUT_MESSAGES] = self._json(node_run.input)
            attrs[n.OUTPUT_MESSAGES] = self._json(node_run.output)
        span = self._start(f"{key} chat", f"{n.OP_CHAT} {model[1]}", parent, start, attributes=attrs)
        if node_run.error is not None:
            _fail(span, node_run.error)
        self._end(span, end)

    def tool(self, parent: Span, key: str, tool: NodeRun, base: int) -> SpanContext:
        start = _at(base, tool.started)
        end = start + round((tool.duration or 0.0) * 1e9)
        attrs: dict[str, Any] = {
            n.OPERATION: n.OP_TOOL,
            n.OI_KIND: n.OI_TOOL,
            n.TOOL_NAME: tool.name,
            n.TOOL_TYPE: "function",
            n.NODE_T: tool.started if tool.started is not None else -1.0,
            n.NODE_DURATION: tool.duration if tool.duration is not None else -1.0,
        }
        if tool.tool_call_id:
            attrs[n.TOOL_CALL_ID] = tool.tool_call_id
        if self.content:
            attrs[n.TOOL_ARGUMENTS] = self._json(tool.input, text=True)
            attrs[n.TOOL_RESULT] = self._json(tool.output, text=True)
            attrs[n.NODE_INPUT] = self._json(tool.input)
            attrs[n.NODE_OUTPUT] = self._json(tool.output)
        span = self._start(key, f"{n.OP_TOOL} {tool.name}", parent, start, attributes=attrs)
        if tool.error is not None:
            _fail(span, tool.error)
        self._end(span, end)
        return span.get_span_context()

    def _json(self, value: Any, *, text: bool = False) -> str:
        """`value` as JSON text (a string as itself when `text`: tool arguments), redacted."""
        if not (text and isinstance(value, str)):
            value = json.dumps(_plain(value), ensure_ascii=False, default=str)
        return self.redaction.scrub(value) if self.redaction.scrubs else value


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_plain(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _changed_keys(change: Any) -> list[str]:
    """The top-level state keys a change touches (a whole new state: all of its keys)."""
    if change.path:
        return [str(change.path[0])]
    keys: list[str] = []
    for side in (change.old, change.new):
        if isinstance(side, dict):
            keys.extend(str(k) for k in side)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return keys


def _at(base: int, seconds: float | None) -> int:
    """`seconds` after the segment started at `base` (ns), to the microsecond the file keeps."""
    return base + round((seconds or 0.0) * 1e6) * 1000


def _context(run_id: str, segment: int, key: str) -> SpanContext:
    return SpanContext(
        trace_id_of(run_id, segment), span_id_of(run_id, key), is_remote=False, trace_flags=TraceFlags(1)
    )


def _fail(span: Span, error: ErrorRecord) -> None:
    span.set_status(Status(StatusCode.ERROR, f"{error.type}: {error.message}"))
    span.set_attribute(n.ERROR_TYPE, error.type)
    span.set_attribute(n.ERROR_MESSAGE, error.message)
    if error.cause_type is not None:
        span.set_attribute(n.ERROR_CAUSE_TYPE, error.cause_type)
    if error.cause_message is not None:
        span.set_attribute(n.ERROR_CAUSE_MESSAGE, error.cause_message)
    if error.node_path is not None:
        span.set_attribute(n.ERROR_NODE_PATH, list(error.node_path))
    exhausted = _BUDGET_ERRORS.get(error.type) or _BUDGET_ERRORS.get(error.cause_type or "")
    if exhausted:
        span.set_attribute(n.BUDGET_EXHAUSTED, exhausted)


def _budget_attributes(budget: BudgetRecord) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        n.STEPS_USED: budget.steps_used,
        n.MODEL_CALLS: budget.model_calls,
        n.TOOL_CALLS: budget.tool_calls,
    }
    if budget.steps_max is not None:
        attrs[n.STEPS_MAX] = budget.steps_max
    for name, value in (
        (n.PROMPT_TOKENS, budget.prompt_tokens),
        (n.COMPLETION_TOKENS, budget.completion_tokens),
        (n.TOTAL_TOKENS, budget.total_tokens),
        (n.ITERATIONS_REMAINING, budget.iterations_remaining),
    ):
        if value is not None:
            attrs[name] = value
    return attrs


def _usage(output: dict[str, Any], after: BudgetRecord | None, before: BudgetRecord) -> dict[str, Any]:
    """Token usage of one model call: the answer's own `usage`, else what the step added to the
    budget (a step with one model call); the sum over a run's `chat` spans is its budget's count."""
    usage = output.get("usage")
    prompt: int | None = None
    completion: int | None = None
    if isinstance(usage, dict):
        prompt = usage.get("prompt_tokens")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        completion = usage.get("completion_tokens")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    elif after is not None and after.model_calls - before.model_calls == 1:
        if after.prompt_tokens is not None:
            prompt = after.prompt_tokens - (before.prompt_tokens or 0)
        if after.completion_tokens is not None:
            completion = after.completion_tokens - (before.completion_tokens or 0)
    attrs: dict[str, Any] = {}
    if isinstance(prompt, int):
        attrs[n.INPUT_TOKENS] = prompt
    if isinstance(completion, int):
        attrs[n.OUTPUT_TOKENS] = completion
    if isinstance(usage, dict):
        for key, name in (
            ("cache_read_tokens", n.CACHE_READ_TOKENS),
            ("cache_write_tokens", n.CACHE_WRITE_TOKENS),
        ):
            value = usage.get(key)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(value, int):
                attrs[name] = value
    return attrs


def _model_of(topology: Topology | None, node: str) -> tuple[str, str]:
    """(provider, model) of the chat model node `node`, from the topology's model description."""
    if topology is not None:
        for info in topology.nodes:
            if info.key == node and info.model is not None:
                settings: dict[str, Any] = dict(info.model.settings or {})
                name = str(settings.get("model") or info.model.class_name)
                provider = "openai" if "OpenAI" in info.model.class_name else info.model.class_name
                return provider, name
    return "unknown", node


def _triggers(topology: Topology | None, node: str, previous: dict[str, str]) -> list[tuple[str, str]]:
    """The previous step's executions that lead to `node` (an edge or branch from them): fan-in gives
    several. Without a topology, every execution of the previous step."""
    if topology is None:
        return sorted(previous.items())
    sources = {edge.source for edge in topology.edges if edge.target == node}
    return [(key, span) for key, span in previous.items() if key in sources]
