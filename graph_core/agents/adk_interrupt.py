"""ADK-level interrupts (Eino `adk/interrupt.go`): any agent, not only the ChatModelAgent, stops a run
and is resumed where it stopped.

An agent is a class with `name`, `description`, `run(messages, **options)` yielding `AgentEvent`s and,
to be resumable, `resume(info: ResumeInfo, **options)`. It stops by yielding the event that
`agent_interrupt(info)` returns, or `agent_stateful_interrupt(info, state)` to have `state` saved, or
`agent_composite_interrupt(info, state, *signals)` when parts of it interrupted, each part having run
inside `address_segment("agent", name)` (`graph_core.interrupt`) and its signal being its event's
`action.internal_interrupted`. The event's `action.interrupted` is an `AgentInterruptInfo`; its
`interrupt_contexts` are built at once from the current address, keeping only agent and tool segments
(`addresses.signal_contexts`), and its `data` is free for the agent to set (Eino's legacy `Data`).

**Who saves it.** The ChatModelAgent checkpoints itself (it has a `checkpoint_store`, where its graph
saves). Any other agent is checkpointed by whoever runs it, the `Runner` or an `AgentTool`, through
`run_agent`: the agent runs as the point `agent:<name>` (the root address of its run), and an event
carrying a signal is saved under the run's `checkpoint_id` in the runner's store (an `AgentCheckpoint`:
the point tree with each point's saved state, the streaming flag and `data`, in the checkpoint codec's
JSON). `resume_agent` reads it back and calls the agent's `resume` with a `ResumeInfo`: whether it was
interrupted, its saved state, and whether the caller's resume data is aimed at it (or inside it). While
the resumed agent runs, `was_interrupted()`, `get_interrupt_state()`, `is_resume_target()` and
`get_resume_data()` answer for it, and inside `address_segment` blocks for its parts.

The checkpoint keeps the run context too (`SavedRunContext`: root input, session values and recorded
events), so that a resumed flow's next agents build their input from the whole conversation.

Differences from Eino: interrupt IDs are the (ADK) addresses, not random UUIDs, as everywhere in
graph_core.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from contextvars import ContextVar, copy_context
from dataclasses import dataclass, field, replace
from typing import Any

from graph_core.agents.addresses import AGENT_PREFIX, adk_address, signal_contexts
from graph_core.agents.adk_run import AgentAction, AgentEvent
from graph_core.agents.adk_runctx import RunContext, RunSession, SessionEvent, current_run_ctx, iterate_in
from graph_core.agents.adk_stream import MessageStream, drain
from graph_core.checkpoint.codec import decode_value, encode_value
from graph_core.context import RunScope, scoped
from graph_core.errors import CheckpointSerializationError, GraphRunError, WillRetryError
from graph_core.interrupt import (
    InterruptContext,
    InterruptSignal,
    PointRecord,
    ResumeTargets,
    composite_interrupt,
    current_point,
    get_interrupt_state,
    get_resume_data,
    interrupt,
    is_resume_target,
)
from graph_core.schema import Message, concat_messages
from graph_core.tools.context import tool_call_scope

__all__ = [
    "AgentCheckpoint",
    "AgentInterruptInfo",
    "ResumeInfo",
    "SavedRunContext",
    "agent_composite_interrupt",
    "agent_interrupt",
    "agent_stateful_interrupt",
    "checkpoints_itself",
    "interrupts_are_saved",
    "next_resume_agents",
    "resume_agent",
    "resume_info_here",
    "run_agent",
]

FORMAT = "graph_core.adk_checkpoint"
_SAVED: ContextVar[bool] = ContextVar("adk_interrupts_saved", default=False)
VERSION = 1


@dataclass(slots=True)
class AgentInterruptInfo:
    """An ADK-level interrupt as the caller sees it (Eino adk `InterruptInfo`): the root causes with
    their parents (`interrupt_contexts`) and the agent's own `data`."""

    data: Any = None
    interrupt_contexts: list[InterruptContext] = field(default_factory=lambda: [])


