"""The run file as lines: opening it, checking it, and finding lines without parsing them.

Opening indexes the file instead of parsing it: top-level step lines, full state snapshots, `value`
lines and `segment` lines are found by scanning for their line prefixes (the writer puts `kind`,
`path` and `full` first for this reason). A line is parsed when it is first used, with a small cache
in front. So a 100,000-step file opens in well under a second and memory stays bounded (large files
are memory-mapped).

Tolerance: a cut-off last line (a killed process) is left out (`cut_off`). A corrupt line elsewhere
raises `RunFileError` with its 1-based line number, at open time when the file is small enough to
check every line (`check_limit` bytes), else when the line is read; `lenient=True` skips corrupt
lines with a `RunFileWarning` instead. What is not a regular file (a FIFO, a device such as
/dev/zero, even behind a symlink) is refused before anything is read, and so is JSON nested deeper
than the recorder ever writes (`MAX_NESTING`), which would otherwise exhaust Python's recursion. How
one line is parsed is `line_parse`'s.
"""

from __future__ import annotations

import bisect
import mmap
import os
import re
import stat
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Any

from inspector.errors import RunFileError
from inspector.recording.format import (
    EVENT_KINDS,
    FORMAT_NAME,
    FORMAT_VERSION,
    Header,
    InvalidLine,
    StepRecord,
    decode_event,
    event_from,
    header_from,
)
from inspector.recording.line_parse import (
    EVENT_START,
    MAX_NESTING,
    NestedTooDeep,
    first_error,
    load_json,
    too_deep,
    usual_line,
    usual_lines,
    utf8,
)
from inspector.terminaltext import visible

__all__ = [
    "LRU",
    "STEP_CACHE",
    "RunFile",
    "RunFileWarning",
    "open_run_file",
]

_STEP_FULL = b'\n{"kind":"step","full":true,'
_VALUE = b'\n{"kind":"value",'
_SEGMENT = b'\n{"kind":"segment",'
_HEADER_START = b'{"kind":"header",'
_INDEXED = (b'{"kind":"step","index":', _STEP_FULL[1:], _SEGMENT[1:])
# A top-level step line's start: group 1 marks a full snapshot, group 2 is the index when it follows
# (always, from the recorder; a hand-edited line may hold something else, read by parsing the line).
_STEP_LINE = re.compile(rb'\n\{"kind":"step",(?:("full":true,)(?:"index":)?|"index":)(-?\d+)?')
_BAD_START = re.compile(rb'\n(?!\{"kind":"|\Z)')
_BAD_KIND = re.compile(
    rb'\n\{"kind":"(?!(?:' + b"|".join(re.escape(k.encode()) for k in EVENT_KINDS) + rb')")([^"\n]{0,40})'
)
"""An event line of no kind an event has (a second header, a kind from elsewhere): the `kind` key is
first on every line, so its value is found without parsing the line."""
CHECK_LIMIT = 32 * 1024 * 1024
STEP_CACHE = 32
"""Parsed step lines (and `Step`s) kept for reuse: enough for the steps around the one being read (a
walk reads each step a few times in a row, a view moves back and forth near it). Kept small on
purpose: objects that outlive many allocations are promoted through the garbage collector's
generations and traversed again and again, which cost a walk over a long run a fifth of its time with
256 kept."""


class RunFileWarning(UserWarning):
    """A corrupt line was skipped because the run file was read with `lenient=True`."""


class LRU(OrderedDict[Any, Any]):
    """A small least-recently-used cache; `get_lru` returns None for a miss."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def get_lru(self, key: Any) -> Any:
        value = self.get(key)  # (one lookup, no `super()` object to make: a walk asks several times a step)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key: Any, value: Any) -> None:
        if key in self:  # a new key goes in at the end already: a walk puts each step once
            self.move_to_end(key)
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)


def open_run_file(path: Path, check_limit: int) -> bytes | mmap.mmap:
    """The file's bytes (memory-mapped above `check_limit`). Refuses, with a `RunFileError`, what is
    missing, a directory, or not a regular file: a FIFO would block the read forever and a device such
    as /dev/zero would fill memory (symlinks are followed, so a link to one is refused too)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise RunFileError("no such file", path=path) from None
    except IsADirectoryError:
        raise RunFileError("is a directory, not a run file", path=path) from None
    except OSError as exc:
        raise RunFileError(f"cannot be read: {exc.strerror or exc}", path=path) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise RunFileError("is a directory, not a run file", path=path)
        if not stat.S_ISREG(info.st_mode):
            what = "a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode) else "a device or other special file"
            raise RunFileError(
                f"is {what}, not a regular file; a run file is a file the recorder wrote (copy the "
                "recording to a file and open that)",
                path=path,
            )
        if 0 < info.st_size > check_limit:
            return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(info.st_size + 1)  # a file that grows while read: what it held then
    except OSError as exc:
        raise RunFileError(f"cannot be read: {exc.strerror or exc}", path=path) from None
    finally:
        os.close(fd)


