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

import contextlib
import datetime as dt
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from pydantic_core import to_json

from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.context import current_scope
from graph_core.errors import InterruptError
from graph_core.schema import Message, concat_messages
from graph_core.topology import Topology
from inspector.errors import RunFileError
from inspector.recording.encode import Encoder, Raw, type_name
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION, branch_ends, next_from_branches
from inspector.recording.redact import RedactSpec, make_redaction
from inspector.recording.statediff import appended_runs, delta, delta_into

__all__ = ["Continuation", "Recorder", "check_resumable", "error_record"]

_ITERATION_KEYS = ("remaining_iterations", "RemainingIterations", "iterations_remaining")
_ITERATION_SET = frozenset(_ITERATION_KEYS)
_MAX_DECISIONS = 1024  # distinct (step nodes, branch decisions) kept per run: loops have a handful
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

    def snapshot(self) -> tuple[Any, ...]:
        return (self.model_calls, self.tool_calls, self.prompt, self.completion, self.total, self.iterations)

    def fill(self, out: dict[str, Any]) -> None:
        """Add the counters to a stored budget (tokens and iterations only once known)."""
        _Counters.fill_from(out, self.snapshot())

    @staticmethod
    def fill_from(out: dict[str, Any], counters: tuple[Any, ...]) -> None:
        model_calls, tool_calls, prompt, completion, total, iterations = counters
        out["model_calls"] = model_calls
        out["tool_calls"] = tool_calls
        if total is not None:
            out["prompt_tokens"] = prompt
            out["completion_tokens"] = completion
            out["total_tokens"] = total
        if iterations is not None:
            out["iterations_remaining"] = iterations


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
        self.raw: dict[str, Any] = {}  # the live top-level field values `prev` was encoded from
        self.raw_fields: list[Any] | None = None  # the same, in plan order, after the pydantic fast path
        self.plan_for: type | None = None
        self.plan: list[tuple[str, str, bool]] | None = None
        self.delta_json: bytes | None = None  # the last delta's ops as written (None after a snapshot)
        self._watched: list[tuple[int, str, str]] = []  # (index, name, key) of the plan's unmasked fields
        self._keys_json: dict[str, bytes] = {}

    def record_state(self, state: Any, encoder: Encoder) -> tuple[bool, Any, Any]:
        """(`full`, payload, encoded state) for this step's live `state`.

        Encoding and diffing in one pass over the top-level fields: a field still holding the same
        immutable scalar as last step keeps its encoding and needs no diff; the others (message lists
        through the encoder's memo) are encoded and diffed alone. The result is `record(encode(state))`;
        anything unusual (first step, fields added or removed, a field failing to encode) takes that
        path.
        """
        if _USUAL_STATE and self.raw_fields is not None and type(state) is self.plan_for:
            recorded = self._record_usual(state, encoder)
            if recorded is not None:
                return recorded
        prev = self.prev
        if self.have_prev and type(prev) is dict:
            cls = type(state)
            if cls is not self.plan_for:
                self.plan_for, self.plan = cls, encoder.model_plan(cls)
            if self.plan is not None and not state.model_extra and len(self.plan) == len(prev):
                recorded = self._record_model(state, encoder, self.plan)
                if recorded is not None:
                    return recorded
        self.raw_fields = None
        fields = encoder.top_level(state) if self.have_prev and type(prev) is dict else None
        if fields is None or len(fields) != len(prev):
            self.raw = {}
            encoded = encoder.encode(state)
            return (*self.record(encoded), encoded)
        raw_before = self.raw
        encoded: dict[str, Any] = {}
        ops: list[list[Any]] = []
        try:
            for key, raw, masked in fields:
                before = prev.get(key, _ABSENT)
                if before is _ABSENT:
                    raise LookupError(key)  # a field appeared: the generic diff handles it
                if masked:
                    value = encoder.mask
                elif type(raw) in _SCALARS and raw_before.get(key, _ABSENT) is raw:
                    value = before
                else:
                    value = encoder.encode_field(raw, state)
                encoded[key] = value
                if value is not before:
                    delta_into(before, value, [key], ops)
        except Exception:
            self.raw = {}
            encoded = encoder.encode(state)
            return (*self.record(encoded), encoded)
        self.raw = {key: raw for key, raw, _ in fields}
        return (*self._policy(encoded, ops), encoded)

    def _record_usual(self, state: Any, encoder: Encoder) -> tuple[bool, Any, Any] | None:
        """`_record_model` for a pydantic state whose last step took that path, with the usual cases
        cut short: a field still holding the same string or number is one identity check, a message
        list that is the same object and grew is stored as an append op made from its ids (its JSON
        too, so the delta is not serialised again). Other fields are encoded and diffed as
        `_record_model` does. None when a field fails to encode or extras appeared (the caller then
        takes `_record_model`, which gives the same result for whatever this accepts)."""
        values = state.__dict__
        raw_before = self.raw_fields
        assert raw_before is not None
        if state.__pydantic_extra__ or len(values) < len(raw_before):
            return None
        prev = self.prev
        raws: list[Any] | None = None  # a copy of `raw_before`, made when a field holds another object
        encoded: dict[str, Any] | None = None  # likewise, of `prev`, when a field's encoding changed
        ops: list[list[Any]] = []
        appends: list[bytes] | None = []  # the ops as JSON while each is an append made here
        try:
            for i, name, key in self._watched:
                raw = values.get(name)
                same = raw is raw_before[i]
                cls = type(raw)
                if same and cls in _SCALARS:
                    continue
                if not same:
                    if raws is None:
                        raws = list(raw_before)
                    raws[i] = raw
                before = prev.get(key, _ABSENT)
                if before is _ABSENT:
                    return None
                value = None
                if same and cls is list:
                    if not raw and before == []:  # still empty: encoded as a plain list, not a marker
                        continue
                    value = encoder.grown_list(raw)
                    if value is not None and value is not before and type(before) is dict:
                        tail = _grown_tail(before, value)
                        if tail is not None:  # what `delta_into` finds for a grown message list
                            if encoded is None:
                                encoded = dict(prev)
                            encoded[key] = value
                            ops.append(["append", [key], {"$refs": tail}])
                            if appends is not None:
                                appends.append(self._append_json(key, tail))
                            continue
                if value is None:
                    value = encoder.encode_field(raw, state)
                if value is not before:
                    if encoded is None:
                        encoded = dict(prev)
                    encoded[key] = value
                    count = len(ops)
                    delta_into(before, value, [key], ops)
                    if len(ops) != count:
                        appends = None
        except Exception:
            return None
        if raws is not None:
            self.raw_fields = raws
        if encoded is None:  # no field's encoding changed (encodings are never changed in place)
            encoded = prev
        ops_json = None if appends is None else b"[%b]" % b",".join(appends)
        return (*self._policy(encoded, ops, ops_json), encoded)

    def _record_model(
        self, state: Any, encoder: Encoder, plan: list[tuple[str, str, bool]]
    ) -> tuple[bool, Any, Any] | None:
        """`record_state` for a pydantic state (the usual one: the same class every step), over the
        class's field plan: no per-step list of fields, and a message list that is the same object as
        last step's is extended through the list memo and diffed as the append it is. None when a field
        is missing from the previous encoding or fails to encode (the caller takes the generic path)."""
        prev = self.prev
        raw_before = self.raw_fields
        values = state.__dict__
        raws: list[Any] = []
        encoded: dict[str, Any] = {}
        ops: list[list[Any]] = []
        appends: list[bytes] | None = []  # the ops as JSON while each is an append made here
        try:
            for i, (name, key, masked) in enumerate(plan):
                raw = values.get(name)
                raws.append(raw)
                before = prev.get(key, _ABSENT)
                if before is _ABSENT:
                    return None
                if masked:
                    value = encoder.mask
                elif raw_before is not None and raw_before[i] is raw and type(raw) in _SCALARS:
                    value = before
                else:
                    value = None
                    if type(raw) is list and raw_before is not None and raw_before[i] is raw:
                        value = encoder.grown_list(raw)
                    if value is None:
                        value = encoder.encode_field(raw, state)
                    elif value is not before and type(before) is dict:
                        tail = appended_runs(before, value)
                        if tail is not None:  # what `delta_into` finds for a grown message list
                            encoded[key] = value
                            ops.append(["append", [key], {"$refs": tail}])
                            if appends is not None:  # the op's JSON, without serialising it
                                appends.append(self._append_json(key, tail))
                            continue
                encoded[key] = value
                if value is not before:
                    delta_into(before, value, [key], ops)
                    appends = None
        except Exception:
            return None
        self.raw_fields = raws
        self._watched = [(i, name, key) for i, (name, key, masked) in enumerate(plan) if not masked]
        self.raw = {}
        ops_json = None if appends is None else b"[%b]" % b",".join(appends)
        return (*self._policy(encoded, ops, ops_json), encoded)

    def _append_json(self, key: str, tail: list[list[int]]) -> bytes:
        """`_dumps(["append", [key], {"$refs": tail}])`, from the key's JSON (made once per key) and,
        for the usual one-run tail, the two ids."""
        key_json = self._keys_json.get(key)
        if key_json is None:
            key_json = self._keys_json[key] = _dumps(key)
        runs = b"[[%d,%d]]" % (tail[0][0], tail[0][1]) if len(tail) == 1 else _dumps(tail)
        return b'["append",[%b],{"$refs":%b}]' % (key_json, runs)

    def record(self, encoded: Any) -> tuple[bool, Any]:
        """(`full`, payload) for this step's state."""
        if self.have_prev:
            return self._policy(encoded, delta(self.prev, encoded))
        self.prev, self.have_prev = encoded, True
        self.delta_json = None
        self.full_bytes, self.delta_bytes, self.steps_since_full = len(_dumps(encoded)), 0, 0
        return True, encoded

    def _policy(self, encoded: Any, ops: list[list[Any]], ops_json: bytes | None = None) -> tuple[bool, Any]:
        """(`full`, payload): the delta, or a snapshot when the deltas outweigh one. The delta's size is
        its JSON's, kept in `delta_json` for the step line (`ops_json` when the caller made it)."""
        if ops_json is None:
            ops_json = _dumps(ops)  # serialising is cheaper than any arithmetic on the ops' parts
        size = len(ops_json)
        self.steps_since_full += 1
        self.delta_bytes += size
        grown = self.delta_bytes >= max(self.full_bytes, 256)
        periodic = self.steps_since_full >= self.every and self.delta_bytes * 4 >= self.full_bytes
        self.prev = encoded
        if not (grown or periodic):
            self.delta_json = ops_json
            return False, ops
        self.delta_json = None
        self.full_bytes, self.delta_bytes, self.steps_since_full = len(_dumps(encoded)), 0, 0
        return True, encoded


