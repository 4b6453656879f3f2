"""The pieces every page is made of: escaped text, the graph as inline SVG, data for the page's script.

Everything a run holds is a stranger's text (node keys, messages, tool arguments), so it reaches the page
only through `text` (HTML-escaped, quotes included) or `script_json` (JSON that cannot close its
`<script>` element or start a comment). The SVG comes from Graphviz, which escapes what it draws; its
comments (which repeat node ids) are dropped. Nothing is fetched: the CSS and the script are read from
this package and written into the page.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from inspector.recording.valuelist import json_default

__all__ = ["asset", "attr", "script_json", "svg_inline", "text"]

INLINE_DATA_LIMIT = 256 * 1024
"""Data above this size is embedded gzip-compressed (base64): a 10,000-round run's steps compress ~20x."""


def text(value: Any) -> str:
    """`value` as HTML text between tags: every `<`, `>` and `&` escaped, nothing interpreted. Quotes
    mean nothing there and stay as they are (a JSON excerpt is full of them: escaped, a page grew by a
    third); a value inside an attribute goes through `attr`."""
    return html.escape("" if value is None else str(value), quote=False)


def attr(value: Any) -> str:
    """`value` for a double-quoted attribute: quotes escaped too."""
    return html.escape("" if value is None else str(value), quote=True)


_UNSAFE_IN_SCRIPT = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(value: Any) -> tuple[str, str]:
    """`value` as the body of a `<script type="application/json">` element, and its encoding.

    Small data is JSON with `<`, `>` and `&` written as escapes, so no value can end the element
    (`</script>`) or open a comment. Larger data is gzip-compressed and base64-encoded (only
    `[A-Za-z0-9+/=]` characters), which the page's script inflates with the browser's own
    `DecompressionStream`.
    """
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=json_default)
    if len(raw) <= INLINE_DATA_LIMIT:
        return raw.translate(_UNSAFE_IN_SCRIPT), "json"
    packed = gzip.compress(raw.encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii"), "gzip-base64"


_PROLOGUE = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.DOTALL)


def svg_inline(svg: bytes) -> str:
    """Graphviz's SVG document as an element to place in HTML: no XML prologue, doctype or comments."""
    return _PROLOGUE.sub("", svg.decode("utf-8")).strip()


@cache
def asset(name: str) -> str:
    """A file of `inspector/report/assets` (the page's CSS or script), to be written into the page."""
    return resources.files("inspector.report").joinpath("assets", name).read_text(encoding="utf-8")
