"""A plain `Message` as JSON bytes, written in Python: pydantic-core's output, byte for byte.

Each new message in a run is written once, as a `value` line holding
`Message.__pydantic_serializer__.to_json(message, exclude_defaults=True)`. With warm caches that call
is as cheap as anything Python does, but it runs the Rust serializer of the message model (and the
default factories of `tool_calls` and `extra`, to compare against them), code the engine never runs.
A recorded agent waiting on its model between steps meets it with cold caches on every step: in
`python3 -m bench recording`'s 1 ms latency run, it cost about as much as the rest of the step's
encoding. Here the same bytes come from the interpreter (already running) and `json`'s C string
escaper, which escapes exactly what serde_json escapes (`"`, `\\`, control characters, `\\u00xx` in
lower case; everything else as UTF-8).

`message_json` writes the messages it can vouch for (every field of its exact declared type, no
`extra`) and returns None for anything else, which the caller then hands to pydantic-core. Tests
compare the two on generated messages and on every character.
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any

from graph_core.schema import Message, TokenUsage, ToolCall

__all__ = ["message_json"]

_str = str
_int = int


def message_json(message: Message) -> bytes | None:
    """`Message.__pydantic_serializer__.to_json(message, exclude_defaults=True)`, or None when the
    message holds anything but its plain field types (or an `extra`): the caller serialises those."""
    fields = message.__dict__
    role = fields["role"]
    content = fields["content"]
    if type(role) is not _str or type(content) is not _str:
        return None
    out = ['{"role":', encode_basestring(role)]
    if content:
        out += (',"content":', encode_basestring(content))
    calls = fields["tool_calls"]
    if type(calls) is not list:
        return None
    if calls:
        written = _calls(calls)  # pyright: ignore[reportUnknownArgumentType]
        if written is None:
            return None
        out += (',"tool_calls":', written)
    for key, name in _OPTIONAL:
        value = fields[name]
        if value is not None:
            if type(value) is not _str:
                return None
            out += (key, encode_basestring(value))
    reasoning = fields["reasoning_content"]
    if type(reasoning) is not _str:
        return None
    if reasoning:
        out += (',"reasoning_content":', encode_basestring(reasoning))
    finish = fields["finish_reason"]
    if finish is not None:
        if type(finish) is not _str:
            return None
        out += (',"finish_reason":', encode_basestring(finish))
    usage = fields["usage"]
    if usage is not None:
        written = _usage(usage)
        if written is None:
            return None
        out += (',"usage":', written)
    extra = fields["extra"]
    if type(extra) is not dict or extra:
        return None
    parts = fields.get("user_input_multi_content")
    if parts:  # multi-part content (an enhanced tool's result): pydantic-core writes it
        return None
    out.append("}")
    try:
        return "".join(out).encode()
    except UnicodeEncodeError:  # a lone surrogate: whatever pydantic-core makes of it
        return None


_OPTIONAL = ((',"tool_call_id":', "tool_call_id"), (',"tool_name":', "tool_name"), (',"name":', "name"))


def _calls(calls: list[Any]) -> str | None:
    out: list[str] = []
    for call in calls:
        if type(call) is not ToolCall or call.__pydantic_extra__:
            return None
        fields = call.__dict__
        parts: list[str] = []
        for key, name in _CALL_TEXT:
            value = fields[name]
            if type(value) is not _str:
                return None
            if value:
                parts.append(key + encode_basestring(value))
        index = fields["index"]
        if index is not None:
            if type(index) is not _int:
                return None
            parts.append(f'"index":{index}')
        kind = fields["type"]
        if type(kind) is not _str:
            return None
        if kind != "function":
            parts.append('"type":' + encode_basestring(kind))
        out.append("{" + ",".join(parts) + "}")
    return "[" + ",".join(out) + "]"


_CALL_TEXT = (('"id":', "id"), ('"name":', "name"), ('"arguments":', "arguments"))


def _usage(usage: Any) -> str | None:
    if type(usage) is not TokenUsage or usage.__pydantic_extra__:
        return None
    fields = usage.__dict__
    parts: list[str] = []
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = fields[name]
        if type(value) is not _int:
            return None
        if value != 0:
            parts.append(f'"{name}":{value}')
    return "{" + ",".join(parts) + "}"
