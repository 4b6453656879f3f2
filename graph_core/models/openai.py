"""A chat model that speaks the OpenAI Chat Completions wire format over httpx.

Works with OpenAI itself and with any compatible server (vLLM, Ollama, LM Studio, llama.cpp, gateways).
The module is deliberately sans-io in its middle: request encoding, response decoding and the SSE stream
decoder are plain functions and classes, so the sync and async paths differ only in how bytes move and
how retries sleep.

Errors (all carry `.endpoint`; none ever contains the API key, and none chains an httpx exception, since
those hold the request and with it the `Authorization` header):

```
ChatModelError                          base; the message names the endpoint
├── ChatModelStatusError                HTTP status >= 400 (`.status_code`, `.body`, `.request_id`)
├── ChatModelTimeoutError (TimeoutError)
├── ChatModelConnectionError (ConnectionError)
└── ChatModelResponseError (ValueError) a 2xx response we cannot use (bad JSON, no choices)
    ├── ChatModelStreamError            a stream that broke off, ended early or reported an error
    └── ToolCallArgumentsError          a finished tool call whose arguments are not a JSON object
```

Retries: 429, 5xx and connection failures (before any response byte) are retried up to `max_retries`
times with exponential backoff, honouring `Retry-After`/`retry-after-ms` up to `max_retry_delay`. Read
timeouts are not retried (the server may already be spending tokens on the request), and nothing is
retried once a stream has started yielding chunks.
"""

from __future__ import annotations

import asyncio
import copy
import email.utils
import functools
import json
import os
import ssl
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Mapping, Sequence
from http import HTTPStatus
from typing import Any, NoReturn

import httpx
from pydantic import SecretStr

from graph_core.schema import Message, TokenUsage, ToolCall, ToolInfo

__all__ = [
    "ChatModelConnectionError",
    "ChatModelError",
    "ChatModelResponseError",
    "ChatModelStatusError",
    "ChatModelStreamError",
    "ChatModelTimeoutError",
    "OpenAIChatModel",
    "ToolCallArgumentsError",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRYABLE_STATUSES = frozenset({429}) | frozenset(range(500, 600))
_BODY_EXCERPT = 500


# --------------------------------------------------------------------------------------------- errors


class ChatModelError(Exception):
    """Base of every error this client raises; `endpoint` is the URL that was called."""

    def __init__(self, message: str, *, endpoint: str) -> None:
        super().__init__(message)
        self.endpoint = endpoint


class ChatModelStatusError(ChatModelError):
    """The server answered with an HTTP error status; `body` is a redacted excerpt of what it said."""

    def __init__(
        self, message: str, *, endpoint: str, status_code: int, body: str = "", request_id: str | None = None
    ) -> None:
        super().__init__(message, endpoint=endpoint)
        self.status_code = status_code
        self.body = body
        self.request_id = request_id


class ChatModelTimeoutError(ChatModelError, TimeoutError):
    """Connecting, sending, or waiting for the next bytes took longer than `timeout`."""


class ChatModelConnectionError(ChatModelError, ConnectionError):
    """No HTTP response could be obtained (refused, reset, DNS, TLS)."""


class ChatModelResponseError(ChatModelError, ValueError):
    """A successful status with a body this client cannot turn into a message."""


class ChatModelStreamError(ChatModelResponseError):
    """A streamed response broke off, ended before it finished, or carried an error event."""


class ToolCallArgumentsError(ChatModelResponseError):
    """A finished tool call's `arguments` are not a JSON object; names the call so it can be found."""

    def __init__(
        self, message: str, *, endpoint: str, tool_call_id: str, tool_name: str, arguments: str
    ) -> None:
        super().__init__(message, endpoint=endpoint)
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.arguments = arguments


class _Redactor:
    """Removes the API key from any text that could reach an error message, a log or a recording."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret or None

    def __call__(self, text: str) -> str:
        if self._secret and self._secret in text:
            return text.replace(self._secret, "***")
        return text


# --------------------------------------------------------------------------------------- wire: request


def _encode_message(message: Message) -> dict[str, Any]:
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


def _encode_tool(info: ToolInfo) -> dict[str, Any]:
    function: dict[str, Any] = {"name": info.name, "parameters": info.parameters}
    if info.description:
        function["description"] = info.description
    return {"type": "function", "function": function}


# -------------------------------------------------------------------------------------- wire: response


def _text_of(content: Any) -> str:
    """Content is a string, null, or (some servers) a list of typed parts of which we keep the text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[Any] = content
        return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
    return str(content)


def _arguments_of(function: Mapping[str, Any]) -> str:
    arguments = function.get("arguments")
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments)  # a few servers send an object instead of the JSON text


