"""A ChatModelAgent inside a multi-agent flow or workflow, interrupted and resumed at ADK level (Eino
`ChatModelAgent.handleRunFuncError` and `ChatModelAgent.Resume`, `adk/chatmodel.go`).

The ChatModelAgent checkpoints its graph in its own `checkpoint_store`, under engine addresses. A flow
agent (or workflow) around it, run by a `Runner` with a store, saves only what ADK-level interrupts
carry. So the flow agent turns the ChatModelAgent's interrupt event into an ADK composite interrupt
at its own address (`...;agent:<name>`): one part per root cause (`...;agent:<name>;tool:<tool>:<id>`,
the address a caller's resume data names), the graph checkpoint's bytes (as text) as the saved state,
and the graph's `InterruptInfo` as `data`. The Runner then keeps the whole run in one checkpoint: the
flow position, the session and the agent's graph checkpoint under the agent's address.

On resume the flow agent hands the saved state back: the graph checkpoint is written to the agent's
store again and the agent resumes from it, with the caller's resume data re-keyed from the run's
addresses to the agent's own (`agent:<name>;tool:...`), so its graph continues where it stopped and
the flow goes on after it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from typing import Any

from graph_core.agents.addresses import AGENT_PREFIX
from graph_core.agents.adk_interrupt import ResumeInfo, agent_composite_interrupt
from graph_core.agents.adk_run import AgentEvent
from graph_core.errors import GraphRunError
from graph_core.interrupt import InterruptSignal, address_segment, current_point, interrupt

__all__ = ["as_adk_interrupt", "resume_chat_model_agent"]


def as_adk_interrupt(agent: Any, event: AgentEvent) -> AgentEvent:
    """`event` (the ChatModelAgent's interrupt, already at the flow agent's address) as an ADK composite
    interrupt carrying its graph checkpoint; an event that carries a signal already, or whose
    checkpoint cannot be found, is returned as it is."""
    action = event.action
    if action is None or action.interrupted is None or action.internal_interrupted is not None:
        return event
    raw = agent.checkpoint_store.get(event.checkpoint_id) if event.checkpoint_id else None
    if raw is None:
        return event
    own = AGENT_PREFIX + agent.name
    parts: list[InterruptSignal] = []
    for context in getattr(action.interrupted, "interrupt_contexts", ()):
        if not context.is_root_cause or not context.address.startswith(own + ";"):
            continue
        with ExitStack() as stack:
            for segment in context.address[len(own) + 1 :].split(";"):
                kind, _, ident = segment.partition(":")
                stack.enter_context(address_segment(kind, ident))
            try:
                interrupt(context.info)
            except InterruptSignal as signal:
                parts.append(signal)
    state = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    converted = agent_composite_interrupt(action.interrupted, state, *parts)
    assert converted.action is not None and converted.action.interrupted is not None
    converted.action.interrupted.data = action.interrupted  # Eino's ChatModelAgentInterruptInfo.Info
    return AgentEvent(
        event.agent_name,
        action=converted.action,
        checkpoint_id=event.checkpoint_id,
        run_path=event.run_path,
    )


def resume_chat_model_agent(agent: Any, info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
    """Resume the ChatModelAgent from the graph checkpoint `info` carries as its interrupt state (see the
    module docstring); runs at the flow agent's address, whose saved record holds the resume data."""
    state = info.interrupt_state
    if not isinstance(state, (str, bytes)):
        raise GraphRunError(
            f"ChatModelAgent.Resume: agent '{agent.name}' was asked to resume but has invalid interrupt "
            f"state type: {type(state).__name__}"
        )
    options.setdefault("streaming", info.enable_streaming)  # the run goes on in its mode (Eino)
    record = current_point()
    address = record.address if record is not None else AGENT_PREFIX + agent.name
    checkpoint_id = options.pop("checkpoint_id", None) or address
    agent.checkpoint_store.set(checkpoint_id, state.encode("utf-8") if isinstance(state, str) else state)
    targets = record.resume if record is not None else None
    if targets is None:
        data = info.resume_data
    elif targets.everywhere:  # not keyed by the run's addresses: for every interrupted point
        data = targets.value
    else:
        data = _own_keys(targets.by_address, address, agent.name)
    return agent.resume(checkpoint_id, resume_data=data, **options)


def _own_keys(data: Any, address: str, name: str) -> Any:
    """Resume data keyed by run addresses at or below `address`, re-keyed under `agent:<name>`; data for
    other points is dropped, anything but such a mapping is returned as it is."""
    if not isinstance(data, Mapping) or not data:
        return data
    mapping: dict[Any, Any] = dict(data)  # pyright: ignore[reportUnknownArgumentType]
    own = AGENT_PREFIX + name
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if key == address:
            out[own] = value
        elif isinstance(key, str) and key.startswith(address + ";"):
            out[own + key[len(address) :]] = value
    return out or None
