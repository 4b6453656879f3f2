"""Agents that hand the conversation to each other (Eino `flowAgent`, `adk/flow.go`).

`set_sub_agents(agent, sub_agents)` returns a `FlowAgent`: the agent, wrapped so that its run

1. starts in the run context (`adk_runctx`): its name appended to the run path, the run's session;
2. gets its input from the run's root input and every event recorded in the session so far, through
   its history rewriter (by default, other agents' messages become user messages "For context: [A]
   said: ..." (`rewrite_message`); its own and the user's stay as they are);
3. records its own events in the session (those whose run path is exactly its own and that are not
   interrupts), so the next agent sees them;
4. acts on the action of its own last event: an interrupt or `exit` ends the run; a transfer runs the
   named sub-agent or parent next, with no input of its own (it builds it from the session), and the
   whole callback list.

Actions of events from deeper run paths (an agent tool's inner run forwarding its events) are passed
on, never acted upon. A ChatModelAgent with sub-agents, or with a parent it may transfer back to
(unless `agent_with_options(..., disallow_transfer_to_parent=True)`), gets the `transfer_to_agent`
tool (`adk_transfer`).

Agent callbacks (`on_start` with the processed input, `on_end` with the events) fire once per agent:
by the ChatModelAgent itself (`handles_agent_callbacks`), else by the flow agent. Designated handlers
reach only their agents; a workflow's inner agents get its handlers too (`nested_callbacks`).

**Addresses and resume** (Eino `flowAgent.Resume`). Every flow agent but the run's first adds its
segment `agent:<name>` to the address its agent (and the agents it transfers to) run at; the first one's
is the run's root address (`adk_interrupt.run_agent`). A ChatModelAgent runs outside these segments: its
graph keeps its own addresses and checkpoints; when the run saves ADK-level interrupts, its interrupt is
reported as one carrying its graph checkpoint, and resumed from it (`adk_flow_chatmodel`).
`resume(info)` reads the saved record at its address: an agent interrupted there is resumed with its
`ResumeInfo` (a workflow from its saved position), else the one sub-agent (or parent) under it that
leads to the interrupted point is resumed in turn.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack
from contextvars import copy_context
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from graph_core.agents.adk_callbacks import (
    AgentCallbackInput,
    EventTee,
    filter_options,
    get_agent_type,
    handlers_for,
    nested_callbacks,
)
from graph_core.agents.adk_flow_chatmodel import as_adk_interrupt, resume_chat_model_agent
from graph_core.agents.adk_history import rewrite_message
from graph_core.agents.adk_interrupt import (
    ResumeInfo,
    interrupts_are_saved,
    next_resume_agents,
    resume_info_here,
)
from graph_core.agents.adk_run import AgentEvent
from graph_core.agents.adk_runctx import (
    RunContext,
    current_run_ctx,
    exact_run_path_match,
    init_run_ctx,
    iterate_in,
    new_run_ctx,
)
from graph_core.agents.adk_stream import MessageStream
from graph_core.errors import GraphBuildError, GraphRunError, WillRetryError
from graph_core.interrupt import address_segment, outside_address_segments
from graph_core.schema import Message

T = TypeVar("T")

__all__ = [
    "FlowAgent",
    "HistoryEntry",
    "HistoryRewriter",
    "agent_with_options",
    "default_history_rewriter",
    "for_session",
    "set_sub_agents",
    "to_flow_agent",
]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One message of the history an agent's input is built from (Eino `HistoryEntry`)."""

    is_user_input: bool
    agent_name: str
    message: Message


HistoryRewriter = Callable[[list[HistoryEntry]], list[Message]]


def default_history_rewriter(agent_name: str) -> HistoryRewriter:
    """Eino `buildDefaultHistoryRewriter`: the user's input and `agent_name`'s own messages as they
    are, every other agent's rewritten as a user message ("For context: ...")."""

    def rewrite(entries: list[HistoryEntry]) -> list[Message]:
        return [
            e.message
            if e.is_user_input or e.agent_name == agent_name
            else rewrite_message(e.message, e.agent_name)
            for e in entries
        ]

    return rewrite


