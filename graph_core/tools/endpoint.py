"""How a ToolsNode calls one tool: four endpoints per tool, with middlewares applied as in Eino.

A tool natively implements invoking (a function, sync or async) or streaming (a generator), or both for a
duck-typed tool object. Middlewares wrap only the native surface (Eino: an Invokable middleware applies to
InvokableTools only), first listed outermost; the missing surface is derived after wrapping, so a stream
run of an invoke-only tool still goes through its invoke middlewares.

Each middleware may give sync wrappers (`invoke`, `stream`), async ones (`ainvoke`, `astream`), or both.
When a run needs the async surface but some applicable middleware only has the sync wrapper, the sync
chain runs on a thread (and vice versa on a private event loop), so every middleware always applies.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from graph_core.schema import ToolInfo
from graph_core.tools.bridge import aiterate_sync, iterate_async, run_blocking
from graph_core.tools.function import Tool

__all__ = [
    "AsyncInvokeEndpoint",
    "AsyncStreamEndpoint",
    "BaseTool",
    "Endpoints",
    "InvokeEndpoint",
    "StreamEndpoint",
    "ToolInput",
    "ToolMiddleware",
    "build_endpoints",
]


@dataclass(frozen=True, slots=True)
class ToolInput:
    """One call as middlewares see it: the called tool name, its JSON arguments and the call ID."""

    name: str
    arguments: str
    call_id: str


InvokeEndpoint = Callable[[ToolInput], str]
AsyncInvokeEndpoint = Callable[[ToolInput], Awaitable[str]]
StreamEndpoint = Callable[[ToolInput], Iterator[str]]
AsyncStreamEndpoint = Callable[[ToolInput], AsyncIterator[str]]


@dataclass(frozen=True, slots=True)
class ToolMiddleware:
    """Wrappers around tool endpoints (Eino ToolMiddleware); each takes the next endpoint, returns one."""

    invoke: Callable[[InvokeEndpoint], InvokeEndpoint] | None = None
    stream: Callable[[StreamEndpoint], StreamEndpoint] | None = None
    ainvoke: Callable[[AsyncInvokeEndpoint], AsyncInvokeEndpoint] | None = None
    astream: Callable[[AsyncStreamEndpoint], AsyncStreamEndpoint] | None = None


@runtime_checkable
class BaseTool(Protocol):
    """Anything with `.info` and at least one of `invoke`, `ainvoke`, `stream`, `astream` (arguments JSON)."""

    @property
    def info(self) -> ToolInfo: ...


@dataclass(frozen=True, slots=True)
class Endpoints:
    invoke: InvokeEndpoint
    ainvoke: AsyncInvokeEndpoint
    stream: StreamEndpoint
    astream: AsyncStreamEndpoint


def _native_surfaces(tool: Any) -> tuple[bool, bool]:
    if isinstance(tool, Tool):
        return not tool.streams, tool.streams
    invokes = callable(getattr(tool, "invoke", None)) or callable(getattr(tool, "ainvoke", None))
    streams = callable(getattr(tool, "stream", None)) or callable(getattr(tool, "astream", None))
    if not (invokes or streams):
        name = getattr(getattr(tool, "info", None), "name", repr(tool))
        raise TypeError(f"tool {name} is not invokable or streamable: give it invoke/ainvoke/stream/astream")
    return invokes, streams


def _raw_invoke(tool: Any) -> tuple[InvokeEndpoint, AsyncInvokeEndpoint]:
    sync_fn = getattr(tool, "invoke", None)
    async_fn = getattr(tool, "ainvoke", None)
    if isinstance(tool, Tool) or (sync_fn is not None and async_fn is not None):
        return (lambda inp: sync_fn(inp.arguments)), (lambda inp: async_fn(inp.arguments))  # type: ignore[misc]
    if sync_fn is not None:
        return (lambda inp: sync_fn(inp.arguments)), (lambda inp: asyncio.to_thread(sync_fn, inp.arguments))
    assert async_fn is not None
    return (lambda inp: run_blocking(lambda: _as_coro(async_fn(inp.arguments)))), (
        lambda inp: async_fn(inp.arguments)
    )


def _raw_stream(tool: Any) -> tuple[StreamEndpoint, AsyncStreamEndpoint]:
    sync_fn = getattr(tool, "stream", None)
    async_fn = getattr(tool, "astream", None)
    if isinstance(tool, Tool) or (sync_fn is not None and async_fn is not None):
        return (lambda inp: sync_fn(inp.arguments)), (lambda inp: async_fn(inp.arguments))  # type: ignore[misc]
    if sync_fn is not None:
        return (lambda inp: sync_fn(inp.arguments)), (lambda inp: aiterate_sync(sync_fn(inp.arguments)))
    assert async_fn is not None
    return (lambda inp: iterate_async(async_fn(inp.arguments))), (lambda inp: async_fn(inp.arguments))


async def _as_coro(awaitable: Awaitable[str]) -> str:
    return await awaitable


def _chain(endpoint: Any, wrappers: Sequence[Callable[[Any], Any]]) -> Any:
    for wrap in reversed(wrappers):  # first listed ends up outermost
        endpoint = wrap(endpoint)
    return endpoint


def _wrapped_invoke(
    raw: tuple[InvokeEndpoint, AsyncInvokeEndpoint], middlewares: Sequence[ToolMiddleware]
) -> tuple[InvokeEndpoint, AsyncInvokeEndpoint]:
    applicable = [m for m in middlewares if m.invoke is not None or m.ainvoke is not None]
    sync_ok = all(m.invoke is not None for m in applicable)
    async_ok = all(m.ainvoke is not None for m in applicable)
    sync_ep: InvokeEndpoint | None = _chain(raw[0], [m.invoke for m in applicable]) if sync_ok else None  # type: ignore[misc]
    async_ep: AsyncInvokeEndpoint | None = (
        _chain(raw[1], [m.ainvoke for m in applicable]) if async_ok else None  # type: ignore[misc]
    )
    if sync_ep is None:
        assert async_ep is not None
        fallback_async = async_ep
        sync_ep = lambda inp: run_blocking(lambda: _as_coro(fallback_async(inp)))  # noqa: E731
    if async_ep is None:
        fallback_sync = sync_ep
        async_ep = lambda inp: asyncio.to_thread(fallback_sync, inp)  # noqa: E731
    return sync_ep, async_ep


def _wrapped_stream(
    raw: tuple[StreamEndpoint, AsyncStreamEndpoint], middlewares: Sequence[ToolMiddleware]
) -> tuple[StreamEndpoint, AsyncStreamEndpoint]:
    applicable = [m for m in middlewares if m.stream is not None or m.astream is not None]
    sync_ok = all(m.stream is not None for m in applicable)
    async_ok = all(m.astream is not None for m in applicable)
    sync_ep: StreamEndpoint | None = _chain(raw[0], [m.stream for m in applicable]) if sync_ok else None  # type: ignore[misc]
    async_ep: AsyncStreamEndpoint | None = (
        _chain(raw[1], [m.astream for m in applicable]) if async_ok else None  # type: ignore[misc]
    )
    if sync_ep is None:
        assert async_ep is not None
        fallback_async = async_ep
        sync_ep = lambda inp: iterate_async(fallback_async(inp))  # noqa: E731
    if async_ep is None:
        fallback_sync = sync_ep
        async_ep = lambda inp: aiterate_sync(fallback_sync(inp))  # noqa: E731
    return sync_ep, async_ep


def build_endpoints(tool: Any, middlewares: Sequence[ToolMiddleware]) -> Endpoints:
    """The four endpoints of `tool` with `middlewares` applied to its native surfaces."""
    invokes, streams = _native_surfaces(tool)
    inv = _wrapped_invoke(_raw_invoke(tool), middlewares) if invokes else None
    stm = _wrapped_stream(_raw_stream(tool), middlewares) if streams else None
    if inv is None:
        assert stm is not None
        sync_stream, async_stream = stm
        inv = (lambda inp: "".join(sync_stream(inp))), (lambda inp: _aconcat(async_stream(inp)))
    if stm is None:
        sync_invoke, async_invoke = inv
        stm = (lambda inp: iter([sync_invoke(inp)])), (lambda inp: _aonce(async_invoke, inp))
    return Endpoints(invoke=inv[0], ainvoke=inv[1], stream=stm[0], astream=stm[1])


async def _aconcat(chunks: AsyncIterator[str]) -> str:
    return "".join([chunk async for chunk in chunks])


async def _aonce(endpoint: AsyncInvokeEndpoint, inp: ToolInput) -> AsyncIterator[str]:
    yield await endpoint(inp)
