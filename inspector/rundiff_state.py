"""The state difference between two runs at every aligned step, in time linear in the runs.

`inspector diff` reports, at each aligned step, `statediff.changes(state A, state B)`. Computing that from
the two full states at every step costs the size of the state each time, so a run whose message history
grows by one message per step costs the square of its length. `StatePairs` gives the same lists
(same changes, same order) from the states as stored instead:

- A stored state is rebuilt from the previous one copy-on-write (`states`), so a part of it that did not
  change at a step is the very same object as before. Each part of the two states is compared once and
  the result kept with the two objects it came from; it is reused while both are still the same objects.
- A message history is stored as a `$refs` marker (a slice of the run's value list) that grows at its
  end. When both runs' histories only grew, the new positions are compared, message by message, and the
  positions compared before are not compared again.

Anything else (a part replaced, a history rewritten, a hand-edited marker) is compared on the resolved
values with `statediff.changes`, as before; only that part, and only at the steps where it changed.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.recording.reader import Run
from inspector.recording.statediff import Change, Path, appended_runs, changes

__all__ = ["StatePairs"]


class StatePairs:
    """`changes(run_a.state_at(i), run_b.state_at(i))` for i = 0, 1, 2, ...; cheapest called in order."""

    def __init__(self, run_a: Run, run_b: Run) -> None:
        self._a, self._b = run_a, run_b
        self._root = _Pair(())

    def changes_at(self, i: int) -> list[Change]:
        return list(self._root.update(self._a.raw_state_at(i), self._b.raw_state_at(i), self._a, self._b))


def _name(key: str) -> str:
    """A stored key's own name: the recorder escapes keys starting with `$` as `$$`."""
    return key[1:] if key[:2] == "$$" else key


def _is_marker(value: dict[str, Any]) -> bool:
    """A value reference, resolved by `ValueTable.resolve` (any other dict resolves key by key)."""
    return len(value) == 1 and ("$ref" in value or "$refs" in value)


def _valid(marker: dict[str, Any], limit: int) -> bool:
    """Whether a `$refs` marker is well-formed and lists only defined values (ids below `limit`)."""
    runs = marker.get("$refs")
    if type(runs) is not list:
        return False
    for pair in runs:  # pyright: ignore[reportUnknownVariableType]
        if type(pair) is not list or len(pair) != 2:  # pyright: ignore[reportUnknownArgumentType]
            return False
        start, stop = pair  # pyright: ignore[reportUnknownVariableType]
        if type(start) is not int or type(stop) is not int or not 0 <= start <= stop <= limit:
            return False
    return True


def _ids(marker: dict[str, Any]) -> list[int]:
    """The value ids a valid `$refs` marker lists, in order."""
    return [ref for start, stop in marker["$refs"] for ref in range(start, stop)]


class _Pair:
    """One part of the two states (at `path`): the stored objects last compared and what differed."""

    __slots__ = ("a", "b", "children", "history", "out", "path")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.a: Any = _NONE
        self.b: Any = _NONE
        self.out: list[Change] = []
        self.children: dict[str, _Pair] = {}
        self.history: _Histories | None = None

    def update(self, a: Any, b: Any, run_a: Run, run_b: Run) -> list[Change]:
        if a is self.a and b is self.b:
            return self.out
        self.a, self.b = a, b
        if type(a) is dict and type(b) is dict:
            if not _is_marker(a) and not _is_marker(b):  # pyright: ignore[reportUnknownArgumentType]
                self.history = None
                self.out = self._dicts(a, b, run_a, run_b)  # pyright: ignore[reportUnknownArgumentType]
                return self.out
            if len(a) == 1 and len(b) == 1 and "$refs" in a and "$refs" in b:  # pyright: ignore[reportUnknownArgumentType]
                self.children = {}
                history = self.history or _Histories(self.path)
                if history.update(a, b, run_a, run_b):  # pyright: ignore[reportUnknownArgumentType]
                    self.history = history
                    self.out = history.out
                    return self.out
        self.children, self.history = {}, None
        self.out = changes(run_a.resolve(a), run_b.resolve(b), self.path)
        return self.out

    def _dicts(self, a: dict[str, Any], b: dict[str, Any], run_a: Run, run_b: Run) -> list[Change]:
        """`statediff.changes` on two dicts: B's keys in B's order, then the keys only A has."""
        out: list[Change] = []
        path = self.path
        before, children = self.children, {}
        for key, value in b.items():
            if key in a:
                child = before.get(key) or _Pair((*path, _name(key)))
                children[key] = child
                out.extend(child.update(a[key], value, run_a, run_b))
            else:
                out.append(Change((*path, _name(key)), "added", None, run_b.resolve(value)))
        out.extend(
            Change((*path, _name(key)), "removed", run_a.resolve(value), None)
            for key, value in a.items()
            if key not in b
        )
        self.children = children
        return out


