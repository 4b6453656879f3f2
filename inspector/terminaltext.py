"""The one escaping rule for text a run puts on a terminal: `show`, `record`'s progress, the TUI.

Node keys, message text and error messages come from user code and models. Shown raw, an ESC would let
a recording drive the terminal, a newline would break a one-line-per-step layout, a bidi override
(U+202E) would reorder the rest of the row and a zero-width space (U+200B) would hide. Every command
that prints run data goes through `visible`, so each of these shows the same way everywhere.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["ESCAPED", "escape_at", "visible"]

_INVISIBLE = frozenset([*range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF])
"""Zero-width characters (U+200B-U+200F), bidi embeddings/overrides (U+202A-U+202E), bidi isolates
(U+2066-U+2069) and the BOM: they draw nothing, and the bidi ones reorder what is drawn around them."""

ESCAPED = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")
"""Matches every character `escape_at` may escape (and newlines and tabs): text without a match is
shown as it is, the usual case, found without a call per character."""

_ZWJ = "\u200d"
_EMOJI_TAIL = frozenset([0xFE0F, *range(0x1F3FB, 0x1F400)])  # emoji presentation, skin tones


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control character (ESC, BEL, CR, DEL, C1 ...) replaced by a `\\xNN` escape,
    and every zero-width or bidi character (U+200B, U+202E, U+2066, U+FEFF, ...) by a `\\uXXXX` one, as
    is a lone surrogate (the byte `\\x9b` in a command-line argument arrives as U+DC9B, and would be
    written back as that byte).

    Tabs become four spaces; a CRLF counts as one newline; newlines stay only when `keep_newlines`,
    else they show as ` ⏎ `.
    """
    if text.isprintable() or not ESCAPED.search(text):  # every character ESCAPED matches is unprintable
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
    if 0xD800 <= code < 0xE000:  # a lone surrogate: an undecodable byte of a file name or argument
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
