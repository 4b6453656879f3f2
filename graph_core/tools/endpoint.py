"""How a ToolsNode calls one tool: four endpoints per tool, with middlewares applied as in Eino.

A tool natively implements invoking (a function, sync or async) or streaming (a generator), or both for a
duck-typed tool object. Middlewares wrap only the native surface (Eino: an Invokable middleware applies to
InvokableTools only), first listed outermost; the missing surface is derived after wrapping, so a stream
run of an invoke-only tool still goes through its invoke middlewares.

Enhanced tools (Eino `EnhancedInvokableTool`/`EnhancedStreamableTool`) return a `ToolResult` (or
stream `ToolResult` chunks) instead of text: a `@tool` function annotated to return `ToolResult`, or an
object with `invoke_enhanced`/`ainvoke_enhanced`/`stream_enhanced`/`astream_enhanced`. A tool that has
both surfaces runs as an enhanced tool (Eino's priority), and only the middlewares' `enhanced_*`
wrappers apply to it, as Eino's `EnhancedInvokable`/`EnhancedStreamable` middlewares.

Each middleware may give sync wrappers (`invoke`, `stream`), async ones (`ainvoke`, `astream`), or both.
When a run needs the async surface but some applicable middleware only has the sync wrapper, the sync
chain runs on a thread (and vice versa on a private event loop), so every middleware always applies;
with sync-only and async-only middlewares together, the chain crosses sides at each one-sided one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from graph_core.multimodal import ToolResult, concat_tool_results
from graph_core.schema import ToolInfo
from graph_core.tools.bridge import aiterate_sync, iterate_async, run_blocking
from graph_core.tools.errors import not_text
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
    "direct_invoke",
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


EnhancedInvokeEndpoint = Callable[[ToolInput], ToolResult]
AsyncEnhancedInvokeEndpoint = Callable[[ToolInput], Awaitable[ToolResult]]
EnhancedStreamEndpoint = Callable[[ToolInput], Iterator[ToolResult]]
AsyncEnhancedStreamEndpoint = Callable[[ToolInput], AsyncIterator[ToolResult]]


@dataclass(frozen=True, slots=True)
class ToolMiddleware:
    """Wrappers around tool endpoints (Eino ToolMiddleware); each takes the next endpoint, returns one.

    `invoke`/`stream` (and their async forms) wrap text tools; `enhanced_*` wrap enhanced tools, whose
    endpoints return `ToolResult`s (Eino `EnhancedInvokable`/`EnhancedStreamable`).
    """

    invoke: Callable[[InvokeEndpoint], InvokeEndpoint] | None = None
    stream: Callable[[StreamEndpoint], StreamEndpoint] | None = None
    ainvoke: Callable[[AsyncInvokeEndpoint], AsyncInvokeEndpoint] | None = None
    astream: Callable[[AsyncStreamEndpoint], AsyncStreamEndpoint] | None = None
    enhanced_invoke: Callable[[EnhancedInvokeEndpoint], EnhancedInvokeEndpoint] | None = None
    enhanced_stream: Callable[[EnhancedStreamEndpoint], EnhancedStreamEndpoint] | None = None
    enhanced_ainvoke: Callable[[AsyncEnhancedInvokeEndpoint], AsyncEnhancedInvokeEndpoint] | None = None
    enhanced_astream: Callable[[AsyncEnhancedStreamEndpoint], AsyncEnhancedStreamEndpoint] | None = None


@runtime_checkable
class BaseTool(Protocol):
    """Anything with `.info` and at least one of `invoke`, `ainvoke`, `stream`, `astream` (arguments JSON)."""

    @property
    def info(self) -> ToolInfo: ...


@dataclass(frozen=True, slots=True)
class Endpoints:
    """A tool's four endpoints; `enhanced`: they return `ToolResult`s (chunks), not text."""

    invoke: InvokeEndpoint
    ainvoke: AsyncInvokeEndpoint
    stream: StreamEndpoint
    astream: AsyncStreamEndpoint
    enhanced: bool = False


_ENHANCED_METHODS = ("invoke_enhanced", "ainvoke_enhanced", "stream_enhanced", "astream_enhanced")


def _has(tool: Any, *names: str) -> bool:
    return any(callable(getattr(tool, name, None)) for name in names)


