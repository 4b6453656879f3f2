"""What the runner tells observers: node and graph lifecycles, and superstep boundaries with budgets.

This is the inspector's only source of facts about a run. A callback is any object with any subset of
the methods of `CallbackHandler`; the runner looks methods up once per run and calls only those that
exist, so an observer pays nothing for timings it does not care about.

Order per node task (Eino's): state pre-handler -> `on_start` -> component -> `on_end`/`on_error` ->
state post-handler. `on_start` runs over handlers in reverse registration order, `on_end`/`on_error` in
registration order. Graph `on_start` fires after the per-run state exists, before any node; graph
`on_end`/`on_error` fire last. Passthrough nodes fire no node callbacks.

Step events are a graph_core addition (Eino has none): `on_step_start` before the step's tasks are
submitted (with the budget before the step) and `on_step_end` after every task of the step completed and
the next tasks were computed (with branch decisions, the live state object, and the budget after). The
runner calls step callbacks between tasks, so reading `state` there needs no lock; an observer that keeps
it must copy it, because the next step mutates the same object.

Callbacks are passed per call (`invoke(..., callbacks=[...])`) and apply to nested graphs recursively;
`RunInfo.path` and `StepInfo.path` tell the nesting apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Boundary", "BranchDecision", "Budget", "CallbackHandler", "RunInfo", "StepInfo"]


@dataclass(frozen=True, slots=True)
class RunInfo:
    """Who is starting or ending.

    For a node: `node_key` is its key, `name` its display name (may be ""), `kind` its component string
    (`Lambda`, `ChatModel`, `ToolsNode`, `Graph`, `Passthrough`, `Tool` for a tool inside a ToolsNode),
    `path` the node keys from the outermost graph down to this node, `step` the superstep it runs in.
    For a graph: `node_key` is None, `name` the graph name, `kind` `Graph`, `path` the keys of the nodes
    that embed it (empty at top level), `step` None.
    For a tool call: `node_key` is the ToolsNode's key, `name` the called tool name, `kind` `Tool`,
    `tool_call_id` the call ID.
    """

    node_key: str | None
    name: str
    kind: str
    path: tuple[str, ...] = ()
    step: int | None = None
    graph_name: str = ""
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True)
class Budget:
    """The superstep budget of one graph run. `steps_max`/`steps_remaining` are None in DAG mode."""

    steps_used: int
    steps_max: int | None
    steps_remaining: int | None

    @classmethod
    def of(cls, steps_used: int, steps_max: int | None) -> Budget:
        remaining = None if steps_max is None else max(steps_max - steps_used, 0)
        return cls(steps_used=steps_used, steps_max=steps_max, steps_remaining=remaining)


@dataclass(frozen=True, slots=True)
class BranchDecision:
    """A branch on `source` was evaluated: `chosen` targets were selected, `skipped` ends were not."""

    source: str
    branch_index: int
    chosen: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StepInfo:
    """A superstep boundary of the graph at `path` (empty for the top-level graph).

    `index` is 0-based and restarts at 0 in a resumed run. `nodes` are the keys of the tasks of this step
    in a fixed order (insertion order of the nodes). At `on_step_start`, `budget` is the budget before the
    step; at `on_step_end` it is the budget after it, `branches` lists the branch decisions taken while
    computing the next tasks, `next_nodes` the tasks of the next step (empty when the run ends), `ended`
    whether the END node was reached, and `state` the graph's live per-run state (None without state).
    `interrupted` lists the nodes of this step that interrupted (they rerun when the run is resumed);
    the run then stops with an `InterruptError`, which graph-level `on_error` receives.
    """

    index: int
    nodes: tuple[str, ...]
    budget: Budget
    path: tuple[str, ...] = ()
    graph_name: str = ""
    state: Any = None
    branches: tuple[BranchDecision, ...] = ()
    next_nodes: tuple[str, ...] = ()
    ended: bool = False
    errors: tuple[str, ...] = field(default=())
    interrupted: tuple[str, ...] = ()


@dataclass(slots=True)
class Boundary:
    """A top-level superstep boundary, handed to `on_step_boundary(boundary)` before the step starts.

    It exists so a caller can hold a run between steps and change what the next step does, without the
    engine knowing why (the inspector's debugger pauses here; a fork replays recorded outputs here).
    `step` is the index of the step about to run and `budget` the budget before it. The fields may be
    changed in place, and the runner reads them back when every handler has returned:

    - `pending`: the next step's tasks as (node key, input) pairs, in node order (inputs before the
      pre-handlers). Replacing an input changes what that node receives; the keys must stay the same.
    - `state`: the run's per-run state (None without state); mutate it, or assign a new value.
    - `presets`: node key -> output. A preset node does not run its component in this step: its output
      is the given value (node callbacks, state handlers and branches still see it as usual).

    A handler may block (the run waits at the boundary) or raise (the run ends with that error, reported
    to `on_error` like any run error). Nested graphs have no boundaries of their own: their steps run
    inside one step of the top-level run.
    """

    step: int
    budget: Budget
    pending: list[tuple[str, Any]]
    state: Any = None
    presets: dict[str, Any] = field(default_factory=lambda: {})


class CallbackHandler:
    """A no-op base to subclass for convenience; any object with some of these methods works too.

    `on_step_boundary(boundary)` (see `Boundary`) is not defined here on purpose: a handler that has it
    is called at every top-level step boundary, so only handlers that need it should define it.
    """

    def on_start(self, info: RunInfo, input: Any) -> None:
        """A node, tool or graph is about to run with `input` (invoke mode)."""

    def on_end(self, info: RunInfo, output: Any) -> None:
        """It finished with `output` (invoke mode)."""

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        """It failed."""

    def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
        """Stream mode: a private copy of the input stream; the handler must consume or close it."""

    def on_end_with_stream_output(self, info: RunInfo, output: Iterator[Any]) -> None:
        """Stream mode: a private copy of the output stream; the handler must consume or close it."""

    def on_step_start(self, step: StepInfo) -> None:
        """A superstep is about to run."""

    def on_step_end(self, step: StepInfo) -> None:
        """A superstep finished and the next tasks are known."""
