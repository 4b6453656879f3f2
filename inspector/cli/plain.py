"""Recorded text (node keys, tool names, values) made safe for one line of plain terminal output.

Node keys and values come from user code: a newline in a key would break `show`'s one-line-per-step
layout, an ESC would let a recording drive the terminal, a bidi override would reorder the line. The
rule is `inspector.terminaltext.visible`, the one the TUI draws with too.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

from inspector.terminaltext import visible

__all__ = ["echo", "one_line", "one_line_list"]


def one_line(text: object) -> str:
    """`text` on one line: newlines as ` ⏎ `, tabs as spaces, control, zero-width and bidi characters as
    `\\xNN` / `\\uXXXX` escapes (see `inspector.terminaltext.visible`)."""
    return visible(str(text))


def one_line_list(items: Iterable[object]) -> str:
    """Comma-separated `one_line` items, as the commands list node keys."""
    return ", ".join(one_line(item) for item in items)


def echo(text: str, *, file: TextIO | None = None, flush: bool = False) -> None:
    """Print a message the CLI composed from names it was given or read (paths, run IDs, node keys,
    error text): newlines kept, every other control, bidi or zero-width character escaped, so no
    argument or recording can drive the terminal. The CLI's messages go through here."""
    print(visible(text, keep_newlines=True), file=file or sys.stdout, flush=flush)
