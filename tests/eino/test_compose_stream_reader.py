"""Eino's `compose/stream_reader_test.go`, ported (Eino commit ca0441ac, see docs/eino-conformance.md)."""

from __future__ import annotations

from graph_core.stream import merge_streams


def test_array_stream_merge_unpack_to_equal_type() -> None:
    """compose/stream_reader_test.go TestArrayStreamMerge/unpack_to_equal_type: merging three streams
    yields every chunk of each, then ends. Go merges array-backed readers by concatenating them, so it
    asserts a1+a2+a3 exactly; graph_core's merge interleaves in arrival order (as Eino's merge of live
    streams does), so the port asserts each source's order and the whole content."""
    a1, a2, a3 = [1, 2, 3], [4, 5, 6], [7, 8, 9]
    result = list(merge_streams([iter(a1), iter(a2), iter(a3)]))
    assert sorted(result) == a1 + a2 + a3
    for source in (a1, a2, a3):
        assert [x for x in result if x in source] == source
