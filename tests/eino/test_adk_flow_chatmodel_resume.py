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
from graph_core.schema import Message, ToolCall, ToolInfo


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
    flow = new_sequential_agent(
        name="pipeline", description="writes then approves", sub_agents=[writer, approver]
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

    resumed = list(runner.resume("cp1", resume_data={context.id: "approved"}))
    assert _seen(resumed) == [
        (("pipeline", "writer", "approver"), 'approved for {"plan": 1}'),
        (("pipeline", "writer", "approver"), "approver finished"),
    ]


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
