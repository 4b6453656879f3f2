"""`KeyFooter`: Textual's footer with help and quit first, so they show at any width.

The footer lists the shown keys left to right and cuts what does not fit; with ten keys, `? Help` and
`q Quit` (last in the key table) appeared only from 220 columns. First in the footer, the two keys a
newcomer needs are on screen at any width, and the stepping keys fill whatever room is left.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["FIRST", "KeyFooter"]

FIRST = ("help", "quit")
"""Actions whose keys come first in the footer, in this order."""


class KeyFooter(Footer):
    """The app's footer; its keys come from the app's bindings (`keys.py`) as in `Footer`."""

    # Compact keys get a right margin; docked right, the palette key's margin left the last cell
    # uncovered, showing a letter of the key scrolled beneath it.
    DEFAULT_CSS = """
    KeyFooter.-compact FooterKey.-command-palette {
        margin-right: 0;
        padding-right: 1;
    }
    """

    def compose(self) -> ComposeResult:
        widgets: list[Widget] = list(super().compose())

        def rank(widget: Widget) -> int:
            action = widget.action if isinstance(widget, FooterKey) else ""
            return FIRST.index(action) if action in FIRST else len(FIRST)

        yield from sorted(widgets, key=rank)  # stable: the other keys keep the table's order
