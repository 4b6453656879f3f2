"""A LangGraph graph's `Topology`, read from its builder (`StateGraph`), not from `get_graph()`.

`get_graph()` is a drawing aid: it follows edges from START and, in our measurement (langgraph 1.2.24),
kept 253 of the 1,006 edges of a 1,000-node chain. The builder holds the whole truth:
`nodes` (with their runnables, so a compiled subgraph or a `ToolNode` is recognisable), plain `edges`,
`waiting_edges` (a node that runs once all of several sources finished), conditional edges in
`branches` (with their path maps, and `Send` fan-out) and the destinations a node declared for the
`Command`s it returns: `branches.py` turns those into branch edges, `nodes.py` says what each node runs
(its kind, a `ToolNode`'s tools, a prebuilt agent's model). A node with none of these ways out has
no way out, and LangGraph ends the run after it: that edge into END is drawn, labelled "implicit end"
(as `get_graph()` draws it); when the node's code builds `Command(goto=...)`s it did not declare, the
edge's `branch_kind` says so and the legend says where they lead is known only at run time. START and
END (`__start__`, `__end__`) become graph_core's `start`/`end`, and `build_topology` marks the back
edges of cycles.

Edges are emitted source by source (START, then nodes in the order they were added), each source's plain
edges before its branches, so the depth-first back-edge classification is the one a reader of the
builder code expects (for a ReAct agent, `tools -> agent` is the back edge).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.adapters.langgraph.branches import (
    COMMAND_GOTO,
    LG_END,
    LG_START,
    branch_edges,
    graph_key,
    makes_commands,
)
from inspector.adapters.langgraph.nodes import model_spec, node_function, node_kind, tool_specs
from inspector.errors import TargetError
from inspector.export._unknowns import UNDECLARED_GOTO

__all__ = [
    "COMMAND_GOTO",
    "IMPLICIT_END",
    "LG_END",
    "LG_START",
    "builder_of",
    "langgraph_topology",
    "node_kind",
    "recursion_limit",
]

IMPLICIT_END = "implicit end"
"""The label of the edge into END after a node with no way out: LangGraph ends the run there (its
`get_graph()` draws the same edge), though the builder holds no such edge."""


def builder_of(graph: Any) -> Any:
    """The `StateGraph` behind `graph` (itself when uncompiled)."""
    builder = getattr(graph, "builder", None)
    if builder is not None and hasattr(builder, "waiting_edges"):
        return builder
    if hasattr(graph, "waiting_edges") and hasattr(graph, "branches"):
        return graph
    raise TargetError(
        f"a `{type(graph).__name__}` has no StateGraph builder to read its topology from (only graphs "
        "built with `StateGraph` are supported)"
    )


def recursion_limit(graph: Any) -> int:
    """The step budget a run of `graph` gets: its config's `recursion_limit`, else LangGraph's default."""
    config = getattr(graph, "config", None)
    limit = config.get("recursion_limit") if isinstance(config, Mapping) else None
    if isinstance(limit, int) and not _is_default(limit):
        return int(limit)
    from langgraph._internal._config import DEFAULT_RECURSION_LIMIT

    return int(DEFAULT_RECURSION_LIMIT)


def _is_default(limit: int) -> bool:
    return type(limit).__name__ == "_DefaultRecursionLimit"


def langgraph_topology(graph: Any, *, max_run_steps: int | None = None) -> Topology:
    """The `Topology` of a LangGraph `StateGraph` or compiled graph; nested compiled subgraphs included.

    `max_run_steps` is the budget to show (default: the graph's `recursion_limit`).
    """
    builder = builder_of(graph)
    names = list(builder.nodes)
    clashes = [n for n in names if n in (START, END)]
    if clashes:
        raise TargetError(
            f"the LangGraph graph has a node named `{clashes[0]}`, which is the inspector's name for "
            f"LangGraph's `{LG_START if clashes[0] == START else LG_END}`; rename the node to inspect it"
        )
    nodes: list[TopologyNode] = []
    for name, spec in builder.nodes.items():
        runnable = spec.runnable
        kind = node_kind(runnable)
        nested = langgraph_topology(runnable) if kind == "Graph" else None
        nodes.append(
            TopologyNode(
                key=str(name),
                kind=kind,
                graph=nested,
                tools=tool_specs(runnable) if kind == "ToolsNode" else (),
                model=model_spec(runnable) if kind == "ChatModel" else None,
                function=node_function(runnable) if kind in ("Lambda", "ChatModel") else None,
            )
        )
    order = {name: i for i, name in enumerate(names)}
    order[LG_END] = len(names)
    edges: list[TopologyEdge] = []
    for source in [LG_START, *names]:
        outgoing = [*_plain_edges(builder, source, order), *branch_edges(builder, source, names)]
        if not outgoing and source != LG_START:
            undeclared = makes_commands(builder.nodes[source].runnable)
            outgoing.append(
                TopologyEdge(
                    source=graph_key(source),
                    target=END,
                    label=IMPLICIT_END,
                    branch_kind=UNDECLARED_GOTO if undeclared else None,
                )
            )
        edges.extend(outgoing)
    name = getattr(graph, "name", None) if graph is not builder else None
    return build_topology(
        name=str(name or "LangGraph"),
        nodes=nodes,
        edges=edges,
        max_run_steps=recursion_limit(graph) if max_run_steps is None else max_run_steps,
        has_state=True,
    )


def _plain_edges(builder: Any, source: str, order: dict[str, int]) -> list[TopologyEdge]:
    """`source`'s plain edges, then the waiting edges it is one of the sources of, in node order."""
    targets = sorted((end for start, end in builder.edges if start == source), key=lambda t: order.get(t, -1))
    out = [TopologyEdge(source=graph_key(source), target=graph_key(t)) for t in targets]
    waiting = sorted(
        ((starts, end) for starts, end in builder.waiting_edges if source in starts),
        key=lambda item: (order.get(item[1], -1), item[0]),
    )
    for starts, end in waiting:
        label = "waits for " + ", ".join(graph_key(s) for s in starts)
        out.append(TopologyEdge(source=graph_key(source), target=graph_key(end), label=label))
    return out
