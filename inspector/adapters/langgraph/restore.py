"""Recorded values back as LangChain values: what a fork of a LangGraph recording hands to LangGraph.

A LangGraph run is recorded with its LangChain messages as graph_core `Message`s (`messages.py`). To
rebuild such a run in LangGraph's own checkpoints (`inspector.adapters.langgraph.fork`), the recorded
node outputs, the recorded input and edited state values go back the other way: `to_langchain` turns
every `Message` inside a value into the LangChain message of its role (`HumanMessage`, `AIMessage` with
`tool_calls` and `usage_metadata`, `ToolMessage` with its `status`, `SystemMessage`), the rest as is.

`like` keeps what the recording dropped: an edited state value is converted next to the live value it
replaces, and a message that converts back to the same `Message` is that live message itself (its
LangChain id and metadata kept), while a changed one keeps the id of the message it replaces, so
LangGraph's `add_messages` reducer still sees the same conversation with one message changed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graph_core.schema import Message
from inspector.adapters.langgraph.messages import to_message

__all__ = ["from_message", "to_langchain"]


def _args(arguments: str) -> Any:
    """A tool call's JSON `arguments` string as LangChain's `args` (a dict; other JSON kept as it is)."""
    try:
        return json.loads(arguments) if arguments else {}
    except ValueError:
        return {"__arguments": arguments}


def from_message(message: Message, *, id: str | None = None) -> Any:
    """The LangChain message `message` stands for (`id` given to it when not None)."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    fields: dict[str, Any] = {} if id is None else {"id": id}
    if message.role == "assistant":
        if message.name is not None:
            fields["name"] = message.name
        if message.tool_calls:
            fields["tool_calls"] = [
                {"id": call.id, "name": call.name, "args": _args(call.arguments), "type": "tool_call"}
                for call in message.tool_calls
            ]
        if message.usage is not None:
            fields["usage_metadata"] = {
                "input_tokens": message.usage.prompt_tokens,
                "output_tokens": message.usage.completion_tokens,
                "total_tokens": message.usage.total_tokens,
            }
        return AIMessage(message.content, **fields)
    if message.role == "tool":
        if message.tool_name is not None:
            fields["name"] = message.tool_name
        if message.extra.get("status") == "error":
            fields["status"] = "error"
        return ToolMessage(message.content, tool_call_id=message.tool_call_id or "", **fields)
    if message.name is not None:
        fields["name"] = message.name
    if message.role == "system":
        return SystemMessage(message.content, **fields)
    return HumanMessage(message.content, **fields)


def _is_langchain_message(value: Any) -> bool:
    return type(value).__module__.startswith("langchain_core.messages") and hasattr(value, "type")


def to_langchain(value: Any, like: Any = None) -> Any:
    """`value` with every `Message` in it (in dicts, lists, tuples) a LangChain message; `like` is the
    live value `value` replaces, if any (see the module docstring)."""
    if isinstance(value, Message):
        if _is_langchain_message(like):
            if to_message(like) == value:
                return like
            return from_message(value, id=getattr(like, "id", None))
        return from_message(value)
    if isinstance(value, list | tuple):
        items: list[Any] | tuple[Any, ...] = value  # pyright: ignore[reportUnknownVariableType]
        olds: list[Any] = list(like) if isinstance(like, list | tuple) else []  # pyright: ignore[reportUnknownArgumentType]
        out = [to_langchain(item, olds[i] if i < len(olds) else None) for i, item in enumerate(items)]
        return tuple(out) if isinstance(value, tuple) else out
    if isinstance(value, Mapping):
        mapping: Mapping[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
        old: Mapping[Any, Any] = like if isinstance(like, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
        return {k: to_langchain(v, old.get(k)) for k, v in mapping.items()}
    return value
