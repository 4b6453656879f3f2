"""The catalog at scale (issue 32): `inspector runs` over 1,000 generated runs (about 200,000 steps; ok,
failed and runaway runs of three graphs) and over 10,000 small ones.

Each command runs as a user runs it, `python3 -m inspector runs DIR` in a new process (start-up
included: about 0.5 s of CPU importing the CLI), against a fresh index in a temporary cache folder;
peak RSS and CPU time are the child's own (`os.wait4`; the CPU time includes the processes it forked
to walk runs in parts). Byte-code is written (PYTHONDONTWRITEBYTECODE is dropped for the children, as
an installed package has its .pyc files) and one `--version` warms it.
Wall clock is what the targets are about; the CPU time (user + system) is printed beside it because
other sessions on a shared machine inflate the wall clock far more.

Targets: the first listing <= 10 s and <= 500 MB (it reads each run's header and tail only), the
second <= 1 s (the index: nothing changed, nothing read again); the first `--stats` (every run walked
once) within 3x of parsing every file once with the standard library's `json`, measured in the same
run; later `--stats` <= 2 s (the index's facts); 10,000 small runs' second listing <= 2 s and within
12x of 1,000 runs' (cost linear in the number of runs). Set BENCH_CATALOG_RUNS to change 1,000.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.catalog_runs import generate

RUNS = int(os.environ.get("BENCH_CATALOG_RUNS", "1000"))
SMALL = 10 * RUNS


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "XDG_CACHE_HOME": str(cache)}


def _command(folder: Path, cache: Path, *extra: str) -> tuple[float, float, float]:
    """Wall seconds, peak RSS in MB and CPU seconds of `inspector runs FOLDER EXTRA`."""
    env = _env(cache)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "runs", str(folder), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"inspector runs {folder} {' '.join(extra)} exited {process.returncode}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def _parse_every_file(folder: Path) -> tuple[float, int]:
    """Seconds to parse every line of every run file once with `json.loads`, and the step lines seen."""
    start = time.perf_counter()
    steps = 0
    for path in sorted(folder.rglob("*.jsonl")):
        with path.open("rb") as f:
            for line in f:
                if json.loads(line).get("kind") == "step":
                    steps += 1
    return time.perf_counter() - start, steps


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-catalog-") as scratch:
        root = Path(scratch)
        big, small, cache = root / "big", root / "small", root / "cache"
        start = time.perf_counter()
        written = generate(big, RUNS)
        steps = sum(e.steps for e in written)
        size = sum(e.path.stat().st_size for e in written) / 1e6
        print(
            f"generated {RUNS} runs, {steps} steps, {size:.0f} MB "
            f"in {time.perf_counter() - start:.1f} s (setup)"
        )

        subprocess.run(
            [sys.executable, "-m", "inspector", "--version"], env=_env(cache), check=True, capture_output=True
        )
        first, rss, cpu = _command(big, cache)
        print(
            f"first `inspector runs DIR`: {first:.2f} s ({cpu:.2f} s CPU), peak RSS {rss:.0f} MB "
            f"(targets 10 s, 500 MB): {_verdict(first <= 10 and rss <= 500)}"
        )
        second, _, cpu = _command(big, cache)
        print(f"second listing: {second:.2f} s ({cpu:.2f} s CPU) (target 1 s): {_verdict(second <= 1)}")
        parse_start = time.process_time()
        parse, seen = _parse_every_file(big)
        parse_cpu = time.process_time() - parse_start
        stats_first, stats_rss, stats_cpu = _command(big, cache, "--stats")
        ratio, cpu_ratio = stats_first / parse, stats_cpu / parse_cpu
        print(
            f"json.loads of every line ({seen} steps): {parse:.2f} s ({parse_cpu:.2f} s CPU); first --stats: "
            f"{stats_first:.2f} s ({stats_cpu:.2f} s CPU), peak RSS {stats_rss:.0f} MB, {ratio:.2f}x "
            f"({cpu_ratio:.2f}x in CPU) (target 3x): {_verdict(ratio <= 3)}"
        )
        stats_again, _, cpu = _command(big, cache, "--stats")
        print(
            f"later --stats from the index: {stats_again:.2f} s ({cpu:.2f} s CPU) (target 2 s): "
            f"{_verdict(stats_again <= 2)}"
        )

        start = time.perf_counter()
        generate(small, SMALL, rounds=(1, 3), nest=20)
        print(f"generated {SMALL} small runs in {time.perf_counter() - start:.1f} s (setup)")
        small_first, _, _ = _command(small, cache)
        small_second, _, small_cpu = _command(small, cache)
        scale = small_second / second
        print(
            f"{SMALL} runs: first listing {small_first:.2f} s, "
            f"second {small_second:.2f} s ({small_cpu:.2f} s CPU) "
            f"(target 2 s): {_verdict(small_second <= 2)}; {SMALL} vs {RUNS} runs, second listing: "
            f"{scale:.1f}x (target 12x): {_verdict(scale <= 12)}"
        )


if __name__ == "__main__":
    run()
