"""What real servers send when things go wrong outside the HTTP status: an error body on a 200 stream, a
rate limit whose wait is only in words. Every body below is a real server's (source named beside it),
served by the loopback server; the client's sleep is a recorder, so no test waits.
"""

# ruff: noqa: E501  (captured bodies are kept verbatim)

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from graph_core.models.openai import ChatModelStatusError, ChatModelStreamError, OpenAIChatModel
from graph_core.schema import Message, concat_messages
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


# ------------------------------------------------------------------- an error body as a 200 stream

# OpenAI's answer to a bad key, as quoted in easychen/openai-api-proxy#33 (a proxy that passed streamed
# answers on, and with them this body, as a 200 event stream). The key it echoes is the one sent.
BAD_KEY_BODY = """{
    "error": {
        "message": "Incorrect API key provided: sk-false. You can find your API key at https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": null,
        "code": "invalid_api_key"
    }
}
"""

# nginx's own 502 page (nginx/nginx, src/http/ngx_http_special_response.c), here behind a proxy that
# labels every answer to a stream request `text/event-stream` with status 200.
NGINX_502_PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)


@pytest.mark.parametrize(
    "body", [BAD_KEY_BODY, json.dumps(json.loads(BAD_KEY_BODY))], ids=["as-sent", "on-one-line"]
)
def test_a_json_error_body_on_a_200_stream_is_quoted_without_the_key(server: ChatServer, body: str) -> None:
    server.script(Reply.raw(body, content_type="text/event-stream"))
    model = OpenAIChatModel(model="gpt-4o", base_url=server.base_url, api_key="sk-false")

    with pytest.raises(ChatModelStreamError) as caught:
        list(model.stream([Message.user("Say this is a test!")]))

    message = str(caught.value)
    assert "server reported invalid_request_error: Incorrect API key provided: ***." in message
    assert "truncated" not in message
    assert "sk-false" not in message


def test_a_json_error_body_on_a_200_stream_is_quoted_async(server: ChatServer) -> None:
    server.script(Reply.raw(BAD_KEY_BODY, content_type="text/event-stream"))
    model = OpenAIChatModel(model="gpt-4o", base_url=server.base_url, api_key="sk-false")

    async def collect() -> None:
        async for _ in model.astream([Message.user("Say this is a test!")]):
            pass

    with pytest.raises(ChatModelStreamError, match=r"Incorrect API key provided: \*\*\*\."):
        asyncio.run(collect())


def test_other_text_on_a_200_stream_is_quoted_after_truncated(server: ChatServer) -> None:
    server.script(Reply.raw(NGINX_502_PAGE, content_type="text/event-stream"))
    model = OpenAIChatModel(model="m", base_url=server.base_url)

    with pytest.raises(
        ChatModelStreamError, match=r"\(truncated response\); it sent instead: .*502 Bad Gateway"
    ):
        list(model.stream([Message.user("x")]))


# ------------------------------------------------------------------- a rate limit's wait in words

# sashabaranov/go-openai, chat_stream_test.go, TestAzureCreateChatCompletionStreamRateLimitError: Azure
# OpenAI's 429, which names its wait only in the message (no Retry-After header).
AZURE_429 = """{"error": { "code": "429", "message": "Requests to the Creates a completion for the chat message Operation under Azure OpenAI API version 2023-03-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 20 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}"""

# vanderschaarlab/climb#1 (a user's Azure gpt-4o deployment, 2025-01): a wait of a whole day.
AZURE_429_A_DAY = {
    "error": {
        "code": "429",
        "message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-08-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 86400 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.",
    }
}

# firecrawl/firecrawl#81 (Groq's 429, quoted whole): "Please try again in 50.597142857s."
GROQ_429 = {
    "error": {
        "message": "Rate limit reached for model `llama3-70b-8192` in organization `org_xxxxxxx` on tokens per minute (TPM): Limit 7000, Used 0, Requested ~12903. Please try again in 50.597142857s. Visit https://console.groq.com/docs/rate-limits for more information.",
        "type": "tokens",
        "code": "rate_limit_exceeded",
    }
}


def _model(
    server: ChatServer, sleeps: list[float], *, max_retries: int = 2, max_retry_delay: float = 60.0
) -> OpenAIChatModel:
    return OpenAIChatModel(
        model="gpt-35-turbo",
        base_url=server.base_url,
        sleep=sleeps.append,
        max_retries=max_retries,
        max_retry_delay=max_retry_delay,
    )


def test_an_azure_429_waits_as_long_as_its_message_says(server: ChatServer) -> None:
    sleeps: list[float] = []
    server.script(
        Reply.raw(AZURE_429, content_type="application/json", status=429), Reply.json(completion("ok"))
    )

    assert _model(server, sleeps).generate([Message.user("Hello!")]).content == "ok"
    assert sleeps == [20.0]


def test_an_azure_429_on_a_stream_waits_as_its_message_says(server: ChatServer) -> None:
    sleeps: list[float] = []
    server.script(
        Reply.raw(AZURE_429, content_type="application/json", status=429),
        Reply.sse([delta_event({"content": "ok"}, finish_reason="stop")]),
    )

    assert concat_messages(list(_model(server, sleeps).stream([Message.user("Hello!")]))).content == "ok"
    assert sleeps == [20.0]


def test_an_azure_429_async_waits_as_its_message_says(server: ChatServer) -> None:
    sleeps: list[float] = []

    async def record(delay: float) -> None:
        sleeps.append(delay)

    server.script(
        Reply.raw(AZURE_429, content_type="application/json", status=429), Reply.json(completion("ok"))
    )
    model = OpenAIChatModel(model="gpt-35-turbo", base_url=server.base_url, async_sleep=record)

    assert asyncio.run(model.agenerate([Message.user("Hello!")])).content == "ok"
    assert sleeps == [20.0]


def test_an_azure_429_that_persists_is_reported_after_the_waits(server: ChatServer) -> None:
    sleeps: list[float] = []
    server.script(*[Reply.raw(AZURE_429, content_type="application/json", status=429) for _ in range(3)])

    with pytest.raises(
        ChatModelStatusError, match=r"HTTP 429 Too Many Requests: 429: .*Please retry after 20 seconds"
    ) as caught:
        _model(server, sleeps, max_retries=2).generate([Message.user("Hello!")])

    assert "after 3 attempts" in str(caught.value)
    assert sleeps == [20.0, 20.0]


def test_a_retry_after_header_wins_over_the_message(server: ChatServer) -> None:
    sleeps: list[float] = []
    server.script(
        Reply(status=429, body=AZURE_429.encode(), headers={"Retry-After": "3"}), Reply.json(completion("ok"))
    )

    _model(server, sleeps).generate([Message.user("Hello!")])
    assert sleeps == [3.0]


def test_a_wait_in_words_is_capped_by_max_retry_delay(server: ChatServer) -> None:
    sleeps: list[float] = []
    server.script(Reply.json(AZURE_429_A_DAY, status=429), Reply.json(completion("ok")))

    _model(server, sleeps, max_retry_delay=30.0).generate([Message.user("Hello!")])
    assert sleeps == [30.0]


def test_a_groq_429_waits_the_fraction_of_a_second_it_names(server: ChatServer) -> None:
    sleeps: list[float] = []
    server.script(Reply.json(GROQ_429, status=429), Reply.json(completion("ok")))

    _model(server, sleeps).generate([Message.user("x")])
    assert sleeps == [50.597142857]
