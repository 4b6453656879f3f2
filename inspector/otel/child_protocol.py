"""What a run's process and its export child (`inspector.otel.child`) say to each other.

The run's process loads this module and `child_process`, never OpenTelemetry: the SDK, the mapping and
the network live in the child. Over the child's stdin, one JSON object a line: first `ChildSettings`
(the endpoint and its headers travel here, not on the command line, where `ps` would show an API
key), then `{"kind": "follow", "skip": N}` once the run file has its header (the segments before the
N-th were there before this run: already sent, not sent again), then `{"kind": "stop"}` when the run
is over. End of file on stdin means the same as stop: the parent closed it, or died. The child
answers once, on its stdout: a `ChildReport`, whose `warning()` is the one line the parent prints.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ChildReport",
    "ChildSettings",
    "Command",
    "export_timeout",
    "sdk_disabled",
    "undelivered",
]

DEFAULT_TIMEOUT = 3.0
FINISH_MARGIN = 30.0
"""What `close` waits for the child beyond the export timeout by default: the steps it has yet to
map (about 0.3 ms of CPU a span) and the flush."""


def sdk_disabled(environ: dict[str, str] | None = None) -> bool:
    """Whether `OTEL_SDK_DISABLED=true` turns the SDK off (its tracers then make no spans): a live
    export then starts no child and sets up no exporter, so it costs the run nothing."""
    value = (os.environ if environ is None else environ).get("OTEL_SDK_DISABLED", "")
    return value.strip().lower() == "true"


def export_timeout(environ: dict[str, str] | None = None) -> float:
    """Seconds each export may take, retries included (`OTEL_EXPORTER_OTLP_TIMEOUT`, milliseconds,
    as the SDK reads it; 3 s when unset or not a number)."""
    raw = (os.environ if environ is None else environ).get("OTEL_EXPORTER_OTLP_TIMEOUT", "")
    try:
        value = float(raw) / 1000
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


class ChildSettings(BaseModel):
    """What the child needs: the run file to follow, where to send (`url` None: the SDK's
    `OTEL_EXPORTER_OTLP_*` variables, which the child inherits; `headers` None: theirs too), the
    export `timeout`, whether spans carry message content (None: as
    `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` says), the batch processor's bounded queue,
    how often to look at the file, `finish`: how long it may take once told to stop before it reports
    what it has and exits, and `parent`: the pid whose death also stops it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["settings"] = "settings"
    path: str
    url: str | None = None
    headers: dict[str, str] | None = None
    timeout: float = DEFAULT_TIMEOUT
    content: bool | None = None
    queue_size: int = 8192
    poll: float = 0.02
    finish: float = DEFAULT_TIMEOUT + FINISH_MARGIN
    parent: int


class Command(BaseModel):
    """A later line to the child: start following (skipping the segments before `skip`), or stop."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["follow", "stop"]
    skip: int = 0


def undelivered(where: str, dropped: int, ended: int, why: str | None) -> str:
    """The warning line for spans that did not arrive (queue full, backend down or refusing)."""
    return f"OTLP export to {where}: {dropped} of {ended} spans were not delivered{f': {why}' if why else ''}"


class ChildReport(BaseModel):
    """What the child made of the run: spans made (`ended`) and delivered (`sent`), the exporter's
    first failure, the first fault that stopped it (the `otel` extra missing, an unreadable file),
    and, when it was stopped by its `finish` bound before it was done, `steps_left`: steps in the
    file it never sent."""

    model_config = ConfigDict(extra="forbid")

    where: str = "the default OTLP endpoint"
    ended: int = 0
    sent: int = 0
    failure: str | None = None
    fault: str | None = None
    cut_short: float | None = None
    """The `finish` bound, in seconds, when the child stopped at it."""
    steps_left: int = 0

    def warning(self) -> str | None:
        """The one line to show the user, or None when every span arrived."""
        if self.fault is not None:
            return f"OTLP export skipped: {self.fault}"
        dropped = self.ended - self.sent
        if self.cut_short is not None:
            left = f", {self.steps_left} steps never sent" if self.steps_left else ""
            why = f"stopped after {self.cut_short:g} s{left}"
            if self.failure:
                why += f"; {self.failure}"
            return undelivered(self.where, dropped, self.ended, why)
        if dropped <= 0:
            return None
        return undelivered(self.where, dropped, self.ended, self.failure)