class RunFile:
    """A run file's lines: the header, where each top-level step, snapshot, value and segment line
    starts, which lines were skipped as corrupt, and each line parsed on demand."""

    def __init__(self, path: Path, data: bytes | mmap.mmap, *, lenient: bool, check_limit: int) -> None:
        self.path = path
        self.data = data
        self.lenient = lenient
        self.skipped_lines: list[int] = []
        self.skipped: set[int] = set()
        self._lines = LRU(STEP_CACHE)
        self.header = self._read_header()
        end = self._complete_end()
        self.checked = len(data) <= check_limit
        """Whether every line was checked now: one read later is JSON, nested no deeper than allowed
        (unless it was skipped as corrupt)."""
        if self.checked:
            self._check_all_lines(end)
        else:
            self._check_line_starts(end)
        self._check_kinds(end)
        self.end = end
        self._index(end)

    # --- errors ---------------------------------------------------------------------------------

    def line_no(self, offset: int) -> int:
        return self.data[:offset].count(b"\n") + 1

    def error(self, message: str, offset: int | None) -> RunFileError:
        return RunFileError(message, path=self.path, line_no=None if offset is None else self.line_no(offset))

    def corrupt(self, offset: int, what: str) -> None:
        """A corrupt line: `RunFileError`, or when lenient a warning, and the line is skipped."""
        line_no = self.line_no(offset)
        if not self.lenient:
            raise RunFileError(
                f"line {line_no} {what}; the file is corrupt in the middle (a cut-off last line would be "
                "fine). To skip bad lines, read it with `read_run(path, lenient=True)` in Python, or pass "
                "`--lenient` to `inspector show`, `inspector replay` or `inspector diff`.",
                path=self.path,
                line_no=line_no,
            )
        if offset in self.skipped:
            return  # (found at open and met again when read: skipped and said once)
        self.skipped_lines.append(line_no)
        self.skipped.add(offset)
        warnings.warn(f"{self.path}:{line_no}: skipped a corrupt line", RunFileWarning, stacklevel=5)

    # --- opening --------------------------------------------------------------------------------

    def _read_header(self) -> Header:
        data = self.data
        if len(data) == 0:
            raise RunFileError(
                "the file is empty; a run file starts with a header line", path=self.path, line_no=1
            )
        nl = data.find(b"\n")
        raw = data[: nl if nl >= 0 else len(data)]
        try:
            obj = load_json(raw)
        except NestedTooDeep as exc:
            raise RunFileError(
                f"the header line is not a run file's header: {exc}", path=self.path, line_no=1
            ) from None
        except ValueError:
            if nl < 0 and _HEADER_START.startswith(bytes(raw[: len(_HEADER_START)])):
                raise RunFileError(
                    "the header is incomplete: the run was interrupted before its first line was complete "
                    "(the process stopped right after it started), so nothing of it was recorded; "
                    "record it again",
                    path=self.path,
                    line_no=1,
                ) from None
            raise RunFileError(
                "the first line is not JSON; this is not a graph-inspector run file "
                "(JSON Lines with a header)",
                path=self.path,
                line_no=1,
            ) from None
        if not isinstance(obj, dict) or obj.get("kind") != "header" or obj.get("format") != FORMAT_NAME:  # pyright: ignore[reportUnknownMemberType]
            raise RunFileError(
                f"the first line is not a `{FORMAT_NAME}` header; "
                "this is not a run file written by the inspector",
                path=self.path,
                line_no=1,
            )
        version = obj.get("version")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise RunFileError(
                f"format version {version} is newer than this inspector reads ({FORMAT_VERSION}); upgrade it",
                path=self.path,
                line_no=1,
            )
        if version < FORMAT_VERSION:
            raise RunFileError(
                f"format version {version} is older than this inspector reads ({FORMAT_VERSION}): it was "
                "written by an early development version; record the run again",
                path=self.path,
                line_no=1,
            )
        try:
            return header_from(obj)
        except InvalidLine as exc:
            raise RunFileError(
                f"the header is malformed: {first_error(exc)}", path=self.path, line_no=1
            ) from None

    def _complete_end(self) -> int:
        """Offset just past the last complete line; a cut-off tail (no newline, or not JSON) is ignored."""
        data = self.data
        size = len(data)
        self.cut_off = False
        if data[size - 1 : size] != b"\n":
            self.cut_off = True
            return data.rfind(b"\n") + 1
        start = data.rfind(b"\n", 0, size - 1) + 1
        if start > 0:
            try:
                load_json(data[start:size])
            except NestedTooDeep:
                return size  # whole, but corrupt: reported as such where it is checked or read
            except ValueError:
                self.cut_off = True
                return start
        return size

    def _check_all_lines(self, end: int) -> None:
        data = self.data
        pos = data.find(b"\n") + 1
        if not self.lenient:
            pos = self._check_usual_lines(pos, end)
        while 0 < pos < end:
            nl = data.find(b"\n", pos)
            line = data[pos:nl]
            ok = line.startswith(EVENT_START)
            what = "is not a JSON event line"
            obj: Any = None
            if ok:
                try:
                    obj = load_json(line)
                    ok = isinstance(obj, dict)
                except NestedTooDeep as exc:
                    ok, what = False, f"is not a valid event ({exc})"
                except ValueError:
                    ok = False
            if ok and self.lenient and line.startswith(_INDEXED):
                # Lines the index relies on are checked whole here, so a skipped one is left out of it
                # rather than failing when its step is read.
                try:
                    event_from(obj)
                except InvalidLine as exc:
                    ok, what = False, f"is not a valid event ({first_error(exc)})"
            if not ok:
                self.corrupt(pos, what)
            pos = nl + 1

    def _check_usual_lines(self, pos: int, end: int) -> int:
        """Check the lines from `pos` on that `_check_all_lines` would find good in the usual way (an
        event line that is one JSON object, without brackets enough to be too deep, in a file of valid
        UTF-8), checked without being parsed (`is_json_object`); where the first other line starts."""
        data = self.data
        if not 0 < pos < end:
            return pos
        region = data[pos:end]
        if not utf8(region):
            return pos  # (a file with broken UTF-8: every line is checked the slow way, which finds it)
        if usual_lines(region):
            return end  # (the usual file: every line at once)
        while pos < end:
            nl = data.find(b"\n", pos)
            if not usual_line(data[pos:nl]):
                break
            pos = nl + 1
        return pos

    def _check_line_starts(self, end: int) -> None:
        for match in _BAD_START.finditer(self.data, 0, end - 1):
            self.corrupt(match.start() + 1, "does not start like an event line")

    def _check_kinds(self, end: int) -> None:
        """Every line after the header is of a kind an event has: a second header (two recordings
        joined into one file) or a line of an unknown kind is corrupt, not silently passed over."""
        for match in _BAD_KIND.finditer(self.data, 0, end):  # pyright: ignore[reportCallIssue, reportArgumentType]
            offset = match.start() + 1
            if offset in self.skipped:
                continue
            kind = bytes(match.group(1)).decode("utf-8", "replace")
            if kind == "header":
                what = "is a second header (a run file has one, on its first line: were two files joined?)"
            else:
                what = f"is of an unknown kind `{visible(kind)}` (not one of {', '.join(EVENT_KINDS)})"
            self.corrupt(offset, what)

    def find_all(self, needle: bytes, end: int) -> list[int]:
        """Offsets of the lines starting with `needle` (which starts with a newline)."""
        data = self.data
        out: list[int] = []
        pos = data.find(needle, 0, end)
        while pos >= 0:
            out.append(pos + 1)
            pos = data.find(needle, pos + 1, end)
        return out

    def _index(self, end: int) -> None:
        """Offsets of the top-level step lines (each step's span runs from the previous one's end) with
        the index each line starts with, of full snapshots, value and segment lines; one regular
        expression finds the step lines and their index digits, nothing is parsed."""
        skipped = self.skipped  # a corrupt line that starts like a step is no step
        steps: list[int] = []
        full: list[int] = []
        indexes: list[bytes | None] = []
        for match in _STEP_LINE.finditer(self.data, 0, end):  # pyright: ignore[reportCallIssue, reportArgumentType]
            offset = match.start() + 1
            if skipped and offset in skipped:
                continue
            is_full, index = match.groups()
            if is_full is not None:
                full.append(len(steps))
            steps.append(offset)
            indexes.append(index)
        # Whether the text a step line starts with appears anywhere but at the top-level step lines (a
        # nested graph's step, an unfinished step; inside a JSON string a quote is escaped): when it
        # does not, no step reads its span for nested graphs' lines. (A mapped large file is not
        # counted: its steps look.)
        data = self.data
        self.nested = not isinstance(data, bytes) or data.count(b'{"kind":"step', 0, end) > len(steps)
        values = self.find_all(_VALUE, end)
        self.values = self._lost_value_slots(values, end) if skipped else values
        self.spans = steps
        self.full = full
        self.raw_indexes = indexes
        self.segment_heads = [0, *(o for o in self.find_all(_SEGMENT, end) if o not in skipped)]

    def _lost_value_slots(self, values: list[int], end: int) -> list[int]:
        """`values` with a slot kept for each skipped corrupt line that was a value line.

        Values are numbered by their order in the file, so losing one line of them would shift every
        later reference onto the wrong value. A skipped line is taken for a value when the next readable
        line that is not a value refers to more values than the file defines before it (the recorder
        writes each value right before the first line using it). Reading a kept slot gives a marked
        placeholder instead of a neighbour's value.
        """
        known = set(values)
        slots = list(values)
        for offset in sorted(o for o in self.skipped if o not in known):
            pos = self.line_end(offset) + 1
            while pos < end and (pos in known or pos in self.skipped):
                pos = self.line_end(pos) + 1
            if pos >= end:
                continue
            try:
                user = load_json(self.data[pos : self.line_end(pos)])
            except ValueError:
                continue
            if _highest_ref(user) >= bisect.bisect_left(slots, pos):
                bisect.insort(slots, offset)
        return slots

    def int_indexes(self) -> list[int | None]:
        """The step lines' index digits as numbers; a line whose index is not right after its prefix
        (edited by hand) is parsed for it, and gives None when it has no integer index."""
        raw = self.raw_indexes
        if None not in raw:
            return list(map(int, raw))  # pyright: ignore[reportArgumentType]
        out: list[int | None] = []
        for position, digits in enumerate(raw):
            if digits is not None:
                out.append(int(digits))
                continue
            offset = self.spans[position]
            try:
                index = load_json(self.data[offset : self.line_end(offset)]).get("index")
            except (ValueError, AttributeError):
                index = None
            out.append(index if type(index) is int else None)
        return out

    # --- lines on demand ------------------------------------------------------------------------

    def line_end(self, offset: int) -> int:
        nl = self.data.find(b"\n", offset)
        return len(self.data) if nl < 0 else nl

    def raw_line(self, offset: int) -> bytes:
        return self.data[offset : self.line_end(offset)]

    def nesting_checked(self, offset: int) -> bool:
        """Whether the line at `offset` is known to nest no deeper than `MAX_NESTING` (checked at open)."""
        return self.checked and offset not in self.skipped

    def parse_at(self, offset: int) -> Any:
        """The event on the line at `offset`, or None when lenient and it is corrupt (then skipped)."""
        raw = self.raw_line(offset)
        try:
            if not self.nesting_checked(offset) and too_deep(raw):
                raise NestedTooDeep(f"it nests more than {MAX_NESTING} levels deep")
            return decode_event(raw)
        except NestedTooDeep as exc:
            self.corrupt(offset, f"is not a valid event ({exc})")
        except ValueError as exc:  # not a valid record (`InvalidLine`), or not JSON
            self.corrupt(offset, f"is not a valid event ({first_error(exc)})")
        return None

    def nested_in(self, start: int, stop: int) -> list[Any]:
        """Parsed nested-graph step lines (and unfinished-step lines) between two offsets."""
        data = self.data
        out: list[Any] = []
        if data.find(b'{"kind":"step', start, stop) < 0:
            return out  # the usual span: value lines only (found at C speed)
        pos = start
        while pos < stop:
            end = self.line_end(pos)
            if data[pos : pos + 13] == b'{"kind":"step' and pos not in self.skipped:
                event = self.parse_at(pos)
                if event is not None:
                    out.append(event)
            pos = end + 1
        return out

    def step_line(self, i: int) -> StepRecord:
        """The `i`-th top-level step line, parsed (cached)."""
        lines = self._lines
        cached = lines.get(i)  # (`get_lru` inline: a walk asks for each line several times)
        if cached is not None:
            lines.move_to_end(i)
            return cached
        event = self.parse_at(self.spans[i])
        if not isinstance(event, StepRecord):
            raise self.error("expected a step line", self.spans[i])
        self._lines.put(i, event)
        return event

    def close(self) -> None:
        if isinstance(self.data, mmap.mmap):
            self.data.close()


def _highest_ref(value: Any) -> int:
    """The highest value id `value` refers to (`$ref`, `$refs`), or -1."""
    if isinstance(value, dict):
        highest = -1
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            if key == "$ref" and isinstance(item, int):
                highest = max(highest, item)
            elif key == "$refs" and isinstance(item, list):
                for pair in item:  # pyright: ignore[reportUnknownVariableType]
                    if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], int):  # pyright: ignore[reportUnknownArgumentType]
                        highest = max(highest, pair[1] - 1)
            else:
                highest = max(highest, _highest_ref(item))
        return highest
    if isinstance(value, list):
        return max((_highest_ref(item) for item in value), default=-1)  # pyright: ignore[reportUnknownVariableType]
    return -1
