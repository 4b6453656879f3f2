"""`BudgetBar`: how much of the run's budget is spent at the cursor, and what is spending it.

Steps used of max with what is left (DAG runs have no max), model and tool calls, tokens and, for ADK
agents, iterations left (drawn as the bar when the step limit is no practical limit). The bar turns
from green to yellow at half left and red at a fifth left, steps and iterations alike; when the budget
ran out the diagnostics name the cycle that spent it (at the step that spent the last of it: the app
passes `cycle` there only), and while it runs low the loop spending it is named from the topology's
back edges, with the rounds so far.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from inspector.recording.format import BudgetRecord
from inspector.tui.literal import one_line
from inspector.tui.repaint import repaint
from inspector.tui.timeline import UNBOUNDED

__all__ = ["BudgetBar", "budget_level", "render_budget"]

_LEVEL_STYLE = {"ok": "bold green", "low": "bold yellow", "critical": "bold red", "none": "bold"}
BAR_WIDTH = 20
LOW = 0.5
"""At or below this share of a limit left, the bar turns yellow."""
CRITICAL = 0.2
"""At or below this share left, red."""


def _level(left: int, limit: int) -> str:
    ratio = left / limit
    return "critical" if ratio <= CRITICAL else "low" if ratio <= LOW else "ok"


def _steps_left(budget: BudgetRecord) -> int:
    assert budget.steps_max is not None
    return (
        budget.steps_remaining if budget.steps_remaining is not None else budget.steps_max - budget.steps_used
    )


def budget_level(budget: BudgetRecord, *, iterations_max: int | None = None) -> str:
    """`ok`, `low` (half or less left), `critical` (a fifth or less), or `none` without a limit.

    Steps and ADK iterations are judged alike, as a share of their limit; the worse one wins. Without
    `iterations_max` (a run whose first step is not recorded) iterations fall back to counts: 3 or
    fewer left is low, 1 or none critical."""
    levels: list[str] = []
    if budget.steps_max and budget.steps_max < UNBOUNDED:
        levels.append(_level(_steps_left(budget), budget.steps_max))
    left = budget.iterations_remaining
    if left is not None:
        if iterations_max:
            levels.append(_level(left, iterations_max))
        else:
            levels.append("critical" if left <= 1 else "low" if left <= 3 else "ok")
    for level in ("critical", "low", "ok"):
        if level in levels:
            return level
    return "none"


def _bar(text: Text, label: str, used: int, limit: int, style: str) -> None:
    filled = round(BAR_WIDTH * min(max(used, 0), limit) / limit)
    text.append(f"{label} ")
    text.append("█" * filled, style=style)
    text.append("░" * (BAR_WIDTH - filled), style="dim")


def render_budget(
    budget: BudgetRecord | None,
    *,
    cycle: str | None = None,
    iterations_max: int | None = None,
    consuming: tuple[str, int] | None = None,
) -> Text:
    """The bar for a budget: the step limit (or, for ADK agents whose step limit is no practical limit,
    the iterations), calls and tokens, and what is spending it: `cycle` when the budget ran out (from
    the diagnostics), else `consuming` (loop, rounds) once the budget runs low."""
    if budget is None:
        return Text("budget: (no steps recorded)", style="dim")
    level = budget_level(budget, iterations_max=iterations_max)
    style = _LEVEL_STYLE[level]
    text = Text()
    bounded = bool(budget.steps_max) and budget.steps_max is not None and budget.steps_max < UNBOUNDED
    if bounded:
        assert budget.steps_max is not None
        _bar(text, "steps", budget.steps_used, budget.steps_max, style)
        text.append(f" {budget.steps_used}/{budget.steps_max}", style=style)
        text.append(f"  left {_steps_left(budget)}", style=style)
    elif budget.steps_max:
        text.append(f"steps {budget.steps_used}", style="bold")
    else:
        text.append(f"steps {budget.steps_used} (no max)", style=style)
    left = budget.iterations_remaining
    if left is not None and not bounded and iterations_max:
        text.append("   ")
        _bar(text, "iterations", iterations_max - left, iterations_max, style)
        text.append(f" {iterations_max - left}/{iterations_max}  left {left}", style=style)
    text.append(f"   model calls {budget.model_calls}   tool calls {budget.tool_calls}")
    if budget.total_tokens is not None:
        text.append(f"   tokens {budget.total_tokens}")
        if budget.prompt_tokens is not None and budget.completion_tokens is not None:
            text.append(f" ({budget.prompt_tokens} in / {budget.completion_tokens} out)", style="dim")
    if left is not None and (bounded or not iterations_max):
        text.append("   iterations left ")
        text.append(str(left), style=style)
    if cycle:
        text.append("\n")
        text.append("⚠ ", style="bold red")
        text.append_text(one_line(cycle, limit=200, style="red"))
    elif consuming is not None and level in ("low", "critical"):
        loop, rounds = consuming
        text.append("\n")
        text.append("⚠ ", style=style)
        text.append_text(
            one_line(f"spent in the cycle {loop} ({rounds} rounds so far)", limit=200, style=style)
        )
    return text


class BudgetBar(Static):
    """The app calls `show(budget, cycle=...)`; the `-low`/`-critical` classes colour the border."""

    DEFAULT_CSS = """
    BudgetBar { height: auto; }
    """

    def show(
        self,
        budget: BudgetRecord | None,
        *,
        cycle: str | None = None,
        iterations_max: int | None = None,
        consuming: tuple[str, int] | None = None,
    ) -> None:
        level = "none" if budget is None else budget_level(budget, iterations_max=iterations_max)
        self.set_class(level == "low", "-low")
        self.set_class(level == "critical", "-critical")
        repaint(self, render_budget(budget, cycle=cycle, iterations_max=iterations_max, consuming=consuming))

    def rows_at(self, width: int, *, short: bool) -> int:
        """The rows the bar will take on a screen `width` wide with what it shows now: its lines
        wrapped inside its padding and border (on a short screen no border, at most two lines).

        The grid is arranged in the same frame the bar's text changes (`arrange._below`); its laid-out
        height is the previous step's then, and a step that adds the bar's warning line (the budget
        running low) would be arranged for one row too few and laid out again at the next key."""
        content = self.content
        text = content if isinstance(content, Text) else Text(str(content))
        lines = len(text.wrap(self.app.console, max(width - (2 if short else 4), 1)))
        return min(lines, 2) if short else lines + 2