class FlowAgent:
    """An agent in a multi-agent flow (see the module docstring); made by `set_sub_agents`,
    `agent_with_options` and the workflow constructors, not directly."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.sub_agents: list[FlowAgent] = []
        self.parent_agent: FlowAgent | None = None
        self.disallow_transfer_to_parent = False
        self.history_rewriter: HistoryRewriter = default_history_rewriter(agent.name)

    @property
    def name(self) -> str:
        return self.agent.name

    @property
    def description(self) -> str:
        return self.agent.description

    def get_type(self) -> str:
        return get_agent_type(self.agent)

    def deep_copy(self) -> FlowAgent:
        """Eino `flowAgent.deepCopy`: the same agent and parent, copies of the sub-agents."""
        copied = copy.copy(self)
        copied.sub_agents = [s.deep_copy() for s in self.sub_agents]
        return copied

    def get_agent(self, name: str) -> FlowAgent | None:
        """A sub-agent, or the parent, by name: where a transfer may go."""
        for sub in self.sub_agents:
            if sub.name == name:
                return sub
        if self.parent_agent is not None and self.parent_agent.name == name:
            return self.parent_agent
        return None

    def gen_agent_input(self, run_ctx: RunContext, skip_transfer_messages: bool = False) -> list[Message]:
        """Eino `genAgentInput`: the root input, then the session's recorded messages, rewritten."""
        entries = [HistoryEntry(True, "", m) for m in run_ctx.root_input or []]
        for recorded in run_ctx.session.get_events():
            event: AgentEvent = recorded.event
            if skip_transfer_messages and event.action is not None and event.action.transfer_to_agent:
                if event.message is not None and event.message.role == "tool" and entries:
                    entries.pop()  # the assistant message that called the transfer tool
                continue
            try:
                message = event.get_message()
            except WillRetryError:
                continue  # a failed attempt the agent retried
            if message is not None:
                entries.append(HistoryEntry(False, event.agent_name, message))
        return list(self.history_rewriter(entries))

    # -- running ----------------------------------------------------------------------------------------

    def run(
        self,
        messages: Sequence[Message] | str | None = None,
        *,
        callbacks: Sequence[Any] | None = None,
        session: dict[str, Any] | None = None,
        skip_transfer_messages: bool = False,
        **options: Any,
    ) -> Iterator[AgentEvent]:
        """The agent's events, then those of the agents it transfers to. `messages` is the root input
        (a sub-agent is run with None and builds its input from the session); `session` the run's
        values when this is the first agent of the run; `options` go to the agent's `run` (for
        example `streaming=True`)."""
        if isinstance(messages, str):
            messages = [Message.user(messages)]
        parent = current_run_ctx() or new_run_ctx(messages, values=session)
        run_ctx = init_run_ctx(parent, self.name, messages)
        options_list = list(callbacks or ())
        try:
            processed = self.gen_agent_input(run_ctx, skip_transfer_messages)
        except Exception as exc:
            yield from self._failed_at_start(options_list, list(messages or []), exc)
            return
        if getattr(self.agent, "is_workflow", False):
            body = self._run_workflow(run_ctx, processed, options_list, options)
        else:
            body = self._run_agent(run_ctx, processed, options_list, options)
        yield from in_agent_segment(self.name, bool(parent.run_path), body)

    def resume(
        self, info: ResumeInfo, *, callbacks: Sequence[Any] | None = None, **options: Any
    ) -> Iterator[AgentEvent]:
        """Continue an interrupted flow (Eino `flowAgent.Resume`): the agent itself if it was
        interrupted (a workflow from its saved position), else the one sub-agent (or parent) the
        interrupted address leads to. `info` is the caller's; the first flow agent of the run gets
        its own (`resume_agent`), the others read theirs at their `agent:` address."""
        parent = current_run_ctx() or new_run_ctx()
        run_ctx = init_run_ctx(parent, self.name, None)
        nested = bool(parent.run_path)
        body = self._resume(run_ctx, info, nested, list(callbacks or ()), options)
        yield from in_agent_segment(self.name, nested, body)

    def _resume(
        self,
        run_ctx: RunContext,
        info: ResumeInfo,
        nested: bool,
        options_list: list[Any],
        options: dict[str, Any],
    ) -> Iterator[AgentEvent]:
        if nested:
            info = resume_info_here(info)
        resume: Callable[..., Iterator[AgentEvent]] | None = getattr(self.agent, "resume", None)
        if info.was_interrupted:
            if resume is None:
                error = GraphRunError(
                    f"failed to resume agent: agent '{self.name}' is an interrupt point but is not a "
                    "ResumableAgent"
                )
                yield from self._failed_at_start(options_list, [], error)
            elif getattr(self.agent, "is_workflow", False):
                yield from self._run_workflow(run_ctx, [], options_list, options, info)
            else:
                yield from self._run_agent(run_ctx, [], options_list, options, info)
            return
        names = next_resume_agents()
        if len(names) != 1:
            reason = (
                "no child agents leading to interrupted agent were found"
                if not names
                else "agent has multiple child agents leading to interruption, but concurrent transfer "
                "is not supported"
            )
            yield from self._failed_at_start(options_list, [], GraphRunError(reason))
            return
        target = self.get_agent(names[0])
        if target is None:
            error = GraphRunError(
                f"failed to resume agent: sub-agent '{names[0]}' not found in agent '{self.name}'"
                if self.sub_agents or resume is None
                else f"failed to resume agent: agent '{self.name}' has no sub-agent '{names[0]}'"
            )
            yield from self._failed_at_start(options_list, [], error)
            return
        yield from iterate_in(run_ctx, target.resume(info, callbacks=options_list, **options))

    def _tee(self, options_list: list[Any], payload: list[Message]) -> EventTee:
        handlers = handlers_for(self.name, options_list)
        return EventTee(handlers, self.name, get_agent_type(self.agent), AgentCallbackInput(payload))

    def _failed_at_start(
        self, options_list: list[Any], payload: list[Message], exc: Exception
    ) -> Iterator[AgentEvent]:
        tee = self._tee(options_list, payload)
        try:
            yield tee.send(AgentEvent(self.name, error=exc))
        finally:
            tee.close()

    def _run_workflow(
        self,
        run_ctx: RunContext,
        processed: list[Message],
        options_list: list[Any],
        options: dict[str, Any],
        resume_info: ResumeInfo | None = None,
    ) -> Iterator[AgentEvent]:
        """A workflow reports its own callbacks here, with every event of its sub-agents (Eino
        `wrapIterWithOnEnd`); its sub-agents record their events themselves."""
        tee = self._tee(options_list, processed)
        nested = nested_callbacks(self.name, options_list)
        if resume_info is None:
            events = self.agent.run(processed, callbacks=nested, **options)
        else:
            events = self.agent.resume(resume_info, callbacks=nested, **options)
        try:
            for event in iterate_in(run_ctx, events):
                yield tee.send(event)
        finally:
            tee.close()

    def _run_agent(
        self,
        run_ctx: RunContext,
        processed: list[Message],
        options_list: list[Any],
        options: dict[str, Any],
        resume_info: ResumeInfo | None = None,
    ) -> Iterator[AgentEvent]:
        tee = (
            None
            if getattr(self.agent, "handles_agent_callbacks", False)
            else self._tee(options_list, processed)
        )
        inner = {**options, "callbacks": filter_options(self.name, options_list)}
        inner.setdefault("session", run_ctx.session.values)
        last_action = None
        try:
            try:
                chat_model = hasattr(self.agent, "use_checkpoint_store")
                if resume_info is None:
                    events = self.agent.run(processed, **inner)
                elif chat_model:  # resumed from the graph checkpoint saved as its state
                    events = resume_chat_model_agent(self.agent, resume_info, **inner)
                else:
                    events = self.agent.resume(resume_info, **inner)
                if chat_model:  # its graph keeps its own addresses
                    events = _iterate_within(outside_address_segments(), events)
                for event in iterate_in(run_ctx, events):
                    if chat_model and interrupts_are_saved():
                        event = as_adk_interrupt(self.agent, event)
                    if not event.run_path:  # Eino: the framework sets the run path once
                        event = replace(event, agent_name=self.name, run_path=run_ctx.run_path)
                    own = exact_run_path_match(run_ctx.run_path, event.run_path)
                    interrupted = event.action is not None and event.action.interrupted is not None
                    if own and not interrupted:
                        event, recorded = for_session(event)
                        run_ctx.session.add_event(recorded)
                    if own:
                        last_action = event.action
                    yield tee.send(event) if tee is not None else event
            except Exception as exc:  # Eino recovers a panicking agent into an error event
                error = AgentEvent(self.name, error=exc, run_path=run_ctx.run_path)
                yield tee.send(error) if tee is not None else error
                return
        finally:
            if tee is not None:
                tee.close()
        if last_action is None or last_action.interrupted is not None or last_action.exit:
            return
        dest = last_action.transfer_to_agent
        if not dest:
            return
        target = self.get_agent(dest)
        if target is None:
            error = GraphRunError(
                f"transfer failed: agent '{dest}' not found when transferring from '{self.name}'"
            )
            yield AgentEvent("", error=error)
            return
        yield from iterate_in(run_ctx, target.run(None, callbacks=options_list, **options))

    def __repr__(self) -> str:
        subs = [s.name for s in self.sub_agents]
        return f"FlowAgent({self.name!r}, sub_agents={subs})"


