"""Topology -> DOT source, built with the `graphviz` package.

Styling carries meaning: START/END are filled circles, each node kind has its own shape and fill,
branch edges are dashed and carry their labels ("tool calls", "final answer"), back edges are red, bold
and `constraint=false` (so a loop does not pull its target below its source and distort the ranks),
nested graphs are clusters. A tools node lists its tools (the tooltip adds descriptions and schemas), a
chat-model node names its model, and a small legend explains the line styles that occur. A `Send`
fan-out edge has a crow's-foot head, a possible target of a condition without a path map is grey, and
the legend says in words what the code leaves to the run (`_unknowns.static_notes`). Identifiers are
generated (`n0`, `n1`, `n3_0`, ...); user text only appears as labels and tooltips, through `dot_text`
(the legend's notes, which name node keys, through `dot_html`).

An optional `RunOverlay` (see `inspector.export.overlay`) paints what a recorded run did on top: visit
counts as a heat map on the nodes, edge counts as line widths, the edge that ended the run and the
cycle that burned the budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph_core.topology import END, START, ModelSpec, ToolSpec, Topology, TopologyEdge, TopologyNode
from inspector.export._coerce import as_topology
from inspector.export._dotlines import add_edge, add_node
from inspector.export._escape import dot_html, dot_text, dot_tooltip
from inspector.export._overlay import BACK_EDGE
from inspector.export._unknowns import is_any_target, is_send, static_notes

if TYPE_CHECKING:
    import graphviz

    from inspector.export._overlay import RunOverlay

__all__ = ["model_line", "to_dot", "to_graphviz", "tool_signature"]

FONT = "Helvetica"
_KIND_STYLE: dict[str, dict[str, str]] = {
    "start": {"shape": "circle", "style": "filled", "fillcolor": "#2e7d32", "fontcolor": "white"},
    "end": {"shape": "doublecircle", "style": "filled", "fillcolor": "#37474f", "fontcolor": "white"},
    "ChatModel": {"shape": "box", "style": "rounded,filled", "fillcolor": "#bbdefb"},
    "ToolsNode": {"shape": "box", "style": "filled", "fillcolor": "#ffe0b2"},
    "Lambda": {"shape": "box", "style": "rounded", "fillcolor": "white"},
    "Passthrough": {"shape": "diamond", "style": "filled", "fillcolor": "#eeeeee"},
}
_DEFAULT_STYLE = {"shape": "box", "style": "filled", "fillcolor": "#f5f5f5"}
_GUESSED = "#9e9e9e"  # a possible target drawn because the code does not say which (the legend says so)
_BACK_EDGE_STYLE = {"color": BACK_EDGE, "fontcolor": "#c62828", "penwidth": "2", "constraint": "false"}
_MAX_TOOLS_SHOWN = 8
_MAX_LABEL = 80  # longest tool line or edge label drawn whole; the tooltip keeps the full text


def to_dot(subject: Any, /, *, overlay: RunOverlay | None = None) -> str:
    """DOT source that Graphviz's `dot` accepts for any node key, however hostile."""
    return to_graphviz(subject, overlay=overlay).source


def to_graphviz(
    subject: Any, /, *, overlay: RunOverlay | None = None, legend: bool = True
) -> graphviz.Digraph:
    """The `graphviz.Digraph` behind `to_dot`, for callers who want to tweak attributes or render.

    `legend=False` leaves out the legend cluster (it is only drawn when the graph has a line style
    worth explaining: a branch or a back edge, or a run overlay)."""
    import graphviz

    topology = as_topology(subject)
    title = topology.name if overlay is None else overlay.title(topology.name)
    dot = graphviz.Digraph(name=dot_text(topology.name))
    dot.attr(
        "graph",
        label=dot_text(title),
        labelloc="t",
        fontname=FONT,
        fontsize="18",
        compound="true",
        rankdir="TB",
        nodesep="0.5",
        ranksep="0.6",
    )
    dot.attr("node", fontname=FONT, fontsize="14", margin="0.2,0.1")
    dot.attr("edge", fontname=FONT, fontsize="12")
    _add_graph(dot, topology, prefix="n", overlay=overlay, path=())
    if legend:
        _add_legend(dot, topology, overlay)
    return dot


