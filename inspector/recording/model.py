"""The public model of a recorded run: `Step`, `NodeRun`, `Segment`, `UnfinishedStep` and friends.

These are views: a `Step` parses its own line when made and asks its `Run` for what lies elsewhere in
the file (its state, its node runs' values, the budget before it), so a long run costs only what is
read of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar, overload

from pydantic import ValidationError

from graph_core.schema import Message
from graph_core.topology import Topology
from inspector.recording.elision import (
    CALL_ARGUMENTS,
    CALL_CONTENT,
    call_content,
    call_field,
    expand_next_nodes,
    expand_tool_call,
    expand_tool_name,
)
from inspector.recording.format import (
    BranchDecided,
    BudgetRecord,
    ErrorRecord,
    Interrupted,
    NodeRunRecord,
    StepRecord,
    StepUnfinished,
    ToolRunRecord,
)
from inspector.recording.valuelist import plain

__all__ = [
    "NodeRun",
    "RunSource",
    "RunStatus",
    "Segment",
    "Step",
    "Steps",
    "TextCandidates",
    "UnfinishedStep",
    "to_messages",
]

RunStatus = Literal["ok", "error", "interrupted", "incomplete"]
_Owner = TypeVar("_Owner")


class RunSource(Protocol):
    """What the views here ask of the run they belong to (`reader.Run` is one): the model knows the
    questions, never the reader that answers them, so it can be read and tested on its own."""

    @property
    def step_count(self) -> int: ...

    def step(self, i: int) -> Step: ...

    def nested_steps(self, i: int) -> list[StepRecord]: ...

    def budget_of(
        self, record: StepRecord | StepUnfinished, *, segment: int | None = None
    ) -> BudgetRecord: ...

    def budget_before(self, i: int) -> BudgetRecord: ...

    def branches_of(self, record: StepRecord, *, segment: int | None = None) -> list[BranchDecided]: ...

    def node_runs_of(
        self, record: StepRecord | StepUnfinished, *, segment: int | None = None
    ) -> list[NodeRun]: ...

    def unfinished_of(self, segment: int) -> UnfinishedStep | None: ...

    def state_at(self, i: int) -> Any: ...

    def resolve(self, value: Any) -> Any: ...


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


class _OnFirstRead(Generic[_Owner]):
    """A recorded node run's value (`input`, `output`), worked out by `make` when first read: walking a
    run's steps for their tool results or errors (`show`, `diagnose`, `diff`) does not rebuild every
    model call's message history. The value is then set on the instance under the same name, which a
    descriptor without `__set__` gives way to: later reads, and assignments, never come here
    (`functools.cached_property` without the lock it takes in Python 3.11). It is set with `setattr`,
    not through `__dict__`: asking for an instance's `__dict__` makes Python 3.11 give up the compact
    attribute storage it keeps for instances of a class, and every later attribute read on that node
    run goes the slow way (3.7k instructions a step of `show`)."""

    def __init__(self, make: Callable[[_Owner], Any]) -> None:
        self._make = make
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, run: _Owner | None, owner: type | None = None) -> Any:
        if run is None:
            return self
        value = self._make(run)
        setattr(run, self._name, value)
        return value


class RecordedNodeRun(NodeRun):
    """A `NodeRun` read from a run file: its `input` and `output` are resolved, and its times worked
    out, when first read, so walking a run's steps for their tool results or errors (`show`,
    `diagnose`, `diff`) does not rebuild every model call's message history. Made for each node run of
    every step read, so it sets its fields itself rather than through the dataclass's `__init__`."""

    def __init__(
        self,
        resolve: Callable[[Any], Any],
        record: NodeRunRecord,
        path: tuple[str, ...],
        name: str,
        component: str,
        base: float,
    ) -> None:
        self.node = record.node
        self.path = path
        self.name = name
        self.component = component
        self.tool_call_id = None
        self.error = record.error
        self.duration = record.duration
        self.tools = []
        self._resolve = resolve
        self._record = record
        self._base = base

    input = _OnFirstRead["RecordedNodeRun"](lambda run: run._resolve(run._record.input))  # pyright: ignore[reportAssignmentType, reportIncompatibleVariableOverride]
    output = _OnFirstRead["RecordedNodeRun"](lambda run: run._resolve(run._record.output))  # pyright: ignore[reportAssignmentType, reportIncompatibleVariableOverride]

    @property
    def started(self) -> float | None:  # pyright: ignore[reportIncompatibleVariableOverride]
        """Seconds after the run started (its step's time plus its own offset)."""
        return end_time(self._base, self._record.t)

    @property
    def finished(self) -> float | None:  # pyright: ignore[reportIncompatibleVariableOverride]
        return end_time(self.started, self.duration)


