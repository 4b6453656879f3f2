"""`Courtesy`: a live export's threads handing the GIL back to the run's thread while a run goes on.

The run's thread never waits on the export (the run file and a queue are between them), but CPython
threads share one GIL, and a thread that wants it gets it from a busy holder only after the switch
interval (`sys.getswitchinterval()`, 5 ms). A run whose model call returns while the export maps or
encodes would wait that long, each time: at 1 ms a model call, twice the run. So the export's threads
call their `Courtesy` between spans: when they have held the GIL for `every` seconds, `time.sleep(0)`
releases it, and a waiting run thread takes it at once. Once the run is over (`active` False) there
is no one to give way to, and handing the GIL back and forth between the export's own two threads
would only slow the flush.
"""

from __future__ import annotations

import time

__all__ = ["EVERY_SECONDS", "Courtesy"]

EVERY_SECONDS = 0.0001
"""How long an export thread holds the GIL before it lets a waiting thread in: about one span's work."""


class Courtesy:
    """Call it between pieces of work: it releases the GIL when the work since the last release took
    `every` seconds or more, while `active`."""

    def __init__(self, every: float = EVERY_SECONDS) -> None:
        self.every = every
        self.active = True
        self._since = time.perf_counter()

    def __call__(self) -> None:
        if self.active:
            now = time.perf_counter()
            if now - self._since >= self.every:
                time.sleep(0)  # releases the GIL: a thread waiting for it takes it now
                self._since = time.perf_counter()
