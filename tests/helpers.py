"""Helpers the graph_core tests share: running a compiled graph in a chosen mode, wiring chains, and a
model that keeps what the agents hand it.

Kept to plumbing: what a test asserts stays in the test.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.stream import collect
from graph_core.tools import tool

SYNC_ASYNC = pytest.mark.parametrize("how", ["sync", "async"])
"""Run the test with `how` = "sync" (invoke) and "async" (ainvoke)."""
ALL_MODES = pytest.mark.parametrize("how", ["sync", "async", "stream"])
"""Also "stream": `stream`, its chunks concatenated."""


def run_in(compiled: Any, value: Any, how: str, **options: Any) -> Any:
    """`compiled` run on `value` by `invoke` ("sync"), `ainvoke` ("async") or `stream` (collected)."""
    if how == "sync":
        return compiled.invoke(value, **options)
    if how == "stream":
        return collect(compiled.stream(value, **options))
    if how == "async":
        return asyncio.run(compiled.ainvoke(value, **options))
    raise ValueError(f"unknown mode {how!r}")


ENTRY_POINTS = pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream", "astream"])
"""Run the test through each of the four entry points (see `run_entry`)."""


def run_entry(compiled: Any, value: Any, how: str, **options: Any) -> Any:
    """`compiled` run on `value` through the entry point named `how`; stream chunks come back as a list."""
    if how == "invoke":
        return compiled.invoke(value, **options)
    if how == "stream":
        return list(compiled.stream(value, **options))
    if how == "ainvoke":
        return asyncio.run(compiled.ainvoke(value, **options))

    async def read() -> list[Any]:
        return [chunk async for chunk in compiled.astream(value, **options)]

    if how == "astream":
        return asyncio.run(read())
    raise ValueError(f"unknown entry point {how!r}")


def wire(graph: Graph, *keys: str) -> Graph:
    """Edges START -> keys[0] -> ... -> keys[-1] -> END, added in that order."""
    for source, target in itertools.pairwise([START, *keys, END]):
        graph.add_edge(source, target)
    return graph


@tool
def ping(n: int) -> str:
    """Answers at once."""
    return f"pong {n}"


def ping_round(n: int) -> Message:
    """The assistant message of round `n`: one call of `ping` (id `c{n}`)."""
    return Message.assistant(tool_calls=[ToolCall(f"c{n}", "ping", f'{{"n": {n}}}')])


class KeepingModel:
    """A model that keeps the very object it was given on each call (no copy), calls `ping` for
    `rounds` rounds and then answers "done": what an agent hands its model, as the model saw it."""

    def __init__(self, rounds: int) -> None:
        self.kept: list[Sequence[Message]] = []
        self.rounds = rounds

    def _answer(self, messages: Sequence[Message]) -> Message:
        self.kept.append(messages)
        n = len(self.kept)
        return ping_round(n) if n <= self.rounds else Message.assistant("done")

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
