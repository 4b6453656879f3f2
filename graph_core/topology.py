"""The neutral, read-only record of a compiled graph's shape.

Exporters, the terminal drawing, recordings and snapshot tests read a `Topology` instead of the builder,
so they never depend on engine internals and a topology can travel inside a run file as plain JSON.
Back edges are classified once, here, by a depth-first walk from START.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "END",
    "START",
    "EdgeKind",
    "ModelSpec",
    "ToolSpec",
    "Topology",
    "TopologyEdge",
    "TopologyNode",
    "TriggerMode",
    "build_topology",
    "trusted_edge",
    "trusted_node",
]

START = "start"
END = "end"

EdgeKind = Literal["edge", "branch"]
_R = TypeVar("_R", bound=BaseModel)


class TriggerMode(StrEnum):
    """When a node becomes ready: Eino's `AnyPredecessor` (Pregel) or `AllPredecessor` (DAG)."""

    ANY_PREDECESSOR = "AnyPredecessor"
    ALL_PREDECESSOR = "AllPredecessor"


class _HashedSpec(BaseModel):
    """A frozen model with dict fields that still hashes (topologies are keys in the recorder's caches):
    the hash is that of its canonical JSON, so equal specs hash equal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def __hash__(self) -> int:
        return hash(json.dumps(self.model_dump(mode="json"), sort_keys=True))


class ToolSpec(_HashedSpec):
    """One tool as a ToolsNode offers it: what a model is told about it, and whether it ends the run.

    `parameters` is the argument JSON Schema exactly as the model receives it (`ToolInfo.parameters`).
    `return_directly` is True when the agent that owns the ToolsNode ends its run with this tool's result
    (ReActAgent `tool_return_directly`, ChatModelAgent `return_directly`); a plain ToolsNode says False.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {})
    return_directly: bool = False


class ModelSpec(_HashedSpec):
    """The chat model behind a ChatModel node, identified without anything secret.

    `class_name` is the model's class (`OpenAIChatModel`, `ScriptedChatModel`, ...), looking through
    wrappers that keep the real model in `.model`. `settings` are its identifying settings as strings
    (for an OpenAI-compatible client `model` and `base_url_host`, the host without credentials or path);
    never keys or headers. `tools` are the names of the tools bound to it (`with_tools`), in bind order;
    their schemas live on the ToolsNode's `TopologyNode.tools`.
    """

    class_name: str
    settings: dict[str, str] = Field(default_factory=lambda: {})
    tools: tuple[str, ...] = ()


class TopologyNode(BaseModel):
    """A node as exporters see it. `kind` is Eino's component string, or `start`/`end`.

    What the node runs, where the engine knows it: `tools` (ToolsNode: each tool's name, description,
    argument schema, return-directly flag, in the node's order), `model` (ChatModel: class, identifying
    settings, bound tool names) and `function` (Lambda: the callable's `__qualname__`, without the
    module, so a snapshot does not depend on how the file was imported). Each is empty for other kinds
    and for nodes an adapter cannot see into. `graph` is a nested graph's topology.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str = ""
    kind: str
    input_key: str | None = None
    output_key: str | None = None
    has_pre_handler: bool = False
    has_post_handler: bool = False
    graph: Topology | None = None
    tools: tuple[ToolSpec, ...] = ()
    model: ModelSpec | None = None
    function: str | None = None


class TopologyEdge(BaseModel):
    """A control-and-data edge, or one possible target of a branch.

    `branch_index` tells several branches on one source apart (registration order); `branch_kind` is
    `single`, `multi`, `stream` or `stream_multi` for branch edges. `label` says what taking the edge
    means ("tool calls", "final answer"): for a branch end it is the label given in
    `Branch(..., labels={end: label})` (for LangGraph, the path-map key of a conditional edge); plain
    edges and unlabelled ends have None.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    target: str
    kind: EdgeKind = "edge"
    back_edge: bool = False
    branch_index: int | None = None
    branch_kind: str | None = None
    label: str | None = None


