"""Credential headers and echoed keys: nothing the client sends as a credential comes back out of it.

Cases from the secrets campaign (issue 19), against the loopback server: `headers={"api-key": ...}` values
were never masked, so a server echoing request headers on 401/429/500 or in a stream error put them into
`str(e)` and `e.body`, and `vars(model)` showed them; a 200 answer echoing the key was handed on as the
model's text; at DEBUG logging httpcore logged a response header echoing it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core.models.openai import (
    ChatModelError,
    ChatModelStatusError,
    ChatModelStreamError,
    OpenAIChatModel,
)
from graph_core.schema import Message, ToolInfo, concat_messages
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event, tool_delta

KEY = "sk-hostile-KEY-00112233445566778899"
AZURE = "azure-header-value-aabbccddeeff0011"  # `api-key`, as Azure OpenAI wants it
GATEWAY = "gw-x-api-key-99887766554433221100"  # `X-Api-Key`, as gateways want it
TENANT = "tenant-token-5e5e5e5e5e5e5e5e"  # a header only the user knows to be secret
BEARER_TOKEN = "user-bearer-token-7f7f7f7f7f7f7f"
SECRETS = (KEY, AZURE, GATEWAY, TENANT, BEARER_TOKEN)
HEADERS = {
    "api-key": AZURE,
    "X-Api-Key": GATEWAY,
    "X-Tenant-Token": TENANT,
    "X-Trace": "trace-visible-123",
}


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


def _model(server: ChatServer, **options: Any) -> OpenAIChatModel:
    settings: dict[str, Any] = {
        "model": "m",
        "base_url": server.base_url,
        "api_key": KEY,
        "headers": HEADERS,
        "secret_headers": ["x-tenant-token"],
        "max_retries": 0,
        "timeout": 5.0,
        "sleep": [].append,
    }
    settings.update(options)
    return OpenAIChatModel(**settings)


def _echo() -> str:
    """What a server that echoes the request's headers says."""
    return json.dumps({"authorization": f"Bearer {KEY}", **HEADERS})


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text or secret[:16] in text]


def _texts(error: ChatModelError) -> str:
    return " ".join([str(error), repr(error), *(repr(v) for v in vars(error).values())])


