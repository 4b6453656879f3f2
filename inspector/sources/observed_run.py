"""Other tracers' traces made into observed runs: steps, node runs, tool calls and budgets from spans.

A trace that is not one of our exports has no graph: its steps are found by the first of these that
applies, and its topology is the one the steps walked (START, each node seen, the transitions between
consecutive steps, END), named "(observed)" with `meta.observed` in the header.

- LangGraph traced by `openinference-instrumentation-langchain`: a step per `langgraph_step`, its
  nodes from `langgraph_node` (both in the spans' `metadata`).
- The OpenAI Agents SDK traced by `openinference-instrumentation-openai-agents`: the SDK's agent spans
  (OpenInference `AGENT` spans naming `agent.name`) are the nodes, each of their turns (a model call
  and the function calls it asked for) a step; a handoff span is the branch decision to the agent it
  hands to.
- Plain GenAI-convention spans (`chat`, `execute_tool`, under an `invoke_agent`): a step of a `chat`
  node per model call and of a `tools` node per round of tool calls.

Model calls (`chat` or OpenInference `LLM` spans) and tool calls (`execute_tool` or `TOOL` spans)
inside a step's span are counted into the budget with their token counts; OpenInference's
`input.value`/`output.value` (or the GenAI message attributes) become the values when recorded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph_core.topology import END, START, TopologyEdge, TopologyNode, build_topology
from inspector.errors import RunFileError
from inspector.otel import names as n
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION
from inspector.sources.spans import TraceSpan
from inspector.sources.trace_values import dump, error_of, loaded, seconds

__all__ = ["observed_lines"]

_OI_AGENT_NAME = "agent.name"
_HANDOFF = "handoff to "


@dataclass
class _Step:
    """One observed step: its nodes, the span of each node run, and the branch decisions it took."""

    nodes: list[str] = field(default_factory=lambda: [])
    spans: list[TraceSpan] = field(default_factory=lambda: [])
    branches: list[dict[str, Any]] = field(default_factory=lambda: [])


class _Tree:
    """The spans of one trace with their children, and what each one is."""

    def __init__(self, spans: Sequence[TraceSpan]) -> None:
        self.spans = sorted(spans, key=lambda s: s.start)
        ids = {s.span_id for s in spans}
        self.children: dict[str, list[TraceSpan]] = {}
        for span in self.spans:
            if span.parent_id in ids:
                self.children.setdefault(span.parent_id, []).append(span)
        self.roots = [s for s in self.spans if s.parent_id not in ids]
        self.metadata = {s.span_id: _metadata(s) for s in self.spans}

    def below(self, span: TraceSpan) -> list[TraceSpan]:
        """Every span under `span`, by start time."""
        out: list[TraceSpan] = []
        stack = list(self.children.get(span.span_id, []))
        while stack:
            item = stack.pop()
            out.append(item)
            stack.extend(self.children.get(item.span_id, []))
        return sorted(out, key=lambda s: s.start)


def observed_lines(spans: Sequence[TraceSpan], path: Path) -> list[str]:
    """The run file's lines for the first trace in `spans`, as an observed run."""
    trace = spans[0].trace_id
    tree = _Tree([s for s in spans if s.trace_id == trace])
    root = tree.roots[0]
    steps = _langgraph_steps(tree) or _agents_sdk_steps(tree) or _genai_steps(tree, root)
    if not steps:
        raise RunFileError(
            "the trace has no graph steps, model calls or tool calls to show (no langgraph_node metadata, "
            "no agent turns, no chat or execute_tool spans)",
            path=path,
        )
    name = str(root.attributes.get(n.AGENT_NAME) or root.attributes.get(n.WORKFLOW_NAME) or root.name)
    header = {
        "kind": "header",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "run_id": root.trace_id,
        "graph_name": f"{name} (observed)",
        "started_at": datetime.fromtimestamp(root.start / 1e9, UTC).isoformat(),
        "topology": _topology(f"{name} (observed)", steps),
        "meta": {"observed": True, "source": "otlp", "trace_id": root.trace_id},
    }
    return [dump(header), *_step_lines(tree, root, steps), dump(_finished(tree, root, steps))]


