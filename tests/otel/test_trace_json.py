"""The OTLP/JSON writer (`otlp_json_writer`) gives, byte for byte, what the SDK's protobuf encoder and
`google.protobuf.json_format` give (the path it replaced, kept here only as the reference): on every
fixture run's export, with and without content, on other tracers' spans, and on every kind of value."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import (
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    TraceState,
    set_span_in_context,
)

import tests.otel.foreign
from inspector.otel.exporters import hex_ids, request_lines, run_spans
from inspector.recording import read_run

RUNS = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "runs").glob("*.jsonl"))


def reference_lines(spans: Sequence[ReadableSpan]) -> list[str]:
    """What `request_lines` wrote before: the SDK's encoder, `MessageToDict`, ids made hex."""
    by_trace: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        by_trace.setdefault(span.get_span_context().trace_id, []).append(span)  # pyright: ignore[reportOptionalMemberAccess]
    return [
        json.dumps(
            hex_ids(json_format.MessageToDict(encode_spans(group))), separators=(",", ":"), ensure_ascii=False
        )
        for group in by_trace.values()
    ]


@pytest.mark.parametrize("content", [False, True])
@pytest.mark.parametrize("run_file", RUNS, ids=[p.stem for p in RUNS])
def test_every_fixture_runs_export_is_the_json_format_bytes(run_file: Path, content: bool) -> None:
    spans = run_spans(read_run(run_file), content=content)
    assert request_lines(spans) == reference_lines(spans)


@pytest.mark.parametrize("make", [tests.otel.foreign.langgraph_trace, tests.otel.foreign.agents_sdk_trace])
def test_other_tracers_spans_are_the_json_format_bytes(
    make: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []

    def checked(spans: Sequence[ReadableSpan]) -> list[str]:
        lines = request_lines(spans)
        assert lines == reference_lines(spans)
        seen.append(len(spans))
        return lines

    monkeypatch.setattr(tests.otel.foreign, "request_lines", checked)
    make(tmp_path / "trace.json")
    assert seen and seen[0] > 3


def test_every_kind_of_value_is_the_json_format_bytes() -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource({"service.name": "x", "n": 3}, schema_url="https://r"))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("scope", "1.2", schema_url="https://s", attributes={"a": True})
    remote = SpanContext(
        0xABC,
        0xDEF,
        is_remote=True,
        trace_flags=TraceFlags(1),
        trace_state=TraceState([("k", "v"), ("l", "w")]),
    )
    values: dict[str, Any] = {
        "empty": "",
        "zero": 0,
        "false": False,
        "float": 1.0,
        "small": 1e-7,
        "big": 1e16,
        "nan": math.nan,
        "inf": math.inf,
        "ninf": -math.inf,
        "int64": (1 << 63) - 1,
        "past": 1 << 64,
        "text": 'é\u2028\x01"\\',
        "list": ["a", ""],
        "ints": [0, -1],
        "floats": [0.5, math.nan],
        "bools": [True, False],
        "none": [],
        "bytes": b"\x00\xff",
    }
    with tracer.start_as_current_span(
        "",
        kind=SpanKind.SERVER,
        context=set_span_in_context(NonRecordingSpan(remote)),
        links=[Link(remote, {"l": 1}), Link(SpanContext(1, 2, is_remote=False))],
        start_time=0,
        attributes=values,
    ) as span:
        span.add_event("e", values, timestamp=5)
        span.add_event("", {}, timestamp=0)
        span.set_status(Status(StatusCode.ERROR, "boom"))
    other = provider.get_tracer("other")
    for kind, status in ((SpanKind.CLIENT, StatusCode.OK), (SpanKind.PRODUCER, StatusCode.UNSET)):
        with other.start_as_current_span("s", kind=kind) as child:
            child.set_status(Status(status))
    with other.start_as_current_span(
        "c", kind=SpanKind.CONSUMER, context=set_span_in_context(NonRecordingSpan(remote))
    ):
        pass
    provider.shutdown()
    spans = memory.get_finished_spans()
    assert [s.name for s in spans] == ["", "s", "s", "c"]
    assert request_lines(spans) == reference_lines(spans)
