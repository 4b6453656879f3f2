"""Work split into parts, the parts after the first done at the same time in forked processes.

`inspector show` reads a long run in parts on a machine with more than one core: each part of the
timeline needs only the run file, opened once before the fork and shared by every process, and what
a part works out (its lines, its findings) is small beside what reading it takes.

A forked part is taken only when it went without a hitch. A part that raised, warned, or whose
process died is done again here, in order, after the parts before it: errors and warnings then come
exactly as one process would give them, since the work is the same whichever process does it. Only
where `os.fork` is safe to call on a process that imported what this one did (Linux) are parts forked.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

__all__ = ["can_fork", "do_in_parts", "usable_cpus"]

_Result = TypeVar("_Result")


def can_fork() -> bool:
    """Whether parts may run in forked processes here. Linux only: on macOS a forked child of a
    process that loaded system frameworks may crash, and Windows has no fork."""
    return sys.platform == "linux" and hasattr(os, "fork")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, which a container or `taskset` narrows)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def do_in_parts(work: Callable[[int], _Result], count: int) -> list[_Result]:
    """`[work(0), ..., work(count - 1)]`: `work(0)` here, the others each in a forked process at the same
    time (when `can_fork()`), their results sent back pickled. `work` must give the same result in any
    process; a part whose process failed in any way is done again here."""
    if count <= 1 or not can_fork():
        return [work(k) for k in range(count)]
    pending: list[tuple[int, int, int]] = []  # (part, pid, read end of its pipe), not collected yet
    try:
        for k in range(1, count):
            pending.append((k, *_fork(work, k)))
        results = [work(0)]
        while pending:
            k, pid, read_end = pending.pop(0)
            results.append(_collect(pid, read_end, partial(work, k)))
        return results
    finally:
        for _, pid, read_end in pending:  # only when this process failed first: nothing more is wanted
            os.close(read_end)
            _stop(pid)


def _fork(work: Callable[[int], Any], k: int) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    sys.stdout.flush()  # (what is buffered stays this process's to write, not the child's too)
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: work, send, and leave without running anything of the parent's exit
        os.close(read_end)
        _child(work, k, write_end)
    os.close(write_end)
    return pid, read_end


def _child(work: Callable[[int], Any], k: int, write_end: int) -> None:
    code = 1
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = work(k)
        if not caught:  # (a warning belongs among the parent's, in order: the parent does the part)
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
            code = 0
    except BaseException:  # any failure, Ctrl-C included: the parent does the part itself (or stops)
        pass
    finally:
        os._exit(code)


def _collect(pid: int, read_end: int, again: Callable[[], _Result]) -> _Result:
    """The child's result, or `again()` when it sent none (it failed, warned, or was killed)."""
    try:
        with os.fdopen(read_end, "rb") as incoming:
            data = incoming.read()
    except BaseException:  # (Ctrl-C while waiting: the child goes too)
        _stop(pid)
        raise
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not data:
        return again()
    result: _Result = pickle.loads(data)
    return result


def _stop(pid: int) -> None:
    """End a child that is no longer wanted, and reap it."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:  # (it had ended and was reaped already)
        pass
