"""Semantic differences between two topologies: what a reviewer wants to read when a snapshot fails.

A line diff of canonical JSON says "line 40 changed"; this says "edge `tools -> chat` is no longer a back
edge". Nodes are matched by key and edges by `(source, target)`, so a change of kind, branch flavour or
back-edge classification reads as one change of that edge rather than a removal plus an addition. Nested
graphs are compared recursively and their changes carry the node path that leads to them.

What nodes run is compared too, in the words a reviewer uses: "tool added: get_hotels", "tool
get_weather: parameter city: type string -> integer", "model changed: gpt-4o-mini -> gpt-4o", "branch
chat -> end: label changed: 'final answer' -> 'answer'". Schema differences the sentences do not cover
fall back to "schema changed".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from graph_core.topology import ModelSpec, ToolSpec, Topology, TopologyEdge, TopologyNode

__all__ = ["TopologyChange", "TopologyChangeKind", "describe_topology_changes", "diff_topologies"]

TopologyChangeKind = Literal[
    "graph_changed",
    "budget_changed",
    "trigger_mode_changed",
    "node_added",
    "node_removed",
    "node_changed",
    "edge_added",
    "edge_removed",
    "edge_kind_changed",
    "back_edge_changed",
    "branch_changed",
    "label_changed",
    "tool_added",
    "tool_removed",
    "tool_changed",
    "tools_reordered",
    "model_changed",
]


@dataclass(frozen=True, slots=True)
class TopologyChange:
    """One difference from `old` (the snapshot) to `new` (what the code builds now).

    `subject` names the node (`chat`) or edge (`tools -> chat`); `path` is the nested-graph node path
    (outermost first, empty at the top level); `field` says which attribute changed for `*_changed` kinds.
    """

    kind: TopologyChangeKind
    subject: str
    old: Any = None
    new: Any = None
    path: tuple[str, ...] = ()
    field: str = ""

    def describe(self) -> str:
        where = f"in nested graph `{'/'.join(self.path)}`: " if self.path else ""
        return where + _DESCRIBE[self.kind](self)


def _edge_text(edge: TopologyEdge) -> str:
    if edge.kind == "branch":
        return f"branch {edge.source} -> {edge.target}"
    return f"edge {edge.source} -> {edge.target}"


_DESCRIBE: dict[str, Any] = {
    "graph_changed": lambda c: f"graph {c.field} changed: {c.old!r} -> {c.new!r}",
    "budget_changed": lambda c: f"budget max_run_steps changed: {c.old} -> {c.new}",
    "trigger_mode_changed": lambda c: f"trigger mode changed: {c.old} -> {c.new}",
    "node_added": lambda c: f"node added: `{c.subject}` ({c.new})",
    "node_removed": lambda c: f"node removed: `{c.subject}` ({c.old})",
    "node_changed": lambda c: f"node `{c.subject}` {c.field} changed: {c.old!r} -> {c.new!r}",
    "edge_added": lambda c: f"{c.new} added",
    "edge_removed": lambda c: f"{c.old} removed",
    "edge_kind_changed": lambda c: f"`{c.subject}` changed kind: {c.old} -> {c.new}",
    "back_edge_changed": lambda c: (
        f"`{c.subject}` is now a back edge (it closes a cycle)"
        if c.new
        else f"`{c.subject}` is no longer a back edge"
    ),
    "branch_changed": lambda c: f"branch `{c.subject}` {c.field} changed: {c.old!r} -> {c.new!r}",
    "label_changed": lambda c: f"branch {c.subject}: label changed: {c.old!r} -> {c.new!r}",
    "tool_added": lambda c: f"tool added: {c.subject} (node `{c.field}`)",
    "tool_removed": lambda c: f"tool removed: {c.subject} (node `{c.field}`)",
    "tool_changed": lambda c: f"tool {c.subject}: {c.new}",
    "tools_reordered": lambda c: f"tools of node `{c.subject}` reordered: {c.old} -> {c.new}",
    "model_changed": lambda c: (
        f"model changed: {c.old} -> {c.new}"
        if c.field == "model"
        else f"model {c.field} changed: {c.old} -> {c.new} (node `{c.subject}`)"
    ),
}

_NODE_FIELDS = ("kind", "name", "input_key", "output_key", "has_pre_handler", "has_post_handler", "function")


def diff_topologies(old: Topology, new: Topology) -> list[TopologyChange]:
    """Every semantic change from `old` to `new`, graph-level first, then nodes, then edges."""
    out: list[TopologyChange] = []
    _diff(old, new, (), out)
    return out


def describe_topology_changes(changes: list[TopologyChange]) -> list[str]:
    """One sentence per change, in order."""
    return [change.describe() for change in changes]


def _diff(old: Topology, new: Topology, path: tuple[str, ...], out: list[TopologyChange]) -> None:
    if old.name != new.name:
        out.append(TopologyChange("graph_changed", old.name, old.name, new.name, path, "name"))
    if old.trigger_mode != new.trigger_mode:
        out.append(
            TopologyChange(
                "trigger_mode_changed", "graph", str(old.trigger_mode), str(new.trigger_mode), path
            )
        )
    if old.max_run_steps != new.max_run_steps:
        out.append(TopologyChange("budget_changed", "graph", old.max_run_steps, new.max_run_steps, path))
    if old.has_state != new.has_state:
        out.append(TopologyChange("graph_changed", "graph", old.has_state, new.has_state, path, "has_state"))
    _diff_nodes(old.nodes, new.nodes, path, out)
    _diff_edges(old.edges, new.edges, path, out)


def _diff_nodes(
    old: tuple[TopologyNode, ...],
    new: tuple[TopologyNode, ...],
    path: tuple[str, ...],
    out: list[TopologyChange],
) -> None:
    old_by_key = {n.key: n for n in old}
    new_by_key = {n.key: n for n in new}
    out.extend(
        TopologyChange("node_removed", n.key, old=n.kind, path=path) for n in old if n.key not in new_by_key
    )
    out.extend(
        TopologyChange("node_added", n.key, new=n.kind, path=path) for n in new if n.key not in old_by_key
    )
    for node in new:
        before = old_by_key.get(node.key)
        if before is None:
            continue
        for name in _NODE_FIELDS:
            a, b = getattr(before, name), getattr(node, name)
            if a != b:
                out.append(TopologyChange("node_changed", node.key, a, b, path, name))
        _diff_tools(node.key, before.tools, node.tools, path, out)
        _diff_model(node.key, before.model, node.model, path, out)
        if before.graph is not None and node.graph is not None:
            _diff(before.graph, node.graph, (*path, node.key), out)
        elif (before.graph is None) != (node.graph is None):
            out.append(
                TopologyChange(
                    "node_changed",
                    node.key,
                    before.graph is not None,
                    node.graph is not None,
                    path,
                    "nested graph",
                )
            )


def _diff_edges(
    old: tuple[TopologyEdge, ...],
    new: tuple[TopologyEdge, ...],
    path: tuple[str, ...],
    out: list[TopologyChange],
) -> None:
    """Match edges by endpoints; identical ones first, so only real changes are left to pair up."""
    remaining_old = list(old)
    unmatched_new: list[TopologyEdge] = []
    for edge in new:
        if edge in remaining_old:
            remaining_old.remove(edge)
        else:
            unmatched_new.append(edge)
    added: list[TopologyEdge] = []
    for edge in unmatched_new:
        partner = next((e for e in remaining_old if (e.source, e.target) == (edge.source, edge.target)), None)
        if partner is None:
            added.append(edge)
            continue
        remaining_old.remove(partner)
        subject = f"{edge.source} -> {edge.target}"
        if partner.kind != edge.kind:
            out.append(TopologyChange("edge_kind_changed", subject, partner.kind, edge.kind, path))
        elif partner.branch_kind != edge.branch_kind:
            out.append(
                TopologyChange(
                    "branch_changed", subject, partner.branch_kind, edge.branch_kind, path, "flavour"
                )
            )
        elif partner.branch_index != edge.branch_index:
            out.append(
                TopologyChange(
                    "branch_changed", subject, partner.branch_index, edge.branch_index, path, "index"
                )
            )
        if partner.back_edge != edge.back_edge:
            out.append(TopologyChange("back_edge_changed", subject, partner.back_edge, edge.back_edge, path))
        if partner.label != edge.label:
            out.append(TopologyChange("label_changed", subject, partner.label, edge.label, path, "label"))
    out.extend(
        TopologyChange("edge_removed", f"{e.source} -> {e.target}", old=_edge_text(e), path=path)
        for e in remaining_old
    )
    out.extend(
        TopologyChange("edge_added", f"{e.source} -> {e.target}", new=_edge_text(e), path=path) for e in added
    )


def _diff_tools(
    key: str,
    old: tuple[ToolSpec, ...],
    new: tuple[ToolSpec, ...],
    path: tuple[str, ...],
    out: list[TopologyChange],
) -> None:
    old_by_name = {t.name: t for t in old}
    new_by_name = {t.name: t for t in new}
    out.extend(
        TopologyChange("tool_removed", t.name, path=path, field=key) for t in old if t.name not in new_by_name
    )
    out.extend(
        TopologyChange("tool_added", t.name, path=path, field=key) for t in new if t.name not in old_by_name
    )
    for tool in new:
        before = old_by_name.get(tool.name)
        if before is not None and before != tool:
            out.extend(
                TopologyChange("tool_changed", tool.name, new=sentence, path=path, field=key)
                for sentence in _tool_sentences(before, tool)
            )
    kept_old = [t.name for t in old if t.name in new_by_name]
    kept_new = [t.name for t in new if t.name in old_by_name]
    if kept_old != kept_new:
        out.append(TopologyChange("tools_reordered", key, ", ".join(kept_old), ", ".join(kept_new), path))


def _schema_type(schema: Any) -> str:
    if isinstance(schema, dict):
        kind = schema.get("type")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(kind, str):
            return kind
        if kind is not None:
            return str(kind)  # pyright: ignore[reportUnknownArgumentType]
    return "any"


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return dict(props) if isinstance(props, dict) else {}  # pyright: ignore[reportUnknownArgumentType]


def _required(schema: dict[str, Any]) -> set[str]:
    req = schema.get("required")
    return {str(r) for r in req} if isinstance(req, list) else set()  # pyright: ignore[reportUnknownVariableType]


def _tool_sentences(old: ToolSpec, new: ToolSpec) -> list[str]:
    """What changed in one tool, one sentence per difference, schema parameters by name."""
    out: list[str] = []
    if old.description != new.description:
        out.append("description changed")
    if old.return_directly != new.return_directly:
        out.append("now returns directly" if new.return_directly else "no longer returns directly")
    before, after = _properties(old.parameters), _properties(new.parameters)
    required_before, required_after = _required(old.parameters), _required(new.parameters)
    for name in before:
        if name not in after:
            out.append(f"parameter {name} removed")
    for name, schema in after.items():
        if name not in before:
            needed = "required" if name in required_after else "optional"
            out.append(f"parameter {name} added ({_schema_type(schema)}, {needed})")
            continue
        previous = before[name]
        if _schema_type(previous) != _schema_type(schema):
            out.append(f"parameter {name}: type {_schema_type(previous)} -> {_schema_type(schema)}")
        elif previous != schema:
            out.append(f"parameter {name}: schema changed")
        if (name in required_before) != (name in required_after):
            out.append(f"parameter {name}: {'now required' if name in required_after else 'now optional'}")
    rest_before = {k: v for k, v in old.parameters.items() if k not in ("properties", "required")}
    rest_after = {k: v for k, v in new.parameters.items() if k not in ("properties", "required")}
    if rest_before != rest_after:
        out.append("schema changed")
    return out or ["changed"]


def _diff_model(
    key: str, old: ModelSpec | None, new: ModelSpec | None, path: tuple[str, ...], out: list[TopologyChange]
) -> None:
    if old == new:
        return
    if old is None or new is None:
        out.append(
            TopologyChange(
                "model_changed", key, old and old.class_name, new and new.class_name, path, "description"
            )
        )
        return
    if old.class_name != new.class_name:
        out.append(TopologyChange("model_changed", key, old.class_name, new.class_name, path, "class"))
    for name in sorted(old.settings.keys() | new.settings.keys()):
        a, b = old.settings.get(name), new.settings.get(name)
        if a != b:
            out.append(TopologyChange("model_changed", key, a, b, path, name))
    if old.tools != new.tools:
        out.append(
            TopologyChange(
                "model_changed", key, ", ".join(old.tools), ", ".join(new.tools), path, "bound tools"
            )
        )
