"""OpenTelemetry: what live export costs a run, and how `export` and `show` of a trace grow.

Issue 31's targets, each measured in one run so the machine's load hits both sides alike:
(a) a 100-round ReAct run recorded with live OTLP export (`OtlpRecorder`, to a loopback OTLP/HTTP
    collector in a process of its own) against the same run recorded without it, at 1 ms per model
    call: at most 1.10x wall (best of alternating repeats). The export runs in a child process
    (`inspector.otel.child`), so the run's process only records: its wall time and its CPU time
    (the run's thread and the whole process) are compared; what is left to send after the run
    (`shutdown`) and the child's CPU time are printed too. Disabled: `OtlpRecorder` under
    `OTEL_SDK_DISABLED=true` against the plain recording (nothing measurable), and `inspector record`
    without `--otlp` loads nothing of OpenTelemetry;
(b) `export -o` of a 1,000-round and a 10,000-round recording: linear (the 10x run within 12x);
(c) `inspector show` of their OTLP JSON, whole process (`python -m inspector show`, the conversion
    to a cached run file included; its CPU time): linear, and a trace of about 10,000 spans in at
    most 2 s.
(b) and (c) are CPU times: on a shared machine the wall clock of a child process mostly measures the
other processes.
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.bench_recording import _agent  # pyright: ignore[reportPrivateUsage]
from graph_core.agents.react import ReActAgent
from graph_core.schema import Message
from inspector.otel.exporters import write_trace_file
from inspector.otel.live import OtlpRecorder
from inspector.recording import Recorder, read_run

LIVE_TARGET = 1.10
LINEAR_TARGET = 12.0
SHOW_TARGET_S = 2.0
# The sizes; smaller ones for a quick look: BENCH_OTEL_ROUNDS=100,1000 BENCH_OTEL_SPAN_ROUNDS=250
ROUNDS = tuple(int(n) for n in os.environ.get("BENCH_OTEL_ROUNDS", "1000,10000").split(","))
LIVE_ROUNDS = int(os.environ.get("BENCH_OTEL_LIVE_ROUNDS", "100"))
LONG_ROUNDS = int(os.environ.get("BENCH_OTEL_LONG_ROUNDS", "1000"))  # 0: left out
SPANS_ROUNDS = int(os.environ.get("BENCH_OTEL_SPAN_ROUNDS", "2500"))  # 4 spans a round: about 10,000


_COLLECTOR = """
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


