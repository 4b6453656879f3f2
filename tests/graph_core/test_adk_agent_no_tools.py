"""ADK ChatModelAgent without tools: Eino's chain `genInput -> model`, one call, no iteration check."""

from __future__ import annotations

import asyncio
from pathlib import Path

from graph_core import END, START
from graph_core.agents.adk import ChatModelAgent
from graph_core.callbacks import StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.stream import collect


def test_topology_is_the_two_node_chain() -> None:
    agent = ChatModelAgent(name="plain", model=ScriptedChatModel([]), instruction="Be brief.")
    topo = agent.compiled.topology()
    assert topo.name == "plain"
    assert [(n.key, n.kind, n.name) for n in topo.nodes if n.kind not in ("start", "end")] == [
        ("node_0", "Lambda", "GenModelInput"),
        ("node_1", "ChatModel", "ChatModel"),
    ]
    assert {(e.source, e.target, e.kind) for e in topo.edges} == {
        (START, "node_0", "edge"),
        ("node_0", "node_1", "edge"),
        ("node_1", END, "edge"),
    }
    assert not agent.compiled.plan.has_state


def test_one_model_call_with_the_instruction_and_one_event() -> None:
    model = ScriptedChatModel([Message.assistant("Hello.")])
    agent = ChatModelAgent(name="plain", model=model, instruction="Be brief.")
    steps: list[StepInfo] = []

    class Steps:
        def on_step_end(self, step: StepInfo) -> None:
            steps.append(step)

    events = list(agent.run("hi", callbacks=[Steps()]))
    assert [(e.message.role, e.message.content) for e in events if e.message] == [("assistant", "Hello.")]
    assert all(e.error is None for e in events)
    assert model.calls == [[Message.system("Be brief."), Message.user("hi")]]
    assert [s.nodes for s in steps] == [("node_0",), ("node_1",)]
    assert all(s.state is None for s in steps)


def test_tool_calls_from_a_tool_less_agent_end_the_run() -> None:
    """No ReAct loop: a model output with tool calls is the answer, and nothing else runs."""
    asked = Message.assistant("", tool_calls=[ToolCall("c1", "lookup", "{}")])
    model = ScriptedChatModel([asked])
    agent = ChatModelAgent(name="plain", model=model, max_iterations=1)
    out = agent.invoke("hi")
    assert out.tool_calls[0].name == "lookup"
    assert len(model.calls) == 1


def test_streaming_run_streams_chunks_and_reports_one_event() -> None:
    chunks = [Message.assistant("Hel"), Message.assistant("lo.")]
    agent = ChatModelAgent(name="plain", model=ScriptedChatModel([chunks, chunks]))
    events = list(agent.run("hi", streaming=True))
    assert [e.get_message().content for e in events if e.is_streaming] == ["Hello."]  # type: ignore[union-attr]
    streamed = list(agent.stream("hi"))
    assert [c.content for c in streamed] == ["Hel", "lo."]
    assert collect(iter(streamed)).content == "Hello."


def test_ainvoke() -> None:
    agent = ChatModelAgent(name="plain", model=ScriptedChatModel([Message.assistant("ok")]))
    assert asyncio.run(agent.ainvoke("hi")).content == "ok"


def test_recording_a_tool_less_run(tmp_path: Path) -> None:
    from inspector.recording import Recorder, read_run

    path = tmp_path / "plain.jsonl"
    agent = ChatModelAgent(name="plain", model=ScriptedChatModel([Message.assistant("Hello.")]))
    events = list(agent.run("hi", callbacks=[Recorder(path)]))
    assert events[-1].message is not None and events[-1].message.content == "Hello."
    run = read_run(path)
    assert run.status == "ok"
    assert [tuple(s.nodes) for s in run.steps] == [("node_0",), ("node_1",)]
    assert [s.budget.steps_used for s in run.steps] == [1, 2]
    assert run.topology is not None
    assert [n.key for n in run.topology.nodes] == ["start", "node_0", "node_1", "end"]


def test_exit_makes_it_a_tool_using_agent() -> None:
    agent = ChatModelAgent(name="e", model=ScriptedChatModel([]), exit=True)
    assert "ToolNodeToEndConverter" in [n.key for n in agent.compiled.topology().nodes]
