"""`HistoryView`: a fixed-length, read-only view of a list's first n items (a Go slice header, ported).

Eino's flow ReAct agent hands its model `state.Messages`, a slice header: O(1) to pass, fixed length,
sharing the backing array, so the state's later appends are not visible through it. A copy of the list
gives the same guarantee at O(history) per round, which over a long run is what dominates the round
(docs/performance.md). This view gives it at O(1): it keeps the list and its length at creation and
shows only those items.

It behaves as a read-only `list` where it can: `len`, indexing (negative too), slicing (a new `list`),
iteration, `reversed`, `in`, `index`/`count`, `==`/`<` with lists and views, `+`/`*` giving a `list`,
`copy()`, `list(view)`, and a `list`'s repr. It is not a `list` instance (`isinstance(view, list)` is
False, `json.dumps` refuses it, it has no `append`): code that needs a list takes `list(view)` or
`view.copy()`. Pickling and `copy.deepcopy` give a plain list.

The guarantee holds while the underlying list only grows at its end, which is how the agent's state
history is used (pre-handlers append; a `message_rewriter` gets and replaces a copy, see `react.py`).
Replacing or removing items of the underlying list in place would show through, as with a Go slice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, SupportsIndex, TypeVar, overload

__all__ = ["HistoryView"]

T = TypeVar("T")


class HistoryView(Sequence[T]):
    """The first `len(view)` items of `items`, read-only; see the module docstring."""

    __slots__ = ("_items", "_n")

    def __init__(self, items: list[T], n: int | None = None) -> None:
        size = len(items)
        if n is None:
            n = size
        elif not 0 <= n <= size:
            raise ValueError(f"a view of {n} items of a list of {size}")
        self._items = items
        self._n = n

    # -- reading --------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: SupportsIndex) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> T | list[T]:
        n = self._n
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step < 0 and stop < 0:  # `indices` says "before the first item" with -1
                return self._items[start::step]
            return self._items[start:stop:step]
        i = index.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("list index out of range")
        return self._items[i]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._n)

    def __reversed__(self) -> Iterator[T]:
        return map(self._items.__getitem__, range(self._n - 1, -1, -1))

    def __contains__(self, value: object) -> bool:
        if len(self._items) == self._n:
            return value in self._items
        return any(item is value or item == value for item in islice(self._items, self._n))

    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex | None = None) -> int:
        begin, end, _ = slice(start, stop).indices(self._n)
        return self._items.index(value, begin, max(begin, end))

    def count(self, value: Any) -> int:
        return self.copy().count(value) if len(self._items) != self._n else self._items.count(value)

    def copy(self) -> list[T]:
        """The items as a new `list` (as `list.copy`)."""
        return self._items[: self._n]

    def __repr__(self) -> str:
        return repr(self.copy())

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self.copy(),))

    # -- comparing and combining, as a list would ----------------------------------------------------

    def as_list(self) -> list[T]:
        """The items as a `list` without a copy when the view covers the whole underlying list (that
        list itself: read it, never change it), else a copy. For readers that special-case `list`,
        such as a recorder."""
        return self._items if len(self._items) == self._n else self._items[: self._n]

    def __eq__(self, other: object) -> bool:
        if type(other) is HistoryView:
            other = other.as_list()  # pyright: ignore[reportUnknownMemberType]
        elif not isinstance(other, list):
            return NotImplemented
        return len(other) == self._n and self.as_list() == other  # pyright: ignore[reportUnknownArgumentType]

    __hash__ = None  # type: ignore[assignment]  # mutable underneath, as a list: unhashable

    def _other(self, other: object) -> list[Any] | None:
        if type(other) is HistoryView:
            return other.as_list()  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        return other if isinstance(other, list) else None  # pyright: ignore[reportUnknownVariableType]

    def __lt__(self, other: object) -> bool:
        mine, theirs = self.as_list(), self._other(other)
        return NotImplemented if theirs is None else mine < theirs

    def __le__(self, other: object) -> bool:
        mine, theirs = self.as_list(), self._other(other)
        return NotImplemented if theirs is None else mine <= theirs

    def __gt__(self, other: object) -> bool:
        mine, theirs = self.as_list(), self._other(other)
        return NotImplemented if theirs is None else mine > theirs

    def __ge__(self, other: object) -> bool:
        mine, theirs = self.as_list(), self._other(other)
        return NotImplemented if theirs is None else mine >= theirs

    def __add__(self, other: object) -> list[Any]:
        theirs = self._other(other)
        return NotImplemented if theirs is None else self.copy() + theirs

    def __radd__(self, other: object) -> list[Any]:
        theirs = self._other(other)
        return NotImplemented if theirs is None else theirs + self.copy()

    def __mul__(self, times: SupportsIndex) -> list[T]:
        return self.copy() * times

    __rmul__ = __mul__
