"""The history the ADK ChatModelAgent hands its model: a fixed `HistoryView` of the state's list, like
the flow agent's (Eino's slice header), so each round costs O(1) and a model that keeps its input sees
the history as it was at its call."""

from __future__ import annotations

import asyncio

import pytest

from graph_core.agents.adk import ChatModelAgent
from graph_core.history import HistoryView
from tests.helpers import KeepingModel, ping


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
