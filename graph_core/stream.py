"""Streams as Python iterators, with Eino's four stream operations: copy, convert, merge and concat.

A stream is any iterator; an error raised by the producer reaches whoever reads that position. The graph
needs more than plain iteration: fan-out and stream callbacks need `copy_stream` (n independent readers
of one source, Eino's `Copy(n)`), input keys need `convert_stream` with `NO_VALUE` to drop chunks, fan-in
needs `merge_streams` (interleave in arrival order; with source names it emits a `SourceEOF` marker as
each source ends, Eino's `MergeNamedStreamReaders`), and anywhere a stream must become a value uses
`concat_chunks` (Appendix A's rules; `SourceEOF` markers are skipped). Async producers are bridged with
`iterate_async` so the engine's stream plumbing exists once.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Sequence
from typing import Any, Final, TypeVar

from graph_core.concat import concat_values, register_stream_chunk_concat
from graph_core.errors import StreamError

__all__ = [
    "NO_VALUE",
    "PEEK_EMPTY",
    "SourceEOF",
    "StreamError",
    "concat_chunks",
    "convert_stream",
    "copy_stream",
    "iterate_async",
    "merge_streams",
    "one_chunk",
    "peek",
    "register_stream_chunk_concat",
    "run_coroutine",
]

T = TypeVar("T")


class _NoValue:
    """Returned by a `convert_stream` function to drop the chunk (Eino's `ErrNoValue`)."""

    _instance: _NoValue | None = None

    def __new__(cls) -> _NoValue:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Final = _NoValue()


class SourceEOF:
    """A chunk marking that one source of a merged stream ended (Eino's `SourceEOF` error).

    Go readers receive it as an error from `Recv` and go on reading; a Python iterator cannot raise and
    continue, so it arrives as a chunk instead. `source` is the predecessor's node key. Concatenation
    skips it and `convert_stream` passes it through unchanged, as Eino's converters pass errors.
    """

    __slots__ = ("source",)

    def __init__(self, source: str) -> None:
        self.source = source

    def __repr__(self) -> str:
        return f"SourceEOF({self.source!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceEOF) and other.source == self.source

    def __hash__(self) -> int:
        return hash((SourceEOF, self.source))

    def __str__(self) -> str:
        return f"EOF from source stream: {self.source}"


def one_chunk(value: T) -> Iterator[T]:
    """A stream holding exactly `value`: how invoke-only code is fed in stream mode."""
    return iter((value,))


class ChunkCell:
    __slots__ = ("error", "filled", "next", "value")

    def __init__(self) -> None:
        self.filled = False
        self.value: Any = None
        self.error: BaseException | None = None
        self.next: ChunkCell | None = None


class _CopySource:
    """The shared side of `copy_stream`: a linked list of pulled chunks (passed chunks are freed)."""

    __slots__ = ("done", "lock", "open_readers", "source")

    def __init__(self, source: Iterator[Any], readers: int) -> None:
        self.source = source
        self.lock = threading.Lock()
        self.done = False
        self.open_readers = readers

    def fill(self, cell: ChunkCell) -> None:
        with self.lock:
            if cell.filled:
                return
            if self.done:
                cell.error = StopIteration()
            else:
                try:
                    cell.value = next(self.source)
                except StopIteration:
                    self.done = True
                    cell.error = StopIteration()
                except BaseException as exc:
                    cell.error = exc
                    self.done = True
            cell.next = ChunkCell()
            cell.filled = True

    def release(self) -> None:
        with self.lock:
            self.open_readers -= 1
            last = self.open_readers == 0
        if last:
            close = getattr(self.source, "close", None)
            if close is not None:
                close()


class _CopyReader(Iterator[Any]):
    __slots__ = ("_cell", "_closed", "_shared")

    def __init__(self, shared: _CopySource, cell: ChunkCell) -> None:
        self._shared = shared
        self._cell = cell
        self._closed = False

    def __iter__(self) -> _CopyReader:
        return self

    def __next__(self) -> Any:
        if self._closed:
            raise StreamError("recv after stream closed")
        cell = self._cell
        if not cell.filled:
            self._shared.fill(cell)
        if isinstance(cell.error, StopIteration):
            self.close()
            raise StopIteration
        if cell.error is not None:
            self._cell = cell.next  # type: ignore[assignment]
            raise cell.error
        assert cell.next is not None
        self._cell = cell.next
        return cell.value

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._shared.release()


def copy_stream(source: Iterator[T], n: int) -> list[Iterator[T]]:
    """`n` independent readers that each see every chunk; the source closes when all readers closed.

    Readers may live on different threads. Do not read `source` directly afterwards.
    """
    if n < 2:
        return [source] if n == 1 else []
    shared = _CopySource(source, n)
    head = ChunkCell()
    return [_CopyReader(shared, head) for _ in range(n)]


def convert_stream(source: Iterator[Any], fn: Callable[[Any], Any]) -> Iterator[Any]:
    """Map each chunk through `fn`; a chunk mapped to `NO_VALUE` is dropped silently."""
    for chunk in source:
        if type(chunk) is SourceEOF:
            yield chunk
            continue
        value = fn(chunk)
        if value is not NO_VALUE:
            yield value


END_OF_STREAM: Final = object()
"""Put after a stream's last chunk where chunks are handed over (queues, `next(it, default)`); shared
with `graph_core.astream`."""


def merge_streams(sources: Sequence[Iterator[Any]], *, names: Sequence[str] | None = None) -> Iterator[Any]:
    """Interleave several streams in arrival order; ends when every source ended (Eino `MergeStreamReaders`).

    Each source is pulled on its own thread (under a copy of the caller's context) as soon as the merged
    stream is first read; an error from any source is raised to the reader at its arrival position.
    With `names` (one per source), a `SourceEOF(name)` chunk follows the last chunk of each source
    (Eino `MergeNamedStreamReaders`).
    """
    if len(sources) == 1 and names is None:
        yield from sources[0]
        return
    inbox: queue.SimpleQueue[tuple[Any, Any]] = queue.SimpleQueue()
    labels = list(names) if names is not None else None

    def pump(index: int, source: Iterator[Any]) -> None:
        try:
            for chunk in source:
                inbox.put((chunk, None))
        except BaseException as exc:
            inbox.put((None, exc))
        inbox.put((END_OF_STREAM, index))

    for index, source in enumerate(sources):
        ctx = contextvars.copy_context()
        threading.Thread(target=ctx.run, args=(pump, index, source), daemon=True).start()
    remaining = len(sources)
    while remaining:
        chunk, extra = inbox.get()
        if chunk is END_OF_STREAM:
            remaining -= 1
            if labels is not None:
                yield SourceEOF(labels[extra])
            continue
        if extra is not None:
            raise extra
        yield chunk


PEEK_EMPTY: Final = object()


def _replay(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def _raise_later(error: BaseException) -> Iterator[Any]:
    if error is not None:  # always: the condition only makes this function a generator
        raise error
    yield None


def peek(stream: Iterator[T]) -> tuple[Any, Iterator[T]]:
    """Read the first chunk; return it and a stream that still yields it from the start.

    The first item is `PEEK_EMPTY` for an empty stream, and also when the producer fails: its error is
    deferred to the first read of the returned stream, where it would have surfaced without the peek.
    """
    try:
        first = next(stream)
    except StopIteration:
        return PEEK_EMPTY, iter(())
    except Exception as exc:
        return PEEK_EMPTY, _raise_later(exc)
    return first, _replay(first, stream)


def concat_chunks(chunks: Sequence[Any]) -> Any:
    """Join stream chunks into one value with Eino's rules (Appendix A): `concat_values`, after the
    `SourceEOF` markers a merge leaves in the stream are skipped."""
    if any(type(c) is SourceEOF for c in chunks):
        chunks = [c for c in chunks if type(c) is not SourceEOF]
    return concat_values(chunks)


def collect(stream: Iterable[Any]) -> Any:
    """Read a whole stream and concatenate it."""
    return concat_chunks(list(stream))


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, on this thread unless an event loop already runs here.

    The coroutine sees the caller's context variables either way (the run scope follows it).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: list[Any] = []

    def target() -> None:
        try:
            box.append((asyncio.run(coro), None))
        except BaseException as exc:
            box.append((None, exc))

    ctx = contextvars.copy_context()
    thread = threading.Thread(target=ctx.run, args=(target,))
    thread.start()
    thread.join()
    value, error = box[0]
    if error is not None:
        raise error
    return value


def iterate_async(source: AsyncIterator[T]) -> Iterator[T]:
    """A sync iterator over an async one, pumped by a private event loop on a helper thread."""
    inbox: queue.SimpleQueue[tuple[Any, BaseException | None]] = queue.SimpleQueue()

    async def pump() -> None:
        try:
            async for chunk in source:
                inbox.put((chunk, None))
        except BaseException as exc:
            inbox.put((None, exc))
        inbox.put((END_OF_STREAM, None))

    ctx = contextvars.copy_context()
    started = False
    while True:
        if not started:
            threading.Thread(target=ctx.run, args=(asyncio.run, pump()), daemon=True).start()
            started = True
        chunk, error = inbox.get()
        if error is not None:
            raise error
        if chunk is END_OF_STREAM:
            return
        yield chunk
