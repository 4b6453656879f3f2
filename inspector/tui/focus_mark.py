"""`mark_focus`: the focused pane says so in its title (`▶ state`), not only by its border's colour.

A border colour does not survive a plain capture (`tmux capture-pane`, a screen reader, a monochrome
terminal); a glyph in the title does. Titles are set by the panes' owners at every step; marking reads
whatever title a box has, takes an old mark off and puts one on the box that holds the focus.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widget import Widget

__all__ = ["FOCUS_MARK", "mark_focus", "unmarked"]

FOCUS_MARK = "▶ "


def unmarked(title: str | Text) -> str | Text:
    """`title` without a focus mark."""
    plain = title.plain if isinstance(title, Text) else title
    return title[len(FOCUS_MARK) :] if plain.startswith(FOCUS_MARK) else title


def mark_focus(boxes: Iterable[Widget]) -> None:
    """Mark the box among `boxes` that has the focus (itself or a widget inside it), unmark the rest;
    a title is assigned only when it changes (each assignment repaints the box)."""
    for box in boxes:
        title = box.border_title
        if title is None:
            continue
        base = unmarked(title)
        if box.has_focus_within:
            wanted = Text(FOCUS_MARK, style="bold") + (base if isinstance(base, Text) else Text(base))
        else:
            wanted = base
        shown_plain = title.plain if isinstance(title, Text) else title
        wanted_plain = wanted.plain if isinstance(wanted, Text) else wanted
        if shown_plain != wanted_plain:
            box.border_title = wanted
