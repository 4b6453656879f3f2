"""Spans made into the lines of a run file: our own exports exactly, other tracers' runs as observed.

Our own traces (a root `invoke_workflow` span with `inspector.run.id`) are put back as they were
recorded: the header from the root's attributes, a step per `inspector.step` event, its node runs from
the `invoke_node`/`invoke_agent` spans, tool runs from `execute_tool`, branch decisions, interrupts and
budgets from the events; values (state, inputs, outputs) only when the export carried message content.

Anything else becomes an observed run (`meta.observed`): LangGraph traced by OpenInference (node and
step from its `langgraph_node`/`langgraph_step` metadata), or plain GenAI spans (`chat`,
`execute_tool` under an `invoke_agent`): a step per graph step (or per model call and per round of
tool calls), budgets counted from the spans, and the topology the steps walked, named "observed".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspector.errors import RunFileError
from inspector.otel import names as n
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION
from inspector.sources.observed_run import observed_lines
from inspector.sources.spans import SpanEvent, TraceSpan
from inspector.sources.trace_values import dump as _dump
from inspector.sources.trace_values import error_of as _error
from inspector.sources.trace_values import loaded as _loaded
from inspector.sources.trace_values import seconds as _seconds

__all__ = ["trace_lines"]

_NODE_OPS = (n.OP_NODE, n.OP_AGENT)


def trace_lines(spans: Sequence[TraceSpan], path: Path) -> list[str]:
    """The run file's lines for the run in `spans` (the first one, when a file holds several)."""
    if not spans:
        raise RunFileError("the trace file holds no spans", path=path)
    unique = list({(s.trace_id, s.span_id): s for s in reversed(spans)}.values())[::-1]
    if len(unique) < len(spans):  # a retried export sends a batch twice: the first copy counts
        lines = trace_lines(unique, path)
        header = json.loads(lines[0])
        header["meta"] = {
            **(header.get("meta") or {}),
            "otlp_duplicate_spans_skipped": len(spans) - len(unique),
        }
        return [_dump(header), *lines[1:]]
    roots = [
        s
        for s in spans
        if s.attributes.get(n.RUN_ID) is not None and s.attributes.get(n.OPERATION) == n.OP_WORKFLOW
    ]
    if roots:
        run_id = roots[0].attributes[n.RUN_ID]
        segments = sorted(
            (r for r in roots if r.attributes[n.RUN_ID] == run_id),
            key=lambda r: r.attributes.get(n.SEGMENT, 0),
        )
        return _OwnRun(spans, run_id).lines(segments)
    return observed_lines(spans, path)


def _time(value: Any) -> float | None:
    return None if not isinstance(value, (int, float)) or value < 0 else round(float(value), 6)


def _budget(attributes: dict[str, Any]) -> dict[str, Any]:
    budget: dict[str, Any] = {
        "model_calls": int(attributes.get(n.MODEL_CALLS, 0)),
        "tool_calls": int(attributes.get(n.TOOL_CALLS, 0)),
    }
    if n.STEPS_USED in attributes:
        budget["steps_used"] = int(attributes[n.STEPS_USED])
    if n.STEPS_MAX in attributes:
        budget["steps_max"] = int(attributes[n.STEPS_MAX])
        if "steps_used" in budget:
            budget["steps_remaining"] = budget["steps_max"] - budget["steps_used"]
    for key, name in (
        (n.PROMPT_TOKENS, "prompt_tokens"),
        (n.COMPLETION_TOKENS, "completion_tokens"),
        (n.TOTAL_TOKENS, "total_tokens"),
        (n.ITERATIONS_REMAINING, "iterations_remaining"),
    ):
        if key in attributes:
            budget[name] = int(attributes[key])
    return budget


def _branch(e: dict[str, Any]) -> dict[str, Any]:
    return {
        "source": e.get(n.BRANCH_SOURCE, ""),
        "branch_index": int(e.get(n.BRANCH_INDEX, 0)),
        "chosen": list(e.get(n.BRANCH_CHOSEN, [])),
        "skipped": list(e.get(n.BRANCH_SKIPPED, [])),
    }


