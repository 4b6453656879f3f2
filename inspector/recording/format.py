"""The run-file format: one JSON object per line, a header first, then events in the order they happened.

Every line is one of the models below, told apart by `kind` (one discriminated union, `Event`). The
field order is part of the format: `kind` comes first and step events carry `path` (and `full` for
`step_finished`) right after it, so a reader can index a large file by scanning line prefixes instead of
parsing every line (see `reader.py`).

Values (node inputs and outputs, state) are JSON-like, as produced by `encode.py`. Two markers appear
inside them: `{"$ref": n}` points at a `value` line with `id` n (a message stored once however many
times a run mentions it), and keys starting with `$` mark representations of things JSON cannot hold
(`$repr`, `$truncated`, ...). Step state is stored as a full snapshot (`full: true`) or as changes
against the previous step of the same graph (`statediff.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from graph_core.topology import Topology

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "BranchDecided",
    "BudgetRecord",
    "ErrorRecord",
    "Event",
    "Header",
    "Interrupted",
    "NodeFailed",
    "NodeFinished",
    "NodeStarted",
    "RunFinished",
    "StepFinished",
    "StepStarted",
    "ValueDefined",
    "event_adapter",
    "line_adapter",
]

FORMAT_NAME = "graph-inspector-run"
FORMAT_VERSION = 1


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
    """A value stored once and referenced as `{"$ref": id}` from later lines (messages, mostly)."""

    kind: Literal["value"] = "value"
    id: int
    value: Any


class StepStarted(_Record):
    """A superstep of the graph at `path` is about to run `nodes`; `budget` is the budget before it."""

    kind: Literal["step_started"] = "step_started"
    path: list[str] = Field(default_factory=lambda: [])
    index: int
    nodes: list[str]
    budget: BudgetRecord
    t: float


class NodeStarted(_Record):
    """A node (or a tool inside a ToolsNode: `component` "Tool" with `tool_call_id`) started with `input`."""

    kind: Literal["node_started"] = "node_started"
    path: list[str]
    step: int | None = None
    node: str
    name: str = ""
    component: str = ""
    tool_call_id: str | None = None
    input: Any = None
    t: float


class NodeFinished(_Record):
    """It ended with `output` after `duration` seconds."""

    kind: Literal["node_finished"] = "node_finished"
    path: list[str]
    step: int | None = None
    node: str
    name: str = ""
    component: str = ""
    tool_call_id: str | None = None
    output: Any = None
    t: float
    duration: float | None = None


class NodeFailed(_Record):
    """It raised `error` after `duration` seconds."""

    kind: Literal["node_failed"] = "node_failed"
    path: list[str]
    step: int | None = None
    node: str
    name: str = ""
    component: str = ""
    tool_call_id: str | None = None
    error: ErrorRecord
    t: float
    duration: float | None = None


class BranchDecided(_Record):
    """The branch `branch_index` on `source` chose `chosen` (and not `skipped`) after step `step`."""

    kind: Literal["branch_decided"] = "branch_decided"
    path: list[str]
    step: int
    source: str
    branch_index: int = 0
    chosen: list[str]
    skipped: list[str] = Field(default_factory=lambda: [])


class StepFinished(_Record):
    """The step is over: state after it (`full` snapshot or `delta` ops), budget after it, what runs next."""

    kind: Literal["step_finished"] = "step_finished"
    path: list[str] = Field(default_factory=lambda: [])
    full: bool = False
    index: int
    nodes: list[str]
    next_nodes: list[str] = Field(default_factory=lambda: [])
    ended: bool = False
    budget: BudgetRecord
    state: Any = None
    delta: list[list[Any]] | None = None
    errors: list[str] = Field(default_factory=lambda: [])
    interrupted: list[str] = Field(default_factory=lambda: [])
    t: float
    duration: float | None = None


class Interrupted(_Record):
    """The run stopped at an interrupt; it can be resumed from a checkpoint (a new recording)."""

    kind: Literal["interrupted"] = "interrupted"
    before_nodes: list[str] = Field(default_factory=lambda: [])
    after_nodes: list[str] = Field(default_factory=lambda: [])
    rerun_nodes: list[str] = Field(default_factory=lambda: [])
    state: Any = None
    checkpoint_id: str | None = None
    t: float


class RunFinished(_Record):
    """Last line of a complete run: `ok` with `output`, `error` with `error`, or `interrupted`."""

    kind: Literal["run_finished"] = "run_finished"
    status: Literal["ok", "error", "interrupted"]
    output: Any = None
    error: ErrorRecord | None = None
    t: float
    duration: float | None = None


Event = Annotated[
    ValueDefined
    | StepStarted
    | NodeStarted
    | NodeFinished
    | NodeFailed
    | BranchDecided
    | StepFinished
    | Interrupted
    | RunFinished,
    Field(discriminator="kind"),
]
"""Any line after the header."""

Line = Annotated[
    Header
    | ValueDefined
    | StepStarted
    | NodeStarted
    | NodeFinished
    | NodeFailed
    | BranchDecided
    | StepFinished
    | Interrupted
    | RunFinished,
    Field(discriminator="kind"),
]

event_adapter: TypeAdapter[Any] = TypeAdapter(Event)
line_adapter: TypeAdapter[Any] = TypeAdapter(Line)
