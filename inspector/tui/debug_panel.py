"""`DebugPanel`: where a live run stands (held, running, over), its breakpoints, and the live values.

It shows what the app hands it (attributes down): the controller's pause, breakpoints and conditions,
text a model is streaming, and the last message (an applied edit, or why a command was refused). The
live state and the pending nodes' inputs go to the state pane as a tree (`live`: the app hands the
panes the controller's paused snapshot). Run data is user text:
everything goes through `rich.text.Text`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static

from inspector.debug.paths import parse_path
from inspector.errors import DebugError
from inspector.recording.statediff import Change
from inspector.tui.literal import one_line

__all__ = ["DebugPanel", "Live", "describe", "live"]

_WIDTH = 200


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def describe(controller: Any, message: Text | None = None) -> Text:
    """The panel's text for a `DebugController` (duck-typed: the panel never imports the engine)."""
    text = Text()
    pause = controller.pause
    status = controller.status
    if status == "finished":
        colour = {"ok": "green", "aborted": "yellow"}.get(controller.outcome or "", "red")
        text.append(f"■ run over: {controller.outcome}", style=f"bold {colour}")
        if controller.error is not None and controller.outcome != "aborted":
            text.append("  ")
            text.append_text(one_line(f"{type(controller.error).__name__}: {controller.error}", limit=120))
    elif pause is not None and pause.kind == "interrupt":
        text.append("⏸ interrupted", style="bold yellow")
        text.append_text(one_line(f" at {', '.join(pause.nodes)}", limit=60))
        for node, question in pause.questions.items():
            text.append("\n  ")
            text.append_text(one_line(f"{node} asks: {_compact(question)}", limit=_WIDTH))
        text.append("\n  r resumes with data (JSON, or plain text), a aborts", style="dim")
    elif pause is not None:
        text.append(f"⏸ paused before step {pause.step} ", style="bold yellow")
        text.append_text(one_line(f"[{', '.join(pause.nodes)}]", limit=60, style="bold"))
        text.append_text(one_line(f"  ({pause.reason})", limit=80, style="dim"))
    else:
        text.append("▶ running", style="bold cyan")
    marks = ", ".join(controller.breakpoints) or "none"
    conditions = " | ".join(c.text for c in controller.conditions) or "none"
    text.append("\nbreakpoints: ", style="dim")
    text.append_text(one_line(marks, limit=80))
    text.append("   when: ", style="dim")
    text.append_text(one_line(conditions, limit=100))
    if pause is not None and pause.kind == "boundary":
        text.append("\n  s step · c continue · a abort · e edit (", style="dim")
        text.append("state.…", style="cyan")
        text.append(" / ", style="dim")
        text.append("input.NODE.…", style="cyan")
        text.append(") · b/B breakpoint · w condition", style="dim")
    for node, streamed in controller.streaming.items():
        if status == "running":
            text.append(f"\n{node} ▸ ", style="magenta")
            text.append_text(one_line(streamed[-_WIDTH:], limit=_WIDTH))
    if message is not None:
        text.append("\n")
        text.append_text(message)
    return text


@dataclass(frozen=True, slots=True)
class Live:
    """A run held at a superstep boundary, as the panes show it: the nodes about to run, the live
    values (`{"state": ..., "input": {node: ...}}`, edits applied) and the edits made at this pause, as
    changes for the state pane to mark."""

    step: int
    nodes: tuple[str, ...]
    values: dict[str, Any]
    edits: list[Change]


def live(controller: Any) -> Live | None:
    """What a held run's panes show, read from the controller's paused snapshot; None unless the run
    is held at a boundary (running, over, or stopped at an `interrupt()`)."""
    pause = controller.pause
    if pause is None or pause.kind != "boundary" or controller.status == "finished":
        return None
    values = controller.view()
    if not values:
        return None
    edits = [e for e in controller.edits if e.step == pause.step]
    marks: list[Change] = []
    for edit in edits:
        path = _tree_path(values, edit.path)
        if path is not None:
            marks.append(Change(path, "changed", edit.old, edit.new))
    return Live(pause.step, tuple(pause.nodes), values, marks)


def _tree_path(values: dict[str, Any], text: str) -> tuple[str | int, ...] | None:
    """An edit path as a path into `values` (negative list indexes counted), or None if it is gone."""
    try:
        parsed = parse_path(text)
    except DebugError:
        return None
    path: list[str | int] = [parsed.root]
    if parsed.node is not None:
        path.append(parsed.node)
    value: Any = values
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None  # pyright: ignore[reportUnknownMemberType]
    for segment in parsed.segments:
        if isinstance(segment, int) and isinstance(value, list):
            items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
            if not -len(items) <= segment < len(items):
                return None
            segment %= len(items)
            value = items[segment]
        elif isinstance(segment, str) and isinstance(value, dict) and segment in value:
            value = value[segment]  # pyright: ignore[reportUnknownVariableType]
        else:
            return None
        path.append(segment)
    return tuple(path)


class DebugPanel(Static):
    """The live run's situation, docked above the budget bar."""

    DEFAULT_CSS = """
    DebugPanel {
        dock: bottom;
        height: auto;
        max-height: 12;
        padding: 0 1;
        border: round $warning;
        margin-bottom: 1;
    }
    """