class RecordedToolRun(NodeRun):
    """One tool call of a ToolsNode run read from a run file. Its name, arguments and result are put
    back from the ToolsNode run's messages where the line left them out (`elision`), when first read:
    `show` reads a tool's result and name, not its arguments.

    It keeps its ToolsNode run's line, not the ToolsNode run itself, which lists it in `tools`: a
    reference back would make every tool step a reference cycle, which only the cycle collector frees,
    and reading a long run then leaves garbage behind at every step (`show` reads with the collector
    off, since the read path leaves none)."""

    def __init__(self, resolve: Callable[[Any], Any], run: RecordedNodeRun, record: ToolRunRecord) -> None:
        self.node = run.node
        self.path = run.path
        self.component = "Tool"
        self.tool_call_id = record.tool_call_id
        self.error = record.error
        self.duration = record.duration
        self.tools = []
        self._resolve = resolve
        self._parent = run._record  # pyright: ignore[reportPrivateUsage]
        self._parent_base = run._base  # pyright: ignore[reportPrivateUsage]
        self._record = record
        self._name: str | None = record.name

    @property
    def name(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        name = self._name
        if name is None:  # the usual tool run: its call's
            name = self._name = expand_tool_name(None, self._resolve(self._parent.input), self.tool_call_id)
        return name

    @name.setter
    def name(self, value: str) -> None:  # pyright: ignore[reportIncompatibleVariableOverride]
        self._name = value

    input = _OnFirstRead["RecordedToolRun"](  # pyright: ignore[reportAssignmentType, reportIncompatibleVariableOverride]
        lambda tool: expand_tool_call(
            tool._record.input,
            CALL_ARGUMENTS,
            lambda: call_field(tool._resolve(tool._parent.input), tool.tool_call_id, "arguments"),
            tool._resolve,
        )
    )
    output = _OnFirstRead["RecordedToolRun"](  # pyright: ignore[reportAssignmentType, reportIncompatibleVariableOverride]
        lambda tool: expand_tool_call(
            tool._record.output,
            CALL_CONTENT,
            lambda: call_content(tool._resolve(tool._parent.output), tool.tool_call_id),
            tool._resolve,
        )
    )

    @property
    def started(self) -> float | None:  # pyright: ignore[reportIncompatibleVariableOverride]
        """Seconds after the run started (its ToolsNode run's start plus its own offset)."""
        return end_time(end_time(self._parent_base, self._parent.t), self._record.t)

    @property
    def finished(self) -> float | None:  # pyright: ignore[reportIncompatibleVariableOverride]
        return end_time(self.started, self.duration)


def end_time(t: float | None, duration: float | None) -> float | None:
    """When something that started at `t` and took `duration` ended (None if either is unknown),
    rounded to the microsecond as the file stores times."""
    return None if t is None or duration is None else round(t + duration, 6)


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
        run: RunSource,
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
    `position` its place in `run.steps`, `segment` the index of the segment it belongs to.

    What the step line leaves out (`budget`'s step counts, the branches' `source` and `skipped`,
    `next_nodes`) and the nested graphs' step lines (`nested`) are put back when first read: a walk
    over a long run that looks at a few facts of each step pays for those only."""

    def __init__(self, run: RunSource, position: int, record: StepRecord, segment: int = 0) -> None:
        self._run = run
        self.position = position
        self.segment = segment
        self.record = record
        self.finished = record
        self.index: int = record.index
        self.nodes: tuple[str, ...] = tuple(record.nodes)
        self.ended: bool = record.ended
        self.t: float = record.t
        self.duration: float | None = record.duration
        self.errors: tuple[str, ...] = tuple(record.errors)
        self.interrupted: tuple[str, ...] = tuple(record.interrupted)
        self._node_runs: list[NodeRun] | None = None
        self._budget: BudgetRecord | None = None
        self._branches: list[BranchDecided] | None = None
        self._nested: list[StepRecord] | None = None

    # Each put back when first read (a plain check, not `functools.cached_property`, which in Python
    # 3.11 takes a lock on every first read: a walk over a long run reads these for every step).

    @property
    def budget(self) -> BudgetRecord:
        """The budget after this step."""
        budget = self._budget
        if budget is None:
            budget = self._budget = self._run.budget_of(self.record, segment=self.segment)
        return budget

    @property
    def branches(self) -> list[BranchDecided]:
        """The branch decisions made after this step, in the order they were made."""
        branches = self._branches
        if branches is None:
            branches = self._branches = self._run.branches_of(self.record, segment=self.segment)
        return branches

    @property
    def next_nodes(self) -> tuple[str, ...]:
        """The nodes the next step runs."""
        return tuple(expand_next_nodes(self.record.next_nodes, self.record.branches))

    @property
    def nested(self) -> list[StepRecord]:
        """The step lines of nested graphs that ran inside this step, in file order."""
        nested = self._nested
        if nested is None:
            nested = self._nested = self._run.nested_steps(self.position)
        return nested

    def __repr__(self) -> str:
        where = f", segment={self.segment}, position={self.position}" if self.segment else ""
        return f"Step(index={self.index}, nodes={list(self.nodes)}{where})"

    @property
    def budget_before(self) -> BudgetRecord:
        """The budget before this step (stored only when it is not the previous step's budget)."""
        return self._run.budget_before(self.position)

    @property
    def state(self) -> Any:
        """The state after this step (JSON-like; None for graphs without state). Treat it as read-only.
        Its lists are plain `list`s (`json.dumps` takes it); `run.state_at(position)` is the same state
        with histories as `ValueList` views, which read only what is looked at."""
        return plain(self._run.state_at(self.position))

    @property
    def node_runs(self) -> list[NodeRun]:
        """Per-node executions of this step in node order, then nested graphs' (longer paths)."""
        if self._node_runs is None:
            runs = self._run.node_runs_of(self.record, segment=self.segment)
            for record in self.nested:
                runs.extend(self._run.node_runs_of(record, segment=self.segment))
            self._node_runs = runs
        return self._node_runs

    def nested_parts(self) -> list[tuple[StepRecord, BudgetRecord, list[NodeRun]]]:
        """Each nested graph's step that ran inside this step (a graph node's, or the run of an agent
        used as a tool, under its tool call's path), in file order, with its own budget and node runs."""
        run, segment = self._run, self.segment
        return [
            (record, run.budget_of(record, segment=segment), run.node_runs_of(record, segment=segment))
            for record in self.nested
        ]

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

    def __init__(self, run: RunSource) -> None:
        self._run = run

    def __len__(self) -> int:
        return self._run.step_count

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


def to_messages(state: Any) -> list[Message]:
    """`Message` objects from a JSON-like state's `messages`/`Messages` list; [] if there is none."""
    if not isinstance(state, dict):
        return []
    raw = state.get("messages", state.get("Messages"))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return []
    out: list[Message] = []
    for item in raw:  # pyright: ignore[reportUnknownVariableType]
        if isinstance(item, dict) and "role" in item:
            try:
                out.append(Message.model_validate(item))
            except ValidationError:
                continue
    return out
