"""`Recorder`: a callback that writes a run file as the run goes.

`compiled.invoke(x, callbacks=[Recorder("run.jsonl")])` is all it takes. The top-level graph's
`on_start` opens the file (truncating it) and writes the header; every later callback appends lines;
each step boundary flushes, so a process killed mid-run leaves a file that replays up to its last
complete step. The top-level graph's `on_end`/`on_error` writes `run_finished` and closes the file.

Recording never breaks the run it observes: values that cannot be encoded become marked
representations, and any fault of the recorder itself (unwritable path, full disk, a bug) is reported
once on stderr, kept in `Recorder.fault`, and turns the recorder off for the rest of the run.

The topology comes from `topology=`, else from the run scope (`scope.extras["topology"]` or
`scope.extras["compiled"].topology()`) when the engine offers it, else it is left out of the header.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from pydantic_core import to_json

from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.context import current_scope
from graph_core.errors import InterruptError
from graph_core.schema import Message, concat_messages
from graph_core.topology import Topology
from inspector.recording.encode import Encoder, type_name
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION
from inspector.recording.redact import RedactSpec, make_redaction
from inspector.recording.statediff import delta

__all__ = ["Recorder", "error_record"]

_ITERATION_KEYS = ("remaining_iterations", "RemainingIterations", "iterations_remaining")
ProgressFn = Callable[[dict[str, Any]], None]


def _dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON, keys in insertion order (pydantic-core's serializer: several times faster
    than `json.dumps`, which matters because recording runs inside the observed run)."""
    return to_json(obj)


def error_record(error: BaseException) -> dict[str, Any]:
    """An exception as the format's `ErrorRecord` dict (type, message, node path, cause)."""
    record: dict[str, Any] = {"type": type(error).__name__, "message": str(error)}
    node_path = getattr(error, "node_path", None)
    if isinstance(node_path, list | tuple):
        record["node_path"] = [str(p) for p in node_path]  # pyright: ignore[reportUnknownVariableType]
    cause = error.__cause__
    if cause is not None:
        record["cause_type"] = type(cause).__name__
        record["cause_message"] = str(cause)
    return record


class _Counters:
    """What the engine does not count for us: model and tool calls, tokens, ADK iterations."""

    def __init__(self) -> None:
        self.model_calls = 0
        self.tool_calls = 0
        self.prompt: int | None = None
        self.completion: int | None = None
        self.total: int | None = None
        self.iterations: int | None = None

    def add_usage(self, message: Message) -> None:
        usage = message.usage
        if usage is None:
            return
        self.prompt = (self.prompt or 0) + usage.prompt_tokens
        self.completion = (self.completion or 0) + usage.completion_tokens
        self.total = (self.total or 0) + (usage.total_tokens or usage.prompt_tokens + usage.completion_tokens)

    def budget(self, budget: Budget) -> dict[str, Any]:
        out: dict[str, Any] = {
            "steps_used": budget.steps_used,
            "steps_max": budget.steps_max,
            "steps_remaining": budget.steps_remaining,
            "model_calls": self.model_calls,
            "tool_calls": self.tool_calls,
        }
        if self.total is not None:
            out.update(prompt_tokens=self.prompt, completion_tokens=self.completion, total_tokens=self.total)
        if self.iterations is not None:
            out["iterations_remaining"] = self.iterations
        return out


class _StateTrack:
    """Previous encoded state of one graph path and the snapshot policy.

    A full snapshot is written first and then whenever the deltas since the last one outweigh it (so
    snapshot bytes stay within a constant factor of the state's size), or after `every` steps when the
    deltas reach a quarter of it (bounding how far a reader has to replay for random access).
    """

    def __init__(self, every: int) -> None:
        self.every = every
        self.prev: Any = None
        self.have_prev = False
        self.full_bytes = 0
        self.delta_bytes = 0
        self.steps_since_full = 0

    def record(self, encoded: Any) -> tuple[bool, Any, bytes]:
        """(`full`, payload, payload JSON) for this step's state."""
        if self.have_prev:
            ops = delta(self.prev, encoded)
            text = _dumps(ops)
            self.steps_since_full += 1
            self.delta_bytes += len(text)
            grown = self.delta_bytes >= max(self.full_bytes, 256)
            periodic = self.steps_since_full >= self.every and self.delta_bytes * 4 >= self.full_bytes
            if not (grown or periodic):
                self.prev = encoded
                return False, ops, text
        text = _dumps(encoded)
        self.prev, self.have_prev = encoded, True
        self.full_bytes, self.delta_bytes, self.steps_since_full = len(text), 0, 0
        return True, encoded, text


