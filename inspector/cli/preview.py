"""Previews: a value on one line of at most `PREVIEW_WIDTH` characters, as `inspector show` prints it.

A message reads `role: text -> tool(arguments)` (multi-part content after its text, media as labels:
`tool: [image: image/png, 8 bytes]`), a string as its `repr`, an enhanced tool's `ToolResult` as its
parts, anything else as JSON; then
whitespace runs become one space, unprintable characters are escaped (`plain.one_line`) and a long
preview is cut with `...`. `Previews` remembers each message's preview, since a long run's timeline
shows each message several times.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.cli.plain import one_line
from inspector.message_parts import parts_of, parts_text, tool_result_parts
from inspector.recording.valuelist import json_default

__all__ = ["PREVIEW_WIDTH", "Previews", "preview", "preview_line"]

PREVIEW_WIDTH = 80


def preview(value: Any) -> str:
    """`value` on one line (see the module's docstring)."""
    if isinstance(value, dict) and "role" in value:
        role = value.get("role")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        text = str(value.get("content") or "")  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        parts = parts_text(parts_of(value))
        if parts:
            text = f"{text} {parts}" if text else parts
        calls = value.get("tool_calls")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        # A hand-edited file may hold anything here: only call objects are named.
        calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []  # pyright: ignore[reportUnknownVariableType]
        if calls:
            names = ", ".join([f"{c.get('name')}({c.get('arguments', '')})" for c in calls])  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            text = f"{text} -> {names}" if text else f"-> {names}"
        out = f"{role}: {text}"
    elif isinstance(value, str):
        out = repr(value)
    elif (result := tool_result_parts(value)) is not None:
        out = parts_text(result)
    else:
        out = json.dumps(value, ensure_ascii=False, default=json_default)
    return preview_line(out)


_LOOKED_AT = 2 * PREVIEW_WIDTH
"""Characters of a long text a preview is made from first: enough unless most of them are whitespace."""
_WIDEST_ESCAPE = len(" ⏎ ") + len("\\u200d")  # what one character may become, with a margin


def _on_one_line(text: str) -> str:
    """`one_line(" ".join(text.split()))`, without splitting or escaping the usual text, already on one
    line: in printable text the only whitespace is the space (every other whitespace character is
    unprintable) and `one_line` leaves printable text as it is, so printable text without two spaces in
    a row or at either end is unchanged (C-speed checks, one pass over the text)."""
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return one_line(" ".join(text.split()))


def preview_line(text: str) -> str:
    """`text` on one line, whitespace runs as one space, cut to `PREVIEW_WIDTH` characters with `...`.

    A long text (a tool's result, a document) is previewed from its first `_LOOKED_AT` characters
    when they make a preview on their own: their line is the start of the whole text's line (spaces
    collapse and characters are escaped one by one), except that the last of them may escape
    differently without the character after it, so their line must reach past the cut by the widest
    escape."""
    if len(text) > _LOOKED_AT:
        head = _on_one_line(text[:_LOOKED_AT])
        if len(head) >= PREVIEW_WIDTH + _WIDEST_ESCAPE:
            return head[: PREVIEW_WIDTH - 3] + "..."
    out = _on_one_line(text)
    return out if len(out) <= PREVIEW_WIDTH else out[: PREVIEW_WIDTH - 3] + "..."


class Previews:
    """`preview`, worked out once per message object: a recorded message is one object (the value
    table's) wherever it appears, so a long run's timeline would otherwise preview each message three
    times (said by its node, appended to the state a step later, in the conversation at the end)."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, str]] = {}  # by id: the message itself (keeps the id), its text

    def __call__(self, value: Any) -> str:
        if type(value) is not dict or "role" not in value:
            return preview(value)
        known = self._known.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        text = preview(value)
        self._known[id(value)] = (value, text)
        return text
