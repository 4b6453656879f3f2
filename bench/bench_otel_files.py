"""OTLP trace files: `export -o` and `show` of a trace grow linearly, and `show` of a 10,000-span trace
takes at most 2 s, whole process.

Issue 31's file targets, each measured in one run so the machine's load hits both sides alike:
(b) `python -m inspector export RUN -o TRACE.json`, whole process (CPU time), of a 1,000-round and a
    10,000-round recording: the 10x run within 12x;
(c) `python -m inspector show` of those two traces, whole process (start-up, the conversion to a cached
    run file, the timeline): within 12x, on CPU time (on a shared machine a child's wall clock mostly
    measures the other processes) with the wall ratio beside it;
(d) `python -m inspector show` of a trace of about 10,000 spans (2,500 rounds, four spans a round):
    wall clock (the target: 2 s) and CPU time, against the baseline in the same run: `show` of the
    recording the trace was exported from, the same run as a run file (what showing it costs with no
    trace to read). With BENCH_OTEL_BASELINE=TREE (a checkout of an older commit, e.g. made with
    `git archive COMMIT | tar -x -C TREE`), the same trace is shown by that tree's code as well;
(e) another tracer's plain GenAI spans made into an observed run (`observed_lines`, in process, CPU
    time), 1,000 vs 10,000 spans, ten model calls each followed by a round of tool calls (99 or 999):
    within 12x.
Each `show` starts with an empty cache folder (the trace converted afresh), and its children run with
bytecode cached as an installed package has it (one untimed `--help` first writes it).
Smaller sizes for a quick look: BENCH_OTEL_ROUNDS=100,1000 BENCH_OTEL_SPAN_ROUNDS=250.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from bench.bench_recording import _agent  # pyright: ignore[reportPrivateUsage]
from bench.timing import best_time
from graph_core.schema import Message
from inspector.otel.exporters import write_trace_file
from inspector.recording import Recorder, read_run
from inspector.sources.observed_run import observed_lines
from inspector.sources.spans import TraceSpan

LINEAR_TARGET = 12.0
SHOW_TARGET_S = 2.0
ROUNDS = tuple(int(n) for n in os.environ.get("BENCH_OTEL_ROUNDS", "1000,10000").split(","))
SPANS_ROUNDS = int(os.environ.get("BENCH_OTEL_SPAN_ROUNDS", "2500"))
BASELINE = os.environ.get("BENCH_OTEL_BASELINE")
HERE = Path(__file__).resolve().parents[1]


def _recording(tmp: Path, rounds: int) -> Path:
    path = tmp / f"run-{rounds}.jsonl"
    _agent(rounds).invoke([Message.user("go")], callbacks=[Recorder(path)])
    return path


def _env(tree: Path, cache: Path) -> dict[str, str]:
    env = {**os.environ, "INSPECTOR_CACHE_DIR": str(cache), "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _command(args: list[str], cache: Path, tree: Path = HERE) -> tuple[float, float]:
    """Whole-process `inspector ARGS...` with `tree`'s code: (wall, CPU) seconds, the CPU of the
    command's processes together (user and system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        env=_env(tree, cache),
        cwd=tree,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _show(path: Path, cache: Path, tree: Path = HERE) -> tuple[float, float]:
    return _command(["show", str(path)], cache, tree)


def _best_show(path: Path, tmp: Path, repeats: int, tree: Path = HERE) -> tuple[float, float]:
    """The best wall and the best CPU of `repeats` shows, each converting afresh."""
    runs = [_show(path, tmp / f"cache-{path.stem}-{tree.name}-{i}", tree) for i in range(repeats)]
    return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)


