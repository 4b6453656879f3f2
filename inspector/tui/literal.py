"""Run data as literal text: the one place the TUI turns user strings into something it can draw.

Everything a run carries (message text, node keys, state values, error messages) is data. It reaches
the screen only as `rich.text.Text` built here, never as a markup string, so `[bold]` or `[/]` shows as
typed. Control characters, ANSI escape sequences included, become visible `\\x1b`-style escapes, so
nothing from a run can move the cursor, recolour the terminal or break a line it does not own; the
rule is `inspector.terminaltext.visible`, the same one the plain-text commands use.
"""

from __future__ import annotations

import json
from typing import Any

from rich.style import Style
from rich.text import Text

from inspector.recording.valuelist import ValueList, json_default
from inspector.terminaltext import visible

__all__ = ["clip", "literal", "one_line", "preview", "visible"]


def clip(text: str, limit: int | None) -> str:
    """`text` cut to `limit` characters with a marker saying how much is hidden (None: no limit)."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… (+{len(text) - limit} chars, x expands)"


PREVIEW_MAX = 20_000
"""A clipped value is serialised only this far (`literal`): a node's input can be a 100,000-message
history, megabytes of JSON of which a pane shows a line."""


def preview(value: Any, *, stop: int | None = None) -> str:
    """A compact one-value rendering: strings as they are, everything else as JSON; with `stop`, JSON
    longer than that is cut just after it (the rest is never built)."""
    if isinstance(value, str):
        return value
    try:
        if stop is None:
            return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=json_default)
        encoder = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), default=json_default)
        chunks: list[str] = []
        size = 0
        for chunk in encoder.iterencode(value):  # a generator: stopping early skips the rest
            chunks.append(chunk)
            size += len(chunk)
            if size > stop:
                break
        return "".join(chunks)
    except (TypeError, ValueError):
        return repr(value)


def literal(
    value: Any, *, style: str | Style = "", limit: int | None = None, multiline: bool = False
) -> Text:
    """A `Text` showing `value` literally (see the module docstring), clipped to `limit` characters.
    A value whose JSON runs past `PREVIEW_MAX` is not serialised further: its clip marker then says
    how much is hidden at least."""
    if limit is None or isinstance(value, str):
        return Text(visible(clip(preview(value), limit), keep_newlines=multiline), style=style)
    stop = max(limit, PREVIEW_MAX)
    text = preview(_bounded(value, stop), stop=stop)
    if len(text) <= stop:
        return Text(visible(clip(text, limit), keep_newlines=multiline), style=style)
    shown = f"{text[:limit]}… (+more than {stop - limit} chars, x expands)"
    return Text(visible(shown, keep_newlines=multiline), style=style)


def _bounded(value: Any, stop: int) -> Any:
    """`value` with each `ValueList` that its first `stop` characters of JSON reach cut after the
    items that run past them (the JSON is the same that far). A long history is read from the file
    item by item when first used: writing it whole, as `json_default` does, would read 100,000
    messages for one line. What lies past `stop` is left as it is (the preview never writes it)."""
    return _cut(value, stop)[0]


def _cut(value: Any, room: int) -> tuple[Any, int]:
    """(`value` cut as `_bounded` says, at most how many characters of JSON it takes): `room` is at
    least what is left of the preview where `value` starts, and the count never exceeds the truth."""
    if room < 0:  # starts past the preview's end: never written
        return value, 0
    if isinstance(value, ValueList | list):
        items: list[Any] = []
        size = 1
        for i in range(len(value)):  # pyright: ignore[reportUnknownArgumentType]
            item, n = _cut(value[i], room - size - (2 if i else 0))
            items.append(item)
            size += n + (2 if i else 0)
            if size > room:
                if type(value) is list:
                    items.extend(value[i + 1 :])  # pyright: ignore[reportUnknownArgumentType]
                return items, size
        return (
            items
            if type(value) is ValueList or any(a is not b for a, b in zip(items, value, strict=True))
            else value
        ), size + 1  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
    if type(value) is dict:
        out: dict[Any, Any] = {}
        size = 1
        changed = False
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            if size > room:
                out[key] = item
                continue
            head = len(_json(key)) + 2 + (2 if out else 0)
            new, n = _cut(item, room - size - head)
            changed = changed or new is not item
            out[key] = new
            size += head + n
        return (out if changed else value), size + 1
    return value, len(_json(value))


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=json_default)
    except (TypeError, ValueError):
        return repr(value)


def one_line(value: Any, *, limit: int | None = 120, style: str | Style = "") -> Text:
    """`literal` on a single line: newlines shown as `⏎`."""
    return literal(value, style=style, limit=limit, multiline=False)