def _usage_of(data: Mapping[str, Any]) -> TokenUsage | None:
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt = int(usage.get("prompt_tokens") or 0)
    completion = int(usage.get("completion_tokens") or 0)
    total = int(usage.get("total_tokens") or (prompt + completion))
    return TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)


def _provenance(data: Mapping[str, Any]) -> dict[str, Any]:
    """Which response and model served the call: worth seeing in the inspector, cheap to keep."""
    info = {key: data[key] for key in ("id", "model", "system_fingerprint") if data.get(key)}
    return {"openai": info} if info else {}


def _reasoning_of(part: Mapping[str, Any]) -> str:
    return _text_of(part.get("reasoning_content") or part.get("reasoning"))


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _check_arguments(call: ToolCall, *, endpoint: str, redact: _Redactor) -> None:
    """Arguments must be a JSON object; empty text is let through (no-argument tools on some servers)."""
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
    excerpt = redact(call.arguments[:200])
    raise ToolCallArgumentsError(
        f"POST {endpoint}: tool call `{call.id}` (`{call.name}`) has arguments that are {problem}: "
        f"{excerpt!r}",
        endpoint=endpoint,
        tool_call_id=call.id,
        tool_name=call.name,
        arguments=redact(call.arguments),
    )


def _decode_completion(data: Any, *, endpoint: str, status: int, redact: _Redactor) -> Message:
    where = f"POST {endpoint} (HTTP {status})"
    if not isinstance(data, dict):
        raise ChatModelResponseError(f"{where}: response is not a JSON object", endpoint=endpoint)
    body: dict[str, Any] = data
    if body.get("error"):
        raise ChatModelResponseError(
            f"{where}: server reported {_error_text(body, redact)}", endpoint=endpoint
        )
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ChatModelResponseError(f"{where}: response has no choices", endpoint=endpoint)
    choice = _as_dict(choices[0])
    raw = _as_dict(choice.get("message"))
    tool_calls: list[ToolCall] = []
    for item in raw.get("tool_calls") or []:
        call = _as_dict(item)
        function = _as_dict(call.get("function"))
        tool_calls.append(
            ToolCall(
                id=str(call.get("id") or ""),
                name=str(function.get("name") or ""),
                arguments=_arguments_of(function),
                type=str(call.get("type") or "function"),
            )
        )
    for call in tool_calls:
        _check_arguments(call, endpoint=endpoint, redact=redact)
    return Message(
        "assistant",
        _text_of(raw.get("content")),
        tool_calls=tool_calls,
        reasoning_content=_reasoning_of(raw),
        finish_reason=choice.get("finish_reason") or None,
        usage=_usage_of(body),
        extra=_provenance(body),
    )


def _error_text(data: Mapping[str, Any], redact: _Redactor) -> str:
    """The server's own words: OpenAI nests them under `error`; vLLM and FastAPI servers do not."""
    error = data.get("error")
    if error is None:
        error = data
    if isinstance(error, dict):
        fields = _as_dict(error)
        message = fields.get("message") or fields.get("detail") or json.dumps(fields)
        kind = fields.get("type") or fields.get("code")
        text = f"{kind}: {message}" if kind else str(message)
    else:
        text = str(error)
    return redact(text)[:_BODY_EXCERPT]


