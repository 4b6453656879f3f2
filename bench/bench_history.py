"""A step far into a long run, opened the way the replay app's `g` opens it: the reader's part.

On the flow ReAct agent's 100,001-step recording (the one `bench_tui` uses, cached in the temp dir):
open step 99,000 in a fresh `Run` (nothing read yet) and build what the panes show: the state's
history (its ends, as the state pane shows a long list), the conversation's newest 60 messages, the
node detail's clipped preview of the model call's input. Printed beside the same on the 9-step
recording, measured in the same run, with the value lines read and the memory that the states of 100
steps far in the run hold (allocated while they are kept, the values read for them included).

Target (issue 15): values are shared, not copied: a history that grows by one message per step is held
once and a step's view of it is a prefix, so opening a far step costs what it shows, not the run so far.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bench.bench_tui import REACT_ROUNDS, react_run
from inspector.conversation import Conversation
from inspector.recording import read_run
from inspector.recording.values import ValueTable
from inspector.tui.literal import one_line

FAR = 99_000
HELD = 100  # steps whose states are kept at once, for the memory figure


def _open_far(path: Path, far: int, counter: list[int]) -> float:
    """Seconds to open step `far` (best of 3), each time in a freshly opened `Run` (opening not timed)."""
    best = float("inf")
    for _ in range(3):
        with read_run(path) as run:
            counter.clear()
            t = time.perf_counter()
            position = min(far, len(run.steps) - 1)
            state = run.state_at(position)
            messages = state["messages"]
            n = len(messages)
            assert [messages[i] for i in (*range(min(10, n)), *range(max(0, n - 40), n))]
            Conversation(run).at(position, state, last=60)
            for node_run in run.steps[position].node_runs:
                one_line(node_run.input, limit=120)
            best = min(best, time.perf_counter() - t)
    return best


def _held(path: Path, far: int) -> float:
    """MB allocated while the states of `HELD` consecutive steps ending at `far` are kept."""
    with read_run(path) as run:
        last = min(far, len(run.steps) - 1)
        gc.collect()
        tracemalloc.start()
        kept: list[Any] = []
        for i in range(max(0, last - HELD + 1), last + 1):
            state = run.state_at(i)
            len(state["messages"])
            kept.append(state)
        size, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del kept
    return size / 1e6


def run() -> None:
    big, small = react_run(REACT_ROUNDS), react_run(4)
    counter: list[int] = []
    original = ValueTable._read  # pyright: ignore[reportPrivateUsage]

    def counting(self: ValueTable, ref: int) -> Any:
        counter.append(ref)
        return original(self, ref)

    ValueTable._read = counting  # pyright: ignore[reportPrivateUsage]
    try:
        t_small = _open_far(small, FAR, counter)
        read_small = len(counter)
        t_big = _open_far(big, FAR, counter)
        read_big = len(counter)
    finally:
        ValueTable._read = original  # pyright: ignore[reportPrivateUsage]
    mb_small, mb_big = _held(small, FAR), _held(big, FAR)
    print(f"open step {FAR:,} of {REACT_ROUNDS * 2 + 1:,} (state ends, newest 60 messages, input preview) "
          f"in a fresh Run: {t_big * 1000:.1f} ms, {read_big:,} value lines read   last step of 9: "
          f"{t_small * 1000:.1f} ms, {read_small:,} read   ratio {t_big / t_small:.1f}x")  # fmt: skip
    print(f"states of {HELD} steps up to {FAR:,} kept at once: {mb_big:.1f} MB allocated   "
          f"9 steps' states: {mb_small:.2f} MB")  # fmt: skip
