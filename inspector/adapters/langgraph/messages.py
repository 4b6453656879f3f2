"""LangChain message objects as graph_core `Message`s, so recordings show them like graph_core's.

A LangGraph state holds LangChain messages (`HumanMessage`, `AIMessage` with `tool_calls`,
`ToolMessage`, ...). The recorder, the messages pane and `inspector show` know graph_core's `Message`:
`to_message` converts one (tool-call `args` become a JSON `arguments` string, `usage_metadata` becomes
`TokenUsage`), and `Neutralizer` converts whole values (states, node inputs and outputs), reusing the
converted object for a message it saw before. That reuse matters: the recorder stores a message once and
refers to it by identity afterwards, and a state's message list grows by one or two messages a step.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from graph_core.schema import Message, Role, TokenUsage, ToolCall

__all__ = ["Neutralizer", "ToolCallFailed", "to_message"]

_ROLES: dict[str, Role] = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}


class ToolCallFailed(Exception):
    """A LangGraph `ToolNode` turned a tool's exception into a `ToolMessage` with status `error`.

    Recorded as the tool call's error so diagnostics report the failed tool; the message is the content
    the model was shown.
    """


def _text(content: Any) -> str:
    """A message's content as text: a string as is, content blocks joined by their `text` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:  # pyright: ignore[reportUnknownVariableType]
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and isinstance(block.get("text"), str):  # pyright: ignore[reportUnknownMemberType]
                parts.append(block["text"])  # pyright: ignore[reportUnknownArgumentType]
        return "".join(parts)
    return "" if content is None else str(content)


def _arguments(args: Any) -> str:
    try:
        return json.dumps(args, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return json.dumps(str(args))


def _fields(message: Any) -> Mapping[str, Any] | None:
    """A pydantic message's fields as a mapping (its instance dict, with its extra fields), or None for
    another kind of object. Reading them there spares the model's `__getattr__` fallback, which raises
    and catches an exception for every field a message class lacks (`tool_calls` of a `ToolMessage`)."""
    if not hasattr(type(message), "__pydantic_fields__"):
        return None
    fields = getattr(message, "__dict__", None)
    if type(fields) is not dict:
        return None
    extra = getattr(message, "__pydantic_extra__", None)
    return {**fields, **extra} if extra else fields  # pyright: ignore[reportUnknownVariableType]


def to_message(message: Any) -> Message:
    """A graph_core `Message` for a LangChain `BaseMessage` (role from its `type`)."""
    fields_of = _fields(message)
    get: Callable[[str, Any], Any] = (
        fields_of.get if fields_of is not None else lambda key, default: getattr(message, key, default)
    )
    kind = str(get("type", ""))
    role: Role = _ROLES.get(kind, "user")
    if kind == "chat":  # ChatMessage carries its role as text
        role = _ROLES.get(str(get("role", "user")), "user")
    extra: dict[str, Any] = {}  # LangChain's message ids are left out: most are random (uuid4 per run)
    tool_calls = [
        ToolCall(str(call.get("id") or ""), str(call.get("name") or ""), _arguments(call.get("args", {})))
        for call in get("tool_calls", None) or []
    ]
    usage = None
    metadata = get("usage_metadata", None)
    if isinstance(metadata, Mapping):
        prompt = int(metadata.get("input_tokens") or 0)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
        completion = int(metadata.get("output_tokens") or 0)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
        total = int(metadata.get("total_tokens") or prompt + completion)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
        usage = TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)
    if role == "tool" and get("status", None) == "error":
        extra["status"] = "error"
    name = get("name", None)
    name = None if name is None else str(name)
    tool_call_id = get("tool_call_id", None) if role == "tool" else None
    fields: dict[str, Any] = {}
    if tool_calls:
        fields["tool_calls"] = tool_calls
    if tool_call_id is not None:
        fields["tool_call_id"] = str(tool_call_id)
    if role == "tool" and name is not None:
        fields["tool_name"] = name
    elif name is not None:
        fields["name"] = name
    if usage is not None:
        fields["usage"] = usage
    if extra:
        fields["extra"] = extra
    return Message(role, _text(get("content", "")), **fields)


_MESSAGE_CLASSES: dict[type, bool] = {}
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _is_message(value: Any) -> bool:
    """Whether `value` is a LangChain message (by its class's module), remembered per class: the
    neutralizer asks this of every value it walks."""
    cls = type(value)
    known = _MESSAGE_CLASSES.get(cls)
    if known is None:
        known = cls.__module__.startswith("langchain_core.messages") and hasattr(value, "type")
        if len(_MESSAGE_CLASSES) < 10_000:
            _MESSAGE_CLASSES[cls] = known
    return known


