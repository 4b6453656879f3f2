"""The run scope: what code running inside a node (a tool, a model, a handler) can learn about its run.

The runner sets a `RunScope` in a context variable around every node task, so components deep inside a
node (ToolsNode reporting per-tool callbacks, `process_state`, `get_tool_call_id`, interrupts) reach the
callbacks, node path, step and state chain without threading them through every signature: Eino's `ctx`.
Threads started by the runner or by ToolsNode must run under `contextvars.copy_context()` so the scope
follows them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from graph_core.callbacks import RunInfo

__all__ = [
    "RunScope",
    "StateFrame",
    "current_scope",
    "notify_end",
    "notify_error",
    "notify_start",
    "scoped",
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


def _handlers(method: str, *, reverse: bool) -> list[Any]:
    scope = _SCOPE.get()
    if scope is None or not scope.callbacks:
        return []
    handlers = reversed(scope.callbacks) if reverse else scope.callbacks
    return [fn for h in handlers if (fn := getattr(h, method, None)) is not None]


def notify_start(info: RunInfo, input: Any) -> None:
    """Tell the current run's callbacks that `info` starts; reverse registration order, as in Eino."""
    for fn in _handlers("on_start", reverse=True):
        fn(info, input)


def notify_end(info: RunInfo, output: Any) -> None:
    for fn in _handlers("on_end", reverse=False):
        fn(info, output)


def notify_error(info: RunInfo, error: BaseException) -> None:
    for fn in _handlers("on_error", reverse=False):
        fn(info, error)
