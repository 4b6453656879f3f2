"""ToolsNode: call order, parallelism, handlers, middlewares, callbacks, stream chunking, errors."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core.callbacks import RunInfo
from graph_core.context import RunScope, scoped
from graph_core.schema import Message, ToolCall, concat_messages
from graph_core.tools import (
    ToolCallError,
    ToolInput,
    ToolMiddleware,
    ToolNotFoundError,
    ToolsNode,
    ToolsNodeInputError,
    get_tool_call_id,
    tool,
)


def cells(rows: list[list[Message | None]]) -> list[tuple[int, str]]:
    """(slot index, content) of each chunk's single non-None entry."""
    return [next((i, m.content) for i, m in enumerate(r) if m is not None) for r in rows]


def slot(rows: list[list[Message | None]], index: int) -> list[Message]:
    return [m for r in rows if (m := r[index]) is not None]


def calls(*specs: tuple[str, str, str]) -> Message:
    return Message.assistant(tool_calls=[ToolCall(i, n, a) for i, n, a in specs])


@tool
def echo(text: str) -> str:
    return f"{text}@{get_tool_call_id()}"


@tool
def salary(person: str) -> Iterator[str]:
    yield from ("1", "0", "0")


@tool
def company(person: str) -> str:
    return "acme"


def test_outputs_are_tool_messages_in_call_order() -> None:
    node = ToolsNode([echo, company])
    out = node.invoke(calls(("c1", "company", '{"person": "a"}'), ("c2", "echo", '{"text": "x"}')))
    assert [(m.role, m.content, m.tool_call_id, m.tool_name) for m in out] == [
        ("tool", "acme", "c1", "company"),
        ("tool", "x@c2", "c2", "echo"),
    ]


def test_plain_functions_become_tools() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    node = ToolsNode([add])
    assert node.tool_infos[0].name == "add"
    assert node.invoke(calls(("1", "add", '{"a": 2, "b": 3}')))[0].content == "5"


def test_sync_tools_run_in_parallel_and_keep_the_call_scope() -> None:
    barrier = threading.Barrier(3, timeout=5)  # would time out if the three calls ran one after another
    seen: list[tuple[str, str | None]] = []
    lock = threading.Lock()

    @tool
    def wait(tag: str) -> str:
        barrier.wait()
        scope_path = None
        from graph_core.context import current_scope

        scope = current_scope()
        scope_path = "/".join(scope.path) if scope else None
        with lock:
            seen.append((get_tool_call_id(), scope_path))
        return tag

    node = ToolsNode([wait])
    with scoped(RunScope(path=("agent", "tools"))):
        out = node.invoke(calls(*[(f"c{i}", "wait", f'{{"tag": "t{i}"}}') for i in range(3)]))
    assert [m.content for m in out] == ["t0", "t1", "t2"]
    assert sorted(seen) == [("c0", "agent/tools"), ("c1", "agent/tools"), ("c2", "agent/tools")]


def test_async_tools_run_concurrently_in_ainvoke() -> None:
    started: list[str] = []

    @tool
    async def ping(tag: str) -> str:
        started.append(tag)
        # Each call waits until both have started: only possible if they run concurrently.
        for _ in range(100):
            if len(started) == 2:
                return f"{tag}:{get_tool_call_id()}"
            await asyncio.sleep(0)
        raise AssertionError("calls did not overlap")

    node = ToolsNode([ping])
    out = asyncio.run(node.ainvoke(calls(("a", "ping", '{"tag": "1"}'), ("b", "ping", '{"tag": "2"}'))))
    assert [m.content for m in out] == ["1:a", "2:b"]


def test_async_tools_also_overlap_in_sync_invoke() -> None:
    barrier = threading.Barrier(2, timeout=5)

    @tool
    async def meet(tag: str) -> str:
        await asyncio.to_thread(barrier.wait)
        return tag

    node = ToolsNode([meet])
    out = node.invoke(calls(("a", "meet", '{"tag": "1"}'), ("b", "meet", '{"tag": "2"}')))
    assert [m.content for m in out] == ["1", "2"]


def test_execute_sequentially_runs_in_call_order_on_the_caller_thread() -> None:
    order: list[tuple[str, str]] = []

    @tool
    def note(tag: str) -> str:
        order.append((tag, threading.current_thread().name))
        return tag

    node = ToolsNode([note], execute_sequentially=True)
    node.invoke(calls(*[(str(i), "note", f'{{"tag": "{i}"}}') for i in range(4)]))
    me = threading.current_thread().name
    assert order == [("0", me), ("1", me), ("2", me), ("3", me)]