# a step's stored decisions: next nodes (None when implied), branches, the engine's decision objects,
# nodes, and the usual step line's template
_Decisions = tuple[list[str] | None, list[dict[str, Any]] | None, tuple[Any, ...], list[str], bytes]
_USUAL_STATE = True  # False: every state through `_record_model` (tests compare the two)
_TEMPLATES = True  # False: every step line through the general path (tests compare the two)


def _grown_tail(before: dict[str, Any], value: dict[str, Any]) -> list[list[int]] | None:
    """`appended_runs(before, value)`, with its usual case (one run of ids, longer now) cut short."""
    runs_before, runs = before.get("$refs"), value.get("$refs")
    if (
        runs_before is not None
        and runs is not None
        and len(runs) == 1
        and len(runs_before) == 1
        and runs[0][0] == runs_before[0][0]
        and runs[0][1] > runs_before[0][1]
    ):
        return [[runs_before[0][1], runs[0][1]]]
    return appended_runs(before, value)


def _line_template(nodes: list[str], branches: list[dict[str, Any]] | None) -> bytes:
    """A loop's usual step line with `%` slots for what changes from step to step (index, times, call
    counts, node runs, delta): `_dumps` of the same event, key for key, without building it."""
    nodes_json = _dumps(nodes).replace(b"%", b"%%")
    branches_json = _dumps(branches).replace(b"%", b"%%")
    return (
        b'{"kind":"step","index":%d,"nodes":' + nodes_json + b',"t":%b,"duration":%b,'
        b'"budget":{"model_calls":%d,"tool_calls":%d},"runs":%b,"branches":'
        + branches_json
        + b',"delta":%b}\n'
    )


