"""Ports of `adk/workflow_test.go` (cloudwego/eino), the workflow rows of
`adk/callback_integration_test.go` and
`TestSequentialWorkflow_WithChatModelAgentTool_NestedRunPathAndSessions` of `adk/agent_tool_test.go`:
sequential, loop and parallel workflow agents, their run paths, sessions and callbacks. Each test names
its Go test; the tests after them check what the Go tests leave implicit (what the second agent of a
sequence is given, the run paths, the parallel lanes)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from graph_core.agents.adk import AgentAction, AgentEvent, ChatModelAgent
from graph_core.agents.adk_callbacks import AGENT_KIND, AgentCallbackInput, AgentRunOption, with_callbacks
from graph_core.agents.adk_interrupt import agent_interrupt
from graph_core.agents.adk_run import new_break_loop_action
from graph_core.agents.adk_runctx import RunSession, current_run_ctx
from graph_core.agents.adk_runner import AgentTool, Runner
from graph_core.agents.adk_workflow import (
    WorkflowAgent,
    new_loop_agent,
    new_parallel_agent,
    new_sequential_agent,
)
from graph_core.callbacks import RunInfo
from graph_core.checkpoint.store import InMemoryCheckpointStore
from graph_core.schema import Message, ToolCall
from tests.eino.adk_fakes import RecordingModel


class MockAgent:
    """Eino's `mockAgent` of workflow_test.go: sends its events, stopping after an exit."""

    def __init__(self, name: str, description: str, responses: Sequence[AgentEvent]) -> None:
        self.name = name
        self.description = description
        self.responses = list(responses)
        self.inputs: list[list[Message]] = []
        self.options: list[dict[str, Any]] = []

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        self.inputs.append([m for m in messages or [] if isinstance(m, Message)])
        self.options.append(options)
        for event in self.responses:
            yield event
            if event.action is not None and event.action.exit:
                break


def _said(agent: str, text: str, action: AgentAction | None = None) -> AgentEvent:
    return AgentEvent(agent, message=Message.assistant(text), action=action)


def _input() -> list[Message]:
    return [Message.user("Test input")]


def test_sequential_agent() -> None:
    """workflow_test.go TestSequentialAgent"""
    agent1 = MockAgent("Agent1", "First agent", [_said("Agent1", "Response from Agent1")])
    agent2 = MockAgent("Agent2", "Second agent", [_said("Agent2", "Response from Agent2")])
    sequential = new_sequential_agent(
        name="SequentialTestAgent", description="Test sequential agent", sub_agents=[agent1, agent2]
    )
    assert sequential is not None
    assert sequential.description == "Test sequential agent"
    events = list(sequential.run(_input()))
    assert len(events) == 2
    assert events[0].error is None and events[0].message is not None
    assert events[0].message.content == "Response from Agent1"
    assert events[1].error is None and events[1].message is not None
    assert events[1].message.content == "Response from Agent2"


def test_sequential_agent_with_exit() -> None:
    """workflow_test.go TestSequentialAgentWithExit"""
    agent1 = MockAgent(
        "Agent1", "First agent", [_said("Agent1", "Response from Agent1", AgentAction(exit=True))]
    )
    agent2 = MockAgent("Agent2", "Second agent", [_said("Agent2", "Response from Agent2")])
    sequential = new_sequential_agent(
        name="SequentialTestAgent", description="Test sequential agent", sub_agents=[agent1, agent2]
    )
    events = list(sequential.run(_input()))
    assert len(events) == 1
    assert events[0].error is None and events[0].message is not None
    assert events[0].action is not None and events[0].action.exit
    assert agent2.inputs == []


def test_parallel_agent() -> None:
    """workflow_test.go TestParallelAgent"""
    agent1 = MockAgent("Agent1", "First agent", [_said("Agent1", "Response from Agent1")])
    agent2 = MockAgent("Agent2", "Second agent", [_said("Agent2", "Response from Agent2")])
    parallel = new_parallel_agent(
        name="ParallelTestAgent", description="Test parallel agent", sub_agents=[agent1, agent2]
    )
    events = list(parallel.run(_input()))
    assert len(events) == 2
    for event in events:
        assert event.error is None and event.message is not None
        assert event.agent_name in ("Agent1", "Agent2")
        assert event.message.content == f"Response from {event.agent_name}"


