"""Cancelling a running ChatModelAgent at a safe point (Eino `adk/cancel.go`).

`agent.cancel(mode, timeout=...)` asks the agent's running run to stop and returns a `CancelHandle`:

- `CancelMode.IMMEDIATE`: stop now (Eino: a graph interrupt with timeout 0): the running nodes are
  abandoned (a Python thread cannot be preempted: it finishes unobserved) and become rerun nodes that
  run again, with their input, on resume;
- `CancelMode.AFTER_CHAT_MODEL`: stop in `CancelCheck`, reached only when the model asked for tools;
  the model's message is saved with the interrupt and reused on resume;
- `CancelMode.AFTER_TOOL_CALLS`: stop in `AfterToolCallsCancelCheck`, after a round of tool calls.

The two safe-point modes combine (`AFTER_CHAT_MODEL | AFTER_TOOL_CALLS`: whichever comes first). With a
`timeout`, a safe point not reached in time escalates to immediate. Either way the run saves a checkpoint
and ends with a `CancelError` event; `agent.resume(checkpoint_id)` continues it. `handle.wait()` reports
`CancelOutcome.SUCCESS`, `TIMEOUT` (escalated) or `EXECUTION_ENDED` (the run ended before the cancel
took effect).

`Canceller` is Eino's `WithCancel()`: made before a run and given to it (`agent.run(..., canceller=c)`),
its `cancel()` targets that run whether it is running, has ended (`EXECUTION_ENDED`) or has not started
yet: then the run stops at its start, before any node, with a `CancelError` event and no checkpoint.
"""

from __future__ import annotations

import enum
import threading

from graph_core.errors import CancelError
from graph_core.interrupt import GraphInterrupt

__all__ = ["CancelError", "CancelHandle", "CancelMode", "CancelOutcome", "CancelRequest", "Canceller"]


class CancelMode(enum.Flag):
    """Where a cancel may take effect; the safe-point modes are bit flags, `IMMEDIATE` is none of them."""

    IMMEDIATE = 0
    AFTER_CHAT_MODEL = 1
    AFTER_TOOL_CALLS = 2


class CancelOutcome(enum.Enum):
    """What `CancelHandle.wait()` reports (Eino: nil, `ErrCancelTimeout`, `ErrExecutionEnded`)."""

    SUCCESS = "success"
    TIMEOUT = "timeout"
    EXECUTION_ENDED = "execution_ended"


class CancelHandle:
    """Returned by `cancel()`; `wait()` blocks until the cancel took effect or the run ended."""

    def __init__(self, request: CancelRequest | None) -> None:
        self._request = request

    def wait(self, timeout: float | None = None) -> CancelOutcome:
        """The outcome; `timeout` bounds the wait itself (then `TimeoutError`)."""
        if self._request is None:
            return CancelOutcome.EXECUTION_ENDED
        if not self._request.settled.wait(timeout):
            raise TimeoutError("the cancel has not taken effect yet")
        outcome = self._request.outcome
        assert outcome is not None
        return outcome


def _now(interrupt_event: threading.Event) -> None:
    """Interrupt the run at once: running nodes are abandoned (a plain event: they finish first)."""
    if isinstance(interrupt_event, GraphInterrupt):
        interrupt_event.interrupt(timeout=0)
    else:
        interrupt_event.set()


class CancelRequest:
    """One cancel of one run: the mode, the escalation timer, and the outcome once settled."""

    def __init__(self, mode: CancelMode, timeout: float | None, interrupt_event: threading.Event) -> None:
        self.mode = mode
        self.timeout = timeout
        self.escalated = False
        self.outcome: CancelOutcome | None = None
        self.safe_point: str | None = None
        self.settled = threading.Event()
        self._interrupt = interrupt_event
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        if mode == CancelMode.IMMEDIATE:
            _now(interrupt_event)
        elif timeout is not None:
            self._timer = threading.Timer(timeout, self._escalate)
            self._timer.daemon = True
            self._timer.start()

    def _escalate(self) -> None:
        with self._lock:
            if self.outcome is None:
                self.escalated = True
                _now(self._interrupt)

    def wants(self, flag: CancelMode) -> bool:
        """Should the safe point `flag` stop the run now?"""
        return self.outcome is None and flag in self.mode and self.mode != CancelMode.IMMEDIATE

    def settle(self, outcome: CancelOutcome) -> None:
        with self._lock:
            if self.outcome is None:
                self.outcome = outcome
        if self._timer is not None:
            self._timer.cancel()
        self.settled.set()


class Canceller:
    """One run's cancel function, made before the run (Eino `WithCancel()`); see the module docstring.

    The run adopts `interrupt_event` as its own, so an immediate cancel asked before the run started
    has already set it; `request` is the cancel asked so far (the first one counts, as in Eino).
    """

    def __init__(self) -> None:
        self.interrupt_event = GraphInterrupt()
        self.request: CancelRequest | None = None
        self._lock = threading.Lock()
        self._ended = False

    def cancel(
        self, mode: CancelMode = CancelMode.IMMEDIATE, *, timeout: float | None = None
    ) -> CancelHandle:
        """Cancel the run at `mode`'s safe point (see `ChatModelAgent.cancel`); after the run ended the
        handle reports `EXECUTION_ENDED`."""
        with self._lock:
            if self._ended:
                return CancelHandle(None)
            if self.request is None:
                self.request = CancelRequest(mode, timeout, self.interrupt_event)
            return CancelHandle(self.request)

    def end(self) -> None:
        """The run is over: later cancels report `EXECUTION_ENDED`, an unsettled one settles so."""
        with self._lock:
            self._ended = True
            request = self.request
        if request is not None:
            request.settle(CancelOutcome.EXECUTION_ENDED)  # no-op if it took effect
