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

The records are `msgspec` structs, not pydantic models: a long run's reader decodes a step line, with
its node runs, tool runs, budget and branches, for every step it shows, and msgspec decodes and checks
one in a quarter of pydantic's time and makes records that cost less to create and to free (see
docs/performance.md). A `Topology` (graph_core's pydantic model) inside a header or segment line is
still checked by pydantic, through the decoders' hook. What JSON the fast parser refuses but
`json.loads` reads (a lone surrogate escape, NaN) is parsed by `json.loads` and then checked the same
way, so a line's meaning does not depend on the parser.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import msgspec
from msgspec import Struct
from pydantic import ValidationError as _PydanticError

from graph_core.topology import END, Topology

__all__ = [
    "EVENT_KINDS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "BranchDecided",
    "BudgetFields",
    "BudgetRecord",
    "ErrorRecord",
    "Event",
    "Header",
    "Interrupted",
    "InvalidLine",
    "Line",
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
    "decode_event",
    "decode_line",
    "event_from",
    "header_from",
    "line_from",
    "line_schema",
    "message_problem",
    "next_from_branches",
    "record_dict",
    "replace",
]

FORMAT_NAME = "graph-inspector-run"
FORMAT_VERSION = 2

InvalidLine = msgspec.ValidationError
"""A line that is JSON but not a valid record (a `ValueError`); its text ends in `- at `$.path``."""


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


class _Record(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """Records are immutable, made by keyword, refuse fields they do not know, and are left out of the
    cycle collector: they are decoded from JSON, which cannot make a cycle, and a long run's reader
    makes several a step (a collector pass would traverse every one kept). Subclasses inherit the
    rest but say `frozen` again (type checkers want it said) and `kw_only` (msgspec applies it to a
    class's own fields)."""


class _Line(_Record, frozen=True, tag_field="kind"):
    """A whole line: its `kind` is the tag that tells the union's members apart."""

    @property
    def kind(self) -> str:
        return self.__struct_config__.tag  # pyright: ignore[reportReturnType]


class BudgetRecord(_Record, frozen=True, kw_only=True):
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


class ErrorRecord(_Record, frozen=True, kw_only=True):
    """An exception, as text: its class name, message, the node path when the engine gave one, and cause."""

    type: str
    message: str
    node_path: list[str] | None = None
    cause_type: str | None = None
    cause_message: str | None = None


class Header(_Line, frozen=True, kw_only=True, tag="header"):
    """First line of every run file."""

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
    meta: dict[str, Any] = {}


class ValueDefined(_Line, frozen=True, kw_only=True, tag="value"):
    """A value stored once and referenced as `{"$ref": n}` from later lines (messages, mostly): values
    are numbered by their order in the file, from 0, and each is written before the first line using it."""

    value: Any


class BudgetFields(_Record, frozen=True, kw_only=True):
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


class ToolRunRecord(_Record, frozen=True, kw_only=True):
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


class NodeRunRecord(_Record, frozen=True, kw_only=True):
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
    tools: list[ToolRunRecord] = []


class BranchDecided(_Record, frozen=True, kw_only=True):
    """The branch `branch_index` on `source` chose `chosen` (and not `skipped`) after step `step`.

    Stored inside a step line without `path` and `step` (the step's), without `source` when the step
    ran that one node only, and without `skipped` when it is the branch's other end nodes in the
    topology; the reader fills them in."""

    path: list[str] = []
    step: int = 0
    source: str = ""
    branch_index: int = 0
    chosen: list[str]
    skipped: list[str] | None = None


class StepRecord(_Line, frozen=True, kw_only=True, tag="step"):
    """One complete superstep of the graph at `path`, written when it ends.

    What ran (`runs`, in node order; tool calls in call order), the branch decisions, the state after
    it (`full` snapshot in `state`, or `delta` ops against the previous step of the same graph), the
    budget after it (`budget_before` only when it is not the previous step's budget), what runs next
    (`next_nodes`, left out when it is what the branches chose). Top-level steps leave out `path`, and
    `full` is only written when true, so a top-level step line starts `{"kind":"step","index":` or
    `{"kind":"step","full":true,`. `t` is seconds since the run started.
    """

    path: list[str] = []
    full: bool = False
    index: int
    nodes: list[str]
    t: float
    duration: float | None = None
    next_nodes: list[str] | None = None
    ended: bool = False
    budget: BudgetFields
    budget_before: BudgetFields | None = None
    runs: list[NodeRunRecord] = []
    branches: list[BranchDecided] = []
    errors: list[str] = []
    interrupted: list[str] = []
    state: Any = None
    delta: list[list[Any]] | None = None


class StepUnfinished(_Line, frozen=True, kw_only=True, tag="step_unfinished"):
    """A superstep that started and never finished: the run failed or was interrupted in it. `runs`
    holds what ran (or was still running) before that happened."""

    path: list[str] = []
    index: int
    nodes: list[str]
    t: float
    budget: BudgetFields | None = None
    runs: list[NodeRunRecord] = []


class Interrupted(_Line, frozen=True, kw_only=True, tag="interrupted"):
    """The run stopped at an interrupt; it can be resumed from a checkpoint (a new recording)."""

    before_nodes: list[str] = []
    after_nodes: list[str] = []
    rerun_nodes: list[str] = []
    state: Any = None
    checkpoint_id: str | None = None
    t: float


class SegmentStarted(_Line, frozen=True, kw_only=True, tag="segment"):
    """A resumed run appended to the file of the run it continues (`Recorder(path, resume=True)`).

    Everything after this line, up to the next `segment` line, belongs to segment `index` (the first
    resume is 1; segment 0 is what follows the header): its steps (indexed from 0 again, as Eino's
    step counter restarts, budgets counted afresh), its `interrupted` and `run_finished` lines. Step
    times in the segment are seconds after `started_at`. `topology` (with `graph_name`,
    `trigger_mode` and `max_run_steps`, which then hold as written, None included) is written only
    when the resumed run's topology differs from what applied before; without it the reader carries
    the previous values forward. Value ids continue the file's numbering.
    """

    index: int
    resumed_from: str
    started_at: str
    graph_name: str | None = None
    trigger_mode: str | None = None
    max_run_steps: int | None = None
    topology: Topology | None = None
    input: Any = None
    meta: dict[str, Any] = {}


class RunFinished(_Line, frozen=True, kw_only=True, tag="run_finished"):
    """Last line of a complete run: `ok` with `output`, `error` with `error`, or `interrupted`."""

    status: Literal["ok", "error", "interrupted"]
    output: Any = None
    error: ErrorRecord | None = None
    t: float
    duration: float | None = None


class StateEdited(_Line, frozen=True, kw_only=True, tag="edit"):
    """A person changed the run under the debugger (`inspector debug`, `inspector fork --set`) at the
    boundary before step `step`: `path` (see docs/debugging.md) went from `old` to `new`. Values are
    encoded (and redacted) like step values. Readers that do not know the line skip it."""

    step: int
    path: str
    old: Any = None
    new: Any = None
    t: float | None = None


class RunAborted(_Line, frozen=True, kw_only=True, tag="aborted"):
    """A person aborted the run under the debugger at the boundary before step `step`; the run's
    `run_finished` line follows (status `error`, error type `RunAborted`)."""

    step: int
    t: float | None = None


Event = (
    ValueDefined
    | StepRecord
    | StepUnfinished
    | Interrupted
    | RunFinished
    | SegmentStarted
    | StateEdited
    | RunAborted
)
"""Any line after the header, told apart by `kind`."""

Line = Header | Event
"""Any line: the header or an event."""

EVENT_KINDS: tuple[str, ...] = tuple(
    str(kind.__struct_config__.tag)
    for kind in (
        ValueDefined,
        StepRecord,
        StepUnfinished,
        Interrupted,
        RunFinished,
        SegmentStarted,
        StateEdited,
        RunAborted,
    )
)
"""The `kind`s a line after the header may have (`Event`'s tags)."""


def _from_builtin(kind: type, obj: Any) -> Any:
    """The decoders' hook for what msgspec does not know: a `Topology`, checked by pydantic, whose
    first error is reported as msgspec reports its own (`where: what`)."""
    if kind is Topology:
        try:
            return Topology.model_validate(obj)
        except _PydanticError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            raise ValueError(f"{where}: {first.get('msg', '')}" if where else first.get("msg", "")) from None
    raise NotImplementedError(f"no decoder for {kind!r}")


_events = msgspec.json.Decoder(Event, dec_hook=_from_builtin)
_lines = msgspec.json.Decoder(Line, dec_hook=_from_builtin)


def _decode(decoder: msgspec.json.Decoder[Any], kind: Any, raw: bytes) -> Any:
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError:  # JSON msgspec refuses: read as `json.loads` reads it, or fail as it does
        return msgspec.convert(json.loads(raw), kind, dec_hook=_from_builtin)


def decode_event(raw: bytes) -> Any:
    """The event on one line after the header. Raises `InvalidLine` for JSON that is no valid event,
    `ValueError` (`json.JSONDecodeError`) for what is not JSON."""
    return _decode(_events, Event, raw)


def decode_line(raw: bytes) -> Any:
    """Any line, the header included (as `decode_event`)."""
    return _decode(_lines, Line, raw)


def message_problem(value: Any) -> str | None:
    """What makes a `value` line's value no message the recorder could have written, or None: its
    `tool_calls`, when it has them, must be a list of objects (the conversation and the tool-call
    columns read each as one), and so must its multi-part content (`user_input_multi_content`).
    Checked when a value is first read: one lookup for the usual message."""
    if type(value) is not dict:
        return None
    parts = value.get("user_input_multi_content")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if parts is not None and (type(parts) is not list or any(type(p) is not dict for p in parts)):  # pyright: ignore[reportUnknownVariableType]
        return "a message's `user_input_multi_content` is not a list of part objects"
    calls = value.get("tool_calls")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if calls is None:
        return None
    if type(calls) is not list:
        return f"a message's `tool_calls` is a {type(calls).__name__}, not a list of tool calls"  # pyright: ignore[reportUnknownArgumentType]
    for i, call in enumerate(calls):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        if type(call) is not dict:
            return f"a message's `tool_calls[{i}]` is {json.dumps(call)[:40]}, not a tool call object"
    return None


def event_from(obj: Any) -> Any:
    """`decode_event` for a line already parsed as JSON."""
    return msgspec.convert(obj, Event, dec_hook=_from_builtin)


def line_from(obj: Any) -> Any:
    """`decode_line` for a line already parsed as JSON."""
    return msgspec.convert(obj, Line, dec_hook=_from_builtin)


def header_from(obj: Any) -> Header:
    """The header, from its line parsed as JSON."""
    return msgspec.convert(obj, Header, dec_hook=_from_builtin)


def record_dict(record: Struct, *, exclude: Sequence[str] = ()) -> dict[str, Any]:
    """A record's fields as a dict, every field included (nested records as dicts), `exclude` left out."""
    out = msgspec.to_builtins(record, enc_hook=_to_builtin)
    if isinstance(record, _Line):
        del out["kind"]
    return {k: v for k, v in out.items() if k not in exclude}


def _to_builtin(value: Any) -> Any:
    if isinstance(value, Topology):
        return value.model_dump(mode="json")
    raise NotImplementedError(f"no encoder for {type(value).__name__}")


replace = msgspec.structs.replace
"""A record with some fields changed (records are immutable)."""


def line_schema() -> dict[str, Any]:
    """JSON Schema for one line (the header or any event), `Topology` as pydantic describes it."""
    return msgspec.json.schema(Line, schema_hook=_schema_of)


def _schema_of(kind: type) -> dict[str, Any]:
    if kind is Topology:
        return Topology.model_json_schema(ref_template="#/$defs/{model}")
    raise NotImplementedError(f"no schema for {kind!r}")
