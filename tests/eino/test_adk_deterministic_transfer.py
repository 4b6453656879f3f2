"""Ports of `adk/deterministic_transfer_test.go` (cloudwego/eino): an agent that hands over to fixed
agents when it is done (`agent_with_deterministic_transfer_to`). Each test names its Go test; the last
tests check what the Go tests leave implicit (a flow around it runs the named agent next)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from graph_core.agents.adk import AgentAction, AgentEvent
from graph_core.agents.adk_deterministic import agent_with_deterministic_transfer_to
from graph_core.agents.adk_flow import set_sub_agents, to_flow_agent
from graph_core.agents.adk_run import event_from_message
from graph_core.agents.adk_runner import Runner
from graph_core.schema import Message

Run = Callable[..., Iterator[AgentEvent]]


class DtTestAgent:
    """Eino's `dtTestAgent` / `nonFlowTestAgent` / `nonResumableTestAgent`: runs a given function."""

    def __init__(self, name: str, run_fn: Run) -> None:
        self.name = name
        self.description = f"{name} description"
        self.run_fn = run_fn

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        return self.run_fn(messages, **options)


def _emit(*events: AgentEvent) -> Run:
    def run(messages: Any, **options: Any) -> Iterator[AgentEvent]:
        yield from events

    return run


def _outer(wrapped: Any, seen: list[AgentEvent]) -> DtTestAgent:
    def run(messages: Any, **options: Any) -> Iterator[AgentEvent]:
        for event in wrapped.run(messages, **options):
            seen.append(event)
            yield event

    return DtTestAgent("outer", run)


def test_deterministic_transfer_run_path_preserved() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferRunPathPreserved"""
    inner = to_flow_agent(DtTestAgent("inner", _emit(event_from_message(Message.assistant("from inner")))))
    wrapped = agent_with_deterministic_transfer_to(inner, [])
    seen: list[AgentEvent] = []
    list(Runner(to_flow_agent(_outer(wrapped, seen)), enable_streaming=True).run([Message.user("test")]))
    assert seen
    assert all(e.run_path == ("outer", "inner") for e in seen)


def test_deterministic_transfer_exit_skips_transfer() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferExitSkipsTransfer"""
    exits = AgentEvent("", message=Message.assistant("inner exits"), action=AgentAction(exit=True))
    inner = to_flow_agent(DtTestAgent("inner", _emit(exits)))
    wrapped = agent_with_deterministic_transfer_to(inner, ["next_agent"])
    seen: list[AgentEvent] = []
    list(Runner(to_flow_agent(_outer(wrapped, seen)), enable_streaming=True).run([Message.user("test")]))
    assert any(e.action is not None and e.action.exit for e in seen)
    assert not any(e.action is not None and e.action.transfer_to_agent for e in seen)


def test_deterministic_transfer_non_flow_agent_exit_skips_transfer() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferNonFlowAgent_ExitSkipsTransfer"""
    exits = AgentEvent("", message=Message.assistant("exiting"), action=AgentAction(exit=True))
    wrapped = agent_with_deterministic_transfer_to(DtTestAgent("test_agent", _emit(exits)), ["next_agent"])
    events = list(wrapped.run([Message.user("test")]))
    assert any(e.action is not None and e.action.exit for e in events)
    assert not any(e.action is not None and e.action.transfer_to_agent for e in events)
    assert len(events) == 1


def test_deterministic_transfer_non_flow_agent_appends_transfer() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferNonFlowAgent_AppendsTransfer"""
    out = event_from_message(Message.assistant("normal output"))
    wrapped = agent_with_deterministic_transfer_to(DtTestAgent("test_agent", _emit(out)), ["next_agent"])
    events = list(wrapped.run([Message.user("test")]))
    targets = [
        e.action.transfer_to_agent for e in events if e.action is not None and e.action.transfer_to_agent
    ]
    assert targets == ["next_agent"]
    assert len(events) > 1


def test_deterministic_transfer_non_flow_agent_interrupt_skips_transfer() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferNonFlowAgent_InterruptSkipsTransfer"""
    interrupt = AgentEvent("", action=AgentAction(interrupted={"data": "test interrupt"}))
    wrapped = agent_with_deterministic_transfer_to(
        DtTestAgent("test_agent", _emit(interrupt)), ["next_agent"]
    )
    events = list(wrapped.run([Message.user("test")]))
    assert any(e.action is not None and e.action.interrupted is not None for e in events)
    assert not any(e.action is not None and e.action.transfer_to_agent for e in events)
    assert len(events) == 1


def test_deterministic_transfer_non_resumable_agent() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferNonResumableAgent (Go's `ResumableAgent`
    type assertion is the absence of a `resume` method)"""
    out = event_from_message(Message.assistant("output"))
    wrapped = agent_with_deterministic_transfer_to(DtTestAgent("non_resumable", _emit(out)), ["next_agent"])
    assert not hasattr(wrapped, "resume")
    assert wrapped.name == "non_resumable"
    assert wrapped.description == "non_resumable description"
    events = list(wrapped.run([Message.user("test")]))
    assert any(e.action is not None and e.action.transfer_to_agent for e in events)


# -- what the Go tests leave implicit -----------------------------------------------------------------


def test_transfer_events_are_eino_transfer_messages_and_the_flow_follows_them() -> None:
    """The appended events are an assistant call of `transfer_to_agent` and its result; a flow agent
    with the target as a sub-agent runs it next, the first agent's turn retold as context."""
    first = agent_with_deterministic_transfer_to(
        DtTestAgent("first", _emit(event_from_message(Message.assistant("first done")))), ["second"]
    )
    second_inputs: list[list[Message]] = []

    def second_run(messages: Any, **options: Any) -> Iterator[AgentEvent]:
        second_inputs.append(list(messages or []))
        yield event_from_message(Message.assistant("second done"))

    flow = set_sub_agents(first, [DtTestAgent("second", second_run)])
    events = list(Runner(flow).query("go"))
    assert [(e.agent_name, e.message.role if e.message else None) for e in events] == [
        ("first", "assistant"),
        ("first", "assistant"),
        ("first", "tool"),
        ("second", "assistant"),
    ]
    call, result = events[1].message, events[2].message
    assert call is not None and call.tool_calls[0].name == "transfer_to_agent"
    assert call.tool_calls[0].arguments == "second"
    assert result is not None and result.content == "successfully transferred to agent [second]"
    assert [m.content for m in second_inputs[0]] == [
        "go",
        "For context: [first] said: first done.",
        "For context: [first] called tool: `transfer_to_agent` with arguments: second.",
        "For context: [first] `transfer_to_agent` tool returned result: "
        "successfully transferred to agent [second].",
    ]
    assert [e.run_path for e in events][-1] == ("first", "second")
