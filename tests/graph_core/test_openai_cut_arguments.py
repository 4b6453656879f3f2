"""Tool-call arguments cut off because the answer hit the token limit: the error says so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graph_core.models.openai import OpenAIChatModel, ToolCallArgumentsError
from graph_core.schema import Message
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event, tool_delta

CUT = '{"city": "Hang'


@pytest.fixture
def served() -> Iterator[tuple[ChatServer, OpenAIChatModel]]:
    with (
        ChatServer() as server,
        OpenAIChatModel(
            model="m", base_url=server.base_url, api_key="k", timeout=5.0, sleep=lambda _: None
        ) as model,
    ):
        yield server, model


def _call() -> dict[str, object]:
    return {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": CUT}}


@pytest.mark.parametrize(("finish", "named"), [("length", True), ("tool_calls", False)])
def test_generate_names_the_token_limit_only_when_it_cut_the_answer(
    served: tuple[ChatServer, OpenAIChatModel], finish: str, named: bool
) -> None:
    server, model = served
    server.script(Reply.json(completion(None, tool_calls=[_call()], finish_reason=finish)))
    with pytest.raises(ToolCallArgumentsError, match="invalid JSON") as caught:
        model.generate([Message.user("x")])
    assert ("token limit (finish_reason `length`)" in str(caught.value)) is named


def test_a_stream_cut_at_the_token_limit_says_so(served: tuple[ChatServer, OpenAIChatModel]) -> None:
    server, model = served
    server.script(
        Reply.sse(
            [
                delta_event({"tool_calls": [tool_delta(0, id="c1", name="get_weather", arguments=CUT)]}),
                delta_event({}, finish_reason="length"),
            ]
        )
    )
    with pytest.raises(ToolCallArgumentsError, match=r"token limit \(finish_reason `length`\).*max_tokens"):
        list(model.stream([Message.user("x")]))
