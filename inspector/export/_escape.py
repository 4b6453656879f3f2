"""The one place user text (node keys, names, graph names) is made safe for DOT and for Mermaid.

Node keys are data: a key may contain quotes, backslashes, colons, braces, `<...>`, newlines, non-ASCII
or a DOT/Mermaid keyword. Exporters therefore never use keys as identifiers (they generate `n0`, `n1`,
...) and show keys only through these functions, so every key reaches the picture literally.
"""

from __future__ import annotations

import html

import graphviz

from inspector.terminaltext import ESCAPED, escape_at

__all__ = ["ESCAPED", "dot_html", "dot_text", "dot_tooltip", "escape_at", "mermaid_text", "visible"]

_LINE_BREAKS = ("\r\n", "\r", "\n")


def visible(text: str) -> str:
    """Replace control and invisible characters other than newlines by escapes, so nothing invisible
    reaches a picture: `\\xNN` for C0/C1 controls, `\\uXXXX` for zero-width and bidi characters.

    C1 controls (U+0080-U+009F) count too: a terminal may read `\\x9b` as the start of an escape sequence.
    """
    if not ESCAPED.search(text):
        return text
    return "".join(
        ch if ch == "\n" or (escaped := escape_at(text, i)) is None else escaped for i, ch in enumerate(text)
    )


def _lines(text: str) -> list[str]:
    normal = visible(text.replace("\r\n", "\n").replace("\r", "\n"))
    return normal.split("\n")


def dot_text(text: str) -> str:
    """A DOT label or ID value that Graphviz shows literally.

    Backslashes are doubled (DOT's escString would read `\\N`, `\\l`, ... as commands), line breaks
    become DOT's `\\n`, and the result is marked `nohtml` so the graphviz package never mistakes `<...>`
    for an HTML label. The package itself then quotes the value and escapes double quotes, which handles
    DOT keywords (`node`, `edge`, `graph`, ...) too. Every `&` becomes `&amp;`: Graphviz decodes HTML
    entities even in plain labels (a key `&lt;b&gt;` would be drawn as `<b>`), and it copies an
    entity-looking name such as `&bogus;` raw into SVG, where an undefined entity makes the file
    ill-formed XML.
    """
    escaped = [line.replace("\\", "\\\\").replace("&", "&amp;") for line in _lines(text)]
    return graphviz.nohtml("\\n".join(escaped))


def dot_tooltip(text: str) -> str:
    """A DOT `tooltip` value that Graphviz shows literally: as `dot_text`, but with every backslash
    written four times, because Graphviz unescapes a tooltip twice (a doubled `\\\\N` in a tooltip still
    became the node's name)."""
    escaped = [line.replace("\\", "\\\\\\\\").replace("&", "&amp;") for line in _lines(text)]
    return graphviz.nohtml("\\n".join(escaped))


def dot_html(text: str) -> str:
    """Text for inside a DOT HTML-like label (the legend's notes, which name node keys): on one line
    (breaks become ` ⏎ `), invisible characters escaped, and `&`, `<`, `>` as HTML entities, so nothing
    in a key can end the label or open markup (quotes are plain text there)."""
    return html.escape(" ⏎ ".join(_lines(text)), quote=False)


_MERMAID_ENTITIES = {
    '"': "#quot;",
    "#": "#35;",
    "&": "#amp;",
    "<": "#lt;",
    ">": "#gt;",
    "`": "#96;",
    "%": "#37;",
    "\\": "#92;",
    "|": "#124;",
}


def mermaid_text(text: str) -> str:
    """Label text for inside Mermaid double quotes, using Mermaid's `#code;` entities.

    Quotes, `#`, `&`, `<`, `>`, backticks, `%`, backslashes and `|` become entities, so nothing in a
    key can close the label (a node's quotes, an edge label's pipes), start markup or a markdown
    string, or look like an entity; line breaks become
    `<br/>` (the only markup we emit ourselves).
    """
    lines = ["".join(_MERMAID_ENTITIES.get(ch, ch) for ch in line) for line in _lines(text)]
    return "<br/>".join(lines)
