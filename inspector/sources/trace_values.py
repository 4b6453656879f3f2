"""Span values as run-file values: JSON-text attributes loaded (with the run file's `$` escape),
nanoseconds as seconds, a span's error status as an error record. Shared by the readers of our own
traces (`trace_run`) and of other tracers' (`observed_run`)."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from inspector.otel import names as n
from inspector.sources.spans import TraceSpan

__all__ = ["dump", "error_of", "loaded", "seconds"]


def dump(event: dict[str, Any]) -> str:
    """One line of the run file: compact JSON, by msgspec (six times `json.dumps`; a float that is
    not a number, which JSON has no word for, is written `null`). Text that is no UTF-8 (a lone
    surrogate, which a trace's JSON may escape) is written escaped, as `json` does, and reads back
    the same."""
    try:
        return _encode(event).decode()
    except UnicodeEncodeError:
        return json.dumps(event, separators=(",", ":"))


_encode = msgspec.json.Encoder().encode


def _escape(value: Any) -> Any:
    """Keys of recorded data that start with `$` are stored with one more `$` (see `format`)."""
    if isinstance(value, dict):
        return {
            (f"${k}" if isinstance(k, str) and k.startswith("$") else k): _escape(v) for k, v in value.items()
        }  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_escape(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def loaded(attributes: dict[str, Any], key: str) -> Any:
    raw = attributes.get(key)
    if not isinstance(raw, str):
        return None
    try:
        return _escape(json.loads(raw))
    except ValueError:
        return raw


def seconds(ns: int) -> float:
    return round(ns / 1e9, 6)


def error_of(span: TraceSpan) -> dict[str, Any] | None:
    if not span.error:
        return None
    kind = span.attributes.get(n.ERROR_TYPE) or "Error"
    message = span.attributes.get(n.ERROR_MESSAGE)
    if message is None:
        message = span.status_message.split(": ", 1)[-1]
    error: dict[str, Any] = {"type": str(kind), "message": str(message)}
    if n.ERROR_NODE_PATH in span.attributes:
        error["node_path"] = list(span.attributes[n.ERROR_NODE_PATH])
    if n.ERROR_CAUSE_TYPE in span.attributes:
        error["cause_type"] = str(span.attributes[n.ERROR_CAUSE_TYPE])
    if n.ERROR_CAUSE_MESSAGE in span.attributes:
        error["cause_message"] = str(span.attributes[n.ERROR_CAUSE_MESSAGE])
    return error