_ABSENT: Any = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})


class _Pending:
    """A node (or tool call) run between its callbacks and its step's line: what was reported, held
    as given (messages and message lists are encoded at the step boundary, in node order, so value
    IDs do not depend on which thread finished first) or already encoded. The run's names are read
    from its `RunInfo` (frozen) when the step line is built: a callback only notes."""

    __slots__ = ("end", "error", "info", "input", "output", "t", "tools")

    def __init__(self, info: RunInfo, input: Any, t: float | None) -> None:
        self.info = info
        self.input = input
        self.t = t
        self.output: Any = _NOTHING
        self.error: dict[str, Any] | None = None
        self.end: float | None = None
        self.tools: list[_Pending] | None = None

    @property
    def node(self) -> str:
        return self.info.node_key or ""

    @property
    def path(self) -> tuple[str, ...]:
        return self.info.path

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def component(self) -> str:
        return self.info.kind

    @property
    def tool_call_id(self) -> str | None:
        return self.info.tool_call_id


class _Held:
    """A list reported by a callback, with its length then: encoded later as it was (lists of messages
    only grow; the prefix is what the callback saw)."""

    __slots__ = ("n", "value")

    def __init__(self, value: list[Any]) -> None:
        self.value = value
        self.n = len(value)


_NOTHING: Any = object()


class Continuation:
    """What appending a resumed run to an existing run file needs to know about that file: the
    checkpoint its last segment saved, how many segments and values it holds (value ids continue), the
    topology that applies at its end (a new segment repeats it only when it changed), and its size
    (to notice that the file changed between the check and the run)."""

    __slots__ = ("checkpoint_id", "graph_name", "segments", "size", "topology_json", "values")

    def __init__(
        self,
        *,
        checkpoint_id: str,
        segments: int,
        values: int,
        topology_json: Any,
        graph_name: str,
        size: int,
    ) -> None:
        self.checkpoint_id = checkpoint_id
        self.segments = segments
        self.values = values
        self.topology_json = topology_json
        self.graph_name = graph_name
        self.size = size


