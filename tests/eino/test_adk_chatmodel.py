"""Ports of Eino's `adk/chatmodel_test.go` (cloudwego/eino ca0441ac0bce) for what graph_core's
`ChatModelAgent` implements: events of a run (model outputs, tool results, errors), the exit tool and
return-directly tools. Go's mock models become `ScriptedChatModel` scripts."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

from graph_core.agents.adk import AgentAction, AgentEvent, ChatModelAgent, send_tool_gen_action
from graph_core.agents.adk_stream import drain
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo


def _agent(model: ScriptedChatModel, **config: object) -> ChatModelAgent:
    return ChatModelAgent(
        name="TestAgent",
        description="Test agent for unit testing",
        instruction="You are a helpful assistant.",
        model=model,
        **config,  # type: ignore[arg-type]
    )


class _FakeTool:
    """Go `fakeToolForTest`: says hello `tar_count` times, then bye."""

    def __init__(self, tar_count: int) -> None:
        self.info = ToolInfo("test_tool", "test tool for unit testing", {"type": "object"})
        self.tar_count = tar_count
        self.cur_count = 0

    def invoke(self, arguments: str) -> str:
        name = json.loads(arguments)["name"]
        if self.cur_count >= self.tar_count:
            return '{"say": "bye"}'
        self.cur_count += 1
        return f'{{"say": "hello {name}"}}'


def test_chat_model_agent_run_basic_functionality() -> None:
    """chatmodel_test.go TestChatModelAgentRun/BasicFunctionality: one event with the model's answer."""
    agent = _agent(ScriptedChatModel([Message.assistant("Hello, I am an AI assistant.")]))
    events = list(agent.run([Message.user("Hello, who are you?")]))
    assert len(events) == 1 and events[0].error is None
    assert events[0].message is not None and events[0].message.content == "Hello, I am an AI assistant."


def test_chat_model_agent_run_stream_output() -> None:
    """chatmodel_test.go TestChatModelAgentRun/StreamOutput: a streamed answer is one event, carrying the
    model's stream (`IsStreaming`), chunk by chunk."""
    chunks = [Message.assistant("Hello"), Message.assistant(", I am"), Message.assistant(" an AI assistant.")]
    agent = _agent(ScriptedChatModel([chunks]))
    events = list(agent.run([Message.user("Hello, who are you?")], streaming=True))
    assert len(events) == 1 and events[0].error is None
    assert events[0].is_streaming and events[0].message_stream is not None
    got, error = drain(events[0].message_stream)
    assert error is None and [c.content for c in got] == ["Hello", ", I am", " an AI assistant."]


def test_chat_model_agent_run_error_handling() -> None:
    """chatmodel_test.go TestChatModelAgentRun/ErrorHandling: a model error is the one event's error."""
    agent = _agent(ScriptedChatModel([RuntimeError("model error")]))
    events = list(agent.run([Message.user("Hello, who are you?")]))
    assert len(events) == 1 and events[0].error is not None
    assert "model error" in str(events[0].error)


def test_chat_model_agent_run_with_tools() -> None:
    """chatmodel_test.go TestChatModelAgentRun/WithTools: model (tool call), tool result, model answer."""
    call = ToolCall(id="tool-call-1", name="test_tool", arguments='{"name": "test user"}')
    model = ScriptedChatModel(
        [Message.assistant("Using tool", tool_calls=[call]), Message.assistant("Task completed")]
    )
    events = list(_agent(model, tools=[_FakeTool(1)]).run([Message.user("Use the test tool")]))
    assert [e.error for e in events] == [None, None, None]
    assert [e.message.role for e in events if e.message is not None] == ["assistant", "tool", "assistant"]


def test_exit_tool() -> None:
    """chatmodel_test.go TestExitTool: the exit tool's result ends the run with an exit action."""
    call = ToolCall(id="tool-call-1", name="exit", arguments='{"final_result": "This is the final result"}')
    model = ScriptedChatModel([Message.assistant("I'll exit with a final result", tool_calls=[call])])
    events = list(_agent(model, exit=True).run([Message.user("Please exit with a final result")]))
    assert len(events) == 2 and [e.error for e in events] == [None, None]
    assert events[0].message is not None and events[0].message.role == "assistant"
    tool_event = events[1]
    assert tool_event.message is not None and tool_event.message.role == "tool"
    assert tool_event.action is not None and tool_event.action.exit
    assert tool_event.message.content == "This is the final result"


