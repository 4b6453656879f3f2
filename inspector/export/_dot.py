"""Topology -> DOT source, built with the `graphviz` package.

Styling carries meaning: START/END are filled circles, each node kind has its own shape and fill,
branch edges are dashed, back edges are red, bold and `constraint=false` (so a loop does not pull its
target below its source and distort the ranks), nested graphs are clusters. Identifiers are generated
(`n0`, `n1`, `n3_0`, ...); keys only appear as labels, through `dot_text`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode
from inspector.export._coerce import as_topology
from inspector.export._escape import dot_text

if TYPE_CHECKING:
    import graphviz

__all__ = ["to_dot", "to_graphviz"]

_KIND_STYLE: dict[str, dict[str, str]] = {
    "start": {"shape": "circle", "style": "filled", "fillcolor": "#2e7d32", "fontcolor": "white"},
    "end": {"shape": "doublecircle", "style": "filled", "fillcolor": "#37474f", "fontcolor": "white"},
    "ChatModel": {"shape": "box", "style": "rounded,filled", "fillcolor": "#bbdefb"},
    "ToolsNode": {"shape": "box", "style": "filled", "fillcolor": "#ffe0b2"},
    "Lambda": {"shape": "box", "style": "rounded", "fillcolor": "white"},
    "Passthrough": {"shape": "diamond", "style": "filled", "fillcolor": "#eeeeee"},
}
_DEFAULT_STYLE = {"shape": "box", "style": "filled", "fillcolor": "#f5f5f5"}
_BACK_EDGE_STYLE = {"color": "#c62828", "fontcolor": "#c62828", "penwidth": "2", "constraint": "false"}


def to_dot(subject: Any, /) -> str:
    """DOT source that Graphviz's `dot` accepts for any node key, however hostile."""
    return to_graphviz(subject).source


def to_graphviz(subject: Any, /) -> graphviz.Digraph:
    """The `graphviz.Digraph` behind `to_dot`, for callers who want to tweak attributes or render."""
    import graphviz

    topology = as_topology(subject)
    dot = graphviz.Digraph(name=dot_text(topology.name))
    dot.attr("graph", label=dot_text(topology.name), labelloc="t", compound="true", rankdir="TB")
    dot.attr("node", fontname="Helvetica")
    dot.attr("edge", fontname="Helvetica")
    _add_graph(dot, topology, prefix="n")
    return dot


def _label(node: TopologyNode) -> str:
    if node.key in (START, END) and node.kind in ("start", "end"):
        return node.key
    if node.name and node.name != node.key:
        return f"{node.key}\n({node.name})"
    return node.key


def _add_graph(dot: graphviz.Digraph, topology: Topology, *, prefix: str) -> dict[str, tuple[str, str]]:
    """Add nodes and edges; return, per key, the ids edges use to enter and to leave that node.

    A nested graph is entered at its START and left at its END, with `lhead`/`ltail` clipping the edge
    at the cluster border.
    """
    import graphviz

    anchors: dict[str, tuple[str, str]] = {}
    clusters: dict[str, str] = {}
    for index, node in enumerate(topology.nodes):
        node_id = f"{prefix}{index}"
        if node.graph is not None:
            cluster = graphviz.Digraph(name=f"cluster_{node_id}")
            cluster.attr(label=dot_text(_label(node)), style="rounded,dashed", color="#5c6bc0")
            inner = _add_graph(cluster, node.graph, prefix=f"{node_id}_")
            dot.subgraph(cluster)
            anchors[node.key] = (inner[START][0], inner[END][1])
            clusters[node.key] = f"cluster_{node_id}"
            continue
        style = _KIND_STYLE.get(node.kind, _DEFAULT_STYLE)
        dot.node(node_id, label=dot_text(_label(node)), tooltip=dot_text(node.kind), **style)
        anchors[node.key] = (node_id, node_id)
    for edge in topology.edges:
        if edge.source not in anchors or edge.target not in anchors:
            continue
        attrs = _edge_attrs(edge)
        if edge.source in clusters:
            attrs["ltail"] = clusters[edge.source]
        if edge.target in clusters:
            attrs["lhead"] = clusters[edge.target]
        dot.edge(anchors[edge.source][1], anchors[edge.target][0], **attrs)
    return anchors


def _edge_attrs(edge: TopologyEdge) -> dict[str, str]:
    attrs: dict[str, str] = {}
    if edge.kind == "branch":
        attrs["style"] = "dashed"
        if edge.branch_index:
            attrs["label"] = f"#{edge.branch_index}"
    if edge.back_edge:
        attrs.update(_BACK_EDGE_STYLE)
    return attrs
