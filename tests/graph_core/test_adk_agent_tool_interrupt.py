"""An interrupt inside an agent used as a tool: the outer run stops with the inner points under the tool
call, and resume data aimed at one inner point reaches that point only (the ports of Eino's tests are
in tests/eino/test_adk_interrupt.py)."""

from __future__ import annotations

from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.adk_agent_tool import AgentTool
from graph_core.agents.adk_runner import Runner
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.interrupt import get_resume_data, interrupt, is_resume_target, was_interrupted
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo


class AskTool:
    """Interrupts until resume data is aimed at it, then returns that data."""

    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, "asks", {"type": "object"})

    def invoke(self, arguments: str) -> str:
        if not was_interrupted() or not is_resume_target():
            interrupt(f"ask {self.info.name}")
        return f"{self.info.name}: {get_resume_data()}"


def _agents() -> tuple[Runner, ChatModelAgent]:
    both = [ToolCall("a", "askA", "{}"), ToolCall("b", "askB", "{}")]
    inner = ChatModelAgent(
        name="inner",
        description="asks twice",
        model=ScriptedChatModel([Message.assistant("", tool_calls=both), Message.assistant("inner done")]),
        tools=[AskTool("askA"), AskTool("askB")],
    )
    outer = ChatModelAgent(
        name="outer",
        model=ScriptedChatModel(
            [
                Message.assistant("", tool_calls=[ToolCall("t1", "inner", '{"request": "go"}')]),
                Message.assistant("outer done"),
            ]
        ),
        tools=[AgentTool(inner)],
    )
    return Runner(outer, checkpoint_store=InMemoryCheckpointStore()), inner


def _roots(events: list[AgentEvent]) -> list[str]:
    last = events[-1]
    assert last.action is not None and last.action.interrupted is not None
    return sorted(c.address for c in last.action.interrupted.interrupt_contexts)


def test_inner_points_are_nested_under_the_tool_call() -> None:
    runner, _ = _agents()
    events = list(runner.query("q", checkpoint_id="cp"))
    assert _roots(events) == [
        "agent:outer;tool:inner:t1;agent:inner;tool:askA:a",
        "agent:outer;tool:inner:t1;agent:inner;tool:askB:b",
    ]
    [first, _] = events[-1].action.interrupted.interrupt_contexts  # type: ignore[union-attr]
    chain: list[str] = []
    parent = first.parent_context
    while parent is not None:
        chain.append(parent.address)
        parent = parent.parent_context
    # no stray level: the inner agent's own ToolsNode is not addressed as a call of the outer tool
    assert chain == ["agent:outer;tool:inner:t1;agent:inner", "agent:outer;tool:inner:t1", "agent:outer"]


def test_resume_data_reaches_only_the_inner_point_it_names() -> None:
    runner, _ = _agents()
    list(runner.query("q", checkpoint_id="cp"))
    inner = "agent:outer;tool:inner:t1;agent:inner"
    again = list(runner.resume("cp", resume_data={f"{inner};tool:askA:a": "yes"}))
    assert _roots(again) == [f"{inner};tool:askB:b"]
    final = list(runner.resume("cp", resume_data={f"{inner};tool:askB:b": "ok"}))
    assert [e.message.content for e in final if e.message is not None] == ["inner done", "outer done"]
    assert all(e.error is None for e in final)
