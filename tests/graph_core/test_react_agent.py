"""The flow ReAct agent: topology, state, step counts, return-directly, checkers, modes, embedding."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.agents.react import (
    ReActAgent,
    ReActState,
    first_chunk_tool_call_checker,
    set_return_directly,
    whole_stream_tool_call_checker,
)
from graph_core.callbacks import RunInfo, StepInfo
from graph_core.errors import MaxStepsExceededError, NodeRunError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import get_tool_call_id, tool


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


@tool
def download_report(name: str) -> str:
    return f"report {name}"


def call(call_id: str, name: str, arguments: str, text: str = "") -> Message:
    return Message.assistant(text, tool_calls=[ToolCall(call_id, name, arguments)])


def weather_round(call_id: str = "c1") -> Message:
    return call(call_id, "get_weather", '{"city": "Paris"}')


class Steps:
    """Records which nodes ran in each top-level step and a copy of the state after it."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, ...]] = []
        self.states: list[ReActState] = []
        self.tool_starts: list[RunInfo] = []

    def on_step_end(self, step: StepInfo) -> None:
        if not step.path and step.state is not None:
            self.nodes.append(step.nodes)
            self.states.append(step.state.model_copy(deep=True))

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.kind == "Tool":
            self.tool_starts.append(info)


def test_topology_matches_eino() -> None:
    model = ScriptedChatModel([])
    agent = ReActAgent(model, tools=[get_weather], model_node_name="Brain", tools_node_name="Hands")
    topo = agent.compiled.topology()
    assert topo.name == "ReActAgent"
    assert agent.compiled.max_run_steps == 13
    kinds = {n.key: (n.kind, n.name) for n in topo.nodes}
    assert kinds["chat"] == ("ChatModel", "Brain")
    assert kinds["tools"] == ("ToolsNode", "Hands")
    assert kinds["direct_return"][0] == "Lambda"
    edges = {(e.source, e.target, e.kind) for e in topo.edges}
    assert edges == {
        (START, "chat", "edge"),
        ("direct_return", END, "edge"),
        ("chat", "tools", "branch"),
        ("chat", END, "branch"),
        ("tools", "chat", "branch"),
        ("tools", "direct_return", "branch"),
    }
    assert [e for e in topo.edges if e.back_edge] and all(
        (e.source, e.target) == ("tools", "chat") for e in topo.edges if e.back_edge
    )
    assert isinstance(agent.graph, Graph)


def test_model_is_bound_to_tools_without_mutating_the_original() -> None:
    model = ScriptedChatModel([])
    agent = ReActAgent(model, tools=[get_weather])
    assert model.tools == ()
    assert [t.name for t in agent.model.tools] == ["get_weather"]


def test_one_tool_round_state_and_steps() -> None:
    answer = Message.assistant("Take sunglasses.")
    model = ScriptedChatModel([weather_round(), answer])
    steps = Steps()
    out = ReActAgent(model, tools=[get_weather]).invoke([Message.user("Weather?")], callbacks=[steps])
    assert out.content == "Take sunglasses."
    assert steps.nodes == [("chat",), ("tools",), ("chat",)]  # 2k+1 with k = 1
    final = steps.states[-1]
    assert [(m.role, m.content) for m in final.messages] == [
        ("user", "Weather?"),
        ("assistant", ""),
        ("tool", "sunny in Paris"),
    ]  # the final answer is not appended
    assert model.calls[1] == final.messages
    assert [(i.name, i.tool_call_id, i.node_key, i.path) for i in steps.tool_starts] == [
        ("get_weather", "c1", "tools", ("tools",))
    ]


def test_k_rounds_take_2k_plus_1_steps_and_modifier_sees_a_copy() -> None:
    seen: list[int] = []

    def modifier(messages: list[Message]) -> list[Message]:
        seen.append(len(messages))
        return [Message.system("be brief"), *messages]

    model = ScriptedChatModel(
        [weather_round("a"), weather_round("b"), weather_round("c"), Message.assistant("done")]
    )
    steps = Steps()
    ReActAgent(model, tools=[get_weather], message_modifier=modifier).invoke("hi", callbacks=[steps])
    assert len(steps.nodes) == 7
    assert seen == [1, 3, 5, 7]  # 2k+1 at the (k+1)-th call
    assert model.calls[0][0].role == "system"
    assert all(m.role != "system" for m in steps.states[-1].messages)  # modifier output is not persisted


