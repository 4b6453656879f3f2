"""The catalog at scale (issue 32): `inspector runs` over 1,000 generated runs (about 200,000 steps; ok,
failed and runaway runs of three graphs), over 10,000 small ones, over a LangGraph checkpointer's
threads and over an OTLP trace file of many runs.

Each command runs as a user runs it, `python3 -m inspector runs SOURCE` in a new process (start-up
included), against a fresh index in a temporary cache folder; peak RSS and CPU time are the child's own
(`os.wait4`; the CPU time includes the processes it forked to walk runs in parts). Byte-code is written
(PYTHONDONTWRITEBYTECODE is dropped for the children, as an installed package has its .pyc files) and
one `--version` warms it; a second `--version` is measured as the start-up every command pays.

Wall clock is what the targets are about. On a machine other sessions share, the wall clock of a
process that mostly waits for a core says more about the load than about the command, so the CPU time
(user + system: what the wall clock is on an idle machine, for a command that uses one core) is printed
beside it, with the load average before and after, and a verdict on each. The summary at the end gives
every measure against its target as a ratio (measured / target; <= 1 meets it).

Targets: the first listing <= 10 s and <= 500 MB (it reads each run's header and tail only), the
second <= 1 s (the index: nothing changed, no file opened); the first `--stats` (every run walked once)
within 3x of parsing every file once with the standard library's `json`, measured in the same run;
later `--stats` <= 2 s (the index's facts); 10,000 small runs' second listing <= 2 s and within 12x of
1,000 runs' (cost linear in the number of runs). The checkpointer (BENCH_CATALOG_THREADS threads, 200)
and the trace file (200 runs) have no target of their own: their second listing reads the index as a
folder's does. Set BENCH_CATALOG_RUNS to change 1,000.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.catalog_runs import generate, write_threads, write_traces

RUNS = int(os.environ.get("BENCH_CATALOG_RUNS", "1000"))
SMALL = 10 * RUNS
THREADS = int(os.environ.get("BENCH_CATALOG_THREADS", "200"))
TRACED = 200


@dataclass
class Measure:
    """One measured figure against its target (`target` None: shown, not judged)."""

    name: str
    value: float
    unit: str
    target: float | None
    cpu: float | None = None

    @property
    def ratio(self) -> float | None:
        return None if self.target is None else self.value / self.target

    def verdict(self) -> str:
        if self.target is None:
            return ""
        if self.value <= self.target:
            return "ok"
        if self.unit in ("s", "x") and self.cpu is not None and self.cpu <= self.target:
            return "MISSED in wall clock (CPU time meets it: the load)"
        return "MISSED"


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "XDG_CACHE_HOME": str(cache), "INSPECTOR_CACHE_DIR": str(cache / "otlp")}


def _command(cache: Path, *argv: str) -> tuple[float, float, float]:
    """Wall seconds, peak RSS in MB and CPU seconds of `inspector ARGV`."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(cache),
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"inspector {' '.join(argv)} exited {code}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def _parse_every_file(folder: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds to parse every line of every run file once with `json.loads`, and the step
    lines seen."""
    start, cpu = time.perf_counter(), time.process_time()
    steps = 0
    for path in sorted(folder.rglob("*.jsonl")):
        with path.open("rb") as f:
            for line in f:
                if json.loads(line).get("kind") == "step":
                    steps += 1
    return time.perf_counter() - start, time.process_time() - cpu, steps


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def _line(measure: Measure) -> None:
    unit = "x in CPU time" if measure.unit == "x" else "s CPU"
    cpu = "" if measure.cpu is None else f" ({measure.cpu:.2f} {unit})"
    target = "" if measure.target is None else f" (target {measure.target:g} {measure.unit})"
    verdict = measure.verdict()
    print(
        f"{measure.name}: {measure.value:.2f} {measure.unit}{cpu}{target}{': ' + verdict if verdict else ''}"
    )


def run() -> None:
    print(_load())
    measures: list[Measure] = []

    def add(measure: Measure) -> None:
        measures.append(measure)
        _line(measure)

    with tempfile.TemporaryDirectory(prefix="bench-catalog-") as scratch:
        root = Path(scratch)
        big, small, cache = root / "big", root / "small", root / "cache"
        start = time.perf_counter()
        written = generate(big, RUNS)
        steps = sum(e.steps for e in written)
        size = sum(e.path.stat().st_size for e in written) / 1e6
        took = time.perf_counter() - start
        print(f"generated {RUNS} runs, {steps} steps, {size:.0f} MB in {took:.1f} s (setup)")

        _command(cache, "--version")  # writes the byte-code
        boot, _, boot_cpu = _command(cache, "--version")
        add(Measure("start-up alone (`inspector --version`)", boot, "s", None, boot_cpu))
        first, rss, cpu = _command(cache, "runs", str(big))
        add(Measure(f"first `inspector runs DIR` ({RUNS} runs)", first, "s", 10, cpu))
        add(Measure("  its peak RSS", rss, "MB", 500))
        second, _, second_cpu = _command(cache, "runs", str(big))
        add(Measure("second listing", second, "s", 1, second_cpu))
        parse, parse_cpu, seen = _parse_every_file(big)
        print(f"json.loads of every line ({seen} steps): {parse:.2f} s ({parse_cpu:.2f} s CPU)")
        stats_first, stats_rss, stats_cpu = _command(cache, "runs", str(big), "--stats")
        multiple, cpu_multiple = stats_first / parse, stats_cpu / parse_cpu
        add(
            Measure(
                "first --stats, as a multiple of json.loads of every line", multiple, "x", 3, cpu_multiple
            )
        )
        print(f"  first --stats: {stats_first:.2f} s ({stats_cpu:.2f} s CPU), peak RSS {stats_rss:.0f} MB")
        stats_again, _, cpu = _command(cache, "runs", str(big), "--stats")
        add(Measure("later --stats from the index", stats_again, "s", 2, cpu))

        start = time.perf_counter()
        generate(small, SMALL, rounds=(1, 3), nest=20)
        print(f"generated {SMALL} small runs in {time.perf_counter() - start:.1f} s (setup)")
        small_first, _, cpu = _command(cache, "runs", str(small))
        add(Measure(f"first listing of {SMALL} small runs", small_first, "s", None, cpu))
        small_second, _, small_cpu = _command(cache, "runs", str(small))
        add(Measure(f"second listing of {SMALL} small runs", small_second, "s", 2, small_cpu))
        scale, cpu_scale = small_second / second, small_cpu / second_cpu
        add(Measure(f"{SMALL} vs {RUNS} runs, second listing", scale, "x", 12, cpu_scale))

        database = root / "threads.sqlite"
        start = time.perf_counter()
        write_threads(database, THREADS)
        print(f"LangGraph wrote {THREADS} threads in {time.perf_counter() - start:.1f} s (setup)")
        threads_first, _, cpu = _command(cache, "runs", str(database))
        add(Measure(f"first listing of a checkpointer's {THREADS} threads", threads_first, "s", None, cpu))
        threads_second, _, cpu = _command(cache, "runs", str(database))
        add(Measure("  second", threads_second, "s", None, cpu))

        trace = root / "traces.json"
        start = time.perf_counter()
        write_traces(trace, generate(root / "traced", TRACED, rounds=(1, 3)))
        print(f"exported {TRACED} runs to one OTLP JSON file in {time.perf_counter() - start:.1f} s (setup)")
        trace_first, _, cpu = _command(cache, "runs", str(trace))
        add(Measure(f"first listing of a trace file of {TRACED} runs", trace_first, "s", None, cpu))
        trace_second, _, cpu = _command(cache, "runs", str(trace))
        add(Measure("  second", trace_second, "s", None, cpu))

    print(_load())
    print()
    print(f"{'measure':<56} {'value':>9} {'CPU':>7} {'target':>9} {'ratio':>6}  verdict")
    for m in measures:
        if m.target is None:
            continue
        cpu = "" if m.cpu is None else f"{m.cpu:.2f} {'x' if m.unit == 'x' else 's'}"
        value, target = f"{m.value:.2f} {m.unit}", f"{m.target:g} {m.unit}"
        print(f"{m.name.strip():<56} {value:>9} {cpu:>7} {target:>9} {m.ratio or 0:>6.2f}  {m.verdict()}")


if __name__ == "__main__":
    run()
