"""Messages, tool calls and tool descriptions: the values that flow through agent graphs.

They are pydantic models because they cross every boundary the project has (model clients, state,
recordings, the inspector). `concat_messages` reproduces Eino's `ConcatMessages`, which is how streamed
chunks, including tool-call argument deltas, become one message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from graph_core.concat import add_rule, concat_values

__all__ = [
    "Message",
    "Role",
    "TokenUsage",
    "ToolCall",
    "ToolInfo",
    "concat_messages",
    "shallow_copy",
    "unvalidated",
]

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """One function call requested by a model; `arguments` is a JSON string, possibly a partial delta."""

    model_config = ConfigDict(extra="forbid")

    id: str = ""
    name: str = ""
    arguments: str = ""
    index: int | None = None
    type: str = "function"

    def __init__(
        self, id: str = "", name: str = "", arguments: str = "", index: int | None = None, **data: Any
    ) -> None:
        super().__init__(id=id, name=name, arguments=arguments, index=index, **data)


class ToolInfo(BaseModel):
    """What a model is told about a tool: its name, purpose and JSON Schema of parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def __init__(
        self, name: str, description: str = "", parameters: dict[str, Any] | None = None, **data: Any
    ) -> None:
        if parameters is None:
            parameters = {"type": "object", "properties": {}}
        super().__init__(name=name, description=description, parameters=parameters, **data)


class TokenUsage(BaseModel):
    """Token counts a model reported for one call; concatenation keeps the maximum of each field."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class Message(BaseModel):
    """A chat message. Mutable on purpose: Eino passes message pointers, and state holds the same objects."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=lambda: [])
    tool_call_id: str | None = None
    tool_name: str | None = None
    name: str | None = None
    reasoning_content: str = ""
    finish_reason: str | None = None
    usage: TokenUsage | None = None
    extra: dict[str, Any] = Field(default_factory=lambda: {})

    def __init__(self, role: Role, content: str = "", **data: Any) -> None:
        super().__init__(role=role, content=content, **data)

    @classmethod
    def trusted(
        cls,
        role: Role,
        content: str = "",
        *,
        tool_call_id: str | None = None,
        tool_name: str | None = None,
    ) -> Message:
        """A message built without validation, for engine code whose values are already valid.

        Validation costs about as much as a whole engine step on the ReAct hot path (one tool message per
        call); public constructors keep validating. The result is indistinguishable from `Message(...)`
        (same fields, same `model_fields_set`).
        """
        values = {
            "role": role,
            "content": content,
            "tool_calls": [],
            "tool_call_id": tool_call_id,
            "tool_name": tool_name,
            "name": None,
            "reasoning_content": "",
            "finish_reason": None,
            "usage": None,
            "extra": {},
        }
        if tool_call_id is not None and tool_name is not None:
            fields_set = {"role", "content", "tool_call_id", "tool_name"}
        else:
            fields_set = {"role", "content"}
            if tool_call_id is not None:
                fields_set.add("tool_call_id")
            if tool_name is not None:
                fields_set.add("tool_name")
        return unvalidated(cls, values, fields_set)

    @classmethod
    def user(cls, text: str, **data: Any) -> Message:
        return cls("user", text, **data)

    @classmethod
    def system(cls, text: str, **data: Any) -> Message:
        return cls("system", text, **data)

    @classmethod
    def assistant(cls, text: str = "", tool_calls: Sequence[ToolCall] = (), **data: Any) -> Message:
        return cls("assistant", text, tool_calls=list(tool_calls), **data)

    @classmethod
    def tool(
        cls, content: str, *, tool_call_id: str | None = None, tool_name: str | None = None, **data: Any
    ) -> Message:
        return cls("tool", content, tool_call_id=tool_call_id, tool_name=tool_name, **data)

    def __repr__(self) -> str:
        parts = [f"role={self.role!r}", f"content={self.content!r}"]
        if self.tool_calls:
            calls = ", ".join(f"{c.name}({c.arguments})#{c.id}" for c in self.tool_calls)
            parts.append(f"tool_calls=[{calls}]")
        if self.tool_call_id:
            parts.append(f"tool_call_id={self.tool_call_id!r}")
        return f"Message({', '.join(parts)})"


