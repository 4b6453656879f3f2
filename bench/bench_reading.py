"""Reading long runs: `inspector show` (timeline and diagnostics), `diagnose`, trajectory snapshots and
`inspector diff`, on recordings of the flow ReAct agent (one tool call per round) of 1,000 and 10,000
rounds, recorded in the same run by the `Recorder`.

Target (issue 15): every read path linear in the run, `show` on 10,000 rounds within 12x its time on
1,000 rounds (the baseline, measured in the same run) and within 2 s. Each in-process figure is the
best of three runs (opening the file included), so it leaves out the interpreter's start-up; `show` is
the command's own `run` (timeline, diagnostics and the text, written to a buffer) in one process
(`--jobs 1`), the walk whose linearity the ratio is about. Each path is timed twice: wall clock (what
the target is about) and the process's CPU time, which other sessions on a shared machine inflate far
less (a long run is more likely than a short one to be slowed by them), so the CPU ratio is the one to
read for linearity when the load average is high.
`show` is then timed as a user runs it, `python3 -m inspector show FILE` in a new process (start-up and
imports included), as it comes (a long run's timeline read in parts, one process per CPU, at most 4)
and with `--jobs 1`; the 2 s target is the first's wall clock. Its CPU time is that of the command's
processes together (the children waited for), which reading in parts raises a little: the later parts
read the steps before them again.
Set BENCH_READING_ROUNDS to change the long run's length.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.bench_recording import _agent
from bench.timing import best_time
from graph_core.schema import Message
from inspector.cli.show import auto_jobs
from inspector.cli.show import run as show_command
from inspector.diagnostics import diagnose
from inspector.recording import Recorder, read_run
from inspector.rundiff import diff_runs
from inspector.snapshot.trajectory import trajectory

SHORT = 1_000
LONG = int(os.environ.get("BENCH_READING_ROUNDS", "10000"))
RATIO_TARGET = 12.0
SHOW_TARGET_S = 2.0


def _best_cpu(fn: Callable[[], object]) -> float:
    return best_time(fn, clock=time.process_time)


def _record(path: Path, rounds: int) -> Path:
    _agent(rounds).invoke([Message.user("go")], callbacks=[Recorder(path)])
    return path


def _paths(path: Path) -> dict[str, Callable[[], object]]:
    def show() -> None:  # the command itself, in process: its text written to a buffer, not a terminal
        with contextlib.redirect_stdout(io.StringIO()):
            show_command(argparse.Namespace(run_file=str(path), json=False, lenient=False, jobs=1))

    def only_diagnose() -> None:
        with read_run(path) as run:
            diagnose(run)

    def snapshot() -> None:
        with read_run(path) as run:
            trajectory(run)

    def diff() -> None:
        with read_run(path) as a, read_run(path) as b:
            diff_runs(a, b)

    return {"show": show, "diagnose": only_diagnose, "trajectory": snapshot, "diff": diff}


def _show_process(path: Path, *options: str) -> Callable[[], object]:
    """`python3 -m inspector show [OPTIONS] FILE` in a new process, importing this checkout's packages."""
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    command = [sys.executable, "-m", "inspector", "show", *options, str(path)]

    def show() -> None:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)

    return show


def _child_cpu(fn: Callable[[], object]) -> float:
    """The CPU time (user + system) of the children `fn` waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _best_child_cpu(fn: Callable[[], object], repeats: int = 3) -> float:
    return min(_child_cpu(fn) for _ in range(repeats))


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        short = _record(Path(tmp) / "short.jsonl", SHORT)
        long = _record(Path(tmp) / "long.jsonl", LONG)
        factor = LONG / SHORT
        print(
            f"flow ReAct recordings: {SHORT:,} rounds (baseline) and {LONG:,} rounds ({factor:.0f}x longer)"
        )
        print(f"  load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
        for (name, fn_short), fn_long in zip(_paths(short).items(), _paths(long).values(), strict=True):
            verdicts: list[str] = []
            for clock, best in (("wall", best_time), ("cpu", _best_cpu)):
                t_short, t_long = best(fn_short), best(fn_long)
                ratio = t_long / t_short
                line = f"  {name:<10} {clock:<4} {t_short:7.3f} s -> {t_long:7.3f} s  = {ratio:5.1f}x"
                if name == "show":
                    ok = ratio <= RATIO_TARGET and t_long <= SHOW_TARGET_S
                    verdicts.append(f"{clock} {'OK' if ok else 'MISSED'}")
                else:
                    line += f"  (linear would be {factor:.0f}x)"
                print(line)
            if verdicts:
                target = f"<= {RATIO_TARGET:.0f}x and <= {SHOW_TARGET_S:.0f} s"
                print(f"  show target ({target}): {', '.join(verdicts)}")
        print(f"  show reads a long run in {auto_jobs()} process(es) here as it comes")
        for label, options in (("as it comes", ()), ("--jobs 1", ("--jobs", "1"))):
            process_short, process_long = _show_process(short, *options), _show_process(long, *options)
            for clock, best in (("wall", best_time), ("cpu", _best_child_cpu)):
                t_short, t_long = best(process_short), best(process_long)
                ratio = t_long / t_short
                verdict = ""
                if clock == "wall" and not options:
                    verdict = (
                        f"  target <= {SHOW_TARGET_S:.0f} s: {'OK' if t_long <= SHOW_TARGET_S else 'MISSED'}"
                    )
                print(
                    f"  show, whole process, {label:<11} {clock:<4} {t_short:7.3f} s -> {t_long:7.3f} s"
                    f"  = {ratio:5.1f}x{verdict}"
                )


if __name__ == "__main__":
    run()
