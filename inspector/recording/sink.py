"""The run file on disk, as the recorder writes it: locked, opened on first write, written unbuffered.

A new recording truncates the file (creating its directory only when opening fails for want of it:
checking first would cost every run); a resumed one appends, so the segments already recorded are
never touched. Each write is one system call, nothing left in a buffer, so what a step wrote is in
the file when its callback returns and a killed process leaves whole steps only.

One writer at a time: the file is opened without truncating, locked (`flock`, exclusive, not
waiting) and only then truncated, so a second recorder aimed at the same file, in this process or
another, is refused (`RunWriteError`) before it touches a byte, and the first one's file stays a run
file. The lock goes with the descriptor: a killed writer leaves no stale lock, and the file is
written in place, so a crash still leaves every complete step readable (a temporary file renamed at
the end would leave nothing at the destination). Where there are no advisory locks (Windows), or
the file system refuses them, the file is written unlocked, as before.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from pathlib import Path
from typing import IO

from inspector.errors import RunWriteError

__all__ = ["Sink", "describe_fault", "fault_error", "refuse_busy"]

_NEW = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


class Sink:
    """Where a `Recorder` writes: `path`, appended to when `append` is set."""

    def __init__(self, path: Path, *, append: bool) -> None:
        self.path = path
        self.append = append
        self._file: IO[bytes] | None = None
        self._start: int | None = None  # the file's size when this sink first opened it

    def open(self) -> None:
        """Open and lock the file now (it is otherwise opened by the first write); `RunWriteError`
        when another writer holds it, and then nothing was changed."""
        if self._file is None:
            self._open()

    def _open(self) -> IO[bytes]:
        if self._file is None:
            flags = _NEW | (os.O_APPEND if self.append else 0)
            try:
                fd = os.open(self.path, flags, 0o666)
            except FileNotFoundError:
                if self.append:  # never create the file a resumed run must continue
                    raise
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, flags, 0o666)
            try:
                _lock(fd, self.path)
                if not self.append:
                    os.ftruncate(fd, 0)
                if self._start is None:
                    self._start = os.fstat(fd).st_size
            except BaseException:
                os.close(fd)
                raise
            self._file = open(fd, "ab" if self.append else "wb", buffering=0)  # noqa: SIM115 (kept open)
        return self._file

    def write(self, data: bytes) -> None:
        """Write `data` in one system call (more only if the OS takes part of it)."""
        out = self._file or self._open()
        written = out.write(data)
        while written is not None and written < len(data):  # a short write: the rest, again
            data = data[written:]
            written = out.write(data)

    def close(self) -> None:
        """Close the file and let go of its lock; the next write opens it again (truncating, unless
        appending)."""
        if self._file is not None:
            try:
                self._file.flush()
                self._file.close()
            finally:
                self._file = None

    def drop(self) -> None:
        """Close the file after a fault, ignoring any error doing so."""
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(Exception):
                file.close()

    def discard(self) -> bool:
        """Take back what this sink wrote (after a fault, a caller that keeps no partial file): a new
        file is removed, an appended one cut back to its size before. A file that another writer has
        locked or put in its place since is left alone; False when nothing was taken back."""
        if self._start is None:
            return False  # never opened: nothing of ours is there
        file, self._file = self._file, None
        try:
            fd = os.dup(file.fileno()) if file is not None else os.open(self.path, os.O_WRONLY)
        except OSError:
            return False
        finally:
            if file is not None:
                with contextlib.suppress(Exception):
                    file.close()
        try:
            if file is None:
                _lock(fd, self.path)
            if self.append:
                os.ftruncate(fd, self._start)
            elif os.path.samestat(os.fstat(fd), os.stat(self.path)):
                os.unlink(self.path)
            else:
                return False
            return True
        except OSError:
            return False
        finally:
            os.close(fd)


def refuse_busy(path: Path, *, empty: bool = False) -> None:
    """Refuse (`RunWriteError`) when another recorder is writing `path`; with `empty`, empty the file
    (creating it) while no one is. For callers whose recorder opens the file later, on another
    thread (`inspector debug`), or who put a finished file in its place (`inspector fork`)."""
    try:
        fd = os.open(path, _NEW if empty else os.O_RDONLY | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError:
        if empty:
            raise
        return  # nothing there to be busy (whoever writes the file next reports why it cannot)
    try:
        _lock(fd, path)
        if empty:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)


def fault_error(path: Path, fault: BaseException, *, removed: bool, appended: bool = False) -> RunWriteError:
    """The one paragraph a command raises when its recorder faulted: what failed, what became of the
    file (`removed`: the partial file was taken back; `appended`: cut back to its earlier segments)
    and what to do."""
    if isinstance(fault, RunWriteError):  # another writer has the file: nothing of ours is in it
        return RunWriteError(str(fault), path=path)
    if not removed:
        kept = f"what was written before it stopped is still in {path}"
    elif appended:
        kept = f"the partial segment was taken back, so {path} holds what it held before"
    else:
        kept = "the partial file was removed"
    what, remedy = _fault_words(fault)
    return RunWriteError(
        f"could not write the run file {path}: {what}. The recording stopped there while the run went "
        f"on, and {kept}; {remedy}",
        path=path,
    )


def describe_fault(error: BaseException) -> str:
    """A recorder's fault in words: what happened to the file system, by errno."""
    return _fault_words(error)[0]


_REMEDY = "then run the command again"
_FAULTS = {
    errno.ENOSPC: ("the disk is full", f"free some space, or write to another disk, {_REMEDY}"),
    getattr(errno, "EDQUOT", -1): ("the user's disk quota is used up", f"free some space, {_REMEDY}"),
    errno.EFBIG: (
        "the file grew past the largest file allowed here (the file system's or `ulimit -f`)",
        f"raise the limit, or write to another file system, {_REMEDY}",
    ),
    errno.EROFS: ("the file system is read-only", f"write to a folder you can write to, {_REMEDY}"),
    errno.EACCES: ("permission denied", f"write to a folder you can write to, {_REMEDY}"),
    errno.EPERM: ("operation not permitted", f"write to a folder you can write to, {_REMEDY}"),
}


def _fault_words(error: BaseException) -> tuple[str, str]:
    if isinstance(error, OSError):
        known = _FAULTS.get(error.errno or 0)
        if known is not None:
            return known
        return error.strerror or str(error) or type(error).__name__, f"fix that, {_REMEDY}"
    return (
        f"{type(error).__name__}: {error}",
        "this is a fault of the recorder itself: please report it, with this message",
    )


if sys.platform == "win32":

    def _lock(fd: int, path: Path) -> None:
        """No advisory locks here: the file is written unlocked."""

else:
    import fcntl

    def _lock(fd: int, path: Path) -> None:
        """Lock `fd` exclusively without waiting; `RunWriteError` when another writer holds it. A file
        system without locks (some network mounts) is written unlocked."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunWriteError(
                f"another recording is being written to {path} right now (an `inspector record`, "
                "`debug` or `fork`, or a program's `Recorder`, holds the file's lock); recording here "
                "as well would interleave the two runs' lines into a file neither could read. Wait "
                "for it to finish, or write to another file",
                path=path,
            ) from None
        except OSError as exc:
            if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                raise
