"""A LangGraph graph's `Topology`, read from its builder (`StateGraph`), not from `get_graph()`.

`get_graph()` is a drawing aid: it follows edges from START and, in our measurement (langgraph 1.2.24),
kept 253 of the 1,006 edges of a 1,000-node chain. The builder holds the whole truth:
`nodes` (with their runnables, so a compiled subgraph or a `ToolNode` is recognisable), plain `edges`,
`waiting_edges` (a node that runs once all of several sources finished), conditional edges in
`branches` (each with its path map, whose keys become the edges' labels) and the destinations a node
declared for the `Command`s it returns (with `destinations=` or a `Command[Literal[...]]` return
annotation; labelled "Command goto" unless the declaration gives labels). A node with none of these has
no way out, and LangGraph ends the run after it: that edge into END is drawn, labelled "implicit end"
(as `get_graph()` draws it). START and END (`__start__`, `__end__`) become graph_core's
`start`/`end`, and `build_topology` marks the back edges of cycles.

Edges are emitted source by source (START, then nodes in the order they were added), each source's plain
edges before its branches, so the depth-first back-edge classification is the one a reader of the
builder code expects (for a ReAct agent, `tools -> agent` is the back edge).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph_core.topology import (
    END,
    START,
    ToolSpec,
    Topology,
    TopologyEdge,
    TopologyNode,
    build_topology,
)
from inspector.adapters.detect import is_langgraph
from inspector.errors import TargetError

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

LG_START = "__start__"
LG_END = "__end__"
IMPLICIT_END = "implicit end"
"""The label of the edge into END after a node with no way out: LangGraph ends the run there (its
`get_graph()` draws the same edge), though the builder holds no such edge."""
COMMAND_GOTO = "Command goto"
"""The label of an edge to a destination a node declared for the `Command`s it returns."""


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


def _key(name: Any) -> str:
    if name == LG_START:
        return START
    if name == LG_END:
        return END
    return str(name)


def node_kind(runnable: Any) -> str:
    """graph_core's component string for a LangGraph node: `Graph` for a compiled subgraph, `ToolsNode`
    for a prebuilt `ToolNode`, `ChatModel` for the prebuilt agent's model node, else `Lambda`."""
    if is_langgraph(runnable):
        return "Graph"
    names = {cls.__name__ for cls in type(runnable).__mro__ if cls.__module__.startswith("langgraph.")}
    if "ToolNode" in names:
        return "ToolsNode"
    func = getattr(runnable, "func", None)
    qualname = getattr(func, "__qualname__", "")
    module = getattr(func, "__module__", "")
    if module == "langgraph.prebuilt.chat_agent_executor" and qualname.endswith("call_model"):
        return "ChatModel"
    return "Lambda"


def _tool_specs(tool_node: Any) -> tuple[ToolSpec, ...]:
    """A `ToolNode`'s tools as the model is told about them (OpenAI function format's parameters)."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    specs: list[ToolSpec] = []
    for name, tool in (getattr(tool_node, "tools_by_name", None) or {}).items():
        try:
            function = convert_to_openai_tool(tool)["function"]
        except Exception:  # a tool LangChain cannot describe: its name is still worth showing
            function = {}
        specs.append(
            ToolSpec(
                name=str(name),
                description=str(function.get("description") or getattr(tool, "description", "") or ""),
                parameters=dict(function.get("parameters") or {}),
                return_directly=bool(getattr(tool, "return_direct", False)),
            )
        )
    return tuple(specs)


def _function(runnable: Any) -> str | None:
    """The node function's `__qualname__`, when the node wraps a plain function: without the module,
    as for graph_core's lambda nodes (docs/topology.md), so it does not depend on how the file was
    imported."""
    func = getattr(runnable, "func", None) or getattr(runnable, "afunc", None)
    qualname = getattr(func, "__qualname__", None)
    return qualname if isinstance(qualname, str) and qualname else None


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
                tools=_tool_specs(runnable) if kind == "ToolsNode" else (),
                function=_function(runnable) if kind in ("Lambda", "ChatModel") else None,
            )
        )
    order = {name: i for i, name in enumerate(names)}
    order[LG_END] = len(names)
    edges: list[TopologyEdge] = []
    for source in [LG_START, *names]:
        outgoing = [*_plain_edges(builder, source, order), *_branch_edges(builder, source, names)]
        if not outgoing and source != LG_START:
            outgoing.append(TopologyEdge(source=_key(source), target=END, label=IMPLICIT_END))
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
    out = [TopologyEdge(source=_key(source), target=_key(t)) for t in targets]
    waiting = sorted(
        ((starts, end) for starts, end in builder.waiting_edges if source in starts),
        key=lambda item: (order.get(item[1], -1), item[0]),
    )
    for starts, end in waiting:
        label = "waits for " + ", ".join(_key(s) for s in starts)
        out.append(TopologyEdge(source=_key(source), target=_key(end), label=label))
    return out


def _branch_edges(builder: Any, source: str, names: list[str]) -> list[TopologyEdge]:
    """Conditional edges (one per target, labelled with the path-map keys that lead there) and the
    destinations declared for returned `Command`s, each group a branch of its own."""
    out: list[TopologyEdge] = []
    index = 0
    for branch in builder.branches.get(source, {}).values():
        ends = branch.ends
        labels: dict[str, list[str]] = {}
        if ends is None:  # no path map: the condition may name any node (as get_graph() draws it)
            for target in [*names, LG_END]:
                labels.setdefault(target, [])
        else:
            for label, target in ends.items():
                shown = labels.setdefault(str(target), [])
                if str(label) != str(target):
                    shown.append(str(label))
        out.extend(
            _branch_edge(source, target, index, "conditional", " | ".join(shown) or None)
            for target, shown in labels.items()
        )
        index += 1
    spec = builder.nodes.get(source)
    destinations = getattr(spec, "ends", None) if spec is not None else None
    if destinations:
        items = destinations.items() if isinstance(destinations, Mapping) else ((d, d) for d in destinations)
        out.extend(
            _branch_edge(
                source, target, index, "command", COMMAND_GOTO if str(label) == str(target) else str(label)
            )
            for target, label in items
        )
    return out


def _branch_edge(source: str, target: Any, index: int, kind: str, label: str | None) -> TopologyEdge:
    """One target of `source`'s branch `index`: a conditional edge's or a `Command` destination's."""
    return TopologyEdge(
        source=_key(source),
        target=_key(target),
        kind="branch",
        branch_index=index,
        branch_kind=kind,
        label=label,
    )
