"""`Arranger`: sizes the replay screen's grid to the graph drawing and the run, and keeps the graph's
highlighted box in view. Setting grid styles lays the whole screen out again, so it does so only when
the arrangement changes.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from textual.containers import Grid, ScrollableContainer
from textual.geometry import Region, Spacing

from inspector.tui.budget_bar import BudgetBar
from inspector.tui.footer import KeyFooter
from inspector.tui.graph_pane import GraphPane, Painted
from inspector.tui.timeline import Timeline

if TYPE_CHECKING:
    from inspector.tui.host import ReplayHost

__all__ = [
    "COMPACT_FOOTER_BELOW",
    "GRAPH_MIN_WIDTH",
    "LOWER_MIN_ROWS",
    "SHORT_BELOW",
    "WIDE_PANE",
    "WIDE_REST",
    "Arranger",
    "Spans",
    "spans",
]

GRAPH_MIN_WIDTH = 24
"""The graph pane never gets narrower than this, so its title and a short drawing fit."""

WIDE_PANE = 36
"""Columns each of the three lower panes needs before the graph may take the whole height: at 28 they
clipped every value (`name: get_weathe`) while the timeline above them stood half empty."""

WIDE_REST = 3 * WIDE_PANE
"""Columns the three lower panes need beside a full-height graph. A screen with that much room next to
the graph gives the graph the whole height (wide layout); a narrower one puts the graph above, beside
the timeline, and the three panes share the screen's whole width below (narrow layout)."""

COMPACT_FOOTER_BELOW = 120
"""Screens narrower than this get Textual's compact footer (less space between keys)."""

SHORT_BELOW = 30
"""Screens shorter than this are `-short`: the budget bar and the live debugger's panel lose their
borders and keep two lines each, so the state pane keeps its rows (at 80x24 the debugger gave the
state, messages and node-detail panes none)."""

LOWER_MIN_ROWS = 8
"""The lower row (state, messages, node detail) never gets fewer rows than this, borders included."""


class Spans(NamedTuple):
    """The main grid for one arrangement: its column widths (the last one takes the rest, `1fr`) and
    how many columns each pane spans, in the grid's order: graph, timeline, state, messages, detail."""

    columns: tuple[int, ...]
    graph: int
    timeline: int
    lower: tuple[int, int, int]


