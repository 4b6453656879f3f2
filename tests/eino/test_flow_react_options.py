"""Ports of Eino's `flow/agent/react/option_test.go` (cloudwego/eino ca0441ac0bce): the flow ReAct agent's
per-call options and its message future."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.agents.react import ReActAgent
from graph_core.agents.react_options import (
    MessageFuture,
    with_chat_model_options,
    with_message_future,
    with_tool_options,
    with_tools,
)
from graph_core.call_options import CallOption, ChatModelOptions, chat_model_options, tool_options
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo, concat_messages
from graph_core.tools import ToolInput, ToolMiddleware, tool
from tests.eino.test_flow_react import GREET, STREAM_GREET, Greeter


def _call(name: str, arguments: str = '{"name": "test user"}', call_id: str = "tool-call-1") -> Message:
    return Message.assistant("", tool_calls=[ToolCall(call_id, name, arguments)])


def _agent(script: list[Any], tools: list[Any], **config: Any) -> ReActAgent:
    return ReActAgent(ScriptedChatModel(script), tools=tools, max_step=3, **config)


def _check_three(messages: list[Message], *, final: str = "final response") -> None:
    """Go's three `iter.Next()` checks and the closing `hasNext == false`."""
    assert len(messages) == 3
    assert messages[0].role == "assistant"
    assert len(messages[0].tool_calls) == 1
    assert messages[1].role == "tool"
    assert final in messages[2].content


def test_with_message_future_generate_with_tool_calls() -> None:
    """option_test.go TestWithMessageFuture/test generate with tool calls."""
    option, future = with_message_future()
    agent = _agent([_call(GREET), Message.assistant("final response")], [Greeter().invoke_tool()])
    response = agent.invoke([Message.user("use the greet tool")], options=[option])
    assert response.content == "final response"
    assert list(future.message_streams()) == []  # an invoke run has no message streams
    _check_three(list(future.messages()))


def test_with_message_future_generate_with_streaming_tool_calls() -> None:
    """option_test.go TestWithMessageFuture/test generate with streaming tool calls."""
    option, future = with_message_future()
    agent = _agent([_call(STREAM_GREET), Message.assistant("final response")], [Greeter().stream_tool()])
    response = agent.invoke([Message.user("use the greet tool")], options=[option])
    assert response.content == "final response"
    _check_three(list(future.messages()))


def _streams(future: MessageFuture) -> list[Message]:
    return [concat_messages(list(stream)) for stream in future.message_streams()]


def test_with_message_future_stream_with_tool_calls() -> None:
    """option_test.go TestWithMessageFuture/test stream with tool calls."""
    option, future = with_message_future()
    agent = _agent([[_call(GREET)], [Message.assistant("final response")]], [Greeter().invoke_tool()])
    final = concat_messages(list(agent.stream([Message.user("use the greet tool")], options=[option])))
    assert final.content == "final response"
    assert list(future.messages()) == []  # a stream run has no whole messages
    _check_three(_streams(future))


def test_with_message_future_stream_with_streaming_tool_calls_and_concurrent_goroutines() -> None:
    """option_test.go TestWithMessageFuture/test stream with streaming tool calls and with concurrent
    goroutines: a reader thread waits for the run to start, then reads the streams as they come."""
    option, future = with_message_future()
    agent = _agent([[_call(STREAM_GREET)], [Message.assistant("final response")]], [Greeter().stream_tool()])
    read: list[Message] = []
    reader = threading.Thread(target=lambda: read.extend(_streams(future)))
    reader.start()
    final = concat_messages(list(agent.stream([Message.user("use the greet tool")], options=[option])))
    assert final.content == "final response"
    reader.join(timeout=10)
    assert not reader.is_alive()
    _check_three(read)


def test_with_tool_options() -> None:
    """option_test.go TestWithToolOptions: the option is made (Go checks its type)."""
    option = with_tool_options({"val": "mock"})
    assert isinstance(option, CallOption)
    assert option.kind == "ToolsNode"


