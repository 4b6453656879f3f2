"""The run scope: what code running inside a node (a tool, a model, a handler) can learn about its run.

The runner sets a `RunScope` in a context variable around every node task, so components deep inside a
node (ToolsNode reporting per-tool callbacks, `process_state`, `get_tool_call_id`, interrupts) reach the
callbacks, node path, step and state chain without threading them through every signature: Eino's `ctx`.
Threads started by the runner or by ToolsNode must run under `contextvars.copy_context()` so the scope
follows them.

A graph invoked from inside a node (not added as a graph node) is part of that node, as a Go graph run
with the node's ctx is: its callbacks are the node run's callbacks and its own, its node path starts
with the node's (observers see it as a nested run there), its interrupt addresses start with the node's
(`graph_core.runner.inside`) and its state links to the node run's. `detached_runs()` opts a
block out of the first three, for a caller that places its runs itself (an ADK agent, which filters
the callbacks meant for it and composes its agent addresses).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from types import MemberDescriptorType
from typing import Any

from graph_core.callbacks import RunInfo

__all__ = [
    "RunScope",
    "StateFrame",
    "current_scope",
    "detached",
    "detached_runs",
    "notify_end",
    "notify_error",
    "notify_start",
    "observers",
    "run_info",
    "scoped",
    "slot_setters",
]


@dataclass(slots=True)
class StateFrame:
    """One graph's per-run state; `parent` is the enclosing graph's frame (Eino's state chain)."""

    value: Any
    parent: StateFrame | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)


@dataclass(frozen=True, slots=True)
class RunScope:
    """Where the current code runs: `path` lists node keys outermost first, ending with the current node."""

    callbacks: tuple[Any, ...] = ()
    path: tuple[str, ...] = ()
    step: int | None = None
    graph_name: str = ""
    state: StateFrame | None = None
    extras: dict[str, Any] = field(default_factory=lambda: {})
    resume: Any = None  # a graph_core.interrupt.PointRecord while a node reruns after its interrupt

    def child(self, **changes: Any) -> RunScope:
        return replace(self, **changes)


_SCOPE: ContextVar[RunScope | None] = ContextVar("graph_core_run_scope", default=None)


def current_scope() -> RunScope | None:
    """The scope of the node currently running on this thread or task, or None outside any run."""
    return _SCOPE.get()


@contextmanager
def scoped(scope: RunScope) -> Iterator[RunScope]:
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


_DETACHED: ContextVar[RunScope | None] = ContextVar("graph_core_detached_runs", default=None)


def detached() -> bool:
    """True inside a `detached_runs()` block, in the node it was entered in (not in the nodes of the
    runs started there: their own runs are part of them again)."""
    scope = _DETACHED.get()
    return scope is not None and scope is _SCOPE.get()


@contextmanager
def detached_runs() -> Iterator[None]:
    """Graph runs started in this block are not part of the running node: they take neither its
    callbacks, nor its node path, nor its interrupt address (their state still links to its run's)."""
    token = _DETACHED.set(_SCOPE.get())
    try:
        yield
    finally:
        _DETACHED.reset(token)


def slot_setters(cls: type, expected: tuple[str, ...]) -> tuple[Callable[[Any, Any], None], ...] | None:
    """The slot setters of the frozen, slotted dataclass `cls` in field order, or None if its fields are
    not exactly `expected` or something else runs at construction (`__post_init__`).

    Observers get a fresh `RunInfo`/`StepInfo` for every node and step; a frozen dataclass assigns
    each field through `object.__setattr__`, while writing the slot descriptors directly builds the
    same object in about half the time. Callers fall back to the constructor when this returns None,
    so a change of shape can never build an incomplete object.
    """
    names = tuple(f.name for f in fields(cls))
    slots = [cls.__dict__.get(name) for name in names]
    if (
        names != expected
        or hasattr(cls, "__post_init__")
        or not all(isinstance(slot, MemberDescriptorType) for slot in slots)
    ):
        return None
    return tuple(slot.__set__ for slot in slots)  # pyright: ignore[reportOptionalMemberAccess]


def _run_info_factory() -> Callable[..., RunInfo]:
    setters = slot_setters(
        RunInfo, ("node_key", "name", "kind", "path", "step", "graph_name", "tool_call_id")
    )
    if setters is None:
        return RunInfo
    set_key, set_name, set_kind, set_path, set_step, set_graph, set_call = setters
    new = object.__new__

    def build(
        node_key: str | None,
        name: str,
        kind: str,
        path: tuple[str, ...] = (),
        step: int | None = None,
        graph_name: str = "",
        tool_call_id: str | None = None,
    ) -> RunInfo:
        info = new(RunInfo)
        set_key(info, node_key)
        set_name(info, name)
        set_kind(info, kind)
        set_path(info, path)
        set_step(info, step)
        set_graph(info, graph_name)
        set_call(info, tool_call_id)
        return info

    return build


run_info = _run_info_factory()
"""`RunInfo(...)` (same arguments, same object) for the runner's hot paths."""

_NOTIFY = "graph_core.notify"  # key in `RunScope.extras`: the run's callback methods, looked up once


def _methods(scope: RunScope) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """(`on_start` in reverse registration order, `on_end`, `on_error`) of the scope's callbacks.

    Tools report through these on every call, so they are looked up once per run and kept in the run's
    `extras` (shared by every scope of the run), checked against the callbacks they were taken from.
    """
    callbacks = scope.callbacks
    cached = scope.extras.get(_NOTIFY)
    if cached is not None and cached[0] is callbacks:
        return cached[1]
    methods = (
        tuple(fn for h in reversed(callbacks) if (fn := getattr(h, "on_start", None)) is not None),
        tuple(fn for h in callbacks if (fn := getattr(h, "on_end", None)) is not None),
        tuple(fn for h in callbacks if (fn := getattr(h, "on_error", None)) is not None),
    )
    scope.extras[_NOTIFY] = (callbacks, methods)
    return methods


def observers(scope: RunScope) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """(`on_start` methods in reverse registration order, `on_end`, `on_error`) of the scope's callbacks,
    for a caller that reports many times under one scope (a tool call) and skips its reporting when
    all three are empty (callbacks that only watch steps)."""
    return _methods(scope) if scope.callbacks else ((), (), ())


def notify_start(info: RunInfo, input: Any) -> None:
    """Tell the current run's callbacks that `info` starts; reverse registration order, as in Eino."""
    scope = _SCOPE.get()
    if scope is not None and scope.callbacks:
        for fn in _methods(scope)[0]:
            fn(info, input)


def notify_end(info: RunInfo, output: Any) -> None:
    scope = _SCOPE.get()
    if scope is not None and scope.callbacks:
        for fn in _methods(scope)[1]:
            fn(info, output)


def notify_error(info: RunInfo, error: BaseException) -> None:
    scope = _SCOPE.get()
    if scope is not None and scope.callbacks:
        for fn in _methods(scope)[2]:
            fn(info, error)
