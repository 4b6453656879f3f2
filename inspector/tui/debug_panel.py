"""`DebugPanel`: where a live run stands (held, running, over), its breakpoints, and the live values.

It shows what the app hands it (attributes down): the controller's pause, breakpoints and conditions,
the live state and pending inputs as one line each (the roots edit paths start from), text a model is
streaming, and the last message (an applied edit, or why a command was refused). Run data is user text:
everything goes through `rich.text.Text`.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.widgets import Static

from inspector.tui.literal import one_line

__all__ = ["DebugPanel", "describe"]

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
        view = controller.view()
        for node, value in view.get("input", {}).items():
            text.append("\ninput.", style="cyan")
            text.append_text(one_line(f"{node} = {_compact(value)}", limit=_WIDTH))
        text.append("\nstate = ", style="cyan")
        text.append_text(one_line(_compact(view.get("state")), limit=_WIDTH))
        text.append("\n  s step · c continue · a abort · e edit · b/B breakpoint · w condition", style="dim")
    for node, streamed in controller.streaming.items():
        if status == "running":
            text.append(f"\n{node} ▸ ", style="magenta")
            text.append_text(one_line(streamed[-_WIDTH:], limit=_WIDTH))
    if message is not None:
        text.append("\n")
        text.append_text(message)
    return text


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
