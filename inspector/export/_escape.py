"""The one place user text (node keys, names, graph names) is made safe for DOT and for Mermaid.

Node keys are data: a key may contain quotes, backslashes, colons, braces, `<...>`, newlines, non-ASCII
or a DOT/Mermaid keyword. Exporters therefore never use keys as identifiers (they generate `n0`, `n1`,
...) and show keys only through these functions, so every key reaches the picture literally.
"""

from __future__ import annotations

import graphviz

__all__ = ["dot_text", "mermaid_text", "visible"]

_LINE_BREAKS = ("\r\n", "\r", "\n")


def visible(text: str) -> str:
    """Replace control characters other than newlines by `\\xNN` so nothing invisible reaches a picture.

    C1 controls (U+0080-U+009F) count too: a terminal may read `\\x9b` as the start of an escape sequence.
    """
    return "".join(ch if ch == "\n" or not _is_control(ord(ch)) else f"\\x{ord(ch):02x}" for ch in text)


def _is_control(code: int) -> bool:
    return code < 0x20 or 0x7F <= code < 0xA0


def _lines(text: str) -> list[str]:
    normal = visible(text.replace("\r\n", "\n").replace("\r", "\n"))
    return normal.split("\n")


def dot_text(text: str) -> str:
    """A DOT label or ID value that Graphviz shows literally.

    Backslashes are doubled (DOT's escString would read `\\N`, `\\l`, ... as commands), line breaks
    become DOT's `\\n`, and the result is marked `nohtml` so the graphviz package never mistakes `<...>`
    for an HTML label. The package itself then quotes the value and escapes double quotes, which handles
    DOT keywords (`node`, `edge`, `graph`, ...) too.
    """
    escaped = [line.replace("\\", "\\\\") for line in _lines(text)]
    return graphviz.nohtml("\\n".join(escaped))


_MERMAID_ENTITIES = {
    '"': "#quot;",
    "#": "#35;",
    "&": "#amp;",
    "<": "#lt;",
    ">": "#gt;",
    "`": "#96;",
    "%": "#37;",
    "\\": "#92;",
}


def mermaid_text(text: str) -> str:
    """Label text for inside Mermaid double quotes, using Mermaid's `#code;` entities.

    Quotes, `#`, `&`, `<`, `>`, backticks, `%` and backslashes become entities, so nothing in a key can
    close the label, start markup or a markdown string, or look like an entity; line breaks become
    `<br/>` (the only markup we emit ourselves).
    """
    lines = ["".join(_MERMAID_ENTITIES.get(ch, ch) for ch in line) for line in _lines(text)]
    return "<br/>".join(lines)