class _Histories:
    """Two `$refs` lists compared position by position, each position once while both only grow.

    `statediff.changes` on two lists: when B is longer and starts with all of A, one `appended` per
    extra item of B; otherwise the changes of each common position in order, then A's extra items
    `removed` and B's `added`. Both depend only on each common position's comparison (`==` for the
    prefix test, `changes` for the rest), which an append leaves as it was.
    """

    __slots__ = ("a", "b", "differing", "ids_a", "ids_b", "out", "path", "unequal")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.a: dict[str, Any] | None = None
        self.b: dict[str, Any] | None = None
        self.ids_a: list[int] = []
        self.ids_b: list[int] = []
        self.differing: list[list[Change]] = []  # per common position that differs, in order
        self.unequal = 0  # common positions whose items are not `==`
        self.out: list[Change] = []

    def update(self, a: dict[str, Any], b: dict[str, Any], run_a: Run, run_b: Run) -> bool:
        """Bring the comparison to markers `a`, `b`; False when they are not well-formed `$refs`."""
        grown_a = _grown(self.a, a, self.ids_a, run_a)
        grown_b = _grown(self.b, b, self.ids_b, run_b)
        if grown_a is None or grown_b is None:
            return False
        common_before = min(len(self.ids_a), len(self.ids_b))
        if grown_a is _RESET or grown_b is _RESET:
            self.ids_a, self.ids_b = _ids(a), _ids(b)
            self.differing, self.unequal, common_before = [], 0, 0
        else:
            self.ids_a.extend(grown_a)
            self.ids_b.extend(grown_b)
        self.a, self.b = a, b
        ids_a, ids_b, path = self.ids_a, self.ids_b, self.path
        common = min(len(ids_a), len(ids_b))
        value_a, value_b = run_a.value, run_b.value
        for i in range(common_before, common):
            x, y = value_a(ids_a[i]), value_b(ids_b[i])
            if x is y or (x == y and _same_json(x, y)):
                continue  # the usual position: the same message in both runs, no changes
            if x != y:
                self.unequal += 1
            found = changes(x, y, (*path, i))
            if found:
                self.differing.append(found)
        n_a, n_b = len(ids_a), len(ids_b)
        if n_b > n_a and not self.unequal:
            self.out = [Change((*path, i), "appended", None, value_b(ids_b[i])) for i in range(n_a, n_b)]
            return True
        out = [change for found in self.differing for change in found]
        out.extend(Change((*path, i), "removed", value_a(ids_a[i]), None) for i in range(common, n_a))
        out.extend(Change((*path, i), "added", None, value_b(ids_b[i])) for i in range(common, n_b))
        self.out = out
        return True


def _grown(before: dict[str, Any] | None, now: dict[str, Any], ids: list[int], run: Run) -> Any:
    """The ids `now` adds at the end of `before` (one run's history); `_RESET` when it is not an append
    of defined values (compare from scratch); None when `now` is not a well-formed marker."""
    if not _valid(now, run.value_count):
        return None
    if before is None:
        return _RESET
    if before == now:
        return []
    tail = appended_runs(before, now)
    if tail is None:
        return _RESET
    return [ref for start, stop in tail for ref in range(start, stop)]


def _same_json(x: Any, y: Any) -> bool:
    """Whether two values that compare equal are also written alike (`1` and `1.0`, `true` and `1`
    compare equal, and `statediff.changes` reports them as changed): both encoded at C speed, which
    beats walking them when, as usual, they are the same message."""
    try:
        return json.dumps(x) == json.dumps(y)
    except (TypeError, ValueError):
        return False


_NONE: Any = object()
_RESET: Any = object()
