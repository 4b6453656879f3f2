"""Painting a placed drawing onto the canvas: box borders in their style (plain, executed, highlighted),
the buses between neighbouring rows, the lanes at the right with their arrow heads and back-edge marks,
and the `EdgeRoute` of every edge drawn, so the TUI can colour it later.

Why here and not in the placement: painting only reads the positions `_place` decided, so the two can
change apart; a line is traced once per straight stretch (long lanes of a wide fan-out made per-cell work
most of the drawing's time).
"""

from __future__ import annotations

from collections.abc import Hashable
from itertools import pairwise, repeat

from graph_core.topology import TopologyEdge
from inspector.layout._canvas import Canvas, E, N, S, W
from inspector.layout._geometry import BoxStyle, EdgeRoute, Path
from inspector.layout._parts import Box, Channel, Lane, Net, Options

__all__ = ["box_style", "mark_up", "paint_box", "paint_lane", "paint_net_edge"]

_BORDERS: dict[BoxStyle, tuple[str, str, str, str, str, str, str, str, str]] = {
    # top-left, top-right, bottom-left, bottom-right, horizontal, vertical, right-, bottom-, top-port
    "plain": ("╭", "╮", "╰", "╯", "─", "│", "├", "┬", "┴"),
    "executed": ("╔", "╗", "╚", "╝", "═", "║", "╟", "╤", "╧"),
    "highlight": ("┏", "┓", "┗", "┛", "━", "┃", "┣", "┳", "┻"),
}


def box_style(path: Path, options: Options) -> BoxStyle:
    if options.highlight == path:
        return "highlight"
    if path in options.executed_nodes:
        return "executed"
    return "plain"


def paint_box(canvas: Canvas, box: Box, style: BoxStyle, title: str) -> None:
    tl, tr, bl, br, hz, vt = _BORDERS[style][:6]
    top, left, right, bottom = box.row, box.col, box.right, box.bottom
    canvas.put(top, left, tl + hz * (box.width - 2) + tr)
    if title:
        canvas.put(top, left + 2, title)
    canvas.put(bottom, left, bl + hz * (box.width - 2) + br)
    for row in range(top + 1, bottom):
        canvas.put(row, left, vt)
        canvas.put(row, right, vt)
    if box.node.graph is None:
        inner_width = box.width - 4
        pad = (inner_width - box.content.width) // 2
        canvas.blit(box.content, top + 1, left + 2 + pad)
    else:
        canvas.blit(box.content, top + 1, left + 2)


def _is_executed(prefix: Path, source: str, target: str, options: Options) -> bool:
    return (prefix, source, target) in options.executed_edges


_OPPOSITE = {N: S, S: N, E: W, W: E}


def _direction(a: tuple[int, int], b: tuple[int, int]) -> int:
    if b[0] < a[0]:
        return N
    if b[0] > a[0]:
        return S
    return W if b[1] < a[1] else E


def _trace(
    canvas: Canvas, points: list[tuple[int, int]], *, net: Hashable, dashed: bool, heavy: bool
) -> list[tuple[int, int]]:
    """Draw a line through axis-parallel waypoints; the first and last cells are left to the caller
    (a port and an arrow head). Returns every cell, in order.

    A straight stretch is made whole (its cells from a range, its steps one direction) and the canvas
    takes the route in one call: a wide fan-out stacked one node per row has long lanes, and per-cell
    work there was most of the drawing's time."""
    cells = [points[0]]
    steps: list[int] = []  # the direction from each cell to the next
    for row, col in points[1:]:
        r, c = cells[-1]
        if c == col and r != row:
            step = 1 if row > r else -1
            cells.extend(zip(range(r + step, row + step, step), repeat(c)))
            steps.extend(repeat(S if step > 0 else N, abs(row - r)))
        elif r == row and c != col:
            step = 1 if col > c else -1
            cells.extend(zip(repeat(r), range(c + step, col + step, step)))
            steps.extend(repeat(E if step > 0 else W, abs(col - c)))
        else:  # not axis-parallel (or no move): cell by cell, rows first
            while (r, c) != (row, col):
                r += (row > r) - (row < r)
                c += (col > c) - (col < c) if r == row else 0
                steps.append(_direction(cells[-1], (r, c)))
                cells.append((r, c))
    masks = [_OPPOSITE[back] | ahead for back, ahead in pairwise(steps)]
    canvas.connect_cells(cells[1:-1], masks, dashed=dashed, heavy=heavy, net=net)
    return cells


