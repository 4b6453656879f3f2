"""What live export may cost the run it sends: its threads give the GIL back to the run's after each
span (mapping and encoding), the copies the batch processor encodes are the same bytes, a long run
file is not read again on every poll, and with `OTEL_SDK_DISABLED=true` or without `--otlp` nothing
of it runs or loads."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from inspector.otel import follower
from inspector.otel.courtesy import Courtesy
from inspector.otel.exporters import GivingWay, OtlpSink, run_spans
from inspector.otel.follower import LiveExport
from inspector.otel.ids import KeyedIds
from inspector.otel.mapping import Mapper
from inspector.recording import read_run
from tests.otel.receiver import otlp_receiver

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"


@pytest.mark.parametrize("name", ["weather", "approval", "langgraph_runaway", "parallel"])
def test_the_copies_the_batch_processor_encodes_are_the_same_bytes(name: str) -> None:
    spans = run_spans(read_run(RUNS / f"{name}.jsonl"))
    assert any(span.events for span in spans)
    copies: list[ReadableSpan] = [GivingWay(span, Courtesy()) for span in spans]
    assert encode_spans(copies).SerializeToString() == encode_spans(spans).SerializeToString()


@pytest.fixture
def long_switch_interval() -> Iterator[None]:
    """CPython hands the GIL to a waiting thread after this interval unless the holder lets go first:
    one second makes a holder that never lets go plain to see."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _turns_while(work: threading.Thread) -> int:
    """How many times this thread got the GIL back from a 0.5 ms sleep while `work` ran."""
    turns = 0
    work.start()
    while work.is_alive():
        time.sleep(0.0005)
        turns += 1
    return turns


def _spans(copies: int) -> list[ReadableSpan]:
    spans = run_spans(read_run(RUNS / "weather.jsonl"))
    return [span for _ in range(copies) for span in spans]


@pytest.mark.usefixtures("long_switch_interval")
def test_the_batch_encoder_lets_the_run_thread_in_between_spans() -> None:
    spans = _spans(60)  # about 400 spans: a tenth of a second of encoding or more
    holding = _turns_while(threading.Thread(target=encode_spans, args=(spans,)))
    copies: list[ReadableSpan] = [GivingWay(span, Courtesy()) for span in spans]
    giving_way = _turns_while(threading.Thread(target=encode_spans, args=(copies,)))
    # The SDK's spans: the run's thread waits for the whole batch (or another thread's wake-up).
    assert giving_way >= 10 * max(holding, 2)


@pytest.mark.usefixtures("long_switch_interval")
def test_the_mapping_lets_the_run_thread_in_between_spans() -> None:
    from opentelemetry.sdk.trace import TracerProvider

    run = read_run(RUNS / "weather.jsonl")
    tracer = TracerProvider().get_tracer("test")

    def map_many(pause: Callable[[], None] | None) -> None:
        for _ in range(60):
            mapper = Mapper(run, tracer, KeyedIds(run.run_id), pause=pause)
            for segment in run.segments:
                mapper.segment(segment)

    holding = _turns_while(threading.Thread(target=map_many, args=(None,)))
    giving_way = _turns_while(threading.Thread(target=map_many, args=(Courtesy(),)))
    assert giving_way >= 10 * max(holding, 2)


def test_a_growing_run_file_is_read_again_after_a_multiple_of_the_last_read(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes((RUNS / "weather.jsonl").read_bytes())
    ticks = iter([10.0, 10.25])  # the read takes a quarter of a second
    sink = OtlpSink(exporter=InMemorySpanExporter())
    live = LiveExport(path, sink, poll=0.02, clock=lambda: next(ticks))
    assert live.interval == 0.02
    live._read()  # pyright: ignore[reportPrivateUsage]
    assert live.interval == pytest.approx(follower.READ_EVERY * 0.25)
    assert sink.close() is None


def test_with_the_sdk_disabled_the_recorder_only_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    with otlp_receiver() as received:
        before = set(threading.enumerate())
        sink = OtlpRecorder(received.url, path=tmp_path / "run.jsonl")
        assert sink.live is None and sink.sink is None
        build_agent().invoke([Message.user(QUESTION)], callbacks=[sink])
        started = {t.name for t in set(threading.enumerate()) - before}
        assert not {name for name in started if name.startswith(("inspector-otlp", "OtelBatch"))}
        assert sink.shutdown() is None
    assert received.requests == []
    assert read_run(tmp_path / "run.jsonl").status == "ok"


def test_the_debugger_s_follower_does_nothing_with_the_sdk_disabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    path = tmp_path / "run.jsonl"
    path.write_bytes((RUNS / "weather.jsonl").read_bytes())
    sink = OtlpSink(exporter=InMemorySpanExporter())
    live = LiveExport(path, sink)
    live.start()
    assert not live.started
    live.stop()
    assert sink.ended == 0
    assert sink.close() is None


def test_record_without_otlp_loads_nothing_of_opentelemetry() -> None:
    code = (
        "import sys, inspector.cli, inspector.cli.record, inspector.recording\n"
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'inspector.otel'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_courtesy_lets_go_after_holding_long_enough_and_only_while_a_run_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from inspector.otel import courtesy as module

    now = [0.0]
    sleeps: list[float] = []
    monkeypatch.setattr(module.time, "perf_counter", lambda: now[0])
    monkeypatch.setattr(module.time, "sleep", sleeps.append)
    give = Courtesy(every=0.001)
    now[0] = 0.0005
    give()
    assert sleeps == []  # held for half the time: goes on
    now[0] = 0.0012
    give()
    assert sleeps == [0]
    now[0] = 0.0015
    give()
    assert sleeps == [0]  # counted from the last release
    give.active = False
    now[0] = 1.0
    give()
    assert sleeps == [0]


def test_stopping_the_export_and_closing_the_sink_end_their_courtesy(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes((RUNS / "weather.jsonl").read_bytes())
    sink = OtlpSink(exporter=InMemorySpanExporter())
    live = LiveExport(path, sink)
    live.start()
    assert live.courtesy.active and sink.courtesy.active
    live.stop()
    assert not live.courtesy.active
    assert sink.close() is None
    assert not sink.courtesy.active
    assert sink.ended == 7


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


@contextmanager
def _slow_backend(seconds: float) -> Iterator[str]:
    """An OTLP/HTTP endpoint that takes `seconds` to answer each request."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            time.sleep(seconds)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_slow_backend_never_holds_up_the_run_and_the_dropped_spans_are_counted(tmp_path: Path) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    agent = build_agent()
    with _slow_backend(5.0) as url:
        sink = OtlpSink(url, timeout=0.5, max_queue_size=2)  # a queue of two: the rest is dropped
        recorder = OtlpRecorder(path=tmp_path / "run.jsonl", sink=sink)
        started = time.monotonic()
        agent.invoke([Message.user(QUESTION)], callbacks=[recorder])
        assert time.monotonic() - started < 4  # a request waits 5 s: the run did not
        assert recorder.shutdown() is None  # the shared sink reports when it is closed
        warning = sink.close()
        assert time.monotonic() - started < 30
    assert warning is not None
    assert "of 7 spans were not delivered" in warning
    assert "\n" not in warning