def _langgraph_steps(tree: _Tree) -> list[_Step]:
    """A step per `langgraph_step`, a node run per `langgraph_node` span (not the spans inside it)."""
    by_step: dict[Any, _Step] = {}
    for span in tree.spans:
        meta = tree.metadata[span.span_id]
        if "langgraph_node" not in meta:
            continue
        parent = tree.metadata.get(span.parent_id, {})
        if (parent.get("langgraph_node"), parent.get("langgraph_step")) == (
            meta["langgraph_node"],
            meta.get("langgraph_step"),
        ):
            continue  # inside the node's own span
        step = by_step.setdefault(meta.get("langgraph_step", len(by_step)), _Step())
        step.nodes.append(str(meta["langgraph_node"]))
        step.spans.append(span)
    return [by_step[k] for k in sorted(by_step, key=lambda k: (not isinstance(k, int), k))]


def _agents_sdk_steps(tree: _Tree) -> list[_Step]:
    """A step per turn of an agent span: each of its direct children that is or holds a model call
    (the SDK's `turn` spans, with the function calls and handoffs the model asked for)."""
    turns: list[tuple[str, TraceSpan]] = []
    for span in tree.spans:
        agent = span.attributes.get(_OI_AGENT_NAME)
        if span.attributes.get(n.OI_KIND) != n.OI_AGENT or not isinstance(agent, str) or not agent:
            continue
        for child in tree.children.get(span.span_id, []):
            if _kind(child) == "chat" or any(_kind(s) == "chat" for s in tree.below(child)):
                turns.append((agent, child))
    steps: list[_Step] = []
    for agent, span in sorted(turns, key=lambda t: t[1].start):
        step = _Step([agent], [span])
        for item in [span, *tree.below(span)]:
            if _kind(item) == "tool" and item.name.startswith(_HANDOFF):
                chosen = item.name[len(_HANDOFF) :]
                step.branches.append({"source": agent, "branch_index": 0, "chosen": [chosen], "skipped": []})
        steps.append(step)
    return steps


def _genai_steps(tree: _Tree, root: TraceSpan) -> list[_Step]:
    """A `chat` step per model call and a `tools` step per round of tool calls (each round's calls
    gathered first, then made one `_Round`: made anew at each call, a long round took quadratic time)."""
    found: list[tuple[str, list[TraceSpan]]] = []
    for span in tree.spans:
        kind = _kind(span)
        if not kind or span is root:
            continue
        node = "chat" if kind == "chat" else "tools"
        if found and node == "tools" and found[-1][0] == "tools":
            found[-1][1].append(span)
        else:
            found.append((node, [span]))
    return [_Step([node], [calls[0] if len(calls) == 1 else _Round(calls)]) for node, calls in found]


class _Round(TraceSpan):
    """A round of tool-call spans standing as the one span of the `tools` node that ran them."""

    def __init__(self, calls: list[TraceSpan]) -> None:
        first = calls[0]
        super().__init__(
            trace_id=first.trace_id,
            span_id=first.span_id,
            parent_id=first.parent_id,
            name="tools",
            start=min(s.start for s in calls),
            end=max(s.end for s in calls),
            attributes={},
            error=False,
        )
        self.calls = calls


def _topology(name: str, steps: list[_Step]) -> Any:
    edges: dict[tuple[str, str], None] = {}  # (an ordered set: a list's `in` made it quadratic)
    previous = [START]
    for step in steps:
        nodes = list(dict.fromkeys(step.nodes))
        for source in previous:
            for target in nodes:
                edges[source, target] = None
        previous = nodes
    for source in previous:
        edges[source, END] = None
    keys = list(dict.fromkeys(node for step in steps for node in step.nodes))
    topology = build_topology(
        name=name,
        nodes=[TopologyNode(key=key, kind="observed") for key in keys],
        edges=[TopologyEdge(source=s, target=t) for s, t in edges],
    )
    return json.loads(topology.model_dump_json())