def _native_surfaces(tool: Any) -> tuple[bool, bool, bool]:
    """Whether the tool natively invokes and/or streams, and whether those surfaces are enhanced ones;
    only native surfaces get middlewares."""
    if isinstance(tool, Tool):
        return not tool.streams, tool.streams, tool.enhanced
    if _has(tool, *_ENHANCED_METHODS):
        return (
            _has(tool, "invoke_enhanced", "ainvoke_enhanced"),
            _has(tool, "stream_enhanced", "astream_enhanced"),
            True,
        )
    invokes = _has(tool, "invoke", "ainvoke")
    streams = _has(tool, "stream", "astream")
    if not (invokes or streams):
        name = getattr(getattr(tool, "info", None), "name", repr(tool))
        raise TypeError(
            f"tool {name} is not invokable, streamable, enhanced invokable or enhanced streamable: give it "
            "invoke/ainvoke/stream/astream (or their `_enhanced` forms)"
        )
    return invokes, streams, False


Endpoint = Callable[[ToolInput], Any]


@dataclass(frozen=True, slots=True)
class _Surface:
    """One of a tool's two surfaces (invoking, streaming): its method names on tools and middlewares, and
    how its sync endpoint is derived from its async one (`to_sync`) and vice versa (`to_async`)."""

    sync_name: str
    async_name: str
    to_sync: Callable[[Endpoint], Endpoint]
    to_async: Callable[[Endpoint], Endpoint]
    middleware_sync: str = ""  # the middleware fields that wrap this surface (default: the method names)
    middleware_async: str = ""

    def complete(self, sync_ep: Endpoint | None, async_ep: Endpoint | None) -> tuple[Endpoint, Endpoint]:
        """Both endpoints, deriving the missing one from the other (one of them must be given)."""
        if sync_ep is None:
            assert async_ep is not None
            return self.to_sync(async_ep), async_ep
        return sync_ep, async_ep if async_ep is not None else self.to_async(sync_ep)


def _run_async_blocking(endpoint: Endpoint) -> Endpoint:
    return lambda inp: run_blocking(lambda: _as_coro(endpoint(inp)))


def _run_on_thread(endpoint: Endpoint) -> Endpoint:
    return lambda inp: asyncio.to_thread(endpoint, inp)


def _iterate_async(endpoint: Endpoint) -> Endpoint:
    return lambda inp: iterate_async(endpoint(inp))


def _aiterate_sync(endpoint: Endpoint) -> Endpoint:
    return lambda inp: aiterate_sync(endpoint(inp))


_INVOKE = _Surface("invoke", "ainvoke", to_sync=_run_async_blocking, to_async=_run_on_thread)
_STREAM = _Surface("stream", "astream", to_sync=_iterate_async, to_async=_aiterate_sync)
_ENHANCED_INVOKE = _Surface(
    "invoke_enhanced",
    "ainvoke_enhanced",
    _run_async_blocking,
    _run_on_thread,
    "enhanced_invoke",
    "enhanced_ainvoke",
)
_ENHANCED_STREAM = _Surface(
    "stream_enhanced",
    "astream_enhanced",
    _iterate_async,
    _aiterate_sync,
    "enhanced_stream",
    "enhanced_astream",
)
# an enhanced `@tool` has the plain method names (they return `ToolResult`s), wrapped by enhanced middlewares
_TOOL_ENHANCED_INVOKE = _Surface(
    "invoke", "ainvoke", _run_async_blocking, _run_on_thread, "enhanced_invoke", "enhanced_ainvoke"
)
_TOOL_ENHANCED_STREAM = _Surface(
    "stream", "astream", _iterate_async, _aiterate_sync, "enhanced_stream", "enhanced_astream"
)


async def _as_coro(awaitable: Awaitable[str]) -> str:
    return await awaitable


def _method_endpoint(tool: Any, name: str) -> Endpoint | None:
    method = getattr(tool, name, None)
    return None if method is None else lambda inp: method(inp.arguments)


def _chain(endpoint: Endpoint, wrappers: Sequence[Callable[[Any], Any]]) -> Endpoint:
    for wrap in reversed(wrappers):  # first listed ends up outermost
        endpoint = wrap(endpoint)
    return endpoint


def _wrapped(
    tool: Any, surface: _Surface, middlewares: Sequence[ToolMiddleware]
) -> tuple[Endpoint, Endpoint]:
    """The surface's endpoints with the middlewares that wrap it; a middleware giving only one side (sync or
    async) makes that side's chain the only one, the other side derived from it, so it always applies."""
    raw_sync, raw_async = surface.complete(
        _method_endpoint(tool, surface.sync_name), _method_endpoint(tool, surface.async_name)
    )
    sync_field = surface.middleware_sync or surface.sync_name
    async_field = surface.middleware_async or surface.async_name
    pairs = [(getattr(m, sync_field), getattr(m, async_field)) for m in middlewares]
    applicable = [(w, a) for w, a in pairs if w is not None or a is not None]
    sync_ok = all(w is not None for w, _ in applicable)
    async_ok = all(a is not None for _, a in applicable)
    if not (sync_ok or async_ok):
        return _crossing_chain(raw_sync, raw_async, surface, applicable)
    sync_ep = _chain(raw_sync, [w for w, _ in applicable if w is not None]) if sync_ok else None
    async_ep = _chain(raw_async, [a for _, a in applicable if a is not None]) if async_ok else None
    return surface.complete(sync_ep, async_ep)


