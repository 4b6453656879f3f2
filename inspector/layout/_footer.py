"""The lines under a terminal drawing: the legend, and the left margin a label retry leaves unused."""

from __future__ import annotations

from inspector.layout._geometry import EdgeRoute, NodeBox

__all__ = ["legend_line", "trimmed"]


def trimmed(
    lines: list[str], nodes: list[NodeBox], edges: list[EdgeRoute], most: int
) -> tuple[list[str], list[NodeBox], list[EdgeRoute]]:
    """Drop the blank columns a label margin left unused on the left (at most `most`), geometry too."""
    blank = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    cut = min(blank, most)
    if not cut:
        return lines, nodes, edges
    return (
        [line[cut:] for line in lines],
        [NodeBox(n.path, n.row, n.col - cut, n.width, n.height, n.style) for n in nodes],
        [
            EdgeRoute(e.graph_path, e.source, e.target, e.kind, e.back_edge, e.executed,
                      tuple((r, c - cut) for r, c in e.cells))
            for e in edges
        ],
    )  # fmt: skip


def legend_line(edges: list[EdgeRoute], nodes: list[NodeBox], *, nested: bool) -> str:
    """One line naming each line style, box style and mark the drawing uses, in a fixed order."""
    parts: list[str] = []
    if any(e.kind == "edge" for e in edges):
        parts.append("─ edge")
    if any(e.kind == "branch" for e in edges):
        parts.append("┆╌ branch")
    if any(e.back_edge for e in edges):
        parts.append("▲ back edge (closes a loop)")
    if any(e.executed for e in edges):
        parts.append("━ taken")
    if any(n.style == "executed" for n in nodes):
        parts.append("╔═╗ ran")
    if any(n.style == "highlight" for n in nodes):
        parts.append("┏━┓ highlighted")
    if nested:
        parts.append("▸ nested graph (--expand)")
    return "legend: " + "   ".join(parts) if parts else "legend: (no edges)"
