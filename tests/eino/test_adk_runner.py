"""Ports of `adk/runner_test.go`, `adk/callback_integration_test.go` and `adk/agent_tool_test.go`
(cloudwego/eino): the Runner, ADK agent callbacks and an agent used as a tool. Each test names its Go
test."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from graph_core.agents.adk import AgentAction, AgentEvent, ChatModelAgent, get_session_values
from graph_core.agents.adk_callbacks import AGENT_KIND, AgentCallbackInput, AgentCallbackOutput
from graph_core.agents.adk_runner import AgentTool, Runner
from graph_core.callbacks import RunInfo
from graph_core.checkpoint.store import InMemoryCheckpointStore
from graph_core.errors import GraphBuildError, GraphRunError
from graph_core.schema import Message, ToolCall
from tests.eino.adk_fakes import RecordingModel


class MockAgent:
    """Eino's `mockRunnerAgent` / `mockAgentForTool`: replays events, records its input."""

    def __init__(self, name: str, description: str, responses: Sequence[AgentEvent]) -> None:
        self.name = name
        self.description = description
        self.responses = list(responses)
        self.call_count = 0
        self.last_input: list[Message] = []
        self.streaming: bool | None = None
        self.session: dict[str, Any] | None = None

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        self.call_count += 1
        self.last_input = [m for m in messages or [] if isinstance(m, Message)]
        self.streaming = options.get("streaming", False)
        self.session = options.get("session")
        for event in self.responses:
            yield event
            if event.action is not None and event.action.exit:
                break


def test_new_runner() -> None:
    """runner_test.go TestNewRunner"""
    assert Runner(MockAgent("a", "d", [])) is not None


def test_runner_run() -> None:
    """runner_test.go TestRunner_Run"""
    agent = MockAgent(
        "TestAgent",
        "Test agent for Runner",
        [AgentEvent("TestAgent", message=Message.assistant("Response from test agent"))],
    )
    msgs = [Message.user("Hello, agent!")]
    events = list(Runner(agent).run(msgs))
    assert agent.call_count == 1 and agent.last_input == msgs and agent.streaming is False
    assert len(events) == 1 and events[0].agent_name == "TestAgent"
    assert events[0].message is not None and events[0].message.content == "Response from test agent"


def _streamed(text: str) -> AgentEvent:
    return AgentEvent("TestAgent", message_stream=iter([Message.assistant(text)]))


def test_runner_run_with_streaming() -> None:
    """runner_test.go TestRunner_Run_WithStreaming"""
    agent = MockAgent("TestAgent", "Test agent for Runner", [_streamed("Streaming response")])
    msgs = [Message.user("Hello, agent!")]
    events = list(Runner(agent, enable_streaming=True).run(msgs))
    assert agent.call_count == 1 and agent.last_input == msgs and agent.streaming is True
    assert len(events) == 1 and events[0].agent_name == "TestAgent"
    assert events[0].is_streaming


def test_runner_query() -> None:
    """runner_test.go TestRunner_Query"""
    agent = MockAgent(
        "TestAgent", "d", [AgentEvent("TestAgent", message=Message.assistant("Response to query"))]
    )
    events = list(Runner(agent).query("Test query"))
    assert agent.call_count == 1 and len(agent.last_input) == 1
    assert agent.last_input[0].content == "Test query" and agent.streaming is False
    assert [e.message.content for e in events if e.message] == ["Response to query"]


def test_runner_query_with_streaming() -> None:
    """runner_test.go TestRunner_Query_WithStreaming"""
    agent = MockAgent("TestAgent", "Test agent for Runner", [_streamed("Streaming query response")])
    events = list(Runner(agent, enable_streaming=True).query("Test query"))
    assert agent.call_count == 1 and len(agent.last_input) == 1
    assert agent.last_input[0].content == "Test query" and agent.streaming is True
    assert len(events) == 1 and events[0].agent_name == "TestAgent"
    assert events[0].is_streaming