@dataclass(frozen=True, slots=True)
class ResumeInfo:
    """What an agent's `resume` is told (Eino `ResumeInfo`); `data` is the interrupt's `data`."""

    enable_streaming: bool = False
    interrupt_info: AgentInterruptInfo | None = None
    was_interrupted: bool = False
    interrupt_state: Any = None
    is_resume_target: bool = False
    resume_data: Any = None

    @property
    def data(self) -> Any:
        """Eino's embedded `InterruptInfo.Data`: what the interrupted run's event carried as `data`."""
        return self.interrupt_info.data if self.interrupt_info is not None else None


@dataclass(frozen=True, slots=True)
class AgentCheckpoint:
    """What is saved for an ADK-level interrupt (Eino's `serialization`): the interrupted points as a
    tree, each known by its ADK address, with its saved state."""

    enable_streaming: bool
    data: Any
    point: PointRecord
    run_ctx: SavedRunContext | None = None


@dataclass(slots=True)
class SavedRunContext:
    """The run context of the interrupted run (Eino saves its `runContext`): the root input and the
    session's values and recorded events, so the agents that run after the resume see them."""

    root_input: list[Message] | None = None
    values: dict[str, Any] = field(default_factory=lambda: {})
    events: list[SessionEvent] = field(default_factory=lambda: [])

    @classmethod
    def of(cls, ctx: RunContext) -> SavedRunContext:
        """The saveable form of `ctx`: a streamed message is saved as its chunks concatenated (a stream
        the retry layer abandoned is left out); events without a message (errors) are left out, as
        an agent's input is built from messages and transfers only."""
        saved: list[SessionEvent] = []
        for recorded in ctx.session.get_events():
            event = saveable_event(recorded)
            if event is not None:
                saved.append(SessionEvent(event, recorded.seq))
        return cls(ctx.root_input, dict(ctx.session.values), saved)

    def restore(self, values: dict[str, Any] | None) -> RunContext:
        """A run context like the saved one; `values` (a caller's shared session) replaces its values."""
        if values is None:
            values = self.values
        session = RunSession(values=values, events=list(self.events))
        return RunContext(self.root_input, (), session)


# -- the interrupt functions --------------------------------------------------------------------------


def agent_interrupt(info: Any) -> AgentEvent:
    """The event that stops the current agent here (Eino `adk.Interrupt`); `info` is user-facing."""
    try:
        interrupt(info)
    except InterruptSignal as signal:
        return _interrupt_event(signal)
    raise AssertionError("interrupt() returned")  # pragma: no cover


def agent_stateful_interrupt(info: Any, state: Any) -> AgentEvent:
    """`agent_interrupt` that also saves `state`, handed back as `ResumeInfo.interrupt_state` (Eino
    `StatefulInterrupt`); `state` must be a value the checkpoint codec writes."""
    try:
        interrupt(info, state=state)
    except InterruptSignal as signal:
        return _interrupt_event(signal)
    raise AssertionError("interrupt() returned")  # pragma: no cover


def agent_composite_interrupt(info: Any, state: Any, *signals: InterruptSignal) -> AgentEvent:
    """The event that stops the current agent because parts of it did (Eino `CompositeInterrupt`):
    `signals` are the parts' `action.internal_interrupted`, each raised inside `address_segment`; each
    part is a root cause under this agent, resumable on its own."""
    try:
        composite_interrupt(info, state, list(signals))
    except InterruptSignal as signal:
        return _interrupt_event(signal)
    raise AssertionError("composite_interrupt() returned")  # pragma: no cover


def _interrupt_event(signal: InterruptSignal) -> AgentEvent:
    info = AgentInterruptInfo(interrupt_contexts=signal_contexts(signal))
    action = AgentAction(interrupted=info, internal_interrupted=signal)
    return AgentEvent(_agent_name(signal.address), action=action)


