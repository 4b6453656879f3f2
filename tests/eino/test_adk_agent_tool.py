"""Ports of `adk/agent_tool_test.go` (cloudwego/eino ca0441ac0bce) beyond the first ones in
`test_adk_runner.py`: the agent tool's input options, the history it hands its agent, streamed inner
outputs, run paths of forwarded events, and its errors. Each test names its Go test."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from graph_core.agents.adk import AdkState, AgentEvent, ChatModelAgent
from graph_core.agents.adk_agent_tool import AgentTool
from graph_core.agents.adk_history import get_react_chat_history
from graph_core.agents.adk_interrupt import agent_stateful_interrupt
from graph_core.agents.adk_run import event_from_message
from graph_core.agents.adk_runctx import RunSession, current_run_ctx
from graph_core.agents.adk_runner import Runner
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import GraphRunError
from graph_core.graph import Graph
from graph_core.interrupt import address_segment
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.topology import END, START


class CapturingAgent:
    """Go `mockAgentWithInputCapture`: replays its events (stopping after an Exit), keeps its input."""

    def __init__(self, name: str, description: str, responses: Sequence[AgentEvent]) -> None:
        self.name = name
        self.description = description
        self.responses = list(responses)
        self.captured_input: list[Message] = []

    def run(self, messages: Sequence[Message] | str | None, **_options: Any) -> Iterator[AgentEvent]:
        self.captured_input = [m for m in messages or [] if isinstance(m, Message)]
        for event in self.responses:
            yield event
            if event.action is not None and event.action.exit:
                break


class EventsAgent:
    """Go `streamingAgent`, `streamAgent`, `emptyAgent`, `noOutputAgent`: sends fixed events."""

    def __init__(self, name: str, description: str, make: Callable[[], list[AgentEvent]]) -> None:
        self.name = name
        self.description = description
        self.make = make

    def run(self, messages: Sequence[Message] | str | None, **_options: Any) -> Iterator[AgentEvent]:
        yield from self.make()


class FakeToolCallingModel:
    """Go `fakeTCM`: every call asks for the first bound tool with `{"request":"hello"}`."""

    def __init__(self, bound: Sequence[ToolInfo] = ()) -> None:
        self.bound = list(bound)

    def with_tools(self, infos: Sequence[ToolInfo]) -> FakeToolCallingModel:
        return FakeToolCallingModel(infos)

    def generate(self, messages: Sequence[Message]) -> Message:
        name = self.bound[0].name if self.bound else ""
        call = ToolCall("id-1", name, '{"request":"hello"}')
        return Message.assistant("", tool_calls=[call])

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        yield self.generate(messages)


class EmitOnceModel:
    """Go `emitOnceModel`: answers `inner2`."""

    def with_tools(self, infos: Sequence[ToolInfo]) -> EmitOnceModel:
        return self

    def generate(self, messages: Sequence[Message]) -> Message:
        return Message.assistant("inner2")

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        yield self.generate(messages)


class SimpleTool:
    """Go `simpleTool`: a fixed result."""

    def __init__(self, name: str, result: str) -> None:
        self.info = ToolInfo(name, "simple tool")
        self.result = result

    def invoke(self, arguments: str) -> str:
        return self.result


def _history_graph(agent_name: str, messages: list[Message], body: Callable[[str], Any]) -> Any:
    """A graph whose state is an agent's (Eino `State` with `initRunCtx(ctx, agent_name)`: graph_core's
    history reads the calling agent's name from its state) and whose one node runs `body`."""
    graph = Graph(state=lambda: AdkState(agent_name=agent_name, messages=list(messages)))
    graph.add_lambda_node("1", body)
    graph.add_edge(START, "1")
    graph.add_edge("1", END)
    return graph.compile()


def test_get_react_history() -> None:
    """agent_tool_test.go TestGetReactHistory"""
    messages = [
        Message.user("user query"),
        Message.assistant("", tool_calls=[ToolCall("tool call id 1", "tool1", "arguments1")]),
        Message.tool("tool result 1", tool_call_id="tool call id 1", tool_name="tool1"),
        Message.assistant("", tool_calls=[ToolCall("tool call id 2", "tool2", "arguments2")]),
    ]
    result = _history_graph("MyAgent", messages, lambda _: get_react_chat_history("DestAgentName")).invoke("")
    assert result == [
        Message.user("user query"),
        Message.user("For context: [MyAgent] called tool: `tool1` with arguments: arguments1."),
        Message.user("For context: [MyAgent] `tool1` tool returned result: tool result 1."),
        Message.user(
            "For context: [MyAgent] called tool: `transfer_to_agent` with arguments: DestAgentName."
        ),
        Message.user(
            "For context: [MyAgent] `transfer_to_agent` tool returned result: "
            "successfully transferred to agent [DestAgentName]."
        ),
    ]


def test_react_history_empty_messages() -> None:
    """react_test.go TestReactHistory_EmptyMessages: an empty history does not fail (Go: no panic); it is
    the two transfer messages"""
    result = _history_graph("MyAgent", [], lambda _: get_react_chat_history("DestAgent")).invoke("")
    assert [m.role for m in result] == ["user", "user"]
    assert "successfully transferred to agent [DestAgent]" in result[1].content


