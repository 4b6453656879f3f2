"""OpenTelemetry: what live export costs a run, and how `export` and `show` of a trace grow.

Issue 31's targets, each measured in one run so the machine's load hits both sides alike:
(a) a 100-round ReAct run recorded with live OTLP export (`OtlpRecorder`, to a loopback OTLP/HTTP
    server that takes every request) against the same run recorded without it, at 1 ms per model call:
    at most 1.10x (best of alternating repeats; the export's own thread and the batch processor's
    compete for the CPU, the run's thread never waits on them). Without `--otlp` nothing of it is
    built: `record` makes the plain `Recorder`, so the disabled cost is the recording's own;
(b) `export -o` of a 1,000-round and a 10,000-round recording: linear (the 10x run within 12x);
(c) `inspector show` of their OTLP JSON, whole process (`python -m inspector show`, the conversion
    to a cached run file included; its CPU time): linear, and a trace of about 10,000 spans in at
    most 2 s.
(b) and (c) are CPU times: on a shared machine the wall clock of a child process mostly measures the
other processes.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench.bench_recording import _agent  # pyright: ignore[reportPrivateUsage]
from graph_core.schema import Message
from inspector.otel.exporters import write_trace_file
from inspector.otel.live import OtlpRecorder
from inspector.recording import Recorder, read_run

LIVE_TARGET = 1.10
LINEAR_TARGET = 12.0
SHOW_TARGET_S = 2.0
# The sizes; smaller ones for a quick look: BENCH_OTEL_ROUNDS=100,1000 BENCH_OTEL_SPAN_ROUNDS=250
ROUNDS = tuple(int(n) for n in os.environ.get("BENCH_OTEL_ROUNDS", "1000,10000").split(","))
SPANS_ROUNDS = int(os.environ.get("BENCH_OTEL_SPAN_ROUNDS", "2500"))  # 4 spans a round: about 10,000


@contextmanager
def _collector() -> Iterator[str]:
    """A loopback OTLP/HTTP endpoint that reads each request and answers 200, as a collector does."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _best(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Best wall time of each, over alternating repeats."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeats):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def _live(tmp: Path) -> None:
    repeats = int(os.environ.get("BENCH_LATENCY_REPEATS", "7"))
    agent = _agent(100, latency=0.001)
    flush: list[float] = []
    with _collector() as url:

        def exported() -> None:
            sink = OtlpRecorder(url, path=tmp / "live.jsonl", timeout=10)
            agent.invoke([Message.user("go")], callbacks=[sink])
            start = time.perf_counter()
            warning = sink.shutdown()
            flush.append(time.perf_counter() - start)
            assert warning is None, warning

        best = _best(
            {
                "recorded": lambda: agent.invoke(
                    [Message.user("go")], callbacks=[Recorder(tmp / "plain.jsonl")]
                ),
                "exported": exported,
            },
            repeats,
        )
    run_s = best["exported"] - min(flush)
    ratio = run_s / best["recorded"]
    verdict = "OK" if ratio <= LIVE_TARGET else "MISSED"
    print(
        f"  (a) 100 rounds at 1 ms per model call: recorded {best['recorded'] * 1e3:.1f} ms, recorded and "
        f"exported live {run_s * 1e3:.1f} ms (+ {min(flush) * 1e3:.0f} ms to send the rest after the run) -> "
        f"{ratio:.2f}x (target <= {LIVE_TARGET}x) {verdict}"
    )


def _recording(tmp: Path, rounds: int) -> Path:
    path = tmp / f"run-{rounds}.jsonl"
    _agent(rounds).invoke([Message.user("go")], callbacks=[Recorder(path)])
    return path


def _show_seconds(trace: Path, cache: Path) -> float:
    """Whole-process `inspector show` of `trace`, converted afresh (an empty cache folder): the child's
    CPU time (user and system), which other processes on a loaded machine do not inflate as they do
    its wall time."""
    env = {**os.environ, "INSPECTOR_CACHE_DIR": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "inspector", "show", str(trace)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _files(tmp: Path) -> None:
    export_s: dict[int, float] = {}
    show_s: dict[int, float] = {}
    for rounds in ROUNDS:
        run = read_run(_recording(tmp, rounds))
        trace = tmp / f"trace-{rounds}.json"
        start = time.process_time()
        spans = write_trace_file(run, trace)
        export_s[rounds] = time.process_time() - start
        show_s[rounds] = min(_show_seconds(trace, tmp / f"cache-{rounds}-{i}") for i in range(2))
        print(
            f"  {rounds:>6,} rounds: export -o {export_s[rounds]:.2f} s CPU ({spans:,} spans, "
            f"{trace.stat().st_size / 1e6:.1f} MB); show of the trace {show_s[rounds]:.2f} s CPU"
        )
    small, big = ROUNDS
    for what, times in (("(b) export", export_s), ("(c) show", show_s)):
        ratio = times[big] / times[small]
        verdict = "OK" if ratio <= LINEAR_TARGET * big / small / 10 else "MISSED"
        target = LINEAR_TARGET * big / small / 10
        print(f"  {what}: {big:,}/{small:,} rounds {ratio:.1f}x (target <= {target:g}x) {verdict}")
    run = read_run(_recording(tmp, SPANS_ROUNDS))
    trace = tmp / "trace-10k-spans.json"
    spans = write_trace_file(run, trace)
    seconds = min(_show_seconds(trace, tmp / f"cache-spans-{i}") for i in range(3))
    verdict = "OK" if seconds <= SHOW_TARGET_S else "MISSED"
    print(
        f"  (c) show of a {spans:,}-span trace: {seconds:.2f} s CPU (target <= {SHOW_TARGET_S:g} s) {verdict}"
    )


def run() -> None:
    print(f"  load: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        _live(Path(tmp))
        _files(Path(tmp))


if __name__ == "__main__":
    run()
