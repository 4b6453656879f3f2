"""A stored time as JSON, written in Python: pydantic-core's bytes, without its code or `repr`'s.

A loop's usual step line is spliced into a template (`step_line`); its times change every step. Writing
them with `to_json` (or `repr`, which runs `dtoa`) runs code the engine never runs, which a recorded
agent waiting on its model between steps meets with cold caches every time. A stored time is a whole
number of microseconds (`times.round_time`), so its digits are that number's. (The node-run records
were tried the same way: written in Python they cost more instructions than the cold serializer saved,
in cachegrind's model of a 1 ms wait, so they stay with `to_json`.)
"""

from __future__ import annotations

from math import copysign
from typing import Any

from pydantic_core import to_json

__all__ = ["time_json"]


def time_json(value: Any) -> bytes:
    """`to_json(value)` for a stored time (`times.round_time`'s result, or what an injected clock
    gave), written from its whole micro-units when it is one: the shortest digits of the double nearest
    n / 1e6 are n's own (no shorter decimal lies within its ulp), laid out as serde_json lays out
    floats (`0.000015`, `1e-6`, `2.0`). Anything else goes to pydantic-core."""
    if type(value) is float and -1e6 < value < 1e6:
        n = round(value * 1e6)
        if n / 1e6 == value:
            if 10 <= n < 1_000_000:  # the usual time: under a second
                return b"0.%b" % (b"%06d" % n).rstrip(b"0")
            if n == 0:
                return b"-0.0" if copysign(1.0, value) < 0 else b"0.0"
            units = -n if n < 0 else n
            if units < 10:
                text = b"%de-6" % units
            else:
                whole, fraction = divmod(units, 1_000_000)
                text = b"%d.%b" % (whole, (b"%06d" % fraction).rstrip(b"0") or b"0")
            return b"-" + text if n < 0 else text
    if type(value) is int:
        return b"%d" % value
    return to_json(value)
