"""Spans as the trace readers use them: plain values, out of `opentelemetry-proto` messages here
(`from_proto`), out of OTLP/JSON text in `otlp_json`; both give the same spans for the same request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (the JSON form is read without importing protobuf)
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue

__all__ = ["SpanEvent", "TraceSpan", "from_proto"]

_STATUS_ERROR = 2  # opentelemetry.proto.trace.v1.Status.STATUS_CODE_ERROR


@dataclass(slots=True)
class SpanEvent:
    name: str
    time: int
    attributes: dict[str, Any]


@dataclass(slots=True)
class TraceSpan:
    """One span: ids as hex, times in ns since the epoch, attribute values as Python values."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    events: list[SpanEvent] = field(default_factory=lambda: [])
    error: bool = False
    status_message: str = ""
    links: list[str] = field(default_factory=lambda: [])


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind) if kind else None


def _attributes(items: Any) -> dict[str, Any]:
    return {item.key: _value(item.value) for item in items}


def from_proto(request: ExportTraceServiceRequest) -> list[TraceSpan]:
    """Every span of `request`, in its order."""
    spans: list[TraceSpan] = []
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            for span in scope.spans:
                status = span.status
                spans.append(
                    TraceSpan(
                        span.trace_id.hex(),
                        span.span_id.hex(),
                        span.parent_span_id.hex(),
                        span.name,
                        span.start_time_unix_nano,
                        span.end_time_unix_nano,
                        _attributes(span.attributes),
                        [SpanEvent(e.name, e.time_unix_nano, _attributes(e.attributes)) for e in span.events],
                        status.code == _STATUS_ERROR,
                        status.message,
                        [link.span_id.hex() for link in span.links],
                    )
                )
    return spans
