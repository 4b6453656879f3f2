"""Recorded text (node keys, tool names, values) made safe for one line of plain terminal output.

Node keys and values come from user code: a newline in a key would break `show`'s one-line-per-step
layout, and an ESC would let a recording drive the terminal. The TUI has its own Rich-based
equivalent (`inspector.tui.literal`); this one is for the plain-text commands, without Rich.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["one_line", "one_line_list"]


def one_line(text: object) -> str:
    """`text` on one line: newlines as ` ⏎ `, tabs as spaces, other control characters as `\\xNN`."""
    out: list[str] = []
    for ch in str(text).replace("\r\n", "\n"):
        code = ord(ch)
        if ch == "\n":
            out.append(" ⏎ ")
        elif ch == "\t":
            out.append("    ")
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        else:
            out.append(ch)
    return "".join(out)


def one_line_list(items: Iterable[object]) -> str:
    """Comma-separated `one_line` items, as the commands list node keys."""
    return ", ".join(one_line(item) for item in items)
