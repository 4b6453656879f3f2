"""Stored times: `round_time` is `round(x, 6)` and `time_json` is pydantic-core's JSON of the result.

Both avoid code the engine never runs (dtoa, snprintf, strtod, the Rust float writer), which a
recorded agent waiting on its model meets with cold caches every step; the run file must not change.
"""

from __future__ import annotations

import math
import random

from pydantic_core import to_json

from inspector.recording.line_json import time_json
from inspector.recording.pending import round_time


def _same_float(a: float, b: float) -> bool:
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) and type(a) is type(b)


def test_round_time_is_round_to_six_places() -> None:
    rng = random.Random(6)
    samples: list[float] = [0.0, -0.0, 1e-9, -1e-9, 5e-7, -5e-7, 2.5e-6, 1.5e-6, 999_999.9999995, 1e6, 2e9]
    for i in range(60_000):
        kind = i % 4
        if kind == 0:
            x = rng.random() * 10 ** rng.randrange(-9, 7)
        elif kind == 1:  # on or next to a tie at the sixth place
            x = (rng.randrange(0, 10**9) + 0.5) / 1e6 + rng.choice([0.0, 1e-12, -1e-12])
        elif kind == 2:  # what a clock difference gives
            start = 1.7e9 + rng.random() * 1e4
            x = (start + rng.random() * 100) - start
        else:
            x = rng.randrange(-(10**12), 10**12) / 1e6
        samples.append(-x if rng.random() < 0.3 else x)
    for x in samples:
        assert _same_float(round_time(x), round(x, 6)), repr(x)
    assert round_time(3) == 3 and type(round_time(3)) is int  # an injected clock's ints stay ints
    assert math.isnan(round_time(math.nan)) and round_time(math.inf) == math.inf


def test_time_json_writes_a_stored_time_as_pydantic_core_does() -> None:
    for n in range(-2_000_000, 2_000_001, 37):  # every layout: 1e-6, 0.00001, 0.000015, 1.0, 2.5
        assert time_json(n / 1e6) == to_json(n / 1e6), n
    rng = random.Random(7)
    for _ in range(30_000):
        value = round_time(rng.uniform(-1e6, 1e6) * rng.choice([1.0, 1e-3, 1e-6, 1e-9]))
        assert time_json(value) == to_json(value), repr(value)
    for value in (0.0, -0.0, 5, -2, None, 1e6, 1e7, 1.25e-7, 0.1 + 0.2, math.inf, -math.inf, math.nan):
        assert time_json(value) == to_json(value), repr(value)
