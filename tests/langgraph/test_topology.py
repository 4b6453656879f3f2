"""A LangGraph graph's topology is read from its builder: every node and edge, labels, joins, subgraphs."""

from __future__ import annotations

import itertools
import subprocess
import sys
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from fixtures import langgraph_approval, langgraph_react
from inspector.adapters import is_langgraph
from inspector.adapters.langgraph import langgraph_topology
from inspector.errors import TargetError
from inspector.export import to_json, to_networkx
from tests.langgraph.graphs import fan_out, loop, nested


def _edges(topology: Any) -> list[tuple[str, str, str, str | None, bool]]:
    return [(e.source, e.target, e.kind, e.label, e.back_edge) for e in topology.edges]


def test_conditional_edges_carry_their_path_map_keys_as_labels() -> None:
    topology = langgraph_topology(langgraph_approval.builder())
    assert [n.key for n in topology.nodes] == ["start", "draft", "approve", "send", "discard", "end"]
    assert _edges(topology) == [
        ("start", "draft", "edge", None, False),
        ("draft", "approve", "edge", None, False),
        ("approve", "send", "branch", "approved", False),
        ("approve", "discard", "branch", "rejected", False),
        ("send", "end", "edge", None, False),
        ("discard", "end", "edge", None, False),
    ]


def test_a_self_loop_is_a_back_edge_and_the_uncompiled_and_compiled_graph_agree() -> None:
    builder = loop()
    assert _edges(langgraph_topology(builder)) == [
        ("start", "work", "edge", None, False),
        ("work", "work", "branch", "again", True),
        ("work", "finish", "branch", "done", False),
        ("finish", "end", "edge", None, False),
    ]
    assert langgraph_topology(builder.compile()) == langgraph_topology(builder)


def test_react_agent_nodes_kinds_tools_and_back_edge() -> None:
    topology = langgraph_react.build_agent()
    shape = langgraph_topology(topology)
    assert [(n.key, n.kind) for n in shape.nodes] == [
        ("start", "start"),
        ("agent", "ChatModel"),
        ("tools", "ToolsNode"),
        ("end", "end"),
    ]
    assert [(e.source, e.target) for e in shape.back_edges] == [("tools", "agent")]
    (tool,) = shape.node("tools").tools
    assert tool.name == "get_weather"
    assert tool.parameters["properties"] == {"city": {"type": "string"}}


def test_waiting_edges_and_send_targets() -> None:
    assert _edges(langgraph_topology(fan_out())) == [
        ("start", "plan", "edge", None, False),
        ("plan", "worker", "branch", "Send ×n", False),
        ("worker", "review", "edge", None, False),
        ("worker", "audit", "edge", None, False),
        ("review", "report", "edge", "waits for review, audit", False),
        ("audit", "report", "edge", "waits for review, audit", False),
        ("report", "end", "edge", None, False),
    ]


def test_a_compiled_subgraph_is_nested() -> None:
    topology = langgraph_topology(nested())
    child = topology.node("child")
    assert child.kind == "Graph" and child.graph is not None
    assert child.graph.name == "child"
    assert _edges(child.graph) == [
        ("start", "inner_a", "edge", None, False),
        ("inner_a", "inner_b", "edge", None, False),
        ("inner_b", "end", "edge", None, False),
    ]


class _S(TypedDict):
    x: int


def _nothing(state: _S) -> dict[str, Any]:
    """A node that updates nothing."""
    return {}


def test_command_destinations_are_branch_edges() -> None:
    def route(state: _S) -> Command[Any]:
        return Command(goto="b")

    graph = StateGraph(_S)
    graph.add_node("a", route, destinations=("b", "c"))
    graph.add_node("b", _nothing)
    graph.add_node("c", _nothing)
    graph.add_edge(START, "a")
    graph.add_edge("b", END)
    graph.add_edge("c", END)
    edges = [(e.source, e.target, e.branch_kind) for e in langgraph_topology(graph).edges if e.source == "a"]
    assert edges == [("a", "b", "command"), ("a", "c", "command")]


def test_a_conditional_edge_without_path_map_may_reach_every_node() -> None:
    graph = StateGraph(_S)
    graph.add_node("a", _nothing)
    graph.add_node("b", _nothing)
    graph.add_edge(START, "a")
    graph.add_conditional_edges("a", lambda s: "b")
    targets = [e.target for e in langgraph_topology(graph).edges if e.source == "a"]
    assert targets == ["a", "b", "end"]


def test_a_1000_node_chain_keeps_every_node_and_edge() -> None:
    graph = StateGraph(_S)
    names = [f"n{i:04d}" for i in range(1000)]
    for name in names:
        graph.add_node(name, _nothing)
    graph.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        graph.add_edge(a, b)
    graph.add_edge(names[-1], END)
    topology = langgraph_topology(graph.compile())
    assert len(topology.nodes) == 1002
    assert len(topology.edges) == 1001
    assert to_networkx(topology).number_of_edges() == 1001


def test_a_node_named_like_the_inspectors_start_is_refused() -> None:
    graph = StateGraph(_S)
    graph.add_node("start", _nothing)
    graph.add_edge(START, "start")
    with pytest.raises(TargetError, match="node named `start`"):
        langgraph_topology(graph)


def test_exporters_accept_langgraph_graphs_and_recognition_imports_nothing() -> None:
    assert is_langgraph(loop()) and is_langgraph(loop().compile())
    assert not is_langgraph(object())
    assert to_json(loop()) == to_json(langgraph_topology(loop()))
    code = (
        "import sys, inspector.cli, inspector.export, inspector.target, inspector.adapters\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_core')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
