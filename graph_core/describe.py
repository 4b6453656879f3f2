"""What the topology says about the component behind a node: its tools, its model, its function.

The engine keeps each node's component (`NodeSpec.component`); these functions turn it into the plain,
secret-free description a `TopologyNode` carries, so a snapshot test notices when a tool, a schema or a
model changes. Everything is duck-typed (the engine never imports a model client): a ToolsNode offers
`tool_infos` (and `return_directly`), a chat model `.tools` (the `ToolInfo`s bound by `with_tools`) and
identifying attributes. A component can describe itself instead by offering `topology_settings()`
(chat models: a `dict[str, str]`).

A tool that offers `topology()` (an agent used as a tool, `AgentTool`) runs a graph of its own: the
ToolsNode that holds one gets a nested graph (`describe_graph`) in which each of its tools is a node
reached from START, and an agent tool's node holds the agent's graph. At the ToolsNode a sub-agent and
a tool are both actions producing a result; the drawing says which is which and what the agent runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from graph_core.lambda_ import Lambda
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

__all__ = ["describe_function", "describe_graph", "describe_model", "describe_node", "describe_tools"]

AGENT_TOOL_KIND = "Agent"
"""The kind of an agent tool's node in a ToolsNode's nested graph (Eino `ComponentOfAgent`)."""
TOOL_KIND = "Tool"
"""The kind of any other tool's node there (what `RunInfo.kind` says of a tool call)."""

_WRAPPER_DEPTH = 8  # a wrapper chain longer than this is not followed further


def describe_tools(tools_node: Any) -> tuple[ToolSpec, ...]:
    """The tools a ToolsNode runs, in its order, with the return-directly flags its owner set."""
    infos = getattr(tools_node, "tool_infos", None)
    if infos is None:
        return ()
    direct = frozenset(getattr(tools_node, "return_directly", ()) or ())
    specs: list[ToolSpec] = []
    for info in infos:
        name = str(getattr(info, "name", ""))
        specs.append(
            ToolSpec(
                name=name,
                description=str(getattr(info, "description", "") or ""),
                parameters=dict(getattr(info, "parameters", None) or {}),
                return_directly=name in direct,
            )
        )
    return tuple(specs)


def _is_model(value: Any) -> bool:
    return callable(getattr(value, "generate", None)) or callable(getattr(value, "stream", None))


def _unwrapped(model: Any) -> Any:
    """Look through wrappers that keep the real model in `.model` (agents wrap models to emit events)."""
    for _ in range(_WRAPPER_DEPTH):
        inner = getattr(model, "model", None)
        if inner is None or not _is_model(inner) or callable(getattr(model, "topology_settings", None)):
            return model
        model = inner
    return model


def _host(url: str) -> str:
    """The host (and port) of a URL, without user, password, path or query: never a credential."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return ""
    if not host:
        return ""
    return f"{host}:{port}" if port is not None else host


def _settings(model: Any) -> dict[str, str]:
    custom = getattr(model, "topology_settings", None)
    if callable(custom):
        given: Any = custom()
        return {str(k): str(v) for k, v in dict(given).items()}
    settings: dict[str, str] = {}
    name = getattr(model, "model", None)
    if isinstance(name, str) and name:
        settings["model"] = name
    base_url = getattr(model, "base_url", None)
    if isinstance(base_url, str) and base_url and _host(base_url):
        settings["base_url_host"] = _host(base_url)
    label = getattr(model, "name", None)
    if isinstance(label, str) and label and label != type(model).__name__:
        settings["name"] = label
    return settings


def describe_model(model: Any) -> ModelSpec:
    """Class, identifying settings (model name, base URL host; never keys) and bound tool names."""
    real = _unwrapped(model)
    tools = getattr(real, "tools", None) or ()
    names = tuple(str(getattr(t, "name", t)) for t in tools) if isinstance(tools, list | tuple) else ()
    return ModelSpec(class_name=type(real).__name__, settings=_settings(real), tools=names)


def describe_function(fn: Callable[..., Any] | Lambda | None) -> str | None:
    """The `__qualname__` of a lambda node's callable (its first paradigm for a `Lambda`).

    The module is left out on purpose: the same file imported as a TARGET, run as `__main__` or moved
    within a package would otherwise change every snapshot that holds it.
    """
    if isinstance(fn, Lambda):
        fn = fn.invoke or fn.stream or fn.collect or fn.transform
    if fn is None:
        return None
    while isinstance(fn, functools.partial):
        fn = fn.func  # pyright: ignore[reportUnknownMemberType]
    qualname = getattr(fn, "__qualname__", None)
    return qualname if isinstance(qualname, str) else type(fn).__qualname__


def _tool_graph(tool: Any) -> Topology | None:
    topology = getattr(tool, "topology", None)
    if not callable(topology):
        return None
    graph = topology()
    return graph if isinstance(graph, Topology) else None


def describe_graph(spec: Any) -> Topology | None:
    """The nested graph of a ToolsNode some of whose tools run graphs of their own (agents used as
    tools), else None: START branches to each tool (the model's calls choose which, several at once),
    each tool leads to END, and an agent tool's node holds its agent's `Topology`."""
    component = getattr(spec, "component", None)
    if getattr(spec, "kind", "") != "ToolsNode" or component is None:
        return None
    tools: list[Any] = list(getattr(component, "tools", None) or ())
    graphs = [_tool_graph(tool) for tool in tools]
    if all(graph is None for graph in graphs):
        return None
    nodes: list[TopologyNode] = []
    edges: list[TopologyEdge] = []
    for tool, graph in zip(tools, graphs, strict=True):
        name = str(getattr(getattr(tool, "info", None), "name", ""))
        kind = TOOL_KIND if graph is None else AGENT_TOOL_KIND
        nodes.append(
            TopologyNode(key=name, name=graph.name if graph is not None else "", kind=kind, graph=graph)
        )
        edges.append(TopologyEdge(source=START, target=name, kind="branch", branch_kind="multi"))
    edges.extend(TopologyEdge(source=node.key, target=END) for node in nodes)
    # the calls run at once and the node ends when all have: no supersteps, as in a DAG
    return build_topology(
        name=str(getattr(spec, "key", "")),
        nodes=nodes,
        edges=edges,
        trigger_mode=TriggerMode.ALL_PREDECESSOR,
    )


def describe_node(spec: Any) -> dict[str, Any]:
    """The `TopologyNode` fields (`tools`, `model`, `function`) for one added node (`NodeSpec`)."""
    component = getattr(spec, "component", None)
    if component is None:
        return {}
    kind = getattr(spec, "kind", "")
    if kind == "ToolsNode":
        return {"tools": describe_tools(component)}
    if kind == "ChatModel":
        return {"model": describe_model(component)}
    if kind == "Lambda":
        return {"function": describe_function(component)}
    return {}