def spans(width: int, graph: int, *, wide: bool, state: float = 1 / 3) -> Spans:
    """The grid's columns for a screen `width` columns wide with a `graph`-column graph pane.

    Wide: the graph is a full-height first column; the timeline spans the rest, and the three lower
    panes share it. Narrow: the top row is the graph and the timeline, the lower row the three panes
    across the whole width, so the grid has a column boundary wherever either row has one, and each
    pane spans the columns between its own boundaries. The state pane takes the `state` share of the
    lower row, the messages and node detail halves of the rest."""
    left = graph if wide else 0
    rest = width - left
    first = left + round(rest * state)
    lower_cuts = (first, first + (width - first) // 2)
    if wide:
        columns = (graph, lower_cuts[0] - graph, lower_cuts[1] - lower_cuts[0], width - lower_cuts[1])
        return Spans(columns, 1, 3, (1, 1, 1))
    cuts = sorted({graph, *lower_cuts})
    columns = tuple(b - a for a, b in zip([0, *cuts], [*cuts, width], strict=True))
    graph_span = cuts.index(graph) + 1
    one, two = cuts.index(lower_cuts[0]) + 1, cuts.index(lower_cuts[1]) + 1
    lower = (one, two - one, len(columns) - two)
    return Spans(columns, graph_span, len(columns) - graph_span, lower)


def _sizes(fit: tuple[tuple[int, int], Region | None, int, int]) -> tuple[tuple[int, int], int, int]:
    """The graph box's size and the drawing's size, from what `_fit_graph` last did."""
    return fit[0], fit[2], fit[3]


def _below(app: ReplayHost, *, short: bool) -> tuple[int, bool]:
    """Rows the screen's other parts take (status line, budget, live panel, footer, their margins), and
    whether they have all been laid out (before the first layout their heights are not known). The
    budget bar's rows are computed from what it shows (`BudgetBar.rows_at`), laid out or not."""
    rows, known = 0, True
    for widget in app.screen.children:
        if widget.id == "main" or not widget.display:
            continue
        if isinstance(widget, BudgetBar):
            height = widget.rows_at(app.size.width, short=short)
        else:
            height = widget.outer_size.height
        if height == 0:
            known = False
            height = 1
        rows += height + widget.styles.margin.top + widget.styles.margin.bottom
    return rows, known


class Arranger:
    """The grid's arrangement and the graph's scroll for one screen of `app`."""

    def __init__(self, app: ReplayHost) -> None:
        self.app = app
        self._fit: tuple[tuple[int, int], Region | None, int, int] | None = None
        self._arrangement: tuple[bool, Spans, int, bool, bool] | None = None
        self._refit_pending = False

    def forget_fit(self) -> None:
        """Fit and scroll again at the next `fit` (the screen was resized)."""
        self._fit = None

    def refit(self) -> None:
        """Arrange again for the drawing shown (a part below the grid changed its height)."""
        self._refit_pending = False
        if self.app.is_running and not self.app.waiting:
            self.fit(self.app.query_one(GraphPane).painted)

    def arrange(self, painted: Painted | None) -> tuple[int, int]:
        """Size the grid to the drawing and the run; returns the graph box's (width, height).

        The timeline gets the columns its rows need first, and the graph column what is left, as wide
        as the drawing (plus its border, and a scrollbar only when the drawing is taller than the room
        it gets) and at most 45% of the screen; the timeline row is as tall as the run's steps, at most
        half the height. With `WIDE_REST` columns to spare the graph takes the whole height; otherwise
        it shares the top row with the timeline and the lower panes get the whole width."""
        app = self.app
        width, height = app.size
        short = height < SHORT_BELOW
        app.screen.set_class(short, "-short")
        draw_width, draw_height = (painted.width, painted.height) if painted is not None else (34, 3)
        below, known = _below(app, short=short)
        if not known and not self._refit_pending:  # arrange again once the parts below are laid out
            self._refit_pending = True
            app.call_after_refresh(self.refit)
        free = max(height - below, LOWER_MIN_ROWS + 5)
        rows = max(len(app.session), 1) + 1 + 2  # the steps, the header, the border
        limit = max(GRAPH_MIN_WIDTH, width * 45 // 100)
        timeline = app.query_one(Timeline).row_width() + 2 + 1  # its border, a scrollbar
        fit_width = draw_width + 2 + 1  # the border, a cell of air
        if width - timeline >= GRAPH_MIN_WIDTH:  # the timeline's rows come first when they can fit
            limit = min(limit, width - timeline)
        wide = width - min(fit_width, limit) >= WIDE_REST
        if wide:
            top = min(rows, max(6, free // 2))
            graph_height = free
        else:
            top = max(min(rows, free // 2), min(draw_height + 2, free * 55 // 100))
            top = max(5, min(top, free - LOWER_MIN_ROWS))
            graph_height = top
        if draw_height + 2 > graph_height:
            fit_width += 2  # the vertical scrollbar
        graph_width = max(GRAPH_MIN_WIDTH, min(fit_width, limit))
        if app.query_one(Timeline).row_width() > width - graph_width - 2:
            top = min(top + 1, free - LOWER_MIN_ROWS if not wide else free)  # the sideways scrollbar
        # Values shown whole (x) need the width: the state pane takes half the lower row then, unless
        # its third is already wide.
        lower_width = width - (graph_width if wide else 0)
        state = 1 / 2 if app.expand and lower_width < 150 else 1 / 3
        grid = spans(width, graph_width, wide=wide, state=state)
        arrangement = (wide, grid, top, width < COMPACT_FOOTER_BELOW, short)
        if arrangement != self._arrangement:  # setting styles lays the screen out again: only on change
            self._arrangement = arrangement
            self._apply(grid, wide=wide, top=top)
            app.query_one(KeyFooter).compact = width < COMPACT_FOOTER_BELOW
        return graph_width, graph_height

    def _apply(self, grid: Spans, *, wide: bool, top: int) -> None:
        app = self.app
        main = app.query_one("#main", Grid)
        main.set_class(wide, "-wide")
        main.styles.grid_size_columns = len(grid.columns)
        main.styles.grid_size_rows = 2
        main.styles.grid_columns = " ".join([*(str(c) for c in grid.columns[:-1]), "1fr"])
        main.styles.grid_rows = f"{top} 1fr"
        panes = ("#graph-box", "#timeline-box", "#state", "#messages-box", "#detail-box")
        for selector, span in zip(panes, (grid.graph, grid.timeline, *grid.lower), strict=True):
            pane = app.query_one(selector)
            pane.styles.column_span = span
        app.query_one("#graph-box").styles.row_span = 2 if wide else 1

    def fit(self, painted: Painted | None) -> None:
        """Lay the screen out for the drawing (`arrange`) and scroll the highlighted box into view,
        a couple of rows of context around it.

        A step that moves the highlight within a drawing of unchanged size scrolls at once, in the
        frame that repaints the step; only a resize waits for the next layout (another frame)."""
        box = self.app.query_one("#graph-box", ScrollableContainer)
        size = self.arrange(painted)
        focus = painted.focus if painted is not None else None
        fit = (size, focus, painted.width, painted.height) if painted is not None else None
        previous, self._fit = self._fit, fit
        if focus is None or fit == previous:
            return
        spacing = Spacing(2, 1, 2, 1)
        scroll = partial(box.scroll_to_region, focus, spacing=spacing, animate=False, immediate=True)
        if previous is not None and fit is not None and _sizes(previous) == _sizes(fit):
            scroll()
        else:
            box.call_after_refresh(scroll)
