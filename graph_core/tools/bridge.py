"""Crossing between sync and async code for tools, without ever blocking a running event loop.

Sync callers (`ToolsNode.invoke`) may meet async tools and async callers may meet sync tools. A sync
caller drives a coroutine on a private event loop, or on a helper thread when its own thread already runs
a loop; an async caller moves sync work to a thread. Context variables follow in both directions, so the
run scope and `get_tool_call_id()` keep working.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from graph_core.astream import aiterate as aiterate_sync  # pulling a sync iterator from async code: one place

__all__ = ["aiterate_sync", "iterate_async", "run_blocking", "submit"]

T = TypeVar("T")

_EXECUTOR: ThreadPoolExecutor | None = None
_EXECUTOR_LOCK = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _EXECUTOR
    with _EXECUTOR_LOCK:
        if _EXECUTOR is None:
            _EXECUTOR = ThreadPoolExecutor(max_workers=64, thread_name_prefix="graph_core_tool")
        return _EXECUTOR


def submit(fn: Callable[..., T], *args: Any) -> Future[T]:
    """Run `fn` on a worker thread under a copy of the caller's context."""
    ctx = contextvars.copy_context()
    return _executor().submit(ctx.run, fn, *args)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_blocking(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine made by `make` to completion from sync code."""
    if not _loop_running():
        return asyncio.run(make())
    return submit(lambda: asyncio.run(make())).result()


def iterate_async(agen: AsyncIterator[T]) -> Iterator[T]:
    """Pull an async iterator from sync code, one item at a time, on a private event loop."""
    if _loop_running():
        items: list[T] = submit(lambda: asyncio.run(_collect(agen))).result()
        yield from items
        return
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                item = loop.run_until_complete(_anext(agen))
            except StopAsyncIteration:
                return
            yield item
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def _anext(agen: AsyncIterator[T]) -> T:
    return await agen.__anext__()


async def _collect(agen: AsyncIterator[T]) -> list[T]:
    return [item async for item in agen]


async def maybe_await(value: T | Awaitable[T]) -> T:
    if isinstance(value, Awaitable):
        return await value  # type: ignore[no-any-return]
    return value