def test_with_chat_model_options() -> None:
    """option_test.go TestWithChatModelOptions."""
    option = with_chat_model_options(ChatModelOptions(model="mock-model"))
    assert isinstance(option, CallOption)
    assert option.kind == "ChatModel"


class _OptionsModel:
    """Go's mock in TestAgentWithAllOptions: the first call notes whether it got model "test-model" and
    calls `assert_tool`; the next ones answer "ok"."""

    def __init__(self) -> None:
        self.times = 0
        self.model_option_received = False

    def with_tools(self, tools: list[ToolInfo]) -> _OptionsModel:
        return self

    def generate(self, messages: list[Message]) -> Message:
        self.times += 1
        if self.times == 1:
            if chat_model_options().model == "test-model":
                self.model_option_received = True
            return Message.assistant("hello max", tool_calls=[ToolCall("rand-id", "assert_tool", "")])
        return Message.assistant("ok")


def test_agent_with_all_options() -> None:
    """option_test.go TestAgentWithAllOptions: tool options, model options and `with_tools` (the agent is
    built with `dummy`; the run's tool list is `assert_tool`) reach the model and the tool."""
    received: list[bool] = []

    class AssertTool:
        info = ToolInfo("assert_tool")

        def invoke(self, arguments: str) -> str:
            received.append({"val": "tool-opt-value"} in tool_options())
            return "tool-response"

    @tool
    def dummy() -> str:
        """A tool the run does not use."""
        return "dummy-response"

    model = _OptionsModel()
    agent = ReActAgent(model, tools=[dummy], max_step=20)
    agent.invoke(
        [Message.user("call the tool")],
        options=[
            with_tool_options({"val": "tool-opt-value"}),
            with_chat_model_options(ChatModelOptions(model="test-model")),
            *with_tools(AssertTool()),
        ],
    )
    assert model.model_option_received, "model option should be received by chat model"
    assert received == [True], "tool option should be received by tool"


def _modifying_middleware() -> ToolMiddleware:
    """Go's `resultModifyingMiddleware`: the tool's result becomes `modified_by_middleware`."""

    def invoke(next_: Callable[[ToolInput], str]) -> Callable[[ToolInput], str]:
        return lambda inp: (next_(inp), "modified_by_middleware")[1]

    def stream(next_: Callable[[ToolInput], Iterator[str]]) -> Callable[[ToolInput], Iterator[str]]:
        def endpoint(inp: ToolInput) -> Iterator[str]:
            next_(inp)
            return iter(["modified_by_middleware"])

        return endpoint

    return ToolMiddleware(invoke=invoke, stream=stream)


class _SimpleTool:
    """Go `simpleToolForMiddlewareTest`: invokable and streamable, returns `original_result`."""

    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, "simple tool for middleware test")

    def invoke(self, arguments: str) -> str:
        return "original_result"

    def stream(self, arguments: str) -> Iterator[str]:
        return iter(["original_result"])


def _check_modified(messages: list[Message]) -> None:
    assert len(messages) >= 3, "should have at least 3 messages"
    assert messages[0].role == "assistant"
    assert len(messages[0].tool_calls) == 1
    assert messages[1].role == "tool"
    assert messages[1].content == "modified_by_middleware", "the future gets the middleware's result"
    assert messages[1].content != "original_result"
    assert messages[2].content == "final response"


def test_message_future_tool_result_middleware_emits_final_result_invoke() -> None:
    """option_test.go TestMessageFuture_ToolResultMiddleware_EmitsFinalResult/Invoke."""
    option, future = with_message_future()
    agent = _agent(
        [_call("test_tool", '{"input": "test"}'), Message.assistant("final response")],
        [_SimpleTool("test_tool")],
        tool_middlewares=[_modifying_middleware()],
    )
    response = agent.invoke([Message.user("call the tool")], options=[option])
    assert response.content == "final response"
    _check_modified(list(future.messages()))