def _step_lines(tree: _Tree, root: TraceSpan, steps: list[_Step]) -> list[str]:
    lines: list[str] = []
    counts = [0, 0, 0, 0]  # model calls, tool calls, prompt and completion tokens
    for index, step in enumerate(steps):
        runs = [
            _run(tree, node, span, step.spans[0], counts)
            for node, span in zip(step.nodes, step.spans, strict=True)
        ]
        budget: dict[str, Any] = {"steps_used": index + 1, "model_calls": counts[0], "tool_calls": counts[1]}
        if counts[2] or counts[3]:
            budget.update(
                {
                    "prompt_tokens": counts[2],
                    "completion_tokens": counts[3],
                    "total_tokens": counts[2] + counts[3],
                }
            )
        following = steps[index + 1].nodes if index + 1 < len(steps) else []
        line: dict[str, Any] = {
            "kind": "step",
            "full": True,
            "index": index,
            "nodes": step.nodes,
            "t": seconds(step.spans[0].start - root.start),
            "duration": seconds(max(s.end for s in step.spans) - step.spans[0].start),
            "next_nodes": list(dict.fromkeys(following)),
            "ended": index + 1 == len(steps),
            "budget": budget,
            "runs": runs,
        }
        if step.branches:
            line["branches"] = step.branches
        lines.append(dump(line))
    return lines


def _run(tree: _Tree, node: str, span: TraceSpan, first: TraceSpan, counts: list[int]) -> dict[str, Any]:
    """One node run: the span's values, and the model and tool calls inside it counted into `counts`."""
    calls = span.calls if isinstance(span, _Round) else [span, *tree.below(span)]
    tools: list[dict[str, Any]] = []
    for item in calls:
        kind = _kind(item)
        if kind == "chat":
            prompt, completion = _tokens(item)
            counts[0] += 1
            counts[2] += prompt
            counts[3] += completion
        elif kind == "tool" and not item.name.startswith(_HANDOFF):
            counts[1] += 1
            tools.append(
                {
                    "tool_call_id": item.attributes.get(n.TOOL_CALL_ID),
                    "input": _value_of(item, "input.value", n.TOOL_ARGUMENTS),
                    "output": _value_of(item, "output.value", n.TOOL_RESULT),
                    "name": str(
                        item.attributes.get(n.TOOL_NAME) or item.attributes.get("tool.name") or item.name
                    ),
                    "error": error_of(item),
                    "t": seconds(item.start - span.start),
                    "duration": seconds(item.end - item.start),
                }
            )
    errors = [error_of(s) for s in (calls if isinstance(span, _Round) else [span])]
    return {
        "node": node,
        "input": _value_of(span, "input.value", n.INPUT_MESSAGES),
        "output": _value_of(span, "output.value", n.OUTPUT_MESSAGES),
        "error": next((e for e in errors if e is not None), None),
        "t": seconds(span.start - first.start),
        "duration": seconds(span.end - span.start),
        "tools": tools,
    }


def _finished(tree: _Tree, root: TraceSpan, steps: list[_Step]) -> dict[str, Any]:
    failed = root.error or any(s.error for step in steps for s in step.spans)
    duration = seconds(root.end - root.start)
    finished: dict[str, Any] = {"kind": "run_finished", "status": "error" if failed else "ok"}
    output = _value_of(root, "output.value", n.OUTPUT_MESSAGES)
    if output is not None:
        finished["output"] = output
    if root.error:
        finished["error"] = error_of(root)
    finished.update({"t": duration, "duration": duration})
    return finished


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


def _value_of(span: TraceSpan, *keys: str) -> Any:
    """A value the other tracer recorded (OpenInference `input.value`, GenAI messages), as JSON when
    it is JSON text; None when it recorded none (content capture off)."""
    for key in keys:
        if key in span.attributes:
            return loaded(span.attributes, key)
    return None
