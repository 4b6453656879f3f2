"""`Timeline`: one row per superstep, drawn with the Line API so only the visible rows are ever built.

A run resumed into the same file is one timeline: a resumed segment's first row carries the `↻` marker
and `resumed from ID (segment k …)`, and its step numbers start again at 0 as the engine's do.

A `DataTable` materialises every row; a 100,000-step run would take seconds to open and megabytes to
hold. Here the virtual height is the step count and `render_line` builds the one row asked for, from
the step record alone, so opening and scrolling cost the same for 10 steps or 100,000.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspector.recording.format import BudgetRecord
from inspector.tui.literal import one_line
from inspector.tui.session import Session, TimelineRow

__all__ = ["HEADER", "Columns", "Timeline", "format_row", "header", "mark_text"]

UNBOUNDED = 1_000_000_000
"""A step maximum at least this large is no practical limit (the ADK agent runs with 2**31 - 1 and
counts iterations instead); shown as `–`."""

INTERRUPT_STYLE = "bold yellow"
CANCEL_STYLE = "bold magenta"
RESUMED_STYLE = "bold cyan"

NODES_MAX = 32
"""The nodes column is as wide as the graph's longest node key, up to this; longer keys (and steps
that run several nodes) end in `…`. The ADK agent's longest key, `AfterToolCallsCancelCheck`, fits."""


@dataclass(frozen=True)
class Columns:
    """The timeline's columns, chosen once per run so rows line up: tokens when a model reported usage,
    iterations left for ADK agents, and widths fitted to the run (the longest node key, the digits of
    the step budget) so a short run's rows stay short and their notes stay on screen."""

    tokens: bool = False
    iterations: bool = False
    nodes: int = NODES_MAX
    digits: int = 3
    calls: int = 4
    """Digits of the largest model or tool call count (a long agent run makes tens of thousands)."""
    index: int = 4
    """Width of the step column: the last step's number (100,000-step runs have six digits)."""

    @classmethod
    def for_budget(cls, budget: BudgetRecord | None) -> Columns:
        if budget is None:
            return cls()
        return cls(tokens=budget.total_tokens is not None, iterations=budget.iterations_remaining is not None)

    @classmethod
    def for_run(cls, keys: Iterable[str], budget: BudgetRecord | None) -> Columns:
        """Columns for a run whose steps run the nodes `keys` and whose last budget is `budget`."""
        base = cls.for_budget(budget)
        longest = max((len(key) for key in keys), default=NODES_MAX)
        bound = budget is not None and budget.steps_max is not None and budget.steps_max < UNBOUNDED
        top = max(budget.steps_max or 0, budget.steps_used) if budget is not None and bound else 0
        digits = len(str(top)) if bound else len(str(budget.steps_used if budget else 0))
        calls = len(str(max(budget.model_calls, budget.tool_calls))) if budget is not None else 1
        index = len(str(max(budget.steps_used - 1, 0))) if budget is not None else 1
        return replace(
            base,
            nodes=min(max(longest, 5), NODES_MAX),
            digits=max(digits, 2),
            calls=max(calls, 4),
            index=max(index, 4),
        )

    @property
    def budget_width(self) -> int:
        return 2 * self.digits + 1

    @property
    def call_widths(self) -> tuple[int, int]:
        """The model and tool columns: room for their headers, and a space before every count."""
        return max(6, self.calls + 1), max(5, self.calls + 1)


def header(columns: Columns = Columns()) -> str:
    text = f"{'':2}{'step':>{columns.index}}  {'nodes':<{columns.nodes}} {'steps':^{columns.budget_width}}"
    model, tool = columns.call_widths
    text += f"{'left':>{columns.digits + 3}}{'model':>{model}}{'tool':>{tool}}"
    if columns.tokens:
        text += f"{'tokens':>8}"
    if columns.iterations:
        text += f"{'iter':>5}"
    return text + f"  {'duration':>8}"


HEADER = header()
"""The header of a run without token counts or ADK iterations, at the widest columns."""


