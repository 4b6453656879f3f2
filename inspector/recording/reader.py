"""`read_run`: open a run file lazily and tolerantly.

Opening indexes the file instead of parsing it: top-level `step_started`/`step_finished` lines, full
state snapshots and `value` lines are found by scanning for their line prefixes (the writer puts `kind`,
`path` and `full` first for this reason). A step is parsed when it is first used, and its state is
rebuilt from the nearest full snapshot before it, with small caches in front. So a 100,000-step file
opens in well under a second and memory stays bounded (large files are memory-mapped).

Tolerance: a cut-off last line (a killed process) gives status `incomplete` and the steps that were
complete. A corrupt line elsewhere raises `RunFileError` with its 1-based line number, at open time
when the file is small enough to check every line (`check_limit` bytes), else when the step holding it
is read; `lenient=True` skips corrupt lines with a `RunFileWarning` instead.

Segments: a resumed run recorded into the file of the run it continues follows a `segment` line. The
reader joins the segments into one timeline: `steps` runs across them in file order (each step keeps
its `index` within its segment, which restarts at 0 as Eino's step counter does, and gains `segment`
and `position`), `segments` describes each one, and the run's status, output and error are the last
segment's. A file without `segment` lines is one segment, read exactly as before.
"""

from __future__ import annotations

import bisect
import json
import mmap
import re
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from pydantic import ValidationError

from graph_core.schema import Message
from graph_core.topology import Topology
from inspector.errors import RunFileError
from inspector.recording.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    BranchDecided,
    BudgetFields,
    BudgetRecord,
    ErrorRecord,
    Header,
    Interrupted,
    NodeRunRecord,
    RunFinished,
    SegmentStarted,
    StepRecord,
    StepUnfinished,
    branch_ends,
    event_adapter,
    next_from_branches,
)
from inspector.recording.statediff import apply_delta

__all__ = [
    "NodeRun",
    "Run",
    "RunFileWarning",
    "RunStatus",
    "Segment",
    "Step",
    "TextCandidates",
    "UnfinishedStep",
    "read_run",
    "to_messages",
]

RunStatus = Literal["ok", "error", "interrupted", "incomplete"]

_STEP = b'\n{"kind":"step","index":'
_STEP_FULL = b'\n{"kind":"step","full":true,'
_UNFINISHED = b'{"kind":"step_unfinished",'
_VALUE = b'\n{"kind":"value",'
_SEGMENT = b'\n{"kind":"segment",'
_HEADER_START = b'{"kind":"header",'
_INDEXED = (_STEP[1:], _STEP_FULL[1:], _SEGMENT[1:])
# A top-level step line's start: group 1 marks a full snapshot, group 2 is the index when it follows
# (always, from the recorder; a hand-edited line may hold something else, read by parsing the line).
_STEP_LINE = re.compile(rb'\n\{"kind":"step",(?:("full":true,)(?:"index":)?|"index":)(-?\d+)?')
_ORDER_WARNINGS = 10  # out-of-order step lines warned about one by one, then summed up
_BAD_START = re.compile(rb'\n(?!\{"kind":"|\Z)')
_CHECK_LIMIT = 32 * 1024 * 1024


class RunFileWarning(UserWarning):
    """A corrupt line was skipped because the run file was read with `lenient=True`."""


@dataclass
class NodeRun:
    """One execution of a node (or of one tool call inside a ToolsNode) within a step.

    `input`/`output` are JSON-like (messages as dicts); `error` is set when it failed; times are seconds
    since the run started. `tools` lists the tool calls of a ToolsNode execution.
    """

    node: str
    path: tuple[str, ...]
    name: str = ""
    component: str = ""
    tool_call_id: str | None = None
    input: Any = None
    output: Any = None
    error: ErrorRecord | None = None
    started: float | None = None
    finished: float | None = None
    duration: float | None = None
    tools: list[NodeRun] = field(default_factory=lambda: [])

    @property
    def ok(self) -> bool:
        return self.error is None