def test_input_must_be_assistant_message_with_tool_calls() -> None:
    node = ToolsNode([echo])
    with pytest.raises(ToolsNodeInputError, match="expected message role is Assistant, got user"):
        node.invoke(Message.user("hi"))
    with pytest.raises(ToolsNodeInputError, match="no tool call found in input message"):
        node.invoke(Message.assistant("just text"))


def test_unknown_tool_fails_before_any_tool_runs() -> None:
    ran: list[str] = []

    @tool
    def side_effect() -> str:
        ran.append("yes")
        return ""

    node = ToolsNode([side_effect])
    with pytest.raises(ToolNotFoundError, match="tool nope not found in toolsNode indexes"):
        node.invoke(calls(("1", "side_effect", "{}"), ("2", "nope", "{}")))
    assert ran == []


def test_unknown_tools_handler_gets_raw_name_and_arguments() -> None:
    node = ToolsNode([echo], unknown_tools_handler=lambda name, args: f"unknown {name} {args}")
    out = node.invoke(calls(("1", "unknown1", "{}"), ("2", "unknown2", '{"x":1}')))
    assert [(m.content, m.tool_call_id, m.tool_name) for m in out] == [
        ("unknown unknown1 {}", "1", "unknown1"),
        ('unknown unknown2 {"x":1}', "2", "unknown2"),
    ]


def test_tool_arguments_handler_rewrites_arguments_and_its_errors_name_the_call() -> None:
    node = ToolsNode([echo], tool_arguments_handler=lambda name, args: args.replace('"q"', '"y"'))
    assert node.invoke(calls(("1", "echo", '{"text": "q"}')))[0].content == "y@1"

    def broken(name: str, args: str) -> str:
        raise RuntimeError("bad args")

    node = ToolsNode([echo], tool_arguments_handler=broken)
    with pytest.raises(
        ToolCallError, match=r"failed to executed tool\[name:echo arguments:\{\}\] arguments handler"
    ):
        node.invoke(calls(("1", "echo", "{}")))


def test_failing_tool_names_tool_and_call_id() -> None:
    @tool
    def boom() -> str:
        raise KeyError("gone")

    node = ToolsNode([boom, echo])
    with pytest.raises(ToolCallError, match=r"failed to invoke tool\[name:boom id:c2\]: 'gone'") as caught:
        node.invoke(calls(("c1", "echo", '{"text": "ok"}'), ("c2", "boom", "{}")))
    assert isinstance(caught.value.__cause__, KeyError)
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("boom", "c2")


def test_invalid_arguments_fail_the_node_with_field_name() -> None:
    node = ToolsNode([echo])
    with pytest.raises(ToolCallError, match=r"tool\[name:echo id:c7\].*field `text`: Field required"):
        node.invoke(calls(("c7", "echo", '{"txt": "a"}')))


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str | None, tuple[str, ...], Any]] = []
        self.lock = threading.Lock()

    def on_start(self, info: RunInfo, input: Any) -> None:
        with self.lock:
            self.events.append(("start", info.name, info.tool_call_id, info.path, input))
        assert info.kind == "Tool" and info.node_key == "tools" and info.step == 4

    def on_end(self, info: RunInfo, output: Any) -> None:
        with self.lock:
            self.events.append(("end", info.name, info.tool_call_id, info.path, output))

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        with self.lock:
            self.events.append(("error", info.name, info.tool_call_id, info.path, str(error)))


def test_per_tool_callbacks_use_the_run_scope() -> None:
    @tool
    def fail() -> str:
        raise ValueError("no")

    rec = Recorder()
    node = ToolsNode([echo, fail], execute_sequentially=True)
    with scoped(RunScope(callbacks=(rec,), path=("tools",), step=4)):
        node.invoke(calls(("c1", "echo", '{"text": "a"}')))
        with pytest.raises(ToolCallError):
            node.invoke(calls(("c2", "fail", "{}")))
    assert rec.events == [
        ("start", "echo", "c1", ("tools",), '{"text": "a"}'),
        ("end", "echo", "c1", ("tools",), "a@c1"),
        ("start", "fail", "c2", ("tools",), "{}"),
        ("error", "fail", "c2", ("tools",), "no"),
    ]


def test_no_callbacks_outside_a_run() -> None:
    assert ToolsNode([echo]).invoke(calls(("1", "echo", '{"text": "z"}')))[0].content == "z@1"


