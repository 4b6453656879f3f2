"""`astream` runs stream mode natively on the caller's event loop (the sync engine is not on a thread)."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, Lambda, stream_handler
from graph_core.astream import AsyncStream
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import GraphRunError, InterruptError
from graph_core.graph import FanInMergeConfig
from graph_core.interrupt import get_interrupt_state, get_resume_data, interrupt
from graph_core.schema import Message, ToolCall
from graph_core.stream import SourceEOF, StreamError
from graph_core.tools import ToolsNode, tool
from tests.helpers import wire


def run(coro_fn: Any) -> Any:
    return asyncio.run(coro_fn())


async def chunks_of(compiled: Any, value: Any, **options: Any) -> list[Any]:
    return [c async for c in compiled.astream(value, **options)]


def test_async_generator_node_and_async_condition_run_on_the_callers_loop() -> None:
    seen: list[Any] = []

    async def produce(text: str) -> AsyncIterator[str]:
        seen.append(("produce", asyncio.get_running_loop(), threading.get_ident()))
        for word in text.split():
            yield word

    async def decide(stream: AsyncIterator[str]) -> str:
        seen.append(("decide", asyncio.get_running_loop(), threading.get_ident()))
        async for first in stream:
            return "shout" if first == "loud" else END
        return END

    g = Graph()
    g.add_lambda_node("words", Lambda(stream=produce))
    g.add_lambda_node("shout", str.upper)
    g.add_edge(START, "words")
    g.add_branch("words", Branch.stream(decide, ["shout", END]))
    g.add_edge("shout", END)
    compiled = g.compile()

    async def go() -> tuple[list[Any], list[Any]]:
        loop = asyncio.get_running_loop()
        seen.append(("caller", loop, threading.get_ident()))
        return await chunks_of(compiled, "loud a"), await chunks_of(compiled, "quiet b")

    loud, quiet = run(go)
    assert loud == ["LOUDA"] and quiet == ["quiet", "b"]
    caller_loop, caller_thread = seen[0][1], seen[0][2]
    assert {(loop, thread) for _, loop, thread in seen} == {(caller_loop, caller_thread)}


def test_sync_code_still_gets_iterators_and_runs_off_the_loop() -> None:
    """Sync transforms, conditions, handlers and stream callbacks read an AsyncStream with plain `for`."""
    threads: Counter[str] = Counter()
    caller: list[int] = []

    def note(name: str) -> None:
        threads[name] += threading.get_ident() != caller[0]

    def shout(chunks: Iterator[str]) -> Iterator[str]:
        note("transform")
        for chunk in chunks:
            yield chunk.upper()

    def decide(chunks: Iterator[str]) -> str:
        note("condition")
        return "tail" if next(chunks) == "A" else END

    @stream_handler
    def pre(chunks: Iterator[str], state: dict[str, Any]) -> Iterator[str]:
        note("handler")
        for chunk in chunks:
            state.setdefault("seen", []).append(chunk)
            yield chunk

    read: dict[str, list[Any]] = {}

    class Observer:
        def on_end_with_stream_output(self, info: Any, stream: Iterator[Any]) -> None:
            note("callback")
            read[str(info.node_key)] = list(stream)

    states: list[dict[str, Any]] = []
    g = Graph(state=lambda: states.append({}) or states[-1])
    g.add_lambda_node("src", Lambda(stream=lambda text: iter(text.split())))
    g.add_lambda_node("shout", Lambda(transform=shout), pre=pre)
    g.add_lambda_node("tail", lambda text: f"{text}!")
    g.add_edge(START, "src")
    g.add_edge("src", "shout")
    g.add_branch("shout", Branch.stream(decide, ["tail", END]))
    g.add_edge("tail", END)

    async def go() -> list[Any]:
        caller.append(threading.get_ident())
        return await chunks_of(g.compile(), "a b", callbacks=[Observer()])

    assert run(go) == ["AB!"]
    assert states == [{"seen": ["a", "b"]}]
    assert read["src"] == ["a", "b"] and read["shout"] == ["A", "B"] and read["None"] == ["AB!"]
    assert threads == Counter({"transform": 1, "condition": 1, "handler": 1, "callback": 4})


def test_reading_an_async_stream_with_for_on_the_loop_is_a_clear_error() -> None:
    async def go() -> None:
        async def source() -> AsyncIterator[int]:
            yield 1

        with pytest.raises(StreamError, match="use `async for`"):
            next(AsyncStream(source(), asyncio.get_running_loop()))

    run(go)


class AsyncOnlyModel:
    """A chat model whose streaming is async only, recording where it ran."""

    def __init__(self, script: list[list[Message]]) -> None:
        self.script = script
        self.loops: list[asyncio.AbstractEventLoop] = []

    def generate(self, messages: list[Message]) -> Message:  # pragma: no cover - not used by astream
        raise AssertionError("sync generate called")

    async def astream(self, messages: list[Message]) -> AsyncIterator[Message]:
        self.loops.append(asyncio.get_running_loop())
        for chunk in self.script.pop(0):
            await asyncio.sleep(0)
            yield chunk


def test_react_agent_astream_with_async_model_and_async_tool_on_the_callers_loop() -> None:
    from graph_core.agents.react import ReActAgent

    tool_loops: list[asyncio.AbstractEventLoop] = []

    @tool
    async def weather(city: str) -> str:
        """Weather.

        Args:
            city: The city.
        """
        tool_loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return f"sunny in {city}"

    call = ToolCall("c1", "weather", '{"city": "Paris"}', index=0)
    model = AsyncOnlyModel(
        [
            [Message.assistant("", tool_calls=[call])],
            [Message.assistant("It is "), Message.assistant("sunny.")],
        ]
    )
    model.with_tools = lambda infos: model  # type: ignore[attr-defined]
    agent = ReActAgent(model=model, tools=[weather])

    async def go() -> tuple[list[Any], asyncio.AbstractEventLoop]:
        return [c async for c in agent.astream("Weather?")], asyncio.get_running_loop()

    chunks, loop = run(go)
    assert [c.content for c in chunks] == ["It is ", "sunny."]
    assert model.loops == [loop, loop] and tool_loops == [loop]


def test_tools_node_composite_interrupt_through_astream_and_resume() -> None:
    runs: Counter[str] = Counter()

    def make(name: str, interrupts: bool) -> Any:
        @tool(name=name, description=f"tool {name}")
        async def act(x: str) -> str:
            runs[name] += 1
            if interrupts and get_interrupt_state() is None:
                interrupt(f"{name}?", state={"x": x})
            return f"{name}:{x}:{get_resume_data()}" if interrupts else f"{name}:{x}"

        return act

    g = Graph()
    g.add_tools_node("tools", ToolsNode([make("t1", True), make("t2", False)]))
    wire(g, "tools")
    compiled = g.compile(checkpoint_store=InMemoryCheckpointStore())
    calls = [ToolCall(f"c{i}", f"t{i}", f'{{"x": "v{i}"}}') for i in (1, 2)]

    async def first() -> None:
        await chunks_of(compiled, Message.assistant("", tool_calls=calls), checkpoint_id="cp")

    with pytest.raises(InterruptError) as caught:
        run(first)
    assert caught.value.info.rerun_nodes == ["tools"]
    assert [c.address for c in caught.value.info.interrupt_contexts if c.is_root_cause] == [
        "runnable:;node:tools;tool:t1:c1"
    ]

    async def resume() -> list[Any]:
        return await chunks_of(compiled, None, checkpoint_id="cp", resume_data="ok")

    rows = run(resume)
    merged = {i: m.content for row in rows for i, m in enumerate(row) if m is not None}
    assert merged == {0: "t1:v1:ok", 1: "t2:v2"}
    assert runs == Counter({"t1": 2, "t2": 1})


def test_static_interrupt_and_resume_in_astream() -> None:
    g = Graph()
    g.add_lambda_node("a", Lambda(stream=lambda s: iter([s, "!"])))
    g.add_lambda_node("b", str.upper)
    wire(g, "a", "b")
    compiled = g.compile(interrupt_before=["b"], checkpoint_store=InMemoryCheckpointStore())

    async def go() -> list[Any]:
        with pytest.raises(InterruptError) as caught:
            await chunks_of(compiled, "hi", checkpoint_id="cp")
        assert caught.value.info.before_nodes == ["b"]
        return await chunks_of(compiled, None, checkpoint_id="cp")

    assert run(go) == ["HI!"]


def test_fan_in_checks_and_source_eof_in_astream() -> None:
    async def s1(_: Any) -> AsyncIterator[dict[str, int]]:
        yield {"a": 1}

    def build(second: list[Any], **options: Any) -> Any:
        g = Graph()
        g.add_lambda_node("s1", Lambda(stream=s1))
        g.add_lambda_node("s2", Lambda(stream=lambda _: iter(second)))
        g.add_lambda_node("m", Lambda(transform=lambda chunks: (c for c in chunks)))
        for s in ("s1", "s2"):
            g.add_edge(START, s)
            g.add_edge(s, "m")
        g.add_edge("m", END)
        return g.compile(**options)

    config = {"m": FanInMergeConfig(stream_merge_with_source_eof=True)}
    chunks = run(lambda: chunks_of(build([{"b": 2}], fan_in_merge=config), None))
    assert sorted(c.source for c in chunks if isinstance(c, SourceEOF)) == ["s1", "s2"]
    assert sorted(k for c in chunks if isinstance(c, dict) for k in c) == ["a", "b"]
    with pytest.raises(GraphRunError, match=r"chunk type mismatch. expect: dict, got: str"):
        run(lambda: chunks_of(build(["x"]), None))


def test_nested_graph_and_dag_in_astream() -> None:
    inner = Graph()
    inner.add_lambda_node("up", Lambda(transform=lambda chunks: (c.upper() for c in chunks)))
    wire(inner, "up")
    outer = Graph()
    outer.add_lambda_node("src", Lambda(stream=lambda s: iter(s)))
    outer.add_graph_node("inner", inner)
    wire(outer, "src", "inner")
    assert run(lambda: chunks_of(outer.compile(), "ab")) == ["A", "B"]

    from graph_core import TriggerMode

    dag = Graph()
    dag.add_lambda_node("l", lambda x: {"l": x})
    dag.add_lambda_node("r", lambda x: {"r": x})
    dag.add_lambda_node("join", lambda d: sorted(d.items()))
    for n in ("l", "r"):
        dag.add_edge(START, n)
        dag.add_edge(n, "join")
    dag.add_edge("join", END)
    compiled = dag.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR)
    assert run(lambda: chunks_of(compiled, 1)) == [[("l", 1), ("r", 1)]]
