"""The Chat Completions wire format: messages and tools to JSON, JSON completions back to `Message`s.

Pure functions (no I/O), shared by the sync and async paths and by the stream decoder in `_sse`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graph_core.models.openai._errors import ChatModelResponseError, Redactor, ToolCallArgumentsError
from graph_core.schema import Message, TokenUsage, ToolCall, ToolInfo

__all__ = [
    "BODY_EXCERPT",
    "IdSource",
    "arguments_of",
    "as_dict",
    "check_arguments",
    "choice_zero",
    "decode_completion",
    "decode_completion_text",
    "encode_message",
    "encode_tool",
    "error_text",
    "fill_call_ids",
    "new_call_id",
    "provenance",
    "reasoning_of",
    "text_of",
    "thinking_of",
    "usage_of",
]

BODY_EXCERPT = 500
"""How much of a server's body an error message or `.body` keeps."""

IdSource = Callable[[], uuid.UUID]
"""Where generated tool-call IDs get their uuid (`uuid.uuid4`; tests inject a counter)."""


def new_call_id(uuids: IdSource) -> str:
    """An ID for a call the server sent without a usable one: `call_<32 hex digits>`, as OpenAI's look."""
    return f"call_{uuids().hex}"


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
    """Content is a string, null, or (some servers) a list of typed parts of which we keep the text.

    `thinking` parts (Mistral's Magistral) are not answer text: `reasoning_of` reads them.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[Any] = content
        return "".join(
            str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type") != "thinking"
        )
    return str(content)


def thinking_of(content: Any) -> str:
    """The text of `{"type": "thinking", "thinking": [{"type": "text", "text": ...}]}` content parts.

    Magistral sends its reasoning this way, in `message.content` and `delta.content` alike; `thinking`
    may also be a plain string.
    """
    if not isinstance(content, list):
        return ""
    parts: list[Any] = content
    return "".join(
        text_of(p.get("thinking")) for p in parts if isinstance(p, dict) and p.get("type") == "thinking"
    )


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
    """Reasoning from `reasoning_content` (DeepSeek, vLLM), `reasoning` (OpenRouter, Ollama) or
    `thinking` content parts (Magistral)."""
    return text_of(part.get("reasoning_content") or part.get("reasoning")) + thinking_of(part.get("content"))


def choice_zero(choices: Any) -> dict[str, Any] | None:
    """The first choice (`index` 0, or no index): with `n > 1` a stream event carries one choice of any
    index, and only the first is the answer. None when `choices` holds no first choice."""
    if not isinstance(choices, list):
        return None
    items: list[Any] = choices
    for item in items:
        choice = as_dict(item)
        index = choice.get("index")
        if choice and (index is None or index == 0):
            return choice
    return None


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


def decode_completion(
    data: Any, *, endpoint: str, status: int, redact: Redactor, uuids: IdSource = uuid.uuid4
) -> Message:
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
    choice = choice_zero(choices) or as_dict(choices[0])
    raw = as_dict(choice.get("message"))
    openai = dict(provenance(body).get("openai", {}))
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
    legacy = as_dict(raw.get("function_call"))
    if legacy.get("name"):  # the pre-tools `function_call` (gpt-4-0613 era, Azure deployments): one call
        call = ToolCall(id=new_call_id(uuids), name=str(legacy["name"]), arguments=arguments_of(legacy))
        openai["function_call"] = call.id
        tool_calls.append(call)
    openai.update(fill_call_ids(tool_calls, uuids))
    finish_reason = choice.get("finish_reason") or None
    for call in tool_calls:
        check_arguments(call, endpoint=endpoint, redact=redact, finish_reason=finish_reason)
        call.arguments = redact(call.arguments)  # a server echoing the key must not hand it on
    content = redact(text_of(raw.get("content")))
    refusal = redact(text_of(raw.get("refusal")))
    if refusal:  # content is null when the model refuses: the refusal is the answer, and marked as one
        openai["refusal"] = refusal
        content = content or refusal
    return Message(
        "assistant",
        content,
        tool_calls=tool_calls,
        reasoning_content=redact(reasoning_of(raw)),
        finish_reason=finish_reason,
        usage=usage_of(body),
        extra={"openai": openai} if openai else {},
    )


def fill_call_ids(calls: Sequence[ToolCall], uuids: IdSource) -> dict[str, Any]:
    """Give every call without an ID (Gemini's OpenAI endpoint sends `"id": ""`) a generated one, so its
    tool message can answer it and two such calls stay apart. Returns the extras that keep what the
    server sent: `{"server_tool_call_ids": {generated: ""}}`, or nothing."""
    generated: dict[str, str] = {}
    for call in calls:
        if not call.id:
            call.id = new_call_id(uuids)
            generated[call.id] = ""
    return {"server_tool_call_ids": generated} if generated else {}


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


def decode_completion_text(
    text: str, *, endpoint: str, status: int, redact: Redactor, uuids: IdSource = uuid.uuid4
) -> Message:
    """A whole (non-streamed) response body to its message; a body that is not JSON is a response error."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ChatModelResponseError(
            f"POST {endpoint} (HTTP {status}): response is not JSON: {redact(text)[:200]!r}",
            endpoint=endpoint,
        ) from None
    return decode_completion(data, endpoint=endpoint, status=status, redact=redact, uuids=uuids)
