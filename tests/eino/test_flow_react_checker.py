"""Eino's `flow/agent/react/stream_tool_call_checker_test.go` TestDefaultStreamToolCallChecker, ported as
cloudwego/eino PR #1141 has it (head `e79b2351`, after the pinned commit ca0441ac; see
docs/eino-conformance.md).

Eino's unexported `defaultStreamToolCallChecker` is graph_core's `whole_stream_tool_call_checker`, the
flow agent's default `stream_tool_call_checker`; Go's `StreamReaderFromArray` is an iterator.
"""

from __future__ import annotations

import pytest

from graph_core.agents.react import ReActAgent, whole_stream_tool_call_checker
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall


@pytest.mark.parametrize(
    ("chunks", "want"),
    [
        ([Message.assistant("thinking"), Message.assistant(tool_calls=[ToolCall("call_1")])], True),
        ([Message.assistant("final answer")], False),
    ],
    ids=["tool call after text", "text only"],
)
def test_default_stream_tool_call_checker(chunks: list[Message], want: bool) -> None:
    """TestDefaultStreamToolCallChecker: one subtest per table case."""
    assert whole_stream_tool_call_checker(iter(chunks)) is want


def test_the_flow_agent_uses_it_by_default() -> None:
    """PR #1141's `NewAgent` change: `toolCallChecker = defaultStreamToolCallChecker` when none is set."""
    agent = ReActAgent(ScriptedChatModel([Message.assistant("hi")]))
    assert agent.stream_tool_call_checker is whole_stream_tool_call_checker