def _budget_cell(row: TimelineRow, columns: Columns) -> str:
    """`used/max` and what is left; `–` where there is no (practical) limit."""
    budget, digits = row.budget, columns.digits
    if budget.steps_max is None or budget.steps_max >= UNBOUNDED:
        return f"{budget.steps_used:>{digits}}/{'–':<{digits}}{'–':>{digits + 3}}"
    left = (
        budget.steps_remaining if budget.steps_remaining is not None else budget.steps_max - budget.steps_used
    )
    return f"{budget.steps_used:>{digits}}/{budget.steps_max:<{digits}}{left:>{digits + 3}}"


def mark_text(row: TimelineRow, *, expand: bool = False) -> Text:
    """The interrupt, cancel or resume note at the end of a row: a marker glyph, a colour, a reason.

    Clipped with the usual "x expands" marker unless `expand` (the app's `x`): the note ends its row,
    so shown whole it only makes the row longer, and the timeline scrolls sideways to it."""
    text = Text()
    if row.resumed_from is not None:
        text.append("  ↻ ", style=RESUMED_STYLE)
        text.append_text(
            one_line(f"resumed from {row.resumed_from}", limit=None if expand else 60, style=RESUMED_STYLE)
        )
        if row.segment:
            text.append(f" (segment {row.segment}: steps and budget restart)", style=RESUMED_STYLE)
    mark = row.interrupt
    if mark is not None:
        style = CANCEL_STYLE if mark.kind == "cancel" else INTERRUPT_STYLE
        text.append("  ⊘ " if mark.kind == "cancel" else "  ⏸ ", style=style)
        text.append_text(one_line(mark.reason, limit=None if expand else 80, style=style))
    return text


def _marker(row: TimelineRow, *, breakpoint: bool, hit: bool) -> tuple[str, str]:
    """The glyph in a row's first column (the cursor's `▶` wins over all of these)."""
    if breakpoint:
        return "●", "bold red"
    if row.interrupt is not None:
        return ("⊘", CANCEL_STYLE) if row.interrupt.kind == "cancel" else ("⏸", INTERRUPT_STYLE)
    if hit:
        return "»", ""
    if row.resumed_from is not None:
        return "↻", RESUMED_STYLE
    return " ", ""


def format_row(
    row: TimelineRow,
    *,
    current: bool,
    breakpoint: bool,
    hit: bool,
    columns: Columns = Columns(),
    expand: bool = False,
) -> Text:
    """One timeline row as literal text (node keys are run data); `expand` shows its note unclipped."""
    marker, style = "▶", ""
    if not current:
        marker, style = _marker(row, breakpoint=breakpoint, hit=hit)
    text = Text()
    text.append(f"{marker} ", style=style)
    # A resumed segment's first row is drawn overlined: the boundary between two runs of one timeline.
    text.append(
        f"{row.index:>{columns.index}}  ",
        style="overline" if row.segment and row.resumed_from is not None else "",
    )
    nodes = one_line(", ".join(row.nodes), limit=None)
    nodes.truncate(columns.nodes, overflow="ellipsis", pad=True)
    if row.failed:
        nodes.stylize("bold red")
    elif row.interrupt is not None:
        nodes.stylize(CANCEL_STYLE if row.interrupt.kind == "cancel" else INTERRUPT_STYLE)
    text.append_text(nodes)
    text.append(f" {_budget_cell(row, columns)}")
    model, tool = columns.call_widths
    text.append(f"{row.budget.model_calls:>{model}}{row.budget.tool_calls:>{tool}}")
    if columns.tokens:
        tokens = "" if row.budget.total_tokens is None else str(row.budget.total_tokens)
        text.append(f"{tokens:>8}")
    if columns.iterations:
        left = "" if row.budget.iterations_remaining is None else str(row.budget.iterations_remaining)
        text.append(f"{left:>5}")
    duration = "" if row.duration is None else f"{row.duration:.3f}s"
    text.append(f"  {duration:>8}")
    if row.ended:
        text.append("  ⏹", style="dim")
    text.append_text(mark_text(row, expand=expand))
    return text


