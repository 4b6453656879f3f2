"""A step's times as stored: seconds after the run's start, rounded to the microsecond.

`step_times` is the recorder's time phase (when a step began and how long it took); `round_time` the
rounding every stored time goes through (node runs and tool calls too, in `pending`). How a stored
time is written as JSON is `line_json.time_json`.
"""

from __future__ import annotations

from math import copysign

__all__ = ["round_time", "step_times"]


def round_time(seconds: float) -> float:
    """`round(seconds, 6)`, the precision times are stored at, without its cost on a cold cache.

    `round(x, 6)` is correctly rounded through decimal strings (`dtoa`, `snprintf`, `strtod`): code the
    engine never runs, so with a model call between steps every step met it cold, six times. Below a
    million seconds, `x * 1e6` is within 2e-4 of the exact product, so unless that is nearly halfway
    between two integers its nearest integer n is the exact decimal rounding, and `n / 1e6` (one
    correctly rounded division) is the double `round` returns; zero keeps `x`'s sign as `round` does.
    Anything else (near a tie, large, not a float) goes to `round` itself."""
    if type(seconds) is float and -1e6 < seconds < 1e6:
        scaled = seconds * 1e6
        n = round(scaled)
        if -0.499 < scaled - n < 0.499:
            return n / 1e6 if n else copysign(0.0, seconds)
    return round(seconds, 6)


def step_times(begin: float, end: float, t0: float) -> tuple[float, float]:
    """(`t`, `duration`) of a step that began at `begin` and ended at `end` on the recorder's clock,
    in a run that started at `t0`: `t` from the run's start, the duration as the difference of the two
    stored times (so `t + duration` is the stored end)."""
    t = round_time(begin - t0)
    return t, round_time(round_time(end - t0) - t)
