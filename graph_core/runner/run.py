"""The data of one graph run: what is checkpointable (`RunData`) and what is only wiring (`RunContext`).

`RunData` holds everything a run carries between steps (channel contents, the control reports of DAG
channels, the next tasks, the step counter, the state value), as plain dicts and lists, so a checkpoint
is a copy of it. `RunContext` holds what is rebuilt on every run: the plan, resolved callbacks, the
run's path inside its parents, the state frame and the cancellation signal.

The step logic (`loop.py`) talks to its driver with two effects: `Wait` (run these tasks, then hand back
completed ones) and `Await` (a user callable returned an awaitable: resolve it).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, fields
from types import MemberDescriptorType
from typing import Any

from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.context import RunScope, StateFrame, run_info, slot_setters
from graph_core.interrupt import address_of, point_base
from graph_core.runner.plan import NodePlan, Plan
from graph_core.stream import copy_stream

__all__ = ["Await", "Handlers", "RunContext", "RunData", "Task", "Wait", "notify_handlers"]


@dataclass(slots=True)
class RunData:
    """Everything a run holds between steps; plain data so it can be checkpointed and restored.

    `values[target][source]` are values written to a node's channel and not yet read; `control[target]
    [source]` is `"ready"` or `"skipped"` (DAG only; absent means waiting); `skipped` lists DAG nodes that
    will never run; `pending` the (key, input) pairs of the next step's tasks; `running` the inputs of
    tasks submitted and not yet completed (eager DAG).
    """

    values: dict[str, dict[str, Any]] = field(default_factory=lambda: {})
    control: dict[str, dict[str, str]] = field(default_factory=lambda: {})
    skipped: set[str] = field(default_factory=lambda: set())
    pending: list[tuple[str, Any]] = field(default_factory=lambda: [])
    running: dict[str, Any] = field(default_factory=lambda: {})
    step: int = 0
    started: bool = False
    state: Any = None


class Task:
    """One execution of one node in one step; the driver fills `output` or `error`.

    `original` is the input before the pre-handler (what a rerun node gets back after an interrupt);
    `resume` the node's saved interrupt record when it reruns after a resume.
    """

    __slots__ = ("error", "input", "node", "original", "output", "resume", "step")

    def __init__(self, node: NodePlan, input: Any, step: int) -> None:
        self.node = node
        self.input = input
        self.original = input
        self.step = step
        self.output: Any = None
        self.error: BaseException | None = None
        self.resume: Any = None


class Wait:
    """Submit `tasks`, then return completed tasks: all running ones (`need_all`) or at least one."""

    __slots__ = ("need_all", "tasks")

    def __init__(self, tasks: list[Task], need_all: bool) -> None:
        self.tasks = tasks
        self.need_all = need_all


class Await:
    """Resolve `awaitable` (a condition or handler was `async def`) and send back its result."""

    __slots__ = ("awaitable",)

    def __init__(self, awaitable: Awaitable[Any]) -> None:
        self.awaitable = awaitable


class Handlers:
    """Callback methods looked up once per run, so timings nobody observes cost nothing."""

    __slots__ = (
        "boundary",
        "callbacks",
        "end",
        "end_stream",
        "error",
        "node",
        "start",
        "start_stream",
        "step_end",
        "step_start",
    )

    def __init__(self, callbacks: Sequence[Any]) -> None:
        self.callbacks = tuple(callbacks)
        if not self.callbacks:  # most runs: skip the seven lookups below
            self.start = self.end = self.error = self.start_stream = self.end_stream = ()
            self.step_start = self.step_end = self.boundary = ()
            self.node = False
            return

        def methods(name: str, reverse: bool = False) -> tuple[Any, ...]:
            handlers = reversed(self.callbacks) if reverse else self.callbacks
            return tuple(fn for h in handlers if (fn := getattr(h, name, None)) is not None)

        self.start = methods("on_start", reverse=True)
        self.end = methods("on_end")
        self.error = methods("on_error")
        self.start_stream = methods("on_start_with_stream_input", reverse=True)
        self.end_stream = methods("on_end_with_stream_output")
        self.step_start = methods("on_step_start")
        self.step_end = methods("on_step_end")
        self.boundary = methods("on_step_boundary")
        self.node = bool(self.start or self.end or self.error or self.start_stream or self.end_stream)


def notify_handlers(fns: tuple[Any, ...], info: Any, value: Any, *, stream: bool) -> Any:
    """Call node- or graph-level handlers; in stream mode each reads its own copy, the caller the last."""
    if not fns:
        return value
    if stream:
        copies = copy_stream(value, len(fns) + 1)
        for fn, copy in zip(fns, copies, strict=False):
            fn(info, copy)
        return copies[-1]
    for fn in fns:
        fn(info, value)
    return value


ScopeFactory = Callable[..., RunScope]


def _scope_setters() -> tuple[Callable[[Any, Any], None], ...] | None:
    """The slot setters of `RunScope` in field order, or None if it changed shape (see `_scope_factory`)."""
    names = tuple(f.name for f in fields(RunScope))
    slots = [RunScope.__dict__.get(name) for name in names]
    expected = ("callbacks", "path", "step", "graph_name", "state", "extras", "resume")
    if (
        names != expected
        or hasattr(RunScope, "__post_init__")
        or not all(isinstance(slot, MemberDescriptorType) for slot in slots)
    ):
        return None
    return tuple(slot.__set__ for slot in slots)  # pyright: ignore[reportOptionalMemberAccess]


def _scope_factory() -> ScopeFactory:
    """`RunScope(...)` for the runner, which builds one per task: through the slots, at half the cost.

    A frozen dataclass assigns every field through `object.__setattr__`; writing the slot descriptors
    directly gives the same object. If `RunScope` ever changes shape (another field, a `__post_init__`),
    this falls back to the constructor instead of building an incomplete scope.
    """
    setters = _scope_setters()
    if setters is None:
        return RunScope
    new = object.__new__
    set_callbacks, set_path, set_step, set_name, set_state, set_extras, set_resume = setters

    def build(
        callbacks: tuple[Any, ...],
        path: tuple[str, ...],
        step: int | None,
        graph_name: str,
        state: StateFrame | None,
        extras: dict[str, Any],
    ) -> RunScope:
        scope = new(RunScope)
        set_callbacks(scope, callbacks)
        set_path(scope, path)
        set_step(scope, step)
        set_name(scope, graph_name)
        set_state(scope, state)
        set_extras(scope, extras)
        set_resume(scope, None)
        return scope

    return build


_new_scope = _scope_factory()
_SCOPE_SLOTS = _scope_setters()
_NEW = object.__new__


def _step_info_factory() -> Callable[..., StepInfo]:
    """`StepInfo(...)` with every field positional, through the slots (see `slot_setters`): the runner
    builds two per step while anyone observes steps."""
    setters = slot_setters(
        StepInfo,
        (
            "index",
            "nodes",
            "budget",
            "path",
            "graph_name",
            "state",
            "branches",
            "next_nodes",
            "ended",
            "errors",
            "interrupted",
        ),
    )
    if setters is None:
        return StepInfo
    s_index, s_nodes, s_budget, s_path, s_graph, s_state, s_branches, s_next, s_ended, s_errors, s_int = (
        setters
    )
    new = object.__new__

    def build(
        index: int,
        nodes: tuple[str, ...],
        budget: Budget,
        path: tuple[str, ...],
        graph_name: str,
        state: Any,
        branches: tuple[BranchDecision, ...],
        next_nodes: tuple[str, ...],
        ended: bool,
        errors: tuple[str, ...],
        interrupted: tuple[str, ...],
    ) -> StepInfo:
        info = new(StepInfo)
        s_index(info, index)
        s_nodes(info, nodes)
        s_budget(info, budget)
        s_path(info, path)
        s_graph(info, graph_name)
        s_state(info, state)
        s_branches(info, branches)
        s_next(info, next_nodes)
        s_ended(info, ended)
        s_errors(info, errors)
        s_int(info, interrupted)
        return info

    return build


_new_step_info = _step_info_factory()


def _budget_factory() -> Callable[[int, int | None], Budget]:
    """`Budget.of(used, max)` through the slots (see `slot_setters`): one per step while anyone observes
    steps, at a third of the frozen constructor's cost."""
    setters = slot_setters(Budget, ("steps_used", "steps_max", "steps_remaining"))
    if setters is None:
        return Budget.of
    set_used, set_max, set_remaining = setters
    new = object.__new__

    def build(used: int, steps_max: int | None) -> Budget:
        budget = new(Budget)
        set_used(budget, used)
        set_max(budget, steps_max)
        # no `max(...)`: its argument parsing is code the run meets cold after each model call
        set_remaining(budget, None if steps_max is None else (steps_max - used if steps_max > used else 0))
        return budget

    return build


_new_budget = _budget_factory()


@dataclass(slots=True)
class RunContext:
    """The wiring of one run of one (possibly nested) graph."""

    plan: Plan
    graph_name: str
    handlers: Handlers
    stream: bool
    max_steps: int | None
    path: tuple[str, ...] = ()
    frame: StateFrame | None = None
    cancel_event: threading.Event | None = None
    nested: bool = False
    extras: dict[str, Any] = field(default_factory=lambda: {})
    interrupt_before: frozenset[str] = frozenset()
    interrupt_after: frozenset[str] = frozenset()
    keep_inputs: bool = False  # stream mode: keep a copy of each task's input for a possible rerun
    restored: Any = None  # graph_core.runner.interrupts.Restored until the first resumed step starts
    interrupt_event: threading.Event | None = None  # set: stop with a checkpoint before the next step
    last_budget: Budget | None = None  # the budget after a step is the next one's budget before it
    node_paths: dict[str, tuple[str, ...]] = field(default_factory=lambda: {})  # RunInfo.path per node
    decisions: dict[tuple[Any, ...], BranchDecision] = field(default_factory=lambda: {})  # reported ones
    aio: bool = False  # stream mode on an event loop (`astream`): streams are async iterators
    loop: Any = None  # that event loop
    # set by the sync driver, which runs the step logic on its own thread: how it resolves an awaitable
    # in place, and runs a step's lone task in place (None with an interrupt gate: no task runs inline).
    # The phases then call them instead of yielding `Await`/`Wait`: no effect round trip per step.
    resolve: Callable[[Any], Any] | None = None  # takes an awaitable
    run_now: Callable[[Task, RunContext], None] | None = None

    def scope(self, key: str | None = None, step: int | None = None) -> RunScope:
        path = self.path if key is None else (*self.path, key)
        return _new_scope(self.handlers.callbacks, path, step, self.graph_name, self.frame, self.extras)

    def node_scope(self, key: str, step: int) -> RunScope:
        """`scope(key, step)`, the node's path built once per run (a task's scope is made every step)."""
        path = self.node_paths.get(key)
        if path is None:
            path = self.node_paths[key] = (*self.path, key)
        if _SCOPE_SLOTS is None:
            return _new_scope(self.handlers.callbacks, path, step, self.graph_name, self.frame, self.extras)
        set_callbacks, set_path, set_step, set_name, set_state, set_extras, set_resume = _SCOPE_SLOTS
        scope = _NEW(RunScope)  # `_new_scope` unrolled here: one frame less on every task
        set_callbacks(scope, self.handlers.callbacks)
        set_path(scope, path)
        set_step(scope, step)
        set_name(scope, self.graph_name)
        set_state(scope, self.frame)
        set_extras(scope, self.extras)
        set_resume(scope, None)
        return scope

    def address(self, key: str | None = None) -> str:
        """The interrupt address of this graph (`key=None`) or of its node `key`."""
        path = self.path if key is None else (*self.path, key)
        base = point_base(self.extras)
        return address_of(path[base:] if base else path, root=self.extras["runnable"])

    def node_info(self, node: NodePlan, step: int) -> RunInfo:
        path = self.node_paths.get(node.key)
        if path is None:
            path = self.node_paths[node.key] = (*self.path, node.key)
        return run_info(node.key, node.name, node.kind, path, step, self.graph_name)

    def graph_info(self) -> RunInfo:
        return RunInfo(None, self.graph_name, "Graph", self.path, None, self.graph_name)

    @property
    def state_value(self) -> Any:
        return self.frame.value if self.frame is not None and self.plan.has_state else None

    def budget(self, used: int) -> Budget:
        budget = self.last_budget
        if budget is None or budget.steps_used != used:
            budget = self.last_budget = _new_budget(used, self.max_steps)
        return budget

    def step_info(
        self,
        index: int,
        nodes: tuple[str, ...],
        used: int,
        *,
        branches: tuple[BranchDecision, ...] = (),
        next_nodes: tuple[str, ...] = (),
        ended: bool = False,
        errors: tuple[str, ...] = (),
        interrupted: tuple[str, ...] = (),
    ) -> StepInfo:
        frame = self.frame
        return _new_step_info(
            index,
            nodes,
            self.budget(used),
            self.path,
            self.graph_name,
            frame.value if frame is not None and self.plan.has_state else None,
            branches,
            next_nodes,
            ended,
            errors,
            interrupted,
        )
