"""Construction and compile checks (Eino §1), and `CompiledGraph.topology()`."""

from __future__ import annotations

import pytest

from graph_core import END, START, Branch, Graph, TriggerMode
from graph_core.errors import GraphBuildError


def ident(x: object) -> object:
    return x


def two_nodes() -> Graph:
    g = Graph()
    g.add_lambda_node("a", ident)
    g.add_lambda_node("b", ident)
    return g


@pytest.mark.parametrize("key", [START, END])
def test_reserved_keys(key: str) -> None:
    with pytest.raises(GraphBuildError, match=f"node '{key}' is reserved, cannot add manually"):
        Graph().add_lambda_node(key, ident)


def test_duplicate_node_and_sticky_error() -> None:
    g = two_nodes()
    with pytest.raises(GraphBuildError, match="node 'a' already present"):
        g.add_passthrough_node("a")
    with pytest.raises(GraphBuildError, match="node 'a' already present"):
        g.add_lambda_node("c", ident)  # sticky: later calls fail with the first error
    with pytest.raises(GraphBuildError, match="node 'a' already present"):
        g.compile()


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        (END, "a", "END cannot be a start node"),
        ("a", START, "START cannot be an end node"),
        ("x", "a", "edge start node 'x' needs to be added to graph first"),
        ("a", "x", "edge end node 'x' needs to be added to graph first"),
    ],
)
def test_edge_errors(source: str, target: str, message: str) -> None:
    with pytest.raises(GraphBuildError, match=message):
        two_nodes().add_edge(source, target)


def test_duplicate_edge() -> None:
    g = two_nodes()
    g.add_edge("a", "b")
    with pytest.raises(GraphBuildError, match=r"control edge\[a\]-\[b\] have been added yet"):
        g.add_edge("a", "b")


def test_branch_errors() -> None:
    with pytest.raises(GraphBuildError, match="END cannot be a start node"):
        two_nodes().add_branch(END, Branch(ident, ["a"]))
    with pytest.raises(GraphBuildError, match="branch start node 'x' needs to be added to graph first"):
        two_nodes().add_branch("x", Branch(ident, ["a"]))
    with pytest.raises(GraphBuildError, match="branch end node 'y' needs to be added to graph first"):
        two_nodes().add_branch("a", Branch(ident, ["b", "y"]))


def test_start_and_end_must_be_connected() -> None:
    g = two_nodes()
    g.add_edge("a", END)
    with pytest.raises(GraphBuildError, match="start node not set"):
        g.compile()
    g = two_nodes()
    g.add_edge(START, "a")
    with pytest.raises(GraphBuildError, match="end node not set"):
        g.compile()


def test_branch_counts_as_start_edge_but_dead_ends_are_legal() -> None:
    g = two_nodes()
    g.add_branch(START, Branch(ident, ["a", "b"]))
    g.add_edge("a", END)
    assert g.compile().max_run_steps == 12


def test_dag_loops_are_listed() -> None:
    g = Graph()
    for key in ("a", "b", "c", "d"):
        g.add_lambda_node(key, ident)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "a")
    g.add_edge("b", "c")
    g.add_branch("c", Branch(ident, ["d", END]))
    g.add_edge("d", "c")
    with pytest.raises(GraphBuildError) as info:
        g.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR)
    assert str(info.value) == "DAG is invalid, has loop: [a->b->a][c->d->c]"
    assert g.compile().max_run_steps == 14  # Pregel allows the same cycles


def test_max_steps_on_dag_is_refused() -> None:
    g = two_nodes()
    g.add_edge(START, "a")
    g.add_edge("a", END)
    with pytest.raises(GraphBuildError, match="cannot set max run steps in dag mode"):
        g.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR, max_run_steps=3)
    assert g.compile(trigger_mode=TriggerMode.ALL_PREDECESSOR).max_run_steps is None


def test_compiled_graph_cannot_be_mutated_but_can_be_recompiled() -> None:
    g = two_nodes()
    g.add_edge(START, "a")
    g.add_edge("a", END)
    g.compile()
    with pytest.raises(GraphBuildError, match="graph has been compiled, cannot be modified"):
        g.add_edge("a", "b")
    assert g.compile(name="again").name == "again"


def test_topology_shape() -> None:
    inner = Graph()
    inner.add_lambda_node("i", ident)
    inner.add_edge(START, "i")
    inner.add_edge("i", END)

    g = Graph(state=dict)
    g.add_lambda_node("chat", ident, name="ChatModel", pre=lambda x, s: x)
    g.add_passthrough_node("tools")
    g.add_graph_node("sub", inner, output_key="out")
    g.add_edge(START, "chat")
    g.add_branch("chat", Branch.stream(ident, ["tools", END]))
    g.add_branch("tools", Branch(ident, ["chat", "sub"]))
    g.add_edge("sub", END)
    topo = g.compile(name="agent").topology()
    assert topo.name == "agent"
    assert topo.has_state
    assert topo.max_run_steps == 13
    assert [(n.key, n.kind, n.name) for n in topo.nodes] == [
        ("start", "start", ""),
        ("chat", "Lambda", "ChatModel"),
        ("tools", "Passthrough", ""),
        ("sub", "Graph", ""),
        ("end", "end", ""),
    ]
    assert topo.node("chat").has_pre_handler and not topo.node("chat").has_post_handler
    assert topo.node("sub").output_key == "out"
    nested = topo.node("sub").graph
    assert nested is not None and nested.name == "sub"
    assert [n.key for n in nested.nodes] == ["start", "i", "end"]
    assert [(e.source, e.target, e.kind, e.branch_index, e.branch_kind, e.back_edge) for e in topo.edges] == [
        ("start", "chat", "edge", None, None, False),
        ("chat", "tools", "branch", 0, "stream", False),
        ("chat", "end", "branch", 0, "stream", False),
        ("tools", "chat", "branch", 0, "single", True),
        ("tools", "sub", "branch", 0, "single", False),
        ("sub", "end", "edge", None, None, False),
    ]