def test_loop_agent() -> None:
    """workflow_test.go TestLoopAgent"""
    agent = MockAgent("LoopAgent", "Loop agent", [_said("LoopAgent", "Loop iteration")])
    loop = new_loop_agent(
        name="LoopTestAgent", description="Test loop agent", sub_agents=[agent], max_iterations=3
    )
    events = list(loop.run(_input()))
    assert len(events) == 3
    for event in events:
        assert event.error is None and event.message is not None
        assert event.message.content == "Loop iteration"


def test_loop_agent_with_break_loop() -> None:
    """workflow_test.go TestLoopAgentWithBreakLoop"""
    agent = MockAgent(
        "LoopAgent",
        "Loop agent",
        [_said("LoopAgent", "Loop iteration with break loop", new_break_loop_action("LoopAgent"))],
    )
    loop = new_loop_agent(
        name="LoopTestAgent", description="Test loop agent", sub_agents=[agent], max_iterations=3
    )
    events = list(loop.run(_input()))
    assert len(events) == 1
    event = events[0]
    assert event.error is None and event.message is not None
    assert event.action is not None and event.action.break_loop is not None
    assert event.action.break_loop.done
    assert event.action.break_loop.from_ == "LoopAgent"
    assert event.action.break_loop.current_iterations == 0
    assert event.message.content == "Loop iteration with break loop"


class PanicAgent(MockAgent):
    """Eino's `panicMockAgent`: its `Run` panics (here: `run` raises when called)."""

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        raise RuntimeError("test panic in agent")


def test_workflow_agent_panic_recovery() -> None:
    """workflow_test.go TestWorkflowAgentPanicRecovery (a Go panic is a Python exception: the error
    event carries it)"""
    sequential = new_sequential_agent(
        name="PanicTestAgent",
        description="Test agent with panic",
        sub_agents=[PanicAgent("PanicAgent", "", [])],
    )
    events = list(sequential.run(_input()))
    assert len(events) == 1
    assert events[0].error is not None and "panic" in str(events[0].error)


def test_workflow_agent_unsupported_mode() -> None:
    """workflow_test.go TestWorkflowAgentUnsupportedMode"""
    agent = WorkflowAgent("UnsupportedModeAgent", "Agent with unsupported mode", 999)
    events = list(agent.run(_input()))
    assert len(events) == 1
    assert events[0].error is not None
    assert "unsupported workflow agent mode" in str(events[0].error)


