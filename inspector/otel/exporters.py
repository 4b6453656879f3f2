"""Where a run's spans go: an OTLP JSON file, or an OTLP/HTTP endpoint; the SDK does the wire work.

`write_trace_file` writes what the OpenTelemetry Collector's file exporter writes: one JSON object per
line, each an `ExportTraceServiceRequest` (one per trace) in the protobuf JSON mapping with the ids as
the hex strings OTLP/JSON asks for, written straight from the spans (`otlp_json_writer`: the bytes the
SDK's encoder and `google.protobuf.json_format` gave, in linear time). `send_run` hands the spans to
a `BatchSpanProcessor` over the SDK's `OTLPSpanExporter`, which reads `OTEL_EXPORTER_OTLP_ENDPOINT` and
`OTEL_EXPORTER_OTLP_HEADERS` when no URL is given. `OtlpSink` is the provider, processor and
exporter set up once, with the counts needed to say at the end what did not arrive: `inspector export
--otlp` uses it in its own process, a live export in its child process (`inspector.otel.child`).
"""

from __future__ import annotations

import base64
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

from inspector.otel.child_protocol import export_timeout, sdk_disabled, undelivered
from inspector.otel.ids import KeyedIds
from inspector.otel.mapping import capture_content, emit_run
from inspector.otel.names import SCHEMA_URL
from inspector.otel.otlp_json_writer import request_lines
from inspector.recording.reader import Run

__all__ = [
    "OtlpSink",
    "hex_ids",
    "request_lines",
    "run_spans",
    "sdk_disabled",
    "send_run",
    "traces_url",
    "write_trace_file",
]

SCOPE = "graph-inspector"
RESOURCE = Resource({"service.name": "graph-inspector", "telemetry.sdk.language": "python"})
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")
_EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.http",
    "opentelemetry.sdk._shared_internal",
    "opentelemetry.sdk.trace.export",
)


def _provider(processor: SpanProcessor, ids: IdGenerator | None = None) -> TracerProvider:
    # A run's root span carries an event per step, branch decision and state change: no event cap.
    limits = SpanLimits(max_events=SpanLimits.UNSET)
    provider = TracerProvider(resource=RESOURCE, id_generator=ids, span_limits=limits, shutdown_on_exit=False)
    provider.add_span_processor(processor)
    return provider


def run_spans(run: Run, *, content: bool | None = None) -> list[ReadableSpan]:
    """The spans of `run`, with the ids and times taken from the recording."""
    memory = InMemorySpanExporter()
    ids = KeyedIds(run.run_id)
    provider = _provider(SimpleSpanProcessor(memory), ids)
    tracer = provider.get_tracer(SCOPE, schema_url=SCHEMA_URL)
    emit_run(run, tracer, ids, content=capture_content() if content is None else content)
    provider.shutdown()
    return list(memory.get_finished_spans())


def hex_ids(data: Any) -> Any:
    """The protobuf JSON mapping writes bytes as base64; OTLP/JSON writes trace and span ids as hex
    (for a request made into a dict by `json_format.MessageToDict`)."""
    for resource in data.get("resourceSpans", ()):
        for scope in resource.get("scopeSpans", ()):
            for span in scope.get("spans", ()):
                _recode(span, _to_hex)
                for link in span.get("links", ()):
                    _recode(link, _to_hex)
    return data


def _recode(item: dict[str, Any], how: Any) -> None:
    for field in _ID_FIELDS:
        if item.get(field):
            item[field] = how(item[field])


def _to_hex(value: str) -> str:
    return base64.b64decode(value).hex()


def write_trace_file(run: Run, path: str | Path, *, content: bool | None = None) -> int:
    """Write `run` to `path` as OTLP JSON; returns the number of spans."""
    spans = run_spans(run, content=content)
    text = "".join(line + "\n" for line in request_lines(spans))
    Path(path).write_text(text, encoding="utf-8")
    return len(spans)


