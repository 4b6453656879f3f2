"""One background thread that writes steps behind the run while a slow node waits.

With a model that answers in a millisecond, encoding and writing a step (about 50 µs, on caches the
model's wait has cooled) was a tenth of the run. The recorder does not need to do it before the next
step starts: when that step runs a node that took long last time (a model call, a tool waiting on the
network), it freezes the step (`held`), queues it and wakes this thread, which encodes and writes it
while the node waits (the node's wait releases the GIL). Steps go out in order: the recorder finishes
any queued step itself before it encodes anything else (`owner.catch_up()`), so the file is the same
bytes either way.

One thread serves every recorder in the process; it is started on first use, is a daemon (a process
that exits mid-run writes what is queued from `atexit` first) and is started again in a forked child.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
from typing import Protocol

__all__ = ["CatchingUp", "wake"]


class CatchingUp(Protocol):
    """A recorder with queued steps: `catch_up()` writes them, in order, in the calling thread."""

    def catch_up(self) -> None: ...


_owners: queue.SimpleQueue[CatchingUp] = queue.SimpleQueue()
_thread: threading.Thread | None = None
_starting = threading.Lock()


def wake(owner: CatchingUp) -> None:
    """Have the background thread call `owner.catch_up()` soon (the owner may do it first itself)."""
    global _thread
    if _thread is None:
        with _starting:
            if _thread is None:
                thread = threading.Thread(target=_serve, name="inspector-write-behind", daemon=True)
                thread.start()
                _thread = thread
    _owners.put(owner)


def _serve() -> None:
    while True:
        owner = _owners.get()
        with contextlib.suppress(Exception):  # a recorder turns itself off on a fault; never this thread
            owner.catch_up()


def _drain() -> None:
    """At exit: write what is still queued (the thread may be in the middle of one owner: `catch_up`
    waits for it)."""
    while True:
        try:
            owner = _owners.get_nowait()
        except queue.Empty:
            return
        owner.catch_up()


def _forget_thread() -> None:
    """In a forked child: the parent's thread does not exist here, and its queue's lock may be held."""
    global _thread, _owners
    _thread = None
    _owners = queue.SimpleQueue()


atexit.register(_drain)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_thread)
