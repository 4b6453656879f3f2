"""`Recorder`: a callback that writes a run file as the run goes.

`compiled.invoke(x, callbacks=[Recorder("run.jsonl")])` is all it takes. The top-level graph's
`on_start` opens the file (truncating it) and writes the header. Node and tool callbacks only note what
they were told (messages and message lists are held as they are, other values encoded right away);
each top-level step boundary encodes the step in a fixed order (nodes in the step's order, tool calls
in call order), writes its lines in one unbuffered write. So files are byte-stable even when tools run in
parallel, a process killed mid-run leaves whole steps only, and the run pays for one write per step.
The top-level graph's `on_end`/`on_error` writes the unfinished step (if any) and `run_finished`.

Recording never breaks the run it observes: values that cannot be encoded become marked
representations, and any fault of the recorder itself (unwritable path, full disk, a bug) is reported
once on stderr, kept in `Recorder.fault`, and turns the recorder off for the rest of the run.

The topology comes from `topology=`, else from the run scope (`scope.extras["topology"]` or
`scope.extras["compiled"].topology()`) when the engine offers it, else it is left out of the header.

`Recorder(path, resume=True)` (or `Recorder.resume(path)`) records a resumed run into the file of the
run it continues, as a new segment: the file must end with an interrupted run that saved a checkpoint,
and the run must be resumed from that checkpoint (the engine's `scope.extras["resumed_from"]`). The
file is opened for appending only, so a process killed in the resumed segment leaves the earlier
segments intact and every complete step of the new one readable.
"""

from __future__ import annotations

import datetime as dt
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic_core import to_json

from graph_core.callbacks import RunInfo, StepInfo
from graph_core.errors import InterruptError
from graph_core.history import HistoryView
from graph_core.schema import Message
from graph_core.topology import Topology
from inspector.recording.continuation import (
    Continuation,
    check_resumable,
    check_resumed_from,
    file_size,
    segment_line,
)
from inspector.recording.elision import compact_budget, compact_budget_before, counters_into
from inspector.recording.encode import Encoder
from inspector.recording.header import header_line, index_topology, scope_extra, topology_from_scope
from inspector.recording.pending import (
    NOTHING,
    Counters,
    Encoded,
    Held,
    Pending,
    drain,
    error_record,
    node_run_records,
    round_time,
)
from inspector.recording.redact import RedactSpec, make_redaction
from inspector.recording.sink import Sink
from inspector.recording.state_track import StateTrack
from inspector.recording.step_line import StepDecisions, step_line, unfinished_line

__all__ = ["Continuation", "Recorder", "check_resumable", "error_record"]

_ITERATION_KEYS = ("remaining_iterations", "RemainingIterations", "iterations_remaining")
_ITERATION_SET = frozenset(_ITERATION_KEYS)
ProgressFn = Callable[[dict[str, Any]], None]


