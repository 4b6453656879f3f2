"""The one escaping rule for text a run puts on a terminal: `show`, `record`'s progress, the TUI.

Node keys, message text and error messages come from user code and models. Shown raw, an ESC would let
a recording drive the terminal, a newline would break a one-line-per-step layout, a bidi override
(U+202E) would reorder the rest of the row and a zero-width space (U+200B) would hide. Every command
that prints run data goes through `visible`, so each of these shows the same way everywhere.
"""

from __future__ import annotations

from inspector.export._escape import ESCAPED, escape_at

__all__ = ["visible"]


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control character (ESC, BEL, CR, DEL, C1 ...) replaced by a `\\xNN` escape,
    and every zero-width or bidi character (U+200B, U+202E, U+2066, U+FEFF, ...) by a `\\uXXXX` one.

    Tabs become four spaces; a CRLF counts as one newline; newlines stay only when `keep_newlines`,
    else they show as ` ⏎ `.
    """
    if not ESCAPED.search(text):
        return text
    text = text.replace("\r\n", "\n")
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == "\n":
            out.append("\n" if keep_newlines else " ⏎ ")
        elif ch == "\t":
            out.append("    ")
        elif (escaped := escape_at(text, i)) is not None:
            out.append(escaped)
        else:
            out.append(ch)
    return "".join(out)
