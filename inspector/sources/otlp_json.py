"""OTLP/JSON read straight into `TraceSpan`s: the wire form as msgspec structs, decoded and checked
in one pass, then made into spans.

OTLP/JSON is the protobuf JSON mapping of `ExportTraceServiceRequest`, with trace and span ids as
hex. The structs below are that request, field by field, with the mapping's leniencies: every field
under its JSON name (`startTimeUnixNano`) and its proto name (`start_time_unix_nano`, as Phoenix's
span export writes), `null` for unset, 64-bit integers as numbers or strings and doubles as numbers or
`"NaN"`/`"Infinity"` (msgspec's lax mode), enums by number or name, unknown fields ignored. A value of
the wrong kind is msgspec's `ValidationError`, which says what it expected and where (`$.resourceSpans
[0].scopeSpans[0].spans[3].name`).

This replaced `json_format.ParseDict` into protobuf messages and a walk of those, which took a
millisecond a span in pure-Python reflection; decoding into structs takes a few microseconds.
`from_proto` in `spans` gives the same spans from the same request's protobuf form (the tests hold
the two to it on every fixture run).
"""

from __future__ import annotations

import base64
import json
from typing import Annotated, Any

import msgspec

from inspector.sources.spans import SpanEvent, TraceSpan

__all__ = ["from_json", "read_json_line"]

_Int64 = Annotated[int, msgspec.Meta(ge=-(1 << 63), le=(1 << 63) - 1)]
_Time = Annotated[int, msgspec.Meta(ge=0)]  # (a uint64: the upper bound is checked below, past int64)
_UINT64 = 1 << 64
_ERROR_CODES = (2, "2", "STATUS_CODE_ERROR")


class _ArrayValue(msgspec.Struct, gc=False):
    values: list[_AnyValue] | None = None


class _KeyValueList(msgspec.Struct, gc=False):
    values: list[_KeyValue] | None = None


class _AnyValue(msgspec.Struct, gc=False):
    stringValue: str | None = None
    intValue: _Int64 | None = None
    doubleValue: float | None = None
    boolValue: bool | None = None
    arrayValue: _ArrayValue | None = None
    kvlistValue: _KeyValueList | None = None
    bytesValue: str | None = None
    string_value: str | None = None
    int_value: _Int64 | None = None
    double_value: float | None = None
    bool_value: bool | None = None
    array_value: _ArrayValue | None = None
    kvlist_value: _KeyValueList | None = None
    bytes_value: str | None = None


class _KeyValue(msgspec.Struct, gc=False):
    key: str | None = None
    value: _AnyValue | None = None


class _Event(msgspec.Struct, gc=False):
    timeUnixNano: _Time | None = None
    time_unix_nano: _Time | None = None
    name: str | None = None
    attributes: list[_KeyValue] | None = None


class _Link(msgspec.Struct, gc=False):
    spanId: str | None = None
    span_id: str | None = None


class _Status(msgspec.Struct, gc=False):
    code: int | str | None = None
    message: str | None = None


class _Span(msgspec.Struct, gc=False):
    traceId: str | None = None
    spanId: str | None = None
    parentSpanId: str | None = None
    name: str | None = None
    startTimeUnixNano: _Time | None = None
    endTimeUnixNano: _Time | None = None
    attributes: list[_KeyValue] | None = None
    events: list[_Event] | None = None
    status: _Status | None = None
    links: list[_Link] | None = None
    trace_id: str | None = None
    span_id: str | None = None
    parent_span_id: str | None = None
    start_time_unix_nano: _Time | None = None
    end_time_unix_nano: _Time | None = None


class _ScopeSpans(msgspec.Struct, gc=False):
    spans: list[_Span] | None = None


class _ResourceSpans(msgspec.Struct, gc=False):
    scopeSpans: list[_ScopeSpans] | None = None
    scope_spans: list[_ScopeSpans] | None = None


class _Request(msgspec.Struct, gc=False):
    resourceSpans: list[_ResourceSpans] | None = None
    resource_spans: list[_ResourceSpans] | None = None


_decoder = msgspec.json.Decoder(_Request, strict=False)


