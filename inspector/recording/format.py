"""The run-file format: one JSON object per line, a header first, then a line per superstep.

Every line is one of the models below, told apart by `kind` (one discriminated union, `Event`): the
`header`, `value` lines (a message stored once, referred to as `{"$ref": id}`), one `step` line per
completed superstep (what ran with inputs and outputs, branch decisions, budget, state), a
`step_unfinished` line for the step a failed or interrupted run stopped in, `interrupted` and
`run_finished`, and a `segment` line where a resumed run continues an interrupted one in the same
file. A step's lines (the values it introduced, nested graphs' steps, then the step itself) are written
together at the step boundary and flushed, so a killed process leaves whole steps only.

The field order is part of the format: `kind` comes first, step lines carry `path` and then `full`
right after it, so a reader can index a large file by scanning line prefixes instead of parsing every
line (see `reader.py`). Fields at their defaults, and fields the reader can derive (a node's name
from the topology, a budget's step counts from the step index, a tool's arguments from its call), are
left out: a 1,000-round ReAct run's file stays within 3x the final state's JSON.

Values are JSON-like, as produced by `encode.py`. Keys starting with `$` mark what JSON cannot hold
(`$ref`, `$refs`, `$repr`, `$truncated`, `$call`, ...); a key of the recorded data that starts with `$`
is stored with one more `$` in front (`$$ref` for `$ref`) and read back without it. Step state is
stored as a full snapshot (`full: true`) or as changes against the previous step of the same graph
(`statediff.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from graph_core.topology import END, Topology

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "BranchDecided",
    "BudgetFields",
    "BudgetRecord",
    "ErrorRecord",
    "Event",
    "Header",
    "Interrupted",
    "NodeRunRecord",
    "RunAborted",
    "RunFinished",
    "SegmentStarted",
    "StateEdited",
    "StepRecord",
    "StepUnfinished",
    "ToolRunRecord",
    "ValueDefined",
    "branch_ends",
    "event_adapter",
    "line_adapter",
    "next_from_branches",
]

FORMAT_NAME = "graph-inspector-run"
FORMAT_VERSION = 2


def branch_ends(topology: Topology) -> dict[tuple[str, int], tuple[str, ...]]:
    """Each branch's possible targets, by (source, branch index), in the topology's order: a stored
    branch decision leaves out `skipped` when it is these minus the chosen ones."""
    ends: dict[tuple[str, int], tuple[str, ...]] = {}
    for edge in topology.edges:
        if edge.kind == "branch":
            key = (edge.source, edge.branch_index or 0)
            ends[key] = (*ends.get(key, ()), edge.target)
    return ends


def next_from_branches(branches: Sequence[Any]) -> list[str]:
    """The next step's nodes as the branch decisions imply them (chosen targets but END, in order): a
    step line leaves out `next_nodes` when they are exactly these."""
    out: list[str] = []
    for decision in branches:
        out.extend(t for t in decision.chosen if t != END and t not in out)
    return out


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BudgetRecord(_Record):
    """What a run has used so far. Step fields come from the engine; the rest are counted by the recorder.

    `steps_max`/`steps_remaining` are None in DAG mode. Token fields are None until a model reports usage;
    `iterations_remaining` is read from an agent's state (ADK `remaining_iterations`) when it has one.
    """

    steps_used: int
    steps_max: int | None = None
    steps_remaining: int | None = None
    model_calls: int = 0
    tool_calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    iterations_remaining: int | None = None


class ErrorRecord(_Record):
    """An exception, as text: its class name, message, the node path when the engine gave one, and cause."""

    type: str
    message: str
    node_path: list[str] | None = None
    cause_type: str | None = None
    cause_message: str | None = None


class Header(_Record):
    """First line of every run file."""

    kind: Literal["header"] = "header"
    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION
    run_id: str
    graph_name: str = ""
    started_at: str
    trigger_mode: str | None = None
    max_run_steps: int | None = None
    topology: Topology | None = None
    input: Any = None
    resumed_from: str | None = None
    meta: dict[str, Any] = Field(default_factory=lambda: {})


class ValueDefined(_Record):
    """A value stored once and referenced as `{"$ref": n}` from later lines (messages, mostly): values
    are numbered by their order in the file, from 0, and each is written before the first line using it."""

    kind: Literal["value"] = "value"
    value: Any


class BudgetFields(_Record):
    """A budget as stored: `BudgetRecord` with the step fields left out when they are what the step
    implies (`steps_used` = index + 1, `steps_max` = the header's `max_run_steps` at top level,
    `steps_remaining` = the difference), so a step line carries only the counters."""

    steps_used: int | None = None
    steps_max: int | None = None
    steps_remaining: int | None = None
    model_calls: int = 0
    tool_calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    iterations_remaining: int | None = None


class ToolRunRecord(_Record):
    """One tool call inside a ToolsNode execution.

    `input` is `{"$call": "arguments"}` when it is the arguments of the call with this ID in the
    ToolsNode's input message, and `output` `{"$call": "content"}` when it is the content of the tool
    message answering that call in the ToolsNode's output: stored once, not twice. `name` is left out
    when it is the call's. `t` is seconds after the ToolsNode run started.
    """

    tool_call_id: str | None = None
    name: str | None = None
    input: Any = None
    output: Any = None
    error: ErrorRecord | None = None
    t: float | None = None
    duration: float | None = None


class NodeRunRecord(_Record):
    """One execution of a node within a step. `name` and `component` are left out when they are the
    topology's; `t` is when it started, in seconds after its step started; `duration` is missing when
    it never finished (in a failed run's unfinished step)."""

    node: str
    name: str | None = None
    component: str | None = None
    input: Any = None
    output: Any = None
    error: ErrorRecord | None = None
    t: float | None = None
    duration: float | None = None
    tools: list[ToolRunRecord] = Field(default_factory=lambda: [])


class BranchDecided(_Record):
    """The branch `branch_index` on `source` chose `chosen` (and not `skipped`) after step `step`.

    Stored inside a step line without `path` and `step` (the step's), without `source` when the step
    ran that one node only, and without `skipped` when it is the branch's other end nodes in the
    topology; the reader fills them in."""

    path: list[str] = Field(default_factory=lambda: [])
    step: int = 0
    source: str = ""
    branch_index: int = 0
    chosen: list[str]
    skipped: list[str] | None = None


class StepRecord(_Record):
    """One complete superstep of the graph at `path`, written when it ends.

    What ran (`runs`, in node order; tool calls in call order), the branch decisions, the state after
    it (`full` snapshot in `state`, or `delta` ops against the previous step of the same graph), the
    budget after it (`budget_before` only when it is not the previous step's budget), what runs next
    (`next_nodes`, left out when it is what the branches chose). Top-level steps leave out `path`, and
    `full` is only written when true, so a top-level step line starts `{"kind":"step","index":` or
    `{"kind":"step","full":true,`. `t` is seconds since the run started.
    """

    kind: Literal["step"] = "step"
    path: list[str] = Field(default_factory=lambda: [])
    full: bool = False
    index: int
    nodes: list[str]
    t: float
    duration: float | None = None
    next_nodes: list[str] | None = None
    ended: bool = False
    budget: BudgetFields
    budget_before: BudgetFields | None = None
    runs: list[NodeRunRecord] = Field(default_factory=lambda: [])
    branches: list[BranchDecided] = Field(default_factory=lambda: [])
    errors: list[str] = Field(default_factory=lambda: [])
    interrupted: list[str] = Field(default_factory=lambda: [])
    state: Any = None
    delta: list[list[Any]] | None = None


class StepUnfinished(_Record):
    """A superstep that started and never finished: the run failed or was interrupted in it. `runs`
    holds what ran (or was still running) before that happened."""

    kind: Literal["step_unfinished"] = "step_unfinished"
    path: list[str] = Field(default_factory=lambda: [])
    index: int
    nodes: list[str]
    t: float
    budget: BudgetFields | None = None
    runs: list[NodeRunRecord] = Field(default_factory=lambda: [])


class Interrupted(_Record):
    """The run stopped at an interrupt; it can be resumed from a checkpoint (a new recording)."""

    kind: Literal["interrupted"] = "interrupted"
    before_nodes: list[str] = Field(default_factory=lambda: [])
    after_nodes: list[str] = Field(default_factory=lambda: [])
    rerun_nodes: list[str] = Field(default_factory=lambda: [])
    state: Any = None
    checkpoint_id: str | None = None
    t: float


class SegmentStarted(_Record):
    """A resumed run appended to the file of the run it continues (`Recorder(path, resume=True)`).

    Everything after this line, up to the next `segment` line, belongs to segment `index` (the first
    resume is 1; segment 0 is what follows the header): its steps (indexed from 0 again, as Eino's
    step counter restarts, budgets counted afresh), its `interrupted` and `run_finished` lines. Step
    times in the segment are seconds after `started_at`. `topology` (with `graph_name`,
    `trigger_mode` and `max_run_steps`, which then hold as written, None included) is written only
    when the resumed run's topology differs from what applied before; without it the reader carries
    the previous values forward. Value ids continue the file's numbering.
    """

    kind: Literal["segment"] = "segment"
    index: int
    resumed_from: str
    started_at: str
    graph_name: str | None = None
    trigger_mode: str | None = None
    max_run_steps: int | None = None
    topology: Topology | None = None
    input: Any = None
    meta: dict[str, Any] = Field(default_factory=lambda: {})


class RunFinished(_Record):
    """Last line of a complete run: `ok` with `output`, `error` with `error`, or `interrupted`."""

    kind: Literal["run_finished"] = "run_finished"
    status: Literal["ok", "error", "interrupted"]
    output: Any = None
    error: ErrorRecord | None = None
    t: float
    duration: float | None = None


class StateEdited(_Record):
    """A person changed the run under the debugger (`inspector debug`, `inspector fork --set`) at the
    boundary before step `step`: `path` (see docs/debugging.md) went from `old` to `new`. Values are
    encoded (and redacted) like step values. Readers that do not know the line skip it."""

    kind: Literal["edit"] = "edit"
    step: int
    path: str
    old: Any = None
    new: Any = None
    t: float | None = None


class RunAborted(_Record):
    """A person aborted the run under the debugger at the boundary before step `step`; the run's
    `run_finished` line follows (status `error`, error type `RunAborted`)."""

    kind: Literal["aborted"] = "aborted"
    step: int
    t: float | None = None


_EventKinds = (
    ValueDefined
    | StepRecord
    | StepUnfinished
    | Interrupted
    | RunFinished
    | SegmentStarted
    | StateEdited
    | RunAborted
)
"""Every kind of line after the header, listed once for both unions below."""

Event = Annotated[_EventKinds, Field(discriminator="kind")]
"""Any line after the header."""

Line = Annotated[Header | _EventKinds, Field(discriminator="kind")]

event_adapter: TypeAdapter[Any] = TypeAdapter(Event)
line_adapter: TypeAdapter[Any] = TypeAdapter(Line)