def traces_url(url: str | None) -> str | None:
    """The traces endpoint for `--otlp URL`: a bare collector address gets `/v1/traces` (as the SDK
    does for `OTEL_EXPORTER_OTLP_ENDPOINT`); None leaves it to the SDK's environment variables."""
    if not url:
        return None
    return url if url.rstrip("/").endswith("/v1/traces") else url.rstrip("/") + "/v1/traces"


class _Counting(SpanExporter):
    """The OTLP exporter, counting what it got through and keeping its first failure's message
    (reported once at the end, instead of the SDK's log line per batch)."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.sent = 0
        self.failed = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception:
            result = SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            self.sent += len(spans)
        else:
            self.failed += len(spans)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class _Failures(logging.Handler):
    """The exporter's and processor's log lines, kept (the first) instead of printed per batch."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.first: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.first is None:
            self.first = " ".join(record.getMessage().split())[:300]


class OtlpSink:
    """A `TracerProvider` sending over OTLP/HTTP through a bounded `BatchSpanProcessor`.

    `url` None takes the endpoint from `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`; `headers` None takes
    them from `OTEL_EXPORTER_OTLP_HEADERS`. `timeout` bounds each export (retries included) and the
    final flush, so a backend that is down costs at most that, once, at the end. Spans past
    `max_queue_size` waiting to be sent are dropped (and counted), never waited for."""

    def __init__(
        self,
        url: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
        max_queue_size: int = 8192,
        exporter: SpanExporter | None = None,
    ) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        if timeout is None:
            timeout = export_timeout()
        self.timeout = timeout
        self.url = traces_url(url)
        inner = exporter or OTLPSpanExporter(endpoint=self.url, headers=headers, timeout=timeout)
        self.exporter = _Counting(inner)
        self.processor = BatchSpanProcessor(
            self.exporter,
            max_queue_size=max_queue_size,
            max_export_batch_size=min(512, max_queue_size),
            schedule_delay_millis=200,
            export_timeout_millis=timeout * 1000,
        )
        self.ended = 0
        self._failures = _Failures()
        for name in _EXPORTER_LOGGERS:
            logger = logging.getLogger(name)
            logger.addHandler(self._failures)
            logger.propagate = False
        self._closed = False

    @property
    def where(self) -> str:
        """The endpoint, as a warning names it."""
        return (
            self.url
            or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "the default OTLP endpoint")
        )

    @property
    def sent(self) -> int:
        """Spans the backend took."""
        return self.exporter.sent

    @property
    def failure(self) -> str | None:
        """The exporter's first complaint (a 4xx, a refused connection), said once."""
        return self._failures.first

    def provider(self, ids: IdGenerator | None = None) -> TracerProvider:
        return _provider(_Handoff(self), ids)

    def close(self) -> str | None:
        """Flush (bounded by the timeout) and stop; the one warning line to print, if any."""
        if self._closed:
            return None
        self._closed = True
        self.processor.force_flush(int(self.timeout * 1000))
        self.processor.shutdown()
        for name in _EXPORTER_LOGGERS:
            logger = logging.getLogger(name)
            logger.removeHandler(self._failures)
            logger.propagate = True
        dropped = self.ended - self.exporter.sent
        if dropped <= 0:
            return None
        return undelivered(self.where, dropped, self.ended, self._failures.first)


class _Handoff(SpanProcessor):
    """Hands each ended span to the sink's batch processor, counting them so `close` can say how
    many never arrived (queue full or failed)."""

    def __init__(self, sink: OtlpSink) -> None:
        self.sink = sink

    def on_end(self, span: ReadableSpan) -> None:
        self.sink.ended += 1
        self.sink.processor.on_end(span)


def send_run(
    run: Run, url: str | None, *, timeout: float | None = None, content: bool | None = None
) -> tuple[int, str | None]:
    """Send `run` as its traces to `url` over OTLP/HTTP (protobuf): (spans, warning or None)."""
    sink = OtlpSink(url, timeout=timeout)
    ids = KeyedIds(run.run_id)
    provider = sink.provider(ids)
    emit_run(
        run,
        provider.get_tracer(SCOPE, schema_url=SCHEMA_URL),
        ids,
        content=capture_content() if content is None else content,
    )
    warning = sink.close()
    return sink.ended, warning