class _OwnRun:
    def __init__(self, spans: Sequence[TraceSpan], run_id: str) -> None:
        self.run_id = run_id
        self.children: dict[tuple[str, str], list[TraceSpan]] = {}
        self.by_id: dict[tuple[str, str], TraceSpan] = {}
        for span in spans:
            self.by_id[(span.trace_id, span.span_id)] = span
            if span.parent_id:
                self.children.setdefault((span.trace_id, span.parent_id), []).append(span)

    def below(self, span: TraceSpan) -> list[TraceSpan]:
        """The spans whose parent is `span`, in file order."""
        return self.children.get((span.trace_id, span.span_id), [])

    def lines(self, roots: list[TraceSpan]) -> list[str]:
        out: list[str] = []
        for root in roots:
            out.extend(self.segment(root))
        return out

    def segment(self, root: TraceSpan) -> list[str]:
        a = root.attributes
        index = int(a.get(n.SEGMENT, 0))
        started_at = str(a.get(n.STARTED_AT) or datetime.fromtimestamp(root.start / 1e9, UTC).isoformat())
        topology = _loaded(a, n.TOPOLOGY)
        meta = _loaded(a, n.RUN_META) or {}
        common: dict[str, Any] = {
            "graph_name": a.get(n.GRAPH_NAME, a.get(n.WORKFLOW_NAME, "")),
            "trigger_mode": a.get(n.TRIGGER_MODE),
            "max_run_steps": a.get(n.STEPS_MAX),
            "topology": topology,
            "input": _loaded(a, n.RUN_INPUT),
        }
        if index == 0:
            head: dict[str, Any] = {
                "kind": "header",
                "format": FORMAT_NAME,
                "version": FORMAT_VERSION,
                "run_id": self.run_id,
                "started_at": started_at,
                **common,
                "resumed_from": a.get(n.RESUMED_FROM),
                "meta": meta,
            }
        else:
            head = {
                "kind": "segment",
                "index": index,
                "resumed_from": a.get(n.RESUMED_FROM) or "",
                "started_at": started_at,
                **common,
                "meta": meta,
            }
        lines = [_dump(head)]
        nodes = [s for s in self.below(root) if s.attributes.get(n.OPERATION) in _NODE_OPS]
        by_step: dict[int, list[TraceSpan]] = {}
        for span in nodes:
            by_step.setdefault(int(span.attributes.get(n.STEP, 0)), []).append(span)
        events: dict[str, list[SpanEvent]] = {}
        nested: dict[int, list[dict[str, Any]]] = {}
        pending: list[dict[str, Any]] = []
        for event in root.events:  # a nested step's events come before its top-level step's, in file order
            if n.STEP_PATH in event.attributes:
                if event.name == n.EVENT_STEP:
                    pending.append(self.nested_step(root, event))
                elif event.name == n.EVENT_BRANCH and pending:
                    pending[-1]["branches"].append(_branch(event.attributes))
                continue
            if event.name == n.EVENT_STEP:
                nested[int(event.attributes.get(n.STEP, 0))] = pending
                pending = []
            events.setdefault(event.name, []).append(event)
        branches: dict[int, list[dict[str, Any]]] = {}
        for event in events.get(n.EVENT_BRANCH, ()):
            branches.setdefault(int(event.attributes.get(n.STEP, 0)), []).append(_branch(event.attributes))
        for event in events.get(n.EVENT_STEP, ()):
            e = event.attributes
            step = int(e.get(n.STEP, 0))
            t = float(e.get(n.STEP_T, 0.0))
            order = list(e.get(n.STEP_NODES, []))
            runs = by_step.pop(step, [])
            if len(runs) > 1:
                runs.sort(
                    key=lambda s: (
                        order.index(s.attributes.get(n.NODE_KEY))
                        if s.attributes.get(n.NODE_KEY) in order
                        else len(order)
                    ),
                )
            lines.extend(_dump(inner) for inner in nested.get(step, ()))
            line: dict[str, Any] = {"kind": "step"}
            if n.STATE in e:
                line["full"] = True
            line.update(
                {
                    "index": step,
                    "nodes": order,
                    "t": t,
                    "duration": _time(e.get(n.STEP_DURATION)),
                    "ended": bool(e.get(n.STEP_ENDED, False)),
                    "budget": _budget(e),
                    "runs": [self.node_run(s, t) for s in runs],
                    "branches": branches.get(step, []),
                    "errors": list(e.get(n.STEP_ERRORS, [])),
                    "interrupted": list(e.get(n.STEP_INTERRUPTED, [])),
                    "state": _loaded(e, n.STATE),
                }
            )
            lines.append(_dump(line))
        lines.extend(_dump(inner) for inner in pending)
        for event in events.get(n.EVENT_UNFINISHED, ()):  # the step it started and never finished
            e = event.attributes
            step = int(e.get(n.STEP, 0))
            t = float(e.get(n.STEP_T, 0.0))
            runs = by_step.pop(step, [])
            unfinished = {
                "kind": "step_unfinished",
                "index": step,
                "nodes": list(e.get(n.STEP_NODES, [])),
                "t": t,
                "budget": _budget(e),
                "runs": [self.node_run(s, t) for s in runs],
            }
            lines.append(_dump(unfinished))
        for event in events.get(n.EVENT_INTERRUPT, ()):
            e = event.attributes
            lines.append(
                _dump(
                    {
                        "kind": "interrupted",
                        "before_nodes": list(e.get(n.INTERRUPT_BEFORE, [])),
                        "after_nodes": list(e.get(n.INTERRUPT_AFTER, [])),
                        "rerun_nodes": list(e.get(n.INTERRUPT_RERUN, [])),
                        "state": _loaded(e, n.STATE),
                        "checkpoint_id": e.get(n.CHECKPOINT_ID),
                        "t": _seconds(event.time - root.start),
                    }
                )
            )
        status = a.get(n.RUN_STATUS)
        if status in ("ok", "error", "interrupted"):
            duration = _seconds(root.end - root.start)
            finished: dict[str, Any] = {
                "kind": "run_finished",
                "status": status,
                "output": _loaded(a, n.RUN_OUTPUT),
            }
            error = _error(root)
            if error is not None:
                finished["error"] = error
            finished.update({"t": duration, "duration": duration})
            lines.append(_dump(finished))
        return lines

    def nested_step(self, root: TraceSpan, event: SpanEvent) -> dict[str, Any]:
        """A nested graph's step line, from its `inspector.step` event and the node spans it names."""
        e = event.attributes
        t = float(e.get(n.STEP_T, 0.0))
        line: dict[str, Any] = {"kind": "step", "path": list(e.get(n.STEP_PATH, []))}
        if n.STATE in e:
            line["full"] = True
        line.update({"index": int(e.get(n.STEP, 0)), "nodes": list(e.get(n.STEP_NODES, [])), "t": t})
        line["duration"] = _time(e.get(n.STEP_DURATION))
        if n.STEP_NEXT in e:
            line["next_nodes"] = list(e[n.STEP_NEXT])
        spans = [self.by_id.get((root.trace_id, span_id)) for span_id in e.get(n.STEP_SPANS, [])]
        line.update(
            {
                "ended": bool(e.get(n.STEP_ENDED, False)),
                "budget": _budget(e),
                "runs": [self.node_run(s, t) for s in spans if s is not None],
                "branches": [],
                "errors": list(e.get(n.STEP_ERRORS, [])),
                "interrupted": list(e.get(n.STEP_INTERRUPTED, [])),
                "state": _loaded(e, n.STATE),
            }
        )
        if n.STATE_DELTA in e:
            line["delta"] = _loaded(e, n.STATE_DELTA)
        return line

    def node_run(self, span: TraceSpan, step_t: float) -> dict[str, Any]:
        a = span.attributes
        started = _time(a.get(n.NODE_T))
        run: dict[str, Any] = {
            "node": a.get(n.NODE_KEY, ""),
            "name": a.get(n.NODE_NAME, ""),
            "component": a.get(n.NODE_TYPE, ""),
            "input": _loaded(a, n.NODE_INPUT),
            "output": _loaded(a, n.NODE_OUTPUT),
            "error": _error(span),
            "t": None if started is None else round(started - step_t, 6),
            "duration": _time(a.get(n.NODE_DURATION)),
        }
        tools = [s for s in self.below(span) if s.attributes.get(n.OPERATION) == n.OP_TOOL]
        run["tools"] = [self.tool_run(s, started or 0.0) for s in tools]
        return run

    def tool_run(self, span: TraceSpan, node_t: float) -> dict[str, Any]:
        a = span.attributes
        started = _time(a.get(n.NODE_T))
        return {
            "tool_call_id": a.get(n.TOOL_CALL_ID),
            "name": a.get(n.TOOL_NAME),
            "input": _loaded(a, n.NODE_INPUT),
            "output": _loaded(a, n.NODE_OUTPUT),
            "error": _error(span),
            "t": None if started is None else round(started - node_t, 6),
            "duration": _time(a.get(n.NODE_DURATION)),
        }