def test_rewriter_runs_before_modifier_and_is_persisted() -> None:
    order: list[str] = []

    def rewriter(messages: list[Message]) -> list[Message]:
        order.append("rewrite")
        return messages[-2:]  # keep a short window

    def modifier(messages: list[Message]) -> list[Message]:
        order.append("modify")
        return messages

    model = ScriptedChatModel([weather_round("a"), weather_round("b"), Message.assistant("ok")])
    steps = Steps()
    agent = ReActAgent(model, tools=[get_weather], message_rewriter=rewriter, message_modifier=modifier)
    agent.invoke([Message.user("one"), Message.user("two"), Message.user("three")], callbacks=[steps])
    assert order == ["rewrite", "modify"] * 3
    assert [m.content for m in model.calls[0]] == ["two", "three"]
    # The last model call's pre-handler appended round b's result, then the rewriter kept the last two.
    assert [(m.role, m.tool_call_id) for m in steps.states[-1].messages] == [
        ("assistant", None),
        ("tool", "b"),
    ]
    assert model.calls[2] == steps.states[-1].messages


def test_tool_return_directly_first_matching_call_wins() -> None:
    model = ScriptedChatModel(
        [
            Message.assistant(
                tool_calls=[
                    ToolCall("w", "get_weather", '{"city": "Oslo"}'),
                    ToolCall("r1", "download_report", '{"name": "q1"}'),
                    ToolCall("r2", "download_report", '{"name": "q2"}'),
                ]
            )
        ]
    )
    steps = Steps()
    agent = ReActAgent(model, tools=[get_weather, download_report], tool_return_directly={"download_report"})
    out = agent.invoke("report", callbacks=[steps])
    assert (out.role, out.content, out.tool_call_id, out.tool_name) == (
        "tool",
        "report q1",
        "r1",
        "download_report",
    )
    assert steps.nodes == [("chat",), ("tools",), ("direct_return",)]
    assert steps.states[-1].return_directly_tool_call_id == "r1"
    assert [m.role for m in steps.states[-1].messages] == ["user", "assistant"]  # result not in state


def test_set_return_directly_overrides_and_last_call_wins() -> None:
    @tool
    def finish(text: str) -> str:
        set_return_directly()
        return f"final:{text}:{get_tool_call_id()}"

    model = ScriptedChatModel(
        [
            Message.assistant(
                tool_calls=[
                    ToolCall("r1", "download_report", '{"name": "x"}'),
                    ToolCall("f1", "finish", '{"text": "a"}'),
                    ToolCall("f2", "finish", '{"text": "b"}'),
                ]
            )
        ]
    )
    agent = ReActAgent(
        model,
        tools=[download_report, finish],
        tool_return_directly={"download_report"},
        execute_sequentially=True,
    )
    assert agent.invoke("go").content == "final:b:f2"


def test_set_return_directly_outside_a_tool_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="inside a tool call"):
        set_return_directly()


def test_runaway_model_exhausts_the_default_budget() -> None:
    model = ScriptedChatModel([weather_round(f"c{i}") for i in range(10)])
    executed: list[str] = []

    @tool(name="get_weather")
    def counting_weather(city: str) -> str:
        executed.append(get_tool_call_id())
        return "rain"

    with pytest.raises(MaxStepsExceededError, match="exceeds max steps"):
        ReActAgent(model, tools=[counting_weather]).invoke("loop")
    assert len(model.calls) == 7 and len(executed) == 6


def test_max_step_is_the_step_budget() -> None:
    def script() -> list[Message]:
        return [weather_round(), Message.assistant("ok")]

    assert (
        ReActAgent(ScriptedChatModel(script()), tools=[get_weather], max_step=3).invoke("x").content == "ok"
    )
    agent = ReActAgent(ScriptedChatModel(script()), tools=[get_weather], max_step=2)
    assert agent.compiled.max_run_steps == 2
    with pytest.raises(MaxStepsExceededError):
        agent.invoke("x")


def test_failing_tool_is_a_node_error_naming_the_call() -> None:
    @tool
    def broken() -> str:
        raise RuntimeError("disk full")

    agent = ReActAgent(ScriptedChatModel([call("b1", "broken", "{}")]), tools=[broken])
    with pytest.raises(
        NodeRunError, match=r"failed to invoke tool\[name:broken id:b1\]: disk full"
    ) as caught:
        agent.invoke("x")
    assert caught.value.node_path == ["tools"]


TEXT_THEN_CALL = [
    Message.assistant("Let me look that up. "),
    Message.assistant(tool_calls=[ToolCall("c1", "get_weather", '{"city": "Paris"}', index=0)]),
]


def test_first_chunk_checker_ends_a_stream_run_when_text_precedes_tool_calls() -> None:
    """The documented pitfall: the first-chunk checker sees text and treats the message as the answer."""
    model = ScriptedChatModel([TEXT_THEN_CALL])
    agent = ReActAgent(model, tools=[get_weather], stream_tool_call_checker=first_chunk_tool_call_checker)
    chunks = list(agent.stream("weather?"))
    whole = Message.assistant("".join(c.content for c in chunks))
    assert whole.content == "Let me look that up. "
    assert any(c.tool_calls for c in chunks)  # the tool calls came back unexecuted
    assert len(model.calls) == 1


