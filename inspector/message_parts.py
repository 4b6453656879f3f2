"""Multi-part content as a person reads it: `[image: image/png, 8 bytes]`, never the base64 itself.

A message's `user_input_multi_content` (an enhanced tool's result, a user's image) and a tool's
`ToolResult` (`{"parts": [...]}`) are recorded as JSON-like values. Their text parts read as text; a
media part reads as one short label: its kind, then its MIME type and size for inline (base64) data, or
its URL. A base64 string longer than the recorder's `max_str` is stored cut short
(`{"$truncated": "str", "length": N, ...}`): its size is worked out from the recorded length. A `data:`
URL is inline data too. `inspector show` and the TUI's messages pane both read parts through here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["media_label", "parts_of", "parts_text", "tool_result_parts", "with_media_labels"]

_KINDS = {
    "image_url": "image",
    "audio_url": "audio",
    "video_url": "video",
    "file_url": "file",
    "image": "image",
    "audio": "audio",
    "video": "video",
    "file": "file",
}
_URL_SHOWN = 60


def _decoded_size(encoded_length: int, tail: str = "") -> int:
    """Bytes in base64 data of `encoded_length` characters (`tail`: its last characters, for padding)."""
    return max(0, encoded_length * 3 // 4 - tail[-2:].count("="))


def _inline_size(data: Any) -> str | None:
    """`8 bytes`, or `~20001 bytes` for data stored cut short (its padding, at the end, is not there)."""
    if isinstance(data, str):
        return f"{_decoded_size(len(data), data)} bytes"
    if isinstance(data, dict) and data.get("$truncated") == "str":  # pyright: ignore[reportUnknownMemberType]
        length = data.get("length")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        return f"~{_decoded_size(length)} bytes" if isinstance(length, int) else None
    return None


def media_label(kind: str, media: Any) -> str:
    """`[image: image/png, 8 bytes]`, `[image: https://...]` or `[image]` for one media part."""
    if not isinstance(media, dict):
        return f"[{kind}]"
    fields: dict[str, Any] = media  # pyright: ignore[reportUnknownVariableType]
    mime = fields.get("mime_type") if isinstance(fields.get("mime_type"), str) else ""
    name = fields.get("name")
    details: list[str] = [name] if isinstance(name, str) and name else []
    url = fields.get("url")
    size = _inline_size(fields.get("base64_data"))
    if isinstance(url, str) and url.startswith("data:"):  # data:[<mime>][;base64],<data>
        header, _, data = url.partition(",")
        mime = mime or header[5:].split(";")[0]
        size = f"{_decoded_size(len(data), data) if header.endswith(';base64') else len(data)} bytes"
        url = None
    if mime:
        details.append(mime)
    if size is not None:
        details.append(size)
    elif isinstance(url, str) and url:
        details.append(url if len(url) <= _URL_SHOWN else url[: _URL_SHOWN - 3] + "...")
    return f"[{kind}: {', '.join(details)}]" if details else f"[{kind}]"


def _part_text(part: Any) -> str | None:
    if not isinstance(part, dict):
        return None
    fields: dict[str, Any] = part  # pyright: ignore[reportUnknownVariableType]
    kind = fields.get("type")
    if kind == "text":
        text = fields.get("text")
        return text if isinstance(text, str) else ""
    short = _KINDS.get(kind) if isinstance(kind, str) else None
    if short is None:
        return f"[{kind}]" if isinstance(kind, str) else None
    return media_label(short, fields.get(short))


def parts_of(message: Any) -> list[str]:
    """Each part of a recorded message's multi-part content as text (text parts as they are, media
    parts as labels); [] when it has none."""
    if not isinstance(message, dict):
        return []
    parts = message.get("user_input_multi_content")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(parts, list):
        return []
    return [text for part in parts if (text := _part_text(part)) is not None]  # pyright: ignore[reportUnknownVariableType]


def tool_result_parts(value: Any) -> list[str] | None:
    """A recorded `ToolResult` (`{"parts": [...]}`, what an enhanced tool returned) as `parts_of` reads
    a message's parts; None when `value` is not one."""
    if not isinstance(value, dict) or set(value) != {"parts"}:  # pyright: ignore[reportUnknownArgumentType]
        return None
    parts = value["parts"]  # pyright: ignore[reportUnknownVariableType]
    if not isinstance(parts, list):
        return None
    return [text for part in parts if (text := _part_text(part)) is not None]  # pyright: ignore[reportUnknownVariableType]


def parts_text(parts: list[str]) -> str:
    """The parts on one line: `Hangzhou: rain [image: image/png, 8 bytes]`."""
    return " ".join(part for part in parts if part)


_WALKED = 200
"""Items of a list `with_media_labels` looks into: a value shown on screen is cut long before."""


def _labelled_part(part: Any) -> Any:
    if not isinstance(part, dict):
        return part
    fields: dict[str, Any] = part  # pyright: ignore[reportUnknownVariableType]
    kind = fields.get("type")
    short = _KINDS.get(kind) if isinstance(kind, str) else None
    if short is None or not isinstance(fields.get(short), dict):
        return part
    return {**fields, short: media_label(short, fields[short])}


def with_media_labels(value: Any, depth: int = 0) -> Any:
    """`value` (a recorded node input or output) with each medium of a message's parts, or of a tool's
    `ToolResult`, replaced by its label: what a screen shows instead of the base64 data. Plain lists are
    looked into as far as their first items (and messages in dicts a few levels deep); anything else
    is returned as it is."""
    if depth > 4:
        return value
    if type(value) is list:
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        head = [with_media_labels(item, depth + 1) for item in items[:_WALKED]]
        return head + items[_WALKED:] if any(a is not b for a, b in zip(head, items, strict=False)) else items
    if type(value) is not dict:
        return value
    fields: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    for key in ("user_input_multi_content", "parts"):
        parts = fields.get(key)
        if isinstance(parts, list) and parts:
            return {**fields, key: [_labelled_part(p) for p in parts]}  # pyright: ignore[reportUnknownVariableType]
    changed = {k: with_media_labels(v, depth + 1) for k, v in fields.items() if type(v) in (list, dict)}
    changed = {k: v for k, v in changed.items() if v is not fields[k]}
    return {**fields, **changed} if changed else value
