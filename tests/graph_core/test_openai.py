"""OpenAIChatModel (sync paths) against a real HTTP server on 127.0.0.1 speaking the wire format."""

from __future__ import annotations

import socket
import subprocess
import sys
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from graph_core.models.openai import (
    ChatModelConnectionError,
    ChatModelError,
    ChatModelResponseError,
    ChatModelStatusError,
    ChatModelStreamError,
    ChatModelTimeoutError,
    OpenAIChatModel,
    ToolCallArgumentsError,
)
from graph_core.schema import Message, TokenUsage, ToolCall, ToolInfo, concat_messages
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event, tool_delta

KEY = "sk-test-SECRET-0123456789abcdef"
WEATHER = ToolInfo(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def model(server: ChatServer, sleeps: list[float]) -> Iterator[OpenAIChatModel]:
    with OpenAIChatModel(
        model="test-model", base_url=server.base_url, api_key=KEY, timeout=5.0, sleep=sleeps.append
    ) as chat_model:
        yield chat_model


def _leaks(error: BaseException) -> list[str]:
    """Every text an error exposes, down its cause/context chain, that contains the key."""
    texts: list[str] = []
    seen: BaseException | None = error
    while seen is not None:
        # httpx errors carry the request, and with it the Authorization header: none may be chained.
        assert not type(seen).__module__.startswith(("httpx", "httpcore")), repr(seen)
        texts += [str(seen), repr(seen), *(repr(v) for v in vars(seen).values())]
        seen = seen.__cause__ or seen.__context__
    texts.append("".join(traceback.format_exception(error)))
    return [t for t in texts if KEY in t]


# --------------------------------------------------------------------------------------------- generate


def test_generate_sends_bearer_auth_and_decodes_content_and_usage(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    server.script(Reply.json(completion("Hello there", usage=usage)))

    message = model.generate([Message.system("be brief"), Message.user("hi")])

    assert message.role == "assistant"
    assert message.content == "Hello there"
    assert message.finish_reason == "stop"
    assert message.usage == TokenUsage(prompt_tokens=12, completion_tokens=3, total_tokens=15)
    assert message.extra == {"openai": {"id": "chatcmpl-1", "model": "test-model"}}
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body == {
        "model": "test-model",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
        "stream": False,
    }


def test_tool_definitions_history_and_tool_calls_round_trip(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    call = {
        "id": "call_9",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
    }
    server.script(Reply.json(completion(None, tool_calls=[call], finish_reason="tool_calls")))
    history = [
        Message.user("weather in Paris, then Oslo?"),
        Message.assistant("", tool_calls=[ToolCall("call_1", "get_weather", '{"city":"Paris"}')]),
        Message.tool("sunny", tool_call_id="call_1", tool_name="get_weather"),
    ]

    message = model.with_tools([WEATHER]).generate(history)

    assert message.content == ""
    assert message.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("call_9", "get_weather", '{"city":"Oslo"}')
    ]
    body = server.requests[0].body
    assert body["messages"] == [
        {"role": "user", "content": "weather in Paris, then Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "content": "sunny", "tool_call_id": "call_1"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city",
                "parameters": WEATHER.parameters,
            },
        }
    ]


def test_with_tools_returns_a_copy_and_never_mutates_the_original(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(Reply.json(completion("a")), Reply.json(completion("b")))

    bound = model.with_tools([WEATHER])
    model.generate([Message.user("x")])
    bound.generate([Message.user("y")])

    assert bound is not model
    assert model.tools == ()
    assert bound.tools == (WEATHER,)
    assert "tools" not in server.requests[0].body
    assert server.requests[1].body["tools"][0]["function"]["name"] == "get_weather"


def test_options_and_extra_body_are_sent(server: ChatServer) -> None:
    server.script(Reply.json(completion("ok")))
    with OpenAIChatModel(
        model="m",
        base_url=server.base_url + "/",
        api_key=KEY,
        temperature=0.2,
        max_tokens=64,
        extra_body={"seed": 7, "top_k": 3},
        headers={"X-Title": "graph-inspector"},
    ) as chat_model:
        chat_model.generate([Message.user("x")])

    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["x-title"] == "graph-inspector"
    assert {k: request.body[k] for k in ("temperature", "max_tokens", "seed", "top_k")} == {
        "temperature": 0.2,
        "max_tokens": 64,
        "seed": 7,
        "top_k": 3,
    }


def test_key_and_base_url_come_from_the_environment(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.script(Reply.json(completion("ok")))
    with OpenAIChatModel(model="m") as chat_model:
        assert chat_model.generate([Message.user("x")]).content == "ok"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_without_a_key_no_authorization_header_is_sent(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.script(Reply.json(completion("ok")))
    with OpenAIChatModel(model="m", base_url=server.base_url) as chat_model:
        chat_model.generate([Message.user("x")])
    assert "authorization" not in server.requests[0].headers


def test_non_json_success_body_is_a_response_error(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(Reply(body=b"<html>gateway</html>"))
    with pytest.raises(
        ChatModelResponseError, match=r"POST http://127\.0\.0\.1:\d+/v1/chat/completions \(HTTP 200\)"
    ):
        model.generate([Message.user("x")])


def test_invalid_tool_call_json_names_the_call(server: ChatServer, model: OpenAIChatModel) -> None:
    call = {
        "id": "call_bad",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": '},
    }
    server.script(Reply.json(completion(None, tool_calls=[call], finish_reason="tool_calls")))

    with pytest.raises(ToolCallArgumentsError, match="tool call `call_bad` \\(`get_weather`\\)") as caught:
        model.generate([Message.user("x")])

    assert caught.value.tool_call_id == "call_bad"
    assert caught.value.arguments == '{"city": '


# ---------------------------------------------------------------------------------------------- stream


def test_stream_yields_text_chunks_and_a_usage_chunk(server: ChatServer, model: OpenAIChatModel) -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    server.script(
        Reply.sse(
            [
                delta_event({"role": "assistant", "content": ""}),
                delta_event({"content": "Hel"}),
                delta_event({"content": "lo"}),
                delta_event({}, finish_reason="stop"),
                delta_event(no_choices=True, usage=usage),
            ]
        )
    )

    chunks = list(model.stream([Message.user("hi")]))

    assert [c.content for c in chunks] == ["Hel", "lo", "", ""]
    full = concat_messages(chunks)
    assert (full.content, full.finish_reason) == ("Hello", "stop")
    assert full.usage == TokenUsage(prompt_tokens=5, completion_tokens=2, total_tokens=7)
    body = server.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert server.requests[0].headers["accept"] == "text/event-stream"


def test_tool_call_split_across_many_deltas_concatenates_by_index(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    paris, oslo = '{"city": "Paris"}', '{"city": "Oslo"}'
    events = [
        delta_event(
            {
                "role": "assistant",
                "tool_calls": [tool_delta(0, id="call_a", name="get_weather", arguments="")],
            }
        ),
        delta_event({"tool_calls": [tool_delta(1, id="call_b", name="get_weather")]}),
    ]
    for i in range(max(len(paris), len(oslo))):  # one character per delta, the two calls interleaved
        if i < len(paris):
            events.append(delta_event({"tool_calls": [tool_delta(0, arguments=paris[i])]}))
        if i < len(oslo):
            events.append(delta_event({"tool_calls": [tool_delta(1, arguments=oslo[i])]}))
    events.append(delta_event({}, finish_reason="tool_calls"))
    server.script(Reply.sse(events, split_events=True))

    chunks = list(model.with_tools([WEATHER]).stream([Message.user("x")]))

    assert len(chunks) > 30
    assert all(c.index is not None for chunk in chunks for c in chunk.tool_calls)
    full = concat_messages(chunks)
    assert [(c.index, c.id, c.name, c.arguments) for c in full.tool_calls] == [
        (0, "call_a", "get_weather", paris),
        (1, "call_b", "get_weather", oslo),
    ]
    assert full.finish_reason == "tool_calls"


def test_text_before_tool_calls_comes_through_in_order(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(
        Reply.sse(
            [
                delta_event({"role": "assistant", "content": "Let me "}),
                delta_event({"content": "check."}),
                delta_event(
                    {"tool_calls": [tool_delta(0, id="call_1", name="get_weather", arguments='{"ci')]}
                ),
                delta_event({"tool_calls": [tool_delta(0, arguments='ty":"Rome"}')]}),
                delta_event({}, finish_reason="tool_calls"),
            ]
        )
    )

    chunks = list(model.stream([Message.user("x")]))

    assert [bool(c.tool_calls) for c in chunks] == [False, False, True, True, False]
    assert chunks[0].content == "Let me "
    full = concat_messages(chunks)
    assert full.content == "Let me check."
    assert [(c.id, c.arguments) for c in full.tool_calls] == [("call_1", '{"city":"Rome"}')]


def test_deltas_without_index_are_assigned_one_by_call_id(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(
        Reply.sse(
            [
                delta_event({"tool_calls": [tool_delta(None, id="c1", name="a", arguments='{"x":')]}),
                delta_event({"tool_calls": [tool_delta(None, arguments="1}")]}),
                delta_event({"tool_calls": [tool_delta(None, id="c2", name="b", arguments="{}")]}),
                delta_event({}, finish_reason="tool_calls"),
            ]
        )
    )
    full = concat_messages(list(model.stream([Message.user("x")])))
    assert [(c.index, c.id, c.arguments) for c in full.tool_calls] == [(0, "c1", '{"x":1}'), (1, "c2", "{}")]


def test_invalid_tool_call_json_in_a_stream_is_raised_after_the_last_chunk(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(
        Reply.sse(
            [
                delta_event(
                    {"tool_calls": [tool_delta(0, id="call_x", name="get_weather", arguments="{oops")]}
                ),
                delta_event({}, finish_reason="tool_calls"),
            ]
        )
    )
    received: list[Message] = []
    with pytest.raises(ToolCallArgumentsError, match="`call_x`"):
        received.extend(model.stream([Message.user("x")]))
    assert len(received) == 2


def test_connection_dropped_mid_stream_is_a_stream_error_and_not_retried(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    events = [delta_event({"content": f"part{i} "}) for i in range(5)]
    server.script(Reply.sse(events, drop_after=2), Reply.json(completion("should not be requested")))
    received: list[Message] = []

    with pytest.raises(ChatModelStreamError, match="stream broke off after 2 events") as caught:
        received.extend(model.stream([Message.user("x")]))

    assert [c.content for c in received] == ["part0 ", "part1 "]
    assert server.base_url in str(caught.value)
    assert len(server.requests) == 1
    assert _leaks(caught.value) == []


def test_stream_ending_without_done_or_finish_reason_is_truncated(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(Reply.sse([delta_event({"content": "half"})], done=False))
    with pytest.raises(ChatModelStreamError, match="without \\[DONE\\] or a finish reason"):
        list(model.stream([Message.user("x")]))


def test_stream_with_finish_reason_but_no_done_marker_is_accepted(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(Reply.sse([delta_event({"content": "all"}, finish_reason="stop")], done=False))
    assert concat_messages(list(model.stream([Message.user("x")]))).content == "all"


def test_malformed_event_and_error_event_are_stream_errors(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(
        Reply.sse([delta_event({"content": "a"}), "{not json"]),
        Reply.sse(
            [
                delta_event({"content": "a"}),
                {"error": {"message": "model overloaded", "type": "server_error"}},
            ]
        ),
    )
    with pytest.raises(ChatModelStreamError, match="malformed stream event 2"):
        list(model.stream([Message.user("x")]))
    with pytest.raises(ChatModelStreamError, match="server_error: model overloaded"):
        list(model.stream([Message.user("x")]))


def test_empty_stream_is_an_error(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(Reply.sse([]))
    with pytest.raises(ChatModelStreamError, match="without any message chunk"):
        list(model.stream([Message.user("x")]))


# --------------------------------------------------------------------------------------- errors, retries


def test_429_then_success_honours_retry_after(
    server: ChatServer, model: OpenAIChatModel, sleeps: list[float]
) -> None:
    rate_limited = {"error": {"message": "slow down", "type": "rate_limit"}}
    server.script(
        Reply.json(rate_limited, status=429, headers={"Retry-After": "3"}), Reply.json(completion("ok"))
    )

    assert model.generate([Message.user("x")]).content == "ok"
    assert sleeps == [3.0]
    assert len(server.requests) == 2


def test_429_then_success_on_a_stream(
    server: ChatServer, model: OpenAIChatModel, sleeps: list[float]
) -> None:
    server.script(
        Reply.json({"error": {"message": "slow down"}}, status=429, headers={"retry-after-ms": "250"}),
        Reply.sse([delta_event({"content": "ok"}, finish_reason="stop")]),
    )
    assert concat_messages(list(model.stream([Message.user("x")]))).content == "ok"
    assert sleeps == [0.25]


def test_5xx_is_retried_with_exponential_backoff_then_reported(
    server: ChatServer, model: OpenAIChatModel, sleeps: list[float]
) -> None:
    server.script(*[Reply.json({"error": {"message": "boom"}}, status=503) for _ in range(3)])

    with pytest.raises(ChatModelStatusError, match="returned HTTP 503 Service Unavailable: boom") as caught:
        model.generate([Message.user("x")])

    assert caught.value.status_code == 503
    assert "after 3 attempts" in str(caught.value)
    assert sleeps == [0.5, 1.0]
    assert len(server.requests) == 3


def test_retry_after_is_capped(server: ChatServer, sleeps: list[float]) -> None:
    server.script(Reply.json({}, status=429, headers={"Retry-After": "3600"}), Reply.json(completion("ok")))
    with OpenAIChatModel(
        model="m", base_url=server.base_url, api_key=KEY, max_retry_delay=2.0, sleep=sleeps.append
    ) as chat_model:
        chat_model.generate([Message.user("x")])
    assert sleeps == [2.0]


def test_client_errors_are_not_retried(
    server: ChatServer, model: OpenAIChatModel, sleeps: list[float]
) -> None:
    server.script(
        Reply.json({"error": {"message": "bad field", "type": "invalid_request_error"}}, status=400)
    )
    with pytest.raises(ChatModelStatusError, match="HTTP 400 Bad Request: invalid_request_error: bad field"):
        model.generate([Message.user("x")])
    assert sleeps == []
    assert len(server.requests) == 1


def test_401_never_leaks_the_key(server: ChatServer, model: OpenAIChatModel) -> None:
    echoed = {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}
    server.script(Reply.json(echoed, status=401), Reply.json(echoed, status=401))

    with pytest.raises(ChatModelStatusError) as caught:
        model.generate([Message.user("x")])
    with pytest.raises(ChatModelStatusError) as caught_stream:
        list(model.stream([Message.user("x")]))

    for error in (caught.value, caught_stream.value):
        assert error.status_code == 401
        assert "HTTP 401 Unauthorized" in str(error)
        assert server.base_url in str(error)
        assert "Incorrect API key provided: ***" in str(error)
        assert _leaks(error) == []
        assert error.__cause__ is None and error.__context__ is None


def test_the_model_object_does_not_expose_the_key() -> None:
    chat_model = OpenAIChatModel(model="m", base_url="http://127.0.0.1:9/v1", api_key=KEY)
    bound = chat_model.with_tools([WEATHER])
    for subject in (chat_model, bound):
        assert KEY not in repr(subject)
        assert KEY not in str(subject)
        assert KEY not in repr(vars(subject))
    assert "api_key='**********'" in repr(chat_model)


def test_timeout_is_a_timeout_error_and_not_retried(server: ChatServer, sleeps: list[float]) -> None:
    server.script(Reply(body=b"{}", delay=2.0))
    with (
        OpenAIChatModel(
            model="m", base_url=server.base_url, api_key=KEY, timeout=0.1, sleep=sleeps.append
        ) as chat_model,
        pytest.raises(ChatModelTimeoutError, match=r"timed out after 0\.1s") as caught,
    ):
        chat_model.generate([Message.user("x")])
    assert isinstance(caught.value, TimeoutError)
    assert server.base_url in str(caught.value)
    assert _leaks(caught.value) == []
    assert sleeps == []


def test_timeout_between_stream_events(server: ChatServer) -> None:
    server.script(Reply.sse([delta_event({"content": "a"}), delta_event({"content": "b"})], event_delay=0.5))
    with (
        OpenAIChatModel(model="m", base_url=server.base_url, timeout=0.1) as chat_model,
        pytest.raises(ChatModelTimeoutError),
    ):
        list(chat_model.stream([Message.user("x")]))


def test_connection_refused_is_retried_then_a_connection_error(sleeps: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    with OpenAIChatModel(model="m", base_url=base_url, api_key=KEY, sleep=sleeps.append) as chat_model:
        with pytest.raises(
            ChatModelConnectionError, match=f"POST {base_url}/chat/completions failed"
        ) as caught:
            chat_model.generate([Message.user("x")])
        assert sleeps == [0.5, 1.0]
        assert isinstance(caught.value, ConnectionError)
        assert _leaks(caught.value) == []


def test_server_hanging_up_without_a_response_is_retried(
    server: ChatServer, model: OpenAIChatModel, sleeps: list[float]
) -> None:
    server.script(Reply(hang_up=True), Reply.json(completion("ok")))
    assert model.generate([Message.user("x")]).content == "ok"
    assert sleeps == [0.5]


def test_every_error_is_a_chat_model_error() -> None:
    for cls in (
        ChatModelStatusError,
        ChatModelTimeoutError,
        ChatModelConnectionError,
        ChatModelResponseError,
        ChatModelStreamError,
        ToolCallArgumentsError,
    ):
        assert issubclass(cls, ChatModelError)


def test_one_model_serves_concurrent_callers(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(*[Reply.json(completion("same")) for _ in range(16)])
    bound = [model.with_tools([WEATHER]) for _ in range(4)]

    def call(i: int) -> str:
        return bound[i % 4].generate([Message.user(f"q{i}")]).content

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(call, range(16)))

    assert answers == ["same"] * 16
    assert sorted(r.body["messages"][0]["content"] for r in server.requests) == sorted(
        f"q{i}" for i in range(16)
    )
    assert model.tools == ()


def test_importing_graph_core_models_does_not_import_httpx() -> None:
    code = "import sys, graph_core.models; assert 'httpx' not in sys.modules, 'httpx imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_a_json_answer_to_a_stream_request_becomes_one_chunk(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    call = {"id": "call_j", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    server.script(Reply.json(completion("whole", tool_calls=[call], finish_reason="tool_calls")))
    [chunk] = list(model.stream([Message.user("x")]))
    assert (chunk.content, chunk.finish_reason, [c.id for c in chunk.tool_calls]) == (
        "whole",
        "tool_calls",
        ["call_j"],
    )


def test_retry_after_http_date_in_the_past_means_no_wait(
    server: ChatServer, model: OpenAIChatModel, sleeps: list[float]
) -> None:
    server.script(
        Reply.json({}, status=429, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
        Reply.json(completion("ok")),
    )
    assert model.generate([Message.user("x")]).content == "ok"
    assert sleeps == [0.0]


def test_abandoning_a_stream_early_releases_the_connection(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(
        Reply.sse([delta_event({"content": f"{i}"}) for i in range(50)], event_delay=0.001),
        Reply.json(completion("next call works")),
    )
    chunks = model.stream([Message.user("x")])
    assert next(chunks).content == "0"
    chunks.close()  # what a first-chunk tool-call checker does
    assert model.generate([Message.user("y")]).content == "next call works"


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (
            {"object": "error", "message": "max_tokens too large", "type": "BadRequestError"},
            "BadRequestError: max_tokens too large",
        ),
        ({"detail": "Not Found"}, "Not Found"),
    ],
)
def test_error_bodies_of_other_servers_are_quoted(
    server: ChatServer, model: OpenAIChatModel, body: dict[str, str], detail: str
) -> None:
    server.script(Reply.json(body, status=400))
    with pytest.raises(ChatModelStatusError) as caught:
        model.generate([Message.user("x")])
    assert str(caught.value).endswith(f"returned HTTP 400 Bad Request: {detail}")


def test_plain_text_error_body_is_quoted(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(Reply(status=404, body=b"no such route\n"))
    with pytest.raises(ChatModelStatusError, match=r"HTTP 404 Not Found: no such route$"):
        model.generate([Message.user("x")])
