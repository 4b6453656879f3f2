"""The one timing primitive the benchmarks share: the best of a few wall-clock runs.

The minimum, not the mean, because on a shared machine every disturbance only ever adds time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["best_time"]


def best_time(fn: Callable[[], object], repeats: int = 3) -> float:
    """Seconds of the fastest of `repeats` calls of `fn`."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best