def _shorten(text: str, limit: int = _MAX_LABEL) -> str:
    """Cut a very long line (a huge schema) with `…`; the tooltip keeps the whole text."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _param_type(schema: Any) -> str:
    if isinstance(schema, dict):
        kind = schema.get("type")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(kind, str):
            return kind
        if isinstance(kind, list):
            return "|".join(str(k) for k in kind)  # pyright: ignore[reportUnknownVariableType]
        if "$ref" in schema or "anyOf" in schema or "oneOf" in schema:
            return "object" if "$ref" in schema else "any"
    return "any"


def tool_signature(tool: ToolSpec) -> str:
    """`name(arg: type, ...)`, from the tool's JSON Schema; `↩` marks a tool that returns directly."""
    properties = tool.parameters.get("properties")
    args: list[str] = []
    if isinstance(properties, dict):
        for name, schema in properties.items():  # pyright: ignore[reportUnknownVariableType]
            args.append(f"{name}: {_param_type(schema)}")
    text = f"{tool.name}({', '.join(args)})"
    return f"{text} ↩" if tool.return_directly else text


def model_line(model: ModelSpec) -> str:
    """`OpenAIChatModel gpt-4o-mini`: the class and the model name when it has one."""
    name = model.settings.get("model") or model.settings.get("name")
    return f"{model.class_name} {name}" if name else model.class_name


def _title(node: TopologyNode) -> str:
    if node.key in (START, END) and node.kind in ("start", "end"):
        return node.key
    if node.name and node.name != node.key:
        return f"{node.key}\n({node.name})"
    return node.key


def _label(node: TopologyNode) -> str:
    lines = [_title(node)]
    if node.model is not None:
        lines.append(_shorten(model_line(node.model)))
    if node.tools:
        shown = node.tools[:_MAX_TOOLS_SHOWN]
        lines.extend(_shorten(tool_signature(t)) for t in shown)
        if len(node.tools) > len(shown):
            lines.append(f"… and {len(node.tools) - len(shown)} more")
    return "\n".join(lines)


def _tooltip(node: TopologyNode) -> str:
    lines = [node.kind]
    if node.function:
        lines[0] = f"{node.kind}: {node.function}"
    if node.model is not None:
        lines.append(node.model.class_name)
        lines.extend(f"{key}: {value}" for key, value in sorted(node.model.settings.items()))
        if node.model.tools:
            lines.append(f"bound tools: {', '.join(node.model.tools)}")
    for tool in node.tools:
        lines.append(tool_signature(tool) + (f": {tool.description}" if tool.description else ""))
    return "\n".join(lines)


def _add_graph(
    dot: graphviz.Digraph,
    topology: Topology,
    *,
    prefix: str,
    overlay: RunOverlay | None,
    path: tuple[str, ...],
) -> dict[str, tuple[str, str]]:
    """Add nodes and edges; return, per key, the ids edges use to enter and to leave that node.

    A nested graph is entered at its START and left at its END, with `lhead`/`ltail` clipping the edge
    at the cluster border. The overlay applies to the top level only (a run file's steps name top-level
    nodes).
    """
    import graphviz

    anchors: dict[str, tuple[str, str]] = {}
    clusters: dict[str, str] = {}
    top = overlay if not path else None
    for index, node in enumerate(topology.nodes):
        node_id = f"{prefix}{index}"
        if node.graph is not None:
            cluster = graphviz.Digraph(name=f"cluster_{node_id}")
            cluster.attr(label=dot_text(_title(node)), style="rounded,dashed", color="#5c6bc0", fontname=FONT)
            inner = _add_graph(
                cluster, node.graph, prefix=f"{node_id}_", overlay=None, path=(*path, node.key)
            )
            dot.subgraph(cluster)
            anchors[node.key] = (inner[START][0], inner[END][1])
            clusters[node.key] = f"cluster_{node_id}"
            continue
        attrs = dict(_KIND_STYLE.get(node.kind, _DEFAULT_STYLE))
        label = _label(node)
        if top is not None:
            label, extra = top.node_style(node, label)
            attrs.update(extra)
        add_node(dot, node_id, {"label": dot_text(label), "tooltip": dot_tooltip(_tooltip(node)), **attrs})
        anchors[node.key] = (node_id, node_id)
    for edge in topology.edges:
        if edge.source not in anchors or edge.target not in anchors:
            continue
        attrs = _edge_attrs(edge)
        if top is not None:
            attrs.update(top.edge_style(edge, attrs.get("label")))
        if "label" in attrs:
            attrs["label"] = dot_text(attrs["label"])
        if edge.source in clusters:
            attrs["ltail"] = clusters[edge.source]
        if edge.target in clusters:
            attrs["lhead"] = clusters[edge.target]
        add_edge(dot, anchors[edge.source][1], anchors[edge.target][0], attrs)
    return anchors


