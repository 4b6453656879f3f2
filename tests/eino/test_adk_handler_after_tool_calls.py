"""Ports of `adk/handler_test.go` TestAfterToolCallsHook and TestToolResultNotDuplicated (cloudwego/eino):
the per-run hook called after each round of tool calls, before the next model call
(`ChatModelAgent.run(after_tool_calls_hook=...)`, Eino `WithAfterToolCallsHook`). Each test names its Go
subtest."""

from __future__ import annotations

from collections.abc import Callable

from graph_core.agents.adk import AdkState, AgentEvent, ChatModelAgent
from graph_core.schema import Message, ToolCall
from graph_core.state import process_state
from tests.eino.adk_fakes import NamedTool, RecordingModel


def _calling(content: str, *calls: tuple[str, str]) -> Message:
    return Message.assistant(content, tool_calls=[ToolCall(call_id, name, "{}") for call_id, name in calls])


def _run(
    model: RecordingModel, tools: list[NamedTool], hook: Callable[[], None] | None, *, instruction: str = ""
) -> list[AgentEvent]:
    agent = ChatModelAgent(name="TestAgent", instruction=instruction, model=model, tools=tools)
    return list(agent.run([Message.user("test")], after_tool_calls_hook=hook))


def test_after_tool_calls_hook_called_after_tool_calls() -> None:
    """handler_test.go TestAfterToolCallsHook/CalledAfterToolCalls"""
    calls: list[bool] = []
    model = RecordingModel(
        [
            _calling("calling tools", ("call_1", "tool_alpha"), ("call_2", "tool_beta")),
            Message.assistant("done"),
        ]
    )
    _run(model, [NamedTool("tool_alpha"), NamedTool("tool_beta")], lambda: calls.append(True))
    assert len(calls) == 1  # one iteration with tool calls


def test_after_tool_calls_hook_not_called_without_tool_calls() -> None:
    """handler_test.go TestAfterToolCallsHook/NotCalledWithoutToolCalls"""
    calls: list[bool] = []
    _run(RecordingModel([Message.assistant("direct response")]), [], lambda: calls.append(True))
    assert calls == []


def test_after_tool_calls_hook_tool_results_in_state_before_hook_fires() -> None:
    """handler_test.go TestAfterToolCallsHook/ToolResultsInStateBeforeHookFires"""
    counts: list[int] = []

    def hook() -> None:
        counts.append(process_state(AdkState, lambda s: sum(m.role == "tool" for m in s.messages)))

    model = RecordingModel([_calling("calling", ("c1", "mytool")), Message.assistant("final")])
    _run(model, [NamedTool("mytool")], hook)
    assert counts == [1]


def test_after_tool_calls_hook_error_propagation() -> None:
    """handler_test.go TestAfterToolCallsHook/HookErrorPropagation"""

    def hook() -> None:
        raise RuntimeError("hook failure")

    model = RecordingModel([_calling("calling", ("c1", "mytool"))])
    events = _run(model, [NamedTool("mytool")], hook)
    errors = [e.error for e in events if e.error is not None]
    assert errors and all("hook failure" in str(e) for e in errors)


def test_after_tool_calls_hook_called_per_iteration() -> None:
    """handler_test.go TestAfterToolCallsHook/HookCalledPerIteration"""
    calls: list[bool] = []
    model = RecordingModel(
        [
            _calling("calling1", ("c1", "mytool")),
            _calling("calling2", ("c2", "mytool")),
            Message.assistant("done"),
        ]
    )
    _run(model, [NamedTool("mytool")], lambda: calls.append(True))
    assert len(calls) == 2


def test_second_model_call_has_no_tool_result_duplication() -> None:
    """handler_test.go TestToolResultNotDuplicated/SecondModelCallHasNoToolResultDuplication"""
    model = RecordingModel([_calling("calling", ("c1", "mytool")), Message.assistant("final")])
    _run(model, [NamedTool("mytool")], None, instruction="You are helpful.")
    second = model.calls[1]
    assert [m.role for m in second] == ["system", "user", "assistant", "tool"]


def test_hook_injected_message_present_without_duplication() -> None:
    """handler_test.go TestToolResultNotDuplicated/HookInjectedMessagePresentWithoutDuplication"""

    def inject() -> None:
        process_state(AdkState, lambda s: s.messages.append(Message.user("injected")))

    model = RecordingModel([_calling("calling", ("c1", "mytool")), Message.assistant("final")])
    _run(model, [NamedTool("mytool")], inject, instruction="You are helpful.")
    second = model.calls[1]
    assert [m.role for m in second] == ["system", "user", "assistant", "tool", "user"]
    assert second[4].content == "injected"
    assert sum(m.role == "tool" for m in second) == 1
