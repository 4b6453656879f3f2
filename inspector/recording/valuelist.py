"""`ValueList`: a recorded message history as a read-only view over the value table, not a new list.

A run file stores a list of messages as `{"$refs": [[start, stop], ...]}`, runs of value ids. A history
that grows by one message per step is therefore one range of ids that each step sees a longer prefix
of. Resolving that marker to a `list` would copy `stop - start` pointers per step and, worse, read every
value line below `stop` on the way: opening step 99,000 of a 100,000-step run read 99,000 values to show
the last few. A `ValueList` is the range itself: `len` is arithmetic, an index reads one value (kept in
the table, shared by every step that holds it), a slice is another view, and iteration reads in order,
chunk by chunk, only as far as it is taken.

It is a `collections.abc.Sequence`, not a `list` (a lazy `list` subclass would serialise empty: `json`
reads a list's items straight from its storage). So code that handles recorded values tests
`isinstance(x, LISTS)` rather than `list`, and dumps them with `json.dumps(..., default=json_default)`.
It compares equal to a `list` with the same items, pickles and deep-copies as a `list`, and never
changes.
"""

from __future__ import annotations

import bisect
import copy
import operator
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, overload

__all__ = ["LISTS", "ValueList", "json_default", "plain"]

_CHUNK = 256  # values read ahead per step of an iteration: C-speed slices, yet lazy for an early stop


class _Table(Protocol):
    """What a view needs of the value table (`values.ValueTable`)."""

    def value(self, ref: int) -> Any: ...

    def between(self, start: int, stop: int) -> list[Any]: ...


class ValueList(Sequence[Any]):
    """The values with the ids in `runs` (`(start, stop)` pairs, each non-empty) of `table`, in order."""

    __slots__ = ("_ends", "_runs", "_table")

    def __init__(self, table: _Table, runs: Sequence[tuple[int, int]]) -> None:
        self._table = table
        self._runs = tuple(runs)
        ends: list[int] = []
        n = 0
        for start, stop in self._runs:
            n += stop - start
            ends.append(n)
        self._ends = tuple(ends)  # the view's length after each run

    @property
    def runs(self) -> tuple[tuple[int, int], ...]:
        """The value ids this view holds, as `(start, stop)` runs (what the file's `$refs` marker says)."""
        return self._runs

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def _ref(self, i: int) -> int:
        """The value id of item `i` (0 <= i < len)."""
        if len(self._runs) == 1:
            return self._runs[0][0] + i
        k = bisect.bisect_right(self._ends, i)
        return self._runs[k][0] + i - (self._ends[k - 1] if k else 0)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return ValueList(self._table, self._sub_runs(start, stop))
        i = operator.index(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("list index out of range")
        return self._table.value(self._ref(i))

    def _sub_runs(self, start: int, stop: int) -> list[tuple[int, int]]:
        """The runs of items `start` to `stop` (0 <= start, stop <= len)."""
        out: list[tuple[int, int]] = []
        before = 0
        for (first, _), end in zip(self._runs, self._ends, strict=True):
            lo, hi = max(start, before), min(stop, end)
            if lo < hi:
                out.append((first + lo - before, first + hi - before))
            before = end
            if before >= stop:
                break
        return out

    def __iter__(self) -> Iterator[Any]:
        between = self._table.between
        for start, stop in self._runs:
            for lo in range(start, stop, _CHUNK):
                yield from between(lo, min(stop, lo + _CHUNK))

    def __reversed__(self) -> Iterator[Any]:
        value = self._table.value
        for start, stop in reversed(self._runs):
            for ref in range(stop - 1, start - 1, -1):
                yield value(ref)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ValueList):
            if other._table is self._table and other._runs == self._runs:
                return True  # the same values: nothing to read
        elif not isinstance(other, list):
            return NotImplemented
        if len(other) != len(self):  # pyright: ignore[reportUnknownArgumentType]
            return False
        return all(a is b or a == b for a, b in zip(self, other, strict=True))  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are not hashable either

    def __add__(self, other: object) -> list[Any]:
        if isinstance(other, list | ValueList):
            return [*self, *other]  # pyright: ignore[reportUnknownArgumentType]
        return NotImplemented

    def __radd__(self, other: object) -> list[Any]:
        if isinstance(other, list):
            return [*other, *self]  # pyright: ignore[reportUnknownArgumentType]
        return NotImplemented

    def __repr__(self) -> str:
        return repr(list(self))

    def copy(self) -> list[Any]:
        """A `list` with the same items (as `list.copy`), for a caller that means to change it."""
        return list(self)

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(item, memo) for item in self]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


LISTS = list | ValueList
"""What a recorded list may be, for `isinstance(x, LISTS)`: a `list`, or a history's `ValueList`."""


def json_default(value: Any) -> Any:
    """`json.dumps(..., default=json_default)`: a `ValueList` is written as the list it stands for."""
    if isinstance(value, ValueList):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def plain(value: Any) -> Any:
    """`value` with every `ValueList` in it made a `list` (containers copied only where one is found),
    for code that needs plain JSON-like data: a `pydantic` model, a `type(x) is list` test."""
    if isinstance(value, ValueList):
        return [plain(item) for item in value]
    if type(value) is dict:
        out: dict[Any, Any] | None = None
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            new = plain(item)
            if new is not item:
                if out is None:
                    out = dict(value)  # pyright: ignore[reportUnknownArgumentType]
                out[key] = new
        return value if out is None else out  # pyright: ignore[reportUnknownVariableType]
    if type(value) is list:
        items = [plain(item) for item in value]  # pyright: ignore[reportUnknownVariableType]
        if any(a is not b for a, b in zip(items, value, strict=True)):  # pyright: ignore[reportUnknownArgumentType]
            return items
        return value  # pyright: ignore[reportUnknownVariableType]
    return value