_M = TypeVar("_M", bound=BaseModel)
_object_new = object.__new__
_object_setattr = object.__setattr__


def unvalidated(cls: type[_M], values: dict[str, Any], fields_set: set[str]) -> _M:
    """A model from complete, already valid field values (what `model_construct` does, 10x faster).

    For this module's models only (no extras, no private attributes); `values` must hold every field.
    """
    model = _object_new(cls)
    _object_setattr(model, "__dict__", values)
    _object_setattr(model, "__pydantic_fields_set__", fields_set)
    _object_setattr(model, "__pydantic_extra__", None)
    _object_setattr(model, "__pydantic_private__", None)
    return model


def shallow_copy(model: _M) -> _M:
    """`model.model_copy()` for this module's models (no extras, no private attributes), twice as fast."""
    return unvalidated(type(model), model.__dict__.copy(), model.__pydantic_fields_set__.copy())


def _agree(field: str, values: Iterable[str | None]) -> str | None:
    seen = [v for v in values if v]
    for other in seen[1:]:
        if other != seen[0]:
            raise ValueError(f"cannot concat messages with different {field}: '{seen[0]}' '{other}'")
    return seen[0] if seen else None


def _concat_tool_calls(chunks: Sequence[Message]) -> list[ToolCall]:
    unindexed: list[ToolCall] = []
    by_index: dict[int, ToolCall] = {}
    for chunk in chunks:
        for call in chunk.tool_calls:
            if call.index is None:
                unindexed.append(call.model_copy())
                continue
            merged = by_index.get(call.index)
            if merged is None:
                by_index[call.index] = call.model_copy()
                continue
            for field in ("id", "type", "name"):
                mine, theirs = getattr(merged, field), getattr(call, field)
                if mine and theirs and mine != theirs:
                    raise ValueError(
                        f"cannot concat tool calls with different {field}s at index {call.index}: "
                        f"'{mine}' '{theirs}'"
                    )
                if not mine and theirs:
                    setattr(merged, field, theirs)
            merged.arguments += call.arguments
    return unindexed + [by_index[i] for i in sorted(by_index)]


def concat_messages(chunks: Sequence[Message]) -> Message:
    """Join streamed chunks into one message with Eino's rules.

    Role, name, tool call ID and tool name must agree; content is concatenated; tool calls with the same
    `index` are merged (arguments concatenated), those without an index appended, unindexed first; the last
    finish reason wins and each token count takes its maximum.
    """
    if not chunks:
        raise ValueError("stream reader is empty, concat fail")
    if len(chunks) == 1:
        return chunks[0]
    role = _agree("roles", (c.role for c in chunks)) or chunks[0].role
    usage: TokenUsage | None = None
    for chunk in chunks:
        if chunk.usage is not None:
            usage = (
                chunk.usage
                if usage is None
                else TokenUsage(
                    prompt_tokens=max(usage.prompt_tokens, chunk.usage.prompt_tokens),
                    completion_tokens=max(usage.completion_tokens, chunk.usage.completion_tokens),
                    total_tokens=max(usage.total_tokens, chunk.usage.total_tokens),
                )
            )
    extras = [c.extra for c in chunks if c.extra]
    if len(extras) > 1:  # Eino concatenates the extras as maps: values of a key join like stream chunks
        extra: dict[str, Any] = concat_values(extras)
    else:
        extra = dict(extras[0]) if extras else {}
    finish = [c.finish_reason for c in chunks if c.finish_reason]
    return Message(
        role,  # type: ignore[arg-type]
        "".join(c.content for c in chunks),
        tool_calls=_concat_tool_calls(chunks),
        tool_call_id=_agree("tool call IDs", (c.tool_call_id for c in chunks)),
        tool_name=_agree("tool names", (c.tool_name for c in chunks)),
        name=_agree("names", (c.name for c in chunks)),
        reasoning_content="".join(c.reasoning_content for c in chunks),
        finish_reason=finish[-1] if finish else None,
        usage=usage,
        extra=extra,
    )


add_rule(Message, concat_messages, itemwise_in_lists=True)
