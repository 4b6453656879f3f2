"""Draw a topology as box-drawing text: one node per row band, edges to the next node straight down,
every other edge on its own lane to the right.

Why this shape: a terminal pane is narrow and tall, and a ReAct graph is a loop around a spine. Keeping
the spine vertical and giving each long or backward edge a private lane means no edge ever hides behind
a box, crossings are explicit (`┼`), and the same topology always gives the same picture. Lanes are
assigned shortest-first, so short loops hug the boxes and long edges go outside them.

Conventions: solid lines are edges, dashed lines (`┆ ╌`) branch targets; `▼`/`◀` mark where an edge
arrives, `▲` marks a back edge's lane; the highlighted node is a heavy box (`┏━┓`), executed nodes are
double boxes (`╔═╗`), executed edges are heavy lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode
from inspector.export import as_topology
from inspector.export._escape import visible
from inspector.layout._canvas import Canvas, E, N, S, W, cell_width
from inspector.layout._order import node_order

__all__ = ["Drawing", "EdgeRoute", "NodeBox", "draw", "layout"]

BoxStyle = Literal["plain", "executed", "highlight"]
Path = tuple[str, ...]

_GAP = 2  # rows between two boxes: a line and an arrow head
_BORDERS: dict[BoxStyle, tuple[str, str, str, str, str, str, str, str]] = {
    # top-left, top-right, bottom-left, bottom-right, horizontal, vertical, right-port, bottom-port
    "plain": ("╭", "╮", "╰", "╯", "─", "│", "├", "┬"),
    "executed": ("╔", "╗", "╚", "╝", "═", "║", "╟", "╤"),
    "highlight": ("┏", "┓", "┗", "┛", "━", "┃", "┣", "┳"),
}


@dataclass(frozen=True)
class NodeBox:
    """Where a node's box is, in terminal cells (0-based row and column of its top-left corner).

    `path` is the node's key path, outermost first (one key for top-level nodes).
    """

    path: Path
    row: int
    col: int
    width: int
    height: int
    style: BoxStyle

    @property
    def key(self) -> str:
        return self.path[-1]


@dataclass(frozen=True)
class EdgeRoute:
    """The cells one drawn edge occupies (lines and its arrow head), for styling without re-parsing.

    `graph_path` is the path of the graph the edge belongs to (empty for the top level). Several
    topology edges between the same two nodes share one route.
    """

    graph_path: Path
    source: str
    target: str
    kind: str
    back_edge: bool
    executed: bool
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Drawing:
    """A finished drawing: text lines plus the geometry of every node box and edge route."""

    lines: tuple[str, ...]
    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgeRoute, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def box(self, *path: str) -> NodeBox:
        for node in self.nodes:
            if node.path == path:
                return node
        raise KeyError(path)


@dataclass
class _Options:
    highlight: Path | None
    executed_nodes: frozenset[Path]
    executed_edges: frozenset[tuple[Path, str, str]]
    expand_nested: bool
    show_names: bool


@dataclass
class _Port:
    row: int = 0


@dataclass
class _Lane:
    source: str
    target: str
    edges: list[TopologyEdge]
    up: bool
    lane: int = 0
    out_port: _Port = field(default_factory=_Port)
    in_port: _Port = field(default_factory=_Port)


@dataclass
class _Box:
    node: TopologyNode
    content: Canvas
    width: int
    ports: list[tuple[_Lane, _Port]] = field(default_factory=list)
    row: int = 0
    col: int = 0

    @property
    def height(self) -> int:
        return 2 + max(self.content.height, len(self.ports), 1)


def _as_path(value: str | Iterable[str]) -> Path:
    return (value,) if isinstance(value, str) else tuple(value)


def layout(
    subject: Any,
    /,
    *,
    highlight: str | Iterable[str] | None = None,
    executed_nodes: Iterable[str | Iterable[str]] = (),
    executed_edges: Iterable[tuple[str | Iterable[str], str | Iterable[str]]] = (),
    expand_nested: bool = False,
    show_names: bool = False,
) -> Drawing:
    """Lay out a topology (or compiled graph, or agent) and return text plus geometry.

    `highlight` and `executed_nodes` take keys or key paths (`("agent", "chat")` for a node inside the
    nested graph `agent`); `executed_edges` takes `(source, target)` pairs, paths likewise.
    """
    edge_set: set[tuple[Path, str, str]] = set()
    for source, target in executed_edges:
        source_path, target_path = _as_path(source), _as_path(target)
        edge_set.add((source_path[:-1], source_path[-1], target_path[-1]))
    options = _Options(
        highlight=None if highlight is None else _as_path(highlight),
        executed_nodes=frozenset(_as_path(n) for n in executed_nodes),
        executed_edges=frozenset(edge_set),
        expand_nested=expand_nested,
        show_names=show_names,
    )
    canvas, nodes, edges = _draw_graph(as_topology(subject), (), options)
    return Drawing(lines=tuple(canvas.rows()), nodes=tuple(nodes), edges=tuple(edges))


def draw(subject: Any, /, **options: Any) -> str:
    """The drawing as one string (see `layout` for the options)."""
    return layout(subject, **options).text


def _label(node: TopologyNode, options: _Options) -> str:
    text = node.key
    if options.show_names and node.name and node.name != node.key:
        text = f"{text} ({node.name})"
    return " ⏎ ".join(visible(part) for part in text.replace("\r\n", "\n").split("\n"))


def _content(
    node: TopologyNode, prefix: Path, options: _Options
) -> tuple[Canvas, str, list[NodeBox], list[EdgeRoute]]:
    """The inside of a box, its title (for expanded graphs) and any nested geometry, box-relative."""
    label = _label(node, options)
    if node.graph is not None and options.expand_nested:
        inner, boxes, routes = _draw_graph(node.graph, (*prefix, node.key), options)
        return inner, f" ▾ {label} ", boxes, routes
    canvas = Canvas()
    if node.graph is not None:
        label = f"▸ {label}"
    canvas.put(0, 0, label)
    return canvas, "", [], []


def _box_style(path: Path, options: _Options) -> BoxStyle:
    if options.highlight == path:
        return "highlight"
    if path in options.executed_nodes:
        return "executed"
    return "plain"


def _draw_graph(
    topology: Topology, prefix: Path, options: _Options
) -> tuple[Canvas, list[NodeBox], list[EdgeRoute]]:
    order = node_order(topology)
    position = {key: i for i, key in enumerate(order)}
    boxes: dict[str, _Box] = {}
    nested: dict[str, tuple[str, list[NodeBox], list[EdgeRoute]]] = {}
    by_key = {node.key: node for node in topology.nodes}
    for key in order:
        node = by_key[key]
        content, title, inner_boxes, inner_routes = _content(node, prefix, options)
        width = max(content.width, cell_width(title) + 2) + 4
        boxes[key] = _Box(node=node, content=content, width=width)
        nested[key] = (title, inner_boxes, inner_routes)

    # Group parallel topology edges; consecutive forward pairs go down the spine, the rest get lanes.
    grouped: dict[tuple[str, str], list[TopologyEdge]] = {}
    for edge in topology.edges:
        if edge.source in position and edge.target in position:
            grouped.setdefault((edge.source, edge.target), []).append(edge)
    spine: list[tuple[str, str, list[TopologyEdge]]] = []
    lanes: list[_Lane] = []
    for (source, target), group in grouped.items():
        if position[target] == position[source] + 1:
            spine.append((source, target, group))
        else:
            lanes.append(_Lane(source, target, group, up=position[target] <= position[source]))
    _assign_lanes(lanes, position)
    for lane in lanes:
        boxes[lane.source].ports.append((lane, lane.out_port))
        boxes[lane.target].ports.append((lane, lane.in_port))
    for key in order:
        boxes[key].ports.sort(key=lambda item, key=key: _port_order(item, key, position))

    axis = max(b.width for b in boxes.values()) // 2 + 1
    row = 0
    for key in order:
        box = boxes[key]
        box.col = axis - box.width // 2
        box.row = row
        for index, (_, port) in enumerate(box.ports):
            port.row = row + 1 + index
        row += box.height + _GAP
    first_lane_col = max(b.col + b.width for b in boxes.values()) + 1

    canvas = Canvas()
    node_boxes: list[NodeBox] = []
    routes: list[EdgeRoute] = []
    for key in order:
        box = boxes[key]
        path = (*prefix, key)
        style = _box_style(path, options)
        title, inner_boxes, inner_routes = nested[key]
        _paint_box(canvas, box, style, title)
        node_boxes.append(NodeBox(path, box.row, box.col, box.width, box.height, style))
        dr, dc = box.row + 1, box.col + 2
        for inner in inner_boxes:
            node_boxes.append(
                NodeBox(inner.path, inner.row + dr, inner.col + dc, inner.width, inner.height, inner.style)
            )
        for route in inner_routes:
            cells = tuple((r + dr, c + dc) for r, c in route.cells)
            routes.append(
                EdgeRoute(route.graph_path, route.source, route.target, route.kind, route.back_edge,
                          route.executed, cells)
            )  # fmt: skip
    for source, target, group in spine:
        routes.append(_paint_spine(canvas, boxes[source], boxes[target], group, axis, prefix, options))
    for lane in lanes:
        col = first_lane_col + 2 * lane.lane
        routes.append(_paint_lane(canvas, boxes[lane.source], boxes[lane.target], lane, col, prefix, options))
    return canvas, node_boxes, routes


def _assign_lanes(lanes: list[_Lane], position: dict[str, int]) -> None:
    """Interval colouring, shortest span first, so nested loops stack outward."""
    occupied: list[list[tuple[int, int]]] = []

    def span(lane: _Lane) -> tuple[int, int]:
        a, b = position[lane.source], position[lane.target]
        return min(a, b), max(a, b)

    for lane in sorted(lanes, key=lambda ln: (span(ln)[1] - span(ln)[0], span(ln)[0])):
        low, high = span(lane)
        for index, used in enumerate(occupied):
            if all(high < a or low > b for a, b in used):
                used.append((low, high))
                lane.lane = index
                break
        else:
            occupied.append([(low, high)])
            lane.lane = len(occupied) - 1


def _port_order(item: tuple[_Lane, _Port], key: str, position: dict[str, int]) -> tuple[int, int, int]:
    """Ports leading up sit on top (inner lanes first), ports leading down below them (outer lanes
    first): then no port's horizontal crosses a lane of its own box."""
    lane, port = item
    other = lane.target if port is lane.out_port else lane.source
    if other == key:  # a self-loop: leave from the upper port, arrive at the lower one
        return (1, -lane.lane, 0 if port is lane.out_port else 1)
    if position[other] < position[key]:
        return (0, lane.lane, 0)
    return (1, -lane.lane, 0)


