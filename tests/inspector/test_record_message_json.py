"""`message_json` writes exactly pydantic-core's JSON of a message, or leaves the message to it.

The recorder writes each new message's `value` line with `message_json` (Python) instead of the
message model's Rust serializer, which is slow with cold caches; run files must not change by a byte.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from graph_core.schema import Message, TokenUsage, ToolCall, unvalidated
from inspector.recording.encode import Encoder
from inspector.recording.message_json import message_json

_pydantic = Message.__pydantic_serializer__.to_json


def _expected(message: Message) -> bytes:
    return _pydantic(message, exclude_defaults=True, warnings=False)


def _text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.2:
        return ""
    if kind < 0.3:
        return "function"
    pools = [(0, 0x20), (0x20, 0x80), (0x80, 0x800), (0x800, 0xD800), (0xE000, 0x110000)]
    chars = []
    for _ in range(rng.randrange(1, 24)):
        low, high = rng.choice(pools)
        chars.append(chr(rng.randrange(low, high)))
    return "".join(chars)


def _message(rng: random.Random) -> Message:
    calls = [
        ToolCall(
            _text(rng),
            _text(rng),
            _text(rng),
            rng.choice([None, 0, 3, -1, 10**20]),
            type=rng.choice(["function", _text(rng)]),
        )
        for _ in range(rng.randrange(0, 3))
    ]
    usage = rng.choice(
        [
            None,
            TokenUsage(
                prompt_tokens=rng.randrange(0, 3),
                completion_tokens=rng.randrange(0, 3),
                total_tokens=rng.choice([0, 5, 10**19]),
            ),
        ]
    )
    return Message(
        rng.choice(["user", "assistant", "tool", "system"]),
        _text(rng),
        tool_calls=calls,
        tool_call_id=rng.choice([None, _text(rng)]),
        tool_name=rng.choice([None, _text(rng)]),
        name=rng.choice([None, _text(rng)]),
        reasoning_content=_text(rng),
        finish_reason=rng.choice([None, _text(rng)]),
        usage=usage,
    )


def test_generated_messages_are_written_as_pydantic_core_writes_them() -> None:
    rng = random.Random(15)
    for _ in range(3000):
        message = _message(rng)
        assert message_json(message) == _expected(message), repr(message)


def test_every_character_is_escaped_as_pydantic_core_escapes_it() -> None:
    # serde_json and json's C escaper agree on what to escape (quote, backslash, control characters,
    # lower-case \u00xx) and leave everything else, DEL and U+2028 included, as UTF-8
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    for start in range(0, len(chars), 4096):
        message = Message("user", "".join(chars[start : start + 4096]))
        assert message_json(message) == _expected(message), start


def _unusual() -> list[Message]:
    """Messages holding what their field types do not declare (built without validation) or extras."""
    base: dict[str, Any] = vars(Message("user", "x"))
    odd = [
        {"content": 5},
        {"role": None},
        {"tool_calls": ("not", "a list")},
        {"tool_calls": [{"id": "a dict, not a ToolCall"}]},
        {"tool_call_id": 7},
        {"reasoning_content": None},
        {"finish_reason": 1.5},
        {"usage": {"prompt_tokens": 1}},
        {"extra": {"k": "v"}},
        {"content": "lone \ud800 surrogate"},
    ]
    out = [unvalidated(Message, {**base, **change}, {"role", "content"}) for change in odd]
    out.append(
        unvalidated(
            Message,
            {**base, "tool_calls": [unvalidated(ToolCall, {**vars(ToolCall()), "index": True}, set())]},
            set(),
        )
    )
    out.append(
        unvalidated(
            Message,
            {**base, "usage": unvalidated(TokenUsage, {**vars(TokenUsage()), "total_tokens": 1.0}, set())},
            set(),
        )
    )
    return out


@pytest.mark.parametrize("message", _unusual(), ids=lambda m: repr(vars(m))[:60])
def test_messages_holding_other_types_are_left_to_pydantic_core(message: Message) -> None:
    assert message_json(message) is None


def test_the_encoder_writes_value_lines_from_message_json() -> None:
    message = Message.assistant("hi", tool_calls=[ToolCall("c1", "lookup", '{"n": 1}')])
    encoder = Encoder()
    encoder.encode(message)
    written = message_json(message)
    assert written is not None
    assert encoder.take_definition_bytes() == b'{"kind":"value","value":%b}\n' % written