class _WaitingTool:
    """Go `myTool`: answers after the tools before it in the wait order have answered (Go sleeps 1, 10
    and 100 ms; here each tool waits for its predecessor's answer, so the order is fixed)."""

    def __init__(self, name: str, after: threading.Event | None, done: threading.Event) -> None:
        self.info = ToolInfo(name, name, {"type": "object"})
        self.after = after
        self.done = done

    def invoke(self, arguments: str) -> str:
        if self.after is not None:
            assert self.after.wait(10)
        self.done.set()
        return self.info.name


def test_parallel_return_directly_tool_call() -> None:
    """chatmodel_test.go TestParallelReturnDirectlyToolCall: three parallel calls, `tool1` returns
    directly and answers first, yet its event is the last of the four (held until the others)."""
    done = [threading.Event() for _ in range(3)]
    tools = [
        _WaitingTool("tool1", None, done[0]),
        _WaitingTool("tool2", done[0], done[1]),
        _WaitingTool("tool3", done[1], done[2]),
    ]
    calls = [ToolCall(id=f"tool-call-{i}", name=f"tool{i}", arguments="{}") for i in (1, 2, 3)]
    model = ScriptedChatModel([Message.assistant("I'll exit with a final result", tool_calls=calls)])
    events: list[AgentEvent] = list(_agent(model, tools=tools, return_directly=["tool1"]).run(""))
    assert len(events) == 4
    assert events[3].message is not None and events[3].message.tool_name == "tool1"


class _ActionTool:
    """Go `actionTool`: attaches its arguments to its call's event as a customized action."""

    info = ToolInfo("action_tool", "action tool", {"type": "object"})

    def invoke(self, arguments: str) -> str:
        send_tool_gen_action(AgentAction(customized=arguments))
        return "ok"


class _StreamActionTool:
    """Go `streamActionTool`: the same from a stream-only tool, before its chunks."""

    info = ToolInfo("action_tool_stream", "action stream tool", {"type": "object"})

    def stream(self, arguments: str) -> Iterator[str]:
        send_tool_gen_action(AgentAction(customized=arguments))
        yield "o"
        yield "k"


def _two_calls(name: str, first: tuple[str, str], second: tuple[str, str]) -> ScriptedChatModel:
    calls = [ToolCall(id=call_id, name=name, arguments=arguments) for call_id, arguments in (first, second)]
    return ScriptedChatModel([Message.assistant("tools", tool_calls=calls), Message.assistant("done")])


def _tool_actions(events: list[AgentEvent]) -> dict[str | None, object]:
    """Each tool event's call ID with its customized action (a streamed event's read whole)."""
    actions: dict[str | None, object] = {}
    for event in events:
        message = event.get_message()
        if event.action is not None and message is not None and message.role == "tool":
            actions[message.tool_call_id] = event.action.customized
    return actions


def test_concurrent_same_tool_send_tool_gen_action_uses_tool_call_id() -> None:
    """chatmodel_test.go TestConcurrentSameToolSendToolGenActionUsesToolCallID: two concurrent calls of
    the same tool each send an action; each reaches its own call's event (keyed by call ID, not tool
    name, so neither overwrites the other)."""
    model = _two_calls("action_tool", ("id1", "A"), ("id2", "B"))
    agent = ChatModelAgent(name="TestAgent", instruction="", model=model, tools=[_ActionTool()])
    events = list(agent.run("go"))
    assert not [e for e in events if e.error is not None]
    assert _tool_actions(events) == {"id1": "A", "id2": "B"}


def test_concurrent_same_stream_tool_send_tool_gen_action_uses_tool_call_id() -> None:
    """chatmodel_test.go TestConcurrentSameStreamToolSendToolGenActionUsesToolCallID: likewise for a
    stream-only tool (in an invoke run, as Go's): its events are streaming ones (Go `IsStreaming`), each
    with its call's action."""
    model = _two_calls("action_tool_stream", ("sid1", "SA"), ("sid2", "SB"))
    agent = ChatModelAgent(name="TestAgent", instruction="", model=model, tools=[_StreamActionTool()])
    events = list(agent.run("go"))
    assert not [e for e in events if e.error is not None]
    streamed = [e for e in events if e.is_streaming]
    assert _tool_actions(streamed) == {"sid1": "SA", "sid2": "SB"}
    assert [m.content for e in streamed if (m := e.get_message()) is not None] == ["ok", "ok"]
