"""The run context of a multi-agent run (Eino `adk/runctx.go`): the run path, the root input and the
session that every agent of one run shares.

- The **run path** (Eino `RunPath`, a list of `RunStep`s; here the agents' names, outermost first)
  grows by one name each time a flow agent starts: a transfer from `A` to `B` runs `B` at `(A, B)`, a
  sequential workflow `W` runs its second sub-agent at `(W, first, second)`. Events carry it
  (`AgentEvent.run_path`); a flow agent acts only on the actions of events whose path is exactly its
  own (`exact_run_path_match`), so an exit or a transfer inside an agent tool stays there.
- The **session** holds the run's values (`get_session_values`, `add_session_value`) and the events
  the flow agents recorded, from which the next agent's input is built. A parallel workflow gives each
  branch its own lane (`fork_run_ctx`), which sees what was recorded before the fork and its own
  events; when the branches end their events join the parent in the order they were made
  (`join_run_ctxs`; Eino orders by timestamp, graph_core by a global sequence number, so the order is
  deterministic).

The context travels in a context variable, as Eino's travels in the Go `context.Context`. An agent's
`run` is a generator, whose body runs in whatever context iterates it; `iterate_in` iterates one in a
context of its own, so a sub-agent reads its run context however it is consumed.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from contextvars import Context, ContextVar, copy_context
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graph_core.schema import Message

__all__ = [
    "RunContext",
    "RunSession",
    "SessionEvent",
    "context_with",
    "current_run_ctx",
    "exact_run_path_match",
    "fork_run_ctx",
    "init_run_ctx",
    "iterate_in",
    "join_run_ctxs",
    "new_run_ctx",
    "update_run_path_only",
]

T = TypeVar("T")

_SEQUENCE = itertools.count()
_SEQUENCE_LOCK = threading.Lock()


def _next_seq() -> int:
    with _SEQUENCE_LOCK:
        return next(_SEQUENCE)


@dataclass(slots=True)
class SessionEvent:
    """One recorded event (Eino `agentEventWrapper`): `seq` orders events of parallel lanes."""

    event: Any  # an AgentEvent (typed loosely: this module sits below `adk_run`)
    seq: int


@dataclass(slots=True)
class Lane:
    """A parallel branch's own events, above its parent lane (None: the main list)."""

    parent: Lane | None
    events: list[SessionEvent] = field(default_factory=lambda: [])


@dataclass(slots=True)
class RunSession:
    """Values and recorded events shared by the agents of one run (Eino `runSession`)."""

    values: dict[str, Any] = field(default_factory=lambda: {})
    events: list[SessionEvent] = field(default_factory=lambda: [])
    lane: Lane | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_event(self, event: Any) -> None:
        wrapped = SessionEvent(event, _next_seq())
        if self.lane is not None:
            self.lane.events.append(wrapped)
            return
        with self.lock:
            self.events.append(wrapped)

    def get_events(self) -> list[SessionEvent]:
        """The committed events, then the lanes' in-flight ones from the outermost lane in."""
        with self.lock:
            committed = list(self.events)
        lanes: list[list[SessionEvent]] = []
        lane = self.lane
        while lane is not None:
            lanes.append(lane.events)
            lane = lane.parent
        for events in reversed(lanes):
            committed.extend(events)
        return committed


@dataclass(slots=True)
class RunContext:
    """Eino `runContext`: the root agent's input, the run path so far and the shared session."""

    root_input: list[Message] | None = None
    run_path: tuple[str, ...] = ()
    session: RunSession = field(default_factory=RunSession)

    @property
    def is_root(self) -> bool:
        return len(self.run_path) == 1


RUN_CTX: ContextVar[RunContext | None] = ContextVar("graph_core_adk_run_ctx", default=None)


def current_run_ctx() -> RunContext | None:
    """The run context of the agent running here, if any (Eino `getRunCtx`)."""
    return RUN_CTX.get()


def new_run_ctx(
    root_input: Sequence[Message] | None = None, *, values: dict[str, Any] | None = None
) -> RunContext:
    """A fresh run context (Eino `ctxWithNewRunCtx`); `values` shares a parent's session values."""
    session = RunSession(values=values if values is not None else {})
    return RunContext(list(root_input) if root_input is not None else None, (), session)


def init_run_ctx(
    parent: RunContext | None, agent_name: str, messages: Sequence[Message] | None
) -> RunContext:
    """The context of an agent starting under `parent` (Eino `initRunCtx`): the parent's path plus the
    agent's name, the same session; the root agent's input becomes the run's root input."""
    base = parent if parent is not None else RunContext()
    ctx = RunContext(base.root_input, (*base.run_path, agent_name), base.session)
    if ctx.is_root and messages is not None:
        ctx.root_input = list(messages)
    return ctx


def update_run_path_only(ctx: RunContext, *agent_names: str) -> RunContext:
    """`ctx` with `agent_names` appended to its path (Eino `updateRunPathOnly`: how a sequential or
    loop workflow keeps the agents that already ran in the path of the next one)."""
    return RunContext(ctx.root_input, (*ctx.run_path, *agent_names), ctx.session)


def fork_run_ctx(ctx: RunContext) -> RunContext:
    """A parallel branch's context (Eino `forkRunCtx`): the same values and committed events, a new
    lane for its own events."""
    session = RunSession(
        values=ctx.session.values,
        events=ctx.session.events,
        lane=Lane(ctx.session.lane),
        lock=ctx.session.lock,
    )
    return RunContext(ctx.root_input, ctx.run_path, session)


def join_run_ctxs(parent: RunContext, children: Sequence[RunContext]) -> None:
    """Commit the branches' events to `parent` in the order they were made (Eino `joinRunCtxs`)."""
    new: list[SessionEvent] = []
    for child in children:
        if child.session.lane is not None:
            new.extend(child.session.lane.events)
    new.sort(key=lambda e: e.seq)
    if parent.session.lane is not None:
        parent.session.lane.events.extend(new)
        return
    with parent.session.lock:
        parent.session.events.extend(new)


def exact_run_path_match(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether two run paths are the same (Eino `exactRunPathMatch`)."""
    return tuple(a) == tuple(b)


def context_with(ctx: RunContext | None) -> Context:
    """A copy of the current context whose run context is `ctx` (None clears it)."""
    context = copy_context()
    context.run(RUN_CTX.set, ctx)
    return context


def iterate_in(ctx: RunContext | None, items: Iterator[T]) -> Iterator[T]:
    """Iterate `items` with `ctx` as the run context: every step of the generator runs in one context
    of its own, whoever consumes it."""
    context = context_with(ctx)
    while True:
        try:
            item = context.run(next, items)
        except StopIteration:
            return
        yield item
