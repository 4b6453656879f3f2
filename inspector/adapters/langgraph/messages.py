"""LangChain message objects as graph_core `Message`s, so recordings show them like graph_core's.

A LangGraph state holds LangChain messages (`HumanMessage`, `AIMessage` with `tool_calls`,
`ToolMessage`, ...). The recorder, the messages pane and `inspector show` know graph_core's `Message`:
`to_message` converts one (tool-call `args` become a JSON `arguments` string, `usage_metadata` becomes
`TokenUsage`), and `Neutralizer` converts whole values (states, node inputs and outputs), reusing the
converted object for a message it saw before, and a state's lists by where they sit (the graph's path
and the keys down to each list). That reuse matters: the recorder stores a message once and refers to it by
identity afterwards, and a state's lists grow by an item or two a step (LangGraph's reducers make a new
list each time): converting each list whole every step would make a long thread cost the square of its
length.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from operator import is_
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


def _same_item(a: Any, b: Any) -> bool:
    """Whether `b`, in the place of `a`, converts to what `a` converted to: the same object, an equal
    string, integer or float of the same type (not 1 for True or 1.0, nor 0.0 for -0.0), an equal
    LangChain message, or a tuple of such items. Anything else (a dict, a list, another object) only
    when it is the same object, and `_lasting` keeps lines holding those from being extended at all."""
    if a is b:
        return True
    cls = type(a)
    if cls is not type(b):
        return False
    if cls is str or cls is int or cls is bytes:
        return a == b
    if cls is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if cls is tuple:
        return len(a) == len(b) and all(map(_same_item, a, b))  # pyright: ignore[reportUnknownArgumentType]
    return _is_message(a) and _same(a, b)


_EXACT = frozenset({str, int, bool, bytes, type(None)})


def _exact(item: Any) -> bool:
    """Whether an equal item of the same type always converts alike (not a float: -0.0 == 0.0; not a
    tuple: (1,) == (True,)), so a list of such items is compared with `==` and its items' types, at C
    speed, in place of `_same_item` item by item."""
    return type(item) in _EXACT or _is_message(item)


def _lasting(item: Any, depth: int = 0) -> bool:
    """Whether an item's conversion stays right while the item is the same object: a scalar, a message
    (trusted not to be edited in place, as graph_core's recorder trusts its messages) or a tuple of
    such items. A dict or a list may be edited in place, so a list holding one is converted afresh."""
    cls = type(item)
    if cls in _PLAIN or cls is bytes:
        return True
    if cls is tuple:
        return depth < 8 and all(_lasting(x, depth + 1) for x in item)  # pyright: ignore[reportUnknownVariableType]
    return _is_message(item)


class _Line:
    """A list at one place of a state (graph path and key path): a copy of the source list converted
    last (a copy: the state's own list may be edited in place), and its conversion, which grows with it."""

    __slots__ = ("before", "converted", "exact")

    def __init__(self, before: list[Any], converted: list[Any]) -> None:
        self.before = before
        self.converted = converted
        self.exact = all(map(_exact, before))  # `==` with the same types tells `_same_item` of every item


Where = tuple[Any, ...]
"""A list's place: the line's root (a graph path) and the dict keys down to it."""


class Neutralizer:
    """Convert values for recording: LangChain messages to `Message`, containers walked, the rest as is.

    A converted message is kept by the identity of its original (and the original kept alive, so the
    identity is not reused), so the same LangChain message always becomes the same `Message` object.

    A state's lists (`state`) are kept by their place, the graph's path and the keys down to the list:
    LangGraph's reducers (`add_messages`, `operator.add`) make a new list every step with the old items
    as its prefix, and the conversion made for that place last time is extended in place and returned
    again, so a step costs the new items only and the recorder sees one list that grows, as in a
    graph_core state. (An observer that keeps the list must copy it, as graph_core's callback contract
    says of states.) Keyed by place, a list never extends the conversion of another key's list, however
    alike their first items; a list that shrank, changed or was replaced is converted afresh.
    """

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Any, Message]] = {}
        self._lines: dict[Where, _Line] = {}
        self._firsts: dict[Any, Where] = {}  # the place of the last line begun by a message (`_first_key`)

    def message(self, value: Any) -> Message:
        held = self._seen.get(id(value))
        if held is not None and held[0] is value:
            return held[1]
        converted = to_message(value)
        self._seen[id(value)] = (value, converted)
        return converted

    def value(self, value: Any, depth: int = 0) -> Any:
        """`value` with every LangChain message (inside dicts, lists, tuples) converted, afresh (a node's
        output, a run's input: values that are not a graph's state)."""
        return self._walk(value, depth, None, False)

    def state(self, value: Any, at: tuple[str, ...] = ()) -> Any:
        """`value`, the state of the graph at path `at`, converted: its lists (at any depth of dicts)
        extend the conversions of the lists last seen at their places (see the class)."""
        return self._walk(value, 0, (at,), True)

    def node_input(self, value: Any, at: tuple[str, ...] = ()) -> Any:
        """`value`, the input of a node of the graph at path `at` (usually that graph's state as the last
        step left it), converted: a list equal to the last state's at its place is given that state's
        conversion; nothing is extended or remembered (a `Send`'s input is no state)."""
        return self._walk(value, 0, (at,), False)

    def _walk(self, value: Any, depth: int, where: Where | None, extend: bool) -> Any:
        cls = type(value)
        if cls in _PLAIN or depth > 50:
            return value
        if cls is dict:  # a state or a node's input, usually: its plain fields are kept without a call
            if where is None:
                return {
                    key: item if type(item) in _PLAIN else self._walk(item, depth + 1, None, False)
                    for key, item in value.items()  # pyright: ignore[reportUnknownVariableType]
                }
            return {
                key: item if type(item) in _PLAIN else self._walk(item, depth + 1, (*where, key), extend)
                for key, item in value.items()  # pyright: ignore[reportUnknownVariableType]
            }
        if cls is list:
            if where is not None and value:
                return self._list_at(value, depth, where, extend)  # pyright: ignore[reportUnknownArgumentType]
            return [self._walk(item, depth + 1, None, False) for item in value]  # pyright: ignore[reportUnknownVariableType]
        if cls is tuple:
            return tuple(self._walk(item, depth + 1, None, False) for item in value)  # pyright: ignore[reportUnknownVariableType]
        if _is_message(value):
            return self.message(value)
        if isinstance(value, Mapping):
            return {
                key: self._walk(item, depth + 1, None if where is None else (*where, key), extend)
                for key, item in value.items()  # pyright: ignore[reportUnknownVariableType]
            }
        return value

    def _list_at(self, source: list[Any], depth: int, where: Where, extend: bool) -> list[Any]:
        """The list at `where`, converted, reusing the conversion of the list last converted there when
        that list is a prefix of `source` (`_prefix`): returned as is when nothing was added; for a
        state (`extend`), extended in place by the new items; else (a node's input) a new list of the
        prefix's conversions and the new items'. A place with no line of its own may reuse, the same
        way but never extending it, the line of another place whose list began with the same message
        (a `Send` carries a copy of the state's history: its messages keep their conversions). A line
        holding an item that may change in place (`_lasting`) is not kept: such a list is converted
        afresh every time, as any other value is."""
        try:
            line = self._lines.get(where)
        except TypeError:  # a key that cannot be hashed (a Mapping that is not a dict): no line
            return [self._walk(item, depth + 1, None, False) for item in source]
        own = line is not None
        if line is None and _is_message(source[0]):
            elsewhere = self._firsts.get(_first_key(source[0]))
            line = None if elsewhere is None else self._lines.get(elsewhere)
        converted: list[Any] | None = None
        if line is not None and self._prefix(line, source):
            n = len(line.before)
            if len(source) == n:
                if own and extend:
                    line.before = source[:]
                return line.converted
            tail = source[n:]
            if own and extend:
                if all(map(_lasting, tail)):
                    line.converted.extend(self._walk(item, depth + 1, None, False) for item in tail)
                    line.before = source[:]
                    line.exact = line.exact and all(map(_exact, tail))
                    return line.converted
            else:
                converted = [*line.converted, *(self._walk(item, depth + 1, None, False) for item in tail)]
        if converted is None:
            converted = [self._walk(item, depth + 1, None, False) for item in source]
        if extend:
            if all(map(_lasting, source)):
                self._lines[where] = _Line(source[:], converted)
                if _is_message(source[0]):
                    self._firsts[_first_key(source[0])] = where
            else:
                self._lines.pop(where, None)
        return converted

    @staticmethod
    def _prefix(line: _Line, source: list[Any]) -> bool:
        """Whether the list `line` was made from is a prefix of `source`, item by item: the same object
        first, at C speed, else `_same_item` (a state read back from a checkpoint holds equal items as
        new objects), and its conversion is intact (an observer did not shorten it)."""
        before = line.before
        n = len(before)
        if len(line.converted) != n or len(source) < n:
            return False
        try:
            if all(map(is_, source, before)):
                return True
            if line.exact:  # a thread read back from its checkpoints: equal strings, new objects
                head = source if len(source) == n else source[:n]
                return head == before and list(map(type, head)) == list(map(type, before))
            return all(map(_same_item, source, before))
        except Exception:  # an item whose comparison fails: convert the list afresh
            return False


def _first_key(message: Any) -> Any:
    """What a line is found by from its first message elsewhere: the message's LangChain id (a state
    read back from a checkpoint holds the same ids), else its identity (`_prefix` checks the rest)."""
    return _message_id(message) or id(message)
