"""The ADK ChatModelAgent: topology, iterations in state, events and their order, exit, return-directly."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START
from graph_core.agents.adk import (
    AdkState,
    AgentAction,
    ChatModelAgent,
    ExceedMaxIterationsError,
    send_tool_gen_action,
)
from graph_core.callbacks import StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool


@tool
def get_weather(city: str) -> str:
    return f"sunny in {city}"


@tool
def book(city: str) -> str:
    send_tool_gen_action(AgentAction(customized={"booked": city}))
    return f"booked {city}"


def calls(*specs: tuple[str, str, str]) -> Message:
    return Message.assistant(tool_calls=[ToolCall(i, n, a) for i, n, a in specs])


class Steps:
    def __init__(self) -> None:
        self.nodes: list[tuple[str, ...]] = []
        self.states: list[AdkState] = []

    def on_step_end(self, step: StepInfo) -> None:
        self.nodes.append(step.nodes)
        self.states.append(step.state.model_copy(deep=True))


def test_topology_without_and_with_return_directly() -> None:
    plain = ChatModelAgent(name="helper", model=ScriptedChatModel([]), tools=[get_weather])
    topo = plain.compiled.topology()
    assert topo.name == "helper"
    assert [n.key for n in topo.nodes if n.kind not in ("start", "end")] == [
        "Init",
        "ChatModel",
        "CancelCheck",
        "ToolNode",
        "AfterToolCalls",
        "AfterToolCallsCancelCheck",
    ]
    assert {n.key: n.kind for n in topo.nodes}["ChatModel"] == "ChatModel"
    assert {n.key: n.kind for n in topo.nodes}["ToolNode"] == "ToolsNode"
    edges = {(e.source, e.target, e.kind) for e in topo.edges}
    assert edges == {
        (START, "Init", "edge"),
        ("Init", "ChatModel", "edge"),
        ("ChatModel", "CancelCheck", "branch"),
        ("ChatModel", END, "branch"),
        ("CancelCheck", "ToolNode", "edge"),
        ("ToolNode", "AfterToolCalls", "edge"),
        ("AfterToolCalls", "AfterToolCallsCancelCheck", "edge"),
        ("AfterToolCallsCancelCheck", "ChatModel", "edge"),
    }
    direct = ChatModelAgent(name="d", model=ScriptedChatModel([]), tools=[get_weather], exit=True)
    dedges = {(e.source, e.target, e.kind) for e in direct.compiled.topology().edges}
    assert ("AfterToolCallsCancelCheck", "ToolNodeToEndConverter", "branch") in dedges
    assert ("AfterToolCallsCancelCheck", "ChatModel", "branch") in dedges
    assert ("ToolNodeToEndConverter", END, "edge") in dedges


def test_one_round_steps_state_and_events() -> None:
    model = ScriptedChatModel(
        [calls(("c1", "get_weather", '{"city": "Paris"}')), Message.assistant("Go out.")]
    )
    agent = ChatModelAgent(name="helper", model=model, tools=[get_weather], instruction="You are terse.")
    steps = Steps()
    events = list(agent.run("Weather?", callbacks=[steps]))
    assert steps.nodes == [
        ("Init",),
        ("ChatModel",),
        ("CancelCheck",),
        ("ToolNode",),
        ("AfterToolCalls",),
        ("AfterToolCallsCancelCheck",),
        ("ChatModel",),
    ]
    messages = [m for m in (e.get_message() for e in events) if m is not None]
    assert [(m.role, m.content) for m in messages] == [
        ("assistant", ""),
        ("tool", "sunny in Paris"),
        ("assistant", "Go out."),
    ]
    assert all(e.error is None and e.agent_name == "helper" for e in events)
    final = steps.states[-1]
    assert [m.role for m in final.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]  # answer kept
    assert final.messages[0].content == "You are terse."
    assert [s.remaining_iterations for s in steps.states] == [20, 19, 19, 19, 19, 19, 18]
    assert model.calls[0][0].role == "system"


def test_exceeding_max_iterations_ends_with_the_error_event() -> None:
    model = ScriptedChatModel([calls((f"c{i}", "get_weather", '{"city": "X"}')) for i in range(5)])
    agent = ChatModelAgent(name="loop", model=model, tools=[get_weather], max_iterations=3)
    events = list(agent.run("go"))
    assert len(model.calls) == 3
    last = events[-1]
    assert isinstance(last.error, ExceedMaxIterationsError)
    assert "exceeds max iterations" in str(last.error)
    assert sum(1 for e in events if e.message is not None) == 6  # 3 model outputs + 3 tool results


def test_max_iterations_error_through_invoke_keeps_the_node_path() -> None:
    from graph_core.errors import NodeRunError

    model = ScriptedChatModel([calls(("c", "get_weather", '{"city": "X"}'))], cycle=True)
    agent = ChatModelAgent(name="loop", model=model, tools=[get_weather], max_iterations=1)
    with pytest.raises(
        NodeRunError, match=r"run node\[ChatModel\] pre processor fail: exceeds max iterations"
    ) as caught:
        agent.invoke("go")
    assert caught.value.node_path == ["ChatModel"]
    assert isinstance(caught.value.__cause__, ExceedMaxIterationsError)


def test_return_directly_picks_the_last_matching_call_and_its_event_is_last() -> None:
    model = ScriptedChatModel(
        [
            calls(
                ("b1", "book", '{"city": "Rome"}'),
                ("w1", "get_weather", '{"city": "Rome"}'),
                ("b2", "book", '{"city": "Oslo"}'),
            )
        ]
    )
    agent = ChatModelAgent(
        name="travel",
        model=model,
        tools=[book, get_weather],
        return_directly={"book"},
        execute_sequentially=True,
    )
    steps = Steps()
    events = list(agent.run("book", callbacks=[steps]))
    assert [e.message.tool_call_id for e in events if e.message and e.message.role == "tool"] == [
        "b1",
        "w1",
        "b2",
    ]
    assert events[-1].message is not None and events[-1].message.tool_call_id == "b2"
    assert events[-1].action == AgentAction(customized={"booked": "Oslo"})
    assert steps.nodes[-1] == ("ToolNodeToEndConverter",)
    assert steps.states[-1].return_directly_tool_call_id == "b2"


def test_return_directly_event_is_held_until_the_round_ends_even_when_it_finishes_first() -> None:
    model = ScriptedChatModel(
        [calls(("x", "exit", '{"final_result": "bye"}'), ("w", "get_weather", '{"city": "A"}'))]
    )
    agent = ChatModelAgent(name="e", model=model, tools=[get_weather], exit=True, execute_sequentially=True)
    events = list(agent.run("hi"))
    tool_events = [e for e in events if e.message and e.message.role == "tool"]
    assert [e.message.tool_call_id for e in tool_events if e.message] == ["w", "x"]
    assert tool_events[-1].action == AgentAction(exit=True)
    assert tool_events[-1].message is not None and tool_events[-1].message.content == "bye"


def test_invoke_returns_the_exit_result() -> None:
    model = ScriptedChatModel([calls(("x", "exit", '{"final_result": "the end"}'))])
    agent = ChatModelAgent(name="e", model=model, exit=True)
    out = agent.invoke("hi")
    assert (out.role, out.content, out.tool_name) == ("tool", "the end", "exit")


def test_stream_mode_run_emits_the_same_events() -> None:
    model = ScriptedChatModel(
        [
            [
                Message.assistant("Checking. "),
                Message.assistant(tool_calls=[ToolCall("c", "get_weather", '{"city": "B"}', index=0)]),
            ],
            [Message.assistant("Sun"), Message.assistant("ny.")],
        ]
    )
    agent = ChatModelAgent(name="s", model=model, tools=[get_weather])
    events = list(agent.run("hi", streaming=True))
    # The ADK branch scans the whole stream, so text before tool calls still reaches the tools.
    messages = [m for m in (e.get_message() for e in events) if m is not None]
    assert [(m.role, m.content) for m in messages] == [
        ("assistant", "Checking. "),
        ("tool", "sunny in B"),
        ("assistant", "Sunny."),
    ]


def test_model_failure_is_the_last_event() -> None:
    model = ScriptedChatModel([ConnectionError("model down")])
    events = list(ChatModelAgent(name="f", model=model).run("hi"))
    assert len(events) == 1 and events[0].error is not None and "model down" in str(events[0].error)


def test_missing_model_is_a_build_error() -> None:
    kwargs: dict[str, Any] = {"name": "x", "model": None}
    with pytest.raises(ValueError, match="agent 'Model' is required"):
        ChatModelAgent(**kwargs)
