"""One line of a run file parsed safely: fast where it can be, `json.loads`'s answer always.

`fileindex` checks a file's usual lines with `is_json_object` (without parsing them) and the others
with `load_json`, parses value lines with `load_json`, and reports a line that is not an event with
`first_error`. Kept apart from the file index because it is about one line's bytes, not
about where lines are: the parser choice (pydantic's Rust parser first, `json.loads` for what it
refuses) and the nesting guard are the two rules a reader of the format needs, and they are tested on
their own (`tests/inspector/test_reader.py`, every fixture line cut and altered).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from pydantic_core import from_json

__all__ = [
    "EVENT_START",
    "MAX_NESTING",
    "NestedTooDeep",
    "first_error",
    "is_json_object",
    "json_object_count",
    "load_json",
    "too_deep",
    "usual_line",
    "usual_lines",
    "utf8",
]

MAX_NESTING = 200
"""Brackets a line may nest: the encoder stops at 64 levels of data inside a few of the format's."""


def too_deep(raw: bytes, limit: int = MAX_NESTING) -> bool:
    """Whether a JSON line nests more than `limit` brackets (strings may hold brackets too: counting
    them all errs on the side of checking, and only lines with that many are walked)."""
    data = bytes(raw)
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


class NestedTooDeep(ValueError):
    """A line nests deeper than any run file does (`MAX_NESTING`)."""


def load_json(raw: bytes, *, nesting_checked: bool = False) -> Any:
    """`json.loads(raw)` that refuses lines nested deeper than `MAX_NESTING` (a `ValueError`, as for
    invalid JSON) instead of exhausting the recursion limit; `nesting_checked`: the line is known to
    nest no deeper (it was checked when the file was opened), so its brackets are not counted again.

    A line goes first to pydantic's JSON parser (Rust), which parses a run file's lines in half the time
    of json's C scanner, and gives the same values for what it accepts; it accepts less (lone surrogate
    escapes, a byte order mark, other encodings, 200 levels of nesting), so everything it refuses goes
    through `json.loads`, and the results and errors are `json.loads`'s own."""
    if not nesting_checked and too_deep(raw):
        raise NestedTooDeep(f"it nests more than {MAX_NESTING} levels deep")
    try:
        return from_json(raw)
    except ValueError:
        return json.loads(raw)


class _AnyObject(msgspec.Struct):
    """A JSON object of any fields, none of them kept."""


_objects = msgspec.json.Decoder(_AnyObject)


def is_json_object(raw: bytes) -> bool:
    """Whether `raw` is one JSON object that `load_json` would read, given that it is valid UTF-8 and
    not nested too deep (the caller checks both, for a whole file at once).

    Nothing is built: msgspec checks the syntax of what it skips without making Python objects, some
    25 times faster than parsing, which is what opening a file spends checking every line. A False
    may be a line that `json.loads` reads after all (NaN, a lone surrogate escape): `load_json`
    decides those."""
    try:
        _objects.decode(raw)
    except msgspec.DecodeError:
        return False
    return True


def json_object_count(raw: bytes) -> int | None:
    """How many JSON objects follow one another in `raw` (whitespace between them), None when anything
    else is there: `is_json_object` for many lines in one call (msgspec's `decode_lines`), which says
    nothing about where each object starts or ends; the caller settles that (see `RunFile`)."""
    try:
        return len(_objects.decode_lines(raw))
    except msgspec.DecodeError:
        return None


def first_error(exc: Exception) -> str:
    """What is wrong with a line that is not a valid record, as `where: what` (msgspec says `what - at
    `$.where``), or why it is not JSON."""
    text = str(exc)
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {text}"
    what, at, where = text.rpartition(" - at `$")
    if not at:
        return text
    where = where.rstrip("`").lstrip(".")
    return f"{where}: {what}" if where else what


EVENT_START = b'{"kind":"'
"""How every line after a run file's header starts."""


def usual_line(line: bytes) -> bool:
    """Whether `line` (without its newline, in a file of valid UTF-8) is an event line that is one JSON
    object, without brackets enough to nest too deep: the line the open check passes unparsed."""
    if not line.startswith(EVENT_START) or line.count(b"[") + line.count(b"{") > MAX_NESTING:
        return False
    return is_json_object(line)


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[{\n")


def usual_lines(region: bytes) -> bool:
    """Whether every line of `region` (whole lines, each ending in a newline, valid UTF-8) is a
    `usual_line`, found in a few passes over all of them rather than a call per line (the open check
    of a run file, `RunFile`).

    A line starts with `{"kind":"` and ends with `}` (each counted where only a line's start or end
    can be), so no JSON value can run on from one line into the next: at a line's `}`, a string still
    open would hold the newline, which JSON forbids, and an object or array still open would need a
    comma or its closing bracket before the next line's `{`. Each line then starts a value of its own,
    so as many objects as lines means one object on each line. The brackets of each line are counted
    on a copy that keeps only them and the newlines."""
    lines = region.count(b"\n")
    if region.count(b"\n" + EVENT_START) != lines - 1 or not region.startswith(EVENT_START):
        return False
    if region.count(b"}\n") != lines:
        return False
    if max(map(len, region.translate(None, _NOT_BRACKETS).split(b"\n"))) > MAX_NESTING:
        return False
    return json_object_count(region) == lines


def utf8(data: bytes) -> bool:
    """Whether `data` is valid UTF-8 (most files are ASCII, which is checked faster)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