def test_credential_headers_are_sent_but_never_shown_by_the_model(server: ChatServer) -> None:
    server.script(Reply.json(completion("ok")))
    with _model(server) as model:
        assert model.generate([Message.user("x")]).content == "ok"
        bound = model.with_tools([ToolInfo(name="f", description="", parameters={"type": "object"})])
        for subject in (model, bound):
            assert _leaks(repr(subject)) == []
            assert _leaks(repr(vars(subject))) == []
        assert "trace-visible-123" in repr(vars(model))  # only credentials are hidden
    sent = server.requests[0].headers
    assert (sent["api-key"], sent["x-api-key"], sent["x-tenant-token"]) == (AZURE, GATEWAY, TENANT)
    assert sent["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("status", [401, 429, 500])
@pytest.mark.parametrize("streamed", [False, True])
def test_a_status_error_echoing_the_request_headers_masks_them(
    server: ChatServer, status: int, streamed: bool
) -> None:
    server.script(
        Reply.json({"error": {"message": f"rejected request with headers {_echo()}"}}, status=status)
    )
    with _model(server) as model, pytest.raises(ChatModelStatusError) as caught:
        if streamed:
            list(model.stream([Message.user("x")]))
        else:
            model.generate([Message.user("x")])
    assert caught.value.status_code == status
    assert _leaks(_texts(caught.value)) == []
    assert "***" in caught.value.body and "trace-visible-123" in caught.value.body


def test_a_plain_text_error_body_echoing_the_headers_masks_them(server: ChatServer) -> None:
    server.script(Reply(status=500, body=f"upstream said: {_echo()}".encode()))
    with _model(server) as model, pytest.raises(ChatModelStatusError) as caught:
        model.generate([Message.user("x")])
    assert _leaks(_texts(caught.value)) == []


def test_a_stream_error_event_echoing_the_headers_masks_them(server: ChatServer) -> None:
    server.script(
        Reply.sse([delta_event({"content": "a"}), {"error": {"message": f"gateway dropped {_echo()}"}}]),
        Reply.sse([delta_event({"content": "b"})], done=False, drop_after=1),
    )
    with _model(server) as model:
        with pytest.raises(ChatModelStreamError) as caught:
            list(model.stream([Message.user("x")]))
        assert _leaks(_texts(caught.value)) == []
        assert "gateway dropped" in str(caught.value)


def test_a_user_authorization_header_is_masked_with_and_without_its_scheme(server: ChatServer) -> None:
    server.script(Reply.json({"error": f"bad token {BEARER_TOKEN} (from Bearer {BEARER_TOKEN})"}, status=401))
    model = OpenAIChatModel(
        model="m",
        base_url=server.base_url,
        headers={"Authorization": f"Bearer {BEARER_TOKEN}"},
        max_retries=0,
    )
    with model, pytest.raises(ChatModelStatusError) as caught:
        model.generate([Message.user("x")])
    assert server.requests[0].headers["authorization"] == f"Bearer {BEARER_TOKEN}"
    assert _leaks(_texts(caught.value)) == [] and _leaks(repr(vars(model))) == []


def test_a_200_answer_echoing_the_credentials_is_masked(server: ChatServer) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": json.dumps({"k": KEY})}}
    server.script(
        Reply.json(completion(f"your key is {KEY} and your api-key is {AZURE}")),
        Reply.json(completion(None, tool_calls=[call], finish_reason="tool_calls")),
    )
    with _model(server) as model:
        answer = model.generate([Message.user("x")])
        assert answer.content == "your key is *** and your api-key is ***"
        called = model.generate([Message.user("x")])
    assert json.loads(called.tool_calls[0].arguments) == {"k": "***"}


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 3, 7])
def test_a_streamed_answer_echoing_the_key_across_chunks_is_masked(server: ChatServer, size: int) -> None:
    text = f"the key: {KEY}, the tenant: {TENANT}. s"  # ends in what could begin the key
    arguments = json.dumps({"token": GATEWAY})
    events = [delta_event({"content": piece}) for piece in _split(text, size)]
    events += [delta_event({"tool_calls": [tool_delta(0, id="c1", name="f", arguments="")]})]
    events += [delta_event({"tool_calls": [tool_delta(0, arguments=p)]}) for p in _split(arguments, size)]
    events.append(delta_event({}, finish_reason="tool_calls"))
    server.script(Reply.sse(events))
    with _model(server) as model:
        chunks = list(model.stream([Message.user("x")]))
    assert [_leaks(c.content + "".join(t.arguments for t in c.tool_calls)) for c in chunks] == [[]] * len(
        chunks
    )
    whole = concat_messages(chunks)
    assert whole.content == "the key: ***, the tenant: ***. s"
    assert json.loads(whole.tool_calls[0].arguments) == {"token": "***"}


def test_a_stream_ending_while_text_is_held_back_still_delivers_it(server: ChatServer) -> None:
    server.script(Reply.sse([delta_event({"content": "ends with sk-hos"})]))  # [DONE], no finish reason
    with _model(server) as model:
        chunks = list(model.stream([Message.user("x")]))
    assert concat_messages(chunks).content == "ends with sk-hos"


def test_the_async_paths_mask_the_echo_too(server: ChatServer) -> None:
    server.script(
        Reply.json(completion(f"echo {TENANT}")),
        Reply.sse([delta_event({"content": p}) for p in _split(f"echo {AZURE}", 4)]),
    )

    async def run() -> tuple[Message, list[Message]]:
        model = _model(server)
        answer = await model.agenerate([Message.user("x")])
        return answer, [chunk async for chunk in model.astream([Message.user("x")])]

    answer, chunks = asyncio.run(run())
    assert answer.content == "echo ***"
    assert concat_messages(chunks).content == "echo ***"


def test_debug_logs_of_a_response_header_echoing_the_key_are_masked(
    server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.script(Reply.json(completion("ok"), headers={"X-Echo-Key": KEY, "X-Echo-Api-Key": AZURE}))
    with caplog.at_level(logging.DEBUG), _model(server) as model:
        model.generate([Message.user("x")])
    logged = [
        record.getMessage() for record in caplog.records if record.name.startswith(("httpx", "httpcore"))
    ]
    assert any("receive_response_headers" in message for message in logged)  # the header line was logged
    assert [_leaks(message) for message in logged if _leaks(message)] == []
    assert any("***" in message for message in logged)