def paint_net_edge(
    canvas: Canvas,
    boxes: dict[str, Box],
    channel: Channel,
    net: Net,
    target: str,
    group: list[TopologyEdge],
    prefix: Path,
    options: Options,
) -> EdgeRoute:
    source = boxes[net.source]
    dashed = all(e.kind == "branch" for e in group)
    executed = _is_executed(prefix, net.source, target, options)
    port, drop, arrow = net.port, boxes[target].centre, channel.arrow_row
    if net.track < 0:
        points = [(source.bottom, port), (arrow, port)]
    else:
        row = channel.track_row(net.track)
        points = [(source.bottom, port), (row, port), (row, drop), (arrow, drop)]
    cells = _trace(canvas, points, net=(*prefix, "net", net.source), dashed=dashed, heavy=executed)
    canvas.put(source.bottom, port, _BORDERS[box_style((*prefix, net.source), options)][7])
    canvas.put(arrow, drop, "▼")
    return _route(prefix, net.source, target, group, executed, cells)


def paint_lane(
    canvas: Canvas,
    boxes: dict[str, Box],
    lane: Lane,
    col: int,
    net: Hashable,
    prefix: Path,
    options: Options,
) -> EdgeRoute:
    source, target = boxes[lane.source], boxes[lane.target]
    out, into = lane.out, lane.into
    executed = _is_executed(prefix, lane.source, lane.target, options)
    ports = _BORDERS[box_style((*prefix, lane.source), options)]
    if out.where == "side":
        start, port = (out.row, source.right), ports[6]
        points = [start, (out.row, col)]
    else:
        start = (source.bottom, out.col) if out.where == "bottom" else (source.row, out.col)
        port = ports[7] if out.where == "bottom" else ports[8]
        points = [start, (out.row, out.col), (out.row, col)]
    if into.where == "side":
        points += [(into.row, col), (into.row, target.right + 1)]
        head = "◀"
    elif into.where == "bottom":
        points += [(into.row, col), (into.row, into.col), (target.bottom + 1, into.col)]
        head = "▲"
    else:
        points += [(into.row, col), (into.row, into.col), (target.row - 1, into.col)]
        head = "▼"
    dashed = all(e.kind == "branch" for e in lane.edges)
    cells = _trace(canvas, points, net=net, dashed=dashed, heavy=executed)
    canvas.put(*start, port)
    canvas.put(*points[-1], head)
    return _route(prefix, lane.source, lane.target, lane.edges, executed, cells)


def mark_up(canvas: Canvas, lane: Lane, col: int, net: Hashable) -> None:
    """A `▲` on a back edge's lane, on a stretch no other line touches, as near its middle as can be."""
    low, high = sorted((lane.out.row, lane.into.row))
    if high - low < 2:
        return
    middle = (low + high) // 2
    for row in sorted(range(low + 1, high), key=lambda r: (abs(r - middle), r)):
        if canvas.only_net(row, col) == net:
            canvas.put(row, col, "▲")
            return


def _route(
    prefix: Path,
    source: str,
    target: str,
    group: list[TopologyEdge],
    executed: bool,
    cells: list[tuple[int, int]],
) -> EdgeRoute:
    kind = "edge" if any(e.kind == "edge" for e in group) else "branch"
    back = any(e.back_edge for e in group)
    return EdgeRoute(prefix, source, target, kind, back, executed, tuple(cells))
