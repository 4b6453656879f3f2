"""`LiveExport`: a run file followed as it is written, each step's spans sent as soon as it is there.

The export child (`inspector.otel.child`) calls `read` every `interval` seconds while the run goes
on, and `finish` once it is over. A read that sees the same size reads nothing; one that sees the file
grow re-reads its line index (as `inspector replay --follow` does) and maps what is new with the same
`Mapper` as `inspector export`: a segment's root span starts when its header is written, each step's
node, chat and tool spans end (and go to the batch processor, whose own thread sends them) when its
line is written, and the root ends, with its step events and what was spent, when the segment's run
ends. Each step is mapped once; only the line index is read again, at most every `READ_EVERY` times
what the last read took, so re-reading the index of a long run (a few ms a thousand steps) costs a
bounded share of the child's time however long the run goes.

Ids come from the recording (`KeyedIds`), so the spans a live run sends are the ones
`inspector export` makes of its file afterwards, and a backend keeps one copy of each; a resumed
segment links to the root of the one it continues by those ids, whether or not that one was sent by
this export (`skip`: segments already in the file when the run began are not sent again).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from opentelemetry.trace import Span

from inspector.otel.exporters import SCOPE, OtlpSink
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
    """Follow the run file at `path` and send its spans to `sink` as they are written: `read` while
    the run goes on, `finish` once: the last read sends what is left (a run that never ended has its
    roots ended as they stand, status `incomplete`). The first run read skips its segments before
    `skip`. `fault` keeps the first error; `steps_left` counts the steps read but not yet sent."""

    def __init__(
        self,
        path: str | Path,
        sink: OtlpSink,
        *,
        content: bool = False,
        skip: int = 0,
        poll: float = POLL_SECONDS,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.path = Path(path)
        self.sink = sink
        self.content = content
        self.skip = skip
        self.poll = poll
        self.clock = clock
        self.fault: str | None = None
        self.steps_left = 0
        self._wait = poll
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

    def finish(self) -> None:
        """Read the file once more, send what is left, and end the roots of segments still open."""
        self._size = -1
        self.read()
        for open_segment in self._open.values():  # a run that never ended: as far as it got
            open_segment.root.end()
        self._open.clear()

    def read(self) -> None:
        """Send what was written since the last read (nothing when the file has not grown)."""
        if self.fault is not None:
            return
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
            return  # no header yet, or a line still being written: the next read takes it
        self._wait = max(self.poll, READ_EVERY * (self.clock() - started))
        self._size = size
        try:
            with run:
                self._send(run)
        except Exception as exc:  # one fault ends the export; the run never hears of it
            self.fault = self.fault or f"{type(exc).__name__}: {exc}"

    def _send(self, run: Run) -> None:
        if run.run_id != self._run_id:  # a new run in the file (a recorder records one after another)
            for open_segment in self._open.values():
                open_segment.root.end()
            self._run_id = run.run_id
            self._ids = KeyedIds(run.run_id)
            tracer = self.sink.provider(self._ids).get_tracer(SCOPE, schema_url=SCHEMA_URL)
            self._open, self._closed = {}, set(range(self.skip))
            self.skip = 0  # only the file as it was when the run began has segments sent before
            self._mapper = Mapper(run, tracer, self._ids, content=self.content)
        mapper = self._mapper
        assert mapper is not None
        mapper.run = run
        segments = [segment for segment in run.segments if segment.index not in self._closed]
        self.steps_left = sum(len(s.steps) - self._sent(s.index) for s in segments)
        for segment in segments:
            index = segment.index
            current = self._open.get(index)
            if current is None:
                current = self._open[index] = _Open(mapper.begin(segment))
            for position in segment.steps[current.sent :]:
                current.previous = mapper.step(current.root, segment, run.steps[position], current.previous)
                current.sent += 1
                self.steps_left -= 1
            if segment.status != "incomplete":
                mapper.finish(current.root, segment, current.previous)
                del self._open[index]
                self._closed.add(index)

    def _sent(self, index: int) -> int:
        current = self._open.get(index)
        return 0 if current is None else current.sent
