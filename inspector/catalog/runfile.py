"""The run-file source kind: JSONL run files, named one by one or found in folders.

A file is a run file when its first bytes are a run header. Summarizing reads the header line and the
file's last 64 KiB (more only when the last step line is further back): the `run_finished` line, the
last top-level step's budget. A file without `run_finished` is `running` while a recorder holds its
lock (`inspector.recording.sink` takes an exclusive `flock` while it writes) or it grew in the last
`RECENT` seconds, else `incomplete`. Other kinds that convert their runs to run files summarize those
with the same reader (`summarize_file`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from inspector.catalog.errors import CatalogError
from inspector.catalog.index import Version
from inspector.catalog.record import RunRecord
from inspector.catalog.source import Found

__all__ = ["RECENT", "RunFileKind", "is_run_head", "summarize_file"]

RECENT = 10.0
"""Seconds since a run without `run_finished` last grew for it to still count as running."""
_TAIL = 65536
_HEADER_RE = re.compile(rb'^\s*\{\s*"kind"\s*:\s*"header"')
_TOP_STEP = (b'{"kind":"step","index":', b'{"kind":"step","full":true,')
_TOP_UNFINISHED = b'{"kind":"step_unfinished","index":'
_SEGMENT = b'{"kind":"segment",'


def is_run_head(head: bytes) -> bool:
    """Whether a file starting with `head` is a run file (its first line is a run header)."""
    return _HEADER_RE.match(head) is not None


class _Header(msgspec.Struct):
    """The header fields a listing shows (the topology and input are skipped, not decoded)."""

    kind: str
    run_id: str = ""
    graph_name: str = ""
    started_at: str = ""
    meta: dict[str, Any] = {}


class _Budget(msgspec.Struct):
    model_calls: int = 0
    tool_calls: int = 0
    total_tokens: int | None = None


class _Tail(msgspec.Struct):
    """A step, `step_unfinished` or `run_finished` line, as far as the listing needs it."""

    kind: str
    index: int = 0
    t: float = 0.0
    duration: float | None = None
    budget: _Budget | None = None
    status: str = ""


_header = msgspec.json.Decoder(_Header)
_tail = msgspec.json.Decoder(_Tail)


class RunFileKind:
    """See the module docstring."""

    name = "runfile"
    description = "run files (`inspector record ... -o RUN.jsonl`) and folders of them"
    schemes: tuple[str, ...] = ()
    listing = False

    def claims(self, path: Path, head: bytes) -> bool:
        return is_run_head(head)

    def runs_in(self, path: str, key: str, version: Version) -> Iterator[Found]:
        yield Found(path, key, self.name, version, where=key)

    def runs_at(self, url: str) -> Iterator[Found]:
        raise CatalogError(f"{url}: run files are files, not URLs")

    def summarize(self, found: Found, *, now: float) -> RunRecord:
        record = RunRecord(found.path, found.key, kind=self.name, where=found.where)
        summarize_file(found.where or found.key, record, now=now)
        return record

    def open(self, found: Found) -> Any:
        from inspector.recording import read_run

        return read_run(found.where or found.key)

    def run_file(self, found: Found) -> Path:
        return Path(found.where or found.key)


def summarize_file(path: str | Path, record: RunRecord, *, now: float, grew_at: float | None = None) -> None:
    """Fill `record` from the run file at `path` (see the module docstring); `grew_at` is when the run's
    source last grew, for a run file converted from it (default: the file's own modification time)."""
    try:
        with open(path, "rb") as f:
            _summarize(f, record, now=now, grew_at=grew_at)
    except OSError as exc:
        record.status, record.reason = "corrupt", f"cannot be read: {exc.strerror or exc}"


def _summarize(f: Any, record: RunRecord, *, now: float, grew_at: float | None) -> None:
    info = os.fstat(f.fileno())
    first = f.readline()
    try:
        header = _header.decode(first)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        record.status, record.reason = "corrupt", f"line 1 (the header): {exc}"
        return
    if header.kind != "header":
        record.status, record.reason = "corrupt", "line 1 is not a run header"
        return
    record.run_id = header.run_id
    meta = header.meta if isinstance(header.meta, dict) else {}  # pyright: ignore[reportUnnecessaryIsInstance]
    target = meta.get("target")
    record.graph = target if isinstance(target, str) and target else header.graph_name
    tags = meta.get("tags")
    if isinstance(tags, dict):
        record.tags = {str(k): str(v) for k, v in tags.items()}  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    record.started_at = header.started_at
    finished, step, unfinished, bad, segmented = _read_tail(f, len(first), info.st_size)
    if bad is not None:
        record.status, record.reason = "corrupt", bad
    if step is not None:
        record.steps = step.index + 1
        if segmented:  # a resumed run: each segment's steps count from 0 again
            record.steps = _count_top_steps(f)
        if step.budget is not None:
            record.model_calls = step.budget.model_calls
            record.tool_calls = step.budget.tool_calls
            record.tokens = step.budget.total_tokens or 0
        record.duration = round(step.t + (step.duration or 0.0), 6)
    if unfinished is not None:
        record.duration = max(record.duration or 0.0, unfinished.t)
    if bad is not None:
        return
    if finished is not None:
        record.status = finished.status or "incomplete"
        record.duration = finished.duration if finished.duration is not None else finished.t
    elif _locked(f) or now - (info.st_mtime if grew_at is None else grew_at) < RECENT:
        record.status = "running"
    else:
        record.status = "incomplete"


def _read_tail(
    f: Any, header_end: int, size: int
) -> tuple[_Tail | None, _Tail | None, _Tail | None, str | None, bool]:
    """The `run_finished` line (when it is the last whole line), the last top-level step line and a
    `step_unfinished` after it; or why the end of the file is corrupt (a whole line that is not JSON);
    and whether the block read holds a `segment` line (a resumed run recorded into the same file: one
    resumed further back than the block is counted right once the run is walked)."""
    block = _TAIL
    while True:
        start = max(header_end, size - block)
        f.seek(start)
        lines = f.read().split(b"\n")
        if start > header_end:
            lines = lines[1:]  # the first piece is the end of a line begun before the block
        lines.pop()  # after the last newline: empty, or a cut-off line (the run was killed mid-write)
        segmented = any(line.startswith(_SEGMENT) for line in lines)
        finished = step = unfinished = None
        for position in range(len(lines) - 1, -1, -1):
            line = lines[position]
            if not line.strip():
                continue
            last = position == len(lines) - 1
            if last and b'"run_finished"' in line[:40]:
                try:
                    finished = _tail.decode(line)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    return None, None, None, f"its last line is not a valid run_finished line: {exc}", False
                continue
            if line.startswith(_TOP_UNFINISHED) and step is None and unfinished is None:
                with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                    unfinished = _tail.decode(line)
                continue
            if line.startswith(_TOP_STEP):
                try:
                    step = _tail.decode(line)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    return None, None, None, f"a step line near the end is not valid: {exc}", False
                return finished, step, unfinished, None, segmented
            try:  # a line after the last step (a value, an interrupt): whole JSON, or the file is corrupt
                msgspec.json.decode(line)
            except msgspec.DecodeError:
                try:
                    json.loads(line)  # what msgspec refuses and json reads (NaN) is still a line
                except ValueError as exc:
                    where = "its last whole line" if last else "a line near the end"
                    return None, None, None, f"{where} is not JSON: {exc}", False
        if start <= header_end:
            return finished, None, unfinished, None, segmented
        block *= 4


def _count_top_steps(f: Any) -> int:
    """Top-level step lines in the whole file: a resumed run's step count (its segments' steps, which the
    tail alone cannot tell), found by their prefixes without parsing a line."""
    f.seek(0)
    return sum(1 for line in f if line.startswith(_TOP_STEP))


def _locked(f: Any) -> bool:
    """Whether a recorder holds the file's lock (it writes under an exclusive `flock`)."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here (Windows): growth alone tells
        return False
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    return False
