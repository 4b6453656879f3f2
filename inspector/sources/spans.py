"""Spans as the trace readers use them: plain values out of `opentelemetry-proto` messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

__all__ = ["SpanEvent", "TraceSpan", "from_proto"]


@dataclass
class SpanEvent:
    name: str
    time: int
    attributes: dict[str, Any]


@dataclass
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
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind) if kind else None


def _attributes(items: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        assert isinstance(item, KeyValue)
        out[item.key] = _value(item.value)
    return out


def from_proto(request: ExportTraceServiceRequest) -> list[TraceSpan]:
    spans: list[TraceSpan] = []
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            for span in scope.spans:
                spans.append(
                    TraceSpan(
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        name=span.name,
                        start=span.start_time_unix_nano,
                        end=span.end_time_unix_nano,
                        attributes=_attributes(span.attributes),
                        events=[
                            SpanEvent(e.name, e.time_unix_nano, _attributes(e.attributes))
                            for e in span.events
                        ],
                        error=span.status.code == 2,
                        status_message=span.status.message,
                        links=[link.span_id.hex() for link in span.links],
                    )
                )
    return spans
