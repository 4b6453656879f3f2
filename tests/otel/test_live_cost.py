"""What live export may cost the run it sends: the run's process loads nothing of OpenTelemetry (the
export is a child process's), the child sends byte for byte what `export` makes of the file, a long
run file is not read again on every poll, and with `OTEL_SDK_DISABLED=true` or without `--otlp`
nothing of it runs or loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from inspector.otel import follower
from inspector.otel.exporters import OtlpSink, run_spans
from inspector.otel.follower import LiveExport
from inspector.otel.ids import trace_id_of
from inspector.recording import read_run
from tests.otel.receiver import otlp_receiver

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "fixtures" / "runs"


def _python(code: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_growing_run_file_is_read_again_after_a_multiple_of_the_last_read(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes((RUNS / "weather.jsonl").read_bytes())
    ticks = iter([10.0, 10.25, 11.0, 11.0])  # the first read takes a quarter of a second
    sink = OtlpSink(exporter=InMemorySpanExporter())
    live = LiveExport(path, sink, poll=0.02, clock=lambda: next(ticks))
    assert live.interval == 0.02
    live.read()
    assert live.interval == pytest.approx(follower.READ_EVERY * 0.25)
    live.read()  # the same size: not read again (the clock would run out)
    live.finish()
    assert sink.close() is None
    assert sink.ended == 7


def test_segments_there_before_the_run_began_are_not_sent_again(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes((RUNS / "approval.jsonl").read_bytes())
    memory = InMemorySpanExporter()
    sink = OtlpSink(exporter=memory)
    live = LiveExport(path, sink, skip=1)
    live.finish()
    assert sink.close() is None
    run = read_run(path)
    expected = {_ids(s) for s in run_spans(run) if _ids(s)[0] == trace_id_of(run.run_id, 1)}
    assert {_ids(s) for s in memory.get_finished_spans()} == expected
    assert expected


def _ids(span: ReadableSpan) -> tuple[int, int]:
    context = span.get_span_context()
    assert context is not None
    return context.trace_id, context.span_id


def test_with_the_sdk_disabled_the_recorder_starts_no_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel import child_process
    from inspector.otel.live import OtlpRecorder

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("a child process was started")

    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    monkeypatch.setattr(child_process.subprocess, "Popen", no_process)
    with otlp_receiver() as received:
        sink = OtlpRecorder(received.url, path=tmp_path / "run.jsonl")
        assert sink.live is None
        build_agent().invoke([Message.user(QUESTION)], callbacks=[sink])
        assert sink.shutdown() is None
    assert received.requests == []
    assert read_run(tmp_path / "run.jsonl").status == "ok"


def test_the_debugger_starts_no_export_with_the_sdk_disabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.cli.debug import _live_export  # pyright: ignore[reportPrivateUsage]

    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert _live_export("http://127.0.0.1:9", tmp_path / "run.jsonl") is None


def test_record_without_otlp_loads_nothing_of_opentelemetry() -> None:
    code = (
        "import sys, inspector.cli, inspector.cli.record, inspector.recording\n"
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'inspector.otel'))))"
    )
    assert _python(code) == "[]"


def test_a_live_run_s_own_process_loads_nothing_of_opentelemetry(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from fixtures.weather import QUESTION, build_agent\n"
        "from graph_core.schema import Message\n"
        "from inspector.otel.live import OtlpRecorder\n"
        "sink = OtlpRecorder(sys.argv[1], path=sys.argv[2])\n"
        "build_agent().invoke([Message.user(QUESTION)], callbacks=[sink])\n"
        "assert sink.shutdown() is None\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    with otlp_receiver() as received:
        assert _python(code, received.url, str(tmp_path / "run.jsonl")) == "[]"
    assert len(received.spans) == 7  # sent all the same: by the child


def test_a_live_run_sends_byte_for_byte_the_spans_export_makes_of_its_file(tmp_path: Path) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    out = tmp_path / "run.jsonl"
    with otlp_receiver() as received:
        sink = OtlpRecorder(received.url, path=out)
        build_agent().invoke([Message.user(QUESTION)], callbacks=[sink])
        assert sink.shutdown() is None
    request = encode_spans(run_spans(read_run(out)))
    exported = {
        span.span_id: span.SerializeToString()
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    }
    assert {span.span_id: span.SerializeToString() for span in received.spans} == exported
