"""`RunWriter`: the run file's side of the `Recorder`, everything but the steps.

It holds the recorder's options and per-run memory, writes the run's first line (the header, or a
resumed segment's line) and its last (`interrupted`, `run_finished`, with the steps that never
finished), out-of-band events, and faults. The steps themselves, from the engine's callbacks to their
bytes, are `recorder.Recorder`'s.

Recording never breaks the run it observes: any fault of the recorder itself (unwritable path, full
disk, another process writing the file, a bug) is reported once on stderr (unless the caller reports
it: `report_faults=False`), kept in `fault`, and turns the recorder off for the rest of the run;
`discard()` then takes back what it wrote, for callers that keep no partial file (the CLI).

One run at a time: a run that starts while another is being recorded (one recorder shared by two
threads or tasks; callbacks do not say which run they come from) is refused with `RecorderBusyError`,
raised from its start, so the first run's file stays a run file.

Steps may be written behind the run (`write_behind`): `_later` holds the steps handed to the background
thread, and everything here that encodes or writes first calls `catch_up()`, which writes them, in
order, under `_work`; so the file's lines are in the order a recorder writing everything at once
would give them, and the encoder is used by one thread at a time.
"""

from __future__ import annotations

import datetime as dt
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_core import to_json

from graph_core.callbacks import StepInfo
from graph_core.topology import Topology
from inspector.errors import RecorderBusyError
from inspector.recording.continuation import (
    Continuation,
    check_resumable,
    check_resumed_from,
    file_size,
    segment_line,
)
from inspector.recording.encode import Encoder
from inspector.recording.header import header_line, index_topology, scope_extra, topology_from_scope
from inspector.recording.pending import Counters, Pending, error_record, node_run_records
from inspector.recording.redact import RedactSpec, make_redaction
from inspector.recording.sink import Sink, describe_fault
from inspector.recording.state_track import StateTrack
from inspector.recording.step_line import StepDecisions, unfinished_line
from inspector.recording.times import round_time
from inspector.trust import remember_recording

__all__ = ["ProgressFn", "RunWriter"]

ProgressFn = Callable[[dict[str, Any]], None]


