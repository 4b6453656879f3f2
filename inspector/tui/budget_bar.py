"""`BudgetBar`: how much of the run's budget is spent at the cursor, and what is spending it.

Steps used of max with what is left (DAG runs have no max), model and tool calls, tokens and, for ADK
agents, iterations left. The bar turns from green to yellow below half and red below a fifth (or at
one iteration left); when the budget ran out the diagnostics name the cycle that spent it.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from inspector.recording.format import BudgetRecord
from inspector.tui.literal import one_line
from inspector.tui.timeline import UNBOUNDED

__all__ = ["BudgetBar", "budget_level", "render_budget"]

_LEVEL_STYLE = {"ok": "bold green", "low": "bold yellow", "critical": "bold red", "none": "bold"}
BAR_WIDTH = 20


def budget_level(budget: BudgetRecord) -> str:
    """`ok`, `low`, `critical`, or `none` when there is no limit to run low against."""
    levels: list[str] = []
    if budget.steps_max and budget.steps_max < UNBOUNDED:
        left = (
            budget.steps_remaining
            if budget.steps_remaining is not None
            else budget.steps_max - budget.steps_used
        )
        ratio = left / budget.steps_max
        levels.append("critical" if ratio <= 0.2 else "low" if ratio <= 0.5 else "ok")
    if budget.iterations_remaining is not None:
        left = budget.iterations_remaining
        levels.append("critical" if left <= 1 else "low" if left <= 3 else "ok")
    for level in ("critical", "low", "ok"):
        if level in levels:
            return level
    return "none"


def render_budget(budget: BudgetRecord | None, *, cycle: str | None = None) -> Text:
    if budget is None:
        return Text("budget: (no steps recorded)", style="dim")
    level = budget_level(budget)
    style = _LEVEL_STYLE[level]
    text = Text()
    if budget.steps_max and budget.steps_max < UNBOUNDED:
        left = (
            budget.steps_remaining
            if budget.steps_remaining is not None
            else budget.steps_max - budget.steps_used
        )
        filled = round(BAR_WIDTH * min(budget.steps_used, budget.steps_max) / budget.steps_max)
        text.append("steps ")
        text.append("█" * filled, style=style)
        text.append("░" * (BAR_WIDTH - filled), style="dim")
        text.append(f" {budget.steps_used}/{budget.steps_max}", style=style)
        text.append(f"  left {left}", style=style)
    elif budget.steps_max:
        text.append(f"steps {budget.steps_used} (max {budget.steps_max}: no practical limit)", style=style)
    else:
        text.append(f"steps {budget.steps_used} (no max)", style=style)
    text.append(f"   model calls {budget.model_calls}   tool calls {budget.tool_calls}")
    if budget.total_tokens is not None:
        text.append(f"   tokens {budget.total_tokens}")
        if budget.prompt_tokens is not None and budget.completion_tokens is not None:
            text.append(f" ({budget.prompt_tokens} in / {budget.completion_tokens} out)", style="dim")
    if budget.iterations_remaining is not None:
        text.append("   iterations left ")
        text.append(str(budget.iterations_remaining), style=style)
    if cycle:
        text.append("\n")
        text.append("⚠ ", style="bold red")
        text.append_text(one_line(cycle, limit=200, style="red"))
    return text


class BudgetBar(Static):
    """The app calls `show(budget, cycle=...)`; the `-low`/`-critical` classes colour the border."""

    DEFAULT_CSS = """
    BudgetBar { height: auto; }
    """

    def show(self, budget: BudgetRecord | None, *, cycle: str | None = None) -> None:
        level = "none" if budget is None else budget_level(budget)
        self.set_class(level == "low", "-low")
        self.set_class(level == "critical", "-critical")
        self.update(render_budget(budget, cycle=cycle))
