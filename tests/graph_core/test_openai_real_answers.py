"""What real servers send that the happy path does not: refusals, thinking parts, `n > 1` streams, the
legacy `function_call`, tool calls without IDs. Every body below is a real server's, captured by another
project's test suite (named beside it) and served byte for byte by the loopback server.
"""

# ruff: noqa: E501  (captured bodies are kept verbatim, one event per line)

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable, Iterator

import pytest

from graph_core.agents.react import ReActAgent
from graph_core.models.openai import OpenAIChatModel
from graph_core.schema import Message, TokenUsage, concat_messages
from graph_core.tools import tool
from tests.graph_core.openai_server import ChatServer, Reply, completion

KEY = "sk-real-SECRET-0123456789abcdef"


def counting_uuids() -> Callable[[], uuid.UUID]:
    """uuid 1, 2, 3, ...: generated IDs become call_000...01, call_000...02, ..."""
    numbers = itertools.count(1)
    return lambda: uuid.UUID(int=next(numbers))


def call_id(number: int) -> str:
    return f"call_{number:032x}"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


@pytest.fixture
def model(server: ChatServer) -> Iterator[OpenAIChatModel]:
    with OpenAIChatModel(
        model="test-model",
        base_url=server.base_url,
        api_key=KEY,
        sleep=lambda _: None,
        uuid_factory=counting_uuids(),
    ) as chat_model:
        yield chat_model


def stream(model: OpenAIChatModel) -> Message:
    return concat_messages(list(model.stream([Message.user("x")])))


def sse(capture: str) -> Reply:
    """A captured event stream, sent as the server sent it."""
    return Reply.raw(capture.lstrip("\n"), content_type="text/event-stream")


# -------------------------------------------------------------------------------------------- refusal

# openai/openai-python, tests/lib/chat/test_completions.py, test_parse_pydantic_model_refusal (recorded
# from the live API): gpt-4o refuses, `content` null, the answer in `message.refusal`.
REFUSAL_COMPLETION = """{"id": "chatcmpl-ABfvwoKVWPQj2UPlAcAKM7s40GsRx", "object": "chat.completion", "created": 1727346164, "model": "gpt-4o-2024-08-06", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I'm very sorry, but I can't assist with that."}, "logprobs": null, "finish_reason": "stop"}], "usage": {"prompt_tokens": 79, "completion_tokens": 12, "total_tokens": 91, "completion_tokens_details": {"reasoning_tokens": 0}}, "system_fingerprint": "fp_5050236cbd"}"""

# openai/openai-python, .inline-snapshot/external/173417d55340...bin (test_completions_streaming.py,
# test_parse_pydantic_model_refusal, recorded from the live API): the refusal streamed in `delta.refusal`.
REFUSAL_STREAM = r"""
data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":"I'm"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":" sorry"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":","},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":" I"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":" can't"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":" assist"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":" with"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":" that"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":" request"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"refusal":"."},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: {"id":"chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7","object":"chat.completion.chunk","created":1727346172,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[],"usage":{"prompt_tokens":79,"completion_tokens":11,"total_tokens":90,"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]
"""


