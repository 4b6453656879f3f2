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
from graph_core.schema import Message
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
