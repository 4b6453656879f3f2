"""The value table: `value` lines by id, and `resolve`, which puts them back where they are referred to.

A message is stored once, as a `value` line, and referred to as `{"$ref": n}`; a message list as
`{"$refs": [[start, stop], ...]}`, runs of consecutive ids. Keys of recorded data that start with `$`
are stored with one more `$` (`$$ref` for `$ref`) and given back their own name here.

Values are shared, not copied: a `$refs` list resolves to a `ValueList`, a read-only sequence over the
table's one list of resolved values, so a history that grows by a message per step is held once and
each step's view of it is a prefix of the same storage (a 10,000-step run does not build 10,000
lists of up to 10,000 messages). A `ValueList` is a `Sequence`: index it, slice it, iterate it,
compare it with a list; `list(v)` makes a plain list when one is needed.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, overload

from inspector.errors import RunFileError
from inspector.recording.fileindex import RunFile, RunFileWarning, load_json

__all__ = ["ValueList", "ValueTable"]


class ValueList(Sequence[Any]):
    """A resolved `$refs` list: the values with ids in `runs`, read from the table's shared storage."""

    __slots__ = ("_items", "_runs", "_table")

    def __init__(self, table: ValueTable, runs: list[list[int]]) -> None:
        self._table = table
        self._runs = runs
        self._items: list[Any] | None = (
            None if len(runs) == 1 else [table.value(i) for s, e in runs for i in range(s, e)]
        )

    def __len__(self) -> int:
        if self._items is not None:
            return len(self._items)
        start, stop = self._runs[0]
        return max(stop - start, 0)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if self._items is not None:
            return self._items[i]
        start = self._runs[0][0]
        n = len(self)
        if isinstance(i, slice):
            return [self._table.value(start + k) for k in range(*i.indices(n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("value list index out of range")
        return self._table.value(start + i)

    def __iter__(self) -> Iterator[Any]:
        if self._items is not None:
            return iter(self._items)
        start, stop = self._runs[0]
        return self._table.values_between(start, stop)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ValueList) and other._runs == self._runs and other._table is self._table:
            return True
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
        return NotImplemented

    __hash__ = None  # pyright: ignore[reportAssignmentType]

    def __repr__(self) -> str:
        return repr(list(self))


class ValueTable:
    """`value` lines by id (offsets from the file index), parsed on first use and kept."""

    def __init__(self, file: RunFile) -> None:
        self._file = file
        self._offsets = file.values
        self._resolved: list[Any] = [_UNREAD] * len(file.values)

    def __len__(self) -> int:
        return len(self._offsets)

    def value(self, ref: int) -> Any:
        """The stored value with id `ref` (a `value` line)."""
        if type(ref) is not int:  # a hand-edited marker: not an id at all
            return self._bad_marker(f"a value reference `{json.dumps(ref)}` is not a value id")
        if 0 <= ref < len(self._resolved):
            value = self._resolved[ref]
            if value is not _UNREAD:
                return value
        else:
            return self._undefined(ref)
        value = self._read(ref)
        self._resolved[ref] = value
        return value

    def values_between(self, start: int, stop: int) -> Iterator[Any]:
        resolved = self._resolved
        for ref in range(start, stop):
            value = resolved[ref] if 0 <= ref < len(resolved) else _UNREAD
            yield self.value(ref) if value is _UNREAD else value

    def _undefined(self, ref: int) -> Any:
        file = self._file
        if file.lenient:
            warnings.warn(
                f"{file.path}: value {ref} is referred to but not defined (a corrupt line was skipped)",
                RunFileWarning,
                stacklevel=3,
            )
            return {"$repr": f"<value {ref} lost: the file does not define it>", "$type": "lost"}
        raise file.error(f"reference to value {ref}, which the file does not define", None)

    def _read(self, ref: int) -> Any:
        file = self._file
        offset = self._offsets[ref]
        raw = file.raw_line(offset)
        try:
            value = load_json(raw)["value"]
        except (ValueError, KeyError, TypeError):
            if not file.lenient:
                raise file.error("a value line is corrupt", offset) from None
            if offset not in file.skipped:
                file.corrupt(offset, "is a corrupt value line")
            return {"$repr": f"<value {ref} lost: line {file.line_no(offset)} was corrupt>", "$type": "lost"}
        return self.resolve(value) if b'"$$' in raw else value

    def resolve(self, value: Any) -> Any:
        """`value` with every `{"$ref": n}` replaced by the stored value, every `{"$refs": runs}` by a
        `ValueList`, and escaped keys (`$$x`) given back their own name (`$x`)."""
        if type(value) is dict:
            if len(value) == 1:  # pyright: ignore[reportUnknownArgumentType]
                if "$ref" in value:
                    return self.value(value["$ref"])
                if "$refs" in value:
                    runs = value["$refs"]
                    if not _is_runs(runs):
                        return [self._bad_marker(f"a `$refs` marker `{json.dumps(runs)}` is malformed")]
                    return [self.value(i) for start, stop in runs for i in range(start, stop)]
            return {  # pyright: ignore[reportUnknownVariableType]
                (k[1:] if k[:2] == "$$" else k): self.resolve(v)  # pyright: ignore[reportUnknownArgumentType]
                for k, v in value.items()  # pyright: ignore[reportUnknownVariableType]
            }
        if type(value) is list:
            return [self.resolve(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
        return value

    def _bad_marker(self, what: str) -> Any:
        """A malformed `$ref`/`$refs` marker (the file was edited by hand): an error, or when lenient a
        warning and a marked placeholder in its place."""
        file = self._file
        if not file.lenient:
            raise RunFileError(f"{what}; the file was changed after it was recorded", path=file.path)
        warnings.warn(f"{file.path}: {what}", RunFileWarning, stacklevel=3)
        return {"$repr": f"<{what}>", "$type": "lost"}


_UNREAD: Any = object()


def _is_runs(runs: Any) -> bool:
    """Whether a `$refs` payload is a list of `[start, stop]` integer pairs."""
    return type(runs) is list and all(
        type(pair) is list and len(pair) == 2 and type(pair[0]) is int and type(pair[1]) is int  # pyright: ignore[reportUnknownArgumentType]
        for pair in runs  # pyright: ignore[reportUnknownVariableType]
    )
