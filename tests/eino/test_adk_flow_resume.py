"""Ports of Eino's `adk/interrupt_test.go` (cloudwego/eino ca0441ac0bce) for resuming a multi-agent
flow or a workflow after a custom agent inside it interrupted at ADK level (`adk_flow.FlowAgent.resume`,
`adk_workflow.WorkflowAgent.resume`). Go's `ResumeWithParams(..., Targets)` is
`resume(..., resume_data=targets)`; an interrupt ID is the interrupt's address, so Go's
`EqualsWithoutID` is a check of info, root cause, address and parent."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.adk_flow import set_sub_agents
from graph_core.agents.adk_interrupt import (
    AgentInterruptInfo,
    ResumeInfo,
    agent_interrupt,
    agent_stateful_interrupt,
)
from graph_core.agents.adk_run import AgentAction, new_transfer_to_agent_action
from graph_core.agents.adk_runctx import current_run_ctx
from graph_core.agents.adk_runner import Runner
from graph_core.agents.adk_workflow import (
    WorkflowInterruptInfo,
    new_loop_agent,
    new_parallel_agent,
    new_sequential_agent,
)
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.interrupt import InterruptContext, interrupt
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool

RunFn = Callable[[Sequence[Message]], Iterable[AgentEvent]]
ResumeFn = Callable[[ResumeInfo], Iterable[AgentEvent]]


class MyAgent:
    """Go `myAgent`: its run and resume are the test's functions."""

    description = "myAgent description"

    def __init__(self, name: str, run_fn: RunFn, resume_fn: ResumeFn | None = None) -> None:
        self.name = name
        self.run_fn = run_fn
        self.resume_fn = resume_fn

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        yield from self.run_fn([m for m in messages or [] if isinstance(m, Message)])

    def resume(self, info: ResumeInfo, **options: Any) -> Iterator[AgentEvent]:
        assert self.resume_fn is not None, f"{self.name} cannot resume"
        yield from self.resume_fn(info)


def _interrupted(event: AgentEvent) -> AgentInterruptInfo:
    assert event.action is not None and isinstance(event.action.interrupted, AgentInterruptInfo)
    return event.action.interrupted


def _says(name: str, text: str) -> RunFn:
    return lambda _messages: [AgentEvent(name, message=Message.user(text))]


def _content(event: AgentEvent) -> str:
    assert event.message is not None
    return str(event.message.content)


# -- TestMultiAgentInterrupt ----------------------------------------------------------------------------


