"""A ChatModelAgent whose tool interrupts inside a workflow or a transfer flow, run under a `Runner` with
a checkpoint store, is resumed through the Runner (Eino: the ChatModelAgent reports its graph's interrupt
as an ADK composite interrupt whose state is its graph checkpoint; the Runner's checkpoint holds the
whole run, and resuming continues the agent's graph where it stopped, then the flow goes on)."""

from __future__ import annotations

from typing import Any

from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.adk_flow import set_sub_agents
from graph_core.agents.adk_interrupt import AgentInterruptInfo
from graph_core.agents.adk_run import new_transfer_to_agent_action
from graph_core.agents.adk_runner import Runner
from graph_core.agents.adk_workflow import new_sequential_agent
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.interrupt import get_interrupt_state, get_resume_data, interrupt, was_interrupted
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo, concat_messages


class Approval:
    """A tool that asks for approval first, then reports the answer and what it saved."""

    info = ToolInfo("approve", "asks a human")

    def invoke(self, arguments: str) -> str:
        if not was_interrupted():
            interrupt("need approval", state=arguments)
        return f"{get_resume_data()} for {get_interrupt_state()}"


def _approver(name: str) -> ChatModelAgent:
    model = ScriptedChatModel(
        [
            Message.assistant("", tool_calls=[ToolCall("c1", "approve", '{"plan": 1}')]),
            Message.assistant(f"{name} finished"),
        ]
    )
    return ChatModelAgent(name=name, description=name, model=model, tools=[Approval()])


def _interrupt_info(event: AgentEvent) -> AgentInterruptInfo:
    assert event.error is None, event.error
    assert event.action is not None and isinstance(event.action.interrupted, AgentInterruptInfo)
    return event.action.interrupted


def _seen(events: list[AgentEvent]) -> list[tuple[tuple[str, ...], str]]:
    out: list[tuple[tuple[str, ...], str]] = []
    for event in events:
        assert event.error is None, event.error
        if event.message is not None:
            out.append((tuple(event.run_path), str(event.message.content)))
    return out


def test_chat_model_agent_in_a_sequential_workflow_resumes_through_the_runner() -> None:
    writer = ChatModelAgent(
        name="writer", description="writes", model=ScriptedChatModel([Message.assistant("a plan")])
    )
    approver = _approver("approver")
    approver.output_key = "verdict"
    publisher_model = ScriptedChatModel([Message.assistant("published")])
    publisher = ChatModelAgent(name="publisher", description="publishes", model=publisher_model)
    flow = new_sequential_agent(
        name="pipeline", description="writes then approves", sub_agents=[writer, approver, publisher]
    )
    store = InMemoryCheckpointStore()
    runner = Runner(flow, checkpoint_store=store)
    session: dict[str, Any] = {"who": "me"}

    first = list(runner.query("go", checkpoint_id="cp1", session=session))
    assert _seen(first[:-1]) == [
        (("pipeline", "writer"), "a plan"),
        (("pipeline", "writer", "approver"), ""),
    ]
    last = first[-1]
    assert last.checkpoint_id == "cp1" and store.get("cp1") is not None
    [context] = _interrupt_info(last).interrupt_contexts
    assert context.info == "need approval" and context.is_root_cause
    assert context.address == "agent:pipeline;agent:approver;tool:approve:c1"

    resumed = list(runner.resume("cp1", resume_data={context.id: "approved"}, session=session))
    assert _seen(resumed) == [
        (("pipeline", "writer", "approver"), 'approved for {"plan": 1}'),
        (("pipeline", "writer", "approver"), "approver finished"),
        (("pipeline", "writer", "approver", "publisher"), "published"),
    ]
    # the publisher's input is built from the saved session (the approver's tool call was recorded before
    # the interrupt) and the resumed run's events
    assert [str(m.content) for m in publisher_model.calls[0]] == [
        "go",
        "For context: [writer] said: a plan.",
        'For context: [approver] called tool: `approve` with arguments: {"plan": 1}.',
        'For context: [approver] `approve` tool returned result: approved for {"plan": 1}.',
        "For context: [approver] said: approver finished.",
    ]
    assert session == {"who": "me", "verdict": "approver finished"}  # output_key, in the resumed run


