"""Topology -> Mermaid flowchart text that renders on GitHub.

Mermaid has many reserved words (`end`, `graph`, `subgraph`, `style`, `class`, `click`, ...) and a
permissive lexer, so ids are generated (`n0`, `n1`, `n3_0`, ...) and every key is shown as a quoted label
through `mermaid_text`. Branch edges are dotted, back edges thick and red (`linkStyle`), START/END are
circles, nested graphs are `subgraph` blocks that edges attach to. Edge labels use the pipe form with a
quoted string (`n1 -.->|"tool calls"| n2`), the one form whose text Mermaid's lexer never reads as
syntax once quotes and markup are entities. A tools node lists its tools and a chat-model node its model
under the key, as in the DOT export. What the code leaves to the run (a `Send` fan-out's size, a
condition without a path map) is said in a `legend` note box, only when there is something to say.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode
from inspector.export._coerce import as_topology
from inspector.export._dot import edge_text, model_line, tool_signature
from inspector.export._escape import mermaid_text
from inspector.export._unknowns import is_any_target, static_notes

if TYPE_CHECKING:
    from inspector.export._overlay import RunOverlay

__all__ = ["to_mermaid"]

_SHAPES = {"start": ('(("', '"))'), "end": ('((("', '")))'), "ToolsNode": ('[["', '"]]')}
_DEFAULT_SHAPE = ('["', '"]')
_ROUNDED = ('("', '")')
_CLASS_DEFS = {
    "start": "fill:#2e7d32,color:#fff,stroke:#1b5e20",
    "end": "fill:#37474f,color:#fff,stroke:#263238",
    "ChatModel": "fill:#bbdefb,stroke:#1565c0",
    "ToolsNode": "fill:#ffe0b2,stroke:#ef6c00",
}


def to_mermaid(subject: Any, /, *, direction: str = "TD", overlay: RunOverlay | None = None) -> str:
    """A `flowchart` block (without the surrounding ```mermaid fence).

    With `overlay` (a recorded run), top-level nodes show their visit counts and a heat-map fill, and
    edges their counts and widths, as in the DOT export."""
    topology = as_topology(subject)
    lines = [f"flowchart {direction}"]
    links: list[str] = []
    back_links: list[int] = []
    classes: dict[str, list[str]] = {}
    styles: list[str] = []
    _emit(topology, "n", "    ", lines, links, back_links, classes, overlay=overlay, styles=styles)
    lines.extend(links)
    for kind, style in _CLASS_DEFS.items():
        if kind in classes:
            lines.append(f"    classDef {_class_name(kind)} {style}")
    for kind in sorted(classes):
        if kind in _CLASS_DEFS:
            lines.append(f"    class {','.join(classes[kind])} {_class_name(kind)}")
    if back_links and overlay is None:
        lines.append(f"    linkStyle {','.join(map(str, back_links))} stroke:#c62828,stroke-width:3px")
    lines.extend(styles)
    _legend(topology, links, lines)
    if overlay is not None and overlay.runs > 1:
        lines.append(f"    %% {mermaid_comment(overlay.summary)}")
    return "\n".join(lines) + "\n"


def _legend(topology: Topology, links: list[str], lines: list[str]) -> None:
    """What the code does not say (a `Send` fan-out's size, a condition without a path map), as a note
    box beside the flowchart; the possible targets of such a condition are grey. Nothing for a graph
    whose every route is known, so those flowcharts are unchanged."""
    notes = static_notes(topology)
    if not notes:
        return
    guessed = [str(i) for i, edge in enumerate(_drawn_edges(topology)) if is_any_target(edge)]
    if guessed and len(guessed) <= len(links):
        lines.append(f"    linkStyle {','.join(guessed)} stroke:#9e9e9e")
    text = "\n".join(["legend", *notes])
    lines.append(f'    legend>"{mermaid_text(text)}"]')
    lines.append("    style legend fill:#fffde7,stroke:#9e9e9e,text-align:left")


def _drawn_edges(topology: Topology) -> list[TopologyEdge]:
    """The edges in the order `_emit` writes their links (each graph's nested graphs' first)."""
    keys = {node.key for node in topology.nodes}
    out: list[TopologyEdge] = []
    for node in topology.nodes:
        if node.graph is not None:
            out.extend(_drawn_edges(node.graph))
    out.extend(e for e in topology.edges if e.source in keys and e.target in keys)
    return out


def mermaid_comment(text: str) -> str:
    """`text` on one Mermaid comment line (line breaks would end the comment)."""
    return " ".join(text.split())


def _class_name(kind: str) -> str:
    return "k_" + re.sub(r"[^A-Za-z0-9_]", "_", kind)


_MAX_TOOLS_SHOWN = 8


def _title(node: TopologyNode) -> str:
    if node.name and node.name != node.key and node.key not in (START, END):
        return f"{node.key}\n({node.name})"
    return node.key


def _label(node: TopologyNode) -> str:
    lines = [_title(node)]
    if node.model is not None:
        lines.append(model_line(node.model))
    lines.extend(tool_signature(t) for t in node.tools[:_MAX_TOOLS_SHOWN])
    if len(node.tools) > _MAX_TOOLS_SHOWN:
        lines.append(f"… and {len(node.tools) - _MAX_TOOLS_SHOWN} more")
    return "\n".join(lines)


def _emit(
    topology: Topology,
    prefix: str,
    indent: str,
    lines: list[str],
    links: list[str],
    back_links: list[int],
    classes: dict[str, list[str]],
    *,
    overlay: RunOverlay | None = None,
    styles: list[str] | None = None,
) -> None:
    ids: dict[str, str] = {}
    notes: list[str] = [] if styles is None else styles
    for index, node in enumerate(topology.nodes):
        node_id = f"{prefix}{index}"
        ids[node.key] = node_id
        if node.graph is not None:
            lines.append(f'{indent}subgraph {node_id}["{mermaid_text(_title(node))}"]')
            _emit(node.graph, f"{node_id}_", indent + "    ", lines, links, back_links, classes)
            lines.append(f"{indent}end")
            continue
        if node.kind in ("start", "end"):
            opening, closing = _SHAPES[node.kind]
        elif node.kind == "ChatModel":
            opening, closing = _ROUNDED
        else:
            opening, closing = _SHAPES.get(node.kind, _DEFAULT_SHAPE)
        label = _label(node)
        if overlay is not None and node.key not in (START, END):
            label = overlay.node_words(node.key, label)
            notes.append(f"    style {node_id} {overlay.mermaid_node_style(node.key)}")
        lines.append(f"{indent}{node_id}{opening}{mermaid_text(label)}{closing}")
        classes.setdefault(node.kind, []).append(node_id)
    for edge in topology.edges:
        if edge.source not in ids or edge.target not in ids:
            continue
        if edge.back_edge:
            arrow = "-.->" if edge.kind == "branch" else "==>"
            back_links.append(len(links))
        else:
            arrow = "-.->" if edge.kind == "branch" else "-->"
        text = edge_text(edge)
        if overlay is not None:
            text = overlay.edge_words((edge.source, edge.target), text)
            style = overlay.mermaid_link_style(edge.source, edge.target)
            if style is not None:
                notes.append(f"    linkStyle {len(links)} {style}")
        label = f'|"{mermaid_text(text)}"|' if text else ""
        links.append(f"    {ids[edge.source]} {arrow}{label} {ids[edge.target]}")
