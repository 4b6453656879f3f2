"""Text for a console that cannot show every character: ASCII drawing instead of a traceback.

`PYTHONIOENCODING=ascii` (or a Windows code page, an old serial console) gives stdout an encoding
without box-drawing characters and arrows, and `show` and `topology` crashed with
`UnicodeEncodeError` on their first line. Text written through `write_text` is written as it is when
stdout can encode it; otherwise the drawing's characters become ASCII ones of the same width (boxes
`+-|`, dashed lines `.:`, arrows and triangles `<>^v`), so the drawing stays aligned, and what is left
(a recorded `°`, a name in another script) is written as a `\\xNN` / `\\uXXXX` escape. JSON gets
`\\uXXXX` escapes, which keep it valid JSON.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from typing import TextIO

__all__ = ["ascii_drawing", "console_json", "console_text", "write_json", "write_text"]

_SHAPES = {
    "▲": "^",
    "▴": "^",
    "↑": "^",
    "▼": "v",
    "▾": "v",
    "↓": "v",
    "▶": ">",
    "▸": ">",
    "→": ">",
    "◀": "<",
    "◂": "<",
    "←": "<",
    "↩": "<",
    "■": "#",
    "●": "*",
    "○": "o",
    "×": "x",
    "—": "-",
    "–": "-",
    "·": ".",
    "…": "~",
    "⏎": "/",
    "✎": "*",
    "✓": "+",
    "✗": "x",
}


def _box_character(name: str) -> str:
    """The ASCII stand-in for a box-drawing character, from its Unicode name: lines keep their
    direction (dashed ones their dashes, double ones their weight), corners and junctions are `+`."""
    words = set(name.replace("BOX DRAWINGS ", "").split())
    if "DIAGONAL" in words:
        return "X" if "CROSS" in words else "/" if "UPPER RIGHT TO LOWER LEFT" in name else "\\"
    directions = words & {"UP", "DOWN", "LEFT", "RIGHT"}
    across = "HORIZONTAL" in words and not directions and "VERTICAL" not in words
    along = "VERTICAL" in words and not directions and "HORIZONTAL" not in words
    if across or (directions and directions <= {"LEFT", "RIGHT"} and "VERTICAL" not in words):
        return "." if "DASH" in words else "=" if "DOUBLE" in words else "-"
    if along or (directions and directions <= {"UP", "DOWN"} and "HORIZONTAL" not in words):
        return ":" if "DASH" in words else "|"
    return "+"


_ASCII = {code: _box_character(unicodedata.name(chr(code), "")) for code in range(0x2500, 0x2580)} | {
    ord(char): ascii for char, ascii in _SHAPES.items()
}


def ascii_drawing(text: str) -> str:
    """`text` with the drawing's characters (boxes, lines, arrows, triangles, marks) as ASCII of the
    same width; other characters unchanged."""
    return text.translate(_ASCII)


def _encodes(text: str, stream: TextIO) -> bool:
    try:
        text.encode(stream.encoding or "utf-8")
    except UnicodeEncodeError:
        return False
    except LookupError:  # an encoding Python does not know: let the stream itself decide
        return True
    return True


def console_text(text: str, stream: TextIO | None = None) -> str:
    """`text` as `stream` (default stdout) can encode it: unchanged when it can, else with an ASCII
    drawing and the remaining characters it cannot encode as backslash escapes."""
    out: TextIO = stream or sys.stdout
    if _encodes(text, out):
        return text
    encoding = out.encoding or "utf-8"
    return ascii_drawing(text).encode(encoding, "backslashreplace").decode(encoding)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code > 0xFFFF:  # a UTF-16 surrogate pair, as JSON spells characters past the first plane
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def console_json(text: str, stream: TextIO | None = None) -> str:
    """JSON `text` as `stream` (default stdout) can encode it: unchanged when it can, else with every
    character past ASCII as a `\\uXXXX` escape (JSON has non-ASCII characters only inside strings, where
    the escape means the same character)."""
    return text if _encodes(text, stream or sys.stdout) else _NON_ASCII.sub(_json_escape, text)


def write_text(text: str) -> None:
    """Write `text` to stdout as it can show it (`console_text`)."""
    sys.stdout.write(console_text(text))


def write_json(text: str) -> None:
    """Write JSON `text` to stdout as it can show it (`console_json`)."""
    sys.stdout.write(console_json(text))