def _paint_box(canvas: Canvas, box: _Box, style: BoxStyle, title: str) -> None:
    tl, tr, bl, br, hz, vt, _, _ = _BORDERS[style]
    top, left, right, bottom = box.row, box.col, box.col + box.width - 1, box.row + box.height - 1
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


def _is_executed(prefix: Path, source: str, target: str, options: _Options) -> bool:
    return (prefix, source, target) in options.executed_edges


def _paint_spine(
    canvas: Canvas,
    upper: _Box,
    lower: _Box,
    group: list[TopologyEdge],
    axis: int,
    prefix: Path,
    options: _Options,
) -> EdgeRoute:
    dashed = all(e.kind == "branch" for e in group)
    executed = _is_executed(prefix, upper.node.key, lower.node.key, options)
    port = _BORDERS[_box_style((*prefix, upper.node.key), options)][7]
    bottom = upper.row + upper.height - 1
    canvas.put(bottom, axis, port)
    cells = [(bottom, axis)]
    for row in range(bottom + 1, lower.row - 1):
        canvas.connect(row, axis, N | S, dashed=dashed, heavy=executed)
        cells.append((row, axis))
    canvas.put(lower.row - 1, axis, "▼")
    cells.append((lower.row - 1, axis))
    return _route(prefix, upper.node.key, lower.node.key, group, executed, cells)


