"""`Recorder`: a callback that writes a run file as the run goes.

`compiled.invoke(x, callbacks=[Recorder("run.jsonl")])` is all it takes. The top-level graph's
`on_start` opens the file (truncating it) and writes the header. Node and tool callbacks only note what
they were told (messages and message lists are held as they are, other values encoded right away);
each top-level step boundary encodes the step in a fixed order (nodes in the step's order, tool calls
in call order), writes its lines in one unbuffered write. So files are byte-stable even when tools run in
parallel, a process killed mid-run leaves whole steps only, and the run pays for one write per step.
The top-level graph's `on_end`/`on_error` writes the unfinished step (if any) and `run_finished`
(`run_writer`, with the header, faults and the options).

When the next step runs a node whose last run waited long (`SLOW_NODE_SECONDS`: a model call, a tool on
the network), the step is frozen (`held`) and written by a background thread during that wait
(`write_behind`), in the same order and to the same bytes; a process killed then loses that one step.

Recording never breaks the run it observes: values that cannot be encoded become marked
representations, and faults of the recorder itself turn it off (`RunWriter._fail`).

The path of one step, top to bottom: `on_step_end` -> `_on_step_end` (what the run's thread must take
now) -> `_write_behind` (queued while a node is slow) or at once -> `_write_step`, one phase per line,
each a function in a module of its own that never calls back here: times (`times`), node runs
(`pending`), state (`state_track`), budgets (`elision`), the line (`step_line`), the write (`encode`'s
new value lines, the `sink`). docs/recordings.md, "How a step is written", tells the same.

The topology comes from `topology=`, else from the run scope (`scope.extras["topology"]` or
`scope.extras["compiled"].topology()`) when the engine offers it, else it is left out of the header.

`Recorder(path, resume=True)` (or `Recorder.resume(path)`) records a resumed run into the file of the
run it continues, as a new segment: the file must end with an interrupted run that saved a checkpoint,
and the run must be resumed from that checkpoint (the engine's `scope.extras["resumed_from"]`). The
file is opened for appending only, so a process killed in the resumed segment leaves the earlier
segments intact and every complete step of the new one readable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

from graph_core.callbacks import RunInfo, StepInfo
from graph_core.errors import InterruptError
from graph_core.history import HistoryView
from graph_core.schema import Message
from inspector.errors import RecorderBusyError
from inspector.recording import write_behind
from inspector.recording.continuation import Continuation, check_resumable
from inspector.recording.elision import compact_budgets, counters_into
from inspector.recording.format import BudgetRecord
from inspector.recording.held import Encoded, Held
from inspector.recording.pending import NOTHING, Pending, drain, error_record, node_run_records
from inspector.recording.run_writer import ProgressFn, RunWriter
from inspector.recording.state_track import HeldState, StateTrack
from inspector.recording.step_line import step_line
from inspector.recording.times import step_times

__all__ = ["SLOW_NODE_SECONDS", "Continuation", "ProgressFn", "Recorder", "check_resumable", "error_record"]

SLOW_NODE_SECONDS = 0.0005
"""A top-level node whose last run took at least this long (by the recorder's clock) is slow: the step
before its next run is written behind the run, during its wait. A step costs the recorder about 50 µs."""

_ITERATION_KEYS = ("remaining_iterations", "RemainingIterations", "iterations_remaining")
_ITERATION_SET = frozenset(_ITERATION_KEYS)


class Recorder(RunWriter):
    """Write a run file at `path` while a graph or agent runs; pass it in `callbacks=[...]`.

    `redact` masks secrets by key and by value (default: api_key, authorization, password, secret,
    token-like keys, credential-shaped strings; see `make_redaction`). `topology` is stored in the
    header when given. `clock` (seconds, monotonic or not) and `run_id` make files byte-stable in tests.
    Strings longer than `max_str` characters are truncated and marked. `progress(step_dict)` is called
    after each top-level step (the CLI prints a line; `step_dict` has `index`, `nodes` and the full
    `budget`). `snapshot_every` caps how many steps a reader replays from the last full snapshot.
    `report_faults=False` leaves saying that recording stopped to the caller, which reads `fault`.
    One recorder records one run at a time: a run starting while another is recorded is refused
    (`RecorderBusyError`); another process writing `path` faults the recorder (`RunWriteError`).

    `resume=True` appends the run to `path` as a new segment instead of starting the file afresh: the
    file must end with an interrupted run that saved a checkpoint (`checkpoint_id`, when given, must be
    that one), checked now (`RunFileError` if not) and again when the run starts, which must be a
    resume from that checkpoint; otherwise the recorder faults (stderr, `fault`) and leaves the file as
    it was. Each run such a recorder sees is appended as one more segment.

    Callbacks only note what they are told; each step's line (with the value lines it introduces and
    the lines of nested graphs' steps) is built, written and flushed at the top-level step boundary.
    """

    @classmethod
    def resume(cls, path: str | Path, *, checkpoint_id: str | None = None, **options: Any) -> Self:
        """`Recorder(path, resume=True, ...)`: record a resumed run into the file of the run it continues."""
        return cls(path, resume=True, checkpoint_id=checkpoint_id, **options)

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
            except RecorderBusyError:  # a second run while one is recorded: refused, the first goes on
                raise
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

    def carry_counters(self, budget: BudgetRecord) -> None:
        """Count on from `budget`'s model and tool calls and tokens: a fork's replayed steps call no
        model or tool, yet must carry the parent's counters (`inspector.debug.fork`)."""
        with self._lock:
            c = self._counters
            c.model_calls, c.tool_calls = budget.model_calls, budget.tool_calls
            c.prompt, c.completion = budget.prompt_tokens, budget.completion_tokens
            c.total = budget.total_tokens

    def _hold(self, value: Any) -> Any:
        """What to keep of a reported value until the step boundary (see `held`)."""
        cls = type(value)
        if cls is Message or cls is str or value is None or cls is int:
            return value
        if cls is HistoryView:  # an agent's fixed view of its history: held as the list it shows
            value, cls = value.as_list(), list
        if cls is list and value and type(value[0]) is Message and type(value[-1]) is Message:
            return Held(value)
        self.flush()  # the encoder may still be writing a step behind the run
        return Encoded(self._encoder.encode(value))

    def _ended(self, info: RunInfo) -> Pending:
        key = info.node_key
        pending = self._open_runs.pop((info.path, key, info.tool_call_id), None)
        if pending is None:  # an end without a start: record what we have
            pending = Pending(info, NOTHING, None)
        pending.end = end = self._clock()
        if info.kind == "Tool":
            parent = self._open_runs.get((info.path, key, None))
            if parent is not None:
                if parent.tools is None:
                    parent.tools = [pending]
                else:
                    parent.tools.append(pending)
                return pending
        graph = info.path[:-1]
        if not graph:  # a top-level node: slow or not
            if end - (pending.t or end) >= SLOW_NODE_SECONDS:
                self._slow.add(key)
            elif self._slow:
                self._slow.discard(key)
        done = self._done.get(graph)
        if done is None:
            self._done[graph] = [pending]
        else:
            done.append(pending)
        return pending

    # --- one step: from the engine's event to the bytes on disk ---------------------------------

    def _on_step_end(self, step: StepInfo) -> None:
        """What the run's thread must take now (the end time, the step's start and node runs); the rest
        is written now, or behind the run while some node is slow. Nested graphs' steps are queued and
        go out with their top-level step."""
        path = step.path
        end = self._clock()
        started = self._steps.pop(path, None)
        done = self._done.pop(path, None)
        if not self._slow or path or self._out or not self._header_written:
            written_behind = False
        else:
            written_behind = self._write_behind(step, end, started, done)
        if not written_behind:
            if self._later:  # `flush()`, inline: every step of an instant run passes here
                self.catch_up()
            counters = self._write_step(step, end, started, done, None, None)
            if not path and self._progress is not None:
                self._report(step, counters)

    def _write_behind(
        self, step: StepInfo, end: float, started: tuple[Any, ...] | None, done: list[Pending] | None
    ) -> bool:
        """Freeze a top-level step and queue it for the write-behind thread, which is woken when the
        next step runs a slow node (it writes the queue during that node's wait); False when the step
        must be written now (its state is not the usual step's, or a held list holds more than
        messages). Steps between two slow nodes wait in the queue for the next one."""
        held: HeldState | None = None
        if step.state is not None:
            track = self._states.get(())
            held = None if track is None else track.hold(step.state, self._encoder)
            if held is None:
                return False
        if done and not self._freeze(done):
            return False
        counters = self._counters.snapshot()
        self._later.append((step, end, started, done, counters, held))
        if not self._slow.isdisjoint(step.next_nodes):
            write_behind.wake(self)
        if self._progress is not None:
            self._report(step, counters)
        return True

    def _freeze(self, done: list[Pending]) -> bool:
        """Freeze the held lists of `done`'s node runs and tool calls in place (see `held`); False when
        one cannot be (the step must then be written now, which takes frozen lists as well)."""
        freeze = self._encoder.freeze_list
        for pending in done:
            for run in (pending, *(pending.tools or ())):
                for held in (run.input, run.output):
                    if type(held) is Held:
                        frozen = freeze(held.value, held.n, 0)
                        if frozen is None:
                            return False
                        if held is run.input:
                            run.input = frozen
                        else:
                            run.output = frozen
        return True

    def _write_later(self, held: tuple[Any, ...]) -> None:
        self._write_step(*held)

    def _write_step(
        self,
        step: StepInfo,
        end: float,
        started: tuple[Any, ...] | None,
        done: list[Pending] | None,
        counters: tuple[Any, ...] | None,
        held: HeldState | None,
    ) -> tuple[Any, ...]:
        """A finished step, top to bottom, one phase per line: each phase is a function over what the
        ones before it made, in a module of its own, and calls nothing back here. `counters` and `held`
        (the state) are given for a step written behind the run, which took them when it ended;
        returns the counters written."""
        path, top = step.path, not step.path
        begin = started[1] if started is not None else end
        t0 = self._t0
        if t0 is None:
            t0 = self._t0 = begin

        # times: when the step began (from the run's start) and how long it took (`times`)
        t, duration = step_times(begin, end, t0)
        # node runs: each held value encoded in node order, tool calls without what their ToolsNode
        # holds (`pending`, which calls `encode` and `elision`)
        runs = (
            node_run_records(
                done, path, step.nodes, begin, self._nodes, self._encoder.encode_held, self._max_str
            )
            if done
            else None
        )
        # state: a snapshot, or the delta against the graph's last state (`state_track`, which calls
        # `encode` and `statediff`)
        full, payload, delta_json = self._state(step) if held is None else self._held_state(held)
        if counters is None:  # after the state: an ADK state's iterations counter is read on the way
            c = self._counters  # `snapshot()`, inline
            counters = (c.model_calls, c.tool_calls, c.prompt, c.completion, c.total, c.iterations)
        if path and path in self._own_iterations:  # a nested agent's own iterations (an agent tool)
            counters = (*counters[:5], self._own_iterations[path])
        # budgets: after the step and before it, without what the index and the header imply (`elision`)
        budget, before = compact_budgets(
            step.budget,
            started[0].budget if top and started is not None else None,
            step.index,
            self._max_steps if top else None,
            counters,
            started[2] if started is not None else None,
            self._last_budget,
        )
        if top:
            self._last_budget = budget
        # the line: the step's decisions as stored, and the parts above (`step_line`)
        line = step_line(step, self._decisions, t, duration, budget, before, runs, full, payload, delta_json)
        # the write: the values the line refers to first (`encode`), then the line, in one write (`sink`)
        if path:
            self._queue(line)
        elif self._out or not self._header_written:  # queued nested steps, or no header yet
            self._queue(line)
            self._flush()
        else:  # the usual step: its new values, then its line, in one write
            self._sink.write(self._encoder.take_definition_bytes() + line)
        return counters

    def _held_state(self, held: HeldState) -> tuple[bool, Any, bytes | None]:
        """`_state` for a step written behind the run: the state `StateTrack.hold` took when it ended."""
        track = self._states[()]
        full, payload, _ = track.record_held(held, self._encoder)
        return full, payload, track.delta_json

    def _state(self, step: StepInfo) -> tuple[bool, Any, bytes | None]:
        """(`full`, payload, the delta's JSON when made) of the step's state; the ADK iterations counter
        is read on the way: from the top-level state for the run's counters, from a nested graph's state
        (an agent used as a tool) for that graph's own steps."""
        if step.state is None:
            return True, None, None
        track = self._states.get(step.path)
        if track is None:
            track = self._states[step.path] = StateTrack(self._snapshot_every)
        full, payload, encoded = track.record_state(step.state, self._encoder)
        if type(encoded) is dict and not track.usual:  # usual: the same fields as before
            iterations = None if _ITERATION_SET.isdisjoint(encoded) else _iterations(encoded)  # pyright: ignore[reportUnknownArgumentType]
            if not step.path:
                self._counters.iterations = iterations
            elif iterations is not None:  # a nested graph with an iterations counter of its own
                self._own_iterations[step.path] = iterations
        return full, payload, track.delta_json

    def _report(self, step: StepInfo, counters: tuple[Any, ...]) -> None:
        """The `progress` callback's view of a top-level step."""
        assert self._progress is not None
        budget: dict[str, Any] = {
            "steps_used": step.budget.steps_used,
            "steps_max": step.budget.steps_max,
            "steps_remaining": step.budget.steps_remaining,
        }
        counters_into(budget, counters)
        self._progress({"index": step.index, "nodes": list(step.nodes), "budget": budget})


def _iterations(state: dict[str, Any]) -> int | None:
    for key in _ITERATION_KEYS:
        value = state.get(key)
        if type(value) is int:
            return value
    return None
