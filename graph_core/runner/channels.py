"""Node input channels over `RunData`: Pregel (ready on any value) and DAG (ready when no predecessor waits).

Both kinds keep written values in `RunData.values`; DAG channels also track per-predecessor control
reports and propagate skips (a node whose control predecessors were all skipped is skipped, and so are
its successors, transitively). Fan-in values are merged with Eino's rules (`values_merge.go`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from graph_core.astream import amerge_streams, aone_chunk, apeek
from graph_core.runner.plan import Plan
from graph_core.runner.run import RunData
from graph_core.stream import PEEK_EMPTY, merge_streams, one_chunk, peek

__all__ = [
    "MergeError",
    "aread",
    "is_ready",
    "merge_values",
    "read",
    "register_values_merge",
    "report_ready",
    "report_skip",
]

T = TypeVar("T")


class MergeError(ValueError):
    """Several values reached one node and cannot be merged."""


_MERGE_FUNCS: dict[type, Callable[[list[Any]], Any]] = {}


def register_values_merge(cls: type[T], fn: Callable[[list[T]], T]) -> None:
    """Eino `RegisterValuesMergeFunc`: values of type `cls` fanning into one node are merged by `fn`.

    It takes precedence over the built-in dict merge, and makes streams of `cls` chunks mergeable
    (they interleave like dict streams); an error `fn` raises fails the run like a merge error.
    """
    _MERGE_FUNCS[cls] = fn


def _check_chunk_types(firsts: Sequence[Any]) -> None:
    kinds = [type(first) for first in firsts if first is not PEEK_EMPTY and first is not None]
    if kinds:
        expected = kinds[0]
        if not issubclass(expected, dict) and expected not in _MERGE_FUNCS:
            raise MergeError(f"(mergeValues | stream type) unsupported chunk type: {expected.__name__}")
        for kind in kinds[1:]:
            if kind is not expected:
                raise MergeError(
                    f"(mergeStream) chunk type mismatch. expect: {expected.__name__}, got: {kind.__name__}"
                )


def _merge_streams(values: Sequence[Any], names: Sequence[str] | None) -> Any:
    """Eino's stream fan-in: chunks must be of one type, and a mergeable one (maps).

    Go knows a stream's chunk type statically; here the first chunk of each source is read to learn it,
    so a mismatch still fails while the next tasks are computed, as in Eino, and not in a reader.
    """
    peeked = [peek(v) for v in values]
    _check_chunk_types([first for first, _ in peeked])
    return merge_streams([stream for _, stream in peeked], names=names)


async def aread(plan: Plan, data: RunData, key: str) -> Any:
    """`read` in an `astream` run: streams are async, so peeking at merged ones is awaited."""
    values = data.values.pop(key, None)
    if plan.dag:
        data.control.pop(key, None)
        if not values:
            return aone_chunk(None)
    assert values
    if len(values) == 1:
        return next(iter(values.values()))
    peeked = [await apeek(v) for v in values.values()]
    _check_chunk_types([first for first, _ in peeked])
    names = list(values) if key in plan.source_eof else None
    return amerge_streams([stream for _, stream in peeked], names=names)


def merge_values(values: Sequence[Any], *, stream: bool, names: Sequence[str] | None = None) -> Any:
    """One value passes through; streams interleave; dicts unite (a repeated key is an error).

    `names` (stream mode) are the sources' node keys when the target wants `SourceEOF` markers.
    """
    if len(values) == 1:
        return values[0]
    if stream:
        return _merge_streams(values, names)
    first = values[0]
    registered = _MERGE_FUNCS.get(type(first)) if _MERGE_FUNCS else None
    if registered is not None:
        for value in values:
            if type(value) is not type(first):
                raise MergeError(
                    "(values merge) field type mismatch. "
                    f"expected: '{type(first).__name__}', got: '{type(value).__name__}'"
                )
        try:
            return registered(list(values))
        except MergeError:
            raise
        except Exception as exc:  # the registered function's error fails the run as a merge error
            raise MergeError(str(exc)) from exc
    if isinstance(first, dict):
        merged: dict[Any, Any] = {}
        for value in values:
            if not isinstance(value, dict):
                raise MergeError(
                    "(values merge map) field type mismatch. "
                    f"expected: '{type(first).__name__}', got: '{type(value).__name__}'"
                )
            for key, item in value.items():
                if key in merged:
                    raise MergeError(f"(values merge map) duplicated key ('{key}') found")
                merged[key] = item
        return merged
    raise MergeError(f"(mergeValues) unsupported type: {type(first).__name__}")


def report_ready(data: RunData, source: str, target: str) -> None:
    data.control.setdefault(target, {})[source] = "ready"


def report_skip(plan: Plan, data: RunData, source: str, target: str, touched: dict[str, None]) -> None:
    """Mark `source` skipped for `target`; if every control predecessor skipped, skip `target` onwards."""
    stack = [(source, target)]
    while stack:
        src, tgt = stack.pop()
        if tgt in data.skipped:
            continue
        reports = data.control.setdefault(tgt, {})
        reports[src] = "skipped"
        touched[tgt] = None
        preds = plan.nodes[tgt].control_predecessors
        if len(reports) == len(preds) and all(s == "skipped" for s in reports.values()):
            data.skipped.add(tgt)
            data.values.pop(tgt, None)
            stack.extend((tgt, nxt) for nxt in reversed(plan.nodes[tgt].control_successors))


def is_ready(plan: Plan, data: RunData, key: str) -> bool:
    if not plan.dag:
        return key in data.values
    if key in data.skipped:
        return False
    preds = plan.nodes[key].control_predecessors
    reports = data.control.get(key)
    return bool(preds) and reports is not None and len(reports) == len(preds)


def read(plan: Plan, data: RunData, key: str, *, stream: bool) -> Any:
    """Take a ready channel's input, emptying it; a DAG node fed no data gets the zero value (None)."""
    values = data.values.pop(key, None)
    if plan.dag:
        data.control.pop(key, None)
        if not values:
            return one_chunk(None) if stream else None
    assert values
    if len(values) == 1:  # one writer: its value passes through (merge_values' first rule, without a list)
        return next(iter(values.values()))
    names = list(values) if stream and key in plan.source_eof else None
    return merge_values(list(values.values()), stream=stream, names=names)
