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

from graph_core.topology import END, START, TopologyEdge, TopologyNode, build_topology
from inspector.errors import RunFileError
from inspector.otel import names as n
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION
from inspector.sources.spans import TraceSpan

__all__ = ["trace_lines"]

_NODE_OPS = (n.OP_NODE, n.OP_AGENT)


def trace_lines(spans: Sequence[TraceSpan], path: Path) -> list[str]:
    """The run file's lines for the run in `spans` (the first one, when a file holds several)."""
    if not spans:
        raise RunFileError("the trace file holds no spans", path=path)
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
    return _observed_lines(spans, path)


def _dump(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def _escape(value: Any) -> Any:
    """Keys of recorded data that start with `$` are stored with one more `$` (see `format`)."""
    if isinstance(value, dict):
        return {
            (f"${k}" if isinstance(k, str) and k.startswith("$") else k): _escape(v) for k, v in value.items()
        }  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_escape(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _loaded(attributes: dict[str, Any], key: str) -> Any:
    raw = attributes.get(key)
    if not isinstance(raw, str):
        return None
    try:
        return _escape(json.loads(raw))
    except ValueError:
        return raw


def _seconds(ns: int) -> float:
    return round(ns / 1e9, 6)


def _time(value: Any) -> float | None:
    return None if not isinstance(value, (int, float)) or value < 0 else round(float(value), 6)


def _error(span: TraceSpan) -> dict[str, Any] | None:
    if not span.error:
        return None
    kind = span.attributes.get(n.ERROR_TYPE) or "Error"
    message = span.attributes.get(n.ERROR_MESSAGE)
    if message is None:
        message = span.status_message.split(": ", 1)[-1]
    error: dict[str, Any] = {"type": str(kind), "message": str(message)}
    if n.ERROR_NODE_PATH in span.attributes:
        error["node_path"] = list(span.attributes[n.ERROR_NODE_PATH])
    if n.ERROR_CAUSE_TYPE in span.attributes:
        error["cause_type"] = str(span.attributes[n.ERROR_CAUSE_TYPE])
    if n.ERROR_CAUSE_MESSAGE in span.attributes:
        error["cause_message"] = str(span.attributes[n.ERROR_CAUSE_MESSAGE])
    return error


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


class _OwnRun:
    def __init__(self, spans: Sequence[TraceSpan], run_id: str) -> None:
        self.run_id = run_id
        self.children: dict[tuple[str, str], list[TraceSpan]] = {}
        for span in spans:
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
            "graph_name": a.get(n.WORKFLOW_NAME, ""),
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
        branches: dict[int, list[dict[str, Any]]] = {}
        for event in root.events:
            if event.name == n.EVENT_BRANCH:
                e = event.attributes
                branches.setdefault(int(e.get(n.STEP, 0)), []).append(
                    {
                        "source": e.get(n.BRANCH_SOURCE, ""),
                        "branch_index": int(e.get(n.BRANCH_INDEX, 0)),
                        "chosen": list(e.get(n.BRANCH_CHOSEN, [])),
                        "skipped": list(e.get(n.BRANCH_SKIPPED, [])),
                    }
                )
        done: set[int] = set()
        for event in root.events:
            if event.name != n.EVENT_STEP:
                continue
            e = event.attributes
            step = int(e.get(n.STEP, 0))
            done.add(step)
            t = float(e.get(n.STEP_T, 0.0))
            order = list(e.get(n.STEP_NODES, []))
            runs = sorted(
                by_step.pop(step, []),
                key=lambda s: (
                    order.index(s.attributes.get(n.NODE_KEY))
                    if s.attributes.get(n.NODE_KEY) in order
                    else len(order)
                ),
            )
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
        for event in root.events:  # the step it started and never finished
            if event.name != n.EVENT_UNFINISHED:
                continue
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
        for event in root.events:
            if event.name == n.EVENT_INTERRUPT:
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


# --- other tracers' runs -----------------------------------------------------------------------------


def _metadata(span: TraceSpan) -> dict[str, Any]:
    raw = span.attributes.get("metadata")
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]
    return {}


def _kind(span: TraceSpan) -> str:
    op = span.attributes.get(n.OPERATION)
    if op == n.OP_CHAT or span.attributes.get(n.OI_KIND) == n.OI_LLM:
        return "chat"
    if op == n.OP_TOOL or span.attributes.get(n.OI_KIND) == n.OI_TOOL:
        return "tool"
    return ""


def _tokens(span: TraceSpan) -> tuple[int, int]:
    a = span.attributes
    prompt = a.get(n.INPUT_TOKENS, a.get("llm.token_count.prompt", 0))
    completion = a.get(n.OUTPUT_TOKENS, a.get("llm.token_count.completion", 0))
    return int(prompt or 0), int(completion or 0)


def _observed_lines(spans: Sequence[TraceSpan], path: Path) -> list[str]:
    trace = spans[0].trace_id
    spans = [s for s in spans if s.trace_id == trace]
    ids = {s.span_id for s in spans}
    children: dict[str, list[TraceSpan]] = {}
    for span in spans:
        if span.parent_id in ids:
            children.setdefault(span.parent_id, []).append(span)
    roots = sorted((s for s in spans if s.parent_id not in ids), key=lambda s: s.start)
    root = roots[0]
    # The graph's steps: LangGraph's own metadata, else a step per model call / round of tool calls.
    steps: list[tuple[str, TraceSpan]] = []
    tagged = {s.span_id: _metadata(s) for s in spans}
    for span in sorted(spans, key=lambda s: s.start):
        meta = tagged[span.span_id]
        if "langgraph_node" not in meta:
            continue
        parent_meta = tagged.get(span.parent_id, {})
        if (parent_meta.get("langgraph_node"), parent_meta.get("langgraph_step")) == (
            meta["langgraph_node"],
            meta.get("langgraph_step"),
        ):
            continue  # inside the node's own span
        steps.append((str(meta["langgraph_node"]), span))
    grouped: list[tuple[list[str], list[TraceSpan]]] = []
    if steps:
        by_step: dict[Any, tuple[list[str], list[TraceSpan]]] = {}
        for node, span in steps:
            key = tagged[span.span_id].get("langgraph_step", len(by_step))
            entry = by_step.setdefault(key, ([], []))
            entry[0].append(node)
            entry[1].append(span)
        grouped = [by_step[k] for k in sorted(by_step, key=lambda k: (not isinstance(k, int), k))]
    else:
        for span in sorted(spans, key=lambda s: s.start):
            kind = _kind(span)
            if not kind or span is root:
                continue
            node = "chat" if kind == "chat" else "tools"
            if grouped and node == "tools" and grouped[-1][0] == ["tools"]:
                grouped[-1][1].append(span)
            else:
                grouped.append(([node], [span]))
    if not grouped:
        raise RunFileError(
            "the trace has no graph steps, model calls or tool calls to show (no langgraph_node metadata, "
            "no chat or execute_tool spans)",
            path=path,
        )
    name = str(root.attributes.get(n.AGENT_NAME) or root.attributes.get(n.WORKFLOW_NAME) or root.name)
    started = root.start
    edges: list[tuple[str, str]] = []
    previous = [START]
    for nodes, _ in grouped:
        for source in previous:
            for target in dict.fromkeys(nodes):
                if (source, target) not in edges:
                    edges.append((source, target))
        previous = list(dict.fromkeys(nodes))
    for source in previous:
        if (source, END) not in edges:
            edges.append((source, END))
    keys = list(dict.fromkeys(node for nodes, _ in grouped for node in nodes))
    topology = build_topology(
        name=f"{name} (observed)",
        nodes=[TopologyNode(key=key, kind="observed") for key in keys],
        edges=[TopologyEdge(source=s, target=t) for s, t in edges],
    )
    header = {
        "kind": "header",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "run_id": root.trace_id,
        "graph_name": f"{name} (observed)",
        "started_at": datetime.fromtimestamp(started / 1e9, UTC).isoformat(),
        "topology": json.loads(topology.model_dump_json()),
        "meta": {"observed": True, "source": "otlp", "trace_id": root.trace_id},
    }
    lines = [_dump(header)]
    model_calls = tool_calls = prompt = completion = 0
    failed = False
    for index, (nodes, node_spans) in enumerate(grouped):
        runs: list[dict[str, Any]] = []
        for node, span in zip(nodes, node_spans, strict=False):
            inside = [span, *_descendants(span, children)]
            tools: list[dict[str, Any]] = []
            for item in inside:
                kind = _kind(item)
                if kind == "chat":
                    model_calls += 1
                    p, c = _tokens(item)
                    prompt += p
                    completion += c
                elif kind == "tool":
                    tool_calls += 1
                    tools.append(
                        {
                            "tool_call_id": item.attributes.get(n.TOOL_CALL_ID),
                            "input": _value_of(item, "input.value", n.TOOL_ARGUMENTS),
                            "output": _value_of(item, "output.value", n.TOOL_RESULT),
                            "name": str(
                                item.attributes.get(n.TOOL_NAME)
                                or item.attributes.get("tool.name")
                                or item.name
                            ),
                            "error": _error(item),
                            "t": _seconds(item.start - span.start),
                            "duration": _seconds(item.end - item.start),
                        }
                    )
            error = _error(span)
            failed = failed or error is not None
            runs.append(
                {
                    "node": node,
                    "input": _value_of(span, "input.value", n.INPUT_MESSAGES),
                    "output": _value_of(span, "output.value", n.OUTPUT_MESSAGES),
                    "error": error,
                    "t": _seconds(span.start - node_spans[0].start),
                    "duration": _seconds(span.end - span.start),
                    "tools": tools,
                }
            )
        first = node_spans[0]
        last_end = max(s.end for s in node_spans)
        budget: dict[str, Any] = {
            "steps_used": index + 1,
            "model_calls": model_calls,
            "tool_calls": tool_calls,
        }
        if prompt or completion:
            budget.update(
                {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                }
            )
        nxt = grouped[index + 1][0] if index + 1 < len(grouped) else []
        lines.append(
            _dump(
                {
                    "kind": "step",
                    "full": True,
                    "index": index,
                    "nodes": nodes,
                    "t": _seconds(first.start - started),
                    "duration": _seconds(last_end - first.start),
                    "next_nodes": list(dict.fromkeys(nxt)),
                    "ended": index + 1 == len(grouped),
                    "budget": budget,
                    "runs": runs,
                }
            )
        )
    status = "error" if root.error or failed else "ok"
    duration = _seconds(root.end - root.start)
    finished: dict[str, Any] = {"kind": "run_finished", "status": status}
    output = _value_of(root, "output.value", n.OUTPUT_MESSAGES)
    if output is not None:
        finished["output"] = output
    if root.error:
        finished["error"] = _error(root)
    finished.update({"t": duration, "duration": duration})
    lines.append(_dump(finished))
    return lines


def _value_of(span: TraceSpan, *keys: str) -> Any:
    """A value the other tracer recorded (OpenInference `input.value`, GenAI messages), as JSON when
    it is JSON text; None when it recorded none (content capture off)."""
    for key in keys:
        if key in span.attributes:
            return _loaded(span.attributes, key)
    return None


def _descendants(span: TraceSpan, children: dict[str, list[TraceSpan]]) -> list[TraceSpan]:
    out: list[TraceSpan] = []
    stack = list(children.get(span.span_id, []))
    while stack:
        item = stack.pop()
        out.append(item)
        stack.extend(children.get(item.span_id, []))
    return sorted(out, key=lambda s: s.start)
