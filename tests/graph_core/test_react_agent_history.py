"""The history the flow ReAct agent hands its model: a fixed `HistoryView` of the state's list (Eino's
slice header), so a model or callback that keeps its input sees the history as it was at its call."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core.agents.react import ReActAgent
from graph_core.callbacks import RunInfo
from graph_core.history import HistoryView
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, concat_messages
from tests.helpers import KeepingModel, ping, ping_round


def _run(agent: ReActAgent, mode: str, callbacks: list[Any]) -> Message:
    if mode == "invoke":
        return agent.invoke("go", callbacks=callbacks)
    if mode == "stream":
        return concat_messages(list(agent.stream("go", callbacks=callbacks)))
    return asyncio.run(agent.ainvoke("go", callbacks=callbacks))


class ChatInputs:
    """A callback that keeps the chat node's input objects."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.node_key == "chat":
            self.inputs.append(input)

    def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
        chunks = list(input)  # the input as a stream of one chunk
        if info.node_key == "chat":
            assert len(chunks) == 1
            self.inputs.append(chunks[0])


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke"])
def test_a_model_that_keeps_its_input_sees_the_history_as_it_was_at_its_call(mode: str) -> None:
    model = KeepingModel(rounds=3)
    agent = ReActAgent(model, tools=[ping], max_step=20)
    seen = ChatInputs()
    assert _run(agent, mode, [seen]).content == "done"
    assert [len(m) for m in model.kept] == [1, 3, 5, 7]  # user, then + assistant and tool per round
    final = list(model.kept[-1])
    for kept in model.kept:
        assert type(kept) is HistoryView
        assert list(kept) == final[: len(kept)]  # a prefix of the final history, not the final one
    assert [m.content for m in model.kept[1] if m.role == "tool"] == ["pong 1"]
    assert all(a is b for a, b in zip(seen.inputs, model.kept, strict=True))  # callbacks: the same view


def test_scripted_model_calls_keep_the_views_and_compare_equal_to_lists() -> None:
    model = ScriptedChatModel([ping_round(1), ping_round(2), Message.assistant("done")])
    ReActAgent(model, tools=[ping]).invoke([Message.user("hi")])
    assert [len(c) for c in model.calls] == [1, 3, 5]
    assert all(type(c) is HistoryView for c in model.calls)
    assert model.calls[0] == [Message.user("hi")]
    assert model.calls[:1] == [[Message.user("hi")]]
    assert [m.role for m in model.calls[2]] == ["user", "assistant", "tool", "assistant", "tool"]


def test_a_plain_list_given_to_the_scripted_model_is_still_copied() -> None:
    model = ScriptedChatModel([Message.assistant("a")])
    given = [Message.user("hi")]
    model.generate(given)
    given.append(Message.user("later"))
    assert type(model.calls[0]) is list and model.calls[0] == [Message.user("hi")]


def test_a_rewriter_that_edits_its_list_in_place_leaves_earlier_inputs_alone() -> None:
    def trim(messages: list[Message]) -> list[Message]:
        del messages[:-2]  # in place, and returned
        return messages

    model = KeepingModel(rounds=3)
    ReActAgent(model, tools=[ping], message_rewriter=trim, max_step=20).invoke(
        [Message.user("one"), Message.user("two"), Message.user("three")]
    )
    assert [[m.content or m.role for m in kept] for kept in model.kept] == [
        ["two", "three"],
        ["assistant", "pong 1"],
        ["assistant", "pong 2"],
        ["assistant", "pong 3"],
    ]


def test_the_modifier_path_hands_the_model_a_list() -> None:
    model = KeepingModel(rounds=1)
    ReActAgent(model, tools=[ping], message_modifier=lambda m: [Message.system("s"), *m]).invoke("go")
    assert [type(kept) for kept in model.kept] == [list, list]
    assert [len(kept) for kept in model.kept] == [2, 4]