def _agent_name(address: str) -> str:
    """The innermost agent of an address: the agent that sends the event."""
    agents = [s for s in address.split(";") if s.startswith(AGENT_PREFIX)]
    return agents[-1][len(AGENT_PREFIX) :] if agents else ""


# -- running and resuming an agent --------------------------------------------------------------------


def checkpoints_itself(agent: Any) -> bool:
    """An agent with a `checkpoint_store` (the ChatModelAgent) saves its own checkpoints there."""
    return getattr(agent, "checkpoint_store", None) is not None


def run_agent(agent: Any, messages: Sequence[Message], *, store: Any, **options: Any) -> Iterator[AgentEvent]:
    """The agent's events for `messages` (`options` go to its `run`); an ADK-level interrupt is saved in
    `store` under `options["checkpoint_id"]` (see the module docstring)."""
    if checkpoints_itself(agent):
        return agent.run(messages, **options)
    checkpoint_id = options.get("checkpoint_id")
    saving = store is not None and checkpoint_id is not None

    def start() -> Iterable[AgentEvent]:
        _SAVED.set(saving)
        return agent.run(messages, **options)

    events = _as_agent(agent.name, None, start)
    return _saving(events, store, checkpoint_id, bool(options.get("streaming", False)))


def interrupts_are_saved() -> bool:
    """Whether the run the current code is part of saves its ADK-level interrupts (a `Runner` or an
    `AgentTool` with a store and a checkpoint ID): a ChatModelAgent in a flow then reports its interrupt
    as one (`adk_flow_chatmodel`); else it keeps its own addresses and checkpoint."""
    return _SAVED.get()


def resume_agent(
    agent: Any, checkpoint_id: str, *, store: Any, resume_data: Any = None, **options: Any
) -> Iterator[AgentEvent]:
    """Continue the agent's run saved under `checkpoint_id`: an agent that checkpoints itself gets
    `resume(checkpoint_id, resume_data=...)`, any other its `ResumeInfo`. `resume_data` keyed by
    interrupt IDs targets those points; other data goes to every interrupted point."""
    resume: Callable[..., Iterator[AgentEvent]] | None = getattr(agent, "resume", None)
    if resume is None:
        raise GraphRunError(f"agent {agent.name!r} cannot resume")
    if checkpoints_itself(agent):
        return resume(checkpoint_id, resume_data=resume_data, **options)
    if store is None:
        raise GraphRunError("failed to resume: store is nil")
    raw = store.get(checkpoint_id)
    if raw is None:
        raise GraphRunError(f"failed to load from checkpoint: checkpoint {checkpoint_id!r} not found")
    saved = read_agent_checkpoint(raw)
    options.pop("streaming", None)  # the run goes on as it was: the saved flag is in the ResumeInfo
    point = saved.point.with_resume(ResumeTargets(resume_data, _addresses(saved.point)))
    own = AGENT_PREFIX + agent.name
    info = _resume_info(saved, point if point.address == own else None, own)
    if point.address == own or point.address.startswith(own + ";"):
        point = _by_segment(point, own)

    def start() -> Iterable[AgentEvent]:
        _SAVED.set(True)
        return resume(info, **options)

    events = _as_agent(agent.name, point, start)
    events = _saving(events, store, checkpoint_id, saved.enable_streaming)
    if saved.run_ctx is None:
        return events
    return iterate_in(saved.run_ctx.restore(options.get("session")), events)


def _resume_info(saved: AgentCheckpoint, own: PointRecord | None, address: str) -> ResumeInfo:
    interrupt_info = AgentInterruptInfo(data=saved.data)
    if own is None:
        return ResumeInfo(saved.enable_streaming, interrupt_info)
    targets = own.resume
    target = targets is not None and targets.targets(address)
    return ResumeInfo(
        saved.enable_streaming,
        interrupt_info,
        was_interrupted=True,
        interrupt_state=own.state if own.has_state else None,
        is_resume_target=target,
        resume_data=targets.get(address) if targets is not None and target else None,
    )


