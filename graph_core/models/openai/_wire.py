"""The Chat Completions wire format: messages and tools to JSON, JSON completions back to `Message`s.

Pure functions (no I/O), shared by the sync and async paths and by the stream decoder in `_sse`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graph_core.models.openai._errors import ChatModelResponseError, Redactor, ToolCallArgumentsError
from graph_core.schema import Message, TokenUsage, ToolCall, ToolInfo

__all__ = [
    "BODY_EXCERPT",
    "arguments_of",
    "as_dict",
    "check_arguments",
    "decode_completion",
    "decode_completion_text",
    "encode_message",
    "encode_tool",
    "error_text",
    "provenance",
    "reasoning_of",
    "text_of",
    "usage_of",
]

BODY_EXCERPT = 500
"""How much of a server's body an error message or `.body` keeps."""


# ------------------------------------------------------------------------------------------- request


def encode_message(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role}
    if message.role == "assistant" and message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": call.type or "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    else:
        out["content"] = message.content
    if message.role == "tool":
        out["tool_call_id"] = message.tool_call_id or ""
    elif message.name:
        out["name"] = message.name
    return out


def encode_tool(info: ToolInfo) -> dict[str, Any]:
    function: dict[str, Any] = {"name": info.name, "parameters": info.parameters}
    if info.description:
        function["description"] = info.description
    return {"type": "function", "function": function}


# ------------------------------------------------------------------------------------------ response


def text_of(content: Any) -> str:
    """Content is a string, null, or (some servers) a list of typed parts of which we keep the text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[Any] = content
        return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
    return str(content)


def arguments_of(function: Mapping[str, Any]) -> str:
    arguments = function.get("arguments")
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments)  # a few servers send an object instead of the JSON text


def usage_of(data: Mapping[str, Any]) -> TokenUsage | None:
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    total = _count(usage.get("total_tokens")) or prompt + completion
    return TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)


def _count(value: Any) -> int:
    """A token count as servers send it (a number, sometimes a numeric string); anything else counts 0."""
    try:
        return int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0


def provenance(data: Mapping[str, Any]) -> dict[str, Any]:
    """Which response and model served the call: worth seeing in the inspector, cheap to keep."""
    info = {key: data[key] for key in ("id", "model", "system_fingerprint") if data.get(key)}
    return {"openai": info} if info else {}


def reasoning_of(part: Mapping[str, Any]) -> str:
    return text_of(part.get("reasoning_content") or part.get("reasoning"))


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def check_arguments(
    call: ToolCall, *, endpoint: str, redact: Redactor, finish_reason: str | None = None
) -> None:
    """Arguments must be a JSON object; empty text is let through (no-argument tools on some servers).
    When the answer stopped at the token limit, the error says so: cut-off JSON is its usual cause."""
    if not call.arguments.strip():
        return
    try:
        value = json.loads(call.arguments)
    except json.JSONDecodeError as exc:
        problem = f"invalid JSON ({exc.msg} at position {exc.pos})"
    else:
        if isinstance(value, dict):
            return
        problem = f"a JSON {type(value).__name__}, not an object"
    excerpt = redact(call.arguments)[:200]
    cause = (
        "; the answer stopped at the token limit (finish_reason `length`), which cut the arguments off: "
        "raise the request's max_tokens"
        if finish_reason == "length"
        else ""
    )
    raise ToolCallArgumentsError(
        f"POST {endpoint}: tool call `{call.id}` (`{call.name}`) has arguments that are {problem}: "
        f"{excerpt!r}{cause}",
        endpoint=endpoint,
        tool_call_id=call.id,
        tool_name=call.name,
        arguments=redact(call.arguments),
    )


def decode_completion(data: Any, *, endpoint: str, status: int, redact: Redactor) -> Message:
    where = f"POST {endpoint} (HTTP {status})"
    if not isinstance(data, dict):
        raise ChatModelResponseError(f"{where}: response is not a JSON object", endpoint=endpoint)
    body: dict[str, Any] = data
    if body.get("error"):
        raise ChatModelResponseError(
            f"{where}: server reported {error_text(body, redact)}", endpoint=endpoint
        )
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ChatModelResponseError(f"{where}: response has no choices", endpoint=endpoint)
    choice = as_dict(choices[0])
    raw = as_dict(choice.get("message"))
    tool_calls: list[ToolCall] = []
    for item in raw.get("tool_calls") or []:
        call = as_dict(item)
        function = as_dict(call.get("function"))
        tool_calls.append(
            ToolCall(
                id=str(call.get("id") or ""),
                name=str(function.get("name") or ""),
                arguments=arguments_of(function),
                type=str(call.get("type") or "function"),
            )
        )
    finish_reason = choice.get("finish_reason") or None
    for call in tool_calls:
        check_arguments(call, endpoint=endpoint, redact=redact, finish_reason=finish_reason)
        call.arguments = redact(call.arguments)  # a server echoing the key must not hand it on
    return Message(
        "assistant",
        redact(text_of(raw.get("content"))),
        tool_calls=tool_calls,
        reasoning_content=redact(reasoning_of(raw)),
        finish_reason=choice.get("finish_reason") or None,
        usage=usage_of(body),
        extra=provenance(body),
    )


def error_text(data: Mapping[str, Any], redact: Redactor) -> str:
    """The server's own words: OpenAI nests them under `error`; vLLM and FastAPI servers do not."""
    error = data.get("error")
    if error is None:
        error = data
    if isinstance(error, dict):
        fields = as_dict(error)
        message = fields.get("message") or fields.get("detail") or json.dumps(fields)
        kind = fields.get("type") or fields.get("code")
        text = f"{kind}: {message}" if kind else str(message)
    else:
        text = str(error)
    return redact(text)[:BODY_EXCERPT]


def decode_completion_text(text: str, *, endpoint: str, status: int, redact: Redactor) -> Message:
    """A whole (non-streamed) response body to its message; a body that is not JSON is a response error."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ChatModelResponseError(
            f"POST {endpoint} (HTTP {status}): response is not JSON: {redact(text)[:200]!r}",
            endpoint=endpoint,
        ) from None
    return decode_completion(data, endpoint=endpoint, status=status, redact=redact)