def test_message_future_tool_result_middleware_emits_final_result_stream() -> None:
    """option_test.go TestMessageFuture_ToolResultMiddleware_EmitsFinalResult/Stream."""
    option, future = with_message_future()
    agent = _agent(
        [[_call("test_tool_stream", '{"input": "test"}')], [Message.assistant("final response")]],
        [_SimpleTool("test_tool_stream")],
        tool_middlewares=[_modifying_middleware()],
    )
    final = concat_messages(list(agent.stream([Message.user("call the tool")], options=[option])))
    assert final.content == "final response"
    _check_modified(_streams(future))


def _parent(agent: ReActAgent, key: str = "agent") -> Graph:
    graph = Graph()
    graph.add_graph_node(key, agent.graph, compile_options=agent.compile_options)
    graph.add_edge(START, key)
    graph.add_edge(key, END)
    return graph


def test_with_message_future_nested_graph_agent_in_nested_graph() -> None:
    """option_test.go TestWithMessageFuture_NestedGraph/agent in nested graph."""
    agent = _agent([_call(GREET), Message.assistant("final response")], [Greeter().invoke_tool()])
    option, future = with_message_future()
    response = _parent(agent).compile().invoke([Message.user("use the greet tool")], options=[option])
    assert response.content == "final response"
    _check_three(list(future.messages()))


def test_with_message_future_nested_graph_agent_in_deeply_nested_graph() -> None:
    """option_test.go TestWithMessageFuture_NestedGraph/agent in deeply nested graph: the agent inside a
    child graph inside the parent."""
    agent = _agent([_call(GREET), Message.assistant("final response")], [Greeter().invoke_tool()])
    parent = Graph()
    parent.add_graph_node("child", _parent(agent))
    parent.add_edge(START, "child")
    parent.add_edge("child", END)
    option, future = with_message_future()
    response = parent.compile().invoke([Message.user("use the greet tool")], options=[option])
    assert response.content == "final response"
    _check_three(list(future.messages()))


def test_with_message_future_nested_graph_agent_in_nested_graph_with_streaming() -> None:
    """option_test.go TestWithMessageFuture_NestedGraph/agent in nested graph with streaming."""
    agent = _agent(
        [
            [_call(GREET, '{"name": "stream user"}')],
            [Message.assistant("streaming"), Message.assistant(" final"), Message.assistant(" response")],
        ],
        [Greeter().invoke_tool()],
    )
    option, future = with_message_future()
    chunks = list(_parent(agent).compile().stream([Message.user("use the greet tool")], options=[option]))
    assert "final" in "".join(c.content for c in chunks)
    _check_three(_streams(future), final="final")


def test_with_message_future_nested_graph_agent_with_multiple_tool_calls_in_nested_graph() -> None:
    """option_test.go TestWithMessageFuture_NestedGraph/agent with multiple tool calls in nested graph."""
    two = Message.assistant(
        "",
        tool_calls=[
            ToolCall("tool-call-1", GREET, '{"name": "user1"}'),
            ToolCall("tool-call-2", GREET, '{"name": "user2"}'),
        ],
    )
    agent = _agent([two, Message.assistant("greeted both users")], [Greeter().invoke_tool()])
    option, future = with_message_future()
    response = _parent(agent).compile().invoke([Message.user("greet multiple users")], options=[option])
    assert response.content == "greeted both users"
    messages = list(future.messages())
    assert [m.role for m in messages] == ["assistant", "tool", "tool", "assistant"]
    assert len(messages[0].tool_calls) == 2
    assert messages[3].content == "greeted both users"


def test_with_message_future_nested_graph_direct_agent_invoke_vs_nested_graph_same_behavior() -> None:
    """option_test.go TestWithMessageFuture_NestedGraph/direct agent invoke vs nested graph - same
    behavior."""

    def agent() -> ReActAgent:
        return _agent(
            [_call(GREET, '{"name": "test"}'), Message.assistant("done")], [Greeter().invoke_tool()]
        )

    option1, future1 = with_message_future()
    agent().invoke([Message.user("test direct")], options=[option1])
    direct = list(future1.messages())
    option2, future2 = with_message_future()
    _parent(agent()).compile().invoke([Message.user("test nested")], options=[option2])
    nested = list(future2.messages())
    assert len(direct) == len(nested), "should have same number of messages"
    assert [m.role for m in direct] == [m.role for m in nested]