class Recorder:
    """Write a run file at `path` while a graph or agent runs; pass it in `callbacks=[...]`.

    `redact` masks keys (default: api_key, authorization, password, secret, any case, any depth; see
    `make_redaction`). `topology` is stored in the header when given. `clock` (seconds, monotonic or
    not) and `run_id` make files byte-stable in tests. Strings longer than `max_str` characters are
    truncated and marked. `progress(step_finished_dict)` is called after each top-level step (the CLI
    prints a line). `snapshot_every` caps how many steps a reader replays from the last full snapshot.
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
    ) -> None:
        self.path = Path(path)
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
        self._file: IO[bytes] | None = None
        self._reset()

    def _reset(self) -> None:
        self._encoder = Encoder(redaction=self._redaction, max_str=self._max_str)
        self._counters = _Counters()
        self._states: dict[tuple[str, ...], _StateTrack] = {}
        self._started: dict[tuple[Any, ...], float] = {}
        self._step_started: dict[tuple[str, ...], float] = {}
        self._t0: float | None = None
        self._header_written = False
        self._graph_name = ""
        self._finished = False

    # --- plumbing -------------------------------------------------------------------------------

    def _now(self) -> float:
        now = self._clock()
        if self._t0 is None:
            self._t0 = now
        return round(now - self._t0, 6)

    def _open(self) -> IO[bytes]:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("wb")
        return self._file

    def _fail(self, error: BaseException) -> None:
        if self.fault is None:
            self.fault = error
            print(
                f"inspector: recording to {self.path} stopped: {type(error).__name__}: {error} "
                "(the run itself continues)",
                file=sys.stderr,
            )
        if self._file is not None:
            with contextlib.suppress(Exception):
                self._file.close()
            self._file = None

    def _write(self, event: dict[str, Any], *, flush: bool = False) -> None:
        """Write pending value definitions, then `event`; all encoding already happened."""
        if not self._header_written:
            self._write_header()
        out = self._file or self._open()
        if self._encoder.has_definitions:
            for ref, value in self._encoder.take_definitions():
                out.write(_dumps({"kind": "value", "id": ref, "value": value}) + b"\n")
        out.write(_dumps(event) + b"\n")
        if flush:
            out.flush()

    def _write_header(self, input: Any = None) -> None:
        now = self._clock()
        if self._t0 is None:
            self._t0 = now
        topology = self.topology
        if topology is None:
            topology = _topology_from_scope()
            self.topology = topology
        started = dt.datetime.fromtimestamp(self._t0, tz=dt.UTC).isoformat()
        header: dict[str, Any] = {
            "kind": "header",
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "run_id": self._run_id or uuid.uuid4().hex,
            "graph_name": self._graph_name or (topology.name if topology else ""),
            "started_at": started,
            "trigger_mode": None if topology is None else topology.trigger_mode.value,
            "max_run_steps": None if topology is None else topology.max_run_steps,
            "topology": None if topology is None else topology.model_dump(mode="json"),
            "input": self._encoder.encode(input),
            "resumed_from": _scope_extra("resumed_from"),
            "meta": self._encoder.encode(self._meta),
        }
        self._header_written = True
        out = self._open()
        out.write(_dumps(header))
        out.write(b"\n")
        for ref, value in self._encoder.take_definitions():  # the input's messages, after the header line
            out.write(_dumps({"kind": "value", "id": ref, "value": value}))
            out.write(b"\n")
        out.flush()

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
            if self._file is not None:
                try:
                    self._file.flush()
                    self._file.close()
                finally:
                    self._file = None

    # --- callbacks ------------------------------------------------------------------------------

    def on_start(self, info: RunInfo, input: Any) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    self._on_start(info, input)
            except Exception as exc:
                self._fail(exc)

    def on_end(self, info: RunInfo, output: Any) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    self._on_end(info, output)
            except Exception as exc:
                self._fail(exc)

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    self._on_error(info, error)
            except Exception as exc:
                self._fail(exc)

    def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
        self.on_start(info, _drain(input))

    def on_end_with_stream_output(self, info: RunInfo, output: Iterator[Any]) -> None:
        self.on_end(info, _drain(output))

    def on_step_start(self, step: StepInfo) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    self._on_step_start(step)
            except Exception as exc:
                self._fail(exc)

    def on_step_end(self, step: StepInfo) -> None:
        if self.fault is None:
            try:
                with self._lock:
                    self._on_step_end(step)
            except Exception as exc:
                self._fail(exc)

    # --- event builders -------------------------------------------------------------------------

    def _on_start(self, info: RunInfo, input: Any) -> None:
        if info.node_key is None:
            if not info.path:
                self._begin_run(info, input)
            return
        if info.kind == "ChatModel":
            self._counters.model_calls += 1
        elif info.kind == "Tool":
            self._counters.tool_calls += 1
        t = self._now()
        self._started[_task_key(info)] = t
        event = _node_fields("node_started", info)
        event["input"] = self._encoder.encode(input)
        event["t"] = t
        self._write(event)

    def _begin_run(self, info: RunInfo, input: Any) -> None:
        if self._header_written:  # the same Recorder reused for another run: start a new file
            self.close()
            self._reset()
        self._graph_name = info.name or info.graph_name
        self._write_header(input)

    def _on_end(self, info: RunInfo, output: Any) -> None:
        if info.node_key is None:
            if not info.path:
                self._finish_run("ok", output=output)
            return
        if info.kind == "ChatModel" and isinstance(output, Message):
            self._counters.add_usage(output)
        t = self._now()
        event = _node_fields("node_finished", info)
        event["output"] = self._encoder.encode(output)
        event["t"] = t
        event["duration"] = self._duration(info, t)
        self._write(event)

    def _on_error(self, info: RunInfo, error: BaseException) -> None:
        if info.node_key is None:
            if not info.path:
                if isinstance(error, InterruptError):
                    self._interrupted(error)
                else:
                    self._finish_run("error", error=error)
            return
        t = self._now()
        event = _node_fields("node_failed", info)
        event["error"] = error_record(error)
        event["t"] = t
        event["duration"] = self._duration(info, t)
        self._write(event)

    def _duration(self, info: RunInfo, t: float) -> float | None:
        start = self._started.pop(_task_key(info), None)
        return None if start is None else round(t - start, 6)

    def _on_step_start(self, step: StepInfo) -> None:
        t = self._now()
        self._step_started[step.path] = t
        event = {
            "kind": "step_started",
            "path": list(step.path),
            "index": step.index,
            "nodes": list(step.nodes),
            "budget": self._counters.budget(step.budget),
            "t": t,
        }
        self._write(event)

    def _on_step_end(self, step: StepInfo) -> None:
        t = self._now()
        for decision in step.branches:
            self._write(_branch_event(step, decision))
        encoded_state = None if step.state is None else self._encoder.encode(step.state)
        if not step.path and isinstance(encoded_state, dict):
            self._counters.iterations = _iterations(encoded_state)  # pyright: ignore[reportUnknownArgumentType]
        track = self._states.get(step.path)
        if track is None:
            track = self._states[step.path] = _StateTrack(self._snapshot_every)
        full, payload, _ = (True, None, b"") if step.state is None else track.record(encoded_state)
        started = self._step_started.pop(step.path, None)
        event: dict[str, Any] = {
            "kind": "step_finished",
            "path": list(step.path),
            "full": full,
            "index": step.index,
            "nodes": list(step.nodes),
            "next_nodes": list(step.next_nodes),
            "ended": step.ended,
            "budget": self._counters.budget(step.budget),
        }
        if full:
            event["state"] = payload
        else:
            event["delta"] = payload
        if step.errors:
            event["errors"] = list(step.errors)
        interrupted = getattr(step, "interrupted", ())
        if interrupted:
            event["interrupted"] = list(interrupted)
        event["t"] = t
        event["duration"] = None if started is None else round(t - started, 6)
        self._write(event, flush=True)
        if self._progress is not None and not step.path:
            self._progress(event)

    def _interrupted(self, error: BaseException) -> None:
        info = getattr(error, "info", None)
        t = self._now()
        event: dict[str, Any] = {
            "kind": "interrupted",
            "before_nodes": list(getattr(info, "before_nodes", []) or []),
            "after_nodes": list(getattr(info, "after_nodes", []) or []),
            "rerun_nodes": list(getattr(info, "rerun_nodes", []) or []),
            "state": self._encoder.encode(getattr(info, "state", None)),
            "checkpoint_id": getattr(error, "checkpoint_id", None),
            "t": t,
        }
        self._write(event)
        self._finish_run("interrupted")

    def _finish_run(self, status: str, *, output: Any = None, error: BaseException | None = None) -> None:
        if self._finished:
            return
        t = self._now()
        event: dict[str, Any] = {"kind": "run_finished", "status": status}
        if status == "ok":
            event["output"] = self._encoder.encode(output)
        if error is not None:
            event["error"] = error_record(error)
        event["t"] = t
        event["duration"] = t
        self._write(event, flush=True)
        self._finished = True
        self.close()


def _task_key(info: RunInfo) -> tuple[Any, ...]:
    return (info.path, info.node_key, info.kind, info.tool_call_id)


def _node_fields(kind: str, info: RunInfo) -> dict[str, Any]:
    """The identifying fields of a node event; empty name and missing tool call ID are left out."""
    fields: dict[str, Any] = {"kind": kind, "path": list(info.path), "step": info.step, "node": info.node_key}
    if info.name:
        fields["name"] = info.name
    fields["component"] = info.kind
    if info.tool_call_id is not None:
        fields["tool_call_id"] = info.tool_call_id
    return fields


def _branch_event(step: StepInfo, decision: BranchDecision) -> dict[str, Any]:
    return {
        "kind": "branch_decided",
        "path": list(step.path),
        "step": step.index,
        "source": decision.source,
        "branch_index": decision.branch_index,
        "chosen": list(decision.chosen),
        **({"skipped": list(decision.skipped)} if decision.skipped else {}),
    }


def _iterations(state: dict[str, Any]) -> int | None:
    for key in _ITERATION_KEYS:
        value = state.get(key)
        if type(value) is int:
            return value
    return None


def _drain(stream: Iterator[Any]) -> Any:
    """A stream copy handed to a callback must be consumed; record it as one value (messages concatenated)."""
    try:
        chunks = list(stream)
    except Exception as error:
        return {"$repr": f"<stream failed: {type(error).__name__}: {error}>", "$type": type_name(stream)}
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
    if chunks and all(isinstance(c, Message) for c in chunks):
        try:
            return concat_messages(chunks)
        except ValueError:
            return chunks
    return chunks[0] if len(chunks) == 1 else chunks


def _scope_extra(key: str) -> Any:
    scope = current_scope()
    value = None if scope is None else scope.extras.get(key)
    return value if isinstance(value, str) else None


def _topology_from_scope() -> Topology | None:
    scope = current_scope()
    if scope is None:
        return None
    topology = scope.extras.get("topology")
    if isinstance(topology, Topology):
        return topology
    compiled = scope.extras.get("compiled")
    make = getattr(compiled, "topology", None)
    if callable(make):
        try:
            made = make()
        except Exception:
            return None
        return made if isinstance(made, Topology) else None
    return None