def _message_id(message: Any) -> str | None:
    """A LangChain message's `id` (LangGraph's reducer gives every message in a state one), or None."""
    value = getattr(message, "id", None)
    return value if isinstance(value, str) else None


def _same(a: Any, b: Any) -> bool:
    """Whether two messages are equal (LangChain messages compare by value); False if that fails."""
    try:
        return bool(a == b)
    except Exception:
        return False


class Neutralizer:
    """Convert values for recording: LangChain messages to `Message`, containers walked, the rest as is.

    A converted message is kept by the identity of its original (and the original kept alive, so the
    identity is not reused), so the same LangChain message always becomes the same `Message` object.
    """

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Any, Message]] = {}
        # message lists by the identity of their first message: (that message, the source list last
        # converted, its conversion), so a list that grew since is converted by extending the same list
        self._lines: dict[int, tuple[Any, list[Any], list[Any]]] = {}
        # the same lines by the LangChain id of their first message: a live-debugged run's state is read
        # back from its checkpoint after each stop (new objects, equal messages) and goes on extending
        # the same converted list, as if it had not stopped
        self._by_id: dict[str, tuple[Any, list[Any], list[Any]]] = {}

    def message(self, value: Any) -> Message:
        held = self._seen.get(id(value))
        if held is not None and held[0] is value:
            return held[1]
        converted = to_message(value)
        self._seen[id(value)] = (value, converted)
        return converted

    def value(self, value: Any, depth: int = 0) -> Any:
        """`value` with every LangChain message (inside dicts, lists, tuples) converted."""
        cls = type(value)
        if cls in _PLAIN or depth > 50:
            return value
        if cls is dict:  # a state or a node's input, usually: its plain fields are kept without a call
            return {
                key: item if type(item) in _PLAIN else self.value(item, depth + 1)
                for key, item in value.items()  # pyright: ignore[reportUnknownVariableType]
            }
        if cls is list:
            if value and _is_message(value[0]):
                return self._message_list(value, depth)
            return [self.value(item, depth + 1) for item in value]  # pyright: ignore[reportUnknownVariableType]
        if cls is tuple:
            return tuple(self.value(item, depth + 1) for item in value)  # pyright: ignore[reportUnknownVariableType]
        if _is_message(value):
            return self.message(value)
        if isinstance(value, Mapping):
            return {key: self.value(item, depth + 1) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
        return value

    def _message_list(self, source: list[Any], depth: int) -> list[Any]:
        """A state's message list, converted. LangGraph's reducer makes a new list every step with the
        old messages as its prefix; when that prefix holds the messages of the list converted last time,
        the earlier conversion is extended in place and returned again, so a step costs the new messages
        only and the recorder sees one list that grows, as in a graph_core state. (An observer that keeps
        the list must copy it, as graph_core's callback contract says of states.)

        The prefix is compared with `==` on the lists, which takes each item's identity first, at C
        speed: a per-item identity test in Python cost more than the rest of a step's translation on a
        long history. An item that is not the same object but equal to it (LangChain messages compare
        by value) converts to an equal `Message`, so the earlier conversion stands for it."""
        first = source[0]
        line = self._lines.get(id(first))
        if line is None or line[0] is not first:  # the same messages as other objects, read back from
            line = self._by_id.get(_message_id(first) or "")  # a checkpoint? (by LangChain's message id)
        if line is not None and (line[0] is first or _same(line[0], first)):
            _, before, converted = line
            n = len(before)
            if len(converted) == n and len(source) >= n:
                if source is before and len(source) == n:
                    return converted
                try:
                    same = source[:n] == before if len(source) > n else source == before
                except Exception:  # an item whose comparison fails: convert the list afresh
                    same = False
                if same:
                    if len(source) > n:
                        converted.extend(self.value(item, depth + 1) for item in source[n:])
                    self._remember(first, source, converted)
                    return converted
        converted = [self.value(item, depth + 1) for item in source]
        self._remember(first, source, converted)
        return converted

    def _remember(self, first: Any, source: list[Any], converted: list[Any]) -> None:
        line = self._lines[id(first)] = (first, source, converted)
        key = _message_id(first)
        if key is not None:
            self._by_id[key] = line