def saveable_event(recorded: SessionEvent) -> AgentEvent | None:
    """`recorded`'s event as a checkpoint can keep it (see `SavedRunContext.of`). A plain-iterator
    stream is read here, so the live session's copy becomes a replayable `MessageStream`."""
    event: AgentEvent = recorded.event
    stream = event.message_stream
    if stream is not None:
        chunks, failure = drain(stream)
        if not isinstance(stream, MessageStream):
            replay = MessageStream()
            for chunk in chunks:
                replay.put(chunk)
            replay.close(failure)
            recorded.event = replace(event, message_stream=replay)
        if isinstance(failure, WillRetryError):
            return None
        message = concat_messages(chunks) if chunks else None
        return replace(event, message=message, message_stream=None, error=None)
    if event.message is None and event.action is None:
        return None
    return replace(event, error=None)


class _PassThrough:
    """The `info` of a record made on resume for an agent the interrupt passed through (a flow agent
    that transferred, or ran the interrupted one): it was not interrupted itself."""

    def __repr__(self) -> str:
        return "PASS_THROUGH"


PASS_THROUGH: Any = _PassThrough()


def _by_segment(point: PointRecord, base: str) -> PointRecord:
    """`point` (at or below `base`) as a tree with one `agent:` segment per level, so that each flow
    agent finds its record under its own segment: a level the interrupt only passed through gets a
    record whose info is `PASS_THROUGH`."""
    if point.address != base:
        first = point.address[len(base) + 1 :].split(";", 1)[0]
        passing = PointRecord(base, info=PASS_THROUGH, resume=point.resume)
        passing.children[first] = _by_segment(point, f"{base};{first}")
        return passing
    children: dict[str, PointRecord] = {}
    for key, child in point.children.items():
        first = key.split(";", 1)[0]
        if not key.startswith(AGENT_PREFIX) or first == key:
            children[key] = child
            continue
        nested = _by_segment(child, f"{base};{first}")
        if first in children:
            children[first].children.update(nested.children)
        else:
            children[first] = nested
    point.children = children
    return point


def resume_info_here(info: ResumeInfo) -> ResumeInfo:
    """`info` as the agent at the current address sees it (Eino `buildResumeInfo`): whether it was
    interrupted, its saved state, whether the resume data is aimed at it and the data."""
    base = ResumeInfo(info.enable_streaming, info.interrupt_info)
    record = current_point()
    if record is None or record.info is PASS_THROUGH:
        return base
    target = is_resume_target()
    return replace(
        base,
        was_interrupted=True,
        interrupt_state=get_interrupt_state(),
        is_resume_target=target,
        resume_data=get_resume_data() if target else None,
    )


def next_resume_agents() -> list[str]:
    """The agents below the current address that lead to the interrupted ones (Eino
    `GetNextResumptionPoints`), in the order they were saved."""
    record = current_point()
    if record is None:
        return []
    return [key[len(AGENT_PREFIX) :] for key in record.children if key.startswith(AGENT_PREFIX)]


def _addresses(point: PointRecord) -> list[str]:
    return [point.address, *(a for child in point.children.values() for a in _addresses(child))]


def _as_agent(
    name: str, point: PointRecord | None, start: Callable[[], Iterable[AgentEvent]]
) -> Iterator[AgentEvent]:
    """Run the agent's generator as the point `agent:<name>`: in a copy of the caller's context whose
    run scope has that root address (and `point`, the saved record, when resuming), outside any tool
    call. Each step of the generator runs in that context; the caller's own code between events
    does not."""
    context = copy_context()
    stack = ExitStack()
    scope = RunScope(extras={"runnable": AGENT_PREFIX + name}, resume=point)
    context.run(stack.enter_context, scoped(scope))
    context.run(stack.enter_context, tool_call_scope(""))
    done = object()
    events = iter(context.run(start))  # a generator, or any iterator of events
    try:
        while (event := context.run(next, events, done)) is not done:
            yield event  # pyright: ignore[reportReturnType]
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            context.run(close)
        context.run(stack.close)


