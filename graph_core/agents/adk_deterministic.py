"""An agent that always hands over to the same agents when it is done (Eino
`AgentWithDeterministicTransferTo`, `adk/deterministic_transfer.go`).

`agent_with_deterministic_transfer_to(agent, to_agent_names)` runs `agent`, passes its events on, and
then, unless its last event is an interrupt or an `exit`, sends for each name in turn the two events a
model's transfer would have made: an assistant message calling `transfer_to_agent` and the tool's
result with the transfer action (`gen_transfer_messages`). A flow agent around it then runs the named
agent next, as after a model's transfer.

A flow agent wrapped so runs in a session of its own (its events are not the caller's history), which
shares the caller's values; every event it sends that is not an interrupt is also recorded in the
caller's session, so the caller's next agent sees them. When the inner flow interrupts, the wrapper
interrupts in turn (Eino): a composite interrupt ("deterministic transfer wrapper interrupted") whose
state is the isolated session's events (`DeterministicTransferState`), so that `resume` gives the
resumed flow its session back. An agent that can resume gets a wrapper that can
(`ResumableDeterministicTransferAgent`); one that cannot, a wrapper without `resume`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph_core.agents.adk_callbacks import get_agent_type
from graph_core.agents.adk_flow import FlowAgent, for_session
from graph_core.agents.adk_history import gen_transfer_messages
from graph_core.agents.adk_interrupt import ResumeInfo, agent_composite_interrupt
from graph_core.agents.adk_run import AgentEvent, new_transfer_to_agent_action
from graph_core.agents.adk_runctx import (
    RunContext,
    RunSession,
    SessionEvent,
    current_run_ctx,
    iterate_in,
    new_run_ctx,
)
from graph_core.errors import GraphRunError
from graph_core.interrupt import InterruptSignal
from graph_core.schema import Message

__all__ = [
    "DeterministicTransferAgent",
    "DeterministicTransferState",
    "ResumableDeterministicTransferAgent",
    "agent_with_deterministic_transfer_to",
]


class DeterministicTransferAgent:
    """`agent`, followed by transfers to `to_agent_names` (see the module docstring)."""

    def __init__(self, agent: Any, to_agent_names: Sequence[str]) -> None:
        self.agent = agent
        self.to_agent_names = list(to_agent_names)

    @property
    def name(self) -> str:
        return self.agent.name

    @property
    def description(self) -> str:
        return self.agent.description

    def get_type(self) -> str:
        return get_agent_type(self.agent) or "DeterministicTransfer"

    def run(self, messages: Sequence[Message] | str | None = None, **options: Any) -> Iterator[AgentEvent]:
        if isinstance(self.agent, FlowAgent):
            yield from self._run_isolated(messages, options)
            return
        last: AgentEvent | None = None
        for event in self.agent.run(messages, **options):
            yield event
            last = event
        if not _stops(last):
            yield from self._transfers()

    def _run_isolated(
        self, messages: Sequence[Message] | str | None, options: dict[str, Any]
    ) -> Iterator[AgentEvent]:
        """Eino `runFlowAgentWithIsolatedSession`."""
        parent = current_run_ctx() or new_run_ctx()
        isolated = RunContext(
            parent.root_input,
            parent.run_path,
            RunSession(values=parent.session.values, lock=parent.session.lock),
        )
        yield from self._isolated(isolated, parent, self.agent.run(messages, **options))

    def _isolated(
        self, isolated: RunContext, parent: RunContext, events: Iterator[AgentEvent]
    ) -> Iterator[AgentEvent]:
        """Eino `handleFlowAgentEvents`: record in the caller's session, turn an interrupt into the
        wrapper's own, else append the transfers."""
        last: AgentEvent | None = None
        for event in iterate_in(isolated, events):
            if event.action is None or event.action.interrupted is None:
                event, recorded = for_session(event)
                parent.session.add_event(recorded)
            last = event
            if event.action is not None and isinstance(event.action.internal_interrupted, InterruptSignal):
                continue
            yield event
        if (
            last is not None
            and last.action is not None
            and isinstance(last.action.internal_interrupted, InterruptSignal)
        ):
            state = DeterministicTransferState(isolated.session.get_events())
            yield agent_composite_interrupt(
                "deterministic transfer wrapper interrupted", state, last.action.internal_interrupted
            )
            return
        if not _stops(last):
            yield from self._transfers()

    def _transfers(self) -> Iterator[AgentEvent]:
        """Eino `sendTransferEvents`."""
        for name in self.to_agent_names:
            call, result = gen_transfer_messages(name)
            yield AgentEvent("", message=call)
            yield AgentEvent("", message=result, action=new_transfer_to_agent_action(name))


@dataclass(slots=True)
class DeterministicTransferState:
    """What the wrapper of a flow agent saves when the flow interrupts (Eino
    `deterministicTransferState`): the isolated session's events."""

    event_list: list[SessionEvent] = field(default_factory=lambda: [])


class ResumableDeterministicTransferAgent(DeterministicTransferAgent):
    """The wrapper of an agent that can resume (Eino `resumableAgentWithDeterministicTransferTo`)."""

    def resume(self, info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        if not isinstance(self.agent, FlowAgent):
            last: AgentEvent | None = None
            for event in self.agent.resume(info, **options):
                yield event
                last = event
            if not _stops(last):
                yield from self._transfers()
            return
        state = info.interrupt_state
        if not isinstance(state, DeterministicTransferState):
            error = GraphRunError("invalid interrupt state for flowAgent resume in deterministic transfer")
            yield AgentEvent("", error=error)
            return
        parent = current_run_ctx() or new_run_ctx()
        session = RunSession(
            values=parent.session.values, events=list(state.event_list), lock=parent.session.lock
        )
        isolated = RunContext(parent.root_input, parent.run_path, session)
        yield from self._isolated(isolated, parent, self.agent.resume(info, **options))


def _stops(last: AgentEvent | None) -> bool:
    action = last.action if last is not None else None
    return action is not None and (action.interrupted is not None or action.exit)


def agent_with_deterministic_transfer_to(
    agent: Any, to_agent_names: Sequence[str]
) -> DeterministicTransferAgent:
    """Eino `AgentWithDeterministicTransferTo` (its `DeterministicTransferConfig` as two arguments):
    a wrapper with `resume` when `agent` has one."""
    if getattr(agent, "resume", None) is not None:
        return ResumableDeterministicTransferAgent(agent, to_agent_names)
    return DeterministicTransferAgent(agent, to_agent_names)
