"""Stream helpers (Appendix A): copy, convert with skip, merge, concat."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from graph_core.schema import Message, ToolCall
from graph_core.stream import (
    NO_VALUE,
    StreamError,
    concat_chunks,
    convert_stream,
    copy_stream,
    iterate_async,
    merge_streams,
)


def test_copies_are_independent_readers() -> None:
    a, b, c = copy_stream(iter(range(5)), 3)
    assert next(a) == 0
    assert list(b) == [0, 1, 2, 3, 4]
    assert list(a) == [1, 2, 3, 4]
    assert list(c) == [0, 1, 2, 3, 4]


def test_copy_closes_source_when_all_copies_closed() -> None:
    closed = threading.Event()

    def source() -> Iterator[int]:
        try:
            yield from range(10)
        finally:
            closed.set()

    a, b = copy_stream(source(), 2)
    assert next(a) == 0
    a.close()  # type: ignore[attr-defined]
    assert not closed.is_set()
    assert next(b) == 0
    b.close()  # type: ignore[attr-defined]
    assert closed.is_set()
    with pytest.raises(StreamError, match="recv after stream closed"):
        next(a)


def test_copy_delivers_producer_errors_to_every_reader() -> None:
    def source() -> Iterator[int]:
        yield 1
        raise ValueError("broken")

    a, b = copy_stream(source(), 2)
    for reader in (a, b):
        assert next(reader) == 1
        with pytest.raises(ValueError, match="broken"):
            next(reader)


def test_convert_drops_no_value() -> None:
    assert list(convert_stream(iter([1, 2, 3, 4]), lambda x: NO_VALUE if x % 2 else x * 10)) == [20, 40]


def test_merge_interleaves_everything() -> None:
    merged = list(merge_streams([iter([1, 2]), iter([3]), iter([])]))
    assert sorted(merged) == [1, 2, 3]


def test_merge_raises_source_errors() -> None:
    def bad() -> Iterator[int]:
        raise RuntimeError("source failed")
        yield 0

    with pytest.raises(RuntimeError, match="source failed"):
        list(merge_streams([iter([1]), bad()]))


def test_concat_rules() -> None:
    with pytest.raises(StreamError, match="stream reader is empty, concat fail"):
        concat_chunks([])
    obj = object()
    assert concat_chunks([obj]) is obj
    assert concat_chunks(["a", "b", "c"]) == "abc"
    assert concat_chunks([1, 5, 2]) == 2
    assert concat_chunks([True, False]) is False
    assert concat_chunks([{"a": "x", "n": 1}, {"a": "y"}, {"b": "z", "n": 3}]) == {
        "a": "xy",
        "n": 3,
        "b": "z",
    }
    assert concat_chunks([None, obj, None]) is obj
    with pytest.raises(StreamError, match="cannot concat multiple non-zero value of type object"):
        concat_chunks([obj, object()])


def test_concat_messages_merges_tool_call_deltas() -> None:
    chunks = [
        Message.assistant("Hel", tool_calls=[ToolCall(id="c1", name="get", arguments='{"ci', index=0)]),
        Message.assistant("lo", tool_calls=[ToolCall(arguments='ty": 1}', index=0)]),
    ]
    merged = concat_chunks(chunks)
    assert merged.content == "Hello"
    assert [(c.id, c.name, c.arguments) for c in merged.tool_calls] == [("c1", "get", '{"city": 1}')]


def test_concat_message_lists_index_aligned() -> None:
    t = Message.tool
    chunks = [
        [t("a", tool_call_id="1"), None],
        [None, t("b", tool_call_id="2")],
        [t("c", tool_call_id="1"), None],
    ]
    merged = concat_chunks(chunks)
    assert [m.content for m in merged] == ["ac", "b"]
    with pytest.raises(StreamError, match="different lengths"):
        concat_chunks([[t("a")], [t("b"), None]])


def test_iterate_async_bridges_async_generators() -> None:
    async def agen() -> object:
        for i in range(3):
            yield i

    assert list(iterate_async(agen())) == [0, 1, 2]  # type: ignore[arg-type]