class _StreamDecoder:
    """Turns SSE lines of a Chat Completions stream into message chunks, and judges how the stream ended.

    Tool-call deltas keep the server's `index`; servers that omit it get one from the call ID (a new ID
    opens a new index, a missing ID continues the last call), which is what Appendix A concatenation needs.
    """

    def __init__(self, *, endpoint: str, status: int, redact: _Redactor) -> None:
        self._endpoint = endpoint
        self._where = f"POST {endpoint} (HTTP {status})"
        self._redact = redact
        self._data: list[str] = []
        self.events = 0
        self.chunks = 0
        self.done = False
        self._finished = False
        self._provenance_sent = False
        self._index_of_id: dict[str, int] = {}
        self._last_index: int | None = None
        self._calls: dict[int, ToolCall] = {}

    def feed(self, line: str) -> list[Message]:
        """One line without its terminator; returns the chunks completed by it (usually zero or one)."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return []
        field, _, value = line.partition(":")
        if field == "data":
            self._data.append(value.removeprefix(" "))
        return []

    def finish(self) -> list[Message]:
        """The connection ended cleanly: flush, then insist the stream actually completed."""
        chunks = self._dispatch()
        if not self.done and not self._finished:
            raise ChatModelStreamError(
                f"{self._where}: stream ended after {self.events} events without [DONE] or a finish reason "
                "(truncated response)",
                endpoint=self._endpoint,
            )
        if self.chunks + len(chunks) == 0:
            raise ChatModelStreamError(
                f"{self._where}: stream ended without any message chunk", endpoint=self._endpoint
            )
        for index in sorted(self._calls):
            _check_arguments(self._calls[index], endpoint=self._endpoint, redact=self._redact)
        return chunks

    def broken(self, reason: str) -> ChatModelStreamError:
        return ChatModelStreamError(
            f"{self._where}: stream broke off after {self.events} events: {self._redact(reason)}",
            endpoint=self._endpoint,
        )

    def _dispatch(self) -> list[Message]:
        if not self._data:
            return []
        payload = "\n".join(self._data)
        self._data = []
        if self.done:
            return []
        self.events += 1
        if payload.strip() == "[DONE]":
            self.done = True
            return []
        try:
            data = json.loads(payload)
        except json.JSONDecodeError:
            raise ChatModelStreamError(
                f"{self._where}: malformed stream event {self.events}: {self._redact(payload[:200])!r}",
                endpoint=self._endpoint,
            ) from None
        if not isinstance(data, dict):
            raise ChatModelStreamError(
                f"{self._where}: stream event {self.events} is not a JSON object", endpoint=self._endpoint
            )
        event: dict[str, Any] = data
        if event.get("error"):
            raise ChatModelStreamError(
                f"{self._where}: server reported {_error_text(event, self._redact)}", endpoint=self._endpoint
            )
        chunk = self._chunk(event)
        if chunk is None:
            return []
        self.chunks += 1
        return [chunk]

    def _chunk(self, event: dict[str, Any]) -> Message | None:
        choices = event.get("choices")
        choice = _as_dict(choices[0]) if isinstance(choices, list) and choices else {}
        delta = _as_dict(choice.get("delta"))
        tool_calls = [self._tool_call(_as_dict(item)) for item in delta.get("tool_calls") or []]
        finish = choice.get("finish_reason") or None
        if finish:
            self._finished = True
        usage = _usage_of(event)
        content = _text_of(delta.get("content"))
        reasoning = _reasoning_of(delta)
        if not (content or reasoning or tool_calls or finish or usage):
            return None
        extra: dict[str, Any] = {}
        if not self._provenance_sent:
            extra = _provenance(event)
            self._provenance_sent = True
        return Message(
            "assistant",
            content,
            tool_calls=tool_calls,
            reasoning_content=reasoning,
            finish_reason=finish,
            usage=usage,
            extra=extra,
        )

    def _tool_call(self, item: dict[str, Any]) -> ToolCall:
        function = _as_dict(item.get("function"))
        call_id = str(item.get("id") or "")
        raw_index = item.get("index")
        if isinstance(raw_index, int):
            index = raw_index
        elif call_id and call_id in self._index_of_id:
            index = self._index_of_id[call_id]
        elif call_id or self._last_index is None:
            index = max(self._calls, default=-1) + 1
        else:
            index = self._last_index
        if call_id:
            self._index_of_id.setdefault(call_id, index)
        self._last_index = index
        delta = ToolCall(
            id=call_id,
            name=str(function.get("name") or ""),
            arguments=_arguments_of(function),
            index=index,
            type=str(item.get("type") or "function"),
        )
        merged = self._calls.setdefault(index, ToolCall(index=index))
        merged.id = merged.id or delta.id
        merged.name = merged.name or delta.name
        merged.arguments += delta.arguments
        return delta


# --------------------------------------------------------------------------------------------- retries


def _retry_after(headers: httpx.Headers, *, now: float) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` or `Retry-After` (seconds or a date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - now, 0.0)


class _Failure:
    """An attempt that failed: the error to raise, whether another attempt may help, and how long to wait."""

    def __init__(
        self, error: ChatModelError, *, retryable: bool, wait: float | None = None, detail: str = ""
    ) -> None:
        self.error = error
        self.detail = detail
        self.retryable = retryable
        self.wait = wait


def _is_whole_json(response: httpx.Response) -> bool:
    """Some servers and proxies ignore `stream: true` and answer with one JSON completion; accept that."""
    return response.headers.get("content-type", "").split(";")[0].strip().lower() == "application/json"


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    """httpx builds a fresh SSL context (~30 ms, certifi load) per client; build it once per process."""
    return httpx.create_ssl_context()


class _SharedClient:
    """The lazily created sync client shared by a model and its `with_tools` copies.

    Closed explicitly by `close()`, or when the last copy is garbage-collected (a finalizer), so that an
    unclosed model never leaks sockets or trips `ResourceWarning`.
    """

    def __init__(self, client: httpx.Client | None) -> None:
        self._client = client
        self._owned = client is None
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def get(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                client = httpx.Client(verify=_default_ssl_context())
                self._client = client
                self._finalizer = weakref.finalize(self, client.close)
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._owned and self._finalizer is not None:
                self._finalizer()
                self._finalizer = None
                self._client = None


# ---------------------------------------------------------------------------------------------- client


class OpenAIChatModel:
    """A chat model on an OpenAI-compatible `/chat/completions` endpoint, sync and async, streamed or not.

    `api_key` defaults to `OPENAI_API_KEY` and `base_url` to `OPENAI_BASE_URL` or OpenAI's; without a key no
    `Authorization` header is sent (local servers rarely want one). The key lives in a `SecretStr`, so
    neither `repr`, `vars()` nor any error shows it. `with_tools` returns a copy and never mutates the
    original, so one configured model can serve concurrent agents; copies share one connection pool.

    `extra_body` is merged into every request body last (for `temperature`-like fields a server supports
    but this class does not name). Invalid tool-call JSON is detected when the message is complete: at the
    end of `generate`, or after the last chunk of `stream` (raised by the iterator, after every chunk was
    yielded).
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | SecretStr | None = None,
        timeout: float | httpx.Timeout = 60.0,
        max_retries: int = 2,
        extra_body: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        stream_usage: bool = True,
        max_retry_delay: float = 60.0,
        http_client: httpx.Client | None = None,
        async_http_client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], None] | None = None,
        async_sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        if not model:
            raise ValueError("OpenAIChatModel needs a `model` name")
        if max_retries < 0:
            raise ValueError("`max_retries` must be >= 0")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._api_key: SecretStr | None = (
            key if isinstance(key, SecretStr) else SecretStr(key) if key else None
        )
        self._redact = _Redactor(self._api_key.get_secret_value() if self._api_key else None)
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.extra_body: dict[str, Any] = dict(extra_body or {})
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.tool_choice = tool_choice
        self.stream_usage = stream_usage
        self._headers: dict[str, str] = dict(headers or {})
        self._tools: tuple[ToolInfo, ...] = ()
        self._client = _SharedClient(http_client)
        self._async_client = async_http_client
        self._sleep = sleep or time.sleep
        self._async_sleep = async_sleep or asyncio.sleep

    # ---------------------------------------------------------------------------------- configuration

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def tools(self) -> tuple[ToolInfo, ...]:
        return self._tools

    def with_tools(self, tools: Sequence[ToolInfo]) -> OpenAIChatModel:
        """A copy bound to `tools` (Eino's `WithTools`); the original is untouched."""
        infos: list[ToolInfo] = []
        for item in tools:
            info: Any = item if isinstance(item, ToolInfo) else getattr(item, "info", None)
            if not isinstance(info, ToolInfo):
                raise TypeError(f"with_tools expects ToolInfo values, got {type(item).__name__}")
            infos.append(info)
        bound = copy.copy(self)
        bound._tools = tuple(infos)
        return bound

    def close(self) -> None:
        """Close the sync connection pool this model and its copies share; injected clients stay open."""
        self._client.close()

    def __enter__(self) -> OpenAIChatModel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __deepcopy__(self, memo: dict[int, Any]) -> OpenAIChatModel:
        # Configuration is immutable after construction; sharing the pool is what copies should do.
        return copy.copy(self)

    def __repr__(self) -> str:
        key = "'**********'" if self._api_key else "None"
        tools = f", tools={[t.name for t in self._tools]!r}" if self._tools else ""
        return f"OpenAIChatModel(model={self.model!r}, base_url={self.base_url!r}, api_key={key}{tools})"

    # --------------------------------------------------------------------------------------- requests

    def request_body(self, messages: Sequence[Message], *, stream: bool) -> dict[str, Any]:
        """The JSON body sent for `messages`; public so users can see exactly what goes on the wire."""
        body: dict[str, Any] = {"model": self.model, "messages": [_encode_message(m) for m in messages]}
        if self._tools:
            body["tools"] = [_encode_tool(t) for t in self._tools]
            if self.tool_choice is not None:
                body["tool_choice"] = self.tool_choice
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        body["stream"] = stream
        if stream and self.stream_usage:
            body["stream_options"] = {"include_usage": True}
        body.update(self.extra_body)
        return body

    def _request_headers(self, *, stream: bool) -> dict[str, str]:
        headers = {"Accept": "text/event-stream" if stream else "application/json", **self._headers}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        return headers

    def _status_failure(self, status: int, headers: httpx.Headers, text: str) -> _Failure:
        try:
            detail = _error_text(json.loads(text), self._redact)
        except (json.JSONDecodeError, AttributeError, TypeError):
            detail = self._redact(text.strip())[:_BODY_EXCERPT]
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        message = f"POST {self.endpoint} returned HTTP {status} {phrase}".rstrip()
        if detail:
            message += f": {detail}"
        error = ChatModelStatusError(
            message,
            endpoint=self.endpoint,
            status_code=status,
            body=self._redact(text[:_BODY_EXCERPT]),
            request_id=headers.get("x-request-id"),
        )
        retryable = status in _RETRYABLE_STATUSES
        wait = _retry_after(headers, now=time.time()) if retryable else None
        return _Failure(error, retryable=retryable, wait=wait)

    def _transport_failure(self, exc: httpx.TransportError, *, started: bool = False) -> _Failure:
        """Translate an httpx failure without keeping it: it holds the request and its headers."""
        detail = self._redact(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        if isinstance(exc, httpx.TimeoutException):
            error: ChatModelError = ChatModelTimeoutError(
                f"POST {self.endpoint} timed out after {self._timeout_text()} ({detail})",
                endpoint=self.endpoint,
            )
            retry_timeout = isinstance(exc, httpx.ConnectTimeout) and not started
            return _Failure(error, retryable=retry_timeout, detail=detail)
        error = ChatModelConnectionError(f"POST {self.endpoint} failed: {detail}", endpoint=self.endpoint)
        connection_level = isinstance(exc, httpx.ConnectError | httpx.RemoteProtocolError | httpx.ReadError)
        return _Failure(error, retryable=connection_level and not started, detail=detail)

    def _mid_stream(self, failure: _Failure, decoder: _StreamDecoder) -> ChatModelError:
        """A transport failure after the response started: a timeout stays one, anything else truncated."""
        if isinstance(failure.error, ChatModelTimeoutError):
            return failure.error
        return decoder.broken(failure.detail)

    def _timeout_text(self) -> str:
        return f"{self.timeout}s" if isinstance(self.timeout, int | float) else repr(self.timeout)

    def _backoff(self, attempt: int, failure: _Failure) -> float:
        if failure.wait is not None:
            return min(failure.wait, self.max_retry_delay)
        return min(0.5 * 2**attempt, 8.0, self.max_retry_delay)

    def _give_up(self, failure: _Failure, attempt: int) -> NoReturn:
        error = failure.error
        if failure.retryable and attempt > 0:
            error.args = (f"{error.args[0]} (after {attempt + 1} attempts)",)
        raise error

    def _decode(self, status: int, text: str) -> Message:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            raise ChatModelResponseError(
                f"POST {self.endpoint} (HTTP {status}): response is not JSON: {self._redact(text[:200])!r}",
                endpoint=self.endpoint,
            ) from None
        return _decode_completion(data, endpoint=self.endpoint, status=status, redact=self._redact)

    def _new_decoder(self, status: int) -> _StreamDecoder:
        return _StreamDecoder(endpoint=self.endpoint, status=status, redact=self._redact)

    # ------------------------------------------------------------------------------------------- sync

    def generate(self, messages: Sequence[Message]) -> Message:
        """One non-streamed completion as a single assistant message (with `usage` when reported)."""
        body = self.request_body(messages, stream=False)
        client = self._client.get()
        for attempt in range(self.max_retries + 1):
            failure: _Failure | None = None
            try:
                response = client.post(
                    self.endpoint,
                    json=body,
                    headers=self._request_headers(stream=False),
                    timeout=self.timeout,
                )
            except httpx.TransportError as exc:
                failure = self._transport_failure(exc)
            else:
                if response.status_code < 400:
                    return self._decode(response.status_code, response.text)
                failure = self._status_failure(response.status_code, response.headers, response.text)
            if not failure.retryable or attempt == self.max_retries:
                self._give_up(failure, attempt)
            self._sleep(self._backoff(attempt, failure))
        raise AssertionError("unreachable")  # pragma: no cover

    def stream(self, messages: Sequence[Message]) -> Generator[Message, None, None]:
        """Message chunks as the server sends them; `concat_messages` of them is the full message.

        A server that answers a stream request with a plain JSON completion yields it as one chunk.
        """
        body = self.request_body(messages, stream=True)
        client = self._client.get()
        request = client.build_request(
            "POST", self.endpoint, json=body, headers=self._request_headers(stream=True), timeout=self.timeout
        )
        response = self._open_stream(client, request)
        try:
            if _is_whole_json(response):
                failure: _Failure | None = None
                text = ""
                try:
                    text = response.read().decode("utf-8", "replace")
                except httpx.TransportError as exc:
                    failure = self._transport_failure(exc, started=True)
                if failure is not None:
                    raise failure.error
                yield self._decode(response.status_code, text)
                return
            decoder = self._new_decoder(response.status_code)
            lines = response.iter_lines()
            while True:
                try:
                    line = next(lines)
                except StopIteration:
                    break
                except httpx.TransportError as exc:
                    failure = self._transport_failure(exc, started=True)
                else:
                    yield from decoder.feed(line)
                    continue
                raise self._mid_stream(failure, decoder)
            yield from decoder.finish()
        finally:
            response.close()

    def _open_stream(self, client: httpx.Client, request: httpx.Request) -> httpx.Response:
        for attempt in range(self.max_retries + 1):
            failure: _Failure | None = None
            try:
                response = client.send(request, stream=True)
            except httpx.TransportError as exc:
                failure = self._transport_failure(exc)
            else:
                if response.status_code < 400:
                    return response
                failure = self._read_error_response(response)
            if not failure.retryable or attempt == self.max_retries:
                self._give_up(failure, attempt)
            self._sleep(self._backoff(attempt, failure))
        raise AssertionError("unreachable")  # pragma: no cover

    def _read_error_response(self, response: httpx.Response) -> _Failure:
        text = ""
        try:
            text = response.read().decode("utf-8", "replace")
        except httpx.TransportError:
            pass
        finally:
            response.close()
        return self._status_failure(response.status_code, response.headers, text)

    # ------------------------------------------------------------------------------------------ async

    def _open_async_client(self) -> tuple[httpx.AsyncClient, bool]:
        """The injected client, or a fresh one per call: an AsyncClient is bound to its event loop."""
        if self._async_client is not None:
            return self._async_client, False
        return httpx.AsyncClient(verify=_default_ssl_context()), True

    async def agenerate(self, messages: Sequence[Message]) -> Message:
        """Async `generate`."""
        body = self.request_body(messages, stream=False)
        client, owned = self._open_async_client()
        try:
            for attempt in range(self.max_retries + 1):
                failure: _Failure | None = None
                try:
                    response = await client.post(
                        self.endpoint,
                        json=body,
                        headers=self._request_headers(stream=False),
                        timeout=self.timeout,
                    )
                except httpx.TransportError as exc:
                    failure = self._transport_failure(exc)
                else:
                    if response.status_code < 400:
                        return self._decode(response.status_code, response.text)
                    failure = self._status_failure(response.status_code, response.headers, response.text)
                if not failure.retryable or attempt == self.max_retries:
                    self._give_up(failure, attempt)
                await self._async_sleep(self._backoff(attempt, failure))
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            if owned:
                await client.aclose()

    async def astream(self, messages: Sequence[Message]) -> AsyncGenerator[Message, None]:
        """Async `stream`."""
        body = self.request_body(messages, stream=True)
        client, owned = self._open_async_client()
        try:
            request = client.build_request(
                "POST",
                self.endpoint,
                json=body,
                headers=self._request_headers(stream=True),
                timeout=self.timeout,
            )
            response = await self._aopen_stream(client, request)
            try:
                if _is_whole_json(response):
                    failure: _Failure | None = None
                    text = ""
                    try:
                        text = (await response.aread()).decode("utf-8", "replace")
                    except httpx.TransportError as exc:
                        failure = self._transport_failure(exc, started=True)
                    if failure is not None:
                        raise failure.error
                    yield self._decode(response.status_code, text)
                    return
                decoder = self._new_decoder(response.status_code)
                lines = response.aiter_lines()
                while True:
                    try:
                        line = await anext(lines)
                    except StopAsyncIteration:
                        break
                    except httpx.TransportError as exc:
                        failure = self._transport_failure(exc, started=True)
                    else:
                        for chunk in decoder.feed(line):
                            yield chunk
                        continue
                    raise self._mid_stream(failure, decoder)
                for chunk in decoder.finish():
                    yield chunk
            finally:
                await response.aclose()
        finally:
            if owned:
                await client.aclose()

    async def _aopen_stream(self, client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        for attempt in range(self.max_retries + 1):
            failure: _Failure | None = None
            try:
                response = await client.send(request, stream=True)
            except httpx.TransportError as exc:
                failure = self._transport_failure(exc)
            else:
                if response.status_code < 400:
                    return response
                text = ""
                try:
                    text = (await response.aread()).decode("utf-8", "replace")
                except httpx.TransportError:
                    pass
                finally:
                    await response.aclose()
                failure = self._status_failure(response.status_code, response.headers, text)
            if not failure.retryable or attempt == self.max_retries:
                self._give_up(failure, attempt)
            await self._async_sleep(self._backoff(attempt, failure))
        raise AssertionError("unreachable")  # pragma: no cover