def in_agent_segment(name: str, nested: bool, events: Iterator[T]) -> Iterator[T]:
    """`events` iterated at the address `...;agent:<name>` (Eino: each flow agent appends its
    segment), unless this is the first agent of the run, whose `agent:<name>` is the run's root
    address (`run_agent`)."""
    if not nested:
        return events
    return _iterate_within(address_segment("agent", name), events)


def _iterate_within(manager: AbstractContextManager[Any], events: Iterator[T]) -> Iterator[T]:
    """`events` iterated in a context of their own, inside `manager` (entered and left there)."""
    context = copy_context()
    stack = ExitStack()
    context.run(stack.enter_context, manager)
    done = object()
    try:
        while (item := context.run(next, events, done)) is not done:
            yield item  # pyright: ignore[reportReturnType]
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            context.run(close)
        context.run(stack.close)


def for_session(event: AgentEvent) -> tuple[AgentEvent, AgentEvent]:
    """The event to pass on and the copy to record. A stream read once (a plain iterator) is read
    here, so both sides get the whole stream (the recorded copy as a `MessageStream`, which every
    later agent's input reads again); a `MessageStream` is read again by every reader."""
    stream = event.message_stream
    if stream is None or isinstance(stream, MessageStream):
        return event, event
    chunks: list[Message] = []
    failure: Exception | None = None
    try:
        for chunk in stream:
            chunks.append(chunk)
    except Exception as exc:
        failure = exc
    recorded = MessageStream()  # every later agent's input reads it again
    for chunk in chunks:
        recorded.put(chunk)
    recorded.close(failure)
    return replace(event, message_stream=_replay(chunks, failure)), replace(event, message_stream=recorded)


