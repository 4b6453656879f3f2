"""`build_endpoints`: every endpoint of every tool shape, with middlewares on every side, applies them once.

The matrix: tools that natively invoke or stream, sync or async or both, times middlewares that give the
sync wrapper, the async one or both; each of the four endpoints must return the tool's text wrapped by
the middleware exactly once (a sync-only middleware still applies on the async endpoints and vice versa).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from graph_core.schema import ToolInfo
from graph_core.tools.endpoint import Endpoints, ToolInput, ToolMiddleware, build_endpoints

INFO = ToolInfo("echo", "", {"type": "object", "properties": {}})
CALL = ToolInput(name="echo", arguments='{"x": 1}', call_id="c1")


class SyncInvoke:
    info = INFO

    def invoke(self, arguments: str) -> str:
        return f"sync-invoke{arguments}"


class AsyncInvoke:
    info = INFO

    async def ainvoke(self, arguments: str) -> str:
        return f"async-invoke{arguments}"


class SyncStream:
    info = INFO

    def stream(self, arguments: str) -> Iterator[str]:
        yield "sync-"
        yield f"stream{arguments}"


class AsyncStream:
    info = INFO

    async def astream(self, arguments: str) -> AsyncIterator[str]:
        yield "async-"
        yield f"stream{arguments}"


class BothInvoke(SyncInvoke, AsyncInvoke):
    pass


def _invoke_middleware(sides: str) -> ToolMiddleware:
    def wrap(next_: Any) -> Any:
        return lambda inp: f"[{next_(inp)}]"

    def awrap(next_: Any) -> Any:
        async def run(inp: ToolInput) -> str:
            return f"[{await next_(inp)}]"

        return run

    return ToolMiddleware(invoke=wrap if "s" in sides else None, ainvoke=awrap if "a" in sides else None)


def _stream_middleware(sides: str) -> ToolMiddleware:
    def wrap(next_: Any) -> Any:
        return lambda inp: iter(["[", *next_(inp), "]"])

    def awrap(next_: Any) -> Any:
        async def run(inp: ToolInput) -> AsyncIterator[str]:
            yield "["
            async for chunk in next_(inp):
                yield chunk
            yield "]"

        return run

    return ToolMiddleware(stream=wrap if "s" in sides else None, astream=awrap if "a" in sides else None)


def _all_four(endpoints: Endpoints) -> list[str]:
    async def run_async() -> list[str]:
        chunks = [chunk async for chunk in endpoints.astream(CALL)]
        return [await endpoints.ainvoke(CALL), "".join(chunks)]

    sync = [endpoints.invoke(CALL), "".join(endpoints.stream(CALL))]
    return sync + asyncio.run(run_async())


TOOLS: dict[str, tuple[Any, str]] = {
    "sync invoke": (SyncInvoke(), "invoke"),
    "async invoke": (AsyncInvoke(), "invoke"),
    "both invoke": (BothInvoke(), "invoke"),
    "sync stream": (SyncStream(), "stream"),
    "async stream": (AsyncStream(), "stream"),
}


@pytest.mark.parametrize("tool_kind", list(TOOLS))
@pytest.mark.parametrize("sides", ["", "s", "a", "sa"])
def test_every_endpoint_applies_the_native_surface_middleware_once(tool_kind: str, sides: str) -> None:
    tool, native = TOOLS[tool_kind]
    middlewares = [] if not sides else [_invoke_middleware(sides), _stream_middleware(sides)]

    results = _all_four(build_endpoints(tool, middlewares))

    core = {"invoke": "invoke", "stream": "stream"}[native] + CALL.arguments
    for result in results:
        text = result.removeprefix("[").removesuffix("]") if sides else result
        assert text.endswith(core)
        assert text.removesuffix(core) in ("sync-", "async-")
        assert result.count("[") == (1 if sides else 0)
    if tool_kind == "both invoke":  # a one-sided middleware chain serves both sides; else each its own
        expected = {"s": ["sync"] * 4, "a": ["async"] * 4}.get(sides, ["sync", "sync", "async", "async"])
        assert [r.strip("[]").split("-")[0] for r in results] == expected


def test_middlewares_of_the_other_surface_do_not_apply() -> None:
    endpoints = build_endpoints(SyncInvoke(), [_stream_middleware("sa")])
    assert _all_four(endpoints) == ['sync-invoke{"x": 1}'] * 4


def test_first_listed_middleware_is_outermost_on_every_endpoint() -> None:
    def tagged(tag: str) -> ToolMiddleware:
        return ToolMiddleware(invoke=lambda next_: lambda inp: f"{tag}({next_(inp)})")

    endpoints = build_endpoints(AsyncInvoke(), [tagged("outer"), tagged("inner")])
    assert _all_four(endpoints) == ['outer(inner(async-invoke{"x": 1}))'] * 4


def test_a_tool_without_any_surface_is_refused() -> None:
    class Nothing:
        info = INFO

    with pytest.raises(
        TypeError, match="tool echo is not invokable, streamable, enhanced invokable or enhanced streamable"
    ):
        build_endpoints(Nothing(), [])
