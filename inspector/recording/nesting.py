"""Which graph a nested step's path names: `nested_topology(topology, path)`.

A nested graph's steps are recorded under a node path (`StepRecord.path`). For a graph node the path
is node keys all the way down (`sub`, then the nested graph's keys). The run of an agent used as a
tool is recorded under its tool call, `ToolNode`, `weather_expert:call_expert` (`<tool name>:<call
id>`, graph_core's `tool_call_segment`), while the topology draws that agent's graph as the node named
after the tool inside the ToolsNode's nested graph (`graph_core.describe.describe_graph`). This is
the one place that maps the one onto the other.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph_core.topology import Topology, TopologyNode

__all__ = ["nested_topology", "topology_node"]


def topology_node(topology: Topology, segment: str) -> TopologyNode | None:
    """The node of `topology` that a path segment names: the node with that key, else (a tool call's
    segment, `<tool name>:<call id>`) the node named after the tool; None if there is none."""
    by_key = {node.key: node for node in topology.nodes}
    node = by_key.get(segment)
    if node is None and ":" in segment:
        node = by_key.get(segment.partition(":")[0])
    return node


def nested_topology(topology: Topology | None, path: Sequence[str]) -> Topology | None:
    """The topology of the nested graph whose steps are recorded under `path`, or None when the
    topology does not have it (a run recorded without one, or a graph changed since)."""
    for segment in path:
        if topology is None:
            return None
        node = topology_node(topology, segment)
        topology = None if node is None else node.graph
    return topology
