"""The one place user text (node keys, names, graph names) is made safe for DOT and for Mermaid.

Node keys are data: a key may contain quotes, backslashes, colons, braces, `<...>`, newlines, non-ASCII
or a DOT/Mermaid keyword. Exporters therefore never use keys as identifiers (they generate `n0`, `n1`,
...) and show keys only through these functions, so every key reaches the picture literally.
"""

from __future__ import annotations

import re
import unicodedata

import graphviz

__all__ = ["ESCAPED", "dot_text", "dot_tooltip", "escape_at", "mermaid_text", "visible"]

_LINE_BREAKS = ("\r\n", "\r", "\n")

_INVISIBLE = frozenset([*range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF])
"""Zero-width characters (U+200B-U+200F), bidi embeddings/overrides (U+202A-U+202E), bidi isolates
(U+2066-U+2069) and the BOM: they draw nothing, and the bidi ones reorder what is drawn around them."""

ESCAPED = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
"""Matches every character `escape_at` may escape (and newlines and tabs): text without a match is
shown as it is, the usual case, found without a call per character."""

_ZWJ = "\u200d"
_EMOJI_TAIL = frozenset([0xFE0F, *range(0x1F3FB, 0x1F400)])  # emoji presentation, skin tones


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


def escape_at(text: str, i: int) -> str | None:
    """The escape that shows `text[i]` (`\\xNN` or `\\uXXXX`), or None when it draws as itself.

    Takes the whole text because a joiner (U+200D) between two pictographs is part of one visible
    glyph (a family emoji) and stays; anywhere else it hides, like the other zero-width characters.
    Shared with the TUI's own escaping so both draw the same characters the same way.
    """
    ch = text[i]
    code = ord(ch)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return f"\\x{code:02x}"
    if code in _INVISIBLE and not (ch == _ZWJ and _joins_pictographs(text, i)):
        return f"\\u{code:04x}"
    return None


def _joins_pictographs(text: str, i: int) -> bool:
    before = i - 1
    while before >= 0 and ord(text[before]) in _EMOJI_TAIL:
        before -= 1
    after = i + 1
    return (
        before >= 0
        and after < len(text)
        and unicodedata.category(text[before]) == "So"
        and unicodedata.category(text[after]) == "So"
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
