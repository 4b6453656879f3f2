"""Audit of the flow ReAct agent: defects found by a hostile read, each pinned by a test."""

from __future__ import annotations

from typing import Any

from graph_core.agents.react import ReActAgent
from graph_core.callbacks import RunInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool


@tool
def get_weather(city: str) -> str:
    return f"sunny in {city}"


def _one_round() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            Message.assistant(tool_calls=[ToolCall("c1", "get_weather", '{"city": "Paris"}')]),
            Message.assistant("done"),
        ]
    )


class _ModelInputs:
    """Keeps the model inputs callbacks were given, as a tracing handler would."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.kind == "ChatModel":
            self.inputs.append(input)


def test_model_input_seen_by_callbacks_is_not_the_live_state_list() -> None:
    # The model node used to get the state's own list: it grew after the call, so a handler that kept
    # the input saw messages the model never received.
    seen = _ModelInputs()
    ReActAgent(_one_round(), tools=[get_weather]).invoke("weather?", callbacks=[seen])
    assert [[m.role for m in i] for i in seen.inputs] == [["user"], ["user", "assistant", "tool"]]


def test_model_input_after_rewriter_is_not_the_live_state_list() -> None:
    seen = _ModelInputs()
    agent = ReActAgent(_one_round(), tools=[get_weather], message_rewriter=lambda ms: ms)
    agent.invoke("weather?", callbacks=[seen])
    assert [len(i) for i in seen.inputs] == [1, 3]
