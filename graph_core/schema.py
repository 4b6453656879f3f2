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
from graph_core.multimodal import MessageInputPart, ToolResult, concat_input_parts, concat_tool_results

__all__ = [
    "Message",
    "MessageInputPart",
    "Role",
    "TokenUsage",
    "ToolCall",
    "ToolInfo",
    "ToolResult",
    "concat_messages",
    "concat_tool_calls",
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
    """A chat message. Mutable on purpose: Eino passes message pointers, and state holds the same objects.

    `user_input_multi_content` is the message's multi-part content (Eino `UserInputMultiContent`): text,
    images, audio, video or files (`graph_core.multimodal`). An enhanced tool's result reaches its tool
    message there, with `content` left empty.
    """

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
    user_input_multi_content: list[MessageInputPart] = Field(default_factory=lambda: [])

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
            "user_input_multi_content": [],
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
        if self.user_input_multi_content:
            parts.append(f"parts={[p.type for p in self.user_input_multi_content]}")
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


_TOOL_CALL_FIELDS = (("id", "tool id"), ("type", "tool type"), ("name", "tool name"))


def _by_call(group: list[ToolCall]) -> list[list[ToolCall]]:
    """The deltas streamed at one index, one list per tool call (Eino PR #962).

    Some OpenAI-compatible providers (qwen, deepseek) stream several calls at one index, told apart
    only by their IDs: with more than one distinct ID the deltas are split by ID, a delta without one
    joining the call whose ID came last (deltas before any ID form a call of their own).
    """
    ids = {call.id for call in group if call.id}
    if len(ids) <= 1:
        return [group]
    calls: dict[str, list[ToolCall]] = {}
    last = ""
    for call in group:
        last = call.id or last
        calls.setdefault(last, []).append(call)
    return list(calls.values())


def _merge_deltas(deltas: list[ToolCall], index: int) -> ToolCall:
    """One tool call from its streamed deltas: ID, type and name must agree, arguments concatenated."""
    merged = deltas[0].model_copy(update={"index": index})
    for delta in deltas[1:]:
        for field, label in _TOOL_CALL_FIELDS:
            mine, theirs = getattr(merged, field), getattr(delta, field)
            if mine and theirs and mine != theirs:
                raise ValueError(f"cannot concat ToolCalls with different {label}: '{mine}' '{theirs}'")
            if not mine and theirs:
                setattr(merged, field, theirs)
        merged.arguments += delta.arguments
    return merged


def concat_tool_calls(calls: Sequence[ToolCall]) -> list[ToolCall]:
    """Eino's `concatToolCalls` (as PR #962 has it): calls without an index pass through, first; deltas
    sharing an index are merged into one call (or several, see `_by_call`), and the merged calls are
    numbered 0, 1, 2... in index order, so two calls that shared an index get indexes of their own."""
    unindexed: list[ToolCall] = []
    by_index: dict[int, list[ToolCall]] = {}
    for call in calls:
        if call.index is None:
            unindexed.append(call.model_copy())
        else:
            by_index.setdefault(call.index, []).append(call)
    indexed = [deltas for index in sorted(by_index) for deltas in _by_call(by_index[index])]
    return [*unindexed, *(_merge_deltas(deltas, number) for number, deltas in enumerate(indexed))]


def _concat_tool_calls(chunks: Sequence[Message]) -> list[ToolCall]:
    return concat_tool_calls([call for chunk in chunks for call in chunk.tool_calls])


def concat_messages(chunks: Sequence[Message]) -> Message:
    """Join streamed chunks into one message with Eino's rules.

    Role, name, tool call ID and tool name must agree; content is concatenated; tool calls are joined by
    `concat_tool_calls` (deltas with the same `index` merged, unindexed calls first); the last finish
    reason wins and each token count takes its maximum.
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
    parts = [part for c in chunks for part in c.user_input_multi_content]
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
        user_input_multi_content=concat_input_parts(parts) if parts else [],
    )


add_rule(Message, concat_messages, itemwise_in_lists=True)
add_rule(ToolResult, concat_tool_results)
