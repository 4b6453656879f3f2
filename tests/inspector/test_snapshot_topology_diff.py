"""Semantic topology diffs: each kind of change is named once, in words a reviewer can act on."""

from __future__ import annotations

from graph_core import END, START, Branch, Graph, TriggerMode
from graph_core.topology import Topology
from inspector.snapshot import describe_topology_changes, diff_topologies
from inspector.snapshot.topology_diff import TopologyChange


def ident(x: object) -> object:
    return x


def loop_graph(
    *, back: bool = True, branch: bool = True, extra: bool = False, max_steps: int = 10
) -> Topology:
    """a -> b, and b -> a (a back edge) either as a plain edge or as a branch."""
    g = Graph()
    g.add_lambda_node("a", ident)
    g.add_lambda_node("b", ident)
    if extra:
        g.add_lambda_node("c", ident)
        g.add_edge("b", "c")
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    if back and branch:
        g.add_branch("b", Branch(lambda x: END, {"a", END}))
    elif back:
        g.add_edge("b", "a")
        g.add_edge("b", END)
    else:
        g.add_edge("b", END)
    return g.compile(max_run_steps=max_steps).topology()


def test_identical_topologies_have_no_changes() -> None:
    assert diff_topologies(loop_graph(), loop_graph()) == []


def test_added_node_and_its_edge() -> None:
    changes = diff_topologies(loop_graph(), loop_graph(extra=True))
    assert describe_topology_changes(changes) == ["node added: `c` (Lambda)", "edge b -> c added"]


def test_removed_node_and_edge() -> None:
    changes = diff_topologies(loop_graph(extra=True), loop_graph())
    assert describe_topology_changes(changes) == ["node removed: `c` (Lambda)", "edge b -> c removed"]


def test_edge_that_changed_kind_is_one_change_not_remove_plus_add() -> None:
    changes = diff_topologies(loop_graph(branch=True), loop_graph(branch=False))
    kinds = {(c.kind, c.subject) for c in changes}
    assert ("edge_kind_changed", "b -> a") in kinds
    assert ("edge_kind_changed", "b -> end") in kinds
    assert not any(c.kind in ("edge_added", "edge_removed") for c in changes)
    assert "`b -> a` changed kind: branch -> edge" in describe_topology_changes(changes)


def test_back_edge_that_disappears() -> None:
    changes = diff_topologies(loop_graph(), loop_graph(back=False))
    text = describe_topology_changes(changes)
    assert "branch b -> a removed" in text
    assert "`b -> end` changed kind: branch -> edge" in text


def test_back_edge_classification_change() -> None:
    old = loop_graph(branch=False)
    # Same edges, but `b -> a` no longer closes a cycle: simulate a reclassification.
    edges = tuple(e.model_copy(update={"back_edge": False}) for e in old.edges)
    new = old.model_copy(update={"edges": edges})
    changes = diff_topologies(old, new)
    assert changes == [TopologyChange("back_edge_changed", "b -> a", True, False)]
    assert changes[0].describe() == "`b -> a` is no longer a back edge"
    assert diff_topologies(new, old)[0].describe() == "`b -> a` is now a back edge (it closes a cycle)"


def test_budget_and_trigger_mode_changes() -> None:
    old = loop_graph(max_steps=10)
    new = old.model_copy(update={"max_run_steps": 25, "trigger_mode": TriggerMode.ALL_PREDECESSOR})
    assert describe_topology_changes(diff_topologies(old, new)) == [
        "trigger mode changed: AnyPredecessor -> AllPredecessor",
        "budget max_run_steps changed: 10 -> 25",
    ]


def test_node_kind_change_and_nested_graph_path() -> None:
    def outer(inner_extra: bool) -> Topology:
        inner = Graph()
        inner.add_lambda_node("x", ident)
        inner.add_edge(START, "x")
        if inner_extra:
            inner.add_passthrough_node("y")
            inner.add_edge("x", "y")
            inner.add_edge("y", END)
        else:
            inner.add_edge("x", END)
        g = Graph()
        g.add_graph_node("sub", inner)
        g.add_edge(START, "sub")
        g.add_edge("sub", END)
        return g.compile().topology()

    changes = diff_topologies(outer(False), outer(True))
    text = describe_topology_changes(changes)
    assert "in nested graph `sub`: node added: `y` (Passthrough)" in text
    assert all(c.path == ("sub",) for c in changes)
