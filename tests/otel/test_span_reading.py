"""Reading spans out of OTLP: the JSON reader (msgspec structs of the wire form) gives exactly the spans
protobuf's own reading gives (`json_format.ParseDict`, then the messages walked), for every fixture
run's export and for each way a writer may spell a request: the JSON names or the proto names,
hex or base64 ids, numbers as numbers or strings, enums by name or number, `null` for unset. What the
mapping refuses is one paragraph naming the line and the field."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.proto.trace.v1.trace_pb2 import Status
from opentelemetry.sdk.trace import ReadableSpan

from inspector.cli import main
from inspector.otel.exporters import hex_ids, request_lines, run_spans
from inspector.recording import read_run
from inspector.sources.otlp import read_spans
from inspector.sources.otlp_json import from_json, read_json_line
from inspector.sources.spans import TraceSpan, from_proto

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
FIXTURE_RUNS = sorted(p.name for p in RUNS.glob("*.jsonl"))


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))


def _request(name: str) -> ExportTraceServiceRequest:
    """A fixture run's first trace as the exporter sends it, message content included."""
    spans = run_spans(read_run(RUNS / name), content=True)
    return encode_spans([s for s in spans if _trace_id(s) == _trace_id(spans[0])])


def _trace_id(span: ReadableSpan) -> int:
    context = span.get_span_context()
    assert context is not None
    return context.trace_id


def _json(request: ExportTraceServiceRequest, **options: Any) -> bytes:
    return json.dumps(json_format.MessageToDict(request, **options)).encode()


@pytest.mark.parametrize("name", FIXTURE_RUNS)
def test_every_fixture_export_reads_as_protobuf_reads_it(name: str, tmp_path: Path) -> None:
    run = read_run(RUNS / name)
    trace = tmp_path / "trace.json"
    trace.write_text("".join(line + "\n" for line in request_lines(run_spans(run, content=True))), "utf-8")
    by_protobuf: list[TraceSpan] = []
    for line in trace.read_bytes().splitlines():
        request = ExportTraceServiceRequest()
        json_format.Parse(_base64_line(line), request)
        by_protobuf.extend(from_proto(request))
    assert read_spans(trace) == by_protobuf
    assert len(by_protobuf) >= 3 and any(span.events for span in by_protobuf)


def _base64_line(line: bytes) -> bytes:
    """An OTLP/JSON line (hex ids) in the plain protobuf JSON mapping (base64 ids) `json_format` reads."""
    data = json.loads(line)
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for item in (span, *span.get("links", ())):
                    for field in ("traceId", "spanId", "parentSpanId"):
                        if item.get(field):
                            item[field] = _b64(bytes.fromhex(item[field]))
    return json.dumps(data).encode()


def _b64(raw: bytes) -> str:
    import base64

    return base64.b64encode(raw).decode()


def test_the_protobuf_form_and_the_json_form_read_the_same(tmp_path: Path) -> None:
    request = _request("approval.jsonl")
    dump = tmp_path / "trace.pb"
    dump.write_bytes(request.SerializeToString())
    expected = read_spans(dump)
    assert read_json_line(json.dumps(hex_ids(json_format.MessageToDict(request))).encode()) == expected
    assert read_json_line(_json(request)) == expected  # base64 ids, as the plain mapping writes them
    assert expected[0].trace_id == format(_trace_id(run_spans(read_run(RUNS / "approval.jsonl"))[0]), "032x")


def test_proto_field_names_and_nulls_read_as_the_json_names(tmp_path: Path) -> None:
    """Phoenix's span export writes `trace_id`, `start_time_unix_nano`, `string_value`, and `null` for
    every field it has no value for."""
    request = _request("weather.jsonl")
    data = json_format.MessageToDict(request, preserving_proto_field_name=True)
    for resource in data["resource_spans"]:
        for scope in resource["scope_spans"]:
            for span in scope["spans"]:
                span.update({"links": None, "trace_state": None, "dropped_events_count": None})
                span.setdefault("parent_span_id", None)
                for attribute in span.get("attributes", ()):
                    attribute["value"] = {"array_value": None, "bool_value": None, **attribute["value"]}
    assert "null" in json.dumps(data)
    assert read_json_line(json.dumps(data).encode()) == from_proto(request)


def _kv(key: str, value: AnyValue) -> KeyValue:
    return KeyValue(key=key, value=value)