def _replay(chunks: list[Message], failure: Exception | None) -> Iterator[Message]:
    yield from chunks
    if failure is not None:
        raise failure


# -- building flows --------------------------------------------------------------------------------------


def to_flow_agent(
    agent: Any,
    *,
    disallow_transfer_to_parent: bool | None = None,
    history_rewriter: HistoryRewriter | None = None,
) -> FlowAgent:
    """Eino `toFlowAgent`: a flow agent for `agent` (a copy if it is one already), options applied."""
    flow = agent.deep_copy() if isinstance(agent, FlowAgent) else FlowAgent(agent)
    if disallow_transfer_to_parent is not None:
        flow.disallow_transfer_to_parent = disallow_transfer_to_parent
    if history_rewriter is not None:
        flow.history_rewriter = history_rewriter
    return flow


def agent_with_options(
    agent: Any,
    *,
    disallow_transfer_to_parent: bool = False,
    history_rewriter: HistoryRewriter | None = None,
) -> FlowAgent:
    """Eino `AgentWithOptions` (`WithDisallowTransferToParent`, `WithHistoryRewriter`)."""
    return to_flow_agent(
        agent,
        disallow_transfer_to_parent=disallow_transfer_to_parent or None,
        history_rewriter=history_rewriter,
    )


def set_sub_agents(agent: Any, sub_agents: Sequence[Any]) -> FlowAgent:
    """Eino `SetSubAgents`: `agent` as a flow agent whose run may transfer to `sub_agents` (and they
    back to it, unless made with `disallow_transfer_to_parent=True`). The agents are told through
    their `on_set_sub_agents`, `on_set_as_sub_agent` and `on_disallow_transfer_to_parent`, if they
    have them (a ChatModelAgent adds the transfer tool)."""
    flow = to_flow_agent(agent)
    if flow.sub_agents:
        raise GraphBuildError("agent's sub-agents has already been set")
    on_set = getattr(flow.agent, "on_set_sub_agents", None)
    if on_set is not None:
        on_set(list(sub_agents))
    for sub in sub_agents:
        child = to_flow_agent(sub)
        if child.parent_agent is not None:
            raise GraphBuildError("agent has already been set as a sub-agent of another agent")
        child.parent_agent = flow
        on_parent = getattr(child.agent, "on_set_as_sub_agent", None)
        if on_parent is not None:
            on_parent(agent)
            if child.disallow_transfer_to_parent:
                child.agent.on_disallow_transfer_to_parent()
        flow.sub_agents.append(child)
    return flow
