"""The chat-model protocol the engine calls (Eino's `ToolCallingChatModel`), duck-typed.

A model turns a message list into one assistant message, whole (`generate`) or as chunks (`stream`), and
`with_tools` returns a new model bound to tool descriptions without touching the original, so one model
object can back several agents with different tools.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Protocol, runtime_checkable

from graph_core.schema import Message, ToolInfo

__all__ = ["ChatModel"]


@runtime_checkable
class ChatModel(Protocol):
    """What `add_chat_model_node` and the agents need from a model.

    `stream` and `astream` yield chunks that `concat_messages` joins into what `generate` would return.
    `messages` is a list or, from `ReActAgent` and `ChatModelAgent`, a read-only
    `graph_core.history.HistoryView` (a fixed view of the agent's history, not a `list` instance): read
    it, or take `list(messages)` to change it.
    """

    def generate(self, messages: list[Message]) -> Message: ...

    def stream(self, messages: list[Message]) -> Iterator[Message]: ...

    async def agenerate(self, messages: list[Message]) -> Message: ...

    def astream(self, messages: list[Message]) -> AsyncIterator[Message]: ...

    def with_tools(self, tools: Sequence[ToolInfo]) -> ChatModel: ...