def test_every_kind_of_attribute_value() -> None:
    request = ExportTraceServiceRequest()
    span = (
        request.resource_spans.add()
        .scope_spans.add()
        .spans.add(
            trace_id=bytes(range(16)), span_id=bytes(range(8)), name="s", start_time_unix_nano=(1 << 64) - 1
        )
    )
    span.status.code = Status.STATUS_CODE_ERROR
    span.status.message = "boom"
    span.attributes.extend(
        [
            _kv("s", AnyValue(string_value="é")),
            _kv("b", AnyValue(bool_value=False)),
            _kv("i", AnyValue(int_value=-(1 << 63))),
            _kv("d", AnyValue(double_value=0.25)),
            _kv("nan", AnyValue(double_value=math.inf)),
            _kv("bytes", AnyValue(bytes_value=b"\x00\xff")),
            _kv("a", AnyValue(array_value=ArrayValue(values=[AnyValue(int_value=1), AnyValue()]))),
            _kv("kv", AnyValue(kvlist_value=KeyValueList(values=[_kv("x", AnyValue(string_value="y"))]))),
            _kv("empty", AnyValue()),
        ]
    )
    span.events.add(name="e", time_unix_nano=5).attributes.append(_kv("n", AnyValue(int_value=7)))
    span.links.add(span_id=bytes([9] * 8))
    (read,) = from_proto(request)
    assert read.attributes == {
        "s": "é",
        "b": False,
        "i": -(1 << 63),
        "d": 0.25,
        "nan": math.inf,
        "bytes": "00ff",
        "a": [1, None],
        "kv": {"x": "y"},
        "empty": None,
    }
    assert (read.error, read.status_message, read.links, read.start) == (
        True,
        "boom",
        ["09" * 8],
        (1 << 64) - 1,
    )
    assert read.events[0].attributes == {"n": 7}
    assert read_json_line(_json(request)) == [read]
    assert read_json_line(_json(request, use_integers_for_enums=True)) == [read]
    numbers = json.loads(_json(request))
    numbers["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"][2]["value"] = {
        "intValue": -(1 << 63)
    }
    assert from_json(numbers) == [read]


@pytest.mark.parametrize(
    ("span", "said"),
    [
        (
            {"startTimeUnixNano": "99999999999999999999"},
            "startTimeUnixNano 99999999999999999999 is past the 64 bits",
        ),
        (
            {"endTimeUnixNano": -1},
            "Expected `int` >= 0 - at `$.resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano`",
        ),
        (
            {"name": 5},
            "Expected `str | null`, got `int` - at `$.resourceSpans[0].scopeSpans[0].spans[0].name`",
        ),
        ({"spanId": "not an id!"}, "spanId 'not an id!' is neither hex nor base64"),
        ({"attributes": {"key": "k"}}, "Expected `array | null`, got `object`"),
        ({"attributes": [{"key": "k", "value": {"intValue": "x"}}]}, "intValue"),
    ],
)
def test_what_the_mapping_refuses_is_one_paragraph_naming_the_field(
    span: dict[str, Any], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n", "utf-8")
    assert main(["show", str(trace)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith(f"inspector: error: {trace}:1: not an OTLP JSON trace line") and said in err
    assert "Traceback" not in err


def test_an_attribute_nested_past_any_limit_is_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    depth = 100_000
    value = '{"arrayValue":{"values":[' * depth + "]}}" * depth
    span = f'{{"name":"deep","attributes":[{{"key":"k","value":{value}}}]}}'
    trace = tmp_path / "trace.json"
    trace.write_text(f'{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{span}]}}]}}]}}\n', "utf-8")
    assert main(["show", str(trace)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{trace}:1: not an OTLP JSON trace line" in err and "Traceback" not in err


def test_text_that_is_no_utf8_opens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lone surrogate escaped in the JSON (which msgspec refuses and `json` reads) stays what it is."""
    line = json.loads(request_lines(run_spans(read_run(RUNS / "weather.jsonl")))[0])
    spans = line["resourceSpans"][0]["scopeSpans"][0]["spans"]
    tool = next(s for s in spans if s["name"].startswith("execute_tool"))
    tool["attributes"].append({"key": "odd", "value": {"stringValue": "\ud800"}})
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(line) + "\n", "utf-8")  # ensure_ascii: written as the escape
    assert (
        next(s for s in read_spans(trace) if s.name.startswith("execute_tool")).attributes["odd"] == "\ud800"
    )
    assert main(["show", str(trace)]) == 0
    assert "tool get_weather" in capsys.readouterr().out


def test_reading_a_json_trace_imports_no_protobuf(tmp_path: Path) -> None:
    """The JSON form is read without protobuf (whose import and reflection cost start-up and a
    millisecond a span): only a protobuf dump needs it."""
    trace = tmp_path / "trace.json"
    trace.write_text(
        "".join(line + "\n" for line in request_lines(run_spans(read_run(RUNS / "weather.jsonl"))))
    )
    code = (
        "import sys; from inspector.cli import main; main(['show', sys.argv[1]]); "
        "print(sorted(m for m in sys.modules if m.startswith(('google.protobuf', 'opentelemetry.proto'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(trace)], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out.splitlines()[-1] == "[]"