def read_json_line(raw: bytes) -> list[TraceSpan]:
    """The spans of one OTLP/JSON line. What is not such a request is a `ValueError` saying what is
    wrong and where (msgspec's `ValidationError` and `DecodeError` are both `ValueError`s)."""
    try:
        request = _decoder.decode(raw)
    except msgspec.DecodeError:
        # Not JSON to msgspec; `json.loads` reads a little more (NaN, lone surrogate escapes), and
        # its answer or error is the rule.
        return from_json(json.loads(raw))
    return _spans(request)


def from_json(data: Any) -> list[TraceSpan]:
    """The spans of one OTLP/JSON request already parsed (`json.loads` of a line)."""
    if not isinstance(data, dict):
        raise ValueError("a line is not a JSON object")
    return _spans(msgspec.convert(data, _Request, strict=False))


def _spans(request: _Request) -> list[TraceSpan]:
    spans: list[TraceSpan] = []
    for r, resource in enumerate(request.resourceSpans or request.resource_spans or ()):
        for s, scope in enumerate(resource.scopeSpans or resource.scope_spans or ()):
            for k, span in enumerate(scope.spans or ()):
                try:
                    spans.append(_span(span))
                except ValueError as exc:  # said as msgspec says where
                    raise ValueError(
                        f"{exc} - at `$.resourceSpans[{r}].scopeSpans[{s}].spans[{k}]`"
                    ) from None
    return spans


def _span(span: _Span) -> TraceSpan:
    status = span.status
    return TraceSpan(
        _id(span.traceId or span.trace_id, "traceId"),
        _id(span.spanId or span.span_id, "spanId"),
        _id(span.parentSpanId or span.parent_span_id, "parentSpanId"),
        span.name or "",
        _time(span.startTimeUnixNano, span.start_time_unix_nano, "startTimeUnixNano"),
        _time(span.endTimeUnixNano, span.end_time_unix_nano, "endTimeUnixNano"),
        _attributes(span.attributes) if span.attributes else {},
        [
            SpanEvent(
                event.name or "",
                _time(event.timeUnixNano, event.time_unix_nano, "events.timeUnixNano"),
                _attributes(event.attributes) if event.attributes else {},
            )
            for event in span.events
        ]
        if span.events
        else [],
        status is not None and status.code in _ERROR_CODES,
        (status.message or "") if status is not None else "",
        [_id(link.spanId or link.span_id, "links.spanId") for link in span.links] if span.links else [],
    )


def _attributes(items: list[_KeyValue]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        value = item.value
        if value is None:
            out[item.key or ""] = None
            continue
        # the usual values first, read here: a call for each of 200,000 attributes shows
        found = value.stringValue
        if found is None:
            found = value.intValue
            if found is None:
                found = value.doubleValue
                if found is None:
                    found = _value(value)
        out[item.key or ""] = found
    return out


def _value(value: _AnyValue) -> Any:
    """The field set (the first, should a writer set more than one), as a Python value."""
    if value.stringValue is not None:
        return value.stringValue
    array = value.arrayValue or value.array_value
    if array is not None:
        return [None if item is None else _value(item) for item in array.values or ()]
    for found in (value.intValue, value.doubleValue, value.boolValue):
        if found is not None:
            return found
    kvlist = value.kvlistValue or value.kvlist_value
    if kvlist is not None:
        return _attributes(kvlist.values or [])
    raw = value.bytesValue if value.bytesValue is not None else value.bytes_value
    if raw is not None:
        return _base64(raw, "bytesValue").hex()
    for found in (value.string_value, value.int_value, value.double_value, value.bool_value):
        if found is not None:
            return found
    return None


def _id(raw: str | None, name: str) -> str:
    """An id as hex: OTLP/JSON writes hex; a writer of the plain protobuf mapping, base64."""
    if not raw:
        return ""
    try:
        return bytes.fromhex(raw).hex()
    except ValueError:
        return _base64(raw, name).hex()


def _base64(text: str, name: str) -> bytes:
    """Base64 as the protobuf JSON mapping reads it: either alphabet, padding optional."""
    try:
        return base64.b64decode(
            text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True
        )
    except ValueError:
        raise ValueError(f"{name} {text[:40]!r} is neither hex nor base64") from None


def _time(json_name: int | None, proto_name: int | None, name: str) -> int:
    value = json_name if json_name is not None else proto_name
    if value is None:
        return 0
    if value >= _UINT64:
        raise ValueError(f"{name} {value} is past the 64 bits of a time in nanoseconds")
    return value