def test_multi_agent_interrupt() -> None:
    """interrupt_test.go TestMultiAgentInterrupt: sa1 transfers to its sub-agent sa2, which interrupts
    with state; the Runner resumes the flow at sa2 with the data aimed at it."""

    def sa2_run(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        event = agent_stateful_interrupt("hello world", "temp state")
        _interrupted(event).data = "hello world"
        yield event

    resumed: list[ResumeInfo] = []

    def sa2_resume(info: ResumeInfo) -> Iterator[AgentEvent]:
        resumed.append(info)
        yield AgentEvent("sa2", message=Message.user(str(info.resume_data)))

    sa1 = MyAgent("sa1", lambda _m: [AgentEvent("sa1", action=new_transfer_to_agent_action("sa2"))])
    sa2 = MyAgent("sa2", sa2_run, sa2_resume)
    runner = Runner(set_sub_agents(sa1, [sa2]), checkpoint_store=InMemoryCheckpointStore())
    events = list(runner.query("", checkpoint_id="1"))
    assert len(events) == 2
    assert events[0].action is not None and events[0].action.transfer_to_agent
    contexts = _interrupted(events[1]).interrupt_contexts
    assert len(contexts) == 1
    assert contexts[0].info == "hello world"
    assert contexts[0].is_root_cause
    assert contexts[0].address == "agent:sa1;agent:sa2"
    assert contexts[0].id

    events = list(runner.resume("1", resume_data={contexts[0].id: "resume data"}))
    [info] = resumed
    assert info.data == "hello world"
    assert info.was_interrupted
    assert info.interrupt_state == "temp state"
    assert info.is_resume_target
    assert info.resume_data == "resume data"
    assert len(events) == 1
    assert _content(events[0]) == "resume data"


# -- TestWorkflowInterrupt ----------------------------------------------------------------------------------


def _workflow_agents(resumed: dict[str, list[ResumeInfo]]) -> list[MyAgent]:
    """Go's sa1 (interrupts), sa2 (interrupts with state), sa3 and sa4 (complete)."""

    def sa1_run(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        event = agent_interrupt("sa1 interrupt data")
        _interrupted(event).data = "sa1 interrupt data"
        yield event

    def sa1_resume(info: ResumeInfo) -> Iterator[AgentEvent]:
        resumed.setdefault("sa1", []).append(info)
        assert info.data == "sa1 interrupt data"
        assert info.was_interrupted
        assert info.interrupt_state is None
        assert info.is_resume_target
        assert info.resume_data == "resume sa1"
        return iter(())

    def sa2_run(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        event = agent_stateful_interrupt("sa2 interrupt data", "sa2 interrupt")
        _interrupted(event).data = "sa2 interrupt data"
        yield event

    def sa2_resume(info: ResumeInfo) -> Iterator[AgentEvent]:
        resumed.setdefault("sa2", []).append(info)
        assert info.data == "sa2 interrupt data"
        assert info.was_interrupted
        assert info.interrupt_state == "sa2 interrupt"
        assert info.is_resume_target
        assert info.resume_data == "resume sa2"
        return iter(())

    return [
        MyAgent("sa1", sa1_run, sa1_resume),
        MyAgent("sa2", sa2_run, sa2_resume),
        MyAgent("sa3", _says("sa3", "sa3 completed")),
        MyAgent("sa4", _says("sa4", "sa4 completed")),
    ]


def _expect_interrupt(
    event: AgentEvent,
    agent: str,
    run_path: tuple[str, ...],
    info: str,
    address: str,
    parent: str,
    parent_info: str,
) -> str:
    """Go's checks of an interrupt event: name, run path, and its one root cause `EqualsWithoutID`."""
    assert event.agent_name == agent
    assert event.run_path == run_path
    context = _interrupted(event).interrupt_contexts[0]
    assert (context.info, context.is_root_cause, context.address) == (info, True, address)
    assert context.parent_context is not None
    above: InterruptContext = context.parent_context
    assert (above.info, above.is_root_cause, above.address, above.parent_context) == (
        parent_info,
        False,
        parent,
        None,
    )
    return context.id


def test_workflow_interrupt_sequential() -> None:
    """interrupt_test.go TestWorkflowInterrupt, "test sequential workflow agent": sa1 and sa2 interrupt
    in turn, each resume goes on from the saved index, sa3 and sa4 then complete."""
    resumed: dict[str, list[ResumeInfo]] = {}
    agent = new_sequential_agent(
        name="sequential", description="sequential agent", sub_agents=_workflow_agents(resumed)
    )
    runner = Runner(agent, checkpoint_store=InMemoryCheckpointStore())
    parent = ("agent:sequential", "Sequential workflow interrupted")

    events = list(runner.query("hello world", checkpoint_id="sequential-1"))
    assert len(events) == 1
    id1 = _expect_interrupt(
        events[0], "sa1", ("sequential", "sa1"), "sa1 interrupt data", "agent:sequential;agent:sa1", *parent
    )
    data = _interrupted(events[0]).data
    assert isinstance(data, WorkflowInterruptInfo)  # Go's firstInterruptEvent Data
    assert data.orig_input == [Message.user("hello world")]
    assert data.sequential_interrupt_index == 0
    assert data.sequential_interrupt_info.data == "sa1 interrupt data"
    assert data.loop_iterations == 0

    events = list(runner.resume("sequential-1", resume_data={id1: "resume sa1"}))
    assert len(resumed["sa1"]) == 1
    assert len(events) == 1
    id2 = _expect_interrupt(
        events[0],
        "sa2",
        ("sequential", "sa1", "sa2"),
        "sa2 interrupt data",
        "agent:sequential;agent:sa2",
        *parent,
    )
    data = _interrupted(events[0]).data
    assert isinstance(data, WorkflowInterruptInfo)
    assert data.sequential_interrupt_index == 1
    assert data.sequential_interrupt_info.data == "sa2 interrupt data"

    events = list(runner.resume("sequential-1", resume_data={id2: "resume sa2"}))
    assert len(resumed["sa2"]) == 1
    assert [(e.agent_name, e.run_path, _content(e), e.action) for e in events] == [
        ("sa3", ("sequential", "sa1", "sa2", "sa3"), "sa3 completed", None),
        ("sa4", ("sequential", "sa1", "sa2", "sa3", "sa4"), "sa4 completed", None),
    ]


def test_workflow_interrupt_loop() -> None:
    """interrupt_test.go TestWorkflowInterrupt, "test loop workflow agent": two iterations, each with
    sa1 and sa2 interrupting; every resume goes on from the saved iteration and index."""
    resumed: dict[str, list[ResumeInfo]] = {}
    agent = new_loop_agent(name="loop", sub_agents=_workflow_agents(resumed), max_iterations=2)
    runner = Runner(agent, checkpoint_store=InMemoryCheckpointStore())
    parent = ("agent:loop", "Loop workflow interrupted")
    first = ("loop", "sa1", "sa2", "sa3", "sa4")

    events = list(runner.query("hello world", checkpoint_id="loop-1"))
    assert len(events) == 1
    id1 = _expect_interrupt(
        events[0], "sa1", ("loop", "sa1"), "sa1 interrupt data", "agent:loop;agent:sa1", *parent
    )

    events = list(runner.resume("loop-1", resume_data={id1: "resume sa1"}))
    assert len(events) == 1
    id2 = _expect_interrupt(
        events[0], "sa2", ("loop", "sa1", "sa2"), "sa2 interrupt data", "agent:loop;agent:sa2", *parent
    )

    events = list(runner.resume("loop-1", resume_data={id2: "resume sa2"}))
    assert len(events) == 3
    assert [(e.agent_name, e.run_path, _content(e)) for e in events[:2]] == [
        ("sa3", first[:4], "sa3 completed"),
        ("sa4", first, "sa4 completed"),
    ]
    id3 = _expect_interrupt(
        events[2], "sa1", (*first, "sa1"), "sa1 interrupt data", "agent:loop;agent:sa1", *parent
    )
    data = _interrupted(events[2]).data
    assert isinstance(data, WorkflowInterruptInfo)
    assert (data.sequential_interrupt_index, data.loop_iterations) == (0, 1)

    events = list(runner.resume("loop-1", resume_data={id3: "resume sa1"}))
    assert len(events) == 1
    id4 = _expect_interrupt(
        events[0], "sa2", (*first, "sa1", "sa2"), "sa2 interrupt data", "agent:loop;agent:sa2", *parent
    )
    data = _interrupted(events[0]).data
    assert isinstance(data, WorkflowInterruptInfo)
    assert (data.sequential_interrupt_index, data.loop_iterations) == (1, 1)

    events = list(runner.resume("loop-1", resume_data={id4: "resume sa2"}))
    assert [(e.agent_name, e.run_path, _content(e), e.action) for e in events] == [
        ("sa3", (*first, "sa1", "sa2", "sa3"), "sa3 completed", None),
        ("sa4", (*first, *first[1:]), "sa4 completed", None),
    ]
    assert (len(resumed["sa1"]), len(resumed["sa2"])) == (2, 2)


def test_workflow_interrupt_parallel() -> None:
    """interrupt_test.go TestWorkflowInterrupt, "test parallel workflow agent": sa1 and sa2 interrupt
    while sa3 and sa4 complete; the workflow's one interrupt event has both lanes' infos, and resuming
    both targets ends the run with no event."""
    resumed: dict[str, list[ResumeInfo]] = {}
    agent = new_parallel_agent(name="parallel agent", sub_agents=_workflow_agents(resumed))
    runner = Runner(agent, checkpoint_store=InMemoryCheckpointStore())
    events: list[AgentEvent] = []
    interrupt_event: AgentEvent | None = None
    for event in runner.query("hello world", checkpoint_id="1"):
        if event.action is not None and event.action.interrupted is not None:
            interrupt_event = event
            continue
        events.append(event)
    assert len(events) == 2
    outputs = {(e.agent_name, e.run_path, _content(e)) for e in events}
    assert outputs == {
        ("sa4", ("parallel agent", "sa4"), "sa4 completed"),
        ("sa3", ("parallel agent", "sa3"), "sa3 completed"),
    }
    assert interrupt_event is not None
    assert interrupt_event.agent_name == "parallel agent"
    assert interrupt_event.run_path == ("parallel agent",)
    data = _interrupted(interrupt_event).data
    assert isinstance(data, WorkflowInterruptInfo)
    assert len(data.parallel_interrupt_info) == 2
    assert {info.data for info in data.parallel_interrupt_info.values()} == {
        "sa1 interrupt data",
        "sa2 interrupt data",
    }
    contexts = _interrupted(interrupt_event).interrupt_contexts
    assert len(contexts) == 2
    ids = {c.info: c.id for c in contexts}
    assert set(ids) == {"sa1 interrupt data", "sa2 interrupt data"}
    assert all(ids.values())

    resume = {ids["sa1 interrupt data"]: "resume sa1", ids["sa2 interrupt data"]: "resume sa2"}
    assert list(runner.resume("1", resume_data=resume)) == []
    assert (len(resumed["sa1"]), len(resumed["sa2"])) == (1, 1)


# -- TestCyclicalAgentInterrupt ------------------------------------------------------------------------------


def test_cyclical_agent_interrupt() -> None:
    """interrupt_test.go TestCyclicalAgentInterrupt: A transfers to B, B back to A, A to C, which
    interrupts at `A;B;A;C`; the resume walks the same cycle down to C."""

    def a_run(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        run_ctx = current_run_ctx()
        assert run_ctx is not None
        path = run_ctx.run_path
        dest = "C" if len(path) > 1 and path[-2] == "B" else "B"
        yield AgentEvent("A", action=new_transfer_to_agent_action(dest))

    def c_run(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        yield agent_interrupt("interrupt from C")

    def c_resume(info: ResumeInfo) -> Iterator[AgentEvent]:
        assert info.is_resume_target
        assert info.resume_data == "resume C"
        yield AgentEvent("C", message=Message.user("C completed"))

    agent_b = MyAgent("B", lambda _m: [AgentEvent("B", action=AgentAction(transfer_to_agent="A"))])
    agent_a = set_sub_agents(MyAgent("A", a_run), [agent_b, MyAgent("C", c_run, c_resume)])
    runner = Runner(agent_a, checkpoint_store=InMemoryCheckpointStore())
    events = list(runner.query("start", checkpoint_id="cyclical-1"))
    assert len(events) == 4
    interrupt_event = events[3]
    assert interrupt_event.agent_name == "C"
    contexts = _interrupted(interrupt_event).interrupt_contexts
    assert len(contexts) == 1
    assert contexts[0].is_root_cause
    assert contexts[0].info == "interrupt from C"
    assert contexts[0].address == "agent:A;agent:B;agent:A;agent:C"
    assert contexts[0].id

    events = list(runner.resume("cyclical-1", resume_data={contexts[0].id: "resume C"}))
    assert len(events) == 1
    assert _content(events[0]) == "C completed"


# -- workflow_test.go TestParallelWorkflowResumeWithEvents -----------------------------------------------


def _lane_agent(name: str, state: str | None) -> tuple[MyAgent, list[ResumeInfo]]:
    """Go's sa1/sa2 of TestParallelWorkflowResumeWithEvents: a message, then an interrupt; on resume
    the agent sees only its own message in the session (its lane, saved with the workflow)."""
    resumed: list[ResumeInfo] = []

    def run_fn(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        yield AgentEvent(name, message=Message.user(f"{name} normal message"))
        if state is None:
            yield agent_interrupt(f"{name} interrupt data")
        else:
            yield agent_stateful_interrupt(f"{name} interrupt data", state)

    def resume_fn(info: ResumeInfo) -> Iterator[AgentEvent]:
        resumed.append(info)
        assert info.was_interrupted
        assert info.interrupt_state == state
        assert info.is_resume_target
        assert info.resume_data == f"resume {name}"
        run_ctx = current_run_ctx()
        assert run_ctx is not None, f"{name} resumer should have session"
        seen = run_ctx.session.get_events()
        assert len(seen) == 1, f"{name} should only see its own event in session"
        assert seen[0].event.agent_name == name
        assert _content(seen[0].event) == f"{name} normal message"
        return iter(())

    return MyAgent(name, run_fn, resume_fn), resumed


def test_parallel_workflow_resume_with_events() -> None:
    """workflow_test.go TestParallelWorkflowResumeWithEvents: two lanes send a message and interrupt,
    two complete; the workflow's interrupt has both root causes, and each resumed lane finds its own
    message (and only it) in the session."""
    sa1, resumed1 = _lane_agent("sa1", None)
    sa2, resumed2 = _lane_agent("sa2", "sa2 interrupt")
    sa3 = MyAgent("sa3", _says("sa3", "sa3 completed"))
    sa4 = MyAgent("sa4", _says("sa4", "sa4 completed"))
    agent = new_parallel_agent(name="parallel agent", sub_agents=[sa1, sa2, sa3, sa4])
    runner = Runner(agent, checkpoint_store=InMemoryCheckpointStore())
    events: list[AgentEvent] = []
    interrupt_event: AgentEvent | None = None
    for event in runner.query("hello world", checkpoint_id="1"):
        if event.action is not None and event.action.interrupted is not None:
            interrupt_event = event
            continue
        events.append(event)
    assert len(events) == 4, "should have 4 events (2 normal messages + 2 completed agents)"
    by_name = {e.agent_name: e for e in events}
    for name in ("sa3", "sa4"):
        assert by_name[name].run_path == ("parallel agent", name)
        assert _content(by_name[name]) == f"{name} completed"
    assert interrupt_event is not None
    assert interrupt_event.agent_name == "parallel agent"
    assert interrupt_event.run_path == ("parallel agent",)
    contexts = _interrupted(interrupt_event).interrupt_contexts
    assert len(contexts) == 2
    ids = {c.info: c.id for c in contexts}
    assert set(ids) == {"sa1 interrupt data", "sa2 interrupt data"}
    assert all(ids.values())

    resume = {ids["sa1 interrupt data"]: "resume sa1", ids["sa2 interrupt data"]: "resume sa2"}
    assert list(runner.resume("1", resume_data=resume)) == []
    assert (len(resumed1), len(resumed2)) == (1, 1)


# -- workflow_test.go TestNestedParallelWorkflow ---------------------------------------------------------


def _seen() -> list[AgentEvent]:
    run_ctx = current_run_ctx()
    assert run_ctx is not None
    return [e.event for e in run_ctx.session.get_events()]


def _inner_agent(name: str, state: str | None) -> tuple[MyAgent, list[ResumeInfo]]:
    """Go's inner1/inner2: see the predecessor's message, send one, interrupt; on resume see both."""
    resumed: list[ResumeInfo] = []

    def run_fn(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        seen = _seen()
        assert len(seen) == 1, f"{name} should see exactly 1 event (predecessor)"
        assert seen[0].agent_name == "predecessor"
        assert _content(seen[0]) == "predecessor completed"
        yield AgentEvent(name, message=Message.user(f"{name} normal"))
        if state is None:
            yield agent_interrupt(f"{name} interrupt")
        else:
            yield agent_stateful_interrupt(f"{name} interrupt", state)

    def resume_fn(info: ResumeInfo) -> Iterator[AgentEvent]:
        resumed.append(info)
        assert info.was_interrupted
        if state is not None:
            assert info.interrupt_state == state
        assert info.resume_data == f"resume {name}"
        seen = _seen()
        assert len(seen) == 2, f"{name} should see exactly 2 events (predecessor + own) during resume"
        predecessors = [e for e in seen if e.agent_name == "predecessor"]
        assert predecessors, f"{name} should see predecessor event during resume"
        assert _content(predecessors[0]) == "predecessor completed"
        return iter(())

    return MyAgent(name, run_fn, resume_fn), resumed


def test_nested_parallel_workflow() -> None:
    """workflow_test.go TestNestedParallelWorkflow: a sequence of a predecessor, a parallel workflow
    around a second parallel workflow whose two agents interrupt, and a successor. The resume finds the
    inner agents through both workflows, each seeing the session as it was, and the successor then sees
    every agent's message (the saved session and lanes)."""

    def successor_run(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        seen = _seen()
        assert len(seen) >= 5, "successor should see all events"
        names = {e.agent_name for e in seen}
        assert {"predecessor", "outer1", "outer2", "inner1", "inner2"} <= names
        for event in seen:
            if event.agent_name == "predecessor":
                assert _content(event) == "predecessor completed"
        yield AgentEvent("successor", message=Message.user("successor completed"))

    inner1, resumed1 = _inner_agent("inner1", None)
    inner2, resumed2 = _inner_agent("inner2", "inner2 state")
    inner_parallel = new_parallel_agent(name="inner parallel", sub_agents=[inner1, inner2])
    outer_parallel = new_parallel_agent(
        name="outer parallel",
        sub_agents=[
            MyAgent("outer1", _says("outer1", "outer1 completed")),
            inner_parallel,
            MyAgent("outer2", _says("outer2", "outer2 completed")),
        ],
    )
    sequence = new_sequential_agent(
        name="sequential workflow",
        sub_agents=[
            MyAgent("predecessor", _says("predecessor", "predecessor completed")),
            outer_parallel,
            MyAgent("successor", successor_run),
        ],
    )
    runner = Runner(sequence, checkpoint_store=InMemoryCheckpointStore())
    events: list[AgentEvent] = []
    interrupt_event: AgentEvent | None = None
    for event in runner.query("test nested parallel with predecessor and successor", checkpoint_id="nested"):
        if event.action is not None and event.action.interrupted is not None:
            interrupt_event = event
            continue
        events.append(event)
    assert len(events) == 5, "should have 5 events (predecessor + 2 outer + 2 inner)"
    assert interrupt_event is not None, "should have interrupt event"
    ids = {c.info: c.id for c in _interrupted(interrupt_event).interrupt_contexts}

    resume = {ids["inner1 interrupt"]: "resume inner1", ids["inner2 interrupt"]: "resume inner2"}
    resume_events = list(runner.resume("nested", resume_data=resume))
    assert len(resume_events) == 1, "should have successor event after resume"
    assert resume_events[0].agent_name == "successor"
    assert (len(resumed1), len(resumed2)) == (1, 1)


# -- what the ports leave implicit ---------------------------------------------------------------------------


def test_resumed_sequence_builds_the_next_input_from_the_saved_session() -> None:
    """The session is saved with the checkpoint: after a resume in a new Runner (a new process would
    do the same) the agent after the interrupted one gets the root input and the streamed message of
    the agent before it, saved as its chunks concatenated."""

    def streams(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        yield AgentEvent("s1", message_stream=iter([Message.assistant("hel"), Message.assistant("lo")]))

    def interrupts(_messages: Sequence[Message]) -> Iterator[AgentEvent]:
        yield agent_interrupt("confirm")

    inputs: list[list[Message]] = []

    def reads(messages: Sequence[Message]) -> Iterator[AgentEvent]:
        inputs.append(list(messages))
        yield AgentEvent("s3", message=Message.assistant("done"))

    def build() -> Any:
        return new_sequential_agent(
            name="seq",
            sub_agents=[
                MyAgent("s1", streams),
                MyAgent("s2", interrupts, lambda _info: iter(())),
                MyAgent("s3", reads),
            ],
        )

    store = InMemoryCheckpointStore()
    events = list(
        Runner(build(), enable_streaming=True, checkpoint_store=store).query("hi", checkpoint_id="c")
    )
    assert [e.error for e in events] == [None, None]
    assert _interrupted(events[-1]).interrupt_contexts[0].address == "agent:seq;agent:s2"

    resumed = list(Runner(build(), enable_streaming=True, checkpoint_store=store).resume("c"))
    assert [(e.agent_name, e.run_path, _content(e)) for e in resumed] == [
        ("s3", ("seq", "s1", "s2", "s3"), "done")
    ]
    [messages] = inputs
    assert messages[0] == Message.user("hi")
    assert [str(m.content) for m in messages[1:]] == ["For context: [s1] said: hello."]


def test_chat_model_agent_inside_a_flow_keeps_its_own_addresses() -> None:
    """A ChatModelAgent reached by transfer runs outside the flow agents' `agent:` segments: the
    interrupt of its tool is at `agent:helper;tool:ask:call_1` (its graph's own addresses, which its own
    checkpoint is keyed by), not under the segments of the flow agents around it."""

    @tool(name="ask", description="asks a human")
    def ask(question: str) -> str:
        """Ask.

        Args:
            question: what to ask
        """
        interrupt(f"ask: {question}")
        return ""

    model = ScriptedChatModel(
        [
            Message.assistant(
                "", tool_calls=[ToolCall(id="call_1", name="ask", arguments='{"question": "ok?"}')]
            )
        ]
    )
    helper = ChatModelAgent(name="helper", description="helps", model=model, tools=[ask])
    router = MyAgent(
        "router", lambda _m: [AgentEvent("router", action=new_transfer_to_agent_action("helper"))]
    )
    flow = set_sub_agents(router, [helper])
    events = list(Runner(flow).query("hi"))
    action = events[-1].action
    assert action is not None and action.interrupted is not None
    [context] = action.interrupted.interrupt_contexts
    assert context.address == "agent:helper;tool:ask:call_1"
    assert context.info == "ask: ok?"
