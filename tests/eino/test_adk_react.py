"""Ports of Eino's `adk/react_test.go` (cloudwego/eino ca0441ac0bce): the ChatModelAgent's ReAct graph
(`newReact`) run to its final message: tool loops, return-directly tools, the iteration budget."""

from __future__ import annotations

import itertools
import json

import pytest

from graph_core.agents.adk import ChatModelAgent, ExceedMaxIterationsError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from tests.eino.test_adk_chatmodel import _FakeTool

_ids = itertools.count()


def _hello() -> Message:
    """What Go's mock answers while it still calls the tool (random IDs and names there)."""
    n = next(_ids)
    call = ToolCall(id=f"call-{n}", name="test_tool", arguments=json.dumps({"name": f"user{n}", "hh": "123"}))
    return Message.assistant("hello test", tool_calls=[call])


def _model(calls: int) -> ScriptedChatModel:
    return ScriptedChatModel([*(_hello() for _ in range(calls)), Message.assistant("bye")])


def test_react_invoke() -> None:
    """react_test.go TestReact/Invoke: two tool rounds, then the model's answer is the result."""
    agent = ChatModelAgent(name="react", model=_model(2), tools=[_FakeTool(3)])
    assert agent.invoke([Message.user("Use the test tool to say hello")]).content == "bye"


def test_react_tools_return_directly() -> None:
    """react_test.go TestReact/ToolsReturnDirectly: the return-directly tool's message is the result."""
    agent = ChatModelAgent(name="react", model=_model(2), tools=[_FakeTool(3)], return_directly=["test_tool"])
    assert agent.invoke([Message.user("Use the test tool to say hello")]).role == "tool"


def test_react_stream() -> None:
    """react_test.go TestReact/Stream: the streamed final answer concatenates to the model's answer."""
    agent = ChatModelAgent(name="react", model=_model(2), tools=[_FakeTool(3)])
    chunks = list(agent.stream([Message.user("Use the test tool to say hello")]))
    assert "".join(c.content for c in chunks) == "bye"


def test_react_stream_with_tools_return_directly() -> None:
    """react_test.go TestReact/StreamWithToolsReturnDirectly: the stream is the tool's message."""
    agent = ChatModelAgent(name="react", model=_model(2), tools=[_FakeTool(3)], return_directly=["test_tool"])
    chunks = list(agent.stream([Message.user("Use the test tool to say hello")]))
    assert [c.role for c in chunks] == ["tool"] * len(chunks) and chunks


def test_react_max_iterations() -> None:
    """react_test.go TestReact/MaxIterations: 5 tool rounds + the answer fit 6 iterations; with 5 the
    run fails with ExceedMaxIterationsError, whose message Go checks."""
    agent = ChatModelAgent(name="react", model=_model(5), tools=[_FakeTool(3)], max_iterations=6)
    assert agent.invoke([Message.user("Use the test tool to say hello")]).content == "bye"
    agent = ChatModelAgent(name="react", model=_model(5), tools=[_FakeTool(3)], max_iterations=5)
    with pytest.raises(Exception) as caught:
        agent.invoke([Message.user("Use the test tool to say hello")])
    error: BaseException | None = caught.value
    while error is not None and not isinstance(error, ExceedMaxIterationsError):
        error = error.__cause__
    assert isinstance(error, ExceedMaxIterationsError)
    assert "exceeds max iterations" in str(caught.value)