def _crossing_chain(
    sync_ep: Endpoint,
    async_ep: Endpoint,
    surface: _Surface,
    applicable: Sequence[tuple[Callable[[Any], Any] | None, Callable[[Any], Any] | None]],
) -> tuple[Endpoint, Endpoint]:
    """Sync-only and async-only middlewares together: no one side's chain holds them all, so the chain
    is built from the inside out and crosses sides at every one-sided middleware."""
    for wrap_sync, wrap_async in reversed(applicable):  # first listed ends up outermost
        if wrap_sync is not None and wrap_async is not None:
            sync_ep, async_ep = wrap_sync(sync_ep), wrap_async(async_ep)
        elif wrap_sync is not None:
            sync_ep = wrap_sync(sync_ep)
            async_ep = surface.to_async(sync_ep)
        elif wrap_async is not None:
            async_ep = wrap_async(async_ep)
            sync_ep = surface.to_sync(async_ep)
    return sync_ep, async_ep


def direct_invoke(tool: Any, middlewares: Sequence[ToolMiddleware]) -> Callable[[str], Any] | None:
    """The tool's own sync `invoke(arguments)` when its invoke endpoint is nothing more than that call
    (no middleware, a native text invoke surface), else None: the ToolsNode's fast path calls it
    without building a `ToolInput` for an endpoint that would only read `.arguments` back."""
    if middlewares:
        return None
    invokes, _, enhanced = _native_surfaces(tool)
    return None if enhanced or not invokes else getattr(tool, "invoke", None)


def build_endpoints(tool: Any, middlewares: Sequence[ToolMiddleware]) -> Endpoints:
    """The four endpoints of `tool` with `middlewares` applied to its native surfaces."""
    invokes, streams, enhanced = _native_surfaces(tool)
    if enhanced:
        plain = isinstance(tool, Tool)
        invoke_surface = _TOOL_ENHANCED_INVOKE if plain else _ENHANCED_INVOKE
        stream_surface = _TOOL_ENHANCED_STREAM if plain else _ENHANCED_STREAM
    else:
        invoke_surface, stream_surface = _INVOKE, _STREAM
    inv = _wrapped(tool, invoke_surface, middlewares) if invokes else None
    stm = _wrapped(tool, stream_surface, middlewares) if streams else None
    join = _join_results if enhanced else _join
    if inv is None:
        assert stm is not None
        sync_stream, async_stream = stm
        inv = (lambda inp: join(sync_stream(inp))), (lambda inp: _aconcat(async_stream(inp), join))
    if stm is None:
        sync_invoke, async_invoke = inv
        stm = (lambda inp: iter([sync_invoke(inp)])), (lambda inp: _aonce(async_invoke, inp))
    return Endpoints(invoke=inv[0], ainvoke=inv[1], stream=stm[0], astream=stm[1], enhanced=enhanced)


def _join_results(chunks: Iterable[Any]) -> Any:
    """The whole result of a streamed enhanced tool (Eino `ConcatToolResults`)."""
    parts = list(chunks)
    for part in parts:
        if not isinstance(part, ToolResult):
            raise TypeError(f"a stream chunk of an enhanced tool is {type(part).__name__}, not a ToolResult")
    return concat_tool_results(parts)


def _join(chunks: Iterable[str]) -> str:
    """The whole result of a streamed tool; a chunk that is not a str is named (join's TypeError is not)."""
    parts = list(chunks)
    try:
        return "".join(parts)
    except TypeError:
        bad = next(part for part in parts if not isinstance(part, str))  # pyright: ignore[reportUnnecessaryIsInstance]
        raise not_text(bad, "a stream chunk") from None


async def _aconcat(chunks: AsyncIterator[Any], join: Callable[[list[Any]], Any] = _join) -> Any:
    return join([chunk async for chunk in chunks])


async def _aonce(endpoint: AsyncInvokeEndpoint, inp: ToolInput) -> AsyncIterator[str]:
    yield await endpoint(inp)