class Timeline(ScrollView, can_focus=True):
    """The step list. The app sets `cursor`, `breakpoints`, `hits` and `expand` (x: notes unclipped); a
    click posts `StepClicked`."""

    DEFAULT_CSS = """
    Timeline { height: 1fr; }
    """

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)  # `watch_cursor` refreshes

    class StepClicked(Message):
        """The user clicked the row of step `position`."""

        def __init__(self, position: int) -> None:
            self.position = position
            super().__init__()

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self._breakpoints: frozenset[str] = frozenset()
        self._hits: frozenset[int] = frozenset()
        self.columns = Columns()
        self.expand = False
        self._cursor_style = Style(reverse=True, bold=True)
        self._widest = 0
        self._reveal_pending = True

    def on_mount(self) -> None:
        self.sync_size()

    @property
    def breakpoints(self) -> frozenset[str]:
        """Nodes with a breakpoint: their rows get `●` (every row is drawn again when they change)."""
        return self._breakpoints

    @breakpoints.setter
    def breakpoints(self, nodes: frozenset[str]) -> None:
        if nodes is not self._breakpoints and nodes != self._breakpoints:
            self._breakpoints = nodes
            self.refresh()

    @property
    def hits(self) -> frozenset[int]:
        """Positions the last search matched: their rows get `»`."""
        return self._hits

    @hits.setter
    def hits(self, positions: frozenset[int]) -> None:
        if positions is not self._hits and positions != self._hits:
            self._hits = positions
            self.refresh()

    def sync_size(self) -> None:
        """Match the virtual size to the step count (after a follow-mode reload)."""
        width = max(len(header(self.columns)) + 4, self._widest)
        self.virtual_size = Size(width, max(len(self.session), 1))

    def row_width(self) -> int:
        """How wide the widest row may be: the columns, and room for the notes of a run that was
        interrupted or resumed (rows are drawn lazily, so this is what the layout plans for)."""
        run = self.session.run
        notes = len(run.segments) > 1 or run.status == "interrupted"
        return max(len(header(self.columns)) + 3 + (56 if notes else 0), self._widest)

    def _widen(self, width: int) -> None:
        """Rows with an interrupt or resume note can outrun the step columns; rows are only built when
        shown, so the scrollable width grows to the widest one drawn so far."""
        if width > self._widest:
            self._widest = width
            if width > self.virtual_size.width:
                self.virtual_size = Size(width, self.virtual_size.height)

    def set_expand(self, expand: bool) -> None:
        """Rows are built when drawn, so a redraw is all `x` needs; the width is measured afresh (rows
        shown clipped again no longer need the room their whole notes took)."""
        if expand != self.expand:
            self.expand = expand
            self._widest = 0
            self.sync_size()
            self.refresh()

    def watch_cursor(self, old: int, new: int) -> None:
        """Draw the two rows whose marker changed; every row when the view scrolled (or cannot tell)."""
        self._reveal_pending = True
        top = round(self.scroll_y)
        self._reveal(old, new)
        if self._reveal_pending or round(self.scroll_y) != top:
            self.refresh()
        else:
            self.refresh_line(old)
            self.refresh_line(new)

    def _reveal(self, old: int, new: int) -> None:
        """Scroll the cursor's row into view: by a row when it steps just off screen, centred after a
        jump. Before the first layout there is no height to scroll in; `on_resize` does it then, so a
        run that opens on its last step shows that row at once."""
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        top = round(self.scroll_y)
        if top <= new < top + height:
            self._reveal_pending = False
        else:
            target = (
                new - height // 2 if abs(new - old) > height else (new if new < top else new - height + 1)
            )
            self.scroll_to(y=max(target, 0), animate=False, immediate=True)

    def on_resize(self) -> None:
        # The scroll limits follow the new size only after a refresh.
        self._reveal_pending = True
        self.call_after_refresh(lambda: self._reveal(-(10**9), self.cursor))

    def render_line(self, y: int) -> Strip:
        if y == 0 and self._reveal_pending:  # drawn at its settled size: the cursor row must be in view
            self.call_later(self._reveal, -(10**9), self.cursor)
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
            columns=self.columns,
            expand=self.expand,
        )
        segments = list(text.render(self.app.console))
        strip = Strip(segments).apply_style(base)
        if strip.cell_length > max(self._widest, self.virtual_size.width):
            self.call_later(self._widen, strip.cell_length)
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