def test_whole_stream_checker_executes_tool_calls_after_text() -> None:
    model = ScriptedChatModel([TEXT_THEN_CALL, [Message.assistant("Sunny, "), Message.assistant("enjoy.")]])
    agent = ReActAgent(model, tools=[get_weather], stream_tool_call_checker=whole_stream_tool_call_checker)
    chunks = list(agent.stream("weather?"))
    assert [c.content for c in chunks] == ["Sunny, ", "enjoy."]
    assert model.calls[1][-1].content == "sunny in Paris"


def test_default_checker_reads_past_text_to_the_tool_calls() -> None:
    """Eino PR #1141: the default checker is the whole-stream one, so the pitfall is gone by default."""
    model = ScriptedChatModel([TEXT_THEN_CALL, [Message.assistant("Sunny, "), Message.assistant("enjoy.")]])
    agent = ReActAgent(model, tools=[get_weather])
    assert agent.stream_tool_call_checker is whole_stream_tool_call_checker
    assert [c.content for c in agent.stream("weather?")] == ["Sunny, ", "enjoy."]
    assert model.calls[1][-1].content == "sunny in Paris"


def test_whole_stream_checker_stops_reading_at_the_first_tool_call() -> None:
    """Like Eino's `defaultStreamToolCallChecker`, it returns at the first chunk with tool calls."""
    read: list[Message] = []

    def chunks() -> Iterator[Message]:
        for chunk in [*TEXT_THEN_CALL, Message.assistant("never read")]:
            read.append(chunk)
            yield chunk

    assert whole_stream_tool_call_checker(chunks()) is True
    first_call = next(i for i, c in enumerate(TEXT_THEN_CALL) if c.tool_calls)
    assert len(read) == first_call + 1


def test_checkers_directly() -> None:
    empty_then_call = iter([Message.assistant(""), Message.assistant(tool_calls=[ToolCall("1", "t", "{}")])])
    assert first_chunk_tool_call_checker(empty_then_call) is True
    assert first_chunk_tool_call_checker(iter([Message.assistant("hi")])) is False
    assert first_chunk_tool_call_checker(iter([])) is False
    assert whole_stream_tool_call_checker(iter(TEXT_THEN_CALL)) is True
    assert whole_stream_tool_call_checker(iter([Message.assistant("a"), Message.assistant("b")])) is False


def test_invoke_mode_uses_the_whole_message_for_the_checker() -> None:
    # In invoke mode the checker gets a 1-chunk stream of the full message, so text + calls go to tools.
    model = ScriptedChatModel([TEXT_THEN_CALL, Message.assistant("done")])
    assert ReActAgent(model, tools=[get_weather]).invoke("x").content == "done"


def test_direct_return_in_stream_mode_yields_the_tool_chunks() -> None:
    @tool
    def download_report(name: str) -> Iterator[str]:
        yield "part1,"
        yield "part2"

    model = ScriptedChatModel([call("r1", "download_report", '{"name": "q"}')])
    agent = ReActAgent(model, tools=[download_report], tool_return_directly=["download_report"])
    chunks = list(agent.stream("x"))
    assert [(c.role, c.content, c.tool_call_id) for c in chunks] == [
        ("tool", "part1,", "r1"),
        ("tool", "part2", "r1"),
    ]


def test_async_entry_points() -> None:
    @tool
    async def aweather(city: str) -> str:
        return f"cloudy in {city}"

    model = ScriptedChatModel([call("a", "aweather", '{"city": "Rome"}'), Message.assistant("umbrella")] * 2)
    agent = ReActAgent(model, tools=[aweather])

    async def run() -> tuple[Message, list[Message]]:
        first = await agent.ainvoke("x")
        rest = [c async for c in agent.astream("x")]
        return first, rest

    first, rest = asyncio.run(run())
    assert first.content == "umbrella"
    assert [c.content for c in rest] == ["umbrella"]
    assert model.calls[1][-1].content == "cloudy in Rome"


def test_agent_graph_embeds_as_a_nested_graph() -> None:
    model = ScriptedChatModel([weather_round(), Message.assistant("nested answer")])
    agent = ReActAgent(model, tools=[get_weather])
    parent = Graph()
    parent.add_graph_node("agent", agent.graph, compile_options=agent.compile_options)
    parent.add_lambda_node("shout", lambda m: m.content.upper())
    parent.add_edge(START, "agent")
    parent.add_edge("agent", "shout")
    parent.add_edge("shout", END)
    steps = Steps()
    assert parent.compile().invoke([Message.user("x")], callbacks=[steps]) == "NESTED ANSWER"
    assert [i.path for i in steps.tool_starts] == [("agent", "tools")]


def test_no_model_is_a_build_error() -> None:
    with pytest.raises(ValueError, match="no chat model provided"):
        ReActAgent(None)
