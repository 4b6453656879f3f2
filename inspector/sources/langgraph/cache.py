"""The run files of threads, kept under the temporary directory and named by what they hold.

A thread's run file is named by the checkpointer's state (`stamp`), the thread and the choices (branch,
checkpoint, topology), so a thread written since gets a fresh file and an unchanged one is read again
at once. A file is written aside and moved in, so another process never reads half of it, except when
written behind (`write_behind`, for `replay`'s first screen): then a forked process writes the file in
place, step by step, while the replay screen follows it, and a marker beside it (`NAME.converting`,
holding the writer's pid) tells every other reader that the file is not complete yet.
"""

from __future__ import annotations

import gc
import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["cache_path", "converting", "is_complete", "write_behind", "write_now"]

_FOLDER = "inspector-langgraph-threads"


def cache_path(key: str) -> Path:
    """The run file for `key` (which holds no secret: a URL's password is never in it)."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / _FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{digest}.jsonl"


def _marker(out: Path) -> Path:
    return out.with_suffix(".converting")


def converting(out: Path) -> bool:
    """A forked writer is still writing `out` (a marker whose process is gone is removed, with the
    half-written file). Only this cache's run files have markers: any other path is not converting."""
    if out.parent.name != _FOLDER:
        return False
    marker = _marker(out)
    try:
        pid = int(marker.read_text() or "0")
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:  # the writer died: what it left is not a run file to trust
        marker.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def is_complete(out: Path) -> bool:
    """`out` is written, and no writer is at it."""
    return not converting(out) and out.exists()


def write_now(out: Path, write: Callable[[Path], object]) -> Path:
    """`write` the file aside, then move it in (another process may be reading the same name)."""
    aside = out.with_name(f"{out.stem}.{os.getpid()}.writing")
    write(aside)
    os.replace(aside, out)
    return out


def write_behind(out: Path, write: Callable[[Path], object]) -> bool:
    """Start writing `out` in place in a forked process and return at once (False, having started
    nothing, where processes cannot be forked or another writer holds the marker). The grandchild
    writes, so no child is left for this process to wait on. It first freezes every object it
    inherited out of the garbage collector's reach: its collections then never walk the caller's heap
    (a replay app's, Textual's), and never run the finalizers of the caller's garbage, such as an
    event loop's subprocess transports left by an app that closed, which said "Event loop is closed"
    on the writer's standard error, the terminal's."""
    from inspector.forked import can_fork

    if not can_fork():
        return False
    marker = _marker(out)
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    out.unlink(missing_ok=True)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the forked writer reports through the file it writes
        os.close(read_end)
        _detach(fd, write_end, marker, out, write)
    os.close(fd)
    os.close(write_end)
    os.read(read_end, 1)  # the grandchild has written its pid into the marker
    os.close(read_end)
    os.waitpid(child, 0)
    _first_step(out)
    return True


def _first_step(out: Path, *, timeout: float = 5.0) -> None:
    """Wait until the writer has written the run's header and its first step (or is done): the screen
    then opens on a step at once, not on a waiting screen it rebuilds at its next poll. Each look
    reads only what was written since the last: the header of a long thread is long (the list of its
    checkpoints: some 700 KB at 10,000), so looking for two line ends in the file's first bytes found
    none until the timeout."""
    deadline = time.monotonic() + timeout
    offset = ends = 0
    while time.monotonic() < deadline and converting(out):
        try:
            with out.open("rb") as handle:
                handle.seek(offset)
                written = handle.read()
        except FileNotFoundError:
            written = b""
        offset += len(written)
        ends += written.count(b"\n")
        if ends >= 2:
            return
        time.sleep(0.005)


def _detach(fd: int, ready: int, marker: Path, out: Path, write: Callable[[Path], object]) -> None:
    """In the forked child: fork the writer and leave; the writer marks, writes, unmarks, exits."""
    try:
        if os.fork() != 0:
            os._exit(0)
        os.setsid()
        gc.freeze()  # what the caller left behind is not the writer's to collect (see `write_behind`)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os.write(ready, b"1")
        os.close(ready)
        status = 0
        try:
            write(out)
        except BaseException:  # a half-written file is no run file
            out.unlink(missing_ok=True)
            status = 1
        marker.unlink(missing_ok=True)
        os._exit(status)
    finally:
        os._exit(1)
