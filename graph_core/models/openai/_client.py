"""`OpenAIChatModel`: configuration, requests, and the sync and async ways of moving the bytes.

Everything that is not I/O lives beside it: the wire mapping in `_wire`, the SSE decoder in `_sse`, the
failure and retry decisions in `_retry`, so `generate`/`agenerate` and `stream`/`astream` differ only in
how they send, read and sleep.
"""

from __future__ import annotations

import asyncio
import copy
import os
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from typing import Any

import httpx
from pydantic import SecretStr

from graph_core.models.openai._http import SharedClient, default_ssl_context, is_whole_json
from graph_core.models.openai._retry import (
    Failure,
    mid_stream_error,
    next_delay,
    status_failure,
    transport_failure,
)
from graph_core.models.openai._secrets import CREDENTIAL_HEADERS, Redactor, mask_http_logs, url_password
from graph_core.models.openai._sse import StreamDecoder
from graph_core.models.openai._wire import decode_completion_text, encode_message, encode_tool
from graph_core.schema import Message, ToolInfo

__all__ = ["DEFAULT_BASE_URL", "OpenAIChatModel"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIChatModel:
    """A chat model on an OpenAI-compatible `/chat/completions` endpoint, sync and async, streamed or not.

    `api_key` defaults to `OPENAI_API_KEY` and `base_url` to `OPENAI_BASE_URL` or OpenAI's; without a key no
    `Authorization` header is sent (local servers rarely want one). The key lives in a `SecretStr`, so
    neither `repr`, `vars()` nor any error shows it. So do the values of credential `headers`
    (`Authorization`, `Api-Key` as Azure wants it, `X-Api-Key`, and those named in `secret_headers`): a
    server that echoes any of them back, in an error, a stream, an answer or a response header that
    httpx logs at DEBUG, has it masked as `***`. `with_tools` returns a copy and never mutates the
    original, so one configured model can serve concurrent agents; copies share one connection pool.

    `extra_body` is merged into every request body last (for `temperature`-like fields a server supports
    but this class does not name). Invalid tool-call JSON is detected when the message is complete: at the
    end of `generate`, or after the last chunk of `stream` (raised by the iterator, after every chunk was
    yielded). A tool call the server sends without an ID gets `call_<uuid hex>`, the uuid from
    `uuid_factory` (default `uuid.uuid4`; tests pass a counter).
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
        secret_headers: Iterable[str] = (),
        uuid_factory: Callable[[], uuid.UUID] | None = None,
    ) -> None:
        if not model:
            raise ValueError("OpenAIChatModel needs a `model` name")
        if max_retries < 0:
            raise ValueError("`max_retries` must be >= 0")
        self.model = model
        url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        # A password in the URL (`https://user:pw@gateway/v1`) is a credential: `base_url`, `endpoint`,
        # `repr` and errors show `***` in its place; only the request uses the URL as given.
        self.base_url, url_secrets = url_password(url)
        self._url = SecretStr(url)
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._api_key: SecretStr | None = (
            key if isinstance(key, SecretStr) else SecretStr(key) if key else None
        )
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.extra_body: dict[str, Any] = dict(extra_body or {})
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.tool_choice = tool_choice
        self.stream_usage = stream_usage
        marked = CREDENTIAL_HEADERS | {name.lower() for name in secret_headers}
        self._headers: dict[str, str | SecretStr] = {
            name: SecretStr(value) if name.lower() in marked else value
            for name, value in (headers or {}).items()
        }
        secrets = [v.get_secret_value() for v in self._headers.values() if isinstance(v, SecretStr)]
        self._redact = Redactor(
            self._api_key.get_secret_value() if self._api_key else None, *secrets, *url_secrets
        )
        mask_http_logs(self._redact)
        self._tools: tuple[ToolInfo, ...] = ()
        self._client = SharedClient(http_client)
        self._async_client = async_http_client
        self._sleep = sleep or time.sleep
        self._async_sleep = async_sleep or asyncio.sleep
        self._uuids = uuid_factory or uuid.uuid4

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
        body: dict[str, Any] = {"model": self.model, "messages": [encode_message(m) for m in messages]}
        if self._tools:
            body["tools"] = [encode_tool(t) for t in self._tools]
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
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        for name, value in self._headers.items():
            headers[name] = value.get_secret_value() if isinstance(value, SecretStr) else value
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        return headers

    def _request(
        self, client: httpx.Client | httpx.AsyncClient, messages: Sequence[Message], *, stream: bool
    ) -> httpx.Request:
        return client.build_request(
            "POST",
            f"{self._url.get_secret_value()}/chat/completions",
            json=self.request_body(messages, stream=stream),
            headers=self._request_headers(stream=stream),
            timeout=self.timeout,
        )

    # ------------------------------------------------------------------------------ shared decisions

    def _transport_failure(self, exc: httpx.TransportError, *, started: bool = False) -> Failure:
        return transport_failure(
            exc, endpoint=self.endpoint, redact=self._redact, timeout=self.timeout, started=started
        )

    def _status_failure(self, response: httpx.Response, text: str) -> Failure:
        return status_failure(
            response.status_code, response.headers, text, endpoint=self.endpoint, redact=self._redact
        )

    def _next_delay(self, failure: Failure, attempt: int) -> float:
        """The wait before the next attempt; raises (outside any `except`) when there is none."""
        return next_delay(
            failure, attempt, max_retries=self.max_retries, max_retry_delay=self.max_retry_delay
        )

    def _decode(self, response: httpx.Response, text: str) -> Message:
        return decode_completion_text(
            text, endpoint=self.endpoint, status=response.status_code, redact=self._redact, uuids=self._uuids
        )

    def _new_decoder(self, response: httpx.Response) -> StreamDecoder:
        return StreamDecoder(
            endpoint=self.endpoint, status=response.status_code, redact=self._redact, uuids=self._uuids
        )

    # ------------------------------------------------------------------------------------------- sync

    def generate(self, messages: Sequence[Message]) -> Message:
        """One non-streamed completion as a single assistant message (with `usage` when reported)."""
        client = self._client.get()
        response = self._send(client, self._request(client, messages, stream=False), stream=False)
        return self._decode(response, response.text)

    def stream(self, messages: Sequence[Message]) -> Generator[Message, None, None]:
        """Message chunks as the server sends them; `concat_messages` of them is the full message.

        A server that answers a stream request with a plain JSON completion yields it as one chunk.
        """
        client = self._client.get()
        response = self._send(client, self._request(client, messages, stream=True), stream=True)
        try:
            if is_whole_json(response):
                yield self._decode(response, self._read_started(response))
                return
            decoder = self._new_decoder(response)
            texts = response.iter_text()
            while True:
                try:
                    text = next(texts)
                except StopIteration:
                    break
                except httpx.TransportError as exc:
                    failure = self._transport_failure(exc, started=True)
                else:
                    yield from decoder.feed_text(text)
                    continue
                raise mid_stream_error(failure, decoder)
            yield from decoder.finish()
        finally:
            response.close()

    def _send(self, client: httpx.Client, request: httpx.Request, *, stream: bool) -> httpx.Response:
        """Send with retries; returns the first 2xx response (a redirect the client did not follow fails)."""
        for attempt in range(self.max_retries + 1):
            try:
                response = client.send(request, stream=stream)
            except httpx.TransportError as exc:
                failure = self._transport_failure(exc)
            else:
                if response.status_code < 300:
                    return response
                text = self._read_error_body(response) if stream else response.text
                failure = self._status_failure(response, text)
            self._sleep(self._next_delay(failure, attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _read_started(self, response: httpx.Response) -> str:
        """A started response's whole body; a transport failure is raised outside the `except` block."""
        failure: Failure | None = None
        text = ""
        try:
            text = response.read().decode("utf-8", "replace")
        except httpx.TransportError as exc:
            failure = self._transport_failure(exc, started=True)
        if failure is not None:
            raise failure.error
        return text

    @staticmethod
    def _read_error_body(response: httpx.Response) -> str:
        """An error response's body when streaming; a failure to read it leaves the status to speak."""
        try:
            return response.read().decode("utf-8", "replace")
        except httpx.TransportError:
            return ""
        finally:
            response.close()

    # ------------------------------------------------------------------------------------------ async

    def _open_async_client(self) -> tuple[httpx.AsyncClient, bool]:
        """The injected client, or a fresh one per call: an AsyncClient is bound to its event loop."""
        if self._async_client is not None:
            return self._async_client, False
        return httpx.AsyncClient(verify=default_ssl_context()), True

    async def agenerate(self, messages: Sequence[Message]) -> Message:
        """Async `generate`."""
        client, owned = self._open_async_client()
        try:
            response = await self._asend(client, self._request(client, messages, stream=False), stream=False)
            return self._decode(response, response.text)
        finally:
            if owned:
                await client.aclose()

    async def astream(self, messages: Sequence[Message]) -> AsyncGenerator[Message, None]:
        """Async `stream`."""
        client, owned = self._open_async_client()
        try:
            response = await self._asend(client, self._request(client, messages, stream=True), stream=True)
            try:
                if is_whole_json(response):
                    yield self._decode(response, await self._aread_started(response))
                    return
                decoder = self._new_decoder(response)
                texts = response.aiter_text()
                while True:
                    try:
                        text = await anext(texts)
                    except StopAsyncIteration:
                        break
                    except httpx.TransportError as exc:
                        failure = self._transport_failure(exc, started=True)
                    else:
                        for chunk in decoder.feed_text(text):
                            yield chunk
                        continue
                    raise mid_stream_error(failure, decoder)
                for chunk in decoder.finish():
                    yield chunk
            finally:
                await response.aclose()
        finally:
            if owned:
                await client.aclose()

    async def _asend(
        self, client: httpx.AsyncClient, request: httpx.Request, *, stream: bool
    ) -> httpx.Response:
        """Async `_send`."""
        for attempt in range(self.max_retries + 1):
            try:
                response = await client.send(request, stream=stream)
            except httpx.TransportError as exc:
                failure = self._transport_failure(exc)
            else:
                if response.status_code < 300:
                    return response
                text = await self._aread_error_body(response) if stream else response.text
                failure = self._status_failure(response, text)
            await self._async_sleep(self._next_delay(failure, attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _aread_started(self, response: httpx.Response) -> str:
        failure: Failure | None = None
        text = ""
        try:
            text = (await response.aread()).decode("utf-8", "replace")
        except httpx.TransportError as exc:
            failure = self._transport_failure(exc, started=True)
        if failure is not None:
            raise failure.error
        return text

    @staticmethod
    async def _aread_error_body(response: httpx.Response) -> str:
        try:
            return (await response.aread()).decode("utf-8", "replace")
        except httpx.TransportError:
            return ""
        finally:
            await response.aclose()
