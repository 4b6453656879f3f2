"""Failed attempts: what to raise, whether another attempt may help, and how long to wait before it.

429, 5xx and connection failures (before any response byte) are retried up to `max_retries` times with
exponential backoff, honouring `Retry-After`/`retry-after-ms`, or the wait the body names ("Please retry
after 20 seconds", "try again in 1m30s"), up to `max_retry_delay`. Read timeouts are not
retried (the server may already be spending tokens on the request), and nothing is retried once a stream
has started yielding chunks. Pure logic: the client does the sending and the sleeping, sync or async.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from dataclasses import dataclass
from http import HTTPStatus

import httpx

from graph_core.models.openai._errors import (
    ChatModelConnectionError,
    ChatModelError,
    ChatModelStatusError,
    ChatModelTimeoutError,
    Redactor,
)
from graph_core.models.openai._sse import StreamDecoder
from graph_core.models.openai._wire import BODY_EXCERPT, error_text

__all__ = [
    "RETRYABLE_STATUSES",
    "Failure",
    "mid_stream_error",
    "next_delay",
    "retry_after",
    "retry_hint",
    "status_failure",
    "transport_failure",
]

RETRYABLE_STATUSES = frozenset({429}) | frozenset(range(500, 600))


@dataclass(slots=True)
class Failure:
    """An attempt that failed: the error to raise, whether another attempt may help, and how long to wait."""

    error: ChatModelError
    retryable: bool
    wait: float | None = None
    detail: str = ""


def retry_after(headers: httpx.Headers, *, now: float) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` or `Retry-After` (seconds or a date)."""
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return max(millis / 1000.0, 0.0)
    value = headers.get("retry-after")
    if not value:
        return None
    seconds = _number(value)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - now, 0.0)


_HINT = re.compile(
    r"(?:retry after|try again in|retry in)\s+((?:\d+(?:\.\d+)?\s*"
    r"(?:ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|m|hours?|h)\s*)+)",
    re.IGNORECASE,
)
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|millis|s|m|h)")
_UNIT = {"ms": 0.001, "millis": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def retry_hint(text: str) -> float | None:
    """Seconds an error body asks to wait, in words: Azure's "Please retry after 20 seconds." (sent
    with no `Retry-After` header on some deployments), OpenAI's and Groq's "Please try again in 7.66s"
    or "in 1m30s" or "in 271ms", Gemini's "Please retry in 54.03s". None when it names no wait."""
    match = _HINT.search(text)
    if match is None:
        return None
    words = re.sub(r"milliseconds?", "millis", match.group(1).lower())
    total = sum(float(number) * _UNIT[unit] for number, unit in _PART.findall(words))
    return total if math.isfinite(total) else None


def _number(text: str | None) -> float | None:
    """A finite number, or None: `nan` or `inf` from a hostile server must not reach `sleep` (ValueError)."""
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def status_failure(
    status: int, headers: httpx.Headers, text: str, *, endpoint: str, redact: Redactor
) -> Failure:
    """An HTTP error or unfollowed redirect, with the server's own words (redacted) in the message."""
    try:
        detail = error_text(json.loads(text), redact)
    except (json.JSONDecodeError, AttributeError, TypeError):
        detail = redact(text.strip())[:BODY_EXCERPT]
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    location = headers.get("location")
    if 300 <= status < 400 and location:
        # httpx follows no redirect by default (a POST must not silently become a GET); say where to go
        detail = f"redirected to {redact(location)} (point base_url there)"
    message = f"POST {endpoint} returned HTTP {status} {phrase}".rstrip()
    if detail:
        message += f": {detail}"
    error = ChatModelStatusError(
        message,
        endpoint=endpoint,
        status_code=status,
        body=redact(text)[:BODY_EXCERPT],
        request_id=headers.get("x-request-id"),
    )
    retryable = status in RETRYABLE_STATUSES
    wait = retry_after(headers, now=time.time()) if retryable else None
    if retryable and wait is None:
        wait = retry_hint(text)
    return Failure(error, retryable=retryable, wait=wait)


def transport_failure(
    exc: httpx.TransportError,
    *,
    endpoint: str,
    redact: Redactor,
    timeout: float | httpx.Timeout,
    started: bool = False,
) -> Failure:
    """Translate an httpx failure without keeping it: it holds the request and its headers."""
    detail = redact(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if isinstance(exc, httpx.TimeoutException):
        timeout_text = f"{timeout}s" if isinstance(timeout, int | float) else repr(timeout)
        error: ChatModelError = ChatModelTimeoutError(
            f"POST {endpoint} timed out after {timeout_text} ({detail})", endpoint=endpoint
        )
        retry_timeout = isinstance(exc, httpx.ConnectTimeout) and not started
        return Failure(error, retryable=retry_timeout, detail=detail)
    error = ChatModelConnectionError(f"POST {endpoint} failed: {detail}", endpoint=endpoint)
    connection_level = isinstance(exc, httpx.ConnectError | httpx.RemoteProtocolError | httpx.ReadError)
    return Failure(error, retryable=connection_level and not started, detail=detail)


def mid_stream_error(failure: Failure, decoder: StreamDecoder) -> ChatModelError:
    """A transport failure after the response started: a timeout stays one, anything else truncated."""
    if isinstance(failure.error, ChatModelTimeoutError):
        return failure.error
    return decoder.broken(failure.detail)


def next_delay(failure: Failure, attempt: int, *, max_retries: int, max_retry_delay: float) -> float:
    """Seconds to wait before attempt `attempt + 1`; raises the failure's error when there is none.

    Call it outside any `except` block, so the raised error chains no httpx exception.
    """
    if not failure.retryable or attempt == max_retries:
        error = failure.error
        if failure.retryable and attempt > 0:
            error.args = (f"{error.args[0]} (after {attempt + 1} attempts)",)
        raise error
    if failure.wait is not None:
        return min(failure.wait, max_retry_delay)
    return min(0.5 * 2**attempt, 8.0, max_retry_delay)