def check_resumable(path: str | Path, checkpoint_id: str | None = None) -> Continuation:
    """Check that a resumed run can be appended to the run file at `path`: its last segment ended
    interrupted and saved a checkpoint (equal to `checkpoint_id` when given). Raises `RunFileError`
    with a one-paragraph reason otherwise."""
    from inspector.recording.reader import read_run  # the reader imports this module's neighbours

    path = Path(path)
    advice = (
        "A resumed run is appended to the recording of the run it continues: record that run with "
        "`Recorder(path)` and a `checkpoint_id`, let it stop at an interrupt, then resume it from that "
        "checkpoint with `Recorder(path, resume=True)`; or record the resumed run to a new file."
    )
    try:
        run = read_run(path)
    except RunFileError as exc:
        raise RunFileError(
            f"cannot record a resumed run into it: {exc}. {advice}", path=None if exc.path else path
        ) from None
    with run:
        if run.status != "interrupted" or run.interrupt is None:
            last = "its run" if len(run.segments) == 1 else f"its last segment ({len(run.segments)} segments)"
            raise RunFileError(
                f"cannot record a resumed run into it: {last} ended with status `{run.status}`, not "
                f"`interrupted`, so there is nothing to continue. {advice}",
                path=path,
            )
        saved = run.interrupt.checkpoint_id
        if saved is None:
            raise RunFileError(
                "cannot record a resumed run into it: the interrupted run saved no checkpoint (it ran "
                f"without a `checkpoint_id`), so no run can resume it. {advice}",
                path=path,
            )
        if checkpoint_id is not None and checkpoint_id != saved:
            raise RunFileError(
                f"cannot record a resumed run into it: the interrupted run saved checkpoint `{saved}`, but "
                f"the resumed run is to start from checkpoint `{checkpoint_id}`; a file holds one run, "
                "continued from the checkpoint it saved. Resume with the checkpoint ID the file names, or "
                "record the other run to a new file.",
                path=path,
            )
        topology = run.segments[-1].topology
        return Continuation(
            checkpoint_id=saved,
            segments=len(run.segments),
            values=run.value_count,
            topology_json=None if topology is None else _topology_json(topology),
            graph_name=run.segments[-1].graph_name,
            size=path.stat().st_size,
        )