def test_chat_model_agent_after_a_transfer_resumes_through_the_runner() -> None:
    router_model = ScriptedChatModel(
        [Message.assistant("", tool_calls=[ToolCall("t1", "transfer_to_agent", '{"agent_name": "helper"}')])]
    )
    router = ChatModelAgent(name="router", description="routes", model=router_model)
    helper = _approver("helper")
    flow = set_sub_agents(router, [helper])
    store = InMemoryCheckpointStore()
    runner = Runner(flow, checkpoint_store=store)

    first = list(runner.query("help me", checkpoint_id="cp2"))
    transfers = [e for e in first if e.action is not None and e.action.transfer_to_agent]
    assert [tuple(e.run_path) for e in transfers] == [("router",)]
    assert transfers[0].action is not None
    assert transfers[0].action == new_transfer_to_agent_action("helper")
    [context] = _interrupt_info(first[-1]).interrupt_contexts
    assert context.address == "agent:router;agent:helper;tool:approve:c1"
    assert first[-1].run_path == ("router", "helper")

    resumed = list(runner.resume("cp2", resume_data={context.id: "yes"}))
    assert _seen(resumed) == [
        (("router", "helper"), 'yes for {"plan": 1}'),
        (("router", "helper"), "helper finished"),
    ]


def test_a_chat_model_agent_interrupting_again_after_its_resume_is_resumed_again() -> None:
    model = ScriptedChatModel(
        [
            Message.assistant("", tool_calls=[ToolCall("c1", "approve", '"first"')]),
            Message.assistant("", tool_calls=[ToolCall("c2", "approve", '"second"')]),
            Message.assistant("both approved"),
        ]
    )
    approver = ChatModelAgent(name="approver", description="approves", model=model, tools=[Approval()])
    flow = new_sequential_agent(name="pipeline", sub_agents=[approver])
    runner = Runner(flow, checkpoint_store=InMemoryCheckpointStore())

    [*_, stop] = runner.query("go", checkpoint_id="cp3")
    [first] = _interrupt_info(stop).interrupt_contexts
    assert first.address == "agent:pipeline;agent:approver;tool:approve:c1"
    [*said, stop] = runner.resume("cp3", resume_data={first.id: "ok"})
    assert _seen(said) == [(("pipeline", "approver"), 'ok for "first"'), (("pipeline", "approver"), "")]
    [second] = _interrupt_info(stop).interrupt_contexts
    assert second.address == "agent:pipeline;agent:approver;tool:approve:c2"
    assert stop.checkpoint_id == "cp3"
    resumed = list(runner.resume("cp3", resume_data={second.id: "fine"}))
    assert _seen(resumed) == [
        (("pipeline", "approver"), 'fine for "second"'),
        (("pipeline", "approver"), "both approved"),
    ]


def test_a_streaming_run_resumes_streaming() -> None:
    flow = new_sequential_agent(name="pipeline", sub_agents=[_approver("approver")])
    runner = Runner(flow, enable_streaming=True, checkpoint_store=InMemoryCheckpointStore())
    [*_, stop] = runner.query("go", checkpoint_id="cp4")
    [context] = _interrupt_info(stop).interrupt_contexts
    resumed = list(runner.resume("cp4", resume_data={context.id: "ok"}))
    tool_result, answer = resumed
    assert tool_result.message is not None and tool_result.message.content == 'ok for {"plan": 1}'
    assert answer.message_stream is not None  # the model's answer streams, as in the interrupted run
    assert concat_messages(list(answer.message_stream)).content == "approver finished"
