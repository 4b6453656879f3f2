"""Stream mode and the four paradigms: derivation, stream branches, keys, fan-in, component node kinds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, Lambda
from graph_core.errors import NodeRunError
from graph_core.schema import Message, ToolCall
from tests.helpers import wire


def single(node: Any, **options: Any) -> Any:
    g = Graph()
    if isinstance(node, Graph):
        g.add_graph_node("n", node, **options)
    else:
        g.add_lambda_node("n", node, **options)
    wire(g, "n")
    return g.compile()


def astream_list(compiled: Any, value: Any, **kwargs: Any) -> list[Any]:
    async def go() -> list[Any]:
        return [chunk async for chunk in compiled.astream(value, **kwargs)]

    return asyncio.run(go())


def words(text: str) -> Iterator[str]:
    for word in text.split():
        yield word + " "


def test_stream_only_lambda_in_both_modes() -> None:
    compiled = single(Lambda(stream=words))
    assert compiled.invoke("a b c") == "a b c "  # invoke mode concatenates the stream
    assert list(compiled.stream("a b c")) == ["a ", "b ", "c "]
    assert astream_list(compiled, "a b") == ["a ", "b "]


def test_invoke_only_lambda_in_stream_mode_gets_concatenated_input() -> None:
    upper = Graph()
    upper.add_lambda_node("src", Lambda(stream=words))
    upper.add_lambda_node("up", str.upper)
    wire(upper, "src", "up")
    assert list(upper.compile().stream("x y")) == ["X Y "]


def test_collect_and_transform_paradigms() -> None:
    def count(chunks: Iterator[str]) -> int:
        return sum(1 for _ in chunks)

    def shout(chunks: Iterator[str]) -> Iterator[str]:
        for chunk in chunks:
            yield chunk.upper()

    assert single(Lambda(collect=count)).invoke("whole") == 1
    assert list(single(Lambda(transform=shout)).stream("ab")) == ["AB"]
    assert single(Lambda(transform=shout)).invoke("ab") == "AB"


def test_async_generator_stream_lambda() -> None:
    async def agen(text: str) -> AsyncIterator[str]:
        for ch in text:
            await asyncio.sleep(0)
            yield ch

    compiled = single(Lambda(stream=agen))
    assert list(compiled.stream("abc")) == ["a", "b", "c"]
    assert compiled.invoke("abc") == "abc"


def test_node_completes_when_it_returns_its_stream() -> None:
    """The downstream node starts reading before the upstream generator has finished."""
    events: list[str] = []

    def produce(_: Any) -> Iterator[str]:
        for i in range(3):
            events.append(f"produce {i}")
            yield str(i)

    def consume(chunks: Iterator[str]) -> Iterator[str]:
        events.append("consumer started")
        for chunk in chunks:
            events.append(f"consume {chunk}")
            yield chunk

    g = Graph()
    g.add_lambda_node("p", Lambda(stream=produce))
    g.add_lambda_node("c", Lambda(transform=consume))
    wire(g, "p", "c")
    assert list(g.compile().stream(None)) == ["0", "1", "2"]
    assert events[:3] == ["consumer started", "produce 0", "consume 0"]


@pytest.mark.parametrize("how", ["invoke", "stream"])
def test_stream_branch_reads_first_chunk(how: str) -> None:
    seen: list[Any] = []

    def decide(chunks: Iterator[str]) -> str:
        first = next(chunks)
        seen.append(first)
        return "tools" if first.startswith("call") else END

    g = Graph()
    g.add_lambda_node("model", Lambda(stream=words))
    g.add_lambda_node("tools", lambda text: "ran tools")
    g.add_edge(START, "model")
    g.add_branch("model", Branch.stream(decide, ["tools", END]))
    g.add_edge("tools", END)
    compiled = g.compile()
    if how == "invoke":
        assert compiled.invoke("call x") == "ran tools"
        assert compiled.invoke("answer y") == "answer y "
        assert seen == ["call x ", "answer y "]  # invoke mode: one chunk, the whole output
    else:
        assert "".join(compiled.stream("call x")) == "ran tools"
        assert "".join(compiled.stream("answer y")) == "answer y "
        assert seen == ["call ", "answer "]  # stream mode: the live stream


def test_invoke_branch_in_stream_mode_sees_concatenation_and_multi_branch_fans_out() -> None:
    got: list[Any] = []
    g = Graph()
    g.add_lambda_node("src", Lambda(stream=words))
    g.add_lambda_node("a", lambda s: {"a": s})
    g.add_lambda_node("b", lambda s: {"b": s})
    g.add_edge(START, "src")
    g.add_branch("src", Branch.multi(lambda s: got.append(s) or {"a", "b"}, ["a", "b"]))
    g.add_edge("a", END)
    g.add_edge("b", END)
    chunks = list(g.compile().stream("p q"))
    assert got == ["p q "]
    merged: dict[str, Any] = {}
    for chunk in chunks:
        merged.update(chunk)
    assert merged == {"a": "p q ", "b": "p q "}


def test_input_and_output_keys() -> None:
    compiled = single(lambda v: v * 2, input_key="x", output_key="y")
    assert compiled.invoke({"x": 2, "z": 0}) == {"y": 4}
    assert list(compiled.stream({"x": 2})) == [{"y": 4}]
    with pytest.raises(NodeRunError, match="cannot find input key: x"):
        compiled.invoke({"z": 1})


def test_stream_mode_input_key_drops_chunks_without_the_key() -> None:
    def chunks(_: Any) -> Iterator[dict[str, str]]:
        yield {"q": "a"}
        yield {"other": "skip"}
        yield {"q": "b"}

    g = Graph()
    g.add_lambda_node("src", Lambda(stream=chunks))
    g.add_lambda_node("take", Lambda(transform=lambda it: (c.upper() for c in it)), input_key="q")
    wire(g, "src", "take")
    assert list(g.compile().stream(None)) == ["A", "B"]


def test_fan_in_of_streams_interleaves() -> None:
    g = Graph()
    g.add_lambda_node("l", Lambda(stream=lambda _: iter([{"l": 1}, {"l2": 2}])))
    g.add_lambda_node("r", Lambda(stream=lambda _: iter([{"r": 3}])))
    g.add_edge(START, "l")
    g.add_edge(START, "r")
    g.add_edge("l", END)
    g.add_edge("r", END)
    chunks = list(g.compile().stream(None))
    assert sorted(k for chunk in chunks for k in chunk) == ["l", "l2", "r"]


def test_stream_callbacks_get_private_copies() -> None:
    read: dict[str, list[Any]] = {}

    class StreamObserver:
        def on_start_with_stream_input(self, info: Any, stream: Iterator[Any]) -> None:
            read[f"in:{info.node_key}"] = list(stream)

        def on_end_with_stream_output(self, info: Any, stream: Iterator[Any]) -> None:
            read[f"out:{info.node_key}"] = list(stream)

    compiled = single(Lambda(stream=words))
    assert list(compiled.stream("u v", callbacks=[StreamObserver()])) == ["u ", "v "]
    assert read == {"in:None": ["u v"], "in:n": ["u v"], "out:n": ["u ", "v "], "out:None": ["u ", "v "]}


class FakeModel:
    """Duck-typed chat model: generate/stream."""

    def __init__(self) -> None:
        self.calls: list[list[Message]] = []

    def generate(self, messages: list[Message]) -> Message:
        self.calls.append(messages)
        return Message.assistant("", tool_calls=[ToolCall(id="c1", name="echo", arguments="{}")])

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        self.calls.append(messages)
        yield Message.assistant("", tool_calls=[ToolCall(id="c1", name="echo", arguments='{"a"', index=0)])
        yield Message.assistant("", tool_calls=[ToolCall(arguments=": 1}", index=0)])


class FakeTools:
    def invoke(self, message: Message) -> list[Message]:
        return [Message.tool(c.arguments, tool_call_id=c.id, tool_name=c.name) for c in message.tool_calls]

    def stream(self, message: Message) -> Iterator[list[Message | None]]:
        yield self.invoke(message)  # type: ignore[misc]


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream"])
def test_chat_model_and_tools_node_kinds(how: str) -> None:
    kinds: list[tuple[str | None, str]] = []

    class Kinds:
        def on_start(self, info: Any, value: Any) -> None:
            kinds.append((info.node_key, info.kind))

        on_start_with_stream_input = on_start

    model = FakeModel()
    g = Graph()
    g.add_chat_model_node("chat", model, name="ChatModel")
    g.add_tools_node("tools", FakeTools(), name="Tools")
    wire(g, "chat", "tools")
    compiled = g.compile()
    messages = [Message.user("hi")]
    if how == "invoke":
        result = compiled.invoke(messages, callbacks=[Kinds()])
    elif how == "ainvoke":
        result = asyncio.run(compiled.ainvoke(messages, callbacks=[Kinds()]))
    else:
        from graph_core.stream import collect

        result = collect(compiled.stream(messages, callbacks=[Kinds()]))
    expected = "{}" if how != "stream" else '{"a": 1}'
    assert [m.content for m in result] == [expected]
    assert kinds == [(None, "Graph"), ("chat", "ChatModel"), ("tools", "ToolsNode")]
    assert model.calls == [messages]