def test_a_refusal_is_the_answer_marked_as_one(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(Reply.raw(REFUSAL_COMPLETION, content_type="application/json"))

    answer = model.generate([Message.user("How do I make anthrax?")])

    assert answer.content == "I'm very sorry, but I can't assist with that."
    assert answer.extra["openai"]["refusal"] == answer.content
    assert answer.finish_reason == "stop"
    assert answer.extra["openai"]["id"] == "chatcmpl-ABfvwoKVWPQj2UPlAcAKM7s40GsRx"


def test_a_streamed_refusal_is_the_answer_marked_as_one(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(sse(REFUSAL_STREAM))

    answer = stream(model)

    assert answer.content == "I'm sorry, I can't assist with that request."
    assert answer.extra["openai"]["refusal"] == answer.content
    assert answer.extra["openai"]["model"] == "gpt-4o-2024-08-06"
    assert answer.finish_reason == "stop"
    assert answer.usage == TokenUsage(prompt_tokens=79, completion_tokens=11, total_tokens=90)


def test_an_agent_answers_with_the_refusal_not_an_empty_string(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(Reply.raw(REFUSAL_COMPLETION, content_type="application/json"))
    agent = ReActAgent(model=model, tools=[])

    answer = agent.invoke([Message.user("How do I make anthrax?")])

    assert answer.content == "I'm very sorry, but I can't assist with that."
    assert "refusal" in answer.extra["openai"]


# ------------------------------------------------------------------------------- tool calls without IDs

# A real exported request log (docs.openpipe.ai/features/request-logs/exporting-logs, the `output` of
# its first line): two parallel calls, both `"id": ""`, as Gemini's OpenAI endpoint also sends them.
TWO_CALLS_WITHOUT_IDS = """{"id":"c7670af0d71648b0bd829fa1901ac6c5","model":"openpipe:test-tool-calls-ft","usage":{"total_tokens":106,"prompt_tokens":47,"completion_tokens":59},"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"","type":"function","function":{"name":"get_current_weather","arguments":"{\\"location\\": \\"San Francisco, CA\\", \\"unit\\": \\"celsius\\"}"}},{"id":"","type":"function","function":{"name":"get_current_weather","arguments":"{\\"location\\": \\"Orlando, FL\\", \\"unit\\": \\"celsius\\"}"}}]},"finish_reason":"stop"}],"created":1702666185703}"""

# Gemini 2.5 Pro through its OpenAI endpoint, streamed: text, then one call with `"id": ""` and no index
# (quoted in a public C++ OpenAI client's gtest suite, `TEST(StreamResponse, Test3)`; the search index
# did not name its repository). vercel/ai#7834 shows gemini-2.5-pro sending the same `"id": ""`.
GEMINI_STREAM = r"""
data: {"choices":[{"delta":{"content":"Okay, I will help you refine your `README.md`.","role":"assistant"},"index":0}],"created":1749224968,"id":"5w1DaOOlPL2gjrEP3qqSmAY","model":"gemini-2.5-pro-preview-05-06","object":"chat.completion.chunk"}

data: {"choices":[{"delta":{"content":" To do this effectively, I need to analyze the content of both your `README.md` and the core header file `include","role":"assistant"},"index":0}],"created":1749224968,"id":"5w1DaOOlPL2gjrEP3qqSmAY","model":"gemini-2.5-pro-preview-05-06","object":"chat.completion.chunk"}

data: {"choices":[{"delta":{"content":"/argparse/argparse.hpp`.\n\nPlease provide the content of these two files. I'll start by reading","role":"assistant"},"index":0}],"created":1749224968,"id":"5w1DaOOlPL2gjrEP3qqSmAY","model":"gemini-2.5-pro-preview-05-06","object":"chat.completion.chunk"}

data: {"choices":[{"delta":{"content":" them.","role":"assistant"},"index":0}],"created":1749224968,"id":"5w1DaOOlPL2gjrEP3qqSmAY","model":"gemini-2.5-pro-preview-05-06","object":"chat.completion.chunk"}

data: {"choices":[{"delta":{"role":"assistant","tool_calls":[{"function":{"arguments":"{\"paths\":[\"README.md\",\"include/argparse/argparse.hpp\"]}","name":"read_multiple_files"},"id":"","type":"function"}]},"finish_reason":"tool_calls","index":0}],"created":1749224968,"id":"5w1DaOOlPL2gjrEP3qqSmAY","model":"gemini-2.5-pro-preview-05-06","object":"chat.completion.chunk"}

data: [DONE]
"""


@tool
def get_current_weather(location: str, unit: str = "celsius") -> str:
    """Current weather for a location."""
    return f"{location}: 21 {unit}"


def test_calls_without_ids_get_distinct_ids_and_the_server_ids_are_kept(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(Reply.raw(TWO_CALLS_WITHOUT_IDS, content_type="application/json"))

    answer = model.generate([Message.user("tell me the weather in SF and Orlando")])

    assert [c.id for c in answer.tool_calls] == [call_id(1), call_id(2)]
    assert [json.loads(c.arguments)["location"] for c in answer.tool_calls] == [
        "San Francisco, CA",
        "Orlando, FL",
    ]
    assert answer.extra["openai"]["server_tool_call_ids"] == {call_id(1): "", call_id(2): ""}


def test_an_agent_answers_each_call_by_its_own_id(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(
        Reply.raw(TWO_CALLS_WITHOUT_IDS, content_type="application/json"),
        Reply.json(completion("21 degrees in both.")),
    )
    agent = ReActAgent(model=model, tools=[get_current_weather])

    assert (
        agent.invoke([Message.user("tell me the weather in SF and Orlando")]).content == "21 degrees in both."
    )

    sent = server.requests[1].body["messages"]
    assert [c["id"] for c in sent[1]["tool_calls"]] == [call_id(1), call_id(2)]
    assert [(m["tool_call_id"], m["content"]) for m in sent[2:]] == [
        (call_id(1), "San Francisco, CA: 21 celsius"),
        (call_id(2), "Orlando, FL: 21 celsius"),
    ]


def test_a_streamed_call_without_id_gets_one_when_the_answer_finishes(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(sse(GEMINI_STREAM))

    chunks = list(model.stream([Message.user("refine my README")]))
    answer = concat_messages(chunks)

    assert answer.content.startswith("Okay, I will help you refine your `README.md`.")
    assert answer.content.endswith("I'll start by reading them.")
    [call] = answer.tool_calls
    assert (call.id, call.name) == (call_id(1), "read_multiple_files")
    assert json.loads(call.arguments) == {"paths": ["README.md", "include/argparse/argparse.hpp"]}
    assert answer.extra["openai"]["server_tool_call_ids"] == {call_id(1): ""}
    assert answer.finish_reason == "tool_calls"
    # the call and its ID arrive in one chunk, so a reader of that chunk alone sees one whole call
    assert [len(c.tool_calls) for c in chunks if c.tool_calls] == [1]


# ---------------------------------------------------------------------------------- thinking parts

# pydantic/pydantic-ai, tests/models/cassettes/test_mistral/test_mistral_model_thinking_part.yaml (the
# magistral-medium-latest answer, recorded from api.mistral.ai; its long texts shortened to a sentence).
MAGISTRAL_COMPLETION = {
    "choices": [
        {
            "finish_reason": "stop",
            "index": 0,
            "message": {
                "content": [
                    {
                        "thinking": [
                            {
                                "text": "**Analogizing crossing a river**\n\nThe user is asking about crossing a river, and they mention that the street-crossing instructions were helpful.",
                                "type": "text",
                            }
                        ],
                        "type": "thinking",
                    },
                    {
                        "text": "Crossing a river is quite different from crossing a street, but the principle of assessing safety and taking precautions still applies.",
                        "type": "text",
                    },
                ],
                "role": "assistant",
                "tool_calls": None,
            },
        }
    ],
    "created": 1757111400,
    "id": "9abe8b736bff46af8e979b52334a57cd",
    "model": "magistral-medium-latest",
    "object": "chat.completion",
    "usage": {"completion_tokens": 747, "prompt_tokens": 664, "total_tokens": 1411},
}

# pydantic/pydantic-ai, tests/models/cassettes/test_mistral/test_mistral_model_thinking_part_iter.yaml
# (magistral-medium-latest streaming; its first five events, four of the answer's, and the last).
MAGISTRAL_STREAM = r"""
data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Okay"}]}]},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":","}]}]},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":" the"}]}]},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":" Stop"},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":" at"},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":" the"},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":" edge"},"finish_reason":null}]}

data: {"id":"1474ffaa42904bf3b040345bc85c775b","object":"chat.completion.chunk","created":1766420335,"model":"magistral-medium-latest","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"total_tokens":285,"completion_tokens":275}}

data: [DONE]

"""


def test_thinking_parts_are_reasoning_and_text_parts_the_answer(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(Reply.json(MAGISTRAL_COMPLETION))

    answer = model.generate([Message.user("how do I cross the river?")])

    assert answer.reasoning_content.startswith("**Analogizing crossing a river**\n\nThe user is asking")
    assert answer.content.startswith("Crossing a river is quite different from crossing a street")
    assert "Analogizing" not in answer.content


def test_streamed_thinking_parts_are_reasoning(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(sse(MAGISTRAL_STREAM))

    answer = stream(model)

    assert answer.reasoning_content == "Okay, the"
    assert answer.content == " Stop at the edge"
    assert answer.usage == TokenUsage(prompt_tokens=10, completion_tokens=275, total_tokens=285)


# ---------------------------------------------------------------------------------------- n > 1

# openai/openai-python, .inline-snapshot/external/a491adda08c3...bin (test_completions_streaming.py,
# `n=3`, recorded from the live API): each event carries one of three choices.
THREE_CHOICES_STREAM = r"""
data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"{\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"{\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"{\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"city"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"city"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"city"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"\":\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"\":\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"\":\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"San"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"San"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"San"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":" Francisco"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":" Francisco"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":" Francisco"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"\",\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"\",\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"\",\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"temperature"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"\":"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"temperature"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"\":"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"temperature"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"\":"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"65"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":",\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"61"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":",\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"59"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":",\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"units"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"units"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"units"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"\":\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"\":\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"\":\""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"f"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"f"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"f"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{"content":"\"}"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{"content":"\"}"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{"content":"\"}"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":1,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[{"index":2,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: {"id":"chatcmpl-ABfw2KKFuVXmEJgVwYfBvejMAdWtq","object":"chat.completion.chunk","created":1727346170,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_b40fb1c6fb","choices":[],"usage":{"prompt_tokens":79,"completion_tokens":42,"total_tokens":121,"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]
"""


def test_an_n3_stream_keeps_choice_0(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(sse(THREE_CHOICES_STREAM))

    answer = stream(model)

    # openai-python's own snapshot of choice 0 of this capture
    assert answer.content == '{"city":"San Francisco","temperature":65,"units":"f"}'
    assert answer.finish_reason == "stop"
    assert answer.usage == TokenUsage(prompt_tokens=79, completion_tokens=42, total_tokens=121)


# -------------------------------------------------------------------------------- legacy function_call

# traceloop/openllmetry, packages/opentelemetry-instrumentation-openai/tests/traces/cassettes/
# test_functions/test_open_ai_function_calls.yaml (gzip body, recorded from api.openai.com, gpt-4-0613).
FUNCTION_CALL_COMPLETION = """{
  "id": "chatcmpl-8uyu7cTi10mww3o0IDhYm5YmrvNIC",
  "object": "chat.completion",
  "created": 1708591175,
  "model": "gpt-4-0613",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": null,
        "function_call": {
          "name": "get_current_weather",
          "arguments": "{\\n  \\"location\\": \\"Boston, MA\\"\\n}"
        }
      },
      "logprobs": null,
      "finish_reason": "function_call"
    }
  ],
  "usage": {
    "prompt_tokens": 82,
    "completion_tokens": 18,
    "total_tokens": 100
  },
  "system_fingerprint": null
}
"""

# iamgreggarcia/codesherpa, frontend/docs/sample_responses.md (gpt-3.5-turbo-0613 streaming a
# `function_call`; the file prints the event payloads, sent here as the `data:` lines they came in).
FUNCTION_CALL_STREAM = r"""
data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"role":"assistant","content":null,"function_call":{"name":"repl","arguments":""}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"{\n"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":" "}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":" \""}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"code"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"\":"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":" \""}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"print"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"(\\\""}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"hi"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"\\\")"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"\",\n"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":" "}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":" \""}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"language"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"\":"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":" \""}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"python"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"\"\n"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{"function_call":{"arguments":"}"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7WDJd9KHUR8nbbawGGEuLF3uoYGRh","object":"chat.completion.chunk","created":1687912037,"model":"gpt-3.5-turbo-0613","choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}
"""


def test_a_function_call_is_a_tool_call(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(Reply.raw(FUNCTION_CALL_COMPLETION, content_type="application/json"))

    answer = model.generate([Message.user("What's the weather like in Boston?")])

    [call] = answer.tool_calls
    assert (call.id, call.name) == (call_id(1), "get_current_weather")
    assert json.loads(call.arguments) == {"location": "Boston, MA"}
    assert answer.extra["openai"]["function_call"] == call.id
    assert answer.finish_reason == "function_call"


def test_a_streamed_function_call_is_a_tool_call(server: ChatServer, model: OpenAIChatModel) -> None:
    server.script(sse(FUNCTION_CALL_STREAM))

    answer = stream(model)

    [call] = answer.tool_calls
    assert (call.id, call.name) == (call_id(1), "repl")
    assert json.loads(call.arguments) == {"code": 'print("hi")', "language": "python"}
    assert answer.extra["openai"]["function_call"] == call.id
    assert answer.content == ""
