"""Opening LangGraph checkpointer threads: a 1,000- and a 10,000-checkpoint thread of one SQLite file,
written by LangGraph itself (a counting loop under `SqliteSaver`, one checkpoint per superstep).

Targets (issue 30): the first screen of `replay` on the 10,000-checkpoint thread within 1 s, and `show`
linear in the thread's size, 10,000 checkpoints within 12x its time on 1,000 (the baseline, measured in
the same run). Each figure is the best of three, wall clock and this process's CPU time (which other
sessions on a shared machine inflate less; the ratio to read for linearity when the load is high).

- "replay, first screen" is what `inspector replay DB --thread ID` does before the user sees the run:
  the thread read, the app made on its run file and the first frame with a step laid out and rendered.
  Timed cold as the command runs it (a fresh cache folder each time: the run file written behind the
  screen by a forked process, which the screen follows as it grows; its CPU time is not this
  process's), cold with the whole run file written first (the cost the forked writer keeps off the
  first screen), and warm (the run file of an unchanged thread reused, as a second `replay` finds it).
- "show" is the command's own `run` (the thread read and converted, the timeline and diagnostics,
  written to a buffer), cold, in one process (`--jobs 1`).
Set BENCH_THREAD_CHECKPOINTS to change the long thread's length.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import operator
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Annotated, Any, TypedDict

from bench.timing import best_time

SHORT = 1_000
LONG = int(os.environ.get("BENCH_THREAD_CHECKPOINTS", "10000"))
RATIO_TARGET = 12.0
FIRST_SCREEN_TARGET_S = 1.0


class _Count(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def _write_thread(db: Path, thread: str, checkpoints: int) -> None:
    """A thread of `checkpoints` checkpoints: the input's, `__start__`'s, then one per `work` step."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    steps = checkpoints - 2
    graph = StateGraph(_Count)

    def work(state: _Count) -> dict[str, Any]:
        n = state["n"] + 1
        return {"n": n, "log": [f"step {n}"] if n % 100 == 1 else []}

    def again(state: _Count) -> str:
        return "work" if state["n"] < steps else END

    graph.add_node("work", work)
    graph.add_edge(START, "work")
    graph.add_conditional_edges("work", again, ["work", END])
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        conn.execute("PRAGMA synchronous = OFF")  # a benchmark's file: no sync per checkpoint
        app = graph.compile(checkpointer=SqliteSaver(conn))
        config: Any = {"configurable": {"thread_id": thread}, "recursion_limit": steps + 10}
        app.invoke({"n": 0, "log": []}, config)


def _fresh_cache() -> None:
    """A new temporary folder: the next open converts the thread again."""
    tempfile.tempdir = tempfile.mkdtemp(prefix="bench-threads-")


def _both(fn: Callable[[], object]) -> tuple[float, float]:
    return best_time(fn), best_time(fn, clock=time.process_time)


def _show(db: Path, thread: str) -> Callable[[], object]:
    from inspector.cli import build_parser
    from inspector.cli.show import run as show_command

    args = build_parser().parse_args(["show", str(db), "--thread", thread, "--jobs", "1"])

    def once() -> None:
        _fresh_cache()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            show_command(args)

    return once


def _first_screen(db: Path, thread: str, *, cold: bool, behind: bool = True) -> tuple[float, float]:
    """(wall, CPU) seconds of `inspector replay DB --thread ID` up to its first frame, best of three:
    `behind` as the command runs it (a thread not converted yet is written by a forked process while
    the screen follows the file)."""
    from inspector.sources import run_file_path
    from inspector.sources.langgraph import converting, run_source
    from inspector.tui import make_app

    async def paint() -> tuple[float, float]:
        if cold:
            _fresh_cache()
        wall, cpu = time.perf_counter(), time.process_time()
        source = Path(run_source(str(db), thread, behind=behind))
        app = make_app(run_file_path(source), follow=converting(source), poll_interval=0.5)
        async with app.run_test(size=(160, 48)) as pilot:
            while app.waiting:  # the waiting screen until the writer's first lines, then the panes
                await asyncio.sleep(0.005)
            screen = app.screen
            screen._refresh_layout(app.size)  # pyright: ignore[reportPrivateUsage]
            screen._compositor.render_update(full=True)  # pyright: ignore[reportPrivateUsage]
            took = time.perf_counter() - wall, time.process_time() - cpu
            if app._poll_timer is not None:  # pyright: ignore[reportPrivateUsage]
                app._poll_timer.stop()  # pyright: ignore[reportPrivateUsage]  (no poll as the app closes)
            await pilot.pause(0.6)
        while converting(source):  # the writer finishes before the next measure starts
            await asyncio.sleep(0.05)
        return took

    runs = [asyncio.run(paint()) for _ in range(3)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def run() -> None:
    base = tempfile.gettempdir()
    with tempfile.TemporaryDirectory(prefix="bench-threads-db-") as folder:
        db = Path(folder) / "checkpoints.sqlite"
        start = time.perf_counter()
        _write_thread(db, "short", SHORT)
        _write_thread(db, "long", LONG)
        took = time.perf_counter() - start
        print(f"threads of {SHORT:,} and {LONG:,} checkpoints written by LangGraph in {took:.1f} s")
        try:
            short_show = _both(_show(db, "short"))
            long_show = _both(_show(db, "long"))
            cold = _first_screen(db, "long", cold=True)
            whole = _first_screen(db, "long", cold=True, behind=False)
            _fresh_cache()
            warm = _first_screen(db, "long", cold=False)
        finally:
            tempfile.tempdir = base
    wall_ratio, cpu_ratio = long_show[0] / short_show[0], long_show[1] / short_show[1]
    print(
        f"show, {SHORT:,} checkpoints: {short_show[0] * 1000:.0f} ms wall, {short_show[1] * 1000:.0f} ms CPU"
    )
    print(f"show, {LONG:,} checkpoints: {long_show[0] * 1000:.0f} ms wall, {long_show[1] * 1000:.0f} ms CPU")
    ok = "ok" if min(wall_ratio, cpu_ratio) <= RATIO_TARGET else "OVER"
    target = f"target <= {RATIO_TARGET:.0f}x"
    print(f"show ratio {LONG:,}/{SHORT:,}: {wall_ratio:.1f}x wall, {cpu_ratio:.1f}x CPU ({target}): {ok}")
    figures = (
        ("cold, written behind the screen (as replay runs)", cold),
        ("cold, written whole first", whole),
        ("warm, run file reused", warm),
    )
    for name, (wall, cpu) in figures:
        ok = "ok" if wall <= FIRST_SCREEN_TARGET_S else "OVER"
        print(
            f"replay first screen, {LONG:,} checkpoints, {name}: {wall * 1000:.0f} ms wall, "
            f"{cpu * 1000:.0f} ms CPU (target <= {FIRST_SCREEN_TARGET_S:.0f} s): {ok}"
        )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    run()
