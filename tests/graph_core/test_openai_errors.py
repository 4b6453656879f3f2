"""Hostile answers and odd configuration on the error paths: the key stays secret, every error is ours."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graph_core.models.openai import (
    ChatModelConnectionError,
    ChatModelError,
    ChatModelResponseError,
    ChatModelStatusError,
    ChatModelStreamError,
    OpenAIChatModel,
    ToolCallArgumentsError,
)
from graph_core.schema import Message, TokenUsage
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event, tool_delta

KEY = "sk-test-SECRET-0123456789abcdef"
KEY_HEAD = KEY[:12]  # any 12 characters of the key are too many to show


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


def _model(server: ChatServer, *, api_key: str = KEY, max_retries: int = 0) -> OpenAIChatModel:
    return OpenAIChatModel(
        model="m",
        base_url=server.base_url,
        api_key=api_key,
        max_retries=max_retries,
        timeout=5.0,
        sleep=[].append,
    )


def _texts(error: ChatModelError) -> str:
    return " ".join([str(error), repr(error), *(repr(v) for v in vars(error).values())])


def test_a_key_with_a_trailing_newline_is_not_shown_by_the_header_error(server: ChatServer) -> None:
    # Keys read from files often end in "\n"; httpx refuses the header and quotes it escaped.
    with _model(server, api_key=KEY + "\n") as model, pytest.raises(ChatModelConnectionError) as caught:
        model.generate([Message.user("x")])
    assert "Illegal header value" in str(caught.value)
    assert KEY_HEAD not in _texts(caught.value)


def test_a_key_cut_by_the_excerpt_is_not_half_shown(server: ChatServer) -> None:
    # The server echoes the key right where the 500-character excerpt ends.
    for cut in (480, 490):
        server.script(Reply(status=400, body=("x" * cut + KEY).encode()))
    with _model(server) as model:
        for _ in range(2):
            with pytest.raises(ChatModelStatusError) as status:
                model.generate([Message.user("x")])
            assert KEY_HEAD not in _texts(status.value)
            assert "***" in status.value.body


def test_non_json_and_bad_arguments_excerpts_never_cut_the_key_in_half(server: ChatServer) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "y" * 185 + KEY}}
    server.script(
        Reply(status=200, body=("z" * 185 + KEY).encode()),
        Reply.json(completion(None, tool_calls=[call], finish_reason="tool_calls")),
        Reply.sse([delta_event({"content": "a"}), "{" + "w" * 184 + KEY]),
        Reply.sse(
            [delta_event({"tool_calls": [tool_delta(0, id="c", name="f", arguments="q" * 185 + KEY)]})]
        ),
    )
    errors: list[ChatModelError] = []
    with _model(server) as model:
        for kind in (ChatModelResponseError, ToolCallArgumentsError):
            with pytest.raises(kind) as caught:
                model.generate([Message.user("x")])
            errors.append(caught.value)
        for kind in (ChatModelStreamError, ToolCallArgumentsError):
            with pytest.raises(kind) as caught:
                list(model.stream([Message.user("x")]))
            errors.append(caught.value)
    assert [KEY_HEAD in _texts(e) for e in errors] == [False] * 4


@pytest.mark.parametrize("value", ["nan", "NaN", "inf"])
def test_a_retry_after_that_is_not_a_finite_number_falls_back_to_backoff(
    server: ChatServer, value: str
) -> None:
    # time.sleep(nan) raises ValueError: a hostile header must not turn a retry into a crash.
    server.script(
        Reply.json({"error": "busy"}, status=429, headers={"Retry-After": value}),
        Reply.json({"error": "busy"}, status=429, headers={"retry-after-ms": value}),
        Reply.json(completion("ok")),
    )
    sleeps: list[float] = []
    with OpenAIChatModel(
        model="m", base_url=server.base_url, max_retries=2, max_retry_delay=30.0, sleep=sleeps.append
    ) as model:
        assert model.generate([Message.user("x")]).content == "ok"
    assert sleeps == [0.5, 1.0]


def test_a_redirect_is_reported_with_its_location_not_decoded_as_an_answer(server: ChatServer) -> None:
    moved = "https://llm.example.invalid/v1/chat/completions"
    server.script(
        Reply(status=308, headers={"Location": moved}),
        Reply(status=301, body=b"<html>moved</html>", headers={"Location": moved}),
    )
    with _model(server, max_retries=2) as model:
        with pytest.raises(ChatModelStatusError, match=f"HTTP 308 Permanent Redirect: redirected to {moved}"):
            model.generate([Message.user("x")])
        with pytest.raises(ChatModelStatusError, match="HTTP 301") as caught:
            list(model.stream([Message.user("x")]))
    assert caught.value.status_code == 301
    assert len(server.requests) == 2  # not retried


def test_malformed_usage_counts_are_read_as_zero_not_a_type_error(server: ChatServer) -> None:
    usage = {"prompt_tokens": {"cached": 3}, "completion_tokens": "7", "total_tokens": None}
    server.script(
        Reply.json({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}], "usage": usage}),
        Reply.sse(
            [delta_event({"content": "hi"}, finish_reason="stop"), delta_event(no_choices=True, usage=usage)]
        ),
    )
    with _model(server) as model:
        assert model.generate([Message.user("x")]).usage == TokenUsage(
            prompt_tokens=0, completion_tokens=7, total_tokens=7
        )
        chunks = list(model.stream([Message.user("x")]))
    assert chunks[-1].usage == TokenUsage(prompt_tokens=0, completion_tokens=7, total_tokens=7)
