"""Stream mode on the caller's event loop (`CompiledGraph.astream`): what differs from the sync engine.

The step logic (`loop.py`) is shared; in an `astream` run (`RunContext.aio`) its streams are async
iterators and the few places that touch them call in here. Async components run on the loop: a chat
model's `astream`, a ToolsNode's `astream`, async generator lambdas, `async def` conditions and
handlers. Sync user code that reads a stream (a transform, a stream-branch condition, a stream handler,
a stream callback) runs on a worker thread and gets an `AsyncStream`, which it iterates with plain
`for`: each chunk is produced on the loop. Chunks produced by sync generators are pulled on threads.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

from graph_core.astream import AsyncStream, acollect, acopy_stream, aiterate, aone_chunk
from graph_core.context import _SCOPE, RunScope  # pyright: ignore[reportPrivateUsage]
from graph_core.lambda_ import Executable
from graph_core.runner.run import RunContext, RunData, Task
from graph_core.stream import one_chunk
from graph_core.tools.bridge import submit

__all__ = ["anotify", "as_async_stream", "ascoped_stream", "in_thread", "is_async_fn", "settle", "transform"]


def is_async_fn(fn: Any) -> bool:
    return (
        inspect.iscoroutinefunction(fn)
        or inspect.isasyncgenfunction(fn)
        or (callable(fn) and inspect.iscoroutinefunction(type(fn).__call__))
    )


async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """Run sync user code on a worker thread (under a copy of this context) without blocking the loop.

    A pool separate from asyncio's default one: the code may wait for chunks whose production itself
    needs `asyncio.to_thread`.
    """
    return await asyncio.wrap_future(submit(fn, *args))


def as_async_stream(result: Any) -> AsyncIterator[Any]:
    """What a component returned as a stream, as an async stream (sync iterators are read on threads)."""
    if hasattr(result, "__anext__"):
        return result
    return aiterate(result)


async def _call(fn: Callable[..., Any], arg: Any, offload: bool) -> Any:
    """A user function: async ones on the loop, sync ones inline or (when `offload`) on a thread."""
    if is_async_fn(fn):
        result = fn(arg)
    elif offload:
        result = await in_thread(fn, arg)
    else:
        result = fn(arg)
    if inspect.isawaitable(result):
        result = await result
    return result


async def transform(executable: Executable, stream: AsyncIterator[Any], rc: RunContext, offload: bool) -> Any:
    """Eino's derived transform, async: own transform, else (a)stream on the concatenated input, else
    collect as a one-chunk output, else invoke on the concatenated input as a one-chunk output."""
    loop = rc.loop
    if executable.transform is not None:
        # it reads the stream: sync code must be on a thread, whatever else runs in the step
        return as_async_stream(await _call(executable.transform, AsyncStream(stream, loop), True))
    if executable.astream is not None:
        return as_async_stream(await _call(executable.astream, await acollect(stream), False))
    if executable.stream is not None:
        return as_async_stream(await _call(executable.stream, await acollect(stream), offload))
    if executable.collect is not None:
        return aone_chunk(await _call(executable.collect, AsyncStream(stream, loop), True))
    if executable.ainvoke is not None:
        return aone_chunk(await executable.ainvoke(await acollect(stream)))
    assert executable.invoke is not None
    return aone_chunk(await _call(executable.invoke, await acollect(stream), offload))


async def ascoped_stream(
    stream: AsyncIterator[Any], scope: RunScope, failure: Callable[[Exception, tuple[str, ...]], Exception]
) -> AsyncIterator[Any]:
    """The node's output stream, read inside its run scope; a failing read names the node."""
    while True:
        token = _SCOPE.set(scope)
        try:
            chunk = await stream.__anext__()
        except StopAsyncIteration:
            return
        except Exception as exc:
            error = failure(exc, scope.path)
            if error is exc:
                raise
            raise error from exc
        finally:
            _SCOPE.reset(token)
        yield chunk


async def anotify(fns: tuple[Any, ...], info: Any, value: AsyncIterator[Any], rc: RunContext) -> Any:
    """Stream callbacks of an `astream` run: each gets its own copy, read on a worker thread."""
    if not fns:
        return value
    copies = acopy_stream(value, len(fns) + 1)
    for fn, copy in zip(fns, copies, strict=False):
        await in_thread(fn, info, AsyncStream(copy, rc.loop))
    return copies[-1]


async def settle(data: RunData, tasks: list[Task]) -> None:
    """Before a checkpoint is captured: read the async streams it holds into one-chunk sync streams.

    The capture code concatenates streams (Eino saves streams concatenated); it is sync, so the
    reading happens here, on the loop.
    """

    async def fixed(value: Any) -> Any:
        if hasattr(value, "__anext__"):
            return one_chunk(await acollect(value))
        return value

    for row in data.values.values():
        for source, value in row.items():
            row[source] = await fixed(value)
    data.pending = [(key, await fixed(value)) for key, value in data.pending]
    for task in tasks:
        task.original = await fixed(task.original)