class Recorder:
    """Write a run file at `path` while a graph or agent runs; pass it in `callbacks=[...]`.

    `redact` masks keys (default: api_key, authorization, password, secret, any case, any depth; see
    `make_redaction`). `topology` is stored in the header when given. `clock` (seconds, monotonic or
    not) and `run_id` make files byte-stable in tests. Strings longer than `max_str` characters are
    truncated and marked. `progress(step_dict)` is called after each top-level step (the CLI prints a
    line; `step_dict` has `index`, `nodes` and the full `budget`). `snapshot_every` caps how many steps
    a reader replays from the last full snapshot.

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
        self._file: IO[bytes] | None = None
        self._reset()

    @classmethod
    def resume(cls, path: str | Path, *, checkpoint_id: str | None = None, **options: Any) -> Recorder:
        """`Recorder(path, resume=True, ...)`: record a resumed run into the file of the run it continues."""
        return cls(path, resume=True, checkpoint_id=checkpoint_id, **options)

    def _reset(self) -> None:
        first_ref = 0 if self._continuation is None else self._continuation.values
        self._encoder = Encoder(redaction=self._redaction, max_str=self._max_str, first_ref=first_ref)
        self._counters = _Counters()
        self._states: dict[tuple[str, ...], _StateTrack] = {}
        self._open_runs: dict[tuple[Any, ...], _Pending] = {}
        self._done: dict[tuple[str, ...], list[_Pending]] = {}
        self._steps: dict[tuple[str, ...], tuple[StepInfo, float, tuple[Any, ...]]] = {}
        self._last_budget: dict[str, Any] | None = None
        self._last_counters: tuple[Any, ...] = (0, 0, None, None, None, None)
        self._out: list[bytes] = []
        self._t0: float | None = None
        self._header_written = False
        self._graph_name = ""
        self._finished = False
        self._nodes: dict[tuple[str, ...], tuple[str, str]] = {}
        self._ends: dict[tuple[tuple[str, ...], str, int], tuple[str, ...]] = {}
        self._max_steps: int | None = None
        self._decisions: dict[tuple[Any, ...], _Decisions] = {}

    # --- plumbing -------------------------------------------------------------------------------

    def _rel(self, t: float | None) -> float | None:
        if t is None:
            return None
        if self._t0 is None:
            self._t0 = t
        return round(t - self._t0, 6)

    def _open(self) -> IO[bytes]:
        if self._file is None:
            if self.resuming:  # never truncate the segments already recorded
                self._file = self.path.open("ab", buffering=0)
                return self._file
            try:
                self._file = self.path.open("wb", buffering=0)
            except FileNotFoundError:  # only then create the directory (checking first costs every run)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("wb", buffering=0)
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

    def _line(self, event: dict[str, Any]) -> None:
        """Queue the value lines pending in the encoder, then `event`; all encoding already happened."""
        out = self._out
        if self._encoder.has_definitions:
            out += self._encoder.take_definition_lines()
        out.append(_dumps(event))
        out.append(b"\n")

    def _flush(self) -> None:
        """Write the queued lines at once, unbuffered: the file always ends with a whole step."""
        if not self._header_written:
            self._write_header()
        data = b"".join(self._out)
        self._out = []
        self._write(data)

    def _write(self, data: bytes) -> None:
        """Write `data` to the file, unbuffered: one system call (more only if the OS takes part of
        it), nothing left in a buffer, so what a step wrote is in the file when its callback returns."""
        out = self._file or self._open()
        written = out.write(data)
        while written is not None and written < len(data):  # a short write: the rest, again
            data = data[written:]
            written = out.write(data)

    def _write_header(self, input: Any = None) -> None:
        now = self._clock()
        if self._t0 is None:
            self._t0 = now
        topology = self.topology
        if topology is None:
            topology = _topology_from_scope()
            self.topology = topology
        if topology is not None:
            self._index_topology(topology, ())
            self._max_steps = topology.max_run_steps
        started = dt.datetime.fromtimestamp(self._t0, tz=dt.UTC).isoformat()
        if self._continuation is not None:
            self._write_segment(self._continuation, topology, started, input)
            return
        header: dict[str, Any] = {
            "kind": "header",
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "run_id": self._run_id or uuid.uuid4().hex,
            "graph_name": self._graph_name or (topology.name if topology else ""),
            "started_at": started,
            "trigger_mode": None if topology is None else topology.trigger_mode.value,
            "max_run_steps": None if topology is None else topology.max_run_steps,
            "topology": None if topology is None else _topology_json(topology),
            "input": self._encoder.encode(input),
            "resumed_from": _scope_extra("resumed_from"),
            "meta": self._encoder.encode(self._meta),
        }
        self._header_written = True
        # the input's messages after the header
        self._write(b"".join([_dumps(header), b"\n", *self._encoder.take_definition_lines()]))

    def _write_segment(
        self, continuation: Continuation, topology: Topology | None, started: str, input: Any
    ) -> None:
        """The `segment` line that opens a resumed run in the file of the run it continues."""
        segment: dict[str, Any] = {
            "kind": "segment",
            "index": continuation.segments,
            "resumed_from": continuation.checkpoint_id,
            "started_at": started,
        }
        if topology is not None and _topology_json(topology) != continuation.topology_json:
            segment["graph_name"] = self._graph_name or topology.name
            segment["trigger_mode"] = topology.trigger_mode.value
            segment["max_run_steps"] = topology.max_run_steps
            segment["topology"] = _topology_json(topology)
        elif topology is None and continuation.topology_json is not None:
            self._max_steps = continuation.topology_json.get("max_run_steps")
        if input is not None:
            segment["input"] = self._encoder.encode(input)
        if self._meta:
            segment["meta"] = self._encoder.encode(self._meta)
        self._header_written = True
        self._write(b"".join([_dumps(segment), b"\n", *self._encoder.take_definition_lines()]))

    def _index_topology(self, topology: Topology, path: tuple[str, ...]) -> None:
        """Node names and kinds by path, and branch ends, so step lines can leave them out."""
        for node in topology.nodes:
            self._nodes[(*path, node.key)] = (node.name, node.kind)
            if node.graph is not None:
                self._index_topology(node.graph, (*path, node.key))
        for (source, index), ends in branch_ends(topology).items():
            self._ends[(path, source, index)] = ends

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
                    self._open_runs[(info.path, key, info.tool_call_id)] = _Pending(info, held, self._clock())
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
                    cls = type(output)
                    if cls is Message and output.usage is not None and info.kind == "ChatModel":
                        self._counters.add_usage(output)
                    pending = self._ended(info)
                    pending.output = (
                        output if cls is Message or cls is str or output is None else self._hold(output)
                    )
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
                    self._ended(info).error = error_record(error)
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
        """What to keep of a reported value until the step boundary: messages and message lists as they
        are (cheap; encoded in node order later), strings and numbers as they are, anything else
        encoded now (it may be mutated before the step ends)."""
        cls = type(value)
        if cls is Message or cls is str or value is None or cls is int:
            return value
        if cls is list and value and type(value[0]) is Message and type(value[-1]) is Message:
            return _Held(value)
        return _Encoded(self._encoder.encode(value))

    def _ended(self, info: RunInfo) -> _Pending:
        key = info.node_key
        pending = self._open_runs.pop((info.path, key, info.tool_call_id), None)
        if pending is None:  # an end without a start: record what we have
            pending = _Pending(info, _NOTHING, None)
        pending.end = self._clock()
        if info.kind == "Tool":
            parent = self._open_runs.get((info.path, key, None))
            if parent is not None:
                if parent.tools is None:
                    parent.tools = [pending]
                else:
                    parent.tools.append(pending)
                return pending
        graph = info.path[:-1]
        done = self._done.get(graph)
        if done is None:
            self._done[graph] = [pending]
        else:
            done.append(pending)
        return pending

    # --- step lines -----------------------------------------------------------------------------

    def _begin_run(self, info: RunInfo, input: Any) -> None:
        if self.resuming:
            self._begin_segment()
        elif self._header_written:  # the same Recorder reused for another run: start a new file
            self.close()
            self._reset()
        self._graph_name = info.name or info.graph_name
        self._write_header(input)

    def _begin_segment(self) -> None:
        """Check that this run continues the file's interrupted run (raises `RunFileError`, which
        faults the recorder and leaves the file alone), then start a new segment."""
        continuation = self._continuation
        if self._header_written or continuation is None or _size_of(self.path) != continuation.size:
            self.close()  # a second resumed run, or the file changed since it was checked
            continuation = self._continuation = check_resumable(self.path, self._expected_checkpoint)
        resumed_from = _scope_extra("resumed_from")
        if resumed_from != continuation.checkpoint_id:
            what = (
                "a new run (no checkpoint was restored: the run had no `checkpoint_id`, or its store "
                "holds no checkpoint under it)"
                if resumed_from is None
                else f"a run resumed from checkpoint `{resumed_from}`"
            )
            raise RunFileError(
                f"not recording into it: the file's interrupted run saved checkpoint "
                f"`{continuation.checkpoint_id}`, and this is {what}. Resume with "
                f"`checkpoint_id={continuation.checkpoint_id!r}`, or record this run to a new file.",
                path=self.path,
            )
        self._reset()

    def _value(self, held: Any) -> Any:
        cls = type(held)
        if cls is _Encoded:
            return held.value
        if cls is Message:
            return self._encoder.encode_message(held)
        if cls is _Held:
            value = held.value
            return self._encoder.encode_list(value if len(value) == held.n else value[: held.n])
        return self._encoder.encode(held)

    def _runs(
        self, path: tuple[str, ...], nodes: tuple[str, ...], done: list[_Pending], base: float
    ) -> list[Any]:
        """The step's node runs as stored, in node order (a node missing from `nodes` goes last)."""
        if len(done) == 1:
            return [self._run_record(done[0], path, base)]
        order = {node: i for i, node in enumerate(nodes)}
        done = sorted(done, key=lambda p: order.get(p.node, len(order)))
        return [self._run_record(p, path, base) for p in done]

    def _run_record(self, pending: _Pending, path: tuple[str, ...], base: float) -> dict[str, Any]:
        info = pending.info
        node = info.node_key or ""
        record: dict[str, Any] = {"node": node}
        known = self._nodes.get((*path, node) if path else (node,))
        if known is None or known[0] != info.name:
            record["name"] = info.name
        if known is None or known[1] != info.kind:
            record["component"] = info.kind
        if pending.input is not _NOTHING:
            record["input"] = self._value(pending.input)
        if pending.output is not _NOTHING:
            record["output"] = self._value(pending.output)
        if pending.error is not None:
            record["error"] = pending.error
        t = pending.t
        if t is not None:
            record["t"] = None if base is None else round(t - base, 6)
            if pending.end is not None:
                record["duration"] = round(pending.end - t, 6)
        if pending.tools:
            record["tools"] = self._tool_records(pending)
        return record

    def _tool_records(self, parent: _Pending) -> list[dict[str, Any]]:
        """Tool calls in call order, each without what its ToolsNode run already holds."""
        calls = parent.input.tool_calls if type(parent.input) is Message else []
        tools = parent.tools or []
        if len(tools) > 1:
            order = {c.id: i for i, c in enumerate(calls)}
            tools = sorted(
                tools, key=lambda p: (order.get(p.tool_call_id or "", len(order)), p.tool_call_id or "")
            )
        by_id: dict[str, Any] | None = None  # built when first needed (a call that has an ID)
        contents: dict[str | None, str] | None = None  # likewise (a long string result)
        out: list[dict[str, Any]] = []
        base = parent.t
        max_str = self._max_str
        for tool in tools:
            info = tool.info
            record: dict[str, Any] = {}
            call_id = info.tool_call_id
            call = None  # no ID: nothing is derived
            if call_id is not None:
                record["tool_call_id"] = call_id
                if len(calls) == 1:  # the usual one call: no lookup table
                    call = calls[0] if calls[0].id == call_id else None
                else:
                    if by_id is None:
                        by_id = {c.id: c for c in calls}
                    call = by_id.get(call_id)
            if call is None or call.name != info.name:
                record["name"] = info.name
            value = tool.input
            if type(value) is str:
                if len(value) > 24 and call is not None and call.arguments == value:
                    record["input"] = _CALL_ARGUMENTS
                else:
                    record["input"] = value if len(value) <= max_str else self._value(value)
            elif value is not _NOTHING:
                record["input"] = self._value(value)
            value = tool.output
            if type(value) is str and len(value) > 24 and call_id is not None:
                held = parent.output
                if type(held) is _Held and held.n == 1:  # the usual one result: no lookup table
                    message = held.value[0]
                    usual = type(message) is Message and message.tool_call_id == call_id
                    content = message.content if usual else None
                else:
                    if contents is None:
                        output = held.value[: held.n] if type(held) is _Held else held
                        contents = (
                            {m.tool_call_id: m.content for m in output if type(m) is Message}
                            if type(output) is list
                            else {}
                        )
                    content = contents.get(call_id)
                record["output"] = _CALL_CONTENT if content == value else self._value(value)
            elif value is not _NOTHING:
                record["output"] = self._value(value)
            if tool.error is not None:
                record["error"] = tool.error
            t = tool.t
            if t is not None:
                record["t"] = None if base is None else round(t - base, 6)
                if tool.end is not None:
                    record["duration"] = round(tool.end - t, 6)
            out.append(record)
        return out

    def _branches(self, step: StepInfo) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for decision in step.branches:
            record: dict[str, Any] = {}
            if len(step.nodes) != 1 or step.nodes[0] != decision.source:
                record["source"] = decision.source
            if decision.branch_index:
                record["branch_index"] = decision.branch_index
            record["chosen"] = list(decision.chosen)
            ends = self._ends.get((step.path, decision.source, decision.branch_index))
            if ends is None or tuple(e for e in ends if e not in decision.chosen) != tuple(decision.skipped):
                record["skipped"] = list(decision.skipped)
            out.append(record)
        return out

    def _budget(self, budget: Budget, index: int, path: tuple[str, ...]) -> dict[str, Any]:
        """The budget as stored: step fields only where the step index and header do not imply them."""
        out: dict[str, Any] = {}
        implied_max = self._max_steps if not path else None
        if budget.steps_used != index + 1 or budget.steps_max != implied_max:
            out["steps_used"] = budget.steps_used
            out["steps_max"] = budget.steps_max
            out["steps_remaining"] = budget.steps_remaining
        self._counters.fill(out)
        return out

    def _on_step_end(self, step: StepInfo) -> None:
        path = step.path
        end = self._clock()
        started = self._steps.pop(path, None)
        begin = started[1] if started is not None else end
        t0 = self._t0
        if t0 is None:
            t = self._rel(begin)
            end_t = self._rel(end)
        else:  # `_rel`, inline
            t = round(begin - t0, 6)
            end_t = round(end - t0, 6)
        done = self._done.pop(path, None)
        runs = self._runs(path, step.nodes, done, begin) if done else None
        counters = self._counters
        delta_json = None
        if step.state is None:
            full, payload = True, None
        else:
            track = self._states.get(path)
            if track is None:
                track = self._states[path] = _StateTrack(self._snapshot_every)
            full, payload, encoded_state = track.record_state(step.state, self._encoder)
            delta_json = track.delta_json
            if not path and type(encoded_state) is dict:
                counters.iterations = (
                    None if _ITERATION_SET.isdisjoint(encoded_state) else _iterations(encoded_state)  # pyright: ignore[reportUnknownArgumentType]
                )
        budget_info = step.budget
        if (
            not path
            and counters.total is None
            and counters.iterations is None
            and budget_info.steps_used == step.index + 1
            and budget_info.steps_max == self._max_steps
        ):  # the usual stored budget: the calls only
            budget: dict[str, Any] = {"model_calls": counters.model_calls, "tool_calls": counters.tool_calls}
            plain_budget = True
        else:
            budget = self._budget(budget_info, step.index, path)
            plain_budget = False
        duration = None if t is None or end_t is None else round(end_t - t, 6)
        branches = step.branches
        # loops repeat the same decisions (the engine reuses its frozen decision objects): each is
        # worked out once per run, found by the decisions' identity. The cache keeps the objects alive,
        # so no other object can have their ids while their entry exists
        key = (path, step.nodes, step.next_nodes, tuple(map(id, branches)))
        stored = self._decisions.get(key)
        if stored is None:
            if len(self._decisions) >= _MAX_DECISIONS:  # an engine making new decision objects every step
                self._decisions.clear()
            implied = list(step.next_nodes) == next_from_branches(branches)
            stored_branches = self._branches(step) if branches else None
            stored = self._decisions[key] = (
                None if implied else list(step.next_nodes),
                stored_branches,
                branches,
                list(step.nodes),
                _line_template(list(step.nodes), stored_branches),
            )
        before = None
        if not path:
            if started is not None and not (  # `_before`'s usual case, inline: nothing to store
                started[0].budget.steps_used == step.index
                and started[0].budget.steps_max == self._max_steps
                and started[2] == self._last_counters
            ):
                before = self._before(step, started)
            self._last_budget = budget
            self._last_counters = (
                counters.model_calls,
                counters.tool_calls,
                counters.prompt,
                counters.completion,
                counters.total,
                counters.iterations,
            )
        interrupted = getattr(step, "interrupted", ())
        if (
            not path
            and not full
            and runs
            and before is None
            and stored[0] is None
            and stored[1] is not None
            and not step.ended
            and not step.errors
            and not interrupted
        ):  # a loop's usual step line
            if plain_budget and _TEMPLATES and delta_json is not None:  # spliced into its template
                times = _dumps((t, duration))
                comma = times.index(b",")
                line = stored[4] % (
                    step.index,
                    times[1:comma],
                    times[comma + 1 : -1],
                    counters.model_calls,
                    counters.tool_calls,
                    _dumps(runs),
                    delta_json,
                )
                self._write_step(line, step)
                return
            event: dict[str, Any] = {
                "kind": "step",
                "index": step.index,
                "nodes": stored[3],
                "t": t,
                "duration": duration,
                "budget": budget,
                "runs": runs,
                "branches": stored[1],
                "delta": payload,
            }
        else:
            event = {"kind": "step"}
            if path:
                event["path"] = list(path)
            if full:
                event["full"] = True
            event["index"] = step.index
            event["nodes"] = stored[3]
            event["t"] = t
            event["duration"] = duration
            if stored[0] is not None:
                event["next_nodes"] = stored[0]
            if step.ended:
                event["ended"] = True
            event["budget"] = budget
            if before is not None:
                event["budget_before"] = before
            if runs:
                event["runs"] = runs
            if stored[1] is not None:
                event["branches"] = stored[1]
            if step.errors:
                event["errors"] = list(step.errors)
            if interrupted:
                event["interrupted"] = list(interrupted)
            if full:
                event["state"] = payload
            else:
                event["delta"] = payload
        if path:
            self._line(event)
            return
        self._write_step(_dumps(event) + b"\n", step)

    def _write_step(self, line: bytes, step: StepInfo) -> None:
        """A top-level step's lines (queued nested steps, new values, this one) in one write."""
        if self._out or not self._header_written:
            out = self._out
            if self._encoder.has_definitions:
                out += self._encoder.take_definition_lines()
            out.append(line)
            self._flush()
        else:  # the usual step: nothing queued
            self._write(self._encoder.take_definition_bytes() + line)
        if self._progress is not None:
            self._progress(
                {"index": step.index, "nodes": list(step.nodes), "budget": self._full_budget(step.budget)}
            )

    def _before(self, step: StepInfo, started: tuple[StepInfo, float, tuple[Any, ...]] | None) -> Any:
        """The budget before a top-level step, or None when it is what a reader assumes: the previous
        step's budget (or, for the first step, nothing used yet)."""
        if started is None:
            return None
        info, _, counters = started
        used = info.budget.steps_used
        plain_steps = used == step.index and info.budget.steps_max == self._max_steps
        if plain_steps and counters == self._last_counters:  # the usual case, without building dicts
            return None
        before: dict[str, Any] = {}
        if not plain_steps:
            before.update(
                steps_used=used, steps_max=info.budget.steps_max, steps_remaining=info.budget.steps_remaining
            )
        _Counters.fill_from(before, counters)
        last = self._last_budget
        if last is None:
            implied = {"model_calls": 0, "tool_calls": 0}
        else:
            implied = {k: v for k, v in last.items() if not k.startswith("steps_")}
        if before == implied:
            return None
        if "steps_used" not in before:
            before = {"steps_used": used, "steps_max": info.budget.steps_max, **before}
            before["steps_remaining"] = info.budget.steps_remaining
        return before

    def _full_budget(self, budget: Budget) -> dict[str, Any]:
        out: dict[str, Any] = {
            "steps_used": budget.steps_used,
            "steps_max": budget.steps_max,
            "steps_remaining": budget.steps_remaining,
        }
        self._counters.fill(out)
        return out

    def _unfinished(self) -> None:
        """Lines for steps that started and never finished (the run failed or stopped inside them),
        innermost graph first, with what ran in them."""
        for path in sorted(self._steps, key=len, reverse=True):
            info, started, counters = self._steps[path]
            done = self._done.pop(path, [])
            done.extend(p for p in self._open_runs.values() if p.path[:-1] == path and p.component != "Tool")
            before: dict[str, Any] = {
                "steps_used": info.budget.steps_used,
                "steps_max": info.budget.steps_max,
                "steps_remaining": info.budget.steps_remaining,
            }
            _Counters.fill_from(before, counters)
            event: dict[str, Any] = {"kind": "step_unfinished"}
            if path:
                event["path"] = list(path)
            event |= {
                "index": info.index,
                "nodes": list(info.nodes),
                "t": self._rel(started),
                "budget": before,
            }
            runs = self._runs(path, info.nodes, done, started)
            if runs:
                event["runs"] = runs
            self._line(event)
        self._steps.clear()
        self._open_runs.clear()

    def _interrupted(self, error: BaseException) -> None:
        info = getattr(error, "info", None)
        self._unfinished()
        event: dict[str, Any] = {
            "kind": "interrupted",
            "before_nodes": list(getattr(info, "before_nodes", []) or []),
            "after_nodes": list(getattr(info, "after_nodes", []) or []),
            "rerun_nodes": list(getattr(info, "rerun_nodes", []) or []),
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
            event["error"] = error_record(error)
        event["t"] = t
        event["duration"] = t
        self._line(event)
        self._flush()
        self._finished = True
        self.close()


def _times(record: dict[str, Any], pending: _Pending, base: float | None) -> None:
    """`t` (start, seconds after `base`: the step's start for a node, the node's for a tool call) and
    `duration`, when known."""
    if pending.t is not None:
        record["t"] = None if base is None else round(pending.t - base, 6)
        if pending.end is not None:
            record["duration"] = round(pending.end - pending.t, 6)


class _Encoded:
    """A value encoded when it was reported (it might change before the step ends)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


_CALL_ARGUMENTS = {"$call": "arguments"}
_CALL_CONTENT = {"$call": "content"}


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
        return Raw({"$repr": f"<stream failed: {type(error).__name__}: {error}>", "$type": type_name(stream)})
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


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _scope_extra(key: str) -> Any:
    scope = current_scope()
    value = None if scope is None else scope.extras.get(key)
    return value if isinstance(value, str) else None


_TOPOLOGIES: weakref.WeakKeyDictionary[Any, Topology] = weakref.WeakKeyDictionary()
_TOPOLOGY_JSON: weakref.WeakKeyDictionary[Topology, Any] = weakref.WeakKeyDictionary()


def _topology_json(topology: Topology) -> Any:
    """The header's topology, dumped once per `Topology` object (it is frozen)."""
    dumped = _TOPOLOGY_JSON.get(topology)
    if dumped is None:
        dumped = _TOPOLOGY_JSON[topology] = topology.model_dump(mode="json")
    return dumped


def _topology_from_scope() -> Topology | None:
    """The running graph's topology: from the scope, else made by the compiled graph, once per compiled
    graph (compiled graphs do not change, and a run is often recorded many times)."""
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
            made = _TOPOLOGIES.get(compiled)
        except TypeError:  # not weakly referenceable: not cached
            made = None
        if made is not None:
            return made
        try:
            made = make()
        except Exception:
            return None
        if not isinstance(made, Topology):
            return None
        with contextlib.suppress(TypeError):
            _TOPOLOGIES[compiled] = made
        return made
    return None