def test_middlewares_first_listed_is_outermost_and_apply_to_native_surface_only() -> None:
    trail: list[str] = []

    def named(tag: str) -> ToolMiddleware:
        def wrap_invoke(next_ep: Any) -> Any:
            def ep(inp: ToolInput) -> str:
                trail.append(f"{tag}>{inp.name}")
                return f"{tag}({next_ep(inp)})"

            return ep

        return ToolMiddleware(invoke=wrap_invoke)

    def stream_mw(next_ep: Any) -> Any:
        def ep(inp: ToolInput) -> Iterator[str]:
            return iter(["middleware2"])

        return ep

    node = ToolsNode(
        [company, salary], middlewares=[named("outer"), named("inner"), ToolMiddleware(stream=stream_mw)]
    )
    msg = calls(("1", "company", '{"person": "p"}'), ("2", "salary", '{"person": "p"}'))
    out = node.invoke(msg)
    assert [m.content for m in out] == ["outer(inner(acme))", "middleware2"]
    assert trail == ["outer>company", "inner>company"]
    # Stream mode derives the stream of the invoke-only tool after wrapping, so its middlewares still apply.
    rows = list(
        ToolsNode([company, salary], middlewares=[named("m"), ToolMiddleware(stream=stream_mw)]).stream(msg)
    )
    merged = [concat_messages(slot(rows, i)).content for i in range(2)]
    assert merged == ["m(acme)", "middleware2"]


def test_sync_only_middleware_still_applies_in_async_mode() -> None:
    def wrap(next_ep: Any) -> Any:
        return lambda inp: "wrapped:" + next_ep(inp)

    node = ToolsNode([echo], middlewares=[ToolMiddleware(invoke=wrap)])
    out = asyncio.run(node.ainvoke(calls(("k", "echo", '{"text": "q"}'))))
    assert out[0].content == "wrapped:q@k"


def test_stream_chunks_have_one_slot_per_call_like_eino() -> None:
    node = ToolsNode([company, salary])
    msg = calls(("c1", "company", '{"person": "p"}'), ("c2", "salary", '{"person": "p"}'))
    rows = list(node.stream(msg))
    assert len(rows) == 4  # 1 company chunk + 3 salary chunks
    for row in rows:
        assert len(row) == 2 and sum(m is not None for m in row) == 1
    assert [r[1].content for r in rows if r[1] is not None] == ["1", "0", "0"]  # per-tool order kept
    rebuilt = [concat_messages(slot(rows, i)) for i in range(2)]
    assert rebuilt == node.invoke(msg)


def test_sequential_stream_is_in_call_order_and_async_stream_matches() -> None:
    msg = calls(("c1", "salary", '{"person": "p"}'), ("c2", "company", '{"person": "p"}'))
    rows = list(ToolsNode([company, salary], execute_sequentially=True).stream(msg))
    assert cells(rows) == [(0, "1"), (0, "0"), (0, "0"), (1, "acme")]

    async def collect(sequential: bool) -> list[list[Message | None]]:
        node = ToolsNode([company, salary], execute_sequentially=sequential)
        return [row async for row in node.astream(msg)]

    assert asyncio.run(collect(True)) == rows
    parallel = asyncio.run(collect(False))
    assert sorted(cells(parallel)) == sorted([(0, "1"), (0, "0"), (0, "0"), (1, "acme")])


def test_stream_errors_name_the_tool_and_call() -> None:
    @tool
    def half(n: int) -> Iterator[str]:
        yield "a"
        raise RuntimeError("cut")

    node = ToolsNode([half, company])
    msg = calls(("c1", "company", '{"person": "p"}'), ("c2", "half", '{"n": 1}'))
    with pytest.raises(ToolCallError, match=r"failed to stream tool\[name:half id:c2\]: cut"):
        list(node.stream(msg))
    with pytest.raises(ToolCallError, match=r"failed to stream tool\[name:half id:c2\]: cut"):
        list(ToolsNode([half], execute_sequentially=True).stream(calls(("c2", "half", '{"n": 1}'))))

    async def run_async() -> None:
        async for _ in node.astream(msg):
            pass

    with pytest.raises(ToolCallError, match=r"tool\[name:half id:c2\]"):
        asyncio.run(run_async())


def test_invoke_only_tool_failure_in_stream_mode_raises_when_stream_is_opened() -> None:
    @tool
    def bad() -> str:
        raise ValueError("early")

    with pytest.raises(ToolCallError, match=r"failed to stream tool\[name:bad id:1\]: early"):
        ToolsNode([bad]).stream(calls(("1", "bad", "{}")))


def test_duplicate_tool_names_are_rejected() -> None:
    with pytest.raises(ValueError, match="duplicate tool name `echo`"):
        ToolsNode([echo, echo])
