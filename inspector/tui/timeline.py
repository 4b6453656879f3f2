"""`Timeline`: one row per superstep, drawn with the Line API so only the visible rows are ever built.

A `DataTable` materialises every row; a 100,000-step run would take seconds to open and megabytes to
hold. Here the virtual height is the step count and `render_line` builds the one row asked for, from
the step record alone, so opening and scrolling cost the same for 10 steps or 100,000.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspector.tui.literal import one_line
from inspector.tui.session import Session, TimelineRow

__all__ = ["Timeline", "format_row"]

HEADER = "   step  nodes                    steps used/left   model tool   duration"


def _budget_cell(row: TimelineRow) -> str:
    budget = row.budget
    if budget.steps_max is None:
        return f"{budget.steps_used:>6}/–   left –"
    left = (
        budget.steps_remaining if budget.steps_remaining is not None else budget.steps_max - budget.steps_used
    )
    return f"{budget.steps_used:>6}/{budget.steps_max:<6} left {left:<4}"


def format_row(row: TimelineRow, *, current: bool, breakpoint: bool, hit: bool) -> Text:
    """One timeline row as literal text (node keys are run data)."""
    marker = "▶" if current else ("●" if breakpoint else ("»" if hit else " "))
    text = Text()
    text.append(f"{marker} ", style="bold red" if breakpoint and not current else "")
    text.append(f"{row.index:>5}  ")
    nodes = one_line(", ".join(row.nodes), limit=None)
    nodes.truncate(24, overflow="ellipsis", pad=True)
    if row.failed:
        nodes.stylize("bold red")
    text.append_text(nodes)
    text.append(f" {_budget_cell(row):<18}")
    text.append(f"{row.budget.model_calls:>5} {row.budget.tool_calls:>4}")
    duration = "" if row.duration is None else f"{row.duration:.3f}s"
    text.append(f"   {duration:>8}")
    if row.ended:
        text.append("  ⏹", style="dim")
    return text


class Timeline(ScrollView, can_focus=True):
    """The step list. The app sets `cursor`, `breakpoints` and `hits`; a click posts `StepClicked`."""

    DEFAULT_CSS = """
    Timeline { height: 1fr; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)

    class StepClicked(Message):
        """The user clicked the row of step `position`."""

        def __init__(self, position: int) -> None:
            self.position = position
            super().__init__()

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.breakpoints: frozenset[str] = frozenset()
        self.hits: frozenset[int] = frozenset()
        self._cursor_style = Style(reverse=True, bold=True)

    def on_mount(self) -> None:
        self.sync_size()

    def sync_size(self) -> None:
        """Match the virtual size to the step count (after a follow-mode reload)."""
        self.virtual_size = Size(len(HEADER) + 8, max(len(self.session), 1))

    def watch_cursor(self, old: int, new: int) -> None:
        height = self.scrollable_content_region.height or 1
        top = round(self.scroll_y)
        if not top <= new < top + height:
            target = (
                new - height // 2 if abs(new - old) > height else (new if new < top else new - height + 1)
            )
            self.scroll_to(y=max(target, 0), animate=False, immediate=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        position = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not len(self.session):
            if y == 0:
                return Strip([Segment("  (no complete steps recorded)", base)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if position >= len(self.session):
            return Strip.blank(width, base)
        row = self.session.row(position)
        text = format_row(
            row,
            current=position == self.cursor,
            breakpoint=bool(self.breakpoints.intersection(row.nodes)),
            hit=position in self.hits,
        )
        segments = list(text.render(self.app.console))
        strip = Strip(segments).apply_style(base)
        if position == self.cursor:
            strip = (
                strip.apply_style(self._cursor_style)
                if self.has_focus
                else strip.apply_style(Style(reverse=True))
            )
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def on_click(self, event: events.Click) -> None:
        position = round(self.scroll_y) + event.y
        if 0 <= position < len(self.session):
            self.post_message(self.StepClicked(position))