def _paint_lane(
    canvas: Canvas,
    source: _Box,
    target: _Box,
    lane: _Lane,
    col: int,
    prefix: Path,
    options: _Options,
) -> EdgeRoute:
    dashed = all(e.kind == "branch" for e in lane.edges)
    executed = _is_executed(prefix, lane.source, lane.target, options)
    heavy = executed
    start_row, end_row = lane.out_port.row, lane.in_port.row
    down = end_row > start_row
    source_right = source.col + source.width - 1
    target_right = target.col + target.width - 1
    port = _BORDERS[_box_style((*prefix, lane.source), options)][6]
    canvas.put(start_row, source_right, port)
    cells = [(start_row, source_right)]
    for c in range(source_right + 1, col):
        canvas.connect(start_row, c, E | W, dashed=dashed, heavy=heavy)
        cells.append((start_row, c))
    canvas.connect(start_row, col, W | (S if down else N), dashed=dashed, heavy=heavy)
    cells.append((start_row, col))
    step = 1 if down else -1
    for r in range(start_row + step, end_row, step):
        canvas.connect(r, col, N | S, dashed=dashed, heavy=heavy)
        cells.append((r, col))
    canvas.connect(end_row, col, W | (N if down else S), dashed=dashed, heavy=heavy)
    cells.append((end_row, col))
    for c in range(col - 1, target_right + 1, -1):
        canvas.connect(end_row, c, E | W, dashed=dashed, heavy=heavy)
        cells.append((end_row, c))
    canvas.put(end_row, target_right + 1, "◀")
    cells.append((end_row, target_right + 1))
    if lane.up and abs(end_row - start_row) >= 2:
        canvas.put((start_row + end_row) // 2, col, "▲")
    return _route(prefix, lane.source, lane.target, lane.edges, executed, cells)


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


_ = (START, END)  # START/END need no special casing: they are ordinary boxes ranked first and last
