"""`KeyFooter`: Textual's footer with help and quit first, so they show at any width.

The footer lists the shown keys left to right and cuts what does not fit; with ten keys, `? Help` and
`q Quit` (last in the key table) appeared only from 220 columns. First in the footer, the two keys a
newcomer needs are on screen at any width, and the stepping keys fill whatever room is left.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
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

    def __init__(self) -> None:
        super().__init__()
        self._shown: object = None
        self.recomposes = 0
        """How many times the keys were built (tests check that closing a prompt builds none)."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Build the keys again only when the screen's keys changed. Textual's footer rebuilds them
        (a dozen widgets mounted and styled) whenever the bindings may have changed: when focus moves
        and when a prompt closes, which is every `g` and `/`, though the keys are the same."""
        shown = self._keys(screen)
        if shown == self._shown and self._bindings_ready:
            return
        super().bindings_changed(screen)
        if screen.app.app_focus and self.is_attached and screen is self.screen:  # it builds them
            self._shown = shown

    def _keys(self, screen: Screen[object]) -> object:
        """What the footer would show for `screen`: every active binding as the footer reads it."""
        keys = [
            (key, binding.key, binding.action, binding.description, binding.show, binding.group,
             binding.tooltip, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
        ]  # fmt: skip
        return (tuple(keys), self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE)

    def compose(self) -> ComposeResult:
        self.recomposes += 1
        widgets: list[Widget] = list(super().compose())

        def rank(widget: Widget) -> int:
            action = widget.action if isinstance(widget, FooterKey) else ""
            return FIRST.index(action) if action in FIRST else len(FIRST)

        yield from sorted(widgets, key=rank)  # stable: the other keys keep the table's order