class _AgentAsTool:
    """Go `agentAsTool`: a tool whose call runs another agent on the call's arguments (within the call,
    so the outer run's callbacks reach the inner agent's run, as Eino's ctx carries them)."""

    def __init__(self, agent: ReActAgent, name: str, description: str) -> None:
        self.agent = agent
        self.info = ToolInfo(
            name,
            description,
            {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The query to send to the inner agent"}
                },
            },
        )

    def invoke(self, arguments: str) -> str:
        return self.agent.invoke([Message.user(arguments)]).content


def test_with_message_future_nested_graph_agent_calls_tool_that_invokes_another_agent() -> None:
    """option_test.go TestWithMessageFuture_NestedGraph/multiple react agents in graph - agent calls tool
    that invokes another agent: the inner agent's answer reaches the outer run's future too."""
    inner = _agent([Message.assistant("inner agent response")], [Greeter().invoke_tool()])
    inner_tool = _AgentAsTool(inner, "inner_agent", "An inner agent that can greet users")
    outer = _agent(
        [_call("inner_agent", '{"query": "hello"}'), Message.assistant("outer agent final response")],
        [inner_tool],
    )
    option, future = with_message_future()
    response = outer.invoke([Message.user("use the inner agent")], options=[option])
    assert response.content == "outer agent final response"
    messages = list(future.messages())
    assert len(messages) >= 3, "should have at least 3 messages"
    assert any(m.role == "assistant" and m.tool_calls for m in messages), "should have outer agent tool call"
    assert any(m.content == "inner agent response" for m in messages), "should have inner agent response"
    assert any(m.content == "outer agent final response" for m in messages), (
        "should have outer agent final response"
    )
    # not asserted in Go, whose checks the outer tool's result alone would pass: what Eino sends, the
    # inner agent's own answer (its model's end reaches the future) before the tool's result
    assert [(m.role, m.content) for m in messages] == [
        ("assistant", ""),
        ("assistant", "inner agent response"),
        ("tool", "inner agent response"),
        ("assistant", "outer agent final response"),
    ]


def test_with_message_future_nested_graph_two_sequential_react_agents_in_same_graph() -> None:
    """option_test.go TestWithMessageFuture_NestedGraph/two sequential react agents in same graph."""
    agent1 = _agent([Message.assistant("agent1 response")], [Greeter().invoke_tool()])
    agent2 = _agent([Message.assistant("agent2 response")], [Greeter().invoke_tool()])
    graph = Graph()
    graph.add_graph_node("agent1", agent1.graph, compile_options=agent1.compile_options)
    graph.add_lambda_node("transform", lambda m: [Message.user("agent2 input: " + m.content)])
    graph.add_graph_node("agent2", agent2.graph, compile_options=agent2.compile_options)
    graph.add_edge(START, "agent1")
    graph.add_edge("agent1", "transform")
    graph.add_edge("transform", "agent2")
    graph.add_edge("agent2", END)
    option, future = with_message_future()
    response = graph.compile().invoke([Message.user("hello")], options=[option])
    assert response.content == "agent2 response"
    messages = list(future.messages())
    assert len(messages) == 2
    assert {m.content for m in messages} == {"agent1 response", "agent2 response"}


def test_the_future_raises_the_runs_error() -> None:
    """Eino's `onGraphError`: the owning graph's error reaches the reader (no Go test asserts it)."""
    option, future = with_message_future()
    agent = _agent([RuntimeError("model down")], [Greeter().invoke_tool()])
    with pytest.raises(Exception, match="model down"):
        agent.invoke([Message.user("hi")], options=[option])
    with pytest.raises(Exception, match="model down"):
        list(future.messages())
