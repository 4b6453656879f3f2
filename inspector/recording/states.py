"""State reconstruction: the state after any step, from the nearest full snapshot before it.

A step line holds its state as a full snapshot (`full: true`) or as delta ops against the previous
step's (`statediff`). `StateHistory.raw_state_at(i)` finds the snapshot at or before step `i` (the file
index lists them) and applies the deltas after it, starting from the nearest cached state instead when
there is one; `state_at(i)` resolves the value references in it.

`changes_between(a, b)` is `statediff.changes(state_at(a), state_at(b))` worked out on the stored
states instead: they are small (a history is a `$refs` marker), a history that grew gives one
`appended` change per new message, and only what differs is resolved. Walking a run step by step
this way costs what the steps changed, not the size of the state at every step.
"""

from __future__ import annotations

import bisect
import warnings
from typing import Any

from inspector.recording.fileindex import LRU, RunFile, RunFileWarning
from inspector.recording.statediff import Change, DeltaError, Path, appended_runs, apply_delta, changes
from inspector.recording.values import ValueTable

__all__ = ["StateHistory"]


class StateHistory:
    """States after each top-level step, rebuilt on demand with small caches in front."""

    def __init__(self, file: RunFile, values: ValueTable) -> None:
        self._file = file
        self._values = values
        self._raw = LRU(64)
        self._resolved = LRU(64)

    def raw_state_at(self, i: int) -> Any:
        """The state after step `i` as stored (messages still `{"$ref": n}`)."""
        raw = self._raw
        cached = raw.get(i)  # (`get_lru` inline: a walk asks for each state twice, new and then old)
        if cached is not None:
            raw.move_to_end(i)
            return cached[0]
        file = self._file
        spans = file.spans
        if not 0 <= i < len(spans):
            raise IndexError(f"step {i} out of range (the run has {len(spans)} steps)")
        k = bisect.bisect_right(file.full, i) - 1
        if k < 0:
            return None
        base = file.full[k]
        j = i - 1
        cached = raw.get_lru(j) if j >= base else None  # a walk: the step before is the one cached
        while cached is None and j > base:
            j -= 1
            cached = raw.get_lru(j)
        if cached is None:
            j = base
        value = cached[0] if cached is not None else file.step_line(base).state
        for n in range(j + 1, i + 1):
            line = file.step_line(n)
            if line.full:
                value = line.state
                continue
            try:
                value = apply_delta(value, line.delta or [])
            except DeltaError as exc:
                # Only a file edited by hand gets here: the recorder writes deltas against its own state.
                what = f"step {n}: the state change on this line does not apply to the state before it: {exc}"
                if not file.lenient:
                    raise file.error(what, spans[n]) from None
                warnings.warn(
                    f"{file.path}:{file.line_no(spans[n])}: {what}; the state is shown as it was before",
                    RunFileWarning,
                    stacklevel=3,
                )
        self._raw.put(i, (value,))
        return value

    def state_at(self, i: int) -> Any:
        """The state after step `i`, JSON-like, shared: do not mutate."""
        cached = self._resolved.get_lru(i)
        if cached is not None:
            return cached[0]
        value = self._values.resolve(self.raw_state_at(i))
        self._resolved.put(i, (value,))
        return value

    def changes_between(self, a: int, b: int) -> list[Change]:
        """What changed in state from after step `a` (-1: before the run, no state) to after step `b`."""
        old = None if a < 0 else self.raw_state_at(a)
        new = self.raw_state_at(b)
        out: list[Change] = []
        self._changes(old, new, (), out)
        return out

    def _changes(self, old: Any, new: Any, path: Path, out: list[Change]) -> None:
        """`statediff._changes` over stored values: markers are resolved only where they differ."""
        if old is new:
            return
        if type(old) is dict and type(new) is dict:
            if _is_refs(old) and _is_refs(new):
                tail = appended_runs(old, new)
                if tail is not None and _within(tail, len(self._values)):
                    value = self._values.value
                    n = 0
                    for start, stop in old["$refs"]:
                        n += stop - start
                    for start, stop in tail:
                        for ref in range(start, stop):
                            out.append(Change((*path, n), "appended", None, value(ref)))
                            n += 1
                    return
            elif not _is_marker(old) and not _is_marker(new):
                resolve = self._values.resolve
                kept = 0  # keys of `new` that `old` has
                for key, value in new.items():
                    before = old.get(key, _ABSENT)
                    if before is value:  # the usual key: the same object as in the state before
                        kept += 1
                        continue
                    name = key[1:] if key[:2] == "$$" else key
                    if before is not _ABSENT:
                        kept += 1
                        self._changes(before, value, (*path, name), out)
                    else:
                        out.append(Change((*path, name), "added", None, resolve(value)))
                if kept < len(old):
                    out.extend(
                        Change((*path, key[1:] if key[:2] == "$$" else key), "removed", resolve(value), None)
                        for key, value in old.items()
                        if key not in new
                    )
                return
        resolve = self._values.resolve
        out.extend(changes(resolve(old), resolve(new), path))


_ABSENT: Any = object()


def _within(runs: list[list[int]], size: int) -> bool:
    """Whether every run names values the file defines (a hand-edited `$refs` may claim any span: the
    resolving path, bounded by the file's real value count, reports it)."""
    return all(0 <= start <= stop <= size for start, stop in runs)


def _is_marker(value: dict[str, Any]) -> bool:
    return len(value) == 1 and ("$ref" in value or "$refs" in value)


def _is_refs(value: dict[str, Any]) -> bool:
    return len(value) == 1 and type(value.get("$refs")) is list
