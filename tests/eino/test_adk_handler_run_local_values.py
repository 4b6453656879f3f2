"""Ports of `adk/handler_test.go` TestRunLocalValueFunctions (cloudwego/eino): values a handler keeps
for one agent run, in the run's state. Each test names its Go subtest."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core.agents.adk import (
    ChatModelAgent,
    ChatModelAgentMiddleware,
    ChatModelAgentState,
    ModelContext,
    delete_run_local_value,
    get_run_local_value,
    set_run_local_value,
)
from graph_core.errors import CheckpointSerializationError, GraphRunError
from graph_core.schema import Message, ToolCall
from tests.eino.adk_fakes import NamedTool, RecordingModel


class StateHooks(ChatModelAgentMiddleware):
    """Eino's `testBeforeModelRewriteStateHandler` / `testAfterModelRewriteStateHandler`."""

    def __init__(self, *, before: Any = None, after: Any = None) -> None:
        self.before, self.after = before, after

    def before_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        if self.before is not None:
            self.before()
        return state

    def after_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        if self.after is not None:
            self.after()
        return state


def _run(*handlers: ChatModelAgentMiddleware, model: Any = None, tools: Any = ()) -> None:
    model = model or RecordingModel([Message.assistant("response")])
    agent = ChatModelAgent(name="TestAgent", model=model, tools=tools, handlers=handlers)
    events = list(agent.run([Message.user("test")]))
    assert all(e.error is None for e in events), [e.error for e in events]


def test_set_and_get_run_local_value() -> None:
    """handler_test.go TestRunLocalValueFunctions/SetAndGetRunLocalValue"""
    captured: list[tuple[Any, bool]] = []
    _run(
        StateHooks(before=lambda: set_run_local_value("test_key", "test_value")),
        StateHooks(after=lambda: captured.append(get_run_local_value("test_key"))),
    )
    assert captured == [("test_value", True)]


def test_delete_run_local_value() -> None:
    """handler_test.go TestRunLocalValueFunctions/DeleteRunLocalValue"""
    captured: list[tuple[Any, bool]] = []

    def set_then_delete() -> None:
        set_run_local_value("delete_key", "delete_value")
        delete_run_local_value("delete_key")

    _run(
        StateHooks(before=set_then_delete),
        StateHooks(after=lambda: captured.append(get_run_local_value("delete_key"))),
    )
    assert captured == [(None, False)]


def test_get_non_existent_key() -> None:
    """handler_test.go TestRunLocalValueFunctions/GetNonExistentKey"""
    captured: list[tuple[Any, bool]] = []
    _run(StateHooks(before=lambda: captured.append(get_run_local_value("non_existent_key"))))
    assert captured == [(None, False)]


def test_run_local_value_encodability_check() -> None:
    """handler_test.go TestRunLocalValueFunctions/RunLocalValueGobEncodabilityCheck: a value the agent's
    checkpoint cannot hold is refused when set (Go checks gob encodability, graph_core its checkpoint
    codec); the message names the type and both ways out."""

    class Unregistered:
        def __init__(self, data: str) -> None:
            self.data = data

    errors: list[BaseException] = []

    def set_bad() -> None:
        try:
            set_run_local_value("key", Unregistered("hello"))
        except CheckpointSerializationError as exc:
            errors.append(exc)
        for value in ("hello", 42, True, 3.14):  # primitives succeed
            set_run_local_value("key", value)

    _run(StateHooks(before=set_bad))
    assert len(errors) == 1
    text = str(errors[0])
    assert "not checkpoint-serializable" in text and "register_type" in text and "contextvars" in text
    assert "Unregistered" in text


def test_run_local_value_outside_context() -> None:
    """handler_test.go TestRunLocalValueFunctions/RunLocalValueOutsideContext"""
    with pytest.raises(GraphRunError, match="SetRunLocalValue failed"):
        set_run_local_value("key", "value")
    with pytest.raises(GraphRunError, match="GetRunLocalValue failed"):
        get_run_local_value("key")
    with pytest.raises(GraphRunError, match="DeleteRunLocalValue failed"):
        delete_run_local_value("key")


def test_run_local_value_persists_across_model_calls() -> None:
    """handler_test.go TestRunLocalValueFunctions/RunLocalValuePersistsAcrossModelCalls"""
    seen: list[Any] = []

    def before() -> None:
        if not seen:
            set_run_local_value("persist_key", "persist_value")
        seen.append(get_run_local_value("persist_key")[0])

    model = RecordingModel(
        [
            Message.assistant("Using tool", tool_calls=[ToolCall("call1", "test_tool", "{}")]),
            Message.assistant("done"),
        ]
    )
    _run(StateHooks(before=before), model=model, tools=[NamedTool("test_tool")])
    assert seen == ["persist_value", "persist_value"]
