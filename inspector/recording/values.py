"""The value table: `value` lines by id, and `resolve`, which puts them back where they are referred to.

A message is stored once, as a `value` line, and referred to as `{"$ref": n}`; a message list as
`{"$refs": [[start, stop], ...]}`, runs of consecutive ids. Keys of recorded data that start with `$`
are stored with one more `$` (`$$ref` for `$ref`) and given back their own name here.

Each value is parsed once, when first used, and kept in one list by id, so the messages of a history
are shared by every step that holds them. A `$refs` marker resolves to a `ValueList`, a read-only view
over those ids (`valuelist.py`): a step's history is a prefix of the one range of ids the whole run
appends to, made in constant time, and only the items looked at are read. Opening step 99,000 of a long
agent run reads the messages it shows, not the 99,000 before them. A list of at most 8 values (a tool
node's output, the first steps' history) is copied instead: a short list costs less than a view.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from inspector.errors import RunFileError
from inspector.recording.fileindex import RunFile, RunFileWarning
from inspector.recording.format import message_problem
from inspector.recording.line_parse import load_json
from inspector.recording.valuelist import ValueList

__all__ = ["ValueTable"]


class ValueTable:
    """`value` lines by id (offsets from the file index), parsed on first use and kept."""

    def __init__(self, file: RunFile) -> None:
        self._file = file
        self._offsets = file.values
        self._resolved: list[Any] = [_UNREAD] * len(file.values)
        self._read_below = 0  # every id below this one is read

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

    def between(self, start: int, stop: int) -> list[Any]:
        """The values with ids `start` to `stop` (within the table), read where not read yet: a
        `ValueList` iterates through these, a chunk at a time."""
        resolved = self._resolved
        if stop > self._read_below:
            for ref in range(max(start, self._read_below), stop):
                if resolved[ref] is _UNREAD:
                    resolved[ref] = self._read(ref)
            below = self._read_below
            while below < len(resolved) and resolved[below] is not _UNREAD:
                below += 1
            self._read_below = below
        return resolved[start:stop]

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
            value = load_json(raw, nesting_checked=file.nesting_checked(offset))["value"]
        except (ValueError, KeyError, TypeError):
            return self._lost(ref, offset, "")
        problem = message_problem(value)
        if problem is not None:
            return self._lost(ref, offset, f" ({problem})")
        return self.resolve(value) if b'"$$' in raw else value

    def _lost(self, ref: int, offset: int, why: str) -> Any:
        """A corrupt value line: an error, or when lenient a warning and a marked placeholder."""
        file = self._file
        if not file.lenient:
            raise file.error(f"a value line is corrupt{why}", offset)
        if offset not in file.skipped:
            file.corrupt(offset, f"is a corrupt value line{why}")
        return {"$repr": f"<value {ref} lost: line {file.line_no(offset)} was corrupt>", "$type": "lost"}

    def resolve(self, value: Any) -> Any:
        """`value` with every `{"$ref": n}` replaced by the stored value, every `{"$refs": runs}` by a
        `ValueList` (a `list` when it holds at most 8 values), and escaped keys (`$$x`) given back
        their own name (`$x`)."""
        if type(value) is dict:
            if len(value) == 1:  # pyright: ignore[reportUnknownArgumentType]
                if "$ref" in value:
                    return self.value(value["$ref"])
                if "$refs" in value:
                    runs = value["$refs"]
                    if not _is_runs(runs):
                        return [self._bad_marker(f"a `$refs` marker `{json.dumps(runs)}` is malformed")]
                    size, total = len(self._resolved), 0
                    for start, stop in runs:  # (a loop: the usual history is one run)
                        if not 0 <= start <= stop <= size:
                            return self._outside(runs)
                        total += stop - start
                    if total > _SHORT:
                        return ValueList(self, [(start, stop) for start, stop in runs if stop > start])
                    return [v for start, stop in runs for v in self.between(start, stop)]
            return {  # pyright: ignore[reportUnknownVariableType]
                (k[1:] if k[:2] == "$$" else k): self.resolve(v)  # pyright: ignore[reportUnknownArgumentType]
                for k, v in value.items()  # pyright: ignore[reportUnknownVariableType]
            }
        if type(value) is list:
            return [self.resolve(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
        return value

    def _outside(self, runs: list[list[int]]) -> list[Any]:
        """A `$refs` list with a run past the values the file defines (a hand-edited file): the values
        it does define, and one placeholder per run for the rest (an error unless lenient). Bounded by
        the file's real value count, not the run's claim: `[[1, 10**12]]` must not take forever."""
        size, out = len(self._resolved), []
        for start, stop in runs:
            real_start, real_stop = max(start, 0), min(stop, size)
            out.extend(self.value(i) for i in range(real_start, real_stop))
            if stop > start and (start < 0 or stop > size):
                out.append(self._undefined(start if start < 0 else max(start, size)))
        return out

    def check(self, value: Any) -> None:
        """Raise the `RunFileError` that `resolve(value)` would raise for a malformed or dangling
        marker, without resolving anything: for values resolved later, when first read."""
        if type(value) is dict:
            if len(value) == 1 and ("$ref" in value or "$refs" in value):  # pyright: ignore[reportUnknownArgumentType]
                ref = value.get("$ref", _UNREAD)  # pyright: ignore[reportUnknownMemberType]
                if type(ref) is int and 0 <= ref < len(self._resolved):
                    return  # the usual marker: one message
                if ref is not _UNREAD:
                    if type(ref) is not int:
                        self._bad_marker(f"a value reference `{json.dumps(ref)}` is not a value id")
                    elif not 0 <= ref < len(self._resolved):
                        self._undefined(ref)
                    return
                runs = value["$refs"]
                if not _is_runs(runs):
                    self._bad_marker(f"a `$refs` marker `{json.dumps(runs)}` is malformed")
                for start, stop in runs:
                    if stop > start and not (start >= 0 and stop <= len(self._resolved)):
                        self._undefined(start if start < 0 else stop - 1)
                return
            for item in value.values():  # pyright: ignore[reportUnknownVariableType]
                self.check(item)
        elif type(value) is list:
            for item in value:  # pyright: ignore[reportUnknownVariableType]
                self.check(item)

    def _bad_marker(self, what: str) -> Any:
        """A malformed `$ref`/`$refs` marker (the file was edited by hand): an error, or when lenient a
        warning and a marked placeholder in its place."""
        file = self._file
        if not file.lenient:
            raise RunFileError(f"{what}; the file was changed after it was recorded", path=file.path)
        warnings.warn(f"{file.path}: {what}", RunFileWarning, stacklevel=3)
        return {"$repr": f"<{what}>", "$type": "lost"}


_UNREAD: Any = object()
_SHORT = 8  # values: a list this short is copied (cheaper than a view: a tool's one-message output)


def _is_runs(runs: Any) -> bool:
    """Whether a `$refs` payload is a list of `[start, stop]` integer pairs (a loop, not `all()` over a
    generator: asked for every history marker a walk meets, which holds one pair)."""
    if type(runs) is not list:
        return False
    for pair in runs:  # pyright: ignore[reportUnknownVariableType]
        if not (type(pair) is list and len(pair) == 2 and type(pair[0]) is int and type(pair[1]) is int):  # pyright: ignore[reportUnknownArgumentType]
            return False
    return True