def _done(name: str, text: str) -> list[AgentEvent]:
    return [AgentEvent(name, message=Message.assistant(text))]


def test_agent_tool_with_options_full_chat_history_as_input() -> None:
    """agent_tool_test.go TestAgentToolWithOptions/WithFullChatHistoryAsInput"""
    agent = CapturingAgent("test-agent", "a test agent", _done("test-agent", "done"))
    tool = AgentTool(agent, full_chat_history_as_input=True)
    history = [Message.user("first user message"), Message.assistant("first assistant response")]
    graph = _history_graph(
        "react-agent",
        [*history, Message.assistant("tool call msg")],
        lambda _: (tool.invoke('{"request":"some ignored input"}'), "done")[1],
    )
    assert graph.invoke("") == "done"
    assert [m.content for m in agent.captured_input] == [
        "first user message",
        "For context: [react-agent] said: first assistant response.",
        "For context: [react-agent] called tool: `transfer_to_agent` with arguments: test-agent.",
        "For context: [react-agent] `transfer_to_agent` tool returned result: "
        "successfully transferred to agent [test-agent].",
    ]


def _schema(params: dict[str, tuple[str, str, bool]]) -> dict[str, Any]:
    """Eino `NewParamsOneOfByParams` as the JSON Schema graph_core tools declare."""
    return {
        "type": "object",
        "properties": {k: {"type": t, "description": d} for k, (t, d, _) in params.items()},
        "required": [k for k, (_, _, required) in params.items() if required],
    }


def test_agent_tool_with_options_with_agent_input_schema() -> None:
    """agent_tool_test.go TestAgentToolWithOptions/WithAgentInputSchema"""
    custom = _schema({"custom_arg": ("string", "a custom argument", True)})
    agent = CapturingAgent(
        "schema-agent", "agent with custom schema", _done("schema-agent", "schema processed")
    )
    tool = AgentTool(agent, input_schema=custom)
    assert tool.info.parameters == custom
    tool.invoke('{"custom_arg":"hello world"}')
    assert [m.content for m in agent.captured_input] == ['{"custom_arg":"hello world"}']


def test_agent_tool_with_options_with_agent_input_schema_complex_schema() -> None:
    """agent_tool_test.go TestAgentToolWithOptions/WithAgentInputSchema_ComplexSchema"""
    complex_schema = _schema(
        {
            "name": ("string", "user name", True),
            "age": ("integer", "user age", False),
            "active": ("boolean", "user status", False),
        }
    )
    agent = CapturingAgent(
        "complex-agent", "agent with complex schema", _done("complex-agent", "complex processed")
    )
    tool = AgentTool(agent, input_schema=complex_schema)
    assert tool.info.parameters == complex_schema
    tool.invoke('{"name":"John","age":30,"active":true}')
    assert [m.content for m in agent.captured_input] == ['{"name":"John","age":30,"active":true}']


def test_agent_tool_with_options_both_options_together() -> None:
    """agent_tool_test.go TestAgentToolWithOptions/BothOptionsTogether"""
    custom = _schema({"query": ("string", "search query", True)})
    agent = CapturingAgent(
        "combined-agent", "agent with both options", _done("combined-agent", "combined processed")
    )
    tool = AgentTool(agent, input_schema=custom, full_chat_history_as_input=True)
    history = [Message.user("previous conversation"), Message.assistant("previous response")]
    graph = _history_graph(
        "react-agent",
        [*history, Message.assistant("tool call")],
        lambda _: (tool.invoke('{"query":"current query"}'), "done")[1],
    )
    assert graph.invoke("") == "done"
    assert tool.info.parameters == custom
    assert [m.content for m in agent.captured_input] == [
        "previous conversation",
        "For context: [react-agent] said: previous response.",
        "For context: [react-agent] called tool: `transfer_to_agent` with arguments: combined-agent.",
        "For context: [react-agent] `transfer_to_agent` tool returned result: "
        "successfully transferred to agent [combined-agent].",
    ]


