"""`from_networkx(to_networkx(t)) == t` (docs/topology.md) held only for named topologies.

A graph compiled without a name has the topology name "", which came back from networkx as "graph".
"""

from __future__ import annotations

import networkx as nx

from graph_core import END, START, Graph
from inspector.export import as_topology, from_networkx, to_networkx


def echo(value: object) -> object:
    return value


def test_unnamed_topology_round_trips() -> None:
    graph = Graph()
    graph.add_lambda_node("a", echo)
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    topology = as_topology(graph.compile())
    assert topology.name == ""
    assert from_networkx(to_networkx(topology)) == topology


def test_hand_made_graph_without_a_name_is_still_called_graph() -> None:
    assert from_networkx(nx.MultiDiGraph([("a", "b")])).name == "graph"
