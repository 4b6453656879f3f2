"""Ports of Eino's `adk/interrupt_test.go` (cloudwego/eino ca0441ac0bce) for ADK-level interrupts of
custom agents (`graph_core.agents.adk_interrupt`): `Interrupt`, `StatefulInterrupt` and
`CompositeInterrupt` events, the Runner that saves and resumes them with a `ResumeInfo`, and such an
agent inside an agent tool. Go's `ResumeWithParams(..., Targets)` is `resume(..., resume_data=targets)`.
The tests after the ports check what the ports leave out: saved state, parts, the saved bytes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import pytest

from graph_core.agents.addresses import signal_contexts
from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.adk_agent_tool import AgentTool
from graph_core.agents.adk_interrupt import (
    AgentInterruptInfo,
    ResumeInfo,
    agent_composite_interrupt,
    agent_interrupt,
    agent_stateful_interrupt,
    read_agent_checkpoint,
)
from graph_core.agents.adk_runner import Runner
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import GraphRunError
from graph_core.interrupt import (
    InterruptContext,
    InterruptSignal,
    address_segment,
    get_interrupt_state,
    get_resume_data,
    is_resume_target,
    was_interrupted,
)
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall

RunFn = Callable[[Sequence[Message]], Iterable[AgentEvent]]
ResumeFn = Callable[[ResumeInfo], Iterable[AgentEvent]]


class MyAgent:
    """Go `myAgent`: its run and resume are the test's functions."""

    description = "myAgent description"

    def __init__(self, run_fn: RunFn, resume_fn: ResumeFn, name: str = "myAgent") -> None:
        self.name = name
        self.run_fn = run_fn
        self.resume_fn = resume_fn

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        yield from self.run_fn([m for m in messages or [] if isinstance(m, Message)])

    def resume(self, info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        yield from self.resume_fn(info)


def _interrupted(event: AgentEvent) -> AgentInterruptInfo:
    assert event.action is not None and isinstance(event.action.interrupted, AgentInterruptInfo)
    return event.action.interrupted


def _signal(event: AgentEvent) -> InterruptSignal:
    assert event.action is not None and isinstance(event.action.internal_interrupted, InterruptSignal)
    return event.action.internal_interrupted


def _only_root(event: AgentEvent) -> InterruptContext:
    contexts = _interrupted(event).interrupt_contexts
    assert len(contexts) == 1
    return contexts[0]


# -- TestInterruptFunctionsPopulateInterruptContextsImmediately ----------------------------------------


def test_interrupt_populates_interrupt_contexts() -> None:
    """interrupt_test.go TestInterruptFunctionsPopulateInterruptContextsImmediately, "Interrupt
    populates InterruptContexts" """
    with address_segment("agent", "TestAgent"):
        event = agent_interrupt("test info")
    context = _only_root(event)
    assert context.info == "test info"
    assert context.is_root_cause
    assert context.address == "agent:TestAgent"


def test_stateful_interrupt_populates_interrupt_contexts() -> None:
    """interrupt_test.go TestInterruptFunctionsPopulateInterruptContextsImmediately, "StatefulInterrupt
    populates InterruptContexts" (and the state rides on the signal, to be saved)"""
    with address_segment("agent", "TestAgent"):
        event = agent_stateful_interrupt("stateful info", "my state")
    context = _only_root(event)
    assert context.info == "stateful info"
    assert context.is_root_cause
    assert _signal(event).has_state and _signal(event).state == "my state"


def test_composite_interrupt_populates_interrupt_contexts_with_filtered_parent_chain() -> None:
    """interrupt_test.go TestInterruptFunctionsPopulateInterruptContextsImmediately, "CompositeInterrupt
    populates InterruptContexts with filtered parent chain" """
    with address_segment("agent", "TestAgent"):
        with address_segment("agent", "SubAgent"):
            sub_event = agent_interrupt("sub info")
        event = agent_composite_interrupt("composite info", "composite state", _signal(sub_event))
    root_cause = _only_root(event)
    assert root_cause.info == "sub info"
    assert root_cause.is_root_cause
    assert root_cause.address == "agent:TestAgent;agent:SubAgent"
    assert root_cause.parent_context is not None, "Parent should not be nil for composite interrupt"
    assert root_cause.parent_context.info == "composite info"
    assert root_cause.parent_context.address == "agent:TestAgent"
    assert root_cause.parent == "agent:TestAgent"


def test_interrupt_address_only_contains_agent_and_tool_segments() -> None:
    """interrupt_test.go TestInterruptFunctionsPopulateInterruptContextsImmediately, "Address only
    contains agent/tool segments": the signal's address starts with the engine's `runnable:` segment,
    the contexts' do not"""
    with address_segment("agent", "TestAgent"):
        event = agent_interrupt("test info")
    assert _signal(event).address.startswith("runnable:")
    for segment in _only_root(event).address.split(";"):
        assert segment.startswith(("agent:", "tool:")), f"Address should only contain agent/tool: {segment}"


# -- TestSimpleInterrupt ---------------------------------------------------------------------------------


def test_simple_interrupt() -> None:
    """interrupt_test.go TestSimpleInterrupt: a custom agent streams a message, then interrupts; the
    Runner saves the run under checkpoint "1" and resumes it with a `ResumeInfo` targeting the agent."""
    data = "hello world"
    resumed: list[ResumeInfo] = []

    def run_fn(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        stream = iter([Message.user("hello "), Message.user("world")])
        yield AgentEvent("myAgent", message_stream=stream)
        event = agent_interrupt(data)
        _interrupted(event).data = data
        yield event

    def resume_fn(info: ResumeInfo) -> Iterator[AgentEvent]:
        resumed.append(info)
        return iter(())

    runner = Runner(
        MyAgent(run_fn, resume_fn), enable_streaming=True, checkpoint_store=InMemoryCheckpointStore()
    )
    events = list(runner.query("hello world", checkpoint_id="1"))
    assert len(events) == 2
    assert events[0].is_streaming
    interrupt_event = events[1]
    assert _interrupted(interrupt_event).data == data
    context = _interrupted(interrupt_event).interrupt_contexts[0]
    assert context.id
    assert context.is_root_cause
    assert context.info == data
    assert context.address == "agent:myAgent"
    assert interrupt_event.checkpoint_id == "1"

    assert list(runner.resume("1", resume_data={context.id: None})) == []
    [info] = resumed
    assert info.was_interrupted
    assert info.interrupt_state is None
    assert info.enable_streaming
    assert info.data == data
    assert info.is_resume_target


# -- TestChatModelAgentToolInterrupt ---------------------------------------------------------------------


def test_chat_model_agent_tool_interrupt() -> None:
    """interrupt_test.go TestChatModelAgentToolInterrupt: a custom agent used as a ChatModelAgent's tool
    interrupts at ADK level; resuming without data makes it interrupt again (it is not the target),
    resuming with data aimed at it completes it and then the outer agent."""
    resumed: list[ResumeInfo] = []

    def run_fn(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        event = agent_interrupt("hello world")
        _interrupted(event).data = "hello world"
        yield event

    def resume_fn(info: ResumeInfo) -> Iterator[AgentEvent]:
        resumed.append(info)
        assert info is not None
        assert not info.enable_streaming
        if not info.is_resume_target:
            event = agent_interrupt("interrupt again")
            _interrupted(event).data = "interrupt again"
            yield event
            return
        assert info.resume_data is not None
        assert info.resume_data == "resume sa"
        yield AgentEvent("myAgent", message=Message.user(f"my agent completed with data {info.resume_data}"))

    agent = ChatModelAgent(
        name="name",
        description="description",
        instruction="instruction",
        model=ScriptedChatModel(
            [
                Message.assistant(
                    "", tool_calls=[ToolCall(id="1", name="myAgent", arguments='{"request":"123"}')]
                ),
                Message.assistant("completed"),
            ]
        ),
        tools=[AgentTool(MyAgent(run_fn, resume_fn))],
    )
    runner = Runner(agent, checkpoint_store=InMemoryCheckpointStore())

    events = list(runner.query("hello world", checkpoint_id="1"))
    assert len(events) == 2
    assert events[1].error is None
    assert events[1].action is not None and events[1].action.interrupted is not None

    events = list(runner.resume("1"))
    assert len(events) == 1
    [event] = events
    assert event.error is None
    assert event.action is not None and event.action.interrupted is not None
    contexts: list[InterruptContext] = event.action.interrupted.interrupt_contexts
    assert len(contexts) == 1
    for context in contexts:
        if context.is_root_cause:
            assert context.address == "agent:name;tool:myAgent:1;agent:myAgent"
            assert context.info == "interrupt again"
    tool_interrupt_id = next((c.id for c in contexts if c.is_root_cause), "")
    assert tool_interrupt_id
    assert [i.is_resume_target for i in resumed] == [False]

    events = list(runner.resume("1", resume_data={tool_interrupt_id: "resume sa"}))
    assert len(events) == 2
    assert [e.error for e in events] == [None, None]
    assert events[0].message is not None
    assert events[0].message.content == "my agent completed with data resume sa"
    assert events[1].message is not None and events[1].message.content == "completed"


# -- beyond the ports --------------------------------------------------------------------------------------


def test_stateful_interrupt_state_comes_back_in_resume_info_and_scope() -> None:
    """The saved state reaches the resumed agent twice: as `ResumeInfo.interrupt_state`, and through
    `get_interrupt_state()`/`was_interrupted()` while it runs; data for every point reaches it too."""
    seen: list[tuple[Any, bool, Any, bool, Any]] = []

    def run_fn(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        assert not was_interrupted()
        yield agent_stateful_interrupt("need input", {"draft": "v1"})

    def resume_fn(info: ResumeInfo) -> Iterator[AgentEvent]:
        seen.append(
            (
                info.interrupt_state,
                was_interrupted(),
                get_interrupt_state(),
                is_resume_target(),
                get_resume_data(),
            )
        )
        yield AgentEvent(
            "myAgent", message=Message.assistant(f"{info.resume_data}: {info.interrupt_state['draft']}")
        )

    store = InMemoryCheckpointStore()
    runner = Runner(MyAgent(run_fn, resume_fn), checkpoint_store=store)
    [stop] = list(runner.run([Message.user("go")], checkpoint_id="cp"))
    assert _only_root(stop).info == "need input"
    events = list(runner.resume("cp", resume_data="approved"))
    assert [e.message.content for e in events if e.message is not None] == ["approved: v1"]
    assert seen == [({"draft": "v1"}, True, {"draft": "v1"}, True, "approved")]


def test_composite_agent_parts_resume_on_their_own() -> None:
    """A custom agent whose two parts (sub-agents run inside `address_segment("agent", ...)`) interrupt
    reports both as root causes under itself; data aimed at one part reaches that part only, the other
    interrupts again with its saved state, and the agent re-interrupts as a composite, keeping what is
    done in its own state."""

    def part(name: str) -> AgentEvent:
        with address_segment("agent", name):
            if not was_interrupted():
                return agent_stateful_interrupt(f"{name}?", {"asked": name})
            if not is_resume_target():
                return agent_stateful_interrupt(f"{name} again?", get_interrupt_state())
            return AgentEvent(name, message=Message.assistant(f"{name}: {get_resume_data()}"))

    def body(done: dict[str, str]) -> Iterator[AgentEvent]:
        signals: list[InterruptSignal] = []
        for name in ("a", "b"):
            if name in done:
                continue
            event = part(name)
            if event.message is not None:
                done[name] = event.message.content
                yield event
            else:
                signals.append(_signal(event))
        if signals:
            yield agent_composite_interrupt("parts waiting", {"done": done}, *signals)
        else:
            yield AgentEvent("boss", message=Message.assistant(", ".join(done.values())))

    def resume_fn(info: ResumeInfo) -> Iterator[AgentEvent]:
        assert info.was_interrupted and info.is_resume_target and info.resume_data is None
        yield from body(dict(info.interrupt_state["done"]))

    runner = Runner(
        MyAgent(lambda _m: body({}), resume_fn, name="boss"), checkpoint_store=InMemoryCheckpointStore()
    )
    [stop] = list(runner.query("go", checkpoint_id="cp"))
    contexts = _interrupted(stop).interrupt_contexts
    assert [(c.address, c.info, c.parent) for c in contexts] == [
        ("agent:boss;agent:a", "a?", "agent:boss"),
        ("agent:boss;agent:b", "b?", "agent:boss"),
    ]
    assert {c.parent_context.info for c in contexts if c.parent_context is not None} == {"parts waiting"}

    events = list(runner.resume("cp", resume_data={"agent:boss;agent:a": "yes"}))
    assert [e.message.content for e in events if e.message is not None] == ["a: yes"]
    [again] = [e for e in events if e.action is not None]
    assert [(c.address, c.info) for c in _interrupted(again).interrupt_contexts] == [
        ("agent:boss;agent:b", "b again?")
    ]
    raw = runner.checkpoint_store.get("cp")
    assert raw is not None
    saved = read_agent_checkpoint(raw)
    assert saved.point.state == {"done": {"a": "a: yes"}}
    assert list(saved.point.children) == ["agent:b"] and saved.point.children["agent:b"].state == {
        "asked": "b"
    }

    events = list(runner.resume("cp", resume_data={"agent:boss;agent:b": "ok"}))
    assert [e.message.content for e in events if e.message is not None] == ["b: ok", "a: yes, b: ok"]
    assert all(e.action is None for e in events)


def test_agent_runs_as_its_own_point_outside_the_callers_context() -> None:
    """The agent's steps run in a context whose root point is `agent:<name>`; the caller's code between
    two events does not run there."""

    def run_fn(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        yield AgentEvent("myAgent", message=Message.assistant("one"))
        yield agent_interrupt("stop")

    runner = Runner(MyAgent(run_fn, lambda _i: ()), checkpoint_store=InMemoryCheckpointStore())
    iterator = runner.query("go", checkpoint_id="cp")
    next(iterator)
    outside = agent_interrupt("outside")  # the caller, between two events: no agent segment here
    assert _only_root(outside).address == ""
    stop = next(iterator)
    assert stop.agent_name == "myAgent"
    assert _only_root(stop).address == "agent:myAgent"


def test_saved_checkpoint_resumes_with_a_fresh_agent_and_runner() -> None:
    """What the Runner saves is JSON in the store: another Runner with another agent object resumes it."""
    store = InMemoryCheckpointStore()
    runner = Runner(
        MyAgent(lambda _m: [agent_stateful_interrupt("i", (1, "two"))], lambda _i: ()), checkpoint_store=store
    )
    list(runner.query("go", checkpoint_id="cp"))
    assert store.get("cp").startswith(b'{"checkpoint":')  # type: ignore[union-attr]
    infos: list[ResumeInfo] = []
    fresh = MyAgent(lambda _m: (), lambda info: infos.append(info) or ())
    assert list(Runner(fresh, checkpoint_store=store).resume("cp")) == []
    [info] = infos
    assert info.interrupt_state == (1, "two") and not info.is_resume_target and info.resume_data is None


def test_custom_agent_refuses_a_graph_checkpoint() -> None:
    """A custom agent cannot resume from a ChatModelAgent's graph checkpoint: the error says what the
    bytes are not."""
    store = InMemoryCheckpointStore()
    store.set("cp", b'{"format": "graph_core.checkpoint", "version": 1}')
    runner = Runner(MyAgent(lambda _m: (), lambda _i: ()), checkpoint_store=store)
    with pytest.raises(GraphRunError, match="not an agent checkpoint"):
        runner.resume("cp")


def test_second_interrupt_in_one_run_is_an_error() -> None:
    """Eino's runner refuses a run with two interrupt actions (its panic, recovered as an error event)."""

    def run_fn(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        yield agent_interrupt("one")
        yield agent_interrupt("two")

    events = list(
        Runner(MyAgent(run_fn, lambda _i: ()), checkpoint_store=InMemoryCheckpointStore()).query("go")
    )
    assert len(events) == 2 and events[0].error is None
    assert isinstance(events[1].error, GraphRunError) and "multiple interrupt actions" in str(events[1].error)


def test_state_the_codec_cannot_write_is_an_error_event() -> None:
    """A state the checkpoint cannot hold: an error event first (Eino: failed to save checkpoint), then
    the interrupt event without a checkpoint ID."""
    run_fn: RunFn = lambda _m: [agent_stateful_interrupt("i", object())]  # noqa: E731
    store = InMemoryCheckpointStore()
    events = list(
        Runner(MyAgent(run_fn, lambda _i: ()), checkpoint_store=store).query("go", checkpoint_id="cp")
    )
    assert len(events) == 2
    assert isinstance(events[0].error, GraphRunError) and "failed to save checkpoint" in str(events[0].error)
    assert events[1].action is not None and events[1].checkpoint_id is None
    assert store.get("cp") is None


def test_signal_contexts_skip_parents_that_are_not_agents_or_tools() -> None:
    """Eino `ToInterruptContexts` with agent and tool segments allowed: a composite point whose last
    segment is another kind (a graph, a process) is no parent, and no address keeps such segments."""
    leaf = InterruptSignal("leaf", address="runnable:root;agent:A;process:p;agent:B")
    process = InterruptSignal(
        "process", address="runnable:root;agent:A;process:p", children={"agent:B": leaf}
    )
    agent = InterruptSignal("A", address="runnable:root;agent:A", children={"process:p": process})
    graph = InterruptSignal("graph", address="runnable:root", children={"agent:A": agent})
    [context] = signal_contexts(graph)
    assert (context.address, context.info, context.parent) == ("agent:A;agent:B", "leaf", "agent:A")
    assert context.parent_context is not None and context.parent_context.info == "A"
    assert context.parent_context.parent_context is None


class ListAgent:
    """An agent whose `run` and `resume` return iterators over lists, not generators: the events are
    made when they are called."""

    name = "lister"
    description = "returns lists"

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        return iter([AgentEvent(self.name, message=Message.assistant("first")), agent_interrupt("wait")])

    def resume(self, info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        return iter([AgentEvent(self.name, message=Message.assistant(f"resumed with {info.resume_data}"))])


def test_agent_returning_plain_iterators_is_run_and_resumed() -> None:
    """`run` and `resume` may return any iterator of events; the events are still made as the agent's
    point, since `run` and `resume` are called in the agent's context too."""
    runner = Runner(ListAgent(), checkpoint_store=InMemoryCheckpointStore())
    first, stop = runner.query("go", checkpoint_id="cp")
    assert first.message is not None and _only_root(stop).address == "agent:lister"
    [done] = runner.resume("cp", resume_data="ok")
    assert done.message is not None and done.message.content == "resumed with ok"
