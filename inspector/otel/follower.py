"""`LiveExport`: a run file followed as it is written, each step's spans sent as soon as it is there.

A thread of its own polls the file (as `inspector replay --follow` does: a poll that sees the same
size reads nothing; one that sees it grow re-reads the line index) and maps what is new with the
same `Mapper` as `inspector export`: a segment's root span starts when its header is written, each
step's node, chat and tool spans end (and go to the batch processor, whose own thread sends them)
when its line is written, and the root ends, with its step events and what was spent, when the
segment's run ends. Each step is mapped once; only the line index is read again.

The run's own thread never waits on this thread or the network, but it shares the GIL with them.
So this thread gives way between spans (`Courtesy`) until `stop`, and it re-reads a growing file at
most every `READ_EVERY` times what the last read took: re-reading the index of a long run (a few ms
a thousand steps) then costs a bounded share of the time however long the run goes.

Ids come from the recording (`KeyedIds`), so the spans a live run sends are the ones
`inspector export` makes of its file afterwards, and a backend keeps one copy of each.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from opentelemetry.trace import Span

from inspector.otel.courtesy import Courtesy
from inspector.otel.exporters import SCOPE, OtlpSink, sdk_disabled
from inspector.otel.ids import KeyedIds
from inspector.otel.mapping import Mapper
from inspector.otel.names import SCHEMA_URL
from inspector.recording.reader import Run, read_run

__all__ = ["LiveExport"]

POLL_SECONDS = 0.02
READ_EVERY = 20
"""A growing file is read again after at least this many times the last read's duration."""


@dataclass
class _Open:
    """A segment being sent: its root span, the steps already sent, the last step's span ids."""

    root: Span
    sent: int = 0
    previous: dict[str, str] = field(default_factory=lambda: {})


class LiveExport:
    """Follow the run file at `path` and send its spans to `sink` as they are written. `start`, then
    `stop` once the run is over: the last read sends what is left (a run that never ended has its
    roots ended as they stand, status `incomplete`). `fault` keeps the first error of the thread.
    With `OTEL_SDK_DISABLED=true`, `start` and `stop` do nothing."""

    def __init__(
        self,
        path: str | Path,
        sink: OtlpSink,
        *,
        content: bool = False,
        poll: float = POLL_SECONDS,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.path = Path(path)
        self.sink = sink
        self.content = content
        self.poll = poll
        self.clock = clock
        self.fault: str | None = None
        self._wait = poll
        self._stopping = threading.Event()
        self.disabled = sdk_disabled()
        self.courtesy = Courtesy()
        self._thread = threading.Thread(target=self._follow, name="inspector-otlp-follow", daemon=True)
        self._size = -1
        self._run_id: str | None = None
        self._ids: KeyedIds | None = None
        self._mapper: Mapper | None = None
        self._open: dict[int, _Open] = {}
        self._closed: set[int] = set()

    @property
    def interval(self) -> float:
        """Seconds until the next read: the poll, or `READ_EVERY` times what the last read took."""
        return self._wait

    @property
    def started(self) -> bool:
        return self._thread.ident is not None

    def start(self) -> None:
        if not self.disabled:
            self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Send what is left and end the thread (waits at most `timeout`)."""
        self.courtesy.active = False  # the run is over: no one to give way to
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        elif self._thread.ident is None and not self.disabled:  # never started: one read does it all
            self._final()

    def _follow(self) -> None:
        while not self._stopping.wait(self._wait):
            self._read()
        self._final()

    def _final(self) -> None:
        self._size = -1
        self._read()
        for open_segment in self._open.values():  # a run that never ended: as far as it got
            open_segment.root.end()
        self._open.clear()

    def _read(self) -> None:
        try:
            size = self.path.stat().st_size
        except OSError:
            return
        if size == self._size:
            return
        started = self.clock()
        try:
            run = read_run(self.path, check_limit=0)  # lines are checked as the steps are read
        except Exception:
            return  # no header yet, or a line still being written: the next poll reads it
        self._wait = max(self.poll, READ_EVERY * (self.clock() - started))
        self._size = size
        try:
            with run:
                self._send(run)
        except Exception as exc:  # a sink never breaks the run it observes
            self.fault = self.fault or f"{type(exc).__name__}: {exc}"
            self._stopping.set()

    def _send(self, run: Run) -> None:
        if run.run_id != self._run_id:  # a new run in the file (a recorder records one after another)
            for open_segment in self._open.values():
                open_segment.root.end()
            self._run_id = run.run_id
            self._ids = KeyedIds(run.run_id)
            tracer = self.sink.provider(self._ids).get_tracer(SCOPE, schema_url=SCHEMA_URL)
            self._open, self._closed = {}, set()
            self._mapper = Mapper(run, tracer, self._ids, content=self.content, pause=self.courtesy)
        mapper = self._mapper
        assert mapper is not None
        mapper.run = run
        for segment in run.segments:
            index = segment.index
            if index in self._closed:
                continue
            current = self._open.get(index)
            if current is None:
                current = self._open[index] = _Open(mapper.begin(segment))
            for position in segment.steps[current.sent :]:
                current.previous = mapper.step(current.root, segment, run.steps[position], current.previous)
                current.sent += 1
            if segment.status != "incomplete":
                mapper.finish(current.root, segment, current.previous)
                del self._open[index]
                self._closed.add(index)