class Topology(BaseModel):
    """A compiled graph's nodes (START first, END last) and edges, with back edges marked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    trigger_mode: TriggerMode = TriggerMode.ANY_PREDECESSOR
    max_run_steps: int | None = None
    has_state: bool = False
    nodes: tuple[TopologyNode, ...]
    edges: tuple[TopologyEdge, ...]

    def node(self, key: str) -> TopologyNode:
        for node in self.nodes:
            if node.key == key:
                return node
        raise KeyError(key)

    @property
    def back_edges(self) -> tuple[TopologyEdge, ...]:
        return tuple(e for e in self.edges if e.back_edge)


_object_new = object.__new__
_object_setattr = object.__setattr__


def _trusted(cls: type[_R], defaults: dict[str, Any], values: dict[str, Any]) -> _R:
    """An instance from field values the engine itself produced, without pydantic's validation.

    `topology()` builds one record per node and edge; at 10,000 nodes validating them was most of its
    time although every value already has its declared type. Equal to the validated instance (`==`,
    `model_dump`, hash), since pydantic compares and serialises field values only.
    """
    fields = {**defaults, **values}
    record = _object_new(cls)
    _object_setattr(record, "__dict__", fields)
    _object_setattr(record, "__pydantic_fields_set__", set(values))
    _object_setattr(record, "__pydantic_extra__", None)
    _object_setattr(record, "__pydantic_private__", None)
    return record


def _defaults(cls: type[BaseModel]) -> dict[str, Any]:
    return {name: field.get_default(call_default_factory=True) for name, field in cls.model_fields.items()}


_NODE_DEFAULTS = _defaults(TopologyNode)
_EDGE_DEFAULTS = _defaults(TopologyEdge)


def trusted_node(**values: Any) -> TopologyNode:
    """A `TopologyNode` from values already of the declared types (`key` and `kind` required), unchecked.

    For the engine's own `topology()`; anything reading outside input uses `TopologyNode(...)`.
    """
    if "key" not in values or "kind" not in values:
        raise TypeError("trusted_node needs key and kind")
    return _trusted(TopologyNode, _NODE_DEFAULTS, values)


def trusted_edge(**values: Any) -> TopologyEdge:
    """A `TopologyEdge` from values already of the declared types (`source`, `target` required), unchecked."""
    if "source" not in values or "target" not in values:
        raise TypeError("trusted_edge needs source and target")
    return _trusted(TopologyEdge, _EDGE_DEFAULTS, values)


def _classify_back_edges(keys: Sequence[str], edges: Sequence[TopologyEdge]) -> set[int]:
    """Indexes of edges that reach a node still on the walk's stack (iterative, so deep graphs work)."""
    outgoing: dict[str, list[int]] = {k: [] for k in keys}
    for i, edge in enumerate(edges):
        outgoing.setdefault(edge.source, []).append(i)
    state: dict[str, int] = {}  # 1 = on stack, 2 = finished
    back: set[int] = set()
    roots = [START, *(k for k in keys if k != START)]
    for root in roots:
        if root in state:
            continue
        state[root] = 1
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, pos = stack[-1]
            out = outgoing.get(node, [])
            if pos == len(out):
                state[node] = 2
                stack.pop()
                continue
            stack[-1] = (node, pos + 1)
            edge_index = out[pos]
            target = edges[edge_index].target
            seen = state.get(target)
            if seen == 1:
                back.add(edge_index)
            elif seen is None:
                state[target] = 1
                stack.append((target, 0))
    return back


def build_topology(
    *,
    name: str,
    nodes: Iterable[TopologyNode],
    edges: Iterable[TopologyEdge],
    trigger_mode: TriggerMode = TriggerMode.ANY_PREDECESSOR,
    max_run_steps: int | None = None,
    has_state: bool = False,
) -> Topology:
    """Assemble a topology, adding START/END if missing and (re)classifying back edges.

    Edges are walked in the order given, so callers pass them in insertion order (edges of a node, then
    its branches' targets) to get the classification a reader of the builder code would expect.
    """
    user_nodes = [n for n in nodes if n.key not in (START, END)]
    all_nodes = (
        TopologyNode(key=START, kind="start"),
        *user_nodes,
        TopologyNode(key=END, kind="end"),
    )
    edge_list = list(edges)
    back = _classify_back_edges([n.key for n in all_nodes], edge_list)
    classified = tuple(
        e.model_copy(update={"back_edge": i in back}) if e.back_edge != (i in back) else e
        for i, e in enumerate(edge_list)
    )
    return Topology(
        name=name,
        trigger_mode=trigger_mode,
        max_run_steps=max_run_steps,
        has_state=has_state,
        nodes=all_nodes,
        edges=classified,
    )
