"""`Arranger`: sizes the replay screen's grid to the graph drawing and the run, and keeps the graph's
highlighted box in view. Setting grid styles lays the whole screen out again, so it does so only when
the arrangement changes.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.containers import Grid, ScrollableContainer
from textual.geometry import Region, Spacing

from inspector.tui.budget_bar import BudgetBar
from inspector.tui.footer import KeyFooter
from inspector.tui.graph_pane import Painted
from inspector.tui.timeline import Timeline

if TYPE_CHECKING:
    from inspector.tui.host import ReplayHost

__all__ = ["COMPACT_FOOTER_BELOW", "GRAPH_MIN_WIDTH", "WIDE_REST", "Arranger"]

GRAPH_MIN_WIDTH = 24
"""The graph pane never gets narrower than this, so its title and a short drawing fit."""

WIDE_REST = 84
"""Columns the three lower panes need beside a full-height graph (28 each). A screen with that much
room next to the graph gives the graph the whole height (wide layout); a narrower one puts the graph
above the state pane, beside the timeline (narrow layout)."""

COMPACT_FOOTER_BELOW = 120
"""Screens narrower than this get Textual's compact footer (less space between keys)."""


def _sizes(fit: tuple[tuple[int, int], Region | None, int, int]) -> tuple[tuple[int, int], int, int]:
    """The graph box's size and the drawing's size, from what `_fit_graph` last did."""
    return fit[0], fit[2], fit[3]


class Arranger:
    """The grid's arrangement and the graph's scroll for one screen of `app`."""

    def __init__(self, app: ReplayHost) -> None:
        self.app = app
        self._fit: tuple[tuple[int, int], Region | None, int, int] | None = None
        self._arrangement: tuple[bool, int, int, bool] | None = None

    def forget_fit(self) -> None:
        """Fit and scroll again at the next `fit` (the screen was resized)."""
        self._fit = None

    def arrange(self, painted: Painted | None) -> tuple[int, int]:
        """Size the grid to the drawing and the run; returns the graph box's (width, height).

        The graph column is as wide as the drawing (plus its border, and a scrollbar only when the
        drawing is taller than the room it gets), at most 45% of the screen; the timeline row is as tall
        as the run's steps, at most half the height. With `WIDE_REST` columns to spare the
        graph takes the whole height; otherwise it shares the top row with the timeline."""
        app = self.app
        width, height = app.size
        draw_width, draw_height = (painted.width, painted.height) if painted is not None else (34, 3)
        budget = app.query_one(BudgetBar).outer_size.height or 3
        free = max(height - 2 - budget, 8)  # minus the status line and the footer
        rows = max(len(app.session), 1) + 1 + 2  # the steps, the header, the border
        limit = max(GRAPH_MIN_WIDTH, width * 45 // 100)
        fit_width = draw_width + 2 + 1  # the border, a cell of air
        wide = width - min(fit_width, limit) >= WIDE_REST
        if wide:
            top = min(rows, max(6, free // 2))
            graph_height = free
        else:
            top = max(min(rows, free // 2), min(draw_height + 2, free * 55 // 100))
            top = max(5, min(top, free - 8))
            graph_height = top
        if draw_height + 2 > graph_height:
            fit_width += 2  # the vertical scrollbar
        graph_width = max(GRAPH_MIN_WIDTH, min(fit_width, limit))
        if app.query_one(Timeline).row_width() > width - graph_width - 2:
            top = min(top + 1, free - 8 if not wide else free)  # a row for the sideways scrollbar
        arrangement = (wide, graph_width, top, width < COMPACT_FOOTER_BELOW)
        if arrangement != self._arrangement:  # setting styles lays the screen out again: only on change
            self._arrangement = arrangement
            grid = app.query_one("#main", Grid)
            grid.set_class(wide, "-wide")
            grid.styles.grid_columns = f"{graph_width} 1fr 1fr" + (" 1fr" if wide else "")
            grid.styles.grid_rows = f"{top} 1fr"
            app.query_one(KeyFooter).compact = width < COMPACT_FOOTER_BELOW
        return graph_width, graph_height

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
