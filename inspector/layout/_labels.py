"""Edge labels for the terminal drawing: which branch an edge belongs to, written beside the edge only
where there is room.

A label is useful only when the line style cannot tell the edges of one node apart: the node has
several branches, or branches and plain edges. It goes beside a vertical stretch that belongs to that
edge alone (not a bus shared with its siblings), nearest the source, with a blank cell on its far
side, never inside a box and never over another line or label; with no such place it is left out, so a
label can never corrupt the drawing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from graph_core.topology import Topology, TopologyEdge
from inspector.layout._canvas import Canvas, N, S

__all__ = ["edge_label", "outgoing_edges", "place_labels"]

Cell = tuple[int, int]
Rect = tuple[int, int, int, int]  # row, col, height, width


def outgoing_edges(topology: Topology) -> dict[str, list[TopologyEdge]]:
    """Each node's outgoing edges, computed once per drawing (labels need a node's siblings)."""
    found: dict[str, list[TopologyEdge]] = {}
    for edge in topology.edges:
        found.setdefault(edge.source, []).append(edge)
    return found


def edge_label(group: Sequence[TopologyEdge], outgoing: Sequence[TopologyEdge]) -> str:
    """`#0`, `#1`, ... naming the branches this drawn edge belongs to, or "" when style says enough.

    `outgoing` is every edge leaving the group's source."""
    branches = {e.branch_index for e in outgoing if e.kind == "branch"}
    plain = any(e.kind == "edge" for e in outgoing)
    if not branches or (len(branches) == 1 and not plain):
        return ""
    indexes = sorted({e.branch_index for e in group if e.kind == "branch"}, key=lambda i: (i is None, i))
    return ",".join("#" if i is None else f"#{i}" for i in indexes)


def _inside(cell: Cell, rects: Sequence[Rect]) -> bool:
    row, col = cell
    return any(r <= row < r + h and c <= col < c + w for r, c, h, w in rects)


def place_labels(canvas: Canvas, routes: Sequence[tuple[Sequence[Cell], str]], rects: Sequence[Rect]) -> None:
    """Write each non-empty label beside its route (right of a vertical stretch, else left of it)."""
    if not any(text for _, text in routes):
        return  # nothing to place: spare counting every route's cells
    uses = Counter(cell for cells, _ in routes for cell in set(cells))
    for cells, text in routes:
        if not text:
            continue
        for row, col in cells:
            if uses[(row, col)] != 1 or (row, col) in canvas.fixed:
                continue
            line = canvas.lines.get((row, col))
            if line is None or line.shown().mask != N | S:
                continue
            right = [(row, col + 1 + i) for i in range(len(text) + 1)]
            left = [(row, col - 1 - i) for i in range(len(text) + 1)]
            spot = next((s for s in (right, left) if s[-1][1] >= 0 and _free(canvas, s, rects)), None)
            if spot is not None:
                first = min(c for _, c in spot[:-1])
                canvas.put(row, first, text)
                break


def _free(canvas: Canvas, cells: Sequence[Cell], rects: Sequence[Rect]) -> bool:
    return all(canvas.free(*cell) and not _inside(cell, rects) for cell in cells)