def test_resume_with_missing_checkpoint() -> None:
    """runner_test.go TestResumeWithMissingCheckpoint: an error, not a crash"""
    agent = ChatModelAgent(name="resume-agent", model=RecordingModel([Message.assistant("ok")]))
    runner = Runner(agent, checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(GraphRunError, match="failed to load from checkpoint"):
        runner.resume("nonexistent-checkpoint", resume_data={"fake-id": None})
    with pytest.raises(GraphRunError, match="store is nil"):
        Runner(agent).resume("any")


def test_runner_resume_continues_an_interrupted_run() -> None:
    """runner_test.go has no resume round trip; this is the Runner's resume path (Eino `Resume`):
    a tool interrupts, the runner resumes the saved checkpoint with data for it."""
    from graph_core.interrupt import get_interrupt_state, interrupt, was_interrupted

    class Approval:
        info = __import__("graph_core.schema", fromlist=["ToolInfo"]).ToolInfo("approve", "asks")

        def invoke(self, arguments: str) -> str:
            if not was_interrupted():
                interrupt("need approval", state=arguments)
            return f"approved {get_interrupt_state()}"

    model = RecordingModel(
        [Message.assistant("", tool_calls=[ToolCall("c1", "approve", "{}")]), Message.assistant("done")]
    )
    store = InMemoryCheckpointStore()
    agent = ChatModelAgent(name="approver", model=model, tools=[Approval()])
    runner = Runner(agent, checkpoint_store=store)
    first = list(runner.query("go", checkpoint_id="cp1"))
    assert first[-1].action is not None and first[-1].action.interrupted is not None
    target = first[-1].action.interrupted.interrupt_contexts[0].id
    resumed = list(runner.resume("cp1", resume_data={target: "yes"}))
    assert [e.message.content for e in resumed if e.message] == ["approved {}", "done"]


class CallbackRecorder:
    """Eino's `callbackRecorder`: keeps the agent-level callbacks and reads the event iterator."""

    def __init__(self) -> None:
        self.starts: list[tuple[RunInfo, Any]] = []
        self.ends: list[RunInfo] = []
        self.events: list[AgentEvent] = []
        self.done = threading.Event()

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.kind == AGENT_KIND:
            self.starts.append((info, input))

    def on_end(self, info: RunInfo, output: Any) -> None:
        if info.kind != AGENT_KIND:
            return
        self.ends.append(info)
        assert isinstance(output, AgentCallbackOutput) and output.events is not None
        events = output.events

        def read() -> None:
            self.events.extend(events)
            self.done.set()

        threading.Thread(target=read, daemon=True).start()


def _callback_agent(name: str = "TestAgent") -> ChatModelAgent:
    return ChatModelAgent(
        name=name,
        description="Test agent for callback",
        instruction="You are a test agent",
        model=RecordingModel([Message.assistant("test response")]),
    )


def test_callback_on_start_invocation() -> None:
    """callback_integration_test.go TestCallbackOnStartInvocation"""
    recorder = CallbackRecorder()
    list(Runner(_callback_agent()).query("hello", callbacks=[recorder]))
    assert recorder.done.wait(5)
    assert len(recorder.starts) == 1
    payload = recorder.starts[0][1]
    assert isinstance(payload, AgentCallbackInput) and len(payload.messages) == 1


def test_callback_on_end_invocation() -> None:
    """callback_integration_test.go TestCallbackOnEndInvocation"""
    recorder = CallbackRecorder()
    list(Runner(_callback_agent()).query("hello", callbacks=[recorder]))
    assert recorder.done.wait(5)
    assert recorder.ends and recorder.events


def test_callback_run_info_for_chat_model_agent() -> None:
    """callback_integration_test.go TestCallbackRunInfoForChatModelAgent"""
    recorder = CallbackRecorder()
    list(Runner(_callback_agent("TestChatAgent")).query("hello", callbacks=[recorder]))
    assert recorder.done.wait(5)
    info, payload = recorder.starts[0]
    assert info.name == "TestChatAgent" and info.kind == AGENT_KIND and payload.agent_type == "ChatModel"


def test_multiple_callback_handlers() -> None:
    """callback_integration_test.go TestMultipleCallbackHandlers"""
    first, second = CallbackRecorder(), CallbackRecorder()
    list(Runner(_callback_agent()).query("hello", callbacks=[first, second]))
    assert first.done.wait(5) and second.done.wait(5)
    assert first.starts and second.starts and first.ends and second.ends


def test_callback_events_match_agent_output() -> None:
    """callback_integration_test.go TestCallbackEventsMatchAgentOutput"""
    recorder = CallbackRecorder()
    events = list(Runner(_callback_agent()).query("hello", callbacks=[recorder]))
    assert recorder.done.wait(5)
    assert len(recorder.events) == len(events)
    assert [e.message.content for e in recorder.events if e.message] == [
        e.message.content for e in events if e.message
    ]


def test_agent_tool_info() -> None:
    """agent_tool_test.go TestAgentTool_Info"""
    info = AgentTool(MockAgent("TestAgent", "Test agent description", [])).info
    assert info.name == "TestAgent" and info.description == "Test agent description"
    assert info.parameters["properties"]["request"]["type"] == "string"


def test_agent_tool_info_empty_name() -> None:
    """agent_tool_test.go TestAgentTool_Info_EmptyName"""
    with pytest.raises(GraphBuildError, match="non-empty Name"):
        _ = AgentTool(MockAgent("", "desc", [])).info


def test_agent_tool_info_empty_description() -> None:
    """agent_tool_test.go TestAgentTool_Info_EmptyDescription"""
    with pytest.raises(GraphBuildError, match="non-empty Description"):
        _ = AgentTool(MockAgent("name", "", [])).info


@pytest.mark.parametrize(
    ("responses", "request_json", "expected"),
    [
        pytest.param(
            [AgentEvent("TestAgent", message=Message.assistant("Test response"))],
            '{"request":"Test request"}',
            "Test response",
            id="successful model response",
        ),
        pytest.param(
            [AgentEvent("TestAgent", message=Message.tool("Tool response", tool_call_id="test-id"))],
            '{"request":"Test tool request"}',
            "Tool response",
            id="successful tool call response",
        ),
        pytest.param([], "invalid json", None, id="invalid request JSON"),
        pytest.param([], '{"request":"Test request"}', None, id="no events returned"),
        pytest.param(
            [AgentEvent("TestAgent", error=RuntimeError("assert.AnError"))],
            '{"request":"Test request"}',
            None,
            id="error in event",
        ),
    ],
)
def test_agent_tool_invokable_run(
    responses: list[AgentEvent], request_json: str, expected: str | None
) -> None:
    """agent_tool_test.go TestAgentTool_InvokableRun"""
    tool = AgentTool(MockAgent("TestAgent", "Test agent description", responses))
    if expected is None:
        with pytest.raises(Exception):  # noqa: B017 - Go asserts only that an error is returned
            tool.invoke(request_json)
    else:
        assert tool.invoke(request_json) == expected


def _outer_with_inner(*, emit_internal_events: bool) -> tuple[ChatModelAgent, ChatModelAgent]:
    inner = ChatModelAgent(
        name="inner", description="an inner agent", model=RecordingModel([Message.assistant("inner answer")])
    )
    outer_model = RecordingModel(
        [
            Message.assistant("", tool_calls=[ToolCall("c1", "inner", json.dumps({"request": "do it"}))]),
            Message.assistant("outer answer"),
        ]
    )
    outer = ChatModelAgent(
        name="outer", model=outer_model, tools=[AgentTool(inner)], emit_internal_events=emit_internal_events
    )
    return outer, inner


def test_nested_agent_tool_no_internal_events_when_disabled() -> None:
    """agent_tool_test.go TestNestedAgentTool_NoInternalEventsWhenDisabled"""
    outer, _inner = _outer_with_inner(emit_internal_events=False)
    events = list(outer.run("go"))
    assert {e.agent_name for e in events} == {"outer"}
    tool_events = [e.message.content for e in events if e.message is not None and e.message.role == "tool"]
    assert tool_events == ["inner answer"]
    assert events[-1].message is not None and events[-1].message.content == "outer answer"


def test_nested_agent_tool_internal_events_when_enabled() -> None:
    """agent_tool_test.go TestNestedAgentTool_RunPath, its forwarding half: the inner agent's events reach
    the outer run, named by the inner agent, before the tool's result (the run path:
    test_adk_agent_tool.py::test_nested_agent_tool_run_path)"""
    outer, _inner = _outer_with_inner(emit_internal_events=True)
    events = list(outer.run("go"))
    names = [(e.agent_name, e.message.content if e.message else None) for e in events]
    assert names == [
        ("outer", ""),
        ("inner", "inner answer"),
        ("outer", "inner answer"),
        ("outer", "outer answer"),
    ]


def test_agent_tool_shared_parent_session_values() -> None:
    """agent_tool_test.go TestAgent_SharedParentSessionValues: the inner agent writes its answer to the
    parent's session (`output_key`) and reads the parent's values"""
    seen: list[dict[str, Any]] = []

    def answer(_messages: list[Message]) -> Message:
        seen.append(get_session_values())
        return Message.assistant("inner answer")

    inner = ChatModelAgent(
        name="inner", description="d", model=RecordingModel([answer]), output_key="inner_out"
    )
    outer_model = RecordingModel(
        [
            Message.assistant("", tool_calls=[ToolCall("c1", "inner", '{"request": "x"}')]),
            Message.assistant("done"),
        ]
    )
    outer = ChatModelAgent(name="outer", model=outer_model, tools=[AgentTool(inner)])
    session: dict[str, Any] = {"parent_key": "parent_value"}
    list(Runner(outer).run([Message.user("go")], session=session))
    assert seen == [{"parent_key": "parent_value"}]
    assert session["inner_out"] == "inner answer"


def test_chat_model_agent_output_key_stores_in_session() -> None:
    """chatmodel_test.go TestChatModelAgentOutputKey/OutputKeyStoresInSession"""
    agent = ChatModelAgent(
        name="a", model=RecordingModel([Message.assistant("the answer")]), output_key="out"
    )
    session: dict[str, Any] = {}
    list(agent.run("q", session=session))
    assert session == {"out": "the answer"}


def test_chat_model_agent_output_key_with_streaming_stores_in_session() -> None:
    """chatmodel_test.go TestChatModelAgentOutputKey/OutputKeyWithStreamingStoresInSession"""
    agent = ChatModelAgent(
        name="a", model=RecordingModel([Message.assistant("streamed answer")]), output_key="out"
    )
    session: dict[str, Any] = {}
    list(agent.run("q", streaming=True, session=session))
    assert session == {"out": "streamed answer"}


def test_chat_model_agent_output_key_with_react_workflow() -> None:
    """chatmodel_test.go TestChatModelAgentOutputKey/OutputKeyWithReactWorkflow"""
    from tests.eino.adk_fakes import NamedTool

    model = RecordingModel(
        [Message.assistant("", tool_calls=[ToolCall("c1", "t", "{}")]), Message.assistant("final")]
    )
    agent = ChatModelAgent(name="a", model=model, tools=[NamedTool("t")], output_key="out")
    session: dict[str, Any] = {}
    list(agent.run("q", session=session))
    assert session == {"out": "final"}


def test_exit_action_stops_mock_runner_agent() -> None:
    """runner_test.go mockRunnerAgent: an Exit action ends the replay (the helper's own contract)"""
    agent = MockAgent(
        "A",
        "d",
        [AgentEvent("A", action=AgentAction(exit=True)), AgentEvent("A", message=Message.assistant("x"))],
    )
    assert len(list(Runner(agent).query("q"))) == 1
