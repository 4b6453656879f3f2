"""`topology()` builds its node and edge records without re-validating them (speed); they must be the very
records validation would give: equal, serialised identically, hashing alike, still frozen."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from graph_core import END, START, Branch, Graph
from graph_core.agents.adk import ChatModelAgent
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message
from graph_core.tools import tool
from graph_core.topology import Topology, TopologyEdge, TopologyNode, trusted_edge, trusted_node


@tool
def get_weather(city: str) -> str:
    """Today's weather for a city."""
    return f"sunny in {city}"


def _model() -> ScriptedChatModel:
    return ScriptedChatModel([Message.assistant("done")])


def _nested_graph() -> Any:
    inner = Graph()
    inner.add_lambda_node("double", lambda x: x * 2, name="Double", input_key="n", output_key="m")
    inner.add_edge(START, "double")
    inner.add_edge("double", END)
    outer = Graph(state=dict)
    outer.add_graph_node("inner", inner)
    outer.add_lambda_node("check", lambda x: x, pre=lambda x, _state: x)
    outer.add_edge(START, "inner")
    outer.add_edge("inner", "check")
    outer.add_branch("check", Branch(lambda _x: END, [END, "inner"], labels={END: "done", "inner": "again"}))
    return outer.compile()


SUBJECTS = {
    "react": lambda: ReActAgent(model=_model(), tools=[get_weather], tool_return_directly=["get_weather"]),
    "adk": lambda: ChatModelAgent(
        name="a", model=_model(), tools=[get_weather], return_directly=["get_weather"]
    ),
    "nested": _nested_graph,
}


@pytest.mark.parametrize("name", list(SUBJECTS))
def test_topology_records_equal_validated_ones(name: str) -> None:
    topology: Topology = SUBJECTS[name]().topology()
    validated = Topology.model_validate(topology.model_dump())
    assert topology == validated
    assert topology.model_dump_json() == validated.model_dump_json()
    assert hash(topology) == hash(validated)
    for ours, theirs in zip(topology.nodes, validated.nodes, strict=True):
        assert ours.__dict__ == theirs.__dict__
        assert list(ours.__dict__) == list(TopologyNode.model_fields)
    for ours, theirs in zip(topology.edges, validated.edges, strict=True):
        assert ours.__dict__ == theirs.__dict__
        assert repr(ours) == repr(theirs)


def test_trusted_records_stay_frozen_and_copyable() -> None:
    node = trusted_node(key="a", kind="Lambda", function="f")
    edge = trusted_edge(source="a", target="b", kind="branch", label="yes")
    with pytest.raises(pydantic.ValidationError):
        node.key = "b"  # pyright: ignore[reportAttributeAccessIssue]
    assert node == TopologyNode(key="a", kind="Lambda", function="f")
    assert edge == TopologyEdge(source="a", target="b", kind="branch", label="yes")
    assert edge.model_copy(update={"back_edge": True}).back_edge is True
    assert edge.back_edge is False


def test_trusted_records_need_their_identity_fields() -> None:
    with pytest.raises(TypeError, match="key and kind"):
        trusted_node(key="a")
    with pytest.raises(TypeError, match="source and target"):
        trusted_edge(source="a")
