"""The history the ADK ChatModelAgent hands its model: a fixed `HistoryView` of the state's list, like
the flow agent's (Eino's slice header), so each round costs O(1) and a model that keeps its input sees
the history as it was at its call."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence

import pytest

from graph_core.agents.adk import ChatModelAgent
from graph_core.history import HistoryView
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import tool


@tool
def ping(n: int) -> str:
    """Answers at once."""
    return f"pong {n}"


class KeepingModel:
    """Keeps the very object it is given on each call, and calls `ping` `rounds` times."""

    def __init__(self, rounds: int) -> None:
        self.kept: list[Sequence[Message]] = []
        self.rounds = rounds

    def _answer(self, messages: Sequence[Message]) -> Message:
        self.kept.append(messages)
        n = len(self.kept)
        if n <= self.rounds:
            return Message.assistant(tool_calls=[ToolCall(f"c{n}", "ping", f'{{"n": {n}}}')])
        return Message.assistant("done")

    def generate(self, messages: Sequence[Message]) -> Message:
        return self._answer(messages)

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        return iter([self._answer(messages)])

    async def agenerate(self, messages: Sequence[Message]) -> Message:
        return self._answer(messages)

    async def astream(self, messages: Sequence[Message]) -> AsyncIterator[Message]:
        yield self._answer(messages)

    def with_tools(self, tools: Sequence[ToolInfo]) -> KeepingModel:
        return self


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_each_call_keeps_the_history_of_its_own_round(mode: str) -> None:
    model = KeepingModel(rounds=3)
    agent = ChatModelAgent(name="a", model=model, tools=[ping], instruction="Be brief.")
    answer = agent.invoke("go") if mode == "invoke" else asyncio.run(agent.ainvoke("go"))
    assert answer.content == "done"

    # system + user, then an assistant call and its tool result per round
    assert [len(kept) for kept in model.kept] == [2, 4, 6, 8]
    assert all(type(kept) is HistoryView for kept in model.kept)
    final = list(model.kept[-1])
    for kept in model.kept:
        assert list(kept) == final[: len(kept)]
    assert [m.content for m in final] == ["Be brief.", "go", "", "pong 1", "", "pong 2", "", "pong 3"]
