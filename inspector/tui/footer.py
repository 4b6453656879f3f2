"""`KeyFooter`: Textual's footer with help and quit first, so they show at any width.

The footer lists the shown keys left to right and cuts what does not fit; with ten keys, `? Help` and
`q Quit` (last in the key table) appeared only from 220 columns. First in the footer, the two keys a
newcomer needs are on screen at any width, and the stepping keys fill whatever room is left.

The keys are built when the footer is mounted, into the first frame. Textual's footer builds them (a
dozen widgets mounted and styled: about 30 ms here) only after the first frame, when focus first
moves, which put that work into the first key the user pressed. Focus moving changes only the order
of the shown keys (the focused pane's own keys are all hidden, but a key it binds too keeps its place
first), so the keys built are put in the new order instead of being built again.
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

from textual.app import ComposeResult
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["FIRST", "KeyFooter"]

FIRST = ("help", "quit")
"""Actions whose keys come first in the footer, in this order."""


class _Key(NamedTuple):
    """One shown binding as the footer reads it."""

    key: str
    binding: str
    action: str
    description: str
    group: object
    enabled: bool
    tooltip: str


_Keys = tuple[tuple[_Key, ...], bool, bool]
"""The shown keys in order, whether the palette's key shows, whether the app has a palette."""


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
        self._bindings_ready = True  # built when mounted, not after the first signal
        self._shown: _Keys | None = None
        self.recomposes = 0
        """How many times the keys were built (tests check that closing a prompt builds none)."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Build the keys again only when the screen's shown keys changed, and only reorder them when
        just their order did. Textual's footer rebuilds them whenever the bindings may have changed:
        when focus moves and when a prompt closes, which is every `g` and `/`, though the keys are the
        same. While a prompt (a modal screen) covers this footer's screen, the run's keys are not offered
        (`ReplayApp.check_action`) but this footer still shows under the prompt: it is left as it is, so
        closing the prompt finds the same keys and builds nothing."""
        if self.app.screen is not self.screen and isinstance(self.app.screen, ModalScreen):
            return
        shown = self._keys(screen)
        if shown == self._shown or (self._shown is not None and self._reorder(shown)):
            self._shown = shown
            return
        super().bindings_changed(screen)

    def _keys(self, screen: Screen[object]) -> _Keys:
        """What the footer shows for `screen`, in its order: the shown active bindings (and the command
        palette's) as the footer reads them."""
        palette = self.app.COMMAND_PALETTE_BINDING
        keys = tuple(
            _Key(key, binding.key, binding.action, binding.description, binding.group, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == palette
        )
        return keys, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE

    def _reorder(self, shown: _Keys) -> bool:
        """Put the keys built in the order a build for `shown` gives them, when they are the same keys
        (one per action, no key groups); False when they must be built again."""
        assert self._shown is not None
        keys, *settings = shown
        if any(key.group is not None for key in (*keys, *self._shown[0])):
            return False  # Textual builds a group of keys as a widget of its own
        if settings != list(self._shown[1:]) or sorted(keys) != sorted(self._shown[0]):
            return False
        palette = self.app.COMMAND_PALETTE_BINDING
        first: dict[str, _Key] = {}  # action -> its first key: `Footer.compose` shows that one
        for key in keys:
            if key.key != palette:
                first.setdefault(key.action, key)
        built = list(self.children)
        ours = [w for w in built if isinstance(w, FooterKey) and w.action in first]
        if len(ours) != len(first) or any(
            (w.key, w.description, w.has_class("-disabled")) != (k.binding, k.description, not k.enabled)
            for w in ours
            for k in (first[w.action],)
        ):
            return False
        place = {action: n for n, action in enumerate(first)}
        ranked = sorted(ours, key=lambda w: (_rank(w), place[w.action]))
        for before, after in pairwise(ranked):
            if built.index(after) < built.index(before):
                self.move_child(after, after=before)
                built = list(self.children)
        return True

    def compose(self) -> ComposeResult:
        self.recomposes += 1
        self._shown = self._keys(self.screen)
        widgets: list[Widget] = list(super().compose())
        yield from sorted(widgets, key=_rank)  # stable: the other keys keep the table's order


def _rank(widget: Widget) -> int:
    action = widget.action if isinstance(widget, FooterKey) else ""
    return FIRST.index(action) if action in FIRST else len(FIRST)
