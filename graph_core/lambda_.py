"""What a node can execute: Eino's four paradigms, with the missing ones derived as Eino derives them.

`Lambda` is the user-facing bundle (any of invoke/stream/collect/transform, each sync or async).
`Executable` is the engine's view of any component (lambda, chat model, tools node): it answers the two
questions the runner asks, "invoke this value" (invoke mode) and "transform this stream" (stream mode),
in sync or async form, falling back along Eino's preference order (`runnable.go`):

- invoke: own, else stream + concat, else collect on a 1-chunk stream, else transform + concat.
- transform: own, else stream on the concatenated input, else collect as a 1-chunk output, else invoke on
  the concatenated input as a 1-chunk output.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from graph_core.stream import collect, concat_chunks, iterate_async, one_chunk, run_coroutine

__all__ = ["Executable", "Lambda"]

Fn = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Lambda:
    """A node body with any subset of Eino's paradigms; each may be a plain function or `async def`.

    `invoke(x) -> y`, `stream(x) -> Iterator[y]`, `collect(Iterator[x]) -> y`,
    `transform(Iterator[x]) -> Iterator[y]`. Async generators are accepted where iterators are returned.
    """

    invoke: Fn | None = None
    stream: Fn | None = None
    collect: Fn | None = None
    transform: Fn | None = None

    def __post_init__(self) -> None:
        if not any((self.invoke, self.stream, self.collect, self.transform)):
            raise ValueError("Lambda needs at least one of invoke, stream, collect or transform")


def _is_async(fn: Fn) -> bool:
    return inspect.iscoroutinefunction(fn) or (
        callable(fn) and inspect.iscoroutinefunction(type(fn).__call__)
    )


def _as_iterator(result: Any) -> Iterator[Any]:
    if isinstance(result, Iterator):
        return result
    if hasattr(result, "__anext__"):
        return iterate_async(result)
    return iter(result)


@dataclass(frozen=True, slots=True)
class Executable:
    """Sync and async entry points of one component; `None` where the component lacks that paradigm.

    Sync slots hold plain callables; `a*` slots hold `async def` callables. A component may provide
    both (a chat model with `generate` and `agenerate`): sync drivers use the sync one, async drivers
    the async one, each falling back to the other.
    """

    invoke: Fn | None = None
    stream: Fn | None = None
    collect: Fn | None = None
    transform: Fn | None = None
    ainvoke: Fn | None = None
    astream: Fn | None = None

    @classmethod
    def of_function(cls, fn: Fn) -> Executable:
        return cls(ainvoke=fn) if _is_async(fn) else cls(invoke=fn)

    @classmethod
    def of_lambda(cls, spec: Lambda) -> Executable:
        """Async generator functions count as sync here: `_as_iterator` bridges what they return."""
        slots: dict[str, Fn] = {}
        for paradigm in ("invoke", "stream", "collect", "transform"):
            fn = getattr(spec, paradigm)
            if fn is None:
                continue
            if paradigm == "invoke" and _is_async(fn):
                slots["ainvoke"] = fn
            else:
                slots[paradigm] = fn
        return cls(**slots)

    @property
    def has_async_invoke(self) -> bool:
        return self.ainvoke is not None

    def _call(self, fn: Fn, value: Any) -> Any:
        result = fn(value)
        if inspect.isawaitable(result):
            return run_coroutine(result)  # type: ignore[arg-type]
        return result

    def invoke_sync(self, value: Any) -> Any:
        if self.invoke is not None:
            return self.invoke(value)
        if self.ainvoke is not None:
            return run_coroutine(self.ainvoke(value))
        if self.stream is not None:
            return collect(_as_iterator(self._call(self.stream, value)))
        if self.astream is not None:
            return collect(_as_iterator(self.astream(value)))
        if self.collect is not None:
            return self._call(self.collect, one_chunk(value))
        assert self.transform is not None
        return collect(_as_iterator(self._call(self.transform, one_chunk(value))))

    async def invoke_async(self, value: Any) -> Any:
        if self.ainvoke is not None:
            return await self.ainvoke(value)
        if self.astream is not None:
            return concat_chunks([chunk async for chunk in _aiter(self.astream(value))])
        return self.invoke_sync(value)

    def transform_sync(self, stream: Iterator[Any]) -> Iterator[Any]:
        if self.transform is not None:
            return _as_iterator(self._call(self.transform, stream))
        if self.stream is not None:
            return _as_iterator(self._call(self.stream, collect(stream)))
        if self.astream is not None:
            return _as_iterator(self.astream(collect(stream)))
        if self.collect is not None:
            return one_chunk(self._call(self.collect, stream))
        if self.invoke is not None:
            return one_chunk(self.invoke(collect(stream)))
        assert self.ainvoke is not None
        return one_chunk(run_coroutine(self.ainvoke(collect(stream))))


async def _aiter(result: Any) -> AsyncIterator[Any]:
    if inspect.isawaitable(result):
        result = await result
    if hasattr(result, "__anext__"):
        async for chunk in result:
            yield chunk
    else:
        for chunk in result:
            yield chunk