def _warm(tree: Path, tmp: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "inspector", "--help"],
        env=_env(tree, tmp / "cache-warm"),
        cwd=tree,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def _linear(tmp: Path) -> None:
    export_s: dict[int, float] = {}
    show_s: dict[int, tuple[float, float]] = {}
    for rounds in ROUNDS:
        recording = _recording(tmp, rounds)
        trace = tmp / f"trace-{rounds}.json"
        export_s[rounds] = _command(["export", str(recording), "-o", str(trace)], tmp / "cache-export")[1]
        show_s[rounds] = _best_show(trace, tmp, 2)
        print(
            f"  {rounds:>6,} rounds: export -o {export_s[rounds]:.2f} s CPU "
            f"({trace.stat().st_size / 1e6:.1f} MB); show of the trace {show_s[rounds][0]:.2f} s wall, "
            f"{show_s[rounds][1]:.2f} s CPU"
        )
    small, big = ROUNDS
    target = LINEAR_TARGET * big / small / 10
    ratio = export_s[big] / export_s[small]
    print(
        f"  (b) export -o: {big:,}/{small:,} rounds {ratio:.1f}x CPU (target <= {target:g}x) "
        f"{_verdict(ratio <= target)}"
    )
    cpu = show_s[big][1] / show_s[small][1]
    wall = show_s[big][0] / show_s[small][0]
    print(
        f"  (c) show: {big:,}/{small:,} rounds {cpu:.1f}x CPU (target <= {target:g}x) "
        f"{_verdict(cpu <= target)}; {wall:.1f}x wall"
    )


def _show_10k(tmp: Path) -> None:
    recording = _recording(tmp, SPANS_ROUNDS)
    trace = tmp / "trace-10k-spans.json"
    spans = write_trace_file(read_run(recording), trace)
    wall, cpu = _best_show(trace, tmp, 3)
    base_wall, base_cpu = _best_show(recording, tmp, 3)
    print(
        f"  (d) show of a {spans:,}-span trace: {wall:.2f} s wall (target <= {SHOW_TARGET_S:g} s) "
        f"{_verdict(wall <= SHOW_TARGET_S)}, {cpu:.2f} s CPU (<= {SHOW_TARGET_S:g} s "
        f"{_verdict(cpu <= SHOW_TARGET_S)})"
    )
    print(
        f"      baseline, show of its recording ({SPANS_ROUNDS:,} rounds as a run file): {base_wall:.2f} s "
        f"wall, {base_cpu:.2f} s CPU -> the trace costs {wall / base_wall:.2f}x wall, "
        f"{cpu / base_cpu:.2f}x CPU"
    )
    if BASELINE:
        tree = Path(BASELINE).resolve()
        _warm(tree, tmp)
        old_wall, old_cpu = _best_show(trace, tmp, 2, tree)
        print(
            f"      baseline tree {tree}: {old_wall:.2f} s wall, {old_cpu:.2f} s CPU -> now "
            f"{old_wall / wall:.1f}x faster (wall), {old_cpu / cpu:.1f}x (CPU)"
        )


def _genai_spans(count: int) -> list[TraceSpan]:
    """About `count` spans under an agent's: ten model calls, each followed by a round of a tenth of
    them tool calls (1 ms each): a longer trace has longer rounds."""
    per_round = count // 10 - 1
    trace, ms = "ab" * 16, 1_000_000
    root = {"gen_ai.operation.name": "invoke_agent"}
    spans = [TraceSpan(trace, "root", "", "invoke_agent a", 0, 10**15, root)]
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "f"}
    for r in range(count // (per_round + 1)):
        start = r * (per_round + 1) * ms
        chat = {"gen_ai.operation.name": "chat"}
        spans.append(TraceSpan(trace, f"c{r}", "root", "chat m", start, start + ms, chat))
        for k in range(1, per_round + 1):
            at = start + k * ms
            spans.append(TraceSpan(trace, f"t{r}.{k}", "root", "execute_tool f", at, at + ms, tool))
    return spans


def _observed() -> None:
    seconds: dict[int, float] = {}
    for count in (1_000, 10_000):
        seconds[count] = best_time(
            partial(observed_lines, _genai_spans(count), Path("t")), clock=time.process_time
        )
    ratio = seconds[10_000] / seconds[1_000]
    print(
        f"  (e) observed run of plain GenAI spans: 1,000 {seconds[1_000] * 1e3:.0f} ms, 10,000 "
        f"{seconds[10_000] * 1e3:.0f} ms CPU -> {ratio:.1f}x (target <= {LINEAR_TARGET:g}x) "
        f"{_verdict(ratio <= LINEAR_TARGET)}"
    )


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (1 min), {five:.1f} (5 min), {os.cpu_count()} cores"


def run() -> None:
    print(f"  {_load()}")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        _observed()
        _warm(HERE, tmp)
        _show_10k(tmp)
        _linear(tmp)
    print(f"  {_load()}")


if __name__ == "__main__":
    run()