class Recorder:
    """Write a run file at `path` while a graph or agent runs; pass it in `callbacks=[...]`.

    `redact` masks secrets by key and by value (default: api_key, authorization, password, secret,
    token-like keys, credential-shaped strings; see `make_redaction`). `topology` is stored in the
    header when given. `clock` (seconds, monotonic or not) and `run_id` make files byte-stable in tests.
    Strings longer than `max_str` characters are truncated and marked. `progress(step_dict)` is called
    after each top-level step (the CLI prints a line; `step_dict` has `index`, `nodes` and the full
    `budget`). `snapshot_every` caps how many steps a reader replays from the last full snapshot.

    `resume=True` appends the run to `path` as a new segment instead of starting the file afresh: the
    file must end with an interrupted run that saved a checkpoint (`checkpoint_id`, when given, must be
    that one), checked now (`RunFileError` if not) and again when the run starts, which must be a
    resume from that checkpoint; otherwise the recorder faults (stderr, `fault`) and leaves the file as
    it was. Each run such a recorder sees is appended as one more segment.

    Callbacks only note what they are told; each step's line (with the value lines it introduces and
    the lines of nested graphs' steps) is built, written and flushed at the top-level step boundary.
    """

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
    ) -> None:
        self.path = Path(path)
        self.resuming = resume
        self._expected_checkpoint = checkpoint_id
        self._continuation: Continuation | None = check_resumable(path, checkpoint_id) if resume else None
        self.topology = topology
        self.fault: BaseException | None = None
        self._redaction = make_redaction(redact)
        self._clock = clock or time.time
        self._run_id = run_id
        self._max_str = max_str
        self._snapshot_every = snapshot_every
        self._progress = progress
        self._meta = meta or {}
        self._lock = threading.RLock()
        self._sink = Sink(self.path, append=resume)
        self._reset()

    @classmethod
    def resume(cls, path: str | Path, *, checkpoint_id: str | None = None, **options: Any) -> Recorder:
        """`Recorder(path, resume=True, ...)`: record a resumed run into the file of the run it continues."""
        return cls(path, resume=True, checkpoint_id=checkpoint_id, **options)

    def _reset(self) -> None:
        first_ref = 0 if self._continuation is None else self._continuation.values
        self._encoder = Encoder(redaction=self._redaction, max_str=self._max_str, first_ref=first_ref)
        self._counters = Counters()
        self._states: dict[tuple[str, ...], StateTrack] = {}
        self._open_runs: dict[tuple[Any, ...], Pending] = {}
        self._done: dict[tuple[str, ...], list[Pending]] = {}
        self._steps: dict[tuple[str, ...], tuple[StepInfo, float, tuple[Any, ...]]] = {}
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
        self._decisions = StepDecisions(lambda path, source, index: ends.get((path, source, index)))

    def append_event(self, event: dict[str, Any], *, values: tuple[str, ...] = ()) -> None:
        """Write one out-of-band line between steps (the debugger's `edit` and `aborted` lines, see
        `format.StateEdited`): the fields named in `values` are encoded like step values (redacted, with
        `value` lines for new messages), `t` is set to the run's clock. A no-op after a fault."""
        if self.fault is not None:
            return
        with self._lock:
            line = dict(event)
            for key in values:
                line[key] = self._encoder.encode(line[key])
            line["t"] = self._rel(self._clock())
            self._line(line)
            self._flush()

    # --- callbacks: note what happened ----------------------------------------------------------

    def on_start(self, info: RunInfo, input: Any) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    key = info.node_key
                    if key is None:
                        if not info.path:
                            self._begin_run(info, input)
                        return
                    kind = info.kind
                    if kind == "ChatModel":
                        self._counters.model_calls += 1
                    elif kind == "Tool":
                        self._counters.tool_calls += 1
                    cls = type(input)  # `_hold`'s cheap cases, inline
                    held = input if cls is Message or cls is str or input is None else self._hold(input)
                    self._open_runs[(info.path, key, info.tool_call_id)] = Pending(info, held, self._clock())
            except Exception as exc:
                self._fail(exc)

    def on_end(self, info: RunInfo, output: Any) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    if info.node_key is None:
                        if not info.path:
                            self._finish_run("ok", output=output)
                        return
                    if type(output) is Message and output.usage is not None and info.kind == "ChatModel":
                        self._counters.add_usage(output)
                    cls = type(output)  # `_hold`'s cheap cases, inline
                    held = output if cls is Message or cls is str or output is None else self._hold(output)
                    self._ended(info).output = held
            except Exception as exc:
                self._fail(exc)

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    if info.node_key is None:
                        if not info.path:
                            if isinstance(error, InterruptError):
                                self._interrupted(error)
                            else:
                                self._finish_run("error", error=error)
                        return
                    self._ended(info).error = error_record(error, self._redaction.scrub)
            except Exception as exc:
                self._fail(exc)

    def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
        self.on_start(info, drain(input))

    def on_end_with_stream_output(self, info: RunInfo, output: Iterator[Any]) -> None:
        self.on_end(info, drain(output))

    def on_step_start(self, step: StepInfo) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    c = self._counters  # `snapshot()`, inline
                    counters = (c.model_calls, c.tool_calls, c.prompt, c.completion, c.total, c.iterations)
                    self._steps[step.path] = (step, self._clock(), counters)
            except Exception as exc:
                self._fail(exc)

    def on_step_end(self, step: StepInfo) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    self._on_step_end(step)
            except Exception as exc:
                self._fail(exc)

    def _hold(self, value: Any) -> Any:
        """What to keep of a reported value until the step boundary (see `pending`)."""
        cls = type(value)
        if cls is Message or cls is str or value is None or cls is int:
            return value
        if cls is HistoryView:  # an agent's fixed view of its history: held as the list it shows
            value, cls = value.as_list(), list
        if cls is list and value and type(value[0]) is Message and type(value[-1]) is Message:
            return Held(value)
        return Encoded(self._encoder.encode(value))

    def _ended(self, info: RunInfo) -> Pending:
        key = info.node_key
        pending = self._open_runs.pop((info.path, key, info.tool_call_id), None)
        if pending is None:  # an end without a start: record what we have
            pending = Pending(info, NOTHING, None)
        pending.end = self._clock()
        if info.kind == "Tool":
            parent = self._open_runs.get((info.path, key, None))
            if parent is not None:
                if parent.tools is None:
                    parent.tools = [pending]
                else:
                    parent.tools.append(pending)
                return pending
        done = self._done.get(info.path[:-1])
        if done is None:
            self._done[info.path[:-1]] = [pending]
        else:
            done.append(pending)
        return pending

    def _value(self, held: Any) -> Any:
        """A held value encoded (in node order, at the step boundary)."""
        cls = type(held)
        if cls is Encoded:
            return held.value
        if cls is Message:
            return self._encoder.encode_message(held)
        if cls is Held:
            value = held.value
            return self._encoder.encode_list(value if len(value) == held.n else value[: held.n])
        return self._encoder.encode(held)

    # --- one step: from the engine's event to the bytes on disk ---------------------------------

    def _on_step_end(self, step: StepInfo) -> None:
        """A finished step, top to bottom: times, node runs, state, budgets, decisions, the line, the
        write. Nested graphs' steps are queued and go out with their top-level step."""
        path, index = step.path, step.index
        end = self._clock()
        started = self._steps.pop(path, None)
        begin = started[1] if started is not None else end
        t0 = self._t0
        if t0 is None:
            t, end_t = self._rel(begin), self._rel(end)
        else:  # `_rel`, inline
            t, end_t = round_time(begin - t0), round_time(end - t0)
        duration = None if t is None or end_t is None else round_time(end_t - t)

        done = self._done.pop(path, None)
        runs = (
            node_run_records(done, path, step.nodes, begin, self._nodes, self._value, self._max_str)
            if done
            else None
        )

        full, payload, delta_json = self._state(step)

        c = self._counters
        used = step.budget
        implied_max = None if path else self._max_steps
        counters = (c.model_calls, c.tool_calls, c.prompt, c.completion, c.total, c.iterations)
        budget = compact_budget(
            used.steps_used, used.steps_max, used.steps_remaining, index + 1, implied_max, counters
        )
        before = None
        if not path:
            if started is not None:
                info = started[0].budget
                before = compact_budget_before(
                    info.steps_used,
                    info.steps_max,
                    info.steps_remaining,
                    index,
                    implied_max,
                    started[2],
                    self._last_budget,
                )
            self._last_budget = budget

        line = step_line(
            path,
            index,
            self._decisions.of(step),
            t,
            duration,
            budget,
            before,
            runs,
            full,
            payload,
            delta_json,
            step.ended,
            step.errors,
            getattr(step, "interrupted", ()),
        )
        if path:
            self._queue(line)
            return
        self._write_step(line, step)

    def _state(self, step: StepInfo) -> tuple[bool, Any, bytes | None]:
        """(`full`, payload, the delta's JSON when made) of the step's state; the ADK iterations counter
        is read from the top-level state on the way."""
        if step.state is None:
            return True, None, None
        track = self._states.get(step.path)
        if track is None:
            track = self._states[step.path] = StateTrack(self._snapshot_every)
        full, payload, encoded = track.record_state(step.state, self._encoder)
        if not step.path and type(encoded) is dict and not track.usual:  # usual: the same fields as before
            self._counters.iterations = None if _ITERATION_SET.isdisjoint(encoded) else _iterations(encoded)  # pyright: ignore[reportUnknownArgumentType]
        return full, payload, track.delta_json

    def _write_step(self, line: bytes, step: StepInfo) -> None:
        """A top-level step's lines (queued nested steps, new values, this one) in one write."""
        if self._out or not self._header_written:
            self._queue(line)
            self._flush()
        else:  # the usual step: nothing queued
            self._sink.write(self._encoder.take_definition_bytes() + line)
        if self._progress is not None:
            budget: dict[str, Any] = {
                "steps_used": step.budget.steps_used,
                "steps_max": step.budget.steps_max,
                "steps_remaining": step.budget.steps_remaining,
            }
            counters_into(budget, self._counters.snapshot())
            self._progress({"index": step.index, "nodes": list(step.nodes), "budget": budget})

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
        self._write(data)

    def _write(self, data: bytes) -> None:
        self._sink.write(data)

    # --- the run's first and last lines ---------------------------------------------------------

    def _begin_run(self, info: RunInfo, input: Any) -> None:
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
        self._write(b"".join([to_json(line), b"\n", *self._encoder.take_definition_lines()]))

    def _unfinished(self) -> None:
        """Lines for steps that started and never finished (the run failed or stopped inside them),
        innermost graph first, with what ran (or was still running) in them."""
        for path in sorted(self._steps, key=len, reverse=True):
            info, started, counters = self._steps[path]
            done = self._done.pop(path, [])
            done.extend(p for p in self._open_runs.values() if p.path[:-1] == path and p.component != "Tool")
            runs = node_run_records(done, path, info.nodes, started, self._nodes, self._value, self._max_str)
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
        if self._finished:
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
            print(
                f"inspector: recording to {self.path} stopped: {type(error).__name__}: {error} "
                "(the run itself continues)",
                file=sys.stderr,
            )
        self._sink.drop()

    def attach(self, target: Any) -> Recorder:
        """Take the header's topology from `target` (a CompiledGraph, a Graph's compiled form or an agent
        with `.compiled`); returns the recorder, for `callbacks=[Recorder(path).attach(agent)]`."""
        compiled = getattr(target, "compiled", target)
        make = getattr(compiled, "topology", None)
        if callable(make):
            topology = make()
            if isinstance(topology, Topology):
                self.topology = topology
        return self

    def close(self) -> None:
        """Flush and close the file (done automatically when the top-level graph ends)."""
        with self._lock:
            self._sink.close()


def _iterations(state: dict[str, Any]) -> int | None:
    for key in _ITERATION_KEYS:
        value = state.get(key)
        if type(value) is int:
            return value
    return None
