"""The header line, and where the recorder finds the topology it stores there.

The topology comes from `Recorder(topology=...)`, else from the run scope (`scope.extras["topology"]`
or `scope.extras["compiled"].topology()`) when the engine offers it, else it is left out. Both it and
its JSON are made once per compiled graph (they are frozen, and a graph is often recorded many times).
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from graph_core.context import current_scope
from graph_core.topology import Topology
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION, branch_ends

__all__ = ["header_line", "index_topology", "scope_extra", "topology_from_scope", "topology_json"]

_TOPOLOGIES: weakref.WeakKeyDictionary[Any, Topology] = weakref.WeakKeyDictionary()
_TOPOLOGY_JSON: weakref.WeakKeyDictionary[Topology, Any] = weakref.WeakKeyDictionary()


def topology_json(topology: Topology) -> Any:
    """The header's topology, dumped once per `Topology` object (it is frozen)."""
    try:
        dumped = _TOPOLOGY_JSON.get(topology)
    except TypeError:  # unhashable (a ToolSpec's parameters dict): dumped every time, not cached
        return topology.model_dump(mode="json")
    if dumped is None:
        dumped = _TOPOLOGY_JSON[topology] = topology.model_dump(mode="json")
    return dumped


def scope_extra(key: str) -> str | None:
    """A string the engine put in the run scope's extras (`resumed_from`), or None."""
    scope = current_scope()
    value = None if scope is None else scope.extras.get(key)
    return value if isinstance(value, str) else None


def topology_from_scope() -> Topology | None:
    """The running graph's topology: from the scope, else made by the compiled graph, once per compiled
    graph."""
    scope = current_scope()
    if scope is None:
        return None
    topology = scope.extras.get("topology")
    if isinstance(topology, Topology):
        return topology
    compiled = scope.extras.get("compiled")
    make = getattr(compiled, "topology", None)
    if not callable(make):
        return None
    try:
        made = _TOPOLOGIES.get(compiled)
    except TypeError:  # not weakly referenceable: not cached
        made = None
    if made is not None:
        return made
    try:
        made = make()
    except Exception:
        return None
    if not isinstance(made, Topology):
        return None
    with contextlib.suppress(TypeError):
        _TOPOLOGIES[compiled] = made
    return made


def header_line(
    run_id: str, graph_name: str, started: str, topology: Topology | None, input: Any, meta: Any
) -> dict[str, Any]:
    """The first line of a run file (`input` and `meta` already encoded)."""
    return {
        "kind": "header",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "run_id": run_id,
        "graph_name": graph_name or (topology.name if topology else ""),
        "started_at": started,
        "trigger_mode": None if topology is None else topology.trigger_mode.value,
        "max_run_steps": None if topology is None else topology.max_run_steps,
        "topology": None if topology is None else topology_json(topology),
        "input": input,
        "resumed_from": scope_extra("resumed_from"),
        "meta": meta,
    }


def index_topology(
    topology: Topology,
    path: tuple[str, ...],
    nodes: dict[tuple[str, ...], tuple[str, str]],
    ends: dict[tuple[tuple[str, ...], str, int], tuple[str, ...]],
) -> None:
    """Fill `nodes` (name and kind by node path) and `ends` (branch ends by graph path, source and
    branch index) from `topology` and its nested graphs, so step lines can leave them out."""
    for node in topology.nodes:
        nodes[(*path, node.key)] = (node.name, node.kind)
        if node.graph is not None:
            index_topology(node.graph, (*path, node.key), nodes, ends)
    for (source, index), targets in branch_ends(topology).items():
        ends[(path, source, index)] = targets