class Segment:
    """One run of a recorded timeline: the first run (segment 0), or a resumed run appended after it.

    `start`/`stop` are the positions of its steps in `run.steps` (`stop` exclusive); `resumed_from` the
    checkpoint it resumed from (for segment 0, the header's, when the file's first run was itself a
    resume); `status`, `output`, `error`, `interrupt` (the `interrupted` line: nodes and the checkpoint
    it saved) and `duration` how it ended; `topology`, `graph_name` and `max_run_steps` those that
    applied to it (carried forward when a segment line does not repeat them); `started_at` when it
    started (its steps' `t` count from there).
    """

    def __init__(
        self,
        run: Run,
        index: int,
        *,
        resumed_from: str | None,
        started_at: str,
        start: int,
        stop: int,
        topology: Topology | None,
        graph_name: str,
        max_run_steps: int | None,
        meta: dict[str, Any],
        input: Any,
        head: int,
        end: int,
    ) -> None:
        self._run = run
        self.index = index
        self.resumed_from = resumed_from
        self.started_at = started_at
        self.start = start
        self.stop = stop
        self.topology = topology
        self.graph_name = graph_name
        self.max_run_steps = max_run_steps
        self.meta = meta
        self.input = input
        self.head = head  # offset of the header or segment line
        self.end = end  # offset just past the segment's last complete line
        self.status: RunStatus = "incomplete"
        self.output: Any = None
        self.error: ErrorRecord | None = None
        self.interrupt: Interrupted | None = None
        self.duration: float | None = None

    @property
    def steps(self) -> range:
        """Positions of this segment's steps in `run.steps`."""
        return range(self.start, self.stop)

    @property
    def unfinished(self) -> UnfinishedStep | None:
        """The step this segment started and never finished (it failed, stopped or was killed in it)."""
        return self._run.unfinished_of(self.index)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready facts (no state): index, checkpoints, status, step range."""
        return {
            "index": self.index,
            "resumed_from": self.resumed_from,
            "started_at": self.started_at,
            "status": self.status,
            "start": self.start,
            "stop": self.stop,
            "checkpoint_id": None if self.interrupt is None else self.interrupt.checkpoint_id,
        }

    def __repr__(self) -> str:
        return (
            f"Segment(index={self.index}, resumed_from={self.resumed_from!r}, status={self.status!r}, "
            f"steps={self.start}..{self.stop})"
        )


class Step:
    """One top-level superstep: what ran, what the branches chose, the state and budget after it.

    `index` is the superstep index within its segment (it restarts at 0 when a run is resumed),
    `position` its place in `run.steps`, `segment` the index of the segment it belongs to."""

    def __init__(
        self, run: Run, position: int, record: StepRecord, nested: list[StepRecord], segment: int = 0
    ):
        self._run = run
        self.position = position
        self.segment = segment
        self.record = record
        self.finished = record
        self.nested = nested
        self.index: int = record.index
        self.nodes: tuple[str, ...] = tuple(record.nodes)
        self.next_nodes: tuple[str, ...] = tuple(
            next_from_branches(record.branches) if record.next_nodes is None else record.next_nodes
        )
        self.ended: bool = record.ended
        self.budget: BudgetRecord = run.budget_of(record, segment=segment)
        self.t: float = record.t
        self.duration: float | None = record.duration
        self.errors: tuple[str, ...] = tuple(record.errors)
        self.interrupted: tuple[str, ...] = tuple(record.interrupted)
        self.branches: list[BranchDecided] = run.branches_of(record, segment=segment)
        self._node_runs: list[NodeRun] | None = None

    def __repr__(self) -> str:
        where = f", segment={self.segment}, position={self.position}" if self.segment else ""
        return f"Step(index={self.index}, nodes={list(self.nodes)}{where})"

    @property
    def budget_before(self) -> BudgetRecord:
        """The budget before this step (stored only when it is not the previous step's budget)."""
        return self._run.budget_before(self.position)

    @property
    def state(self) -> Any:
        """The state after this step (JSON-like; None for graphs without state). Treat it as read-only."""
        return self._run.state_at(self.position)

    @property
    def node_runs(self) -> list[NodeRun]:
        """Per-node executions of this step in node order, then nested graphs' (longer paths)."""
        if self._node_runs is None:
            runs = self._run.node_runs_of(self.record, segment=self.segment)
            for record in self.nested:
                runs.extend(self._run.node_runs_of(record, segment=self.segment))
            self._node_runs = runs
        return self._node_runs

    def node_run(self, node: str) -> NodeRun | None:
        """The top-level execution of `node` in this step, if it ran."""
        for run in self.node_runs:
            if run.node == node and len(run.path) <= 1:
                return run
        return None

    @property
    def failed_nodes(self) -> list[NodeRun]:
        return [r for r in self.node_runs if r.error is not None]


class UnfinishedStep:
    """A step that started and never finished: what ran in it before the run failed or stopped."""

    def __init__(
        self, record: StepUnfinished, node_runs: list[NodeRun], budget_before: BudgetRecord, segment: int = 0
    ) -> None:
        self.started = record
        self.segment = segment
        self.index = record.index
        self.nodes: tuple[str, ...] = tuple(record.nodes)
        self.budget_before = budget_before
        self.node_runs = node_runs

    @property
    def failed_nodes(self) -> list[NodeRun]:
        return [r for r in self.node_runs if r.error is not None or any(t.error for t in r.tools)]

    def __repr__(self) -> str:
        return f"UnfinishedStep(index={self.index}, nodes={list(self.nodes)})"


def _end(t: float | None, duration: float | None) -> float | None:
    return None if t is None or duration is None else round(t + duration, 6)


def _call_field(message: Any, call_id: str | None, field: str) -> Any:
    """A field of the tool call `call_id` in a (resolved) assistant message."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if isinstance(calls, list):  # a hand-edited file may hold anything here
        for call in calls:  # pyright: ignore[reportUnknownVariableType]
            if isinstance(call, dict) and call.get("id") == call_id:  # pyright: ignore[reportUnknownMemberType]
                return call.get(field)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return None


def _call_content(messages: Any, call_id: str | None) -> Any:
    if isinstance(messages, list):
        for message in messages:  # pyright: ignore[reportUnknownVariableType]
            if isinstance(message, dict) and message.get("tool_call_id") == call_id:  # pyright: ignore[reportUnknownMemberType]
                return message.get("content", "")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return None


_CALL_ARGUMENTS = {"$call": "arguments"}
_CALL_CONTENT = {"$call": "content"}


@dataclass(frozen=True)
class TextCandidates:
    """Steps that may match a text search: those whose own lines contain it, every step from the first
    one that defines a matching value (a message can be appended to the state or passed to a node in
    any later step), and full state snapshots after the first hit (what they remove is on an earlier
    line, not theirs)."""

    steps: frozenset[int]
    first_value: int | None
    full: frozenset[int]

    def __contains__(self, position: object) -> bool:
        if position in self.steps:
            return True
        if not isinstance(position, int) or not self.steps:
            return False
        if self.first_value is not None and position >= self.first_value:
            return True
        return position in self.full and position > min(self.steps)


class Steps(Sequence[Step]):
    """The complete top-level steps of a run, parsed on demand (len, index, slice, iterate)."""

    def __init__(self, run: Run) -> None:
        self._run = run

    def __len__(self) -> int:
        return len(self._run._spans)  # pyright: ignore[reportPrivateUsage]

    @overload
    def __getitem__(self, i: int) -> Step: ...
    @overload
    def __getitem__(self, i: slice) -> list[Step]: ...
    def __getitem__(self, i: int | slice) -> Step | list[Step]:
        if isinstance(i, slice):
            return [self._run.step(k) for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"step {i} out of range (the run has {n} steps)")
        return self._run.step(i)

    def __iter__(self) -> Iterator[Step]:
        for i in range(len(self)):
            yield self._run.step(i)

    def __repr__(self) -> str:
        return f"<{len(self)} steps>"


class _LRU(OrderedDict[Any, Any]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def get_lru(self, key: Any) -> Any:
        value = super().get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)


class Run:
    """A recorded run. `steps` is lazy; `state_at`/`resolve` rebuild JSON-like values on demand."""

    def __init__(
        self, path: Path, data: bytes | mmap.mmap, *, lenient: bool = False, check_limit: int
    ) -> None:
        self.path = path
        self._data = data
        self.lenient = lenient
        self.skipped_lines: list[int] = []
        self._skipped: set[int] = set()
        self._step_cache = _LRU(256)
        self._state_cache = _LRU(64)
        self._value_cache = _LRU(50_000)
        self._span_ends: list[int] | None = None
        self._branch_ends: dict[tuple[int, tuple[str, ...]], dict[tuple[str, int], tuple[str, ...]]] = {}
        self.header = self._read_header()
        self.topology: Topology | None = self.header.topology
        self.run_id = self.header.run_id
        self.graph_name = self.header.graph_name
        self.started_at = self.header.started_at
        end = self._complete_end()
        if len(data) <= check_limit:
            self._check_all_lines(end)
        else:
            self._check_line_starts(end)
        self._end = end
        self._unfinished: dict[int, UnfinishedStep | None] = {}
        self._index(end)
        self._read_segments(end)
        self._check_order()
        self.steps = Steps(self)

    # --- opening --------------------------------------------------------------------------------

    def _line_no(self, offset: int) -> int:
        return self._data[:offset].count(b"\n") + 1

    def _error(self, message: str, offset: int | None) -> RunFileError:
        return RunFileError(
            message, path=self.path, line_no=None if offset is None else self._line_no(offset)
        )

    def _read_header(self) -> Header:
        data = self._data
        if len(data) == 0:
            raise RunFileError(
                "the file is empty; a run file starts with a header line", path=self.path, line_no=1
            )
        nl = data.find(b"\n")
        raw = data[: nl if nl >= 0 else len(data)]
        try:
            obj = json.loads(raw)
        except ValueError:
            if nl < 0 and _HEADER_START.startswith(bytes(raw[: len(_HEADER_START)])):
                raise RunFileError(
                    "the header is incomplete: the run was interrupted before its first line was complete "
                    "(the process stopped right after it started), so nothing of it was recorded; "
                    "record it again",
                    path=self.path,
                    line_no=1,
                ) from None
            raise RunFileError(
                "the first line is not JSON; this is not a graph-inspector run file "
                "(JSON Lines with a header)",
                path=self.path,
                line_no=1,
            ) from None
        if not isinstance(obj, dict) or obj.get("kind") != "header" or obj.get("format") != FORMAT_NAME:  # pyright: ignore[reportUnknownMemberType]
            raise RunFileError(
                f"the first line is not a `{FORMAT_NAME}` header; "
                "this is not a run file written by the inspector",
                path=self.path,
                line_no=1,
            )
        version = obj.get("version")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise RunFileError(
                f"format version {version} is newer than this inspector reads ({FORMAT_VERSION}); upgrade it",
                path=self.path,
                line_no=1,
            )
        if version < FORMAT_VERSION:
            raise RunFileError(
                f"format version {version} is older than this inspector reads ({FORMAT_VERSION}): it was "
                "written by an early development version; record the run again",
                path=self.path,
                line_no=1,
            )
        try:
            return Header.model_validate(obj)
        except ValidationError as exc:
            raise RunFileError(
                f"the header is malformed: {_first_error(exc)}", path=self.path, line_no=1
            ) from None

    def _complete_end(self) -> int:
        """Offset just past the last complete line; a cut-off tail (no newline, or not JSON) is ignored."""
        data = self._data
        size = len(data)
        self.cut_off = False
        if data[size - 1 : size] != b"\n":
            self.cut_off = True
            return data.rfind(b"\n") + 1
        start = data.rfind(b"\n", 0, size - 1) + 1
        if start > 0:
            try:
                json.loads(data[start:size])
            except ValueError:
                self.cut_off = True
                return start
        return size

    def _check_all_lines(self, end: int) -> None:
        data = self._data
        pos = data.find(b"\n") + 1
        while 0 < pos < end:
            nl = data.find(b"\n", pos)
            line = data[pos:nl]
            ok = line.startswith(b'{"kind":"')
            what = "is not a JSON event line"
            if ok:
                try:
                    obj = json.loads(line)
                    ok = isinstance(obj, dict)
                except ValueError:
                    ok = False
            if ok and self.lenient and line.startswith(_INDEXED):
                # Lines the index relies on are checked whole here, so a skipped one is left out of it
                # rather than failing when its step is read.
                try:
                    event_adapter.validate_python(obj)  # pyright: ignore[reportPossiblyUnboundVariable]
                except ValidationError as exc:
                    ok, what = False, f"is not a valid event ({_first_error(exc)})"
            if not ok:
                self._corrupt(pos, what)
            pos = nl + 1

    def _check_line_starts(self, end: int) -> None:
        for match in _BAD_START.finditer(self._data, 0, end - 1):
            self._corrupt(match.start() + 1, "does not start like an event line")

    def _corrupt(self, offset: int, what: str) -> None:
        line_no = self._line_no(offset)
        if not self.lenient:
            raise RunFileError(
                f"line {line_no} {what}; the file is corrupt in the middle (a cut-off last line would be "
                "fine). To skip bad lines, read it with `read_run(path, lenient=True)` in Python, or pass "
                "`--lenient` to `inspector show`, `inspector replay` or `inspector diff`.",
                path=self.path,
                line_no=line_no,
            )
        self.skipped_lines.append(line_no)
        self._skipped.add(offset)
        warnings.warn(f"{self.path}:{line_no}: skipped a corrupt line", RunFileWarning, stacklevel=4)

    def _find_all(self, needle: bytes, end: int) -> list[int]:
        data = self._data
        out: list[int] = []
        pos = data.find(needle, 0, end)
        while pos >= 0:
            out.append(pos + 1)
            pos = data.find(needle, pos + 1, end)
        return out

    def _index(self, end: int) -> None:
        """Offsets of the top-level step lines (each step's span runs from the previous one's end) with
        the index each line starts with, of full snapshots and of value lines; one regular expression
        finds the step lines and their index digits, nothing is parsed."""
        skipped = self._skipped  # a corrupt line that starts like a step is no step
        steps: list[int] = []
        full: list[int] = []
        indexes: list[bytes | None] = []
        for match in _STEP_LINE.finditer(self._data, 0, end):  # pyright: ignore[reportCallIssue, reportArgumentType]
            offset = match.start() + 1
            if skipped and offset in skipped:
                continue
            is_full, index = match.groups()
            if is_full is not None:
                full.append(len(steps))
            steps.append(offset)
            indexes.append(index)
        self._values = self._find_all(_VALUE, end)
        if self._skipped:
            self._values = self._lost_value_slots(self._values, end)
        self._spans = steps
        self._full = full
        self._raw_indexes = indexes

    def _lost_value_slots(self, values: list[int], end: int) -> list[int]:
        """`values` with a slot kept for each skipped corrupt line that was a value line.

        Values are numbered by their order in the file, so losing one line of them would shift every
        later reference onto the wrong value. A skipped line is taken for a value when the next readable
        line that is not a value refers to more values than the file defines before it (the recorder
        writes each value right before the first line using it). Reading a kept slot gives a marked
        placeholder (see `value`) instead of a neighbour's value.
        """
        known = set(values)
        slots = list(values)
        for offset in sorted(o for o in self._skipped if o not in known):
            pos = self._line_end(offset) + 1
            while pos < end and (pos in known or pos in self._skipped):
                pos = self._line_end(pos) + 1
            if pos >= end:
                continue
            try:
                user = json.loads(self._data[pos : self._line_end(pos)])
            except ValueError:
                continue
            if _highest_ref(user) >= bisect.bisect_left(slots, pos):
                bisect.insort(slots, offset)
        return slots

    def _read_segments(self, end: int) -> None:
        """Split the file at its `segment` lines, read how each segment ended, and take the run's
        status, output, error and interrupt from the last one."""
        header = self.header
        heads = [0, *(o for o in self._find_all(_SEGMENT, end) if o not in self._skipped)]
        segments: list[Segment] = []
        topology, graph_name, max_steps = header.topology, header.graph_name, header.max_run_steps
        for k, head in enumerate(heads):
            stop_offset = heads[k + 1] if k + 1 < len(heads) else end
            opening: Header | SegmentStarted = header
            if k:
                line = self._parse_at(head)
                if not isinstance(line, SegmentStarted):
                    raise self._error("expected a segment line", head)
                opening = line
                if line.topology is not None:
                    topology, max_steps = line.topology, line.max_run_steps
                    graph_name = line.graph_name if line.graph_name is not None else line.topology.name
            segment = Segment(
                self,
                k,
                resumed_from=opening.resumed_from,
                started_at=opening.started_at,
                start=bisect.bisect_left(self._spans, head),
                stop=bisect.bisect_left(self._spans, stop_offset),
                topology=topology,
                graph_name=graph_name,
                max_run_steps=max_steps,
                meta=opening.meta,
                input=opening.input,
                head=head,
                end=stop_offset,
            )
            self._read_tail(segment)
            segments.append(segment)
        self.segments: list[Segment] = segments
        self._segment_starts = [segment.start for segment in segments]
        last = segments[-1]
        self.status: RunStatus = last.status
        self.output: Any = last.output
        self.error: ErrorRecord | None = last.error
        self.interrupt: Interrupted | None = last.interrupt
        self.duration: float | None = last.duration

    def _read_tail(self, segment: Segment) -> None:
        """How a segment ended, from its last line (and the `interrupted` line before `run_finished`)."""
        data = self._data
        end = segment.end
        if end <= 0:
            return
        last = data.rfind(b"\n", 0, end - 1) + 1
        event = self._parse_at(last) if last > segment.head else None
        if isinstance(event, RunFinished):
            segment.status = event.status
            segment.output = self.resolve(event.output)
            segment.error = event.error
            segment.duration = event.duration
            before = data.rfind(b"\n", 0, last - 1) + 1
            previous = self._parse_at(before) if before > segment.head else None
            if isinstance(previous, Interrupted):
                segment.interrupt = previous
        elif isinstance(event, Interrupted):
            segment.interrupt = event

    def _check_order(self) -> None:
        """Top-level step indexes must go 0, 1, 2, ... within each segment, in file order.

        A reordered, duplicated or reversed step line would otherwise read silently: steps shown out of
        order or twice, runs lined up wrongly by `diff`, state deltas applied out of order. Strict
        reading raises at the first such line; lenient reading warns and reads the steps in file order,
        checking each index against the one before it (a skipped corrupt line in between may have held
        steps or a segment line, so any index is taken there). Nested graphs' step lines (with a
        `path`) are not checked: each run of a nested graph counts from 0 again, they are not indexed
        (checking them would mean parsing them at open time), and no state is rebuilt from them.
        """
        raw = self._raw_indexes
        indexes = self._int_indexes(raw)
        del self._raw_indexes
        skipped = sorted(self._skipped)
        warned = 0
        for segment in self.segments:
            start, stop = segment.start, segment.stop
            if indexes[start:stop] == list(range(stop - start)):
                continue  # the usual case, checked in C
            expected = 0
            for position in range(start, stop):
                index = indexes[position]
                if index == expected:
                    expected += 1
                    continue
                offset = self._spans[position]
                after = self._spans[position - 1] if position > start else segment.head
                lost = bisect.bisect_left(skipped, after) < bisect.bisect_left(skipped, offset)
                if index is not None and lost:
                    expected = index + 1  # steps (or a segment line) lost with a skipped line
                    continue
                line_no = self._line_no(offset)
                where = f" in segment {segment.index}" if len(self.segments) > 1 else ""
                what = f"step line {line_no} has index {index}, expected {expected}{where}"
                if not self.lenient:
                    raise RunFileError(
                        f"{what}: the steps are out of order (reordered, duplicated or reversed lines; "
                        "each segment counts its steps from 0). To read it anyway, in file order, use "
                        "`read_run(path, lenient=True)` in Python or `--lenient` on the command line.",
                        path=self.path,
                        line_no=line_no,
                    )
                warned += 1
                if warned <= _ORDER_WARNINGS:
                    warnings.warn(
                        f"{self.path}:{line_no}: {what}; steps are read in file order",
                        RunFileWarning,
                        stacklevel=4,
                    )
                expected = expected if index is None else index + 1
        if warned > _ORDER_WARNINGS:
            warnings.warn(
                f"{self.path}: {warned - _ORDER_WARNINGS} more step lines out of order",
                RunFileWarning,
                stacklevel=4,
            )

    def _int_indexes(self, raw: list[bytes | None]) -> list[int | None]:
        """The index digits as numbers; a line whose index is not right after its prefix (edited by
        hand) is parsed for it, and gives None when it has no integer index (reading that step then
        reports the line as invalid)."""
        if None not in raw:
            return list(map(int, raw))  # pyright: ignore[reportArgumentType]
        out: list[int | None] = []
        for position, digits in enumerate(raw):
            if digits is not None:
                out.append(int(digits))
                continue
            offset = self._spans[position]
            try:
                index = json.loads(self._data[offset : self._line_end(offset)]).get("index")
            except (ValueError, AttributeError):
                index = None
            out.append(index if type(index) is int else None)
        return out

    def segment_of(self, position: int) -> int:
        """The index of the segment holding step `position`."""
        return max(bisect.bisect_right(self._segment_starts, position) - 1, 0)

    @property
    def value_count(self) -> int:
        """How many `value` lines the file defines (a resumed segment's values are numbered after them)."""
        return len(self._values)

    # --- lazy parsing ---------------------------------------------------------------------------

    def _line_end(self, offset: int) -> int:
        nl = self._data.find(b"\n", offset)
        return len(self._data) if nl < 0 else nl

    def _parse_at(self, offset: int) -> Any:
        raw = self._data[offset : self._line_end(offset)]
        try:
            return event_adapter.validate_json(raw)
        except ValidationError as exc:
            self._corrupt(offset, f"is not a valid event ({_first_error(exc)})")
            return None

    def _span_start(self, i: int) -> int:
        segment = self.segments[self.segment_of(i)]
        if i == segment.start:  # nothing before a segment's line belongs to its first step
            return self._line_end(segment.head) + 1
        return self._line_end(self._spans[i - 1]) + 1

    def _nested_in(self, start: int, stop: int) -> list[Any]:
        """Parsed nested-graph step lines (and unfinished-step lines) between two offsets."""
        data = self._data
        out: list[Any] = []
        pos = start
        while pos < stop:
            end = self._line_end(pos)
            if data[pos : pos + 13] == b'{"kind":"step' and pos not in self._skipped:
                event = self._parse_at(pos)
                if event is not None:
                    out.append(event)
            pos = end + 1
        return out

    def step(self, i: int) -> Step:
        cached = self._step_cache.get_lru(i)
        if cached is not None:
            return cached
        offset = self._spans[i]
        record = self.finished_event(i)
        nested = [e for e in self._nested_in(self._span_start(i), offset) if isinstance(e, StepRecord)]
        step = Step(self, i, record, nested, self.segment_of(i))
        self._step_cache.put(i, step)
        return step

    def finished_event(self, i: int) -> StepRecord:
        """Step `i`'s line alone (nodes, stored budget, state payload): cheaper than `steps[i]`."""
        cached = self._step_cache.get_lru(i)
        if cached is not None:
            return cached.record
        cached = self._state_cache.get_lru(("line", i))
        if cached is not None:
            return cached[0]
        event = self._parse_at(self._spans[i])
        if not isinstance(event, StepRecord):
            raise self._error("expected a step line", self._spans[i])
        self._state_cache.put(("line", i), (event,))
        return event

    # --- derived fields -------------------------------------------------------------------------

    def _implied_max(self, segment: int | None) -> int | None:
        return self.header.max_run_steps if segment is None else self.segments[segment].max_run_steps

    def budget_of(self, record: StepRecord | StepUnfinished, *, segment: int | None = None) -> BudgetRecord:
        """The budget after a step, its step counts filled in from the index where they were left out
        (against the step limit of `segment`; the header's when None)."""
        stored = record.budget or BudgetFields()
        used = record.index + 1 if isinstance(record, StepRecord) else record.index
        return self._budget(stored, used, None if record.path else self._implied_max(segment))

    @staticmethod
    def _budget(stored: BudgetFields, used: int, implied_max: int | None) -> BudgetRecord:
        if stored.steps_used is not None:
            used, steps_max, remaining = stored.steps_used, stored.steps_max, stored.steps_remaining
        else:
            steps_max = implied_max
            remaining = None if steps_max is None else max(steps_max - used, 0)
        return BudgetRecord(
            steps_used=used,
            steps_max=steps_max,
            steps_remaining=remaining,
            model_calls=stored.model_calls,
            tool_calls=stored.tool_calls,
            prompt_tokens=stored.prompt_tokens,
            completion_tokens=stored.completion_tokens,
            total_tokens=stored.total_tokens,
            iterations_remaining=stored.iterations_remaining,
        )

    def budget_at(self, i: int) -> BudgetRecord:
        """The budget after step `i` (reads only that step's line)."""
        return self.budget_of(self.finished_event(i), segment=self.segment_of(i))

    def budget_before(self, i: int) -> BudgetRecord:
        """The budget before step `i`: as stored, else the previous step's counters (none for the first
        step of a segment: a resumed run counts afresh)."""
        record = self.finished_event(i)
        segment = self.segment_of(i)
        implied_max = self._implied_max(segment)
        if record.budget_before is not None:
            return self._budget(record.budget_before, record.index, implied_max)
        first = i == self.segments[segment].start
        counters = self.finished_event(i - 1).budget if i > 0 and not first else BudgetFields()
        fields = counters.model_copy(update={"steps_used": None, "steps_max": None, "steps_remaining": None})
        return self._budget(fields, record.index, implied_max)

    def _topology_of(self, segment: int | None) -> Topology | None:
        return self.topology if segment is None else self.segments[segment].topology

    def _ends(
        self, path: tuple[str, ...], segment: int | None = None
    ) -> dict[tuple[str, int], tuple[str, ...]]:
        key = (id(self._topology_of(segment)), path)
        cached = self._branch_ends.get(key)
        if cached is None:
            topology = self._topology_of(segment)
            for node_key in path:
                node = (
                    None if topology is None else next((n for n in topology.nodes if n.key == node_key), None)
                )
                topology = None if node is None else node.graph
            cached = self._branch_ends[key] = {} if topology is None else branch_ends(topology)
        return cached

    def branches_of(self, record: StepRecord, *, segment: int | None = None) -> list[BranchDecided]:
        """Branch decisions with `path`, `step` and (when left out) `skipped` filled in."""
        path = tuple(record.path)
        out: list[BranchDecided] = []
        for branch in record.branches:
            source = branch.source or (record.nodes[0] if len(record.nodes) == 1 else "")
            skipped = branch.skipped
            if skipped is None:
                ends = self._ends(path, segment).get((source, branch.branch_index), ())
                skipped = [e for e in ends if e not in branch.chosen]
            update = {"path": record.path, "step": record.index, "source": source, "skipped": skipped}
            out.append(branch.model_copy(update=update))
        return out

    def _node_info(self, path: tuple[str, ...], segment: int | None = None) -> tuple[str, str]:
        """A node's name and kind from the topology (nested graphs included), ("", "") if unknown."""
        topology = self._topology_of(segment)
        for depth, key in enumerate(path):
            node = None if topology is None else next((n for n in topology.nodes if n.key == key), None)
            if node is None:
                return "", ""
            if depth == len(path) - 1:
                return node.name, node.kind
            topology = node.graph
        return "", ""

    def node_runs_of(
        self, record: StepRecord | StepUnfinished, *, segment: int | None = None
    ) -> list[NodeRun]:
        """A step line's node runs as `NodeRun`s, values resolved, tool calls inside their ToolsNode
        (names and kinds from the topology of `segment`; the header's when None)."""
        path = tuple(record.path)
        return [self._node_run(path, run, record.t, segment) for run in record.runs]

    def _node_run(
        self, path: tuple[str, ...], record: NodeRunRecord, base: float, segment: int | None = None
    ) -> NodeRun:
        node_path = (*path, record.node)
        started = _end(base, record.t)
        name, component = record.name, record.component
        if name is None or component is None:
            known = self._node_info(node_path, segment)
            name = known[0] if name is None else name
            component = known[1] if component is None else component
        run = NodeRun(
            node=record.node,
            path=node_path,
            name=name,
            component=component,
            input=self.resolve(record.input),
            output=self.resolve(record.output),
            error=record.error,
            started=started,
            finished=_end(started, record.duration),
            duration=record.duration,
        )
        for tool in record.tools:
            call_id = tool.tool_call_id
            value = tool.input
            tool_input = (
                _call_field(run.input, call_id, "arguments")
                if value == _CALL_ARGUMENTS
                else self.resolve(value)
            )
            value = tool.output
            tool_output = (
                _call_content(run.output, call_id) if value == _CALL_CONTENT else self.resolve(value)
            )
            tool_started = _end(started, tool.t)
            tool_name = tool.name
            if tool_name is None:
                tool_name = _call_field(run.input, call_id, "name") or ""
            run.tools.append(
                NodeRun(
                    node=record.node,
                    path=node_path,
                    name=tool_name,
                    component="Tool",
                    tool_call_id=call_id,
                    input=tool_input,
                    output=tool_output,
                    error=tool.error,
                    started=tool_started,
                    finished=_end(tool_started, tool.duration),
                    duration=tool.duration,
                )
            )
        return run

    @property
    def unfinished(self) -> UnfinishedStep | None:
        """The top-level step that started but never finished (the run failed or was killed in it);
        of the last segment when the run was resumed (`segments[k].unfinished` for the others)."""
        return self.unfinished_of(len(self.segments) - 1)

    def unfinished_of(self, segment: int) -> UnfinishedStep | None:
        """The step segment `segment` started and never finished, if any."""
        if segment not in self._unfinished:
            self._unfinished[segment] = self._read_unfinished(self.segments[segment])
        return self._unfinished[segment]

    def _read_unfinished(self, segment: Segment) -> UnfinishedStep | None:
        after = self._spans[segment.stop - 1] if segment.stop > segment.start else segment.head
        events = self._nested_in(self._line_end(after) + 1, segment.end)
        top = next((e for e in events if isinstance(e, StepUnfinished) and not e.path), None)
        if top is None:
            return None
        k = segment.index
        runs = self.node_runs_of(top, segment=k)
        for event in events:
            if event is not top and isinstance(event, StepRecord | StepUnfinished):
                runs.extend(self.node_runs_of(event, segment=k))
        before = self._budget(top.budget or BudgetFields(), top.index, segment.max_run_steps)
        return UnfinishedStep(top, runs, before, k)

    def text_candidates(self, text: str) -> TextCandidates | None:
        """Which steps could mention `text` (any ASCII case), found by scanning the raw file once, not
        by parsing steps; None when `text` cannot be searched as raw bytes (non-ASCII, quotes,
        backslashes or control characters, which the file may hold escaped)."""
        if not text or not text.isascii() or any(c in '"\\' or ord(c) < 32 for c in text):
            return None
        if self._span_ends is None:
            self._span_ends = [self._line_end(offset) for offset in self._spans]
        ends = self._span_ends
        data = self._data
        steps: set[int] = set()
        first_value: int | None = None
        pattern = re.compile(re.escape(text.encode()), re.IGNORECASE)
        for match in pattern.finditer(data, 0, self._end):  # pyright: ignore[reportCallIssue, reportArgumentType]
            at = match.start()
            position = bisect.bisect_left(ends, at)
            steps.add(position)
            if first_value is None:
                line = data.rfind(b"\n", 0, at) + 1
                if data[line : line + 15] == b'{"kind":"value"':
                    first_value = position
        return TextCandidates(frozenset(steps), first_value, frozenset(self._full))

    def raw_state_at(self, i: int) -> Any:
        """The state after step `i` as stored (messages still `{"$ref": n}`)."""
        if not 0 <= i < len(self._spans):
            raise IndexError(f"step {i} out of range (the run has {len(self._spans)} steps)")
        k = bisect.bisect_right(self._full, i) - 1
        if k < 0:
            return None
        base = self._full[k]
        j = i
        while j > base and self._state_cache.get_lru(("raw", j)) is None:
            j -= 1
        if j == base:
            cached = self._state_cache.get_lru(("raw", j))
            value = cached[0] if cached is not None else self.finished_event(base).state
        else:
            value = self._state_cache.get_lru(("raw", j))[0]
        for n in range(j + 1, i + 1):
            finished = self.finished_event(n)
            if finished.full:
                value = finished.state
                continue
            try:
                value = apply_delta(value, finished.delta or [])
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                # Only a file edited by hand gets here: the recorder writes deltas against its own state.
                what = f"the state change on this line does not apply to the state before it ({exc!r})"
                if not self.lenient:
                    raise self._error(what, self._spans[n]) from None
                line_no = self._line_no(self._spans[n])
                warnings.warn(
                    f"{self.path}:{line_no}: {what}; the state is shown as it was before",
                    RunFileWarning,
                    stacklevel=2,
                )
        self._state_cache.put(("raw", i), (value,))
        return value

    def state_at(self, i: int) -> Any:
        """The state after step `i` (0-based position in `steps`), JSON-like, shared: do not mutate."""
        cached = self._state_cache.get_lru(("resolved", i))
        if cached is not None:
            return cached[0]
        value = self.resolve(self.raw_state_at(i))
        self._state_cache.put(("resolved", i), (value,))
        return value

    def value(self, ref: int) -> Any:
        """The stored value with id `ref` (a `value` line)."""
        if type(ref) is not int:  # a hand-edited marker: not an id at all
            return self._bad_marker(f"a value reference `{json.dumps(ref)}` is not a value id")
        cached = self._value_cache.get_lru(ref)
        if cached is not None:
            return cached[0]
        if not 0 <= ref < len(self._values):
            if self.lenient:
                warnings.warn(
                    f"{self.path}: value {ref} is referred to but not defined (a corrupt line was skipped)",
                    RunFileWarning,
                    stacklevel=2,
                )
                return {"$repr": f"<value {ref} lost: the file does not define it>", "$type": "lost"}
            raise self._error(f"reference to value {ref}, which the file does not define", None)
        offset = self._values[ref]
        raw = self._data[offset : self._line_end(offset)]
        try:
            obj = json.loads(raw)
            value = obj["value"]
        except (ValueError, KeyError, TypeError):
            if not self.lenient:
                raise self._error("a value line is corrupt", offset) from None
            if offset not in self._skipped:
                self._corrupt(offset, "is a corrupt value line")
            line_no = self._line_no(offset)
            value = {"$repr": f"<value {ref} lost: line {line_no} was corrupt>", "$type": "lost"}
            self._value_cache.put(ref, (value,))
            return value
        if b'"$$' in raw:
            value = self.resolve(value)
        self._value_cache.put(ref, (value,))
        return value

    def resolve(self, value: Any) -> Any:
        """`value` with every `{"$ref": n}` replaced by the stored value and escaped keys (`$$x`)
        given back their own name (`$x`)."""
        if type(value) is dict:
            if len(value) == 1:  # pyright: ignore[reportUnknownArgumentType]
                if "$ref" in value:
                    return self.value(value["$ref"])
                if "$refs" in value:
                    runs = value["$refs"]
                    if not _is_runs(runs):
                        return [self._bad_marker(f"a `$refs` marker `{json.dumps(runs)}` is malformed")]
                    return [self.value(i) for start, stop in runs for i in range(start, stop)]
            return {  # pyright: ignore[reportUnknownVariableType]
                (k[1:] if k[:2] == "$$" else k): self.resolve(v)  # pyright: ignore[reportUnknownArgumentType]
                for k, v in value.items()  # pyright: ignore[reportUnknownVariableType]
            }
        if type(value) is list:
            return [self.resolve(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
        return value

    def _bad_marker(self, what: str) -> Any:
        """A malformed `$ref`/`$refs` marker (the file was edited by hand): an error, or when lenient a
        warning and a marked placeholder in its place."""
        if not self.lenient:
            raise RunFileError(f"{what}; the file was changed after it was recorded", path=self.path)
        warnings.warn(f"{self.path}: {what}", RunFileWarning, stacklevel=3)
        return {"$repr": f"<{what}>", "$type": "lost"}

    def messages_at(self, i: int) -> list[Message]:
        """Messages in the state after step `i` (its `messages` key), as `Message` objects."""
        return to_messages(self.state_at(i))

    def close(self) -> None:
        """Release the file mapping of a large file (small files are held in memory)."""
        if isinstance(self._data, mmap.mmap):
            self._data.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}, status={self.status!r}, steps={len(self.steps)})"


def _is_runs(runs: Any) -> bool:
    """Whether a `$refs` payload is a list of `[start, stop]` integer pairs."""
    return type(runs) is list and all(
        type(pair) is list and len(pair) == 2 and type(pair[0]) is int and type(pair[1]) is int  # pyright: ignore[reportUnknownArgumentType]
        for pair in runs  # pyright: ignore[reportUnknownVariableType]
    )


def _highest_ref(value: Any) -> int:
    """The highest value id `value` refers to (`$ref`, `$refs`), or -1."""
    if isinstance(value, dict):
        highest = -1
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            if key == "$ref" and isinstance(item, int):
                highest = max(highest, item)
            elif key == "$refs" and isinstance(item, list):
                for pair in item:  # pyright: ignore[reportUnknownVariableType]
                    if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], int):  # pyright: ignore[reportUnknownArgumentType]
                        highest = max(highest, pair[1] - 1)
            else:
                highest = max(highest, _highest_ref(item))
        return highest
    if isinstance(value, list):
        return max((_highest_ref(item) for item in value), default=-1)  # pyright: ignore[reportUnknownVariableType]
    return -1


