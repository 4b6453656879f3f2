"""What a page shows of a run, as plain JSON-like data: the header, each step, the conversation, diagnostics.

The page is one file a reviewer opens, so what it carries must stay linear in the run: a step holds its
state *changes* (the page rebuilds a step's whole state by applying them in order, as the run file does),
and a node's input or output is held as a bounded excerpt (a long message history shows its first
message and its newest ones; any value is cut at `EXCERPT_CHARS`). The whole value is one
`inspector show` away; the excerpt says how much was left out.

Keys are short because a 10,000-round run has 20,000 steps: `i` position, `x` index, `n` nodes, `d`
duration, `b` budget, `c` changes, `r` branch decisions, `u` node runs.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.conversation import Conversation, step_name
from inspector.diagnostics import Diagnostic
from inspector.errortext import error_text
from inspector.recording import NodeRun, Run
from inspector.recording.format import BudgetRecord, ErrorRecord
from inspector.recording.valuelist import LISTS, json_default, plain

__all__ = ["EXCERPT_CHARS", "HISTORY_TAIL", "excerpt", "run_facts", "step_facts"]

EXCERPT_CHARS = 2_000
"""A node's input or output is cut here: a page is read, not parsed; `inspector show --json` has it all."""
HISTORY_TAIL = 2
"""A list of messages longer than this shows its first message and its newest `HISTORY_TAIL`."""


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "role" in value


def _shortened(value: Any) -> Any:
    """A long message history as its first message, a marker saying how many were left out, and the
    newest `HISTORY_TAIL`; only the items kept are looked at (a history grows with the run, so looking
    at all of it at every step would make the page quadratic). Anything else is made plain JSON."""
    if isinstance(value, LISTS) and len(value) > HISTORY_TAIL + 2:
        kept = [value[0], *value[-HISTORY_TAIL:]]
        if all(_is_message(m) for m in kept):
            left_out = len(value) - 1 - HISTORY_TAIL
            return [plain(kept[0]), f"… {left_out} earlier messages …", *(plain(m) for m in kept[1:])]
    if isinstance(value, dict) and isinstance(value.get("messages"), LISTS):
        return {key: _shortened(item) if key == "messages" else plain(item) for key, item in value.items()}
    return plain(value)


def excerpt(value: Any) -> str:
    """`value` as indented JSON (a string as it is), a long history shortened, cut at `EXCERPT_CHARS`."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(_shortened(value), ensure_ascii=False, indent=1, default=json_default)
    if len(text) > EXCERPT_CHARS:
        return f"{text[:EXCERPT_CHARS]}\n… ({len(text) - EXCERPT_CHARS} more characters)"
    return text


def _budget(budget: BudgetRecord) -> dict[str, int]:
    """The budget's counters that are set, in the record's own field order."""
    return {name: value for name in budget.__struct_fields__ if (value := getattr(budget, name)) is not None}


def _error(error: ErrorRecord | None) -> str | None:
    if error is None:
        return None
    text = error_text(error.type, error.message)
    if error.cause_type:
        text += f" (caused by {error_text(error.cause_type, error.cause_message or '')})"
    return text


def _node_run(node_run: NodeRun) -> dict[str, Any]:
    out: dict[str, Any] = {"k": node_run.node, "in": excerpt(node_run.input), "out": excerpt(node_run.output)}
    if node_run.name and node_run.name != node_run.node:
        out["name"] = node_run.name
    if node_run.error is not None:
        out["err"] = _error(node_run.error)
    if node_run.duration is not None:
        out["d"] = round(node_run.duration, 6)
    if node_run.tools:
        out["tools"] = [
            {
                "name": tool.name,
                "id": tool.tool_call_id,
                "in": excerpt(tool.input),
                "out": excerpt(tool.output),
                **({"err": _error(tool.error)} if tool.error is not None else {}),
            }
            for tool in node_run.tools
        ]
    return out


def step_facts(run: Run, position: int) -> dict[str, Any]:
    """One step of `run` as the page holds it (see the module docstring for the keys)."""
    step = run.steps[position]
    facts: dict[str, Any] = {
        "i": position,
        "x": step.index,
        "name": step_name(run, position),
        "n": list(step.nodes),
        "b": _budget(step.budget),
        "c": [
            [list(change.path), change.op, plain(change.old), plain(change.new)]
            for change in run.state_changes(position - 1, position)
        ],
        "r": [[branch.source, list(branch.chosen)] for branch in step.branches],
        "u": [_node_run(node_run) for node_run in step.node_runs],
    }
    if step.duration is not None:
        facts["d"] = round(step.duration, 6)
    return facts


def _conversation(run: Run) -> list[dict[str, Any]]:
    if not len(run.steps):
        return []
    said = Conversation(run).at(len(run.steps) - 1)
    return [
        {
            "role": item.message.get("role"),
            "who": item.node or item.origin,
            "step": item.position,
            "text": excerpt(item.message.get("content") or ""),
            "calls": [
                f"{call.get('name')}({call.get('arguments', '')})"
                for call in item.message.get("tool_calls") or []
                if isinstance(call, dict)
            ],
            "final": item.final,
        }
        for item in said
    ]


def run_facts(run: Run, diagnostics: list[Diagnostic], *, steps: range | None = None) -> dict[str, Any]:
    """The page's data for `run`: header facts, the steps in `steps` (default all), the conversation,
    the diagnostics and how the run ended."""
    meta = run.header.meta or {}
    shown = steps if steps is not None else range(len(run.steps))
    return {
        "header": {
            "run_id": run.run_id,
            "graph": run.graph_name,
            "target": meta.get("target"),
            "format": f"{run.header.format} v{run.header.version}",
            "mode": meta.get("mode"),
            "started_at": run.started_at,
            "status": run.status,
            "duration": run.duration,
            "steps": len(run.steps),
            "file": run.path.name,
        },
        "error": _error(run.error),
        "output": excerpt(run.output),
        "steps": [step_facts(run, position) for position in shown],
        "shown": [shown.start, shown.stop],
        "conversation": _conversation(run),
        "diagnostics": [d.to_dict() for d in diagnostics],
    }
