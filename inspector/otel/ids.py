"""Span and trace ids derived from what they name, so a re-export of a recording gives the same bytes.

The SDK asks its `IdGenerator` for every id; `KeyedIds` answers with a hash of the run id and the key
the mapping set just before starting the span (`"step 3 chat"`, `"segment 1"`), instead of random bits.
Live export keeps the SDK's random ids: two live runs of one graph must not collide in a backend.
"""

from __future__ import annotations

import hashlib

from opentelemetry.sdk.trace.id_generator import IdGenerator

__all__ = ["KeyedIds", "span_id_of", "trace_id_of"]


def _digest(*parts: str) -> bytes:
    return hashlib.blake2b("\x1f".join(parts).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def trace_id_of(run_id: str, segment: int) -> int:
    """The trace of one segment (a run or a resumed continuation) of the run `run_id`: never 0."""
    return int.from_bytes(_digest("trace", run_id, str(segment)), "big") or 1


def span_id_of(run_id: str, key: str) -> int:
    """The span named `key` in the run `run_id`: 64 bits, never 0."""
    return int.from_bytes(_digest("span", run_id, key)[:8], "big") or 1


class KeyedIds(IdGenerator):
    """Ids for the next span from `key` (set by the mapping before each `start_span`) and `run_id`."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.key = ""
        self.segment = 0

    def generate_span_id(self) -> int:
        return span_id_of(self.run_id, self.key)

    def generate_trace_id(self) -> int:
        return trace_id_of(self.run_id, self.segment)