class RunWriter:
    """The options, the run's memory and its first and last lines; see `Recorder` for the options."""

    def __init__(
        self,
        path: str | Path,
        *,
        redact: RedactSpec = True,
        topology: Topology | None = None,
        clock: Callable[[], float] | None = None,
        run_id: str | None = None,
        max_str: int = 10_000,
        snapshot_every: int = 200,
        progress: ProgressFn | None = None,
        meta: dict[str, Any] | None = None,
        resume: bool = False,
        checkpoint_id: str | None = None,
        report_faults: bool = True,
    ) -> None:
        self.path = Path(path)
        self.resuming = resume
        self._expected_checkpoint = checkpoint_id
        self._continuation: Continuation | None = check_resumable(path, checkpoint_id) if resume else None
        self.topology = topology
        self.fault: BaseException | None = None
        self._report_faults = report_faults
        self._running = False  # a top-level run started and has not finished (see `_begin_run`)
        self._refused: BaseException | None = None  # the error that refused a concurrent run
        self._redaction = make_redaction(redact)
        self._clock = clock or time.time
        self._run_id = run_id
        self._max_str = max_str
        self._snapshot_every = snapshot_every
        self._progress = progress
        self._meta = meta or {}
        self._lock = threading.RLock()  # the callbacks, from any of the run's threads
        self._work = threading.Lock()  # the encoder and the file: the run's thread or the write-behind
        self._later: list[tuple[Any, ...]] = []  # steps handed to the write-behind thread, in order
        self._sink = Sink(self.path, append=resume)
        self._reset()

    def _reset(self) -> None:
        first_ref = 0 if self._continuation is None else self._continuation.values
        self._encoder = Encoder(redaction=self._redaction, max_str=self._max_str, first_ref=first_ref)
        self._counters = Counters()
        self._states: dict[tuple[str, ...], StateTrack] = {}
        self._own_iterations: dict[tuple[str, ...], int] = {}  # nested graphs' own iterations left
        self._open_runs: dict[tuple[Any, ...], Pending] = {}
        self._done: dict[tuple[str, ...], list[Pending]] = {}
        self._steps: dict[tuple[str, ...], tuple[StepInfo, float, tuple[Any, ...]]] = {}
        self._slow: set[str | None] = set()  # top-level nodes whose last run was slow (`SLOW_NODE_SECONDS`)
        self._last_budget: dict[str, Any] | None = None
        self._out: list[bytes] = []
        self._t0: float | None = None
        self._header_written = False
        self._graph_name = ""
        self._finished = False
        self._nodes: dict[tuple[str, ...], tuple[str, str]] = {}
        ends: dict[tuple[tuple[str, ...], str, int], tuple[str, ...]] = {}
        self._ends = ends
        self._max_steps: int | None = None
        # over `ends`, not `self`: no reference cycle, so a finished recorder and its memos are freed
        # when the run lets go of it, not by the garbage collector in some later step of another run
        self._decisions = StepDecisions(ends)

    def append_event(self, event: dict[str, Any], *, values: tuple[str, ...] = ()) -> None:
        """Write one out-of-band line between steps (the debugger's `edit` and `aborted` lines, see
        `format.StateEdited`): the fields named in `values` are encoded like step values (redacted, with
        `value` lines for new messages), `t` is set to the run's clock. A no-op after a fault."""
        if self.fault is not None:
            return
        with self._lock:
            self.flush()
            line = dict(event)
            for key in values:
                line[key] = self._encoder.encode(line[key])
            line["t"] = self._rel(self._clock())
            self._line(line)
            self._flush()

    # --- steps written behind the run -----------------------------------------------------------

    def flush(self) -> None:
        """Write now the steps still waiting for the write-behind thread (a debugger does, before it
        shows a paused run's file); the file then holds every step that has ended."""
        if self._later:
            self.catch_up()

    def catch_up(self) -> None:
        """Write the queued steps, in order, in this thread (or wait for the write-behind thread to)."""
        with self._work:
            later = self._later
            try:
                while later:
                    self._write_later(later[0])
                    del later[0]  # after the write: a caller that saw it queued waits for it
            except Exception as exc:
                later.clear()
                self._fail(exc)

    def _write_later(self, held: tuple[Any, ...]) -> None:
        raise NotImplementedError  # `Recorder` writes its held steps

    # --- values and lines -----------------------------------------------------------------------

    def _queue(self, line: bytes) -> None:
        """Queue the value lines pending in the encoder, then `line`; all encoding already happened."""
        if self._encoder.has_definitions:
            self._out += self._encoder.take_definition_lines()
        self._out.append(line)

    def _line(self, event: dict[str, Any]) -> None:
        self._queue(to_json(event) + b"\n")

    def _flush(self) -> None:
        """Write the queued lines at once, unbuffered: the file always ends with a whole step."""
        if not self._header_written:
            self._write_header()
        data = b"".join(self._out)
        self._out = []
        self._sink.write(data)

    # --- the run's first and last lines ---------------------------------------------------------

    def _begin_run(self, info: Any, input: Any) -> None:
        if self._running:
            self._refused = RecorderBusyError(
                f"this Recorder is already recording a run to {self.path}, and another run started "
                "meanwhile; callbacks do not say which run they come from, so the two would end up "
                "mixed in one file. Give each run that may overlap its own Recorder and file",
                path=self.path,
            )
            raise self._refused
        self.flush()
        if self.resuming:
            continuation = self._continuation
            if self._header_written or continuation is None or file_size(self.path) != continuation.size:
                self.close()  # a second resumed run, or the file changed since it was checked
                continuation = self._continuation = check_resumable(self.path, self._expected_checkpoint)
            check_resumed_from(continuation, scope_extra("resumed_from"), self.path)
            self._reset()
        elif self._header_written:  # the same Recorder reused for another run: start a new file
            self.close()
            self._reset()
        self._graph_name = info.name or info.graph_name
        self._write_header(input)
        self._running = True

    def _write_header(self, input: Any = None) -> None:
        now = self._clock()
        if self._t0 is None:
            self._t0 = now
        topology = self.topology
        if topology is None:
            topology = self.topology = topology_from_scope()
        if topology is not None:
            index_topology(topology, (), self._nodes, self._ends)
            self._max_steps = topology.max_run_steps
        started = dt.datetime.fromtimestamp(self._t0, tz=dt.UTC).isoformat()
        encode = self._encoder.encode
        continuation = self._continuation
        if continuation is None:
            line = header_line(
                self._run_id or uuid.uuid4().hex,
                self._graph_name,
                started,
                topology,
                encode(input),
                encode(self._meta),
            )
            remember_recording(line["run_id"], self._meta)  # recorded by this user: `inspector.trust`
        else:
            if topology is None and continuation.topology_json is not None:
                self._max_steps = continuation.topology_json.get("max_run_steps")
            line = segment_line(
                continuation,
                topology,
                self._graph_name,
                started,
                None if input is None else encode(input),
                encode(self._meta) if self._meta else None,
            )
        self._header_written = True
        # the input's messages after the header
        self._sink.write(b"".join([to_json(line), b"\n", *self._encoder.take_definition_lines()]))

    def _unfinished(self) -> None:
        """Lines for steps that started and never finished (the run failed or stopped inside them),
        innermost graph first, with what ran (or was still running) in them."""
        self.flush()
        for path in sorted(self._steps, key=len, reverse=True):
            info, started, counters = self._steps[path]
            done = self._done.pop(path, [])
            done.extend(p for p in self._open_runs.values() if p.path[:-1] == path and p.component != "Tool")
            runs = node_run_records(
                done, path, info.nodes, started, self._nodes, self._encoder.encode_held, self._max_str
            )
            self._queue(unfinished_line(path, info, self._rel(started), counters, runs))
        self._steps.clear()
        self._open_runs.clear()

    def _interrupted(self, error: BaseException) -> None:
        info = getattr(error, "info", None)
        self._unfinished()
        event: dict[str, Any] = {
            "kind": "interrupted",
            "before_nodes": list(getattr(info, "before_nodes", []) or []),
            "after_nodes": list(getattr(info, "after_nodes", []) or []),
            # every node that reruns on resume: graph_core lists a nested graph's node under sub_graphs
            "rerun_nodes": [
                *(getattr(info, "rerun_nodes", []) or []),
                *(getattr(info, "sub_graphs", {}) or {}),
            ],
            "state": self._encoder.encode(getattr(info, "state", None)),
            "checkpoint_id": getattr(error, "checkpoint_id", None),
            "t": self._rel(self._clock()),
        }
        self._line(event)
        self._finish_run("interrupted")

    def _finish_run(self, status: str, *, output: Any = None, error: BaseException | None = None) -> None:
        if self._finished or (error is not None and error is self._refused):  # not the run recorded
            return
        self._unfinished()
        t = self._rel(self._clock())
        event: dict[str, Any] = {"kind": "run_finished", "status": status}
        if status == "ok":
            event["output"] = self._encoder.encode(output)
        if error is not None:
            event["error"] = error_record(error, self._redaction.scrub)
        event["t"] = t
        event["duration"] = t
        self._line(event)
        self._flush()
        self._finished = True
        self.close()

    # --- plumbing -------------------------------------------------------------------------------

    def _rel(self, t: float | None) -> float | None:
        if t is None:
            return None
        if self._t0 is None:
            self._t0 = t
        return round_time(t - self._t0)

    def _fail(self, error: BaseException) -> None:
        if self.fault is None:
            self.fault = error
            if self._report_faults:
                print(
                    f"inspector: recording to {self.path} stopped: {describe_fault(error)} "
                    "(the run itself continues)",
                    file=sys.stderr,
                )
        self._sink.drop()

    def attach(self, target: Any) -> Any:
        """Take the header's topology from `target` (a CompiledGraph, a Graph's compiled form or an agent
        with `.compiled`); returns the recorder, for `callbacks=[Recorder(path).attach(agent)]`."""
        compiled = getattr(target, "compiled", target)
        make = getattr(compiled, "topology", None)
        if callable(make):
            topology = make()
            if isinstance(topology, Topology):
                self.topology = topology
        return self

    def open(self) -> None:
        """Open and lock the file now, not when the run starts: a file another recording is being
        written to is refused (`RunWriteError`, nothing changed) before anything runs (the CLI does)."""
        with self._lock:
            self._sink.open()

    def close(self) -> None:
        """Flush and close the file (done automatically when the top-level graph ends); the recorder
        may then record another run."""
        with self._lock:
            self._running = False
            self.flush()
            self._sink.close()

    def discard(self) -> bool:
        """Take back what this recorder wrote: remove the file it created, or cut a resumed file back
        to the segments it had (for callers that keep no partial file after a `fault`). False when
        nothing was taken back (nothing written, or another writer has the file now)."""
        with self._lock:
            self._later.clear()
            self._out = []
            return self._sink.discard()
