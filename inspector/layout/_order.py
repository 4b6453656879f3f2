"""Vertical order of nodes for the terminal drawing: ranks from a depth-first walk from START.

A node's rank is the longest path to it over forward (non-back) edges, so every forward edge points
down and only back edges point up; END always comes last. Ties keep depth-first discovery order, which
follows the builder's edge order, so the picture matches how a reader thinks about the graph.
"""

from __future__ import annotations

from collections import deque

from graph_core.topology import END, START, Topology

__all__ = ["node_layers", "node_order"]


def _preorder(topology: Topology) -> tuple[dict[str, int], dict[str, int]]:
    """Discovery index of every node, and the index of the walk (0 = the one from START) that found it."""
    outgoing: dict[str, list[str]] = {n.key: [] for n in topology.nodes}
    for edge in topology.edges:
        if edge.source in outgoing and edge.target in outgoing:
            outgoing[edge.source].append(edge.target)
    seen: dict[str, int] = {}
    component: dict[str, int] = {}
    walks = 0
    for root in [START, *(n.key for n in topology.nodes)]:
        if root in seen or root not in outgoing:
            continue
        stack = [root]
        while stack:
            key = stack.pop()
            if key in seen:
                continue
            seen[key] = len(seen)
            component[key] = walks
            stack.extend(reversed([t for t in outgoing.get(key, []) if t not in seen]))
        walks += 1
    return seen, component


def node_order(topology: Topology) -> list[str]:
    """Keys top to bottom: what START reaches first, then each other connected part, END last."""
    return [key for layer in node_layers(topology) for key in layer]


def node_layers(topology: Topology) -> list[list[str]]:
    """Keys grouped into rows: one row per rank of each connected part, END alone in the last row.

    Within a row, nodes follow the mean position of their parents in the row above (ties: discovery
    order), which removes most crossings of fan-out/fan-in edges without any search.
    """
    keys, group = _ranked(topology)
    layers: list[list[str]] = []
    last: tuple[int, int] | None = None
    for key in keys:
        if group[key] != last:
            layers.append([])
            last = group[key]
        layers[-1].append(key)
    parents: dict[str, list[str]] = {}
    for edge in topology.edges:
        if not edge.back_edge and edge.source != edge.target:
            parents.setdefault(edge.target, []).append(edge.source)
    slot: dict[str, int] = {}
    for index, layer in enumerate(layers):
        if index:

            def centre(key: str) -> float:
                placed = [slot[p] for p in parents.get(key, []) if p in slot]
                return sum(placed) / len(placed) if placed else float("inf")

            layer.sort(key=centre)  # stable: ties keep discovery order
        slot.update((key, i) for i, key in enumerate(layer))
    return layers


def _ranked(topology: Topology) -> tuple[list[str], dict[str, tuple[int, int]]]:
    """Keys in drawing order and the (part, rank) group each belongs to."""
    discovered, component = _preorder(topology)
    keys = sorted(discovered, key=discovered.__getitem__)
    successors: dict[str, list[str]] = {k: [] for k in keys}
    indegree = dict.fromkeys(keys, 0)
    for edge in topology.edges:
        if edge.back_edge or edge.source == edge.target:
            continue
        if edge.source in successors and edge.target in indegree:
            successors[edge.source].append(edge.target)
            indegree[edge.target] += 1
    rank = dict.fromkeys(keys, 0)
    queue = deque(k for k in keys if indegree[k] == 0)
    placed: list[str] = []
    while queue:
        key = queue.popleft()
        placed.append(key)
        for target in successors[key]:
            rank[target] = max(rank[target], rank[key] + 1)
            indegree[target] -= 1
            if indegree[target] == 0:
                queue.append(target)
    if len(placed) < len(keys):  # back-edge flags were wrong (hand-edited topology): degrade gracefully
        leftover = [k for k in keys if indegree[k] > 0]
        bottom = max(rank.values(), default=0)
        for offset, key in enumerate(leftover):
            rank[key] = max(rank[key], bottom + 1 + offset)
    last = len(keys) + 1
    group = {k: (last, 0) if k == END else (component[k], rank[k]) for k in keys}
    return sorted(keys, key=lambda k: (*group[k], discovered[k])), group