class OptionAgent:
    """Eino's `myAgent` of TestFilterOptions: checks the options it was given."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.description = name
        self.seen: list[list[Any]] = []

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        self.seen.append(list(options.get("callbacks") or []))
        yield from ()


def test_filter_options() -> None:
    """workflow_test.go TestFilterOptions (adapted: Go's implementation-specific `withValue` option is
    a designated callback option here, the only per-agent option graph_core's agents take)"""
    for make in (new_sequential_agent, new_parallel_agent):
        a1, a2 = OptionAgent("Agent1"), OptionAgent("Agent2")
        workflow = make(name="", sub_agents=[a1, a2])
        option1 = with_callbacks(object()).designate_agent("Agent1")
        option2 = with_callbacks(object()).designate_agent("Agent2")
        assert list(workflow.run([], callbacks=[option1, option2])) == []
        assert a1.seen == [[option1]]
        assert a2.seen == [[option2]]


class CountingAgent:
    """Eino's `myAgent` of TestLoopAgentWithError: fails on its third run."""

    name = "ErrorAgent"
    description = ""

    def __init__(self) -> None:
        self.iterations = 0

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        self.iterations += 1
        if self.iterations == 3:
            yield AgentEvent("", error=RuntimeError(f"error on iteration {self.iterations}"))
            return
        yield AgentEvent("", message=Message.assistant(f"iteration {self.iterations}"))


def test_loop_agent_with_error() -> None:
    """workflow_test.go TestLoopAgentWithError"""
    agent = CountingAgent()
    loop = new_loop_agent(name="LoopErrorTestAgent", sub_agents=[agent], max_iterations=10)
    events = list(loop.run([Message.user("test")]))
    errors = [e for e in events if e.error is not None]
    assert len([e for e in events if e.error is None]) == 2
    assert len(errors) == 1 and "error on iteration 3" in str(errors[0].error)
    assert agent.iterations == 3


def test_loop_agent_with_break_loop_followed_by_more_events() -> None:
    """workflow_test.go TestLoopAgentWithBreakLoopFollowedByMoreEvents"""
    agent = MockAgent(
        "SubAgent",
        "Sub agent",
        [
            AgentEvent(
                "SubAgent",
                message=Message.tool("tool result", tool_call_id="call_123"),
                action=new_break_loop_action("SubAgent"),
            ),
            _said("SubAgent", "Final response after tool"),
        ],
    )
    loop = new_loop_agent(
        name="LoopTestAgent", description="Test loop agent", sub_agents=[agent], max_iterations=3
    )
    events = list(loop.run(_input()))
    assert len(events) == 2
    first, second = events
    assert first.action is not None and first.action.break_loop is not None
    assert first.action.break_loop.done
    assert first.action.break_loop.from_ == "SubAgent"
    assert first.action.break_loop.current_iterations == 0
    assert first.message is not None and first.message.role == "tool"
    assert second.action is None
    assert second.message is not None and second.message.role == "assistant"
    assert second.message.content == "Final response after tool"


# -- callback_integration_test.go (the workflow rows) --------------------------------------------------


def _two_chat_agents() -> tuple[ChatModelAgent, ChatModelAgent]:
    agent1 = ChatModelAgent(
        name="Agent1",
        description="First agent",
        instruction="You are agent 1",
        model=RecordingModel([Message.assistant("response 1")]),
    )
    agent2 = ChatModelAgent(
        name="Agent2",
        description="Second agent",
        instruction="You are agent 2",
        model=RecordingModel([Message.assistant("response 2")]),
    )
    return agent1, agent2


class Recorder:
    """Eino's `callbackRecorder`: agent-level starts (with the agent type), ends, and their events."""

    def __init__(self) -> None:
        self.starts: list[tuple[RunInfo, AgentCallbackInput]] = []
        self.ends: list[RunInfo] = []
        self.events: list[AgentEvent] = []
        self.readers: list[threading.Thread] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.kind == AGENT_KIND:
            self.starts.append((info, input))

    def on_end(self, info: RunInfo, output: Any) -> None:
        if info.kind != AGENT_KIND:
            return
        self.ends.append(info)
        reader = threading.Thread(target=lambda: self.events.extend(output.events), daemon=True)
        reader.start()
        self.readers.append(reader)

    def wait(self) -> None:
        for reader in self.readers:
            reader.join(5)


def test_callback_with_workflow_agent() -> None:
    """callback_integration_test.go TestCallbackWithWorkflowAgent"""
    recorder = Recorder()
    sequential = new_sequential_agent(
        name="SequentialAgent", description="Sequential workflow", sub_agents=list(_two_chat_agents())
    )
    list(Runner(sequential).query("hello", callbacks=[recorder]))
    assert recorder.starts
    found = {(info.name, payload.agent_type) for info, payload in recorder.starts}
    assert ("Agent1", "ChatModel") in found
    assert ("Agent2", "ChatModel") in found
    assert ("SequentialAgent", "Sequential") in found
    assert len(recorder.starts) == 3  # once per agent


def test_callback_on_end_for_workflow_agent() -> None:
    """callback_integration_test.go TestCallbackOnEndForWorkflowAgent"""
    recorder = Recorder()
    sequential = new_sequential_agent(
        name="SequentialAgent", description="Sequential workflow", sub_agents=list(_two_chat_agents())
    )
    list(Runner(sequential).query("hello", callbacks=[recorder]))
    recorder.wait()
    assert recorder.starts and recorder.ends
    assert recorder.events


# -- agent_tool_test.go ----------------------------------------------------------------------------------


class SpyAgent:
    """Eino's `spyAgent`: keeps the session of the run context it runs in."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.description = agent.description
        self.captured: RunSession | None = None

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
        ctx = current_run_ctx()
        if ctx is not None:
            self.captured = ctx.session
        yield from self.agent.run(messages, **options)


def test_sequential_workflow_with_chat_model_agent_tool_nested_run_path_and_sessions() -> None:
    """agent_tool_test.go TestSequentialWorkflow_WithChatModelAgentTool_NestedRunPathAndSessions
    (Go's check of the outer session reads a run context the test made itself, which the Runner does
    not use, so it checks nothing; the port checks the sessions the spies saw)"""
    inner2 = ChatModelAgent(
        name="inner2",
        description="leaf",
        model=RecordingModel([Message.assistant("inner2")], repeat_last=True),
        emit_internal_events=True,
    )
    inner2_spy = SpyAgent(inner2)
    call = Message.assistant("", tool_calls=[ToolCall("id-1", "inner2", '{"request":"hello"}')])
    inner = ChatModelAgent(
        name="inner",
        description="mid",
        model=RecordingModel([call], repeat_last=True),  # Eino's fakeTCM: calls its first tool, always
        tools=[AgentTool(inner2_spy)],
        emit_internal_events=True,
    )
    inner_spy = SpyAgent(inner)
    outer = new_sequential_agent(name="outer-seq", description="workflow", sub_agents=[inner_spy])
    target = None
    for event in Runner(outer).run([Message.user("q")]):
        if not event.is_streaming and event.message is not None and event.message.content == "inner2":
            target = event
            break
    assert target is not None, "no inner2 event found"
    assert target.run_path == ("outer-seq", "inner", "inner2")
    assert inner_spy.captured is not None
    assert inner_spy.captured.get_events()
    assert all(w.event.agent_name == "inner" for w in inner_spy.captured.get_events())
    assert inner2_spy.captured is not None
    assert inner2_spy.captured.get_events()
    assert all(w.event.agent_name == "inner2" for w in inner2_spy.captured.get_events())
    assert inner2_spy.captured is not inner_spy.captured


# -- what the Go tests leave implicit -----------------------------------------------------------------


def test_sequential_second_agent_gets_the_first_ones_output_as_context() -> None:
    agent1, agent2 = _two_chat_agents()
    list(Runner(new_sequential_agent(name="Seq", sub_agents=[agent1, agent2])).query("hello"))
    second = agent2.model.calls[0]  # type: ignore[attr-defined]
    assert [(m.role, m.content) for m in second] == [
        ("system", "You are agent 2"),
        ("user", "hello"),
        ("user", "For context: [Agent1] said: response 1."),
    ]
    # sub-agents of a workflow may not transfer back to it: no transfer tool
    assert agent1.tools_node.tool_infos == [] and agent1.instruction == "You are agent 1"


def test_sequential_and_loop_run_paths_grow_with_each_agent() -> None:
    a = MockAgent("A", "", [AgentEvent("", message=Message.assistant("a"))])
    b = MockAgent("B", "", [AgentEvent("", message=Message.assistant("b"))])
    events = list(new_sequential_agent(name="W", sub_agents=[a, b]).run(_input()))
    assert [e.run_path for e in events] == [("W", "A"), ("W", "A", "B")]
    assert [e.agent_name for e in events] == ["A", "B"]
    loop = new_loop_agent(name="L", sub_agents=[a], max_iterations=3)
    assert [e.run_path for e in loop.run(_input())] == [("L", "A"), ("L", "A", "A"), ("L", "A", "A", "A")]
    # each run of A sees the earlier runs' outputs as its own history
    assert [len(i) for i in a.inputs[-3:]] == [1, 2, 3]


def test_parallel_branches_see_their_own_lane_then_join() -> None:
    seen: dict[str, list[str]] = {}

    class LaneAgent:
        description = ""

        def __init__(self, name: str) -> None:
            self.name = name

        def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]:
            yield AgentEvent("", message=Message.assistant(f"{self.name} first"))
            ctx = current_run_ctx()
            assert ctx is not None
            seen[self.name] = [w.event.message.content for w in ctx.session.get_events()]

    first = MockAgent("before", "", [AgentEvent("", message=Message.assistant("before"))])
    after = MockAgent("after", "", [AgentEvent("", message=Message.assistant("after"))])
    parallel = new_parallel_agent(name="P", sub_agents=[LaneAgent("x"), LaneAgent("y")])
    events = list(new_sequential_agent(name="S", sub_agents=[first, parallel, after]).run(_input()))
    assert seen == {"x": ["before", "x first"], "y": ["before", "y first"]}
    assert {e.run_path for e in events if e.message and e.message.content.endswith("first")} == {
        ("S", "before", "P", "x"),
        ("S", "before", "P", "y"),
    }
    history = [m.content for m in after.inputs[0]]
    assert history[:2] == ["Test input", "For context: [before] said: before."]
    assert sorted(history[2:]) == ["For context: [x] said: x first.", "For context: [y] said: y first."]


def test_handler_designated_to_the_workflow_reaches_its_agents() -> None:
    """Eino hands a workflow's handlers to the agents inside it through the context."""
    recorder = Recorder()
    option: AgentRunOption = with_callbacks(recorder).designate_agent("W")
    workflow = new_sequential_agent(name="W", sub_agents=[MockAgent("A", "", [_said("A", "a")])])
    list(workflow.run(_input(), callbacks=[option]))
    assert [info.name for info, _ in recorder.starts] == ["W", "A"]


class StartsOf:
    """Counts agent-level `on_start` calls for one agent name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.kind == AGENT_KIND and info.name == self.name:
            self.count += 1


def test_workflow_callback_handler_not_doubled() -> None:
    """workflow_test.go TestWorkflowCallbackHandlerNotDoubled, up to the interrupt: a global handler
    and one designated to the outer loop and the innermost agent each fire once per run of that agent
    in nested loops (the Go test's second half resumes the interrupted run through the loops, which
    needs flow and workflow resume)"""
    iterations = 0

    def sub_sub_run(messages: Any, **options: Any) -> Iterator[AgentEvent]:
        nonlocal iterations
        iterations += 1
        if iterations == 2:
            yield agent_interrupt("test_interrupt")
            return
        yield AgentEvent("", message=Message.assistant(f"iteration {iterations}"))

    class SubSub:
        name = "SubSubAgent"
        description = ""

        def run(self, messages: Any, **options: Any) -> Iterator[AgentEvent]:
            return sub_sub_run(messages, **options)

    sub = new_loop_agent(name="SubWorkflow", sub_agents=[SubSub()], max_iterations=2)
    parent = new_loop_agent(name="ParentWorkflow", sub_agents=[sub], max_iterations=2)
    global_handler, designated = StartsOf("SubSubAgent"), StartsOf("SubSubAgent")
    options = [
        with_callbacks(global_handler),
        with_callbacks(designated).designate_agent("ParentWorkflow", "SubSubAgent"),
    ]
    runner = Runner(parent, checkpoint_store=InMemoryCheckpointStore())
    events = list(runner.run([Message.user("test")], callbacks=options, checkpoint_id="cp1"))
    assert events[-1].action is not None and events[-1].action.interrupted is not None
    assert events[-1].checkpoint_id == "cp1"  # saved by the Runner (not resumable yet: see the docstring)
    assert iterations == 2
    assert global_handler.count == 2
    assert designated.count == 2


def test_a_workflow_as_an_agent_tool_runs_with_a_fresh_run_path() -> None:
    steps = MockAgent("steps", "", [AgentEvent("", message=Message.assistant("step done"))])
    pipeline = new_sequential_agent(name="pipeline", description="runs steps", sub_agents=[steps])
    call = Message.assistant("", tool_calls=[ToolCall("c1", "pipeline", '{"request": "go"}')])
    outer = ChatModelAgent(
        name="outer",
        description="calls the pipeline",
        model=RecordingModel([call, Message.assistant("all done")]),
        tools=[AgentTool(pipeline)],
        emit_internal_events=True,
    )
    events = list(Runner(outer).query("q"))
    said = [e for e in events if e.message is not None and e.message.content == "step done"]
    assert [(e.run_path, e.message.role) for e in said if e.message] == [
        (("outer", "pipeline", "steps"), "assistant"),  # forwarded from the inner run
        (("outer",), "tool"),  # the tool's result
    ]
    assert [m.content for m in steps.inputs[0]] == ["go"]
    assert events[-1].message is not None and events[-1].message.content == "all done"