def _saving(
    events: Iterator[AgentEvent], store: Any, checkpoint_id: str | None, streaming: bool
) -> Iterator[AgentEvent]:
    """Eino's runner loop: an event carrying an interrupt signal gets its contexts rebuilt from the
    signal and is saved (when there are a store and a checkpoint ID); a second one is an error."""
    seen = False
    for event in events:
        action = event.action
        signal = action.internal_interrupted if action is not None else None
        if not isinstance(signal, InterruptSignal):
            yield event
            continue
        if seen:
            yield AgentEvent(event.agent_name, error=GraphRunError("multiple interrupt actions in one run"))
            return
        seen = True
        data = getattr(action.interrupted, "data", None) if action is not None else None
        saved_id: str | None = None
        if store is not None and checkpoint_id is not None:
            try:
                run_ctx = current_run_ctx()
                saved_ctx = SavedRunContext.of(run_ctx) if run_ctx is not None else None
                checkpoint = AgentCheckpoint(streaming, data, _point(signal), saved_ctx)
                store.set(checkpoint_id, write_agent_checkpoint(checkpoint))
                saved_id = checkpoint_id
            except CheckpointSerializationError as exc:
                yield AgentEvent(event.agent_name, error=GraphRunError(f"failed to save checkpoint: {exc}"))
        interrupted = AgentInterruptInfo(data, signal_contexts(signal))
        action = AgentAction(interrupted=interrupted, internal_interrupted=signal)
        yield replace(event, action=action, checkpoint_id=saved_id or event.checkpoint_id)


def _point(signal: InterruptSignal) -> PointRecord:
    """The signal's tree as saved records, each known by its ADK address (the ID resume data uses)."""
    record = PointRecord.of(signal)

    def readdress(point: PointRecord) -> None:
        point.address = adk_address(point.address)
        for child in point.children.values():
            readdress(child)

    readdress(record)
    return record


# -- the saved form -------------------------------------------------------------------------------------


def write_agent_checkpoint(checkpoint: AgentCheckpoint) -> bytes:
    """The bytes a store keeps: `{"format", "version", "checkpoint"}` as compact, key-sorted JSON."""
    body = encode_value(checkpoint, "checkpoint")
    envelope = {"format": FORMAT, "version": VERSION, "checkpoint": body}
    return json.dumps(envelope, sort_keys=True, separators=(",", ":"), allow_nan=False).encode("utf-8")


def read_agent_checkpoint(data: bytes) -> AgentCheckpoint:
    """Read what `write_agent_checkpoint` wrote; anything else (a graph's checkpoint, damaged bytes) is a
    `GraphRunError` saying so."""
    try:
        envelope: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GraphRunError(f"failed to load from checkpoint: not an agent checkpoint ({exc})") from exc
    if not isinstance(envelope, dict) or envelope.get("format") != FORMAT:  # pyright: ignore[reportUnknownMemberType]
        raise GraphRunError(
            "failed to load from checkpoint: not an agent checkpoint (an agent without a checkpoint store "
            "of its own resumes only from what a Runner or an AgentTool saved for it)"
        )
    if envelope.get("version") != VERSION:  # pyright: ignore[reportUnknownMemberType]
        raise GraphRunError(
            f"failed to load from checkpoint: version {envelope.get('version')!r} is not {VERSION}"
        )  # pyright: ignore[reportUnknownMemberType]
    try:
        checkpoint = decode_value(envelope.get("checkpoint"), "checkpoint")  # pyright: ignore[reportUnknownMemberType]
    except CheckpointSerializationError as exc:
        raise GraphRunError(f"failed to load from checkpoint: {exc}") from exc
    if not isinstance(checkpoint, AgentCheckpoint) or not isinstance(checkpoint.point, PointRecord):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise GraphRunError("failed to load from checkpoint: damaged agent checkpoint")
    return checkpoint
