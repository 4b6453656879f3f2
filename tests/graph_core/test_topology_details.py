"""What a topology says about each node's component (tools, model, function) and each branch end (label)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph, Lambda
from graph_core.agents.adk import ChatModelAgent
from graph_core.agents.react import ReActAgent
from graph_core.errors import GraphBuildError
from graph_core.models import ScriptedChatModel
from graph_core.models.openai import OpenAIChatModel
from graph_core.schema import Message
from graph_core.tools import ToolsNode, tool
from graph_core.topology import ModelSpec, ToolSpec, TopologyNode


@tool
def get_weather(city: str) -> str:
    """Today's weather for a city.

    Args:
        city: The city name.
    """
    return f"sunny in {city}"


@tool
def book(hotel: str, nights: int = 1) -> str:
    """Book a hotel."""
    return "booked"


def _model() -> ScriptedChatModel:
    return ScriptedChatModel([Message.assistant("done")])


def _labels(topology: Any) -> dict[tuple[str, str], str | None]:
    return {(e.source, e.target): e.label for e in topology.edges}


# -- branch labels ------------------------------------------------------------------------------------


def test_branch_labels_travel_to_the_topology_edges() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    g.add_lambda_node("b", lambda x: x)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: "b", ["b", END], labels={"b": "needs review"}))
    g.add_edge("b", END)
    labels = _labels(g.compile().topology())
    assert labels[("a", "b")] == "needs review"
    assert labels[("a", END)] is None  # an end without a label
    assert labels[(START, "a")] is None  # plain edges never have one


@pytest.mark.parametrize("make", [Branch.multi, Branch.stream, Branch.stream_multi])
def test_every_branch_kind_takes_labels(make: Any) -> None:
    branch = make(lambda x: ["x"], ["x", "y"], labels={"y": "why", "x": "ex"})
    assert branch.labels == {"x": "ex", "y": "why"}  # in end order
    assert branch.label("y") == "why"
    assert branch.label("z") is None


def test_a_label_for_a_key_that_is_not_an_end_is_refused() -> None:
    with pytest.raises(GraphBuildError, match="branch label for 'tool', which is not one of"):
        Branch(lambda x: "tools", ["tools", END], labels={"tool": "typo"})


def test_a_label_that_is_not_text_is_refused() -> None:
    with pytest.raises(GraphBuildError, match="must be a string, got int"):
        Branch(lambda x: "a", ["a"], labels={"a": 3})  # type: ignore[dict-item]


def test_labels_do_not_change_which_end_runs() -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x + 1)
    g.add_lambda_node("b", lambda x: x * 10)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: "b" if x > 1 else END, ["b", END], labels={"b": "big", END: "small"}))
    g.add_edge("b", END)
    compiled = g.compile()
    assert compiled.invoke(1) == 20
    assert compiled.invoke(0) == 1


def test_react_agent_labels_its_branches() -> None:
    agent = ReActAgent(model=_model(), tools=[get_weather])
    assert _labels(agent.compiled.topology()) == {
        (START, "chat"): None,
        ("direct_return", END): None,
        ("chat", "tools"): "tool calls",
        ("chat", END): "final answer",
        ("tools", "chat"): "next round",
        ("tools", "direct_return"): "return directly",
    }


def test_adk_agent_labels_its_branches() -> None:
    agent = ChatModelAgent(name="a", model=_model(), tools=[get_weather], return_directly=["get_weather"])
    labels = _labels(agent.compiled.topology())
    assert labels[("ChatModel", "CancelCheck")] == "tool calls"
    assert labels[("ChatModel", END)] == "final answer"
    assert labels[("AfterToolCallsCancelCheck", "ChatModel")] == "next round"
    assert labels[("AfterToolCallsCancelCheck", "ToolNodeToEndConverter")] == "return directly"


# -- tools, models, functions ---------------------------------------------------------------------------


def test_tools_node_carries_each_tool_with_schema_and_return_directly() -> None:
    agent = ReActAgent(model=_model(), tools=[get_weather, book], tool_return_directly=["book"])
    node = agent.compiled.topology().node("tools")
    assert [t.name for t in node.tools] == ["get_weather", "book"]
    weather, booking = node.tools
    assert weather == ToolSpec(
        name="get_weather",
        description="Today's weather for a city.",
        parameters=get_weather.info.parameters,
        return_directly=False,
    )
    assert weather.parameters["properties"]["city"]["type"] == "string"
    assert booking.return_directly is True
    assert booking.parameters["properties"]["nights"]["type"] == "integer"


def test_adk_exit_tool_is_marked_return_directly() -> None:
    agent = ChatModelAgent(name="a", model=_model(), tools=[get_weather], exit=True)
    tools = agent.compiled.topology().node("ToolNode").tools
    assert [(t.name, t.return_directly) for t in tools] == [("get_weather", False), ("exit", True)]


def test_chat_model_node_names_class_and_bound_tools() -> None:
    agent = ReActAgent(model=_model(), tools=[get_weather, book])
    assert agent.compiled.topology().node("chat").model == ModelSpec(
        class_name="ScriptedChatModel", settings={}, tools=("get_weather", "book")
    )


def test_adk_model_wrappers_are_looked_through() -> None:
    agent = ChatModelAgent(name="a", model=_model(), tools=[get_weather])
    model = agent.compiled.topology().node("ChatModel").model
    assert model is not None and model.class_name == "ScriptedChatModel"
    assert model.tools == ("get_weather",)


def test_openai_model_settings_name_model_and_host_never_the_key() -> None:
    model = OpenAIChatModel(
        model="gpt-4o-mini", base_url="https://user:pw@llm.example.com:8443/v1?token=t", api_key="sk-secret"
    )
    g = Graph()
    g.add_chat_model_node("m", model)
    g.add_edge(START, "m")
    g.add_edge("m", END)
    spec = g.compile().topology().node("m").model
    assert spec == ModelSpec(
        class_name="OpenAIChatModel",
        settings={"model": "gpt-4o-mini", "base_url_host": "llm.example.com:8443"},
        tools=(),
    )
    dumped = g.compile().topology().model_dump_json()
    assert "sk-secret" not in dumped and "pw" not in dumped and "token" not in dumped


def test_a_model_can_describe_itself() -> None:
    class Custom:
        def generate(self, messages: list[Message]) -> Message:
            return Message.assistant("x")

        def topology_settings(self) -> dict[str, Any]:
            return {"deployment": "eu-1", "temperature": 0}

    g = Graph()
    g.add_chat_model_node("m", Custom())
    g.add_edge(START, "m")
    g.add_edge("m", END)
    assert g.compile().topology().node("m").model == ModelSpec(
        class_name="Custom", settings={"deployment": "eu-1", "temperature": "0"}
    )


def _double(x: int, factor: int) -> int:
    return x * factor


class _Callable:
    def __call__(self, x: int) -> int:
        return x


def test_lambda_nodes_carry_the_callables_qualified_name() -> None:
    g = Graph()
    g.add_lambda_node("plain", _double)
    g.add_lambda_node("partial", functools.partial(_double, factor=2))
    g.add_lambda_node("object", _Callable())
    g.add_lambda_node("bundle", Lambda(stream=_double))
    g.add_edge(START, "plain")
    g.add_edge("plain", "partial")
    g.add_edge("partial", "object")
    g.add_edge("object", "bundle")
    g.add_edge("bundle", END)
    topology = g.compile().topology()
    assert [topology.node(k).function for k in ("plain", "partial", "object", "bundle")] == [
        "_double",
        "_double",
        "_Callable",
        "_double",
    ]


def test_other_kinds_and_bare_tools_nodes_say_nothing_extra() -> None:
    g = Graph()
    g.add_tools_node("t", ToolsNode([get_weather]))
    g.add_passthrough_node("p")
    g.add_edge(START, "t")
    g.add_edge("t", "p")
    g.add_edge("p", END)
    topology = g.compile().topology()
    assert topology.node("t").tools[0].return_directly is False
    assert topology.node("p") == TopologyNode(key="p", kind="Passthrough")


def test_topologies_with_schemas_still_hash_and_compare_by_value() -> None:
    first = ReActAgent(model=_model(), tools=[get_weather]).compiled.topology()
    second = ReActAgent(model=_model(), tools=[get_weather]).compiled.topology()
    assert first == second
    assert hash(first) == hash(second)
    cache: dict[Any, int] = {}
    cache[first] = 1  # the recorder caches by topology
    assert cache[second] == 1
