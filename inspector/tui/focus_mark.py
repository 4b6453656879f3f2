"""`mark_focus`: the focused pane says so in its title (`▶ state`), not only by its border's colour.

A border colour does not survive a plain capture (`tmux capture-pane`, a screen reader, a monochrome
terminal); a glyph in the title does. Titles are set by the panes' owners at every step; marking reads
whatever title a box has, takes an old mark off and puts one on the box that holds the focus.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widget import Widget

__all__ = ["FOCUS_MARK", "mark_focus"]

FOCUS_MARK = "▶ "


def mark_focus(boxes: Iterable[Widget]) -> None:
    """Mark the box among `boxes` that has the focus (itself or a widget inside it), unmark the rest.

    Textual hands a title back as console markup (run data in it escaped), which it parses again when
    assigned, so the mark goes in front of the markup. A title is assigned only when it changes: each
    assignment repaints the box."""
    for box in boxes:
        title = box.border_title
        if title is None:
            continue
        base = title.removeprefix(FOCUS_MARK)
        wanted = FOCUS_MARK + base if box.has_focus_within else base
        if wanted != title:
            box.border_title = wanted
