"""Topology <-> `networkx.MultiDiGraph`, so graph algorithms (and the lint) work on the real shape.

A multigraph because one source may reach one target both by an edge and by a branch. Edge keys are the
edge's position in `Topology.edges`, which lets `from_networkx` restore the order that back-edge
classification depends on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph_core.topology import (
    END,
    START,
    ModelSpec,
    ToolSpec,
    Topology,
    TopologyEdge,
    TopologyNode,
    TriggerMode,
    build_topology,
)
from inspector.export._coerce import as_topology

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["from_networkx", "to_networkx"]

_NODE_FIELDS = ("kind", "name", "input_key", "output_key", "has_pre_handler", "has_post_handler", "function")
_EDGE_FIELDS = ("kind", "back_edge", "branch_index", "branch_kind", "label")


def to_networkx(subject: Any, /) -> nx.MultiDiGraph:
    """Nodes carry `kind`, `name`, `function` (and `graph`, the nested `Topology`, for graph nodes;
    `tools`, a tuple of `ToolSpec`, for tool nodes; `model`, a `ModelSpec`, for chat-model nodes); edges
    `kind`, `back_edge`, `branch_index`, `branch_kind`, `label`; the graph's own attributes mirror the
    topology's."""
    import networkx as nx

    topology = as_topology(subject)
    graph = nx.MultiDiGraph(
        name=topology.name,
        trigger_mode=str(topology.trigger_mode),
        max_run_steps=topology.max_run_steps,
        has_state=topology.has_state,
    )
    for node in topology.nodes:
        attrs: dict[str, Any] = {field: getattr(node, field) for field in _NODE_FIELDS}
        if node.graph is not None:
            attrs["graph"] = node.graph
        if node.tools:
            attrs["tools"] = node.tools
        if node.model is not None:
            attrs["model"] = node.model
        graph.add_node(node.key, **attrs)
    for index, edge in enumerate(topology.edges):
        graph.add_edge(edge.source, edge.target, key=index, **{f: getattr(edge, f) for f in _EDGE_FIELDS})
    return graph


def from_networkx(graph: nx.MultiDiGraph | nx.DiGraph, /, *, name: str | None = None) -> Topology:
    """Rebuild a `Topology`. Attributes missing on a hand-made graph get the model's defaults; START and
    END are added when absent and back edges are then reclassified from scratch."""
    nodes = [_node(key, data) for key, data in graph.nodes(data=True)]
    edges = [edge for _, edge in sorted(_edges(graph), key=lambda pair: pair[0])]
    keys = {node.key for node in nodes}
    graph_attrs = dict(graph.graph)
    # "graph" only for a hand-made graph without a name; an unnamed topology's "" must round-trip
    raw_name = graph_attrs.get("name")
    topology_name = name if name is not None else "graph" if raw_name is None else str(raw_name)
    trigger_mode = TriggerMode(graph_attrs.get("trigger_mode", TriggerMode.ANY_PREDECESSOR))
    max_run_steps = graph_attrs.get("max_run_steps")
    has_state = bool(graph_attrs.get("has_state", False))
    complete = {START, END} <= keys and all("back_edge" in d for *_, d in graph.edges(data=True))
    if complete:
        return Topology(
            name=topology_name,
            trigger_mode=trigger_mode,
            max_run_steps=max_run_steps,
            has_state=has_state,
            nodes=tuple(nodes),
            edges=tuple(edges),
        )
    return build_topology(
        name=topology_name,
        nodes=nodes,
        edges=edges,
        trigger_mode=trigger_mode,
        max_run_steps=max_run_steps,
        has_state=has_state,
    )


def _node(key: Any, data: dict[str, Any]) -> TopologyNode:
    default_kind = {START: "start", END: "end"}.get(str(key), "Lambda")
    fields: dict[str, Any] = {f: data[f] for f in _NODE_FIELDS if f in data}
    fields.setdefault("kind", default_kind)
    nested = data.get("graph")
    if nested is not None:
        fields["graph"] = nested if isinstance(nested, Topology) else Topology.model_validate(nested)
    tools = data.get("tools")
    if tools:
        fields["tools"] = tuple(t if isinstance(t, ToolSpec) else ToolSpec.model_validate(t) for t in tools)
    model = data.get("model")
    if model is not None:
        fields["model"] = model if isinstance(model, ModelSpec) else ModelSpec.model_validate(model)
    return TopologyNode(key=str(key), **fields)


def _edges(graph: nx.MultiDiGraph | nx.DiGraph) -> list[tuple[tuple[int, int], TopologyEdge]]:
    """Edges with a sort key: their stored position when the key is an int, else iteration order."""
    result: list[tuple[tuple[int, int], TopologyEdge]] = []
    if graph.is_multigraph():
        multi: Any = graph
        triples = [(u, v, k, d) for u, v, k, d in multi.edges(keys=True, data=True)]
    else:
        triples = [(u, v, None, d) for u, v, d in graph.edges(data=True)]
    for position, (source, target, key, data) in enumerate(triples):
        order = (0, key) if isinstance(key, int) and not isinstance(key, bool) else (1, position)
        fields = {f: data[f] for f in _EDGE_FIELDS if f in data}
        result.append((order, TopologyEdge(source=str(source), target=str(target), **fields)))
    return result