def to_messages(state: Any) -> list[Message]:
    """`Message` objects from a JSON-like state's `messages`/`Messages` list; [] if there is none."""
    if not isinstance(state, dict):
        return []
    raw = state.get("messages", state.get("Messages"))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(raw, list):
        return []
    out: list[Message] = []
    for item in raw:  # pyright: ignore[reportUnknownVariableType]
        if isinstance(item, dict) and "role" in item:
            try:
                out.append(Message.model_validate(item))
            except ValidationError:
                continue
    return out


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return str(exc)
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))


def read_run(path: str | Path, *, lenient: bool = False, check_limit: int = _CHECK_LIMIT) -> Run:
    """Open the run file at `path`.

    Raises `RunFileError` (a `ValueError`) when the file is missing, not a run file, of a newer format
    version, or corrupt in the middle (with `.line_no`). Files up to `check_limit` bytes have every line
    checked now; larger ones are checked as steps are read.
    """
    path = Path(path)
    try:
        with path.open("rb") as handle:
            size = path.stat().st_size
            if size <= check_limit or size == 0:
                data: bytes | mmap.mmap = handle.read()
            else:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        raise RunFileError("no such file", path=path) from None
    except IsADirectoryError:
        raise RunFileError("is a directory, not a run file", path=path) from None
    except OSError as exc:
        raise RunFileError(f"cannot be read: {exc.strerror or exc}", path=path) from None
    return Run(path, data, lenient=lenient, check_limit=check_limit)
