"""Eino's `compose/stream_concat_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md).

Eino's `concatStreamReader`/`internal.ConcatItems` are graph_core's `concat_chunks` (`collect` reads a
stream and concatenates it); `RegisterStreamChunkConcatFunc` is `register_stream_chunk_concat`. The
registry is global, so each test registers into a fresh one (monkeypatched) and leaves none behind.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import graph_core.concat
from graph_core import register_stream_chunk_concat
from graph_core.schema import Message
from graph_core.stream import StreamError, collect, concat_chunks


@dataclass
class Item:
    """Eino's `tStreamConcatItemForTest`."""

    s: str


def concat_items(items: list[Item]) -> Item:
    return Item("".join(item.s for item in items))


def sum_ints(items: list[int]) -> int:
    return sum(items)


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_core.concat, "_REGISTERED", {})


def numbers() -> Iterator[str]:
    for i in range(10):
        yield str(i)


def test_concat_registry() -> None:
    """compose/stream_concat_test.go TestConcatRegistry: a registered concat function joins chunks of
    its type."""
    register_stream_chunk_concat(Item, concat_items)
    assert collect(Item(str(i)) for i in range(10)).s == "0123456789"


def test_string_concat() -> None:
    """compose/stream_concat_test.go TestStringConcat: string chunks join."""
    assert collect(numbers()) == "0123456789"


def test_message_concat() -> None:
    """compose/stream_concat_test.go TestMessageConcat: message contents join and their extras are
    concatenated as maps: "key_1" becomes "048", the other keys stay."""

    def messages() -> Iterator[Message]:
        for i in range(10):
            extra = {"key_1": str(i), str(i): str(i)} if i % 4 == 0 else {}
            yield Message.user(str(i), extra=extra)

    last = collect(messages())
    assert last.content == "0123456789"
    assert last.extra == {"key_1": "048", "0": "0", "4": "4", "8": "8"}


def test_map_concat_simple_map() -> None:
    """compose/stream_concat_test.go TestMapConcat/simple map: dict chunks concatenate key by key,
    each key by its type's rule (registered ones included)."""
    register_stream_chunk_concat(Item, concat_items)
    register_stream_chunk_concat(int, sum_ints)
    chunks = [{"string": str(i), "custom_concat": Item(str(9 - i)), "count": i} for i in range(10)]
    last = collect(iter(chunks))
    assert last["string"] == "0123456789"
    assert last["custom_concat"].s == "9876543210"
    assert last["count"] == 45


def test_map_concat_complex_map() -> None:
    """compose/stream_concat_test.go TestMapConcat/complex map: nested dicts concatenate recursively."""
    register_stream_chunk_concat(Item, concat_items)
    register_stream_chunk_concat(int, sum_ints)
    chunks: list[dict[str, Any]] = [
        {
            "string": str(i),
            "deep_map": {
                "message": Message.assistant(str(i)),
                "custom_concat_deep": Item(str(9 - i)),
                "count": i,
            },
            "custom_concat": Item(str(9 - i)),
            "count": i,
        }
        for i in range(10)
    ]
    last = collect(iter(chunks))
    assert last["string"] == "0123456789"
    assert last["count"] == 45
    assert last["deep_map"]["message"].content == "0123456789"
    assert last["deep_map"]["custom_concat_deep"].s == "9876543210"
    assert last["deep_map"]["count"] == 45


def test_concat_error_map_type_not_equal() -> None:
    """compose/stream_concat_test.go TestConcatError/map type not equal: one key's values of two types
    cannot be concatenated."""
    a = {"str": "string_01", "x": "string_in_a"}
    b = {"str": "string_02", "x": 123}
    with pytest.raises(StreamError, match="unexpected slice element type"):
        concat_chunks([a, b])


def test_concat_error_merge_error() -> None:
    """compose/stream_concat_test.go TestConcatError/merge error: a registered function's error is the
    concatenation's error."""

    class ConcatErr:
        pass

    def fail(_: list[ConcatErr]) -> ConcatErr:
        raise ValueError("test error")

    register_stream_chunk_concat(ConcatErr, fail)
    with pytest.raises(ValueError, match="test error"):
        concat_chunks([ConcatErr(), ConcatErr()])


def test_concat_slice_value() -> None:
    """compose/stream_concat_test.go TestConcatSliceValue: values without a concat rule keep the one
    non-zero chunk, or the zero value if all are zero. Python has no zero struct value; `None` is the
    zero chunk here."""

    @dataclass
    class TestStruct:
        a: str = ""

    assert concat_chunks([None, TestStruct("123"), None]) == TestStruct("123")
    assert concat_chunks([None, None, None]) is None
    with pytest.raises(StreamError, match="cannot concat multiple non-zero value"):
        concat_chunks([TestStruct("1"), TestStruct("2")])
