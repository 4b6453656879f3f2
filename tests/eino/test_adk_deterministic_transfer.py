"""Ports of `adk/deterministic_transfer_test.go` (cloudwego/eino): an agent that hands over to fixed
agents when it is done (`agent_with_deterministic_transfer_to`). Each test names its Go test; the last
tests check what the Go tests leave implicit (a flow around it runs the named agent next)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from graph_core.agents.adk import AgentAction, AgentEvent
from graph_core.agents.adk_deterministic import (
    ResumableDeterministicTransferAgent,
    agent_with_deterministic_transfer_to,
)
from graph_core.agents.adk_flow import set_sub_agents, to_flow_agent
from graph_core.agents.adk_interrupt import AgentInterruptInfo, ResumeInfo, agent_interrupt
from graph_core.agents.adk_run import event_from_message
from graph_core.agents.adk_runctx import current_run_ctx
from graph_core.agents.adk_runner import Runner
from graph_core.checkpoint import InMemoryCheckpointStore
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


# -- resuming (ADK-level interrupts inside the wrapper) --------------------------------------------------


class ResumableDtTestAgent(DtTestAgent):
    """Eino's `dtTestAgent` / `nonFlowTestAgent` with a resume function."""

    def __init__(self, name: str, run_fn: Run, resume_fn: Callable[..., Iterator[AgentEvent]]) -> None:
        super().__init__(name, run_fn)
        self.resume_fn = resume_fn

    def resume(self, info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        return self.resume_fn(info, **options)


def _assistant(text: str) -> AgentEvent:
    return event_from_message(Message.assistant(text))


def _own_recorded(where: str) -> None:
    """Both resume functions' check: the session's committed events are the inner agent's one message
    before the interrupt, at run path (outer, inner)."""
    run_ctx = current_run_ctx()
    assert run_ctx is not None, f"{where}: runCtx should not be nil"
    events = [e.event for e in run_ctx.session.events]
    assert len(events) == 1, f"{where}: should have exactly 1 agent event"
    assert events[0].agent_name == "inner"
    assert events[0].message is not None and events[0].message.content == "before interrupt"
    assert events[0].run_path == ("outer", "inner")


def test_deterministic_transfer_flow_agent_interrupt_resume() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferFlowAgentInterruptResume: the wrapped flow
    agent interrupts; the wrapper interrupts around it with its isolated session as state; on resume
    both the outer and the inner agent see the event from before the interrupt, and after the inner
    agent completes the wrapper transfers to a missing agent, which fails naming it."""
    runs: list[str] = []

    def inner_run(messages: Any, **options: Any) -> Iterator[AgentEvent]:
        runs.append("run")
        yield _assistant("before interrupt")
        event = agent_interrupt("interrupt_data")
        assert event.action is not None and isinstance(event.action.interrupted, AgentInterruptInfo)
        event.action.interrupted.data = "interrupt_data"
        yield event

    def inner_resume(info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        runs.append("resume")
        assert info.was_interrupted, "innerAgent resumeFn: should be interrupted"
        assert info.is_resume_target, "innerAgent resumeFn: should be resume target"
        _own_recorded("innerAgent resumeFn")
        yield _assistant("after resume")

    inner = ResumableDtTestAgent("inner", inner_run, inner_resume)
    wrapped = agent_with_deterministic_transfer_to(to_flow_agent(inner), ["next_agent"])
    assert isinstance(wrapped, ResumableDeterministicTransferAgent)

    def outer_resume(info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        assert info.was_interrupted, "outerAgent resumeFn: should be interrupted"
        _own_recorded("outerAgent resumeFn")
        return wrapped.resume(info, **options)

    outer = ResumableDtTestAgent(
        "outer", lambda messages, **options: wrapped.run(messages, **options), outer_resume
    )
    store = InMemoryCheckpointStore()
    runner = Runner(to_flow_agent(outer), enable_streaming=True, checkpoint_store=store)
    events = list(runner.run([Message.user("test")], checkpoint_id="cp1"))
    assert runs == ["run"], "run should have been called once"
    interrupts = [e for e in events if e.action is not None and e.action.interrupted is not None]
    assert interrupts, "should have interrupted"
    interrupt_event = interrupts[-1]
    assert isinstance(interrupt_event.action.interrupted, AgentInterruptInfo)  # pyright: ignore[reportOptionalMemberAccess]
    contexts = interrupt_event.action.interrupted.interrupt_contexts  # pyright: ignore[reportOptionalMemberAccess]
    assert contexts, "should have interrupt contexts"
    assert store.get("cp1") is not None, "checkpoint should have been saved"
    infos: list[Any] = []
    for context in contexts:
        infos.extend(c.info for c in context.outermost_first())
    assert "deterministic transfer wrapper interrupted" in infos
    root_cause = next(c.id for c in contexts if c.is_root_cause)
    assert root_cause, "should have root cause interrupt ID"

    resume_events = list(runner.resume("cp1", resume_data={root_cause: None}))
    assert runs == ["run", "resume"], "inner agent should be called twice"
    assert resume_events, "should have resume events"
    assert any(e.action is not None and e.action.transfer_to_agent for e in resume_events)
    errors = [e.error for e in resume_events if e.error is not None]
    assert errors, "transfer should fail because next_agent doesn't exist"
    assert "next_agent" in str(errors[-1])


def test_deterministic_transfer_non_flow_agent_resume() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferNonFlowAgent_Resume: resuming the wrapper
    resumes the agent and then transfers."""
    resumed: list[ResumeInfo] = []

    def resume_fn(info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        resumed.append(info)
        yield _assistant("from resume")

    agent = ResumableDtTestAgent("test_agent", _emit(_assistant("from run")), resume_fn)
    wrapped = agent_with_deterministic_transfer_to(agent, ["next_agent"])
    assert isinstance(wrapped, ResumableDeterministicTransferAgent), "wrapped agent should be resumable"
    events = list(wrapped.resume(ResumeInfo(was_interrupted=True)))
    assert resumed, "resume should have been called on inner agent"
    assert any(e.action is not None and e.action.transfer_to_agent for e in events)


def test_deterministic_transfer_flow_agent_resume_with_invalid_state() -> None:
    """deterministic_transfer_test.go TestDeterministicTransferFlowAgent_ResumeWithInvalidState."""
    inner = DtTestAgent("inner", _emit(_assistant("test")))
    wrapped = agent_with_deterministic_transfer_to(to_flow_agent(inner), ["next_agent"])
    assert isinstance(wrapped, ResumableDeterministicTransferAgent), "wrapped flowAgent should be resumable"
    errors = [e.error for e in wrapped.resume(ResumeInfo(was_interrupted=True)) if e.error is not None]
    assert errors, "should get error for invalid state"
    assert "invalid interrupt state" in str(errors[-1])
