"""Ended SDK spans as OTLP/JSON lines, written directly: what the SDK's protobuf encoder
(`encode_spans`) followed by `google.protobuf.json_format.MessageToDict` gives, byte for byte, without
building protobuf messages and walking them by reflection (which took most of `export -o`'s time and
grew faster than the run did).

The protobuf JSON mapping, as `MessageToDict` applies it to `ExportTraceServiceRequest`: fields in field
number order under their JSON names, fields at their default value left out (but a oneof's member is
written when set, so an attribute's `""`, `0` and `false` are kept), 64-bit integers (times, `intValue`)
as strings, enums by name, `double` as the number itself (`"NaN"`, `"Infinity"` for those), ids as
hex (OTLP/JSON's exception to the mapping's base64). An attribute the SDK encoder cannot encode (an
integer past 64 bits) is left out as the encoder leaves it out. `tests/otel/test_trace_json.py` holds
this to the SDK's path on every fixture run.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import Link, SpanContext, SpanKind

__all__ = ["request_lines"]

_KINDS = {
    SpanKind.INTERNAL: "SPAN_KIND_INTERNAL",
    SpanKind.SERVER: "SPAN_KIND_SERVER",
    SpanKind.CLIENT: "SPAN_KIND_CLIENT",
    SpanKind.PRODUCER: "SPAN_KIND_PRODUCER",
    SpanKind.CONSUMER: "SPAN_KIND_CONSUMER",
}
_STATUS_CODES = {1: "STATUS_CODE_OK", 2: "STATUS_CODE_ERROR"}
_HAS_IS_REMOTE = 0x100  # SpanFlags.SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
_IS_REMOTE = 0x200  # SpanFlags.SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK
_INT64 = (-(1 << 63), (1 << 63) - 1)


def request_lines(spans: Sequence[ReadableSpan]) -> list[str]:
    """One OTLP JSON line per trace, traces in the order their first span ended."""
    by_trace: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        context = span.get_span_context()
        assert context is not None
        by_trace.setdefault(context.trace_id, []).append(span)
    return [
        json.dumps(_request(group), separators=(",", ":"), ensure_ascii=False) for group in by_trace.values()
    ]


def _request(spans: list[ReadableSpan]) -> dict[str, Any]:
    # Grouped as the encoder groups: by resource, then by instrumentation scope, in first-seen order.
    groups: dict[Any, dict[Any, list[dict[str, Any]]]] = {}
    for span in spans:
        groups.setdefault(span.resource, {}).setdefault(span.instrumentation_scope or None, []).append(
            _span(span)
        )
    resource_spans: list[dict[str, Any]] = []
    for resource, scopes in groups.items():
        scope_spans: list[dict[str, Any]] = []
        for scope, encoded in scopes.items():
            item: dict[str, Any] = {}
            scope_json: dict[str, Any] = {}
            if scope is not None:
                if scope.name:
                    scope_json["name"] = scope.name
                if scope.version:
                    scope_json["version"] = scope.version
                attributes = _attributes(scope.attributes)
                if attributes:
                    scope_json["attributes"] = attributes
            item["scope"] = scope_json
            if encoded:
                item["spans"] = encoded
            if scope is not None and scope.schema_url:
                item["schemaUrl"] = scope.schema_url
            scope_spans.append(item)
        entry: dict[str, Any] = {}
        attributes = _attributes(resource.attributes)
        entry["resource"] = {"attributes": attributes} if attributes else {}
        if scope_spans:
            entry["scopeSpans"] = scope_spans
        if resource.schema_url:
            entry["schemaUrl"] = resource.schema_url
        resource_spans.append(entry)
    return {"resourceSpans": resource_spans} if resource_spans else {}


def _span(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    assert context is not None
    out: dict[str, Any] = {
        "traceId": format(context.trace_id, "032x"),
        "spanId": format(context.span_id, "016x"),
    }
    trace_state = ",".join(f"{k}={v}" for k, v in context.trace_state.items())
    if trace_state:
        out["traceState"] = trace_state
    parent = span.parent
    if parent:
        out["parentSpanId"] = format(parent.span_id, "016x")
    if span.name:
        out["name"] = span.name
    out["kind"] = _KINDS[span.kind]
    if span.start_time:
        out["startTimeUnixNano"] = str(span.start_time)
    if span.end_time:
        out["endTimeUnixNano"] = str(span.end_time)
    attributes = _attributes(span.attributes)
    if attributes:
        out["attributes"] = attributes
    if span.dropped_attributes:
        out["droppedAttributesCount"] = span.dropped_attributes
    if span.events:
        events: list[dict[str, Any]] = []
        for event in span.events:
            item: dict[str, Any] = {}
            if event.timestamp:
                item["timeUnixNano"] = str(event.timestamp)
            if event.name:
                item["name"] = event.name
            encoded = _attributes(event.attributes)
            if encoded:
                item["attributes"] = encoded
            if event.dropped_attributes:
                item["droppedAttributesCount"] = event.dropped_attributes
            events.append(item)
        out["events"] = events
    if span.dropped_events:
        out["droppedEventsCount"] = span.dropped_events
    if span.links:
        out["links"] = [_link(link) for link in span.links]
    if span.dropped_links:
        out["droppedLinksCount"] = span.dropped_links
    status: dict[str, Any] = {}
    if span.status.description:
        status["message"] = span.status.description
    code = _STATUS_CODES.get(span.status.status_code.value)
    if code:
        status["code"] = code
    out["status"] = status
    out["flags"] = _flags(parent)
    return out


def _link(link: Link) -> dict[str, Any]:
    context = link.context
    out: dict[str, Any] = {
        "traceId": format(context.trace_id, "032x"),
        "spanId": format(context.span_id, "016x"),
    }
    attributes = _attributes(link.attributes)
    if attributes:
        out["attributes"] = attributes
    if link.dropped_attributes:
        out["droppedAttributesCount"] = link.dropped_attributes
    out["flags"] = _flags(context)
    return out


def _flags(context: SpanContext | None) -> int:
    return _HAS_IS_REMOTE | _IS_REMOTE if context is not None and context.is_remote else _HAS_IS_REMOTE


def _attributes(attributes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    if not attributes:
        return []
    out: list[dict[str, Any]] = []
    for key, value in attributes.items():
        try:
            encoded = _value(value)
        except (TypeError, ValueError):  # as the SDK's encoder: logged there, left out
            continue
        out.append({"key": key, "value": encoded} if key else {"value": encoded})
    return out


def _value(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, int):
        if not _INT64[0] <= value <= _INT64[1]:
            raise ValueError(f"{value} is past 64 bits")
        return {"intValue": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"doubleValue": "NaN"}
        if math.isinf(value):
            return {"doubleValue": "Infinity" if value > 0 else "-Infinity"}
        return {"doubleValue": value}
    if isinstance(value, bytes):
        return {"bytesValue": base64.b64encode(value).decode()}
    if isinstance(value, Sequence):
        values = [_value(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
        return {"arrayValue": {"values": values} if values else {}}
    if isinstance(value, Mapping):
        items = [
            {"key": str(k), "value": _value(v)} if str(k) else {"value": _value(v)}  # pyright: ignore[reportUnknownArgumentType]
            for k, v in value.items()  # pyright: ignore[reportUnknownVariableType]
        ]
        return {"kvlistValue": {"values": items} if items else {}}
    raise TypeError(f"invalid type {type(value)} of value {value}")
