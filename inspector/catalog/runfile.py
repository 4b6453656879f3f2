"""The run-file source kind: JSONL run files, named one by one or found in folders.

Finding: a folder is searched recursively, following symbolic links but never entering a folder twice
(a link back to a parent is a loop, and is survived); a file is a run when its first bytes are a run
header, every other file is skipped and counted. Summarizing reads the header line and the file's
last 64 KiB (more only when the last step line is further back): the `run_finished` line, the last
top-level step's budget. A file without `run_finished` is `running` while a recorder holds its lock
(`inspector.recording.sink` takes an exclusive `flock` while it writes) or it grew in the last
`RECENT` seconds, else `incomplete`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from inspector.catalog.errors import CatalogError
from inspector.catalog.record import RunRecord
from inspector.catalog.source import PLANNED, Found, Skipped, planned_kind_of

__all__ = ["RECENT", "RunFileKind", "is_run_head"]

RECENT = 10.0
"""Seconds since a run without `run_finished` last grew for it to still count as running."""
HEAD = 512  # bytes of a file's start that tell a run apart and version it
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

    def find(self, spec: str, skipped: Skipped) -> Iterator[Found]:
        path = Path(spec)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            raise CatalogError(f"{spec}: no such file or folder") from None
        except OSError as exc:
            raise CatalogError(f"{spec}: cannot be read ({exc.strerror or exc})") from None
        if stat.S_ISDIR(mode):
            yield from self._search(path, skipped)
            return
        head, _ = _head(path, skipped)
        if head is None:
            return
        planned = planned_kind_of(path, head)
        if planned is not None:
            raise CatalogError(
                f"{spec} is one of the {PLANNED[planned]}, which the catalog cannot read yet; it reads run "
                "files and folders of them"
            )
        if not is_run_head(head):
            raise CatalogError(
                f"{spec} is not a run file (its first line is no run header); name a run file "
                "(`inspector record ... -o RUN.jsonl`) or a folder of them"
            )
        yield Found(spec, os.path.realpath(path), self.name)

    def _search(self, root: Path, skipped: Skipped) -> Iterator[Found]:
        seen_dirs: set[tuple[int, int]] = set()
        seen_files: set[str] = set()
        stack = [str(root)]
        while stack:
            folder = stack.pop()
            try:
                info = os.stat(folder)
            except OSError as exc:
                skipped.unreadable.append((folder, exc.strerror or str(exc)))
                continue
            if (info.st_dev, info.st_ino) in seen_dirs:  # a symlink loop, or a folder reached twice
                continue
            seen_dirs.add((info.st_dev, info.st_ino))
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as exc:
                skipped.unreadable.append((folder, exc.strerror or str(exc)))
                continue
            resolved = os.path.realpath(folder)
            folders: list[str] = []
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                    is_file = not is_dir and entry.is_file()
                except OSError as exc:
                    skipped.unreadable.append((entry.path, exc.strerror or str(exc)))
                    continue
                if is_dir:
                    folders.append(entry.path)
                elif is_file:
                    link = entry.is_symlink()
                    key = os.path.realpath(entry.path) if link else os.path.join(resolved, entry.name)
                    if key in seen_files:
                        continue
                    seen_files.add(key)
                    head, version = _head(Path(entry.path), skipped)
                    if head is None:
                        continue
                    if is_run_head(head):
                        yield Found(entry.path, key, self.name, version)
                    else:
                        skipped.not_runs.append(entry.path)
                else:  # a dangling link, a socket, a fifo
                    skipped.not_runs.append(entry.path)
            stack.extend(reversed(folders))

    def changed(self, found: Found, known: tuple[int, int, str] | None) -> tuple[int, int, str] | None:
        if found.version is not None:
            return None if found.version == known else found.version
        try:
            with open(found.key, "rb") as f:
                info = os.fstat(f.fileno())
                head = f.read(HEAD)
        except OSError:
            return (-1, 0, "")
        version = (info.st_size, info.st_mtime_ns, hashlib.sha1(head).hexdigest()[:16])
        return None if version == known else version

    def summarize(self, found: Found, *, now: float) -> RunRecord:
        record = RunRecord(found.path, found.key, kind=self.name)
        try:
            with open(found.key, "rb") as f:
                _summarize(f, record, now=now)
        except OSError as exc:
            record.status, record.reason = "corrupt", f"cannot be read: {exc.strerror or exc}"
        return record

    def open(self, found: Found) -> Any:
        from inspector.recording import read_run

        return read_run(found.key)


def _head(path: Path, skipped: Skipped) -> tuple[bytes | None, tuple[int, int, str] | None]:
    """A file's first bytes and its version (size, mtime in ns, a hash of those bytes), read once."""
    try:
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            head = f.read(HEAD)
    except OSError as exc:
        skipped.unreadable.append((str(path), exc.strerror or str(exc)))
        return None, None
    return head, (info.st_size, info.st_mtime_ns, hashlib.sha1(head).hexdigest()[:16])


def _summarize(f: Any, record: RunRecord, *, now: float) -> None:
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
    elif _locked(f) or now - info.st_mtime < RECENT:
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
