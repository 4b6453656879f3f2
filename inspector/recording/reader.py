"""`read_run`: open a run file lazily and tolerantly, as a `Run`.

A `Run` is made of three parts, each in its own module: the file index (`fileindex`: lines found by
their prefixes, checked, parsed on demand), the value table (`values`: `value` lines by id, and
`resolve`), and state reconstruction (`states`: the state after a step from the nearest snapshot).
On top of them it puts back what step lines leave out (`elision`) and hands out the public model
(`model`: `Step`, `NodeRun`, `Segment`, ...).

Segments: a resumed run recorded into the file of the run it continues follows a `segment` line. The
reader joins the segments into one timeline: `steps` runs across them in file order (each step keeps
its `index` within its segment, which restarts at 0 as Eino's step counter does, and gains `segment`
and `position`), `segments` describes each one, and the run's status, output and error are the last
segment's. A file without `segment` lines is one segment; `segments` splits the file and checks the
order of steps within each.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any

from graph_core.schema import Message
from graph_core.topology import Topology
from inspector.recording.elision import (
    expand_branches,
    expand_budget,
    expand_budget_before,
    expand_node_names,
)
from inspector.recording.fileindex import (
    CHECK_LIMIT,
    LRU,
    STEP_CACHE,
    RunFile,
    RunFileWarning,
    open_run_file,
)
from inspector.recording.format import (
    BranchDecided,
    BudgetFields,
    BudgetRecord,
    ErrorRecord,
    Header,
    Interrupted,
    NodeRunRecord,
    StepRecord,
    StepUnfinished,
    branch_ends,
)
from inspector.recording.model import (
    NodeRun,
    RecordedNodeRun,
    RecordedToolRun,
    RunStatus,
    Segment,
    Step,
    Steps,
    TextCandidates,
    UnfinishedStep,
    to_messages,
)
from inspector.recording.segments import check_order, read_segments
from inspector.recording.statediff import Change
from inspector.recording.states import StateHistory
from inspector.recording.values import ValueTable

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


class Run:
    """A recorded run. `steps` is lazy; `state_at`/`resolve` rebuild JSON-like values on demand."""

    def __init__(
        self, path: Path, data: Any, *, lenient: bool = False, check_limit: int = CHECK_LIMIT
    ) -> None:
        self.path = path
        self.lenient = lenient
        self._file = file = RunFile(path, data, lenient=lenient, check_limit=check_limit)
        self._values = ValueTable(file)
        self._states = StateHistory(file, self._values)
        self._step_cache = LRU(STEP_CACHE)
        self._span_ends: list[int] | None = None
        self._branch_ends: dict[
            tuple[int | None, tuple[str, ...]], dict[tuple[str, int], tuple[str, ...]]
        ] = {}
        self._unfinished: dict[int, UnfinishedStep | None] = {}
        self._node_infos: dict[tuple[tuple[str, ...], int | None], tuple[str, str]] = {}
        self.skipped_lines = file.skipped_lines
        self.header: Header = file.header
        self.cut_off = file.cut_off
        self.topology: Topology | None = self.header.topology
        self.run_id = self.header.run_id
        self.graph_name = self.header.graph_name
        self.started_at = self.header.started_at
        self.segments: list[Segment] = read_segments(self, file)
        self._segment_starts = [segment.start for segment in self.segments]
        last = self.segments[-1]
        self.status: RunStatus = last.status
        self.output: Any = last.output
        self.error: ErrorRecord | None = last.error
        self.interrupt: Interrupted | None = last.interrupt
        self.duration: float | None = last.duration
        check_order(file, self.segments, path, lenient=lenient)
        self.steps = Steps(self)

    @property
    def step_count(self) -> int:
        return len(self._file.spans)

    @property
    def value_count(self) -> int:
        """How many `value` lines the file defines (a resumed segment's values are numbered after them)."""
        return len(self._values)

    # --- steps and segments ----------------------------------------------------------------------

    def segment_of(self, position: int) -> int:
        """The index of the segment holding step `position`."""
        starts = self._segment_starts
        if len(starts) == 1:  # (the usual run: never resumed)
            return 0
        return max(bisect.bisect_right(starts, position) - 1, 0)

    def _span_start(self, i: int) -> int:
        file = self._file
        segment = self.segments[self.segment_of(i)]
        if i == segment.start:  # nothing before a segment's line belongs to its first step
            return file.line_end(segment.head) + 1
        return file.line_end(file.spans[i - 1]) + 1

    def step(self, i: int) -> Step:
        steps = self._step_cache
        cached = steps.get(i)  # (`get_lru` inline: a walk asks for each step a few times)
        if cached is not None:
            steps.move_to_end(i)
            return cached
        step = Step(self, i, self._file.step_line(i), self.segment_of(i))
        self._step_cache.put(i, step)
        return step

    def nested_steps(self, i: int) -> list[StepRecord]:
        """The step lines of nested graphs written with top-level step `i` (before its own line)."""
        file = self._file
        if not file.nested:
            return []
        return [e for e in file.nested_in(self._span_start(i), file.spans[i]) if isinstance(e, StepRecord)]

    def finished_event(self, i: int) -> StepRecord:
        """Step `i`'s line alone (nodes, stored budget, state payload): cheaper than `steps[i]`."""
        return self._file.step_line(i)

    # --- what step lines leave out, put back ----------------------------------------------------

    def _implied_max(self, segment: int | None) -> int | None:
        return self.header.max_run_steps if segment is None else self.segments[segment].max_run_steps

    def budget_of(self, record: StepRecord | StepUnfinished, *, segment: int | None = None) -> BudgetRecord:
        """The budget after a step, its step counts filled in from the index where they were left out
        (against the step limit of `segment`; the header's when None)."""
        stored = record.budget or BudgetFields()
        used = record.index + 1 if isinstance(record, StepRecord) else record.index
        return expand_budget(stored, used, None if record.path else self._implied_max(segment))

    def budget_at(self, i: int) -> BudgetRecord:
        """The budget after step `i` (reads only that step's line)."""
        return self.budget_of(self.finished_event(i), segment=self.segment_of(i))

    def budget_before(self, i: int) -> BudgetRecord:
        """The budget before step `i`: as stored, else the previous step's counters (none for the first
        step of a segment: a resumed run counts afresh)."""
        record = self.finished_event(i)
        segment = self.segment_of(i)
        first = i == self.segments[segment].start
        previous = self.finished_event(i - 1).budget if i > 0 and not first else None
        return expand_budget_before(record.budget_before, previous, record.index, self._implied_max(segment))

    def _topology_of(self, segment: int | None) -> Topology | None:
        return self.topology if segment is None else self.segments[segment].topology

    def _ends(
        self, path: tuple[str, ...], segment: int | None = None
    ) -> dict[tuple[str, int], tuple[str, ...]]:
        key = (segment, path)  # (by segment, not by its topology: asked for at every step)
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
        """Branch decisions with `path`, `step` and (when left out) `source` and `skipped` filled in."""
        ends = self._ends(tuple(record.path), segment) if record.branches else {}
        return expand_branches(record.branches, record.path, record.index, record.nodes, ends)

    def _node_info(self, path: tuple[str, ...], segment: int | None = None) -> tuple[str, str]:
        """A node's name and kind from the topology (nested graphs included), ("", "") if unknown."""
        key = (path, segment)
        known = self._node_infos.get(key)
        if known is None:
            known = self._node_infos[key] = self._find_node(path, segment)
        return known

    def _find_node(self, path: tuple[str, ...], segment: int | None) -> tuple[str, str]:
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
        self, path: tuple[str, ...], record: NodeRunRecord, base: float, segment: int | None
    ) -> NodeRun:
        node_path = (*path, record.node)
        name, component = record.name, record.component
        if name is None or component is None:
            name, component = expand_node_names(name, component, self._node_info(node_path, segment))
        values = self._values
        if not self.lenient:  # a hand-edited marker is reported here, as when values were resolved here
            values.check(record.input)
            values.check(record.output)
        resolve = values.resolve  # (`Run.resolve` itself, without the call that forwards to it)
        run = RecordedNodeRun(resolve, record, node_path, name, component, base)
        if record.tools:
            run.tools = [RecordedToolRun(resolve, run, tool) for tool in record.tools]
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
        file = self._file
        after = file.spans[segment.stop - 1] if segment.stop > segment.start else segment.head
        events = file.nested_in(file.line_end(after) + 1, segment.end)
        top = next((e for e in events if isinstance(e, StepUnfinished) and not e.path), None)
        if top is None:
            return None
        k = segment.index
        runs = self.node_runs_of(top, segment=k)
        for event in events:
            if event is not top and isinstance(event, StepRecord | StepUnfinished):
                runs.extend(self.node_runs_of(event, segment=k))
        before = expand_budget(top.budget or BudgetFields(), top.index, segment.max_run_steps)
        return UnfinishedStep(top, runs, before, k)

    # --- search, states and values --------------------------------------------------------------

    def text_candidates(self, text: str) -> TextCandidates | None:
        """Which steps could mention `text` (any ASCII case), found by scanning the raw file once, not
        by parsing steps; None when `text` cannot be searched as raw bytes (non-ASCII, quotes,
        backslashes or control characters, which the file may hold escaped)."""
        if not text or not text.isascii() or any(c in '"\\' or ord(c) < 32 for c in text):
            return None
        file = self._file
        if self._span_ends is None:
            self._span_ends = [file.line_end(offset) for offset in file.spans]
        ends = self._span_ends
        data = file.data
        steps: set[int] = set()
        first_value: int | None = None
        pattern = re.compile(re.escape(text.encode()), re.IGNORECASE)
        for match in pattern.finditer(data, 0, file.end):  # pyright: ignore[reportCallIssue, reportArgumentType]
            at = match.start()
            position = bisect.bisect_left(ends, at)
            steps.add(position)
            if first_value is None:
                line = data.rfind(b"\n", 0, at) + 1
                if data[line : line + 15] == b'{"kind":"value"':
                    first_value = position
        return TextCandidates(frozenset(steps), first_value, frozenset(file.full))

    def lines_starting(self, start: bytes) -> list[bytes]:
        """The lines after the header that start with `start` (such as `b'{"kind":"edit"'`), in file
        order, found at C speed in the bytes read at open: never the file read again, nor a line written
        since, nor one skipped as corrupt (`lenient`). Complete lines only."""
        file = self._file
        found = file.find_all(b"\n" + start, file.end)
        return [file.raw_line(offset) for offset in found if offset not in file.skipped]

    def raw_state_at(self, i: int) -> Any:
        """The state after step `i` as stored (messages still `{"$ref": n}`)."""
        return self._states.raw_state_at(i)

    def state_at(self, i: int) -> Any:
        """The state after step `i` (0-based position in `steps`), shared: do not mutate. A message
        history in it is a `ValueList`, a read-only view that reads only the messages looked at
        (`Step.state` is the same state with plain lists, for `json.dumps`)."""
        return self._states.state_at(i)

    def state_changes(self, a: int, b: int) -> list[Change]:
        """What changed in state from after step `a` (-1: before the run) to after step `b`: the same
        as `statediff.changes(state_at(a), state_at(b))`, worked out on the stored states, so it costs
        what changed rather than the size of the state (see `states`)."""
        return self._states.changes_between(a, b)

    def value(self, ref: int) -> Any:
        """The stored value with id `ref` (a `value` line)."""
        return self._values.value(ref)

    def resolve(self, value: Any) -> Any:
        """`value` with every `{"$ref": n}` replaced by the stored value, every `{"$refs": runs}` by a
        `ValueList` view of the stored values, and escaped keys (`$$x`) given back their own name."""
        return self._values.resolve(value)

    def messages_at(self, i: int) -> list[Message]:
        """Messages in the state after step `i` (its `messages` key), as `Message` objects."""
        return to_messages(self.state_at(i))

    def close(self) -> None:
        """Release the file mapping of a large file (small files are held in memory)."""
        self._file.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}, status={self.status!r}, steps={len(self.steps)})"


def read_run(path: str | Path, *, lenient: bool = False, check_limit: int = CHECK_LIMIT) -> Run:
    """Open the run file at `path`.

    Raises `RunFileError` (a `ValueError`) when the file is missing, not a regular file, not a run file,
    of a newer format version, or corrupt in the middle (with `.line_no`). Files up to `check_limit`
    bytes have every line checked now; larger ones are checked as steps are read.
    """
    path = Path(path)
    return Run(path, open_run_file(path, check_limit), lenient=lenient, check_limit=check_limit)
