"""`Settled`: a fork's check that a replayed state is the recorded one, in time linear in the run.

A fork at step N replays steps 0..N-1 and checks the state rebuilt at each boundary against the state
the recording holds there (`fork._ForkHook._check_state`). Encoding and comparing each whole state made
that check grow with the square of N; `Settled` compares only what grew since the state it last proved
equal, and answers "not shown" whenever it cannot tell, for the whole comparison to decide and name the
first difference.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.recording.encode import Encoder
from inspector.recording.valuelist import ValueList, plain

__all__ = ["Settled"]


class Settled:
    """Proves a rebuilt state equal to the recorded one looking only at what grew since the last proof,
    so a fork at step N checks N states in time linear in N (comparing each whole state made it grow with
    the square of N: 92 s at step 2,000 of a runaway run).

    Per top-level field holding a message history, it remembers the rebuilt list proven equal (the
    object, its length then, its first and last item) and the recorded history's value ids at that
    length. A later state whose field holds the same list, grown at its end (the same first and last
    items where the proof stopped), against a recorded history that still begins with those ids, only
    has its new items encoded and compared: the assumption the recorder's own list memo makes
    (`Encoder`: histories grow, they are not edited). Any other field is encoded and compared whole.
    `same` answers False when it cannot prove equality; the caller then compares the whole state, which
    also names the first difference."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        self._lists: dict[str, tuple[list[Any], int, Any, Any, tuple[tuple[int, int], ...]]] = {}

    def _json(self, encoded: Any) -> Any:
        return json.loads(json.dumps(encoded))

    def same(self, state: Any, recorded: Any) -> bool:
        """True when `state` (live) is the recorded `recorded` (as `Run.state_at` gives it)."""
        fields = self.encoder.top_level(state)
        if fields is None or type(recorded) is not dict or len(fields) != len(recorded):  # pyright: ignore[reportUnknownArgumentType]
            return False
        stored: dict[str, Any] = recorded  # pyright: ignore[reportUnknownVariableType]
        proven: dict[str, tuple[list[Any], int, Any, Any, tuple[tuple[int, int], ...]]] = {}
        try:
            for key, raw, masked in fields:
                if key not in stored:
                    return False
                want = stored[key]
                if masked:
                    if want != self.encoder.mask:
                        return False
                elif type(raw) is list and isinstance(want, ValueList):
                    items: list[Any] = raw  # pyright: ignore[reportUnknownVariableType]
                    if len(items) != len(want):
                        return False
                    start = self._grown_from(key, items, want)
                    new = [self._json(self.encoder.encode(item)) for item in items[start:]]
                    if new != plain(want[start:]):
                        return False
                    if items:
                        proven[key] = (items, len(items), items[0], items[-1], _runs(want))
                elif self._json(self.encoder.encode_field(raw, state)) != plain(want):
                    return False
        except Exception:  # what encoding the whole state records as a marker: compared there
            return False
        self._lists = proven
        return True

    def _grown_from(self, key: str, items: list[Any], want: ValueList) -> int:
        """How many leading items of `items` the last proof covers (0: none, compare them all)."""
        memo = self._lists.get(key)
        if memo is None:
            return 0
        obj, n, first, last, runs = memo
        if obj is not items or n > len(items) or items[0] is not first or items[n - 1] is not last:
            return 0
        prefix = want[:n]
        return n if isinstance(prefix, ValueList) and _runs(prefix) == runs else 0


def _runs(history: ValueList) -> tuple[tuple[int, int], ...]:
    return tuple((start, stop) for start, stop in history.runs)
