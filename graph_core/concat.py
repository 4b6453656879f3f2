"""How pieces add up: Eino's rules for joining chunks into one value (its Appendix A, `ConcatItems`).

This module knows no type above it. Strings, numbers and dicts follow the built-in rules written here;
a type of graph_core that adds up by a rule of its own (a `Message`) registers that rule from its own
module with `add_rule`, and users register theirs with `register_stream_chunk_concat`. So `schema`
(messages, which concatenate their `extra` maps with these rules) and `stream` (which concatenates what
streams carry) both import this module and neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from graph_core.errors import StreamError

__all__ = ["add_rule", "concat_values", "register_stream_chunk_concat"]

T = TypeVar("T")
Join = Callable[[list[Any]], Any]

_REGISTERED: dict[type, Join] = {}
_RULES: list[tuple[type, Join]] = []
_ITEMWISE: tuple[type, ...] = (type(None),)


def register_stream_chunk_concat(cls: type[T], fn: Callable[[list[T]], T]) -> None:
    """Eino `RegisterStreamChunkConcatFunc`: chunks of type `cls` are joined by `fn(chunks)`.

    It takes precedence over the built-in rules of `concat_values` (also for values inside dicts),
    so a node's own output type can say how its streamed pieces add up; an error `fn` raises is the
    concatenation's error.
    """
    _REGISTERED[cls] = fn


def add_rule(cls: type[T], fn: Callable[[list[T]], T], *, itemwise_in_lists: bool = False) -> None:
    """A graph_core type's own rule, checked after users' registrations and before the built-in ones.

    With `itemwise_in_lists`, lists of that type (None entries allowed) concatenate index by index, as
    Eino joins `[]*schema.Message` chunks.
    """
    global _ITEMWISE
    _RULES.append((cls, fn))
    if itemwise_in_lists:
        _ITEMWISE = (*_ITEMWISE, cls)


def _check_same_type(key: Any, values: Sequence[Any]) -> None:
    """Eino concatenates a map key's values as one typed slice: they must all be of one type."""
    kinds = [type(v) for v in values if v is not None]
    for kind in kinds[1:]:
        if kind is not kinds[0]:
            raise StreamError(
                f"unexpected slice element type. Got {kinds[0].__name__}, expected {kind.__name__} "
                f"(concatenating key {key!r})"
            )


def _concat_itemwise(chunks: Sequence[Sequence[Any]]) -> list[Any]:
    width = len(chunks[0])
    if any(len(c) != width for c in chunks):
        raise StreamError("unexpected array length in message array concat: chunks have different lengths")
    result: list[Any] = []
    for i in range(width):
        parts = [c[i] for c in chunks if c[i] is not None]
        result.append(concat_values(parts) if parts else None)
    return result


def concat_values(chunks: Sequence[Any]) -> Any:
    """Join chunks into one value with Eino's rules.

    A function registered for the chunks' type (`register_stream_chunk_concat`) decides first, then a
    graph_core type's own rule (messages: `concat_messages`); lists of such a type concatenate index by
    index (None entries ignored); strings join; numbers and bools keep the last value; dicts concatenate
    key by key, recursively (a key's values must be of one type); anything else may have at most one
    non-None chunk.
    """
    if not chunks:
        raise StreamError("stream reader is empty, concat fail")
    if len(chunks) == 1:
        return chunks[0]
    first = next((c for c in chunks if c is not None), None)
    if _REGISTERED:
        registered = _REGISTERED.get(type(first))
        if registered is not None:
            return registered(list(chunks))
    for cls, join in _RULES:
        if isinstance(first, cls):
            return join([c for c in chunks if c is not None])
    if isinstance(first, str):
        return "".join(c for c in chunks if c is not None)
    if isinstance(first, bool | int | float):
        return chunks[-1]
    if isinstance(first, list) and all(
        isinstance(item, _ITEMWISE) for c in chunks if isinstance(c, list) for item in c
    ):
        return _concat_itemwise([c for c in chunks if c is not None])
    if isinstance(first, dict):
        grouped: dict[Any, list[Any]] = {}
        for chunk in chunks:
            if chunk is None:
                continue
            for key, value in chunk.items():
                grouped.setdefault(key, []).append(value)
        for key, values in grouped.items():
            if len(values) > 1:
                _check_same_type(key, values)
        return {key: concat_values(values) for key, values in grouped.items()}
    present = [c for c in chunks if c is not None]
    if len(present) > 1:
        raise StreamError(f"cannot concat multiple non-zero value of type {type(first).__name__}")
    return present[0] if present else None
