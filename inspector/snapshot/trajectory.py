"""Trajectories: the behaviour of a recorded run with everything machine-dependent taken out.

A trajectory keeps, per top-level superstep, the nodes that ran, the branch decisions, the messages the
nodes produced (role, and tool names only: text and tool arguments vary with the model) and the step
budget; plus the run's status and error type. It never holds timestamps, durations, run IDs, token counts
or tool-call IDs, so the same behaviour gives byte-identical text on every machine.

A run resumed into the same file (several segments) keeps one list of steps; each entry then names its
`segment` (step indices restart in each one) and the document lists the checkpoints resumed from.

The text form (`to_text`) is JSON laid out for review: one line per step, so a changed step is one
changed line in a code review and in a snapshot diff. `first_divergence` explains a mismatch as the
first step where two trajectories part, and how.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.recording.reader import NodeRun, Run, Step, read_run
from inspector.recording.valuelist import LISTS, json_default

__all__ = [
    "FORMAT",
    "VERSION",
    "Divergence",
    "first_divergence",
    "from_text",
    "step_failures",
    "to_text",
    "trajectory",
]

FORMAT = "graph-inspector/trajectory"
VERSION = 1

_BUDGET_FIELDS = ("steps_used", "steps_max", "model_calls", "tool_calls", "iterations_remaining")


def _message_label(message: dict[str, Any]) -> str:
    role = str(message.get("role", "?"))
    calls = message.get("tool_calls") or []
    names = [str(c.get("name", "?")) for c in calls if isinstance(c, dict)]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType, reportUnknownArgumentType]
    if names:
        return f"{role} -> {', '.join(names)}"
    tool_name = message.get("tool_name")
    if role == "tool" and tool_name:
        return f"tool {tool_name}"
    return role


def _messages_of(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict) and "role" in value:
        return [value]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, LISTS):
        return [m for m in value if isinstance(m, dict) and "role" in m]  # pyright: ignore[reportUnknownVariableType]
    return []


def _node_messages(runs: list[NodeRun]) -> list[str]:
    out: list[str] = []
    for run in runs:
        if len(run.path) > 1:
            continue
        out.extend(f"{run.node}: {_message_label(m)}" for m in _messages_of(run.output))
    return out


def step_failures(runs: list[NodeRun]) -> list[str]:
    """What failed in a step, by exception type (messages vary): `node/tool: Type` and `node: Type` for
    the top-level graph's node runs, tools sorted. Trajectories and `inspector diff` compare these."""
    out: list[str] = []
    for run in runs:
        if len(run.path) > 1:
            continue
        # Sorted: parallel tools fail in whatever order they finish.
        out.extend(sorted(f"{run.node}/{tool.name}: {tool.error.type}" for tool in run.tools if tool.error))
        if run.error is not None:
            out.append(f"{run.node}: {run.error.type}")
    return out


def _budget(record: Any) -> dict[str, int]:
    return {name: value for name in _BUDGET_FIELDS if (value := getattr(record, name, None)) is not None}


def _entry(
    index: int, nodes: tuple[str, ...] | list[str], segment: int | None, **fields: Any
) -> dict[str, Any]:
    """A step's entry head: its segment (only in runs with several), index and nodes, then `fields`."""
    head: dict[str, Any] = {} if segment is None else {"segment": segment}
    return {**head, "index": index, "nodes": list(nodes), **fields}


def _add_node_facts(entry: dict[str, Any], runs: list[NodeRun]) -> None:
    """The messages the step's top-level nodes produced and what failed in it, when there are any."""
    messages = _node_messages(runs)
    if messages:
        entry["messages"] = messages
    failures = step_failures(runs)
    if failures:
        entry["failed"] = failures


def _step(step: Step, segmented: bool) -> dict[str, Any]:
    entry = _entry(step.index, step.nodes, step.segment if segmented else None)
    branches = [f"{b.source} -> {', '.join(b.chosen) or '(nothing)'}" for b in step.branches]
    if branches:
        entry["branches"] = branches
    _add_node_facts(entry, step.node_runs)
    entry["budget"] = _budget(step.budget)
    return entry


def trajectory(subject: Run | str | os.PathLike[str] | dict[str, Any], /) -> dict[str, Any]:
    """The trajectory of a `Run` (or of the run file at a path) as a JSON-ready dict.

    A step that started and never finished (the run failed inside it) is the last entry, marked
    `"unfinished": true`, with the failures it saw.
    """
    if isinstance(subject, dict):
        if subject.get("format") != FORMAT:
            raise ValueError(f'not a trajectory document: expected `"format": "{FORMAT}"`')
        return subject
    if not isinstance(subject, Run | str | os.PathLike):  # pyright: ignore[reportUnnecessaryIsInstance]
        hint = " (a graph's shape is compared with `topology_snapshot`)" if _is_graph(subject) else ""
        raise TypeError(
            f"a trajectory is taken from a `Run` or a run-file path, got {type(subject).__name__}{hint}"
        )
    run = subject if isinstance(subject, Run) else read_run(Path(subject))
    topology = run.topology
    segmented = len(run.segments) > 1
    steps = [_step(step, segmented) for step in run.steps]
    unfinished = run.unfinished
    if unfinished is not None:
        segment = unfinished.segment if segmented else None
        entry = _entry(unfinished.index, unfinished.nodes, segment, unfinished=True)
        _add_node_facts(entry, unfinished.node_runs)
        steps.append(entry)
    error = None
    if run.error is not None:
        error = {"type": run.error.type}
        if run.error.node_path:
            error["node_path"] = "/".join(run.error.node_path)
    out: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "graph": run.graph_name,
        "trigger_mode": None if topology is None else str(topology.trigger_mode),
        "max_run_steps": run.header.max_run_steps,
        "status": run.status,
        "error": error,
    }
    if segmented:
        out["resumed_from"] = [segment.resumed_from for segment in run.segments[1:]]
    out["steps"] = steps
    return out