class SessionSpy:
    """Eino's `spyAgent`: keeps the session of the run context it runs in."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.description = agent.description
        self.captured: RunSession | None = None

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        ctx = current_run_ctx()
        self.captured = ctx.session if ctx is not None else None
        yield from self.agent.run(messages, **options)


def test_nested_agent_tool_run_path() -> None:
    """agent_tool_test.go TestNestedAgentTool_RunPath: an event of the innermost agent, forwarded twice,
    reaches the outer run with the run path outer, inner, inner2; each agent tool's run keeps only its
    own agent's events in its session. (Go's check of the outer session reads a run context the test
    made itself, which the Runner does not use, so it checks nothing and is left out.)"""
    inner2 = ChatModelAgent(
        name="inner2", description="leaf", model=EmitOnceModel(), emit_internal_events=True
    )
    inner2_spy = SessionSpy(inner2)
    inner = ChatModelAgent(
        name="inner",
        description="mid",
        model=FakeToolCallingModel(),
        tools=[AgentTool(inner2_spy)],
        emit_internal_events=True,
    )
    inner_spy = SessionSpy(inner)
    outer = ChatModelAgent(
        name="outer",
        description="top",
        model=FakeToolCallingModel(),
        tools=[AgentTool(inner_spy)],
        emit_internal_events=True,
    )
    events = list(Runner(outer).run([Message.user("q")]))
    target = next(
        e for e in events if not e.is_streaming and e.message is not None and e.message.content == "inner2"
    )
    assert target.run_path == ("outer", "inner", "inner2")
    for spy, name in ((inner_spy, "inner"), (inner2_spy, "inner2")):
        assert spy.captured is not None, f"{name} spy did not capture session"
        recorded = spy.captured.get_events()
        assert recorded and all(w.event.agent_name == name for w in recorded)


def test_nested_agent_tool_inner_tool_result_not_emitted_to_outer() -> None:
    """agent_tool_test.go TestNestedAgentTool_InnerToolResultNotEmittedToOuter"""
    inner = ChatModelAgent(
        name="inner",
        description="inner agent with tool",
        model=FakeToolCallingModel(),
        tools=[SimpleTool("inner_tool", "inner_tool_result")],
    )
    outer = ChatModelAgent(
        name="outer", description="outer agent", model=FakeToolCallingModel(), tools=[AgentTool(inner)]
    )
    events = list(Runner(outer).run([Message.user("q")]))
    assert events
    for event in events:
        message = event.message
        assert not (
            message is not None
            and message.role == "tool"
            and event.agent_name == "outer"
            and message.content == "inner_tool_result"
        ), "inner agent's tool result should not be emitted as outer agent's event"


def test_agent_tool_interrupt_without_checkpoint() -> None:
    """agent_tool_test.go TestAgentTool_InterruptWithoutCheckpoint: the inner agent's last event is a
    `StatefulInterrupt`, but the store the tool reads (here the agent's own) has nothing for the run"""

    def stateful_interrupt() -> list[AgentEvent]:
        with address_segment("agent", "TestAgent"):
            return [agent_stateful_interrupt("info", "state")]

    class NoCheckpointAgent(EventsAgent):
        def __init__(self) -> None:
            super().__init__("TestAgent", "d", stateful_interrupt)
            self.checkpoint_store = InMemoryCheckpointStore()  # saves itself, but saved nothing

    with pytest.raises(GraphRunError, match="interrupt occurred but checkpoint data is missing"):
        AgentTool(NoCheckpointAgent()).invoke('{"request":"q"}')


def test_agent_tool_invokable_run_final_only() -> None:
    """agent_tool_test.go TestAgentTool_InvokableRun_FinalOnly"""
    inner2 = ChatModelAgent(
        name="inner2", description="leaf", model=EmitOnceModel(), emit_internal_events=True
    )
    assert AgentTool(inner2).invoke('{"request":"q"}') == "inner2"


def test_agent_tool_invokable_run_streaming_variant() -> None:
    """agent_tool_test.go TestAgentTool_InvokableRun_StreamingVariant: the last streamed output is the
    result"""

    def events() -> list[AgentEvent]:
        first = iter([Message.assistant("1"), Message.assistant("2")])
        second = iter([Message.assistant("a"), Message.assistant("b")])
        return [
            AgentEvent("stream", message_stream=first),
            AgentEvent("stream", message_stream=second),
        ]

    assert AgentTool(EventsAgent("stream", "test", events)).invoke('{"request":"q"}') == "ab"


def test_invokable_agent_tool_info_and_run() -> None:
    """agent_tool_test.go TestInvokableAgentTool_InfoAndRun"""

    def events() -> list[AgentEvent]:
        frames = iter([Message.assistant("hello "), Message.assistant("world")])
        return [event_from_message(None, frames)]

    tool = AgentTool(EventsAgent("s", "s", events))
    info = tool.info
    assert info.name == "s" and info.description == "s"
    assert "request" in info.parameters["required"]
    assert info.parameters["properties"]["request"]["type"] == "string"
    custom = _schema({"x": ("string", "arg", True)})
    assert AgentTool(EventsAgent("s", "s", events), input_schema=custom).info.parameters == custom
    assert tool.invoke('{"request":"x"}') == "hello world"


def test_invokable_agent_tool_error_cases() -> None:
    """agent_tool_test.go TestInvokableAgentTool_ErrorCases: no event is an error; an event without
    output is an empty result"""
    with pytest.raises(GraphRunError, match="no event returned"):
        AgentTool(EventsAgent("empty", "empty", list)).invoke('{"request":"x"}')
    no_output = AgentTool(EventsAgent("no", "no", lambda: [AgentEvent("")]))
    assert no_output.invoke('{"request":"x"}') == ""


def test_agent_tool_request_missing_is_empty() -> None:
    """agent_tool.go InvokableRun: `{}` is an empty request (Go unmarshals into a struct), which
    interrupt_test.go TestNestedChatModelAgentWithAgentTool relies on"""
    agent = CapturingAgent("a", "d", _done("a", "ok"))
    assert AgentTool(agent).invoke("{}") == "ok"
    assert [m.content for m in agent.captured_input] == [""]
