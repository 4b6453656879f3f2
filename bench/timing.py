"""The one timing primitive the benchmarks share: the best of a few runs, on the wall clock or in CPU time.

The minimum, not the mean, because on a shared machine every disturbance only ever adds time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["best_time"]


def best_time(
    fn: Callable[[], object], repeats: int = 3, *, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Seconds of the fastest of `repeats` calls of `fn` on `clock` (`time.process_time` for CPU time,
    which other processes on a shared machine do not inflate)."""
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best
