"""Test plumbing for Eino's graph-interrupt tests: a node that blocks until released, and a run that
is interrupted from outside while that node runs (instead of Go's sleeps, so the tests are
deterministic)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from graph_core.interrupt import GraphInterrupt

WAIT = 10.0  # seconds; only reached when something is broken


class Gate:
    """Blocks the first `blocking` callers of `pass_()` until `release()`; counts every caller."""

    def __init__(self, blocking: int = 1) -> None:
        self.started = threading.Event()
        self.released = threading.Event()
        self.blocking = blocking
        self.calls = 0
        self._lock = threading.Lock()
        self._arrived = 0

    def pass_(self) -> int:
        with self._lock:
            self.calls += 1
            call = self.calls
        if call <= self.blocking:
            with self._lock:
                self._arrived += 1
                if self._arrived == self.blocking:
                    self.started.set()
            assert self.released.wait(WAIT), "gate never released"
        return call

    def release(self) -> None:
        self.released.set()


def interrupted_run(run: Callable[[GraphInterrupt], Any], gate: Gate, timeout: float | None) -> BaseException:
    """`run(graph_interrupt)` interrupted (`interrupt(timeout)`) once the gate's blocked callers arrived;
    the gate is released right after the interrupt (timeout > 0 or None: the nodes finish in time) or
    after the run returns (timeout 0: they were abandoned). Returns what the run raised."""
    stop = GraphInterrupt()

    def interrupter() -> None:
        assert gate.started.wait(WAIT)
        stop.interrupt(timeout)
        if timeout != 0:
            gate.release()

    thread = threading.Thread(target=interrupter, daemon=True)
    thread.start()
    try:
        run(stop)
    except BaseException as exc:
        return exc
    finally:
        gate.release()
        thread.join(WAIT)
    raise AssertionError("the run was not interrupted")
