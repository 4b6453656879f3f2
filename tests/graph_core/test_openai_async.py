"""OpenAIChatModel async paths (`agenerate`, `astream`) against the loopback wire-format server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from graph_core.models import ChatModel
from graph_core.models.openai import (
    ChatModelStatusError,
    ChatModelStreamError,
    ChatModelTimeoutError,
    OpenAIChatModel,
    ToolCallArgumentsError,
)
from graph_core.schema import Message, TokenUsage, ToolInfo, concat_messages
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event, tool_delta

KEY = "sk-async-SECRET-fedcba9876543210"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


class _Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def _model(server: ChatServer, sleeps: _Sleeps | None = None, **options: object) -> OpenAIChatModel:
    return OpenAIChatModel(
        model="test-model",
        base_url=server.base_url,
        api_key=KEY,
        async_sleep=sleeps or _Sleeps(),
        **options,  # type: ignore[arg-type]
    )


async def _collect(model: OpenAIChatModel, messages: list[Message], into: list[Message]) -> None:
    async for chunk in model.astream(messages):
        into.append(chunk)


def test_it_satisfies_the_chat_model_protocol() -> None:
    model: ChatModel = OpenAIChatModel(model="m", base_url="http://127.0.0.1:9/v1", api_key=KEY)
    assert isinstance(model, ChatModel)
    assert isinstance(model.with_tools([]), ChatModel)


def test_agenerate_decodes_content_and_usage(server: ChatServer) -> None:
    usage = {"prompt_tokens": 4, "completion_tokens": 1, "total_tokens": 5}
    server.script(Reply.json(completion("pong", usage=usage)))

    message = asyncio.run(_model(server).agenerate([Message.user("ping")]))

    assert (message.content, message.finish_reason) == ("pong", "stop")
    assert message.usage == TokenUsage(prompt_tokens=4, completion_tokens=1, total_tokens=5)
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert server.requests[0].body["stream"] is False


def test_astream_assembles_a_tool_call_split_across_deltas_after_text(server: ChatServer) -> None:
    arguments = '{"city": "Lisbon", "unit": "celsius"}'
    events = [delta_event({"role": "assistant", "content": "Checking"})]
    events.append(delta_event({"tool_calls": [tool_delta(0, id="call_7", name="get_weather", arguments="")]}))
    events += [
        delta_event({"tool_calls": [tool_delta(0, arguments=arguments[i : i + 3])]})
        for i in range(0, len(arguments), 3)
    ]
    events.append(delta_event({}, finish_reason="tool_calls"))
    events.append(
        delta_event(no_choices=True, usage={"prompt_tokens": 9, "completion_tokens": 8, "total_tokens": 17})
    )
    server.script(Reply.sse(events, split_events=True))
    chunks: list[Message] = []

    asyncio.run(_collect(_model(server).with_tools([ToolInfo("get_weather")]), [Message.user("x")], chunks))

    assert chunks[0].content == "Checking" and not chunks[0].tool_calls
    full = concat_messages(chunks)
    assert full.content == "Checking"
    assert [(c.id, c.name, c.arguments) for c in full.tool_calls] == [("call_7", "get_weather", arguments)]
    assert full.usage is not None and full.usage.total_tokens == 17
    assert server.requests[0].body["stream_options"] == {"include_usage": True}


def test_astream_connection_dropped_mid_stream(server: ChatServer) -> None:
    server.script(Reply.sse([delta_event({"content": f"{i}"}) for i in range(4)], drop_after=3))
    chunks: list[Message] = []

    with pytest.raises(ChatModelStreamError, match="stream broke off after 3 events") as caught:
        asyncio.run(_collect(_model(server), [Message.user("x")], chunks))

    assert [c.content for c in chunks] == ["0", "1", "2"]
    assert server.base_url in str(caught.value)
    assert len(server.requests) == 1


def test_astream_invalid_tool_arguments_raised_at_the_end(server: ChatServer) -> None:
    server.script(
        Reply.sse(
            [
                delta_event({"tool_calls": [tool_delta(0, id="call_q", name="t", arguments="[1,2]")]}),
                delta_event({}, finish_reason="tool_calls"),
            ]
        )
    )
    with pytest.raises(ToolCallArgumentsError, match=r"`call_q`.*JSON list, not an object"):
        asyncio.run(_collect(_model(server), [Message.user("x")], []))


def test_429_then_success_async(server: ChatServer) -> None:
    sleeps = _Sleeps()
    server.script(
        Reply.json({"error": {"message": "slow"}}, status=429),
        Reply.json({"error": {"message": "slow"}}, status=429, headers={"Retry-After": "1.5"}),
        Reply.json(completion("ok")),
        Reply.json({"error": {"message": "slow"}}, status=502),
        Reply.sse([delta_event({"content": "streamed"}, finish_reason="stop")]),
    )
    model = _model(server, sleeps)

    assert asyncio.run(model.agenerate([Message.user("x")])).content == "ok"
    chunks: list[Message] = []
    asyncio.run(_collect(model, [Message.user("x")], chunks))

    assert concat_messages(chunks).content == "streamed"
    assert sleeps.delays == [0.5, 1.5, 0.5]
    assert len(server.requests) == 5


def test_401_async_never_leaks_the_key(server: ChatServer) -> None:
    server.script(Reply.json({"error": {"message": f"bad key {KEY}"}}, status=401))
    with pytest.raises(ChatModelStatusError, match="HTTP 401 Unauthorized: bad key \\*\\*\\*") as caught:
        asyncio.run(_model(server).agenerate([Message.user("x")]))
    error = caught.value
    assert KEY not in str(error) and KEY not in repr(vars(error))
    assert error.__cause__ is None and error.__context__ is None


def test_agenerate_timeout(server: ChatServer) -> None:
    server.script(Reply(body=b"{}", delay=2.0))
    with pytest.raises(ChatModelTimeoutError, match="timed out"):
        asyncio.run(_model(server, timeout=0.1).agenerate([Message.user("x")]))
    assert len(server.requests) == 1


def test_injected_async_client_is_used_and_left_open(server: ChatServer) -> None:
    server.script(Reply.json(completion("a")), Reply.json(completion("b")))

    async def scenario() -> list[str]:
        async with httpx.AsyncClient(headers={"X-Via": "injected"}) as client:
            model = _model(server, async_http_client=client)
            first = await model.agenerate([Message.user("x")])
            second = await model.agenerate([Message.user("y")])
            assert not client.is_closed
            return [first.content, second.content]

    assert asyncio.run(scenario()) == ["a", "b"]
    assert [r.headers.get("x-via") for r in server.requests] == ["injected", "injected"]


def test_astream_accepts_a_json_answer(server: ChatServer) -> None:
    server.script(Reply.json(completion("whole")))
    chunks: list[Message] = []
    asyncio.run(_collect(_model(server), [Message.user("x")], chunks))
    assert [c.content for c in chunks] == ["whole"]