def _is_graph(subject: object) -> bool:
    return hasattr(subject, "topology") or hasattr(subject, "compiled") or hasattr(subject, "compile")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=json_default)


def to_text(subject: Run | str | os.PathLike[str] | dict[str, Any], /) -> str:
    """Canonical text: JSON with one line per header field and one line per step, final newline."""
    data = trajectory(subject)
    lines = ["{"]
    header = [key for key in data if key != "steps"]
    lines.extend(f"  {_dump(key)}: {_dump(data[key])}," for key in header)
    steps = data["steps"]
    if not steps:
        lines.append('  "steps": []')
    else:
        lines.append('  "steps": [')
        lines.extend(f"    {_dump(step)}{',' if i < len(steps) - 1 else ''}" for i, step in enumerate(steps))
        lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def from_text(text: str, /) -> dict[str, Any]:
    """Read what `to_text` wrote; `ValueError` if it is not a trajectory document."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:  # pyright: ignore[reportUnknownMemberType]
        raise ValueError(f'not a trajectory document: expected `"format": "{FORMAT}"`')
    return data  # pyright: ignore[reportUnknownVariableType]


@dataclass(frozen=True, slots=True)
class Divergence:
    """Where `actual` first departs from `expected`: `step` (None for run-level facts), `what`, `how`;
    `segment` when the expected run was resumed into several segments (`step` is then its index there)."""

    step: int | None
    what: str
    expected: Any
    actual: Any
    segment: int | None = None

    def describe(self) -> str:
        where = f"step {self.step}: " if self.step is not None else ""
        if self.segment is not None and self.step is not None:
            where = f"segment {self.segment} step {self.step}: "
        return f"{where}{self.what}: expected {_show(self.expected)}, got {_show(self.actual)}"


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + "; ".join(str(v) for v in value) + "]"  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return "nothing" if value is None else str(value)


_STEP_FACTS = (
    ("nodes", "different nodes ran"),
    ("unfinished", "step completion differs"),
    ("branches", "different branch decision"),
    ("messages", "different messages or tool calls"),
    ("failed", "different failures"),
    ("budget", "different budget"),
)


def first_divergence(expected: Any, actual: Any, /) -> Divergence | None:
    """The first difference between two trajectories (dicts, `Run`s or paths), in run order; None if equal.

    Within a step the facts are checked in the order a reader reasons about them: nodes, branch
    decisions, messages and tool calls, failures, budget. Graph-level facts (name, trigger mode, budget
    limit) come first, the run's length and status last.
    """
    a, b = trajectory(expected), trajectory(actual)
    for key, what in (
        ("graph", "graph name"),
        ("trigger_mode", "trigger mode"),
        ("max_run_steps", "max_run_steps"),
    ):
        if a.get(key) != b.get(key):
            return Divergence(None, what, a.get(key), b.get(key))
    steps_a, steps_b = a.get("steps", []), b.get("steps", [])
    for sa, sb in zip(steps_a, steps_b, strict=False):
        index = sa.get("index")
        segment = sa.get("segment")
        if segment is not None and sb.get("segment") is not None and segment != sb.get("segment"):
            return Divergence(
                index,
                "different segment (a run resumed at another point)",
                segment,
                sb.get("segment"),
                segment,
            )
        for key, what in _STEP_FACTS:
            if sa.get(key) != sb.get(key):
                if key == "budget":
                    return _budget_divergence(index, sa.get(key) or {}, sb.get(key) or {}, segment)
                return Divergence(index, what, _fact(sa, key), _fact(sb, key), segment)
    if len(steps_a) != len(steps_b):
        n = min(len(steps_a), len(steps_b))
        extra_a = steps_a[n] if n < len(steps_a) else None
        extra_b = steps_b[n] if n < len(steps_b) else None
        extra = extra_a or extra_b or {}
        index = extra.get("index", n)
        return Divergence(
            index,
            "the runs have different lengths",
            f"{len(steps_a)} steps" + (f" (next runs {extra_a['nodes']})" if extra_a else " (run ended)"),
            f"{len(steps_b)} steps" + (f" (next runs {extra_b['nodes']})" if extra_b else " (run ended)"),
            extra.get("segment"),
        )
    if a.get("status") != b.get("status"):
        return Divergence(None, "status", a.get("status"), b.get("status"))
    if a.get("error") != b.get("error"):
        return Divergence(None, "error", a.get("error"), b.get("error"))
    if a.get("resumed_from") != b.get("resumed_from"):
        return Divergence(None, "resumed from checkpoints", a.get("resumed_from"), b.get("resumed_from"))
    if a != b:
        return Divergence(None, "trajectory", a, b)
    return None


def _budget_divergence(
    index: int | None, a: dict[str, Any], b: dict[str, Any], segment: int | None = None
) -> Divergence:
    keys = [k for k in _BUDGET_FIELDS if a.get(k) != b.get(k)]
    return Divergence(
        index,
        "different budget",
        ", ".join(f"{k}={a.get(k)}" for k in keys),
        ", ".join(f"{k}={b.get(k)}" for k in keys),
        segment,
    )


def _fact(step: dict[str, Any], key: str) -> Any:
    value = step.get(key)
    if key == "unfinished":
        return "unfinished" if value else "finished"
    return value