@contextmanager
def _collector() -> Iterator[str]:
    """A loopback OTLP/HTTP endpoint that reads each request and answers 200, as a collector does: in
    a process of its own, as a collector is, so its parsing does not take the run's GIL."""
    child = subprocess.Popen([sys.executable, "-c", _COLLECTOR], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield f"http://127.0.0.1:{int(child.stdout.readline())}"
    finally:
        child.terminate()
        child.wait(10)


@dataclass
class _Timed:
    """The best of a few runs of one way of recording: the run's wall time, its thread's and its
    process's CPU time, and for live export the flush after it (`shutdown`) and the export child's
    CPU time (its start-up included)."""

    wall: float = float("inf")
    thread_cpu: float = float("inf")
    process_cpu: float = float("inf")
    flush: float = float("inf")
    child_cpu: float = float("inf")

    def add(self, wall: float, thread_cpu: float, process_cpu: float, flush: float, child_cpu: float) -> None:
        self.wall = min(self.wall, wall)
        self.thread_cpu = min(self.thread_cpu, thread_cpu)
        self.process_cpu = min(self.process_cpu, process_cpu)
        self.flush = min(self.flush, flush)
        self.child_cpu = min(self.child_cpu, child_cpu)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(agent: ReActAgent, make: Callable[[], Recorder], timed: _Timed) -> None:
    gc.collect()  # the garbage of the run before is not this one's to collect
    children = _children_cpu()
    recorder = make()  # (an `OtlpRecorder` starts its child here: the run's set-up, not the run)
    cpu_start = time.process_time()
    thread_start = time.thread_time()
    start = time.perf_counter()
    agent.invoke([Message.user("go")], callbacks=[recorder])
    wall = time.perf_counter() - start
    thread_cpu = time.thread_time() - thread_start
    process_cpu = time.process_time() - cpu_start
    start = time.perf_counter()
    warning = recorder.shutdown() if isinstance(recorder, OtlpRecorder) else None
    flush = time.perf_counter() - start
    assert warning is None, warning
    timed.add(wall, thread_cpu, process_cpu, flush, _children_cpu() - children)


@contextmanager
def _sdk_disabled() -> Iterator[None]:
    os.environ["OTEL_SDK_DISABLED"] = "true"
    try:
        yield
    finally:
        del os.environ["OTEL_SDK_DISABLED"]


def _otel_imported_without_otlp() -> bool:
    """Whether `inspector record` without `--otlp` loads anything of OpenTelemetry (it should not)."""
    code = (
        "import sys, inspector.cli, inspector.cli.record\n"
        "print(any(m.startswith('opentelemetry') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip() == "True"


def _compare(tmp: Path, url: str, rounds: int, repeats: int) -> tuple[_Timed, _Timed, _Timed]:
    """Plain recording, `OtlpRecorder` with the SDK disabled, and live export, alternating."""
    agent = _agent(rounds, latency=0.001)
    plain, disabled, exported = _Timed(), _Timed(), _Timed()
    for _ in range(repeats):  # alternating, so the machine's load hits each alike
        _timed(agent, lambda: Recorder(tmp / "plain.jsonl"), plain)
        with _sdk_disabled():
            _timed(agent, lambda: OtlpRecorder(url, path=tmp / "disabled.jsonl"), disabled)
        _timed(agent, lambda: OtlpRecorder(url, path=tmp / "live.jsonl", timeout=60), exported)
    return plain, disabled, exported


def _report(label: str, plain: _Timed, exported: _Timed) -> None:
    ratio = exported.wall / plain.wall
    cpu = exported.thread_cpu / plain.thread_cpu
    process = exported.process_cpu / plain.process_cpu
    verdict = "OK" if ratio <= LIVE_TARGET else "MISSED"
    print(
        f"  (a) {label}: recorded {plain.wall * 1e3:.0f} ms "
        f"(run thread {plain.thread_cpu * 1e3:.0f} ms CPU), "
        f"exported live {exported.wall * 1e3:.0f} ms ({exported.thread_cpu * 1e3:.0f} ms CPU) -> "
        f"{ratio:.2f}x wall, {cpu:.2f}x run thread CPU, {process:.2f}x run process CPU "
        f"(target <= {LIVE_TARGET}x wall) {verdict}"
    )
    print(
        f"      then {exported.flush * 1e3:.0f} ms to send the rest (shutdown: run and flush "
        f"{(exported.wall + exported.flush) / plain.wall:.2f}x); the export child: "
        f"{exported.child_cpu * 1e3:.0f} ms CPU, its start-up included"
    )


def _live(tmp: Path) -> None:
    repeats = int(os.environ.get("BENCH_LATENCY_REPEATS", "7"))
    with _collector() as url:
        plain, disabled, exported = _compare(tmp, url, LIVE_ROUNDS, repeats)
        _report(f"{LIVE_ROUNDS} rounds at 1 ms per model call", plain, exported)
        ratio = disabled.wall / plain.wall
        imported = _otel_imported_without_otlp()
        verdict = "OK" if ratio <= 1.02 and not imported else "MISSED"
        print(
            f"  (a) disabled (OTEL_SDK_DISABLED=true): {disabled.wall * 1e3:.0f} ms -> {ratio:.2f}x wall, "
            f"{disabled.thread_cpu / plain.thread_cpu:.2f}x run thread CPU; `record` without --otlp loads "
            f"OpenTelemetry: {'yes' if imported else 'no'} {verdict}"
        )
        if LONG_ROUNDS:
            plain, _, exported = _compare(tmp, url, LONG_ROUNDS, max(2, repeats // 3))
            _report(f"{LONG_ROUNDS:,} rounds (the export in its steady state)", plain, exported)


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
