"""Recorded text (node keys, tool names, values) made safe for one line of plain terminal output.

Node keys and values come from user code: a newline in a key would break `show`'s one-line-per-step
layout, an ESC would let a recording drive the terminal, a bidi override would reorder the line. The
rule is `inspector.terminaltext.visible`, the one the TUI draws with too.
"""

from __future__ import annotations

from collections.abc import Iterable

from inspector.terminaltext import visible

__all__ = ["one_line", "one_line_list"]


def one_line(text: object) -> str:
    """`text` on one line: newlines as ` ⏎ `, tabs as spaces, control, zero-width and bidi characters as
    `\\xNN` / `\\uXXXX` escapes (see `inspector.terminaltext.visible`)."""
    return visible(str(text))


def one_line_list(items: Iterable[object]) -> str:
    """Comma-separated `one_line` items, as the commands list node keys."""
    return ", ".join(one_line(item) for item in items)
