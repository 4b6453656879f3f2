"""Edge labels for the terminal drawing: what a branch means, or which branch an edge belongs to,
written beside the edge only where there is room.

With `edge_labels`, a branch's own label ("tool calls") is the text. Without one, `#0`, `#1` are
useful only when the line style cannot tell the edges of one node apart: the node has several branches,
or branches and plain edges. A label goes beside a vertical stretch that belongs to that edge alone (not
a bus shared with its siblings), nearest the source, with a blank cell on its far side, never inside a
box and never over another line or label. With no such place, `place_labels` reports it, and the drawing
puts a short marker (`[1]`) there if that fits and the full text in a numbered key under the drawing,
so a label can never corrupt the drawing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from graph_core.topology import Topology, TopologyEdge
from inspector.layout._canvas import Canvas, N, S, cell_width

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


def place_labels(
    canvas: Canvas,
    routes: Sequence[tuple[Sequence[Cell], str]],
    rects: Sequence[Rect],
    *,
    marker: Callable[[int], str] | None = None,
    gap: int = 0,
) -> list[int]:
    """Write each non-empty label beside its route (right of a vertical stretch, else left of it).

    Returns the indexes of the routes whose label found no room; for each, `marker(index)` (when given)
    is asked for a shorter stand-in, placed the same way if it fits. `gap` blank cells separate a label
    from its line (words read better off the line; the terse `#0` sits right beside it)."""
    if not any(text for _, text in routes):
        return []  # nothing to place: spare counting every route's cells
    uses = Counter(cell for cells, _ in routes for cell in set(cells))
    unplaced: list[int] = []
    for index, (cells, text) in enumerate(routes):
        if not text or _place(canvas, cells, text, uses, rects, gap):
            continue
        unplaced.append(index)
        if marker is not None:
            _place(canvas, cells, marker(index), uses, rects, gap)
    return unplaced


def _place(
    canvas: Canvas, cells: Sequence[Cell], text: str, uses: Counter[Cell], rects: Sequence[Rect], gap: int
) -> bool:
    for row, col in cells:
        if uses[(row, col)] != 1 or (row, col) in canvas.fixed:
            continue
        line = canvas.lines.get((row, col))
        if line is None or line.shown().mask != N | S:
            continue
        width = cell_width(text)
        right = [(row, col + 1 + i) for i in range(width + 1 + gap)]
        left = [(row, col - 1 - i) for i in range(width + 1 + gap)]
        for spot, first in ((right, col + 1 + gap), (left, col - gap - width)):
            if spot[-1][1] >= 0 and _free(canvas, spot, rects):
                canvas.put(row, first, text)
                return True
    return False


def _free(canvas: Canvas, cells: Sequence[Cell], rects: Sequence[Rect]) -> bool:
    return all(canvas.free(*cell) and not _inside(cell, rects) for cell in cells)
