"""Async streams: the engine's streams in `astream` runs, mirroring the sync operations of `stream`.

`CompiledGraph.astream` runs stream mode on the caller's event loop: values between nodes are async
iterators, and the operations here (copy, convert, merge, concat, peek) mirror the sync ones in
`graph_core.stream`, with the same markers (`NO_VALUE`, `SourceEOF`, `PEEK_EMPTY`). All of them run on
the loop; sync user code (transforms, stream-branch conditions, stream handlers and callbacks) reads an
async stream from a worker thread through `AsyncStream`, which asks the loop for each chunk.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from graph_core.errors import StreamError
from graph_core.stream import END_OF_STREAM, NO_VALUE, PEEK_EMPTY, ChunkCell, SourceEOF, concat_chunks

__all__ = [
    "AsyncStream",
    "OpeningStream",
    "acollect",
    "aconvert_stream",
    "acopy_stream",
    "aiterate",
    "aiterate_list",
    "amerge_streams",
    "aone_chunk",
    "apeek",
]

T = TypeVar("T")


class AsyncStream(AsyncIterator[T], Iterator[T]):
    """An async stream handed to user code: `async for` on the loop, or plain `for` on another thread.

    Sync functions (transforms, stream-branch conditions, stream handlers, stream callbacks) run on
    worker threads in an `astream` run, so they keep receiving an iterator; each `next` waits for the
    loop to produce the chunk. Reading it synchronously on the loop's own thread would deadlock and
    raises `StreamError` instead.
    """

    __slots__ = ("_loop", "_source")

    def __init__(self, source: AsyncIterator[T], loop: asyncio.AbstractEventLoop) -> None:
        self._source = source
        self._loop = loop

    def __aiter__(self) -> AsyncStream[T]:
        return self

    async def __anext__(self) -> T:
        return await self._source.__anext__()

    def __iter__(self) -> AsyncStream[T]:
        return self

    async def _next_or_done(self) -> Any:
        try:
            return await self._source.__anext__()
        except StopAsyncIteration:
            return END_OF_STREAM

    def __next__(self) -> T:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            raise StreamError("an async stream cannot be read with `for` on its event loop; use `async for`")
        chunk = asyncio.run_coroutine_threadsafe(self._next_or_done(), self._loop).result()
        if chunk is END_OF_STREAM:
            raise StopIteration
        return chunk

    async def aclose(self) -> None:
        close = getattr(self._source, "aclose", None)
        if close is not None:
            await close()


async def aone_chunk(value: T) -> AsyncIterator[T]:
    """An async stream holding exactly `value`."""
    yield value


async def aiterate(source: Iterable[T]) -> AsyncIterator[T]:
    """An async stream over a sync iterable; each `next` runs on a worker thread (it may block)."""
    iterator = iter(source)

    def step() -> Any:
        return next(iterator, END_OF_STREAM)

    while True:
        chunk = await asyncio.to_thread(step)
        if chunk is END_OF_STREAM:
            return
        yield chunk


async def acollect(stream: AsyncIterator[Any]) -> Any:
    """Read a whole async stream and concatenate it."""
    return concat_chunks([chunk async for chunk in stream])


async def aconvert_stream(source: AsyncIterator[Any], fn: Callable[[Any], Any]) -> AsyncIterator[Any]:
    """`convert_stream` for async streams."""
    async for chunk in source:
        if type(chunk) is SourceEOF:
            yield chunk
            continue
        value = fn(chunk)
        if value is not NO_VALUE:
            yield value


class _AsyncCopySource:
    __slots__ = ("done", "lock", "open_readers", "source")

    def __init__(self, source: AsyncIterator[Any], readers: int) -> None:
        self.source = source
        self.lock = asyncio.Lock()
        self.done = False
        self.open_readers = readers

    async def fill(self, cell: ChunkCell) -> None:
        async with self.lock:
            if cell.filled:
                return
            if self.done:
                cell.error = StopIteration()
            else:
                try:
                    cell.value = await self.source.__anext__()
                except StopAsyncIteration:
                    self.done = True
                    cell.error = StopIteration()
                except BaseException as exc:
                    cell.error = exc
                    self.done = True
            cell.next = ChunkCell()
            cell.filled = True

    async def release(self) -> None:
        self.open_readers -= 1
        if self.open_readers == 0:
            close = getattr(self.source, "aclose", None)
            if close is not None:
                await close()


class _AsyncCopyReader(AsyncIterator[Any]):
    __slots__ = ("_cell", "_closed", "_shared")

    def __init__(self, shared: _AsyncCopySource, cell: ChunkCell) -> None:
        self._shared = shared
        self._cell = cell
        self._closed = False

    def __aiter__(self) -> _AsyncCopyReader:
        return self

    async def __anext__(self) -> Any:
        if self._closed:
            raise StreamError("recv after stream closed")
        cell = self._cell
        if not cell.filled:
            await self._shared.fill(cell)
        if isinstance(cell.error, StopIteration):
            await self.aclose()
            raise StopAsyncIteration
        if cell.error is not None:
            self._cell = cell.next  # type: ignore[assignment]
            raise cell.error
        assert cell.next is not None
        self._cell = cell.next
        return cell.value

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self._shared.release()


def acopy_stream(source: AsyncIterator[T], n: int) -> list[AsyncIterator[T]]:
    """`copy_stream` for async streams: `n` readers on one event loop."""
    if n < 2:
        return [source] if n == 1 else []
    shared = _AsyncCopySource(source, n)
    head = ChunkCell()
    return [_AsyncCopyReader(shared, head) for _ in range(n)]


async def amerge_streams(
    sources: Sequence[AsyncIterator[Any]], *, names: Sequence[str] | None = None
) -> AsyncIterator[Any]:
    """`merge_streams` for async streams: each source is pumped by its own task on the loop."""
    if len(sources) == 1 and names is None:
        async for chunk in sources[0]:
            yield chunk
        return
    inbox: asyncio.Queue[tuple[Any, Any]] = asyncio.Queue()
    labels = list(names) if names is not None else None

    async def pump(index: int, source: AsyncIterator[Any]) -> None:
        try:
            async for chunk in source:
                await inbox.put((chunk, None))
        except Exception as exc:
            await inbox.put((None, exc))
        await inbox.put((END_OF_STREAM, index))

    pumps = [asyncio.ensure_future(pump(i, s)) for i, s in enumerate(sources)]
    try:
        remaining = len(sources)
        while remaining:
            chunk, extra = await inbox.get()
            if chunk is END_OF_STREAM:
                remaining -= 1
                if labels is not None:
                    yield SourceEOF(labels[extra])
                continue
            if extra is not None:
                raise extra
            yield chunk
    finally:
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)


async def _areplay(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    yield first
    async for chunk in rest:
        yield chunk


async def _araise_later(error: BaseException) -> AsyncIterator[Any]:
    if error is not None:  # always: the condition only makes this function a generator
        raise error
    yield None


async def apeek(stream: AsyncIterator[T]) -> tuple[Any, AsyncIterator[T]]:
    """`peek` for async streams."""
    try:
        first = await stream.__anext__()
    except StopAsyncIteration:
        return PEEK_EMPTY, aiterate_list([])
    except Exception as exc:
        return PEEK_EMPTY, _araise_later(exc)
    return first, _areplay(first, stream)


async def aiterate_list(items: Sequence[T]) -> AsyncIterator[T]:
    """An async stream over chunks already in memory."""
    for item in items:
        yield item


class OpeningStream(AsyncIterator[T]):
    """An async iterator whose opening may be awaited first: `await stream` runs the opener (where errors
    raised before the first chunk surface, as `ToolsNode.astream` needs), or the first `__anext__` does."""

    def __init__(self, opener: Callable[[], Awaitable[AsyncIterator[T]]]) -> None:
        self._opener = opener
        self._inner: AsyncIterator[T] | None = None

    async def _open(self) -> OpeningStream[T]:
        if self._inner is None:
            self._inner = await self._opener()
        return self

    def __await__(self) -> Generator[Any, None, OpeningStream[T]]:
        return self._open().__await__()

    def __aiter__(self) -> OpeningStream[T]:
        return self

    async def __anext__(self) -> T:
        if self._inner is None:
            await self._open()
        assert self._inner is not None
        return await self._inner.__anext__()

    async def aclose(self) -> None:
        close = getattr(self._inner, "aclose", None)
        if close is not None:
            await close()
