"""End to end: the flow ReAct agent on OpenAIChatModel against the loopback wire-format server, recorded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.openai_agent import QUESTION, get_weather
from fixtures.openai_agent import agent as openai_agent
from graph_core.agents.adk import ChatModelAgent
from graph_core.agents.react import ReActAgent, whole_stream_tool_call_checker
from graph_core.errors import NodeRunError
from graph_core.models.openai import ChatModelStatusError, OpenAIChatModel
from graph_core.schema import Message, concat_messages
from inspector.cli import main
from inspector.recording import Recorder, read_run
from inspector.target import load_target
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event, tool_delta

KEY = "sk-agent-SECRET-aaaabbbbccccdddd"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as chat:
        yield chat


@pytest.fixture
def model(server: ChatServer) -> Iterator[OpenAIChatModel]:
    with OpenAIChatModel(
        model="test-model", base_url=server.base_url, api_key=KEY, sleep=lambda _: None
    ) as chat_model:
        yield chat_model


def _weather_call(call_id: str, city: str) -> dict[str, object]:
    arguments = json.dumps({"city": city})
    return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}


def _tool_round_then_answer(server: ChatServer) -> None:
    server.script(
        Reply.json(
            completion(
                None,
                tool_calls=[_weather_call("call_h", "Hangzhou"), _weather_call("call_b", "Beijing")],
                finish_reason="tool_calls",
                usage={"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
            )
        ),
        Reply.json(
            completion(
                "Rain in Hangzhou, sun in Beijing.",
                usage={"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100},
            )
        ),
    )


def test_react_agent_invoke_runs_tools_and_sends_the_history_back(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    _tool_round_then_answer(server)
    agent = ReActAgent(model=model, tools=[get_weather])

    answer = agent.invoke([Message.user("Weather in Hangzhou and Beijing?")])

    assert answer.content == "Rain in Hangzhou, sun in Beijing."
    first, second = (r.body for r in server.requests)
    assert [t["function"]["name"] for t in first["tools"]] == ["get_weather"]
    assert model.tools == ()  # the agent bound tools on a copy
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in second["messages"][1]["tool_calls"]] == ["call_h", "call_b"]
    assert [(m["tool_call_id"], m["content"]) for m in second["messages"][2:]] == [
        ("call_h", "Hangzhou: light rain, 18°C, humidity 85%, wind 3 m/s"),
        ("call_b", "Beijing: sunny, 26°C, humidity 30%, wind 2 m/s"),
    ]


def test_react_agent_stream_with_tool_call_deltas_and_text_first(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    arguments = '{"city": "Tokyo"}'
    server.script(
        Reply.sse(
            [
                delta_event({"role": "assistant", "content": "Let me look that up. "}),
                delta_event({"tool_calls": [tool_delta(0, id="call_t", name="get_weather", arguments="")]}),
                *[delta_event({"tool_calls": [tool_delta(0, arguments=ch)]}) for ch in arguments],
                delta_event({}, finish_reason="tool_calls"),
            ]
        ),
        Reply.sse(
            [
                delta_event({"content": "Tokyo: "}),
                delta_event({"content": "cloudy."}),
                delta_event({}, finish_reason="stop"),
            ]
        ),
    )
    agent = ReActAgent(
        model=model, tools=[get_weather], stream_tool_call_checker=whole_stream_tool_call_checker
    )

    answer = concat_messages(list(agent.stream([Message.user("Weather in Tokyo?")])))

    assert answer.content == "Tokyo: cloudy."
    history = server.requests[1].body["messages"]
    assert history[1]["content"] == "Let me look that up. "
    assert history[1]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": arguments}
    assert history[2] == {"role": "tool", "content": "Tokyo: clear, 20°C", "tool_call_id": "call_t"}


def test_react_agent_ainvoke(server: ChatServer, model: OpenAIChatModel) -> None:
    _tool_round_then_answer(server)
    agent = ReActAgent(model=model, tools=[get_weather])
    answer = asyncio.run(agent.ainvoke([Message.user("Weather in Hangzhou and Beijing?")]))
    assert answer.content == "Rain in Hangzhou, sun in Beijing."
    assert len(server.requests) == 2


def test_recorded_run_carries_token_usage_and_never_the_key(
    server: ChatServer, model: OpenAIChatModel, tmp_path: Path
) -> None:
    _tool_round_then_answer(server)
    agent = ReActAgent(model=model, tools=[get_weather])
    path = tmp_path / "run.jsonl"

    agent.invoke([Message.user("Weather in Hangzhou and Beijing?")], callbacks=[Recorder(path)])

    run = read_run(path)
    assert run.status == "ok"
    assert [list(step.nodes) for step in run.steps] == [["chat"], ["tools"], ["chat"]]
    last = run.steps[-1].budget
    assert (last.prompt_tokens, last.completion_tokens, last.total_tokens) == (140, 30, 170)
    assert KEY not in path.read_text()


def test_http_error_surfaces_as_the_cause_of_a_node_run_error(
    server: ChatServer, model: OpenAIChatModel
) -> None:
    server.script(Reply.json({"error": {"message": f"bad key {KEY}"}}, status=401))
    agent = ReActAgent(model=model, tools=[get_weather])

    with pytest.raises(NodeRunError) as caught:
        agent.invoke([Message.user("x")])

    assert caught.value.node_path == ["chat"]
    assert isinstance(caught.value.__cause__, ChatModelStatusError)
    assert "HTTP 401" in str(caught.value) and KEY not in str(caught.value)


def test_fixture_agent_is_configured_from_the_environment(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAPH_INSPECTOR_BASE_URL", server.base_url)
    monkeypatch.setenv("GRAPH_INSPECTOR_MODEL", "local-model")
    monkeypatch.setenv("GRAPH_INSPECTOR_API_KEY", KEY)
    _tool_round_then_answer(server)

    answer = openai_agent().invoke([Message.user("Weather in Hangzhou and Beijing?")])

    assert answer.content == "Rain in Hangzhou, sun in Beijing."
    assert server.requests[0].body["model"] == "local-model"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_fixture_loads_as_an_inspector_target(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPH_INSPECTOR_BASE_URL", server.base_url)
    _tool_round_then_answer(server)

    loaded = load_target("fixtures.openai_agent:agent")

    assert loaded.is_agent
    assert [n.key for n in loaded.topology().nodes if n.key not in ("start", "end")] == [
        "chat",
        "tools",
        "direct_return",
    ]
    assert loaded.runnable.invoke(QUESTION).content == "Rain in Hangzhou, sun in Beijing."
    assert server.requests[0].body["messages"] == [{"role": "user", "content": QUESTION}]


def test_inspector_record_on_the_fixture(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRAPH_INSPECTOR_BASE_URL", server.base_url)
    monkeypatch.setenv("GRAPH_INSPECTOR_API_KEY", KEY)
    _tool_round_then_answer(server)
    path = tmp_path / "weather.jsonl"

    assert main(["record", "fixtures.openai_agent:agent", "--input", QUESTION, "-o", str(path)]) == 0

    run = read_run(path)
    assert run.status == "ok"
    assert run.steps[-1].budget.total_tokens == 170
    assert KEY not in path.read_text()
    assert KEY not in capsys.readouterr().err


@pytest.mark.parametrize("streaming", [False, True])
def test_adk_chat_model_agent_on_the_client(
    server: ChatServer, model: OpenAIChatModel, streaming: bool
) -> None:
    if streaming:
        server.script(
            Reply.sse(
                [
                    delta_event(
                        {"tool_calls": [tool_delta(0, id="call_h", name="get_weather", arguments='{"city":')]}
                    ),
                    delta_event({"tool_calls": [tool_delta(0, arguments=' "Hangzhou"}')]}),
                    delta_event({}, finish_reason="tool_calls"),
                ]
            ),
            Reply.sse([delta_event({"content": "Take an umbrella."}, finish_reason="stop")]),
        )
    else:
        server.script(
            Reply.json(
                completion(None, tool_calls=[_weather_call("call_h", "Hangzhou")], finish_reason="tool_calls")
            ),
            Reply.json(completion("Take an umbrella.")),
        )
    agent = ChatModelAgent(name="weather", model=model, tools=[get_weather], instruction="Be brief.")

    events = list(agent.run([Message.user(QUESTION)], streaming=streaming))

    assert [e.error for e in events] == [None] * len(events)
    messages = [m for m in (e.get_message() for e in events) if m is not None]
    assert messages[-1].content == "Take an umbrella."
    second = server.requests[1].body["messages"]
    assert second[0] == {"role": "system", "content": "Be brief."}
    assert second[-1]["tool_call_id"] == "call_h"
    assert second[-1]["content"].startswith("Hangzhou: light rain")
