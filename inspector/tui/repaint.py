"""`repaint`: put new text into a `Static` pane without a screen-wide layout when its size cannot change.

`Static.update` asks for a layout by default, and one layout re-flows and re-renders every pane of the
screen. A step usually changes what the panes say, not how big they are: the graph keeps its drawing's
size, the status line one row, the node detail its line count. Text whose lines all fit the pane's
width unwrapped, with the same line count as before (when the old lines fitted too: text that wrapped
took more rows) and, in a pane as wide as its text, the same widest line, takes exactly the same room,
so a repaint of that one widget is enough.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

__all__ = ["repaint", "retitle", "text_shape"]

_titles: WeakKeyDictionary[Widget, dict[str, str | Text]] = WeakKeyDictionary()


def text_shape(text: Text) -> tuple[int, int]:
    """(lines, widest line in cells) of `text` drawn without wrapping."""
    lines = text.plain.split("\n")
    return len(lines), max(cell_len(line) for line in lines)


def repaint(widget: Static, text: Text) -> bool:
    """Show `text` in `widget`; returns False when it already showed equal text (nothing is done).

    Lays the screen out again only when the new text could need a different size than the old."""
    old = widget.content
    if isinstance(old, Text) and old == text and old.style == text.style:
        return False
    same_size = False
    if isinstance(old, Text) and widget.is_mounted:
        (lines, widest), (old_lines, old_widest) = text_shape(text), text_shape(old)
        auto_width = widget.styles.width is not None and widget.styles.width.is_auto
        fits = max(widest, old_widest) <= widget.content_region.width  # neither wraps: a row per line
        same_size = lines == old_lines and fits and (widest == old_widest or not auto_width)
    widget.update(text, layout=not same_size)
    return True


def retitle(widget: Widget, *, title: str | Text | None = None, subtitle: str | Text | None = None) -> bool:
    """Set `widget`'s border title and/or subtitle; returns False when both were already so.

    Textual repaints the whole box on every assignment, even of the same words (a container box
    repaints every row it covers), and the app sets its boxes' notes at every step."""
    shown = _titles.setdefault(widget, {})
    changed = False
    if title is not None and shown.get("title") != title:
        widget.border_title = shown["title"] = title
        changed = True
    if subtitle is not None and shown.get("subtitle") != subtitle:
        widget.border_subtitle = shown["subtitle"] = subtitle
        changed = True
    return changed