def edge_text(edge: TopologyEdge) -> str | None:
    """The words on an edge: its label, else `#i` for the second and later branches of one node."""
    if edge.label:
        return edge.label
    if edge.kind == "branch" and edge.branch_index:
        return f"#{edge.branch_index}"
    return None


def _edge_attrs(edge: TopologyEdge) -> dict[str, str]:
    attrs: dict[str, str] = {}
    if edge.kind == "branch":
        attrs["style"] = "dashed"
    if is_send(edge) and edge.target != END:
        attrs["arrowhead"] = "crow"  # many tasks of the target: a fan-out
    if is_any_target(edge):
        attrs["color"] = _GUESSED
    text = edge_text(edge)
    if text is not None:
        attrs["label"] = f" {text} "
    if edge.back_edge:
        attrs.update(_BACK_EDGE_STYLE)
    return attrs


def _styles_used(topology: Topology) -> tuple[bool, bool]:
    branch = back = False
    for edge in topology.edges:
        branch = branch or edge.kind == "branch"
        back = back or edge.back_edge
    for node in topology.nodes:
        if node.graph is not None:
            inner_branch, inner_back = _styles_used(node.graph)
            branch, back = branch or inner_branch, back or inner_back
    return branch, back


def _uses(topology: Topology, test: Any) -> bool:
    """Whether an edge of the graph (or of a graph nested in it) passes `test`."""
    return any(test(edge) for edge in topology.edges) or any(
        node.graph is not None and _uses(node.graph, test) for node in topology.nodes
    )


def _returns_directly(topology: Topology) -> bool:
    """Whether any tool of the graph (or of a graph nested in it) returns directly, drawn `↩`."""
    return any(
        any(tool.return_directly for tool in node.tools)
        or (node.graph is not None and _returns_directly(node.graph))
        for node in topology.nodes
    )


def _add_legend(dot: graphviz.Digraph, topology: Topology, overlay: RunOverlay | None) -> None:
    """A one-row key at the bottom: a sample of each line style the drawing uses, in the edges' colours.

    An HTML-like label is safe here because every word in it is ours, never user text."""
    branch, back = _styles_used(topology)
    samples: list[tuple[str, str, str]] = []  # (sample glyphs, colour, explanation)
    if branch or back or overlay is not None:
        samples.append(("───▶", "black", "edge"))
    if branch:
        samples.append(("╌╌╌▶", "black", "branch"))
    if back and overlay is None:
        samples.append(("━━━▶", BACK_EDGE, "back edge (closes a loop)"))
    if overlay is not None:
        samples.extend(overlay.legend_samples())
        if back:
            samples.append(("↺ ━▶", BACK_EDGE, "back edge (closes a loop; red beside its colour)"))
    if _returns_directly(topology):
        samples.append(("↩", "black", "the tool returns directly (its result is the answer)"))
    if _uses(topology, lambda e: is_send(e) and e.target != END):
        samples.append(("╌╌╌&lt;", "black", "Send fan-out (one task per Send)"))
    if _uses(topology, is_any_target):
        samples.append(("╌╌╌▶", _GUESSED, "possible target (no path map)"))
    notes = static_notes(topology)
    if not samples:
        return
    cells = [
        f'<TD ALIGN="LEFT"><FONT COLOR="{colour}">{glyphs}</FONT> {text}</TD>'
        for glyphs, colour, text in samples
    ]
    rows = [cells[i : i + 4] for i in range(0, len(cells), 4)]
    body = "".join(
        f'<TR><TD ALIGN="LEFT">{"<B>legend</B>" if i == 0 else ""}</TD>{"".join(row)}</TR>'
        for i, row in enumerate(rows)
    )
    span = min(len(cells), 4)
    body += "".join(  # what the code does not say, in words (user text: node keys, escaped)
        f'<TR><TD></TD><TD ALIGN="LEFT" COLSPAN="{span}">{dot_html(note)}</TD></TR>' for note in notes
    )
    table = f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="6">{body}</TABLE>>'
    with dot.subgraph(name="legend_row") as row:  # pyright: ignore[reportOptionalContextManager]
        row.attr(rank="sink")
        row.node("legend", label=table, shape="box", style="rounded", color="#9e9e9e", fontsize="12")
