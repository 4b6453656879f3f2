"""Draw a topology as box-drawing text: nodes in rows by rank, side by side when they share one, each
edge to the next row through the channel between the rows, every other edge on its own lane at the
right.

Why this shape: a fan-out/fan-in reads as a row of boxes, and a ReAct loop as a spine with lanes, with
no search and no randomness, so the same topology always gives the same picture. Edges between
neighbouring rows leave a box at the middle of its bottom and arrive at the middle of the next box's
top, turning on tracks in the channel; one source's edges share a bus (fan-out) and edges into one
target join at its arrow (fan-in). Back edges, self-loops and edges that skip rows get lanes, shortest
first so short loops hug the boxes. A lane attaches on the right side of the rightmost box of a row,
one per content row, and otherwise on its bottom (edges whose other end is below) or top border: boxes
never grow for their lanes. When the rows side by side would be wider than `max_width`, every node
gets a row of its own (the classic vertical spine).

Conventions: solid lines are edges, dashed lines (`┆ ╌`) branch targets; `▼`/`◀`/`▲` mark where an
edge arrives, a `▲` on a lane marks a back edge; where two unrelated lines cross, the vertical one is
drawn through (`╌┆╌`), so `┼` always means a junction. `#0`, `#1` name the branch of a node that has
several branches (or branches and plain edges), where there is room. The highlighted node is a heavy
box (`┏━┓`), executed nodes are double boxes (`╔═╗`), executed edges are heavy lines.

With `edge_labels=True` a labelled branch shows its label ("tool calls") beside its line where there
is room, and otherwise a marker `[n]` with the text in a numbered key under the drawing; `legend=True`
adds one line naming the line styles the drawing uses. `draw` turns both on; `layout` keeps them off
unless asked, so the TUI's pane (which reads `Drawing.lines` with geometry) stays as it was.
`node_notes` and `edge_notes` add short text (visit counts, `×3`) to top-level boxes and edges.
"""

from __future__ import annotations

import gc
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise, repeat
from typing import Any, Literal

from graph_core.topology import Topology, TopologyEdge, TopologyNode
from inspector.export import as_topology
from inspector.export._escape import visible
from inspector.layout._canvas import Canvas, E, N, S, W, cell_width
from inspector.layout._footer import legend_line, trimmed
from inspector.layout._geometry import BoxStyle, Drawing, EdgeRoute, NodeBox, Path
from inspector.layout._labels import edge_label, outgoing_edges, place_labels
from inspector.layout._order import node_layers

__all__ = ["MAX_WIDTH", "Drawing", "EdgeRoute", "NodeBox", "draw", "layout"]

Where = Literal["side", "top", "bottom"]

MAX_WIDTH = 120  # default widest drawing before rows are stacked one node each
_COLUMN_GAP = 4  # blank cells between boxes side by side: room for the TUI's `×N` visit counts
_FAR = 1 << 30  # the column of "the lanes", before their columns are known
_BORDERS: dict[BoxStyle, tuple[str, str, str, str, str, str, str, str, str]] = {
    # top-left, top-right, bottom-left, bottom-right, horizontal, vertical, right-, bottom-, top-port
    "plain": ("╭", "╮", "╰", "╯", "─", "│", "├", "┬", "┴"),
    "executed": ("╔", "╗", "╚", "╝", "═", "║", "╟", "╤", "╧"),
    "highlight": ("┏", "┓", "┗", "┛", "━", "┃", "┣", "┳", "┻"),
}


@dataclass
class _Options:
    highlight: Path | None
    executed_nodes: frozenset[Path]
    executed_edges: frozenset[tuple[Path, str, str]]
    expand_nested: bool
    show_names: bool
    max_width: int
    edge_labels: bool = False
    node_notes: Mapping[str, str] = field(default_factory=lambda: {})
    edge_notes: Mapping[tuple[str, str], str] = field(default_factory=lambda: {})
    key: list[str] = field(default_factory=lambda: [])  # numbered labels that found no room
    margin: int = 0  # left margin the top-level drawing was given for labels (blank columns trimmed)
    styles: set[str] = field(default_factory=lambda: set())  # what the legend must explain


@dataclass(eq=False)
class _End:
    """One end of a lane on its box: where it attaches and the row where it meets the lane's column."""

    lane: _Lane
    key: str
    outgoing: bool
    where: Where = "side"
    col: int = 0
    row: int = 0
    track: int = 0


@dataclass(eq=False)
class _Lane:
    source: str
    target: str
    edges: list[TopologyEdge]
    up: bool
    span: tuple[int, int]
    lane: int = 0
    out: _End = field(init=False)
    into: _End = field(init=False)

    def __post_init__(self) -> None:
        self.out = _End(self, self.source, True)
        self.into = _End(self, self.target, False)


@dataclass(eq=False)
class _Box:
    node: TopologyNode
    content: Canvas
    width: int
    layer: int
    ends: list[_End] = field(default_factory=list)
    side: int = 0
    row: int = 0
    col: int = 0

    @property
    def height(self) -> int:
        return 2 + max(self.content.height, self.side, 1)

    @property
    def centre(self) -> int:
        return self.col + self.width // 2

    @property
    def right(self) -> int:
        return self.col + self.width - 1

    @property
    def bottom(self) -> int:
        return self.row + self.height - 1


@dataclass(eq=False)
class _Net:
    """One source's edges into the next row: a bus from the middle of its bottom to each target's top."""

    source: str
    targets: list[tuple[str, list[TopologyEdge]]]
    port: int = 0
    drops: tuple[int, ...] = ()
    track: int = -1

    @property
    def span(self) -> tuple[int, int]:
        cols = (self.port, *self.drops)
        return min(cols), max(cols)


@dataclass(eq=False)
class _Channel:
    """The rows between two node rows: tracks where edges turn, then the row of arrow heads."""

    below: list[_End] = field(default_factory=list)  # lane ends on the bottom of the row above
    nets: list[_Net] = field(default_factory=list)
    above: list[_End] = field(default_factory=list)  # lane ends on the top of the row below
    tracks: int = 0
    lead: int = 0
    labelled: bool = False
    top: int = 0
    rows: int = 0

    def track_row(self, track: int) -> int:
        return self.top + self.lead + track

    @property
    def arrow_row(self) -> int:
        return self.top + self.rows - 1


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
    max_width: int = MAX_WIDTH,
    edge_labels: bool = False,
    legend: bool = False,
    node_notes: Mapping[str, str] | None = None,
    edge_notes: Mapping[tuple[str, str], str] | None = None,
) -> Drawing:
    """Lay out a topology (or compiled graph, or agent) and return text plus geometry.

    `highlight` and `executed_nodes` take keys or key paths (`("agent", "chat")` for a node inside the
    nested graph `agent`); `executed_edges` takes `(source, target)` pairs, paths likewise. Nodes of one
    rank go side by side unless that makes a (nested) drawing wider than `max_width` cells.
    `edge_labels` shows branch labels (numbered key lines under the drawing where there is no room),
    `legend` appends a one-line legend; `node_notes` (key -> text) and `edge_notes` ((source, target)
    -> text) annotate top-level boxes and edges. Key and legend lines come after the drawing's rows in
    `Drawing.lines`; boxes and routes never reach them.
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
        max_width=max_width,
        edge_labels=edge_labels,
        node_notes=dict(node_notes or {}),
        edge_notes=dict(edge_notes or {}),
    )
    collecting = gc.isenabled()
    gc.disable()  # a large drawing allocates a few objects per cell and frees none: collections only cost
    try:
        canvas, nodes, edges = _draw_graph(as_topology(subject), (), options)
        lines = canvas.rows()
        if options.margin:
            lines, nodes, edges = trimmed(lines, nodes, edges, options.margin)
        footer = list(options.key)
        if legend:
            footer.append(legend_line(edges, nodes, nested="nested" in options.styles))
        if footer:
            lines = [*lines, "", *footer]
        return Drawing(lines=tuple(lines), nodes=tuple(nodes), edges=tuple(edges))
    finally:
        if collecting:
            gc.enable()


def draw(subject: Any, /, **options: Any) -> str:
    """The drawing as one string (see `layout` for the options); branch labels and the legend are on
    unless turned off (`edge_labels=False`, `legend=False`)."""
    options.setdefault("edge_labels", True)
    options.setdefault("legend", True)
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
    note = options.node_notes.get(node.key) if not prefix else None
    if note:
        label = f"{label} {visible(note)}"
    if node.graph is not None and options.expand_nested:
        inner, boxes, routes = _draw_graph(node.graph, (*prefix, node.key), options)
        return inner, f" ▾ {label} ", boxes, routes
    canvas = Canvas()
    if node.graph is not None:
        label = f"▸ {label}"
        options.styles.add("nested")
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
    """Side by side if it fits in `max_width`, else one node per row."""
    layers = node_layers(topology)
    contents = {n.key: _content(n, prefix, options) for n in topology.nodes}
    side_by_side = any(len(layer) > 1 for layer in layers)
    limit = options.max_width if side_by_side else None
    mark = len(options.key)
    drawn = _draw_layers(topology, layers, contents, prefix, options, give_up_wider=limit)
    if drawn is None or (side_by_side and drawn[0].width > options.max_width):
        del options.key[mark:]  # the discarded attempt's key lines
        layers = [[k] for layer in layers for k in layer]
        drawn = _draw_layers(topology, layers, contents, prefix, options)
        assert drawn is not None
    if prefix or len(options.key) == mark:
        return drawn
    # Labels that found no room were often squeezed against the left border: try once with a margin
    # as wide as the longest of them, and keep that drawing if it needs fewer key lines and still fits.
    keyed = options.key[mark:]
    margin = min(max(cell_width(line.split(": ", 1)[-1]) for line in keyed) + 2, 40)
    del options.key[mark:]
    retry = _draw_layers(topology, layers, contents, prefix, options, margin=margin)
    if retry is not None and len(options.key) - mark < len(keyed) and retry[0].width <= options.max_width:
        options.margin = margin
        return retry
    options.key[mark:] = keyed
    return drawn


_Contents = dict[str, tuple[Canvas, str, list[NodeBox], list[EdgeRoute]]]


def _draw_layers(
    topology: Topology,
    layers: list[list[str]],
    contents: _Contents,
    prefix: Path,
    options: _Options,
    *,
    give_up_wider: int | None = None,
    margin: int = 0,
) -> tuple[Canvas, list[NodeBox], list[EdgeRoute]] | None:
    """The drawing of `layers`; None, before anything is painted, when its boxes alone are wider than
    `give_up_wider` (a wide fan-out stacked one node per row anyway: painting its rows side by side
    first cost more than the drawing kept)."""
    seq = {key: (i, j) for i, layer in enumerate(layers) for j, key in enumerate(layer)}
    by_key = {node.key: node for node in topology.nodes}
    boxes: dict[str, _Box] = {}
    for key, (layer, _) in seq.items():
        content, title = contents[key][0], contents[key][1]
        width = max(content.width, cell_width(title) + 2) + 4
        boxes[key] = _Box(node=by_key[key], content=content, width=width, layer=layer)

    grouped: dict[tuple[str, str], list[TopologyEdge]] = {}
    for edge in topology.edges:
        if edge.source in seq and edge.target in seq:
            grouped.setdefault((edge.source, edge.target), []).append(edge)
    outgoing = outgoing_edges(topology)
    labels = {
        pair: _edge_text(pair, group, outgoing[pair[0]], prefix, options) for pair, group in grouped.items()
    }
    channels = [_Channel() for _ in range(len(layers) + 1)]
    nets: dict[str, _Net] = {}
    lanes: list[_Lane] = []
    for (source, target), group in grouped.items():
        ls, lt = seq[source][0], seq[target][0]
        if lt == ls + 1 and not any(e.back_edge for e in group):
            net = nets.get(source)
            if net is None:
                net = nets[source] = _Net(source, [])
                channels[lt].nets.append(net)
            net.targets.append((target, group))
            channels[lt].labelled = channels[lt].labelled or bool(labels[(source, target)])
        else:
            lanes.append(_Lane(source, target, group, seq[target] <= seq[source], (min(ls, lt), max(ls, lt))))
    _assign_lanes(lanes)
    for lane in lanes:
        boxes[lane.source].ends.append(lane.out)
        boxes[lane.target].ends.append(lane.into)
    for key, box in boxes.items():
        box.ends.sort(key=lambda end, key=key: _port_order(end, key, seq))
        _attach(box, rightmost=seq[key][1] == len(layers[seq[key][0]]) - 1, seq=seq)

    _place_columns(layers, boxes, margin)
    if give_up_wider is not None and max(b.right for b in boxes.values()) + 1 > give_up_wider:
        return None  # the canvas holds every box, so it would be wider still
    for box in boxes.values():
        for end in box.ends:
            if end.where == "bottom":
                channels[box.layer + 1].below.append(end)
            elif end.where == "top":
                channels[box.layer].above.append(end)
    for net in nets.values():
        net.port = boxes[net.source].centre
        net.drops = tuple(boxes[t].centre for t, _ in net.targets)
    for index, channel in enumerate(channels):
        _assign_tracks(channel)
        channel.lead = int(any(not end.outgoing for end in channel.below))
        if index == 0:
            channel.rows = channel.tracks + 1 if channel.tracks else 0
        elif index == len(layers):
            channel.rows = channel.lead + channel.tracks
        else:
            channel.rows = channel.lead + max(channel.tracks, 1) + 1 + int(channel.labelled)
    _place_rows(layers, boxes, channels)
    first_lane_col = max(b.right for b in boxes.values()) + 2

    canvas = Canvas()
    node_boxes: list[NodeBox] = []
    routes: list[EdgeRoute] = []
    rects: list[tuple[int, int, int, int]] = []
    for key, box in boxes.items():
        path = (*prefix, key)
        style = _box_style(path, options)
        _, title, inner_boxes, inner_routes = contents[key]
        _paint_box(canvas, box, style, title)
        rects.append((box.row, box.col, box.height, box.width))
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
    own: list[EdgeRoute] = []
    for channel in channels:
        for net in channel.nets:
            for target, group in net.targets:
                own.append(_paint_net_edge(canvas, boxes, channel, net, target, group, prefix, options))
    for number, lane in enumerate(lanes):
        col = first_lane_col + 2 * lane.lane
        own.append(_paint_lane(canvas, boxes, lane, col, (*prefix, "lane", number), prefix, options))
    for number, lane in enumerate(lanes):
        if lane.up:
            _mark_up(canvas, lane, first_lane_col + 2 * lane.lane, (*prefix, "lane", number))
    texts = [(r.cells, labels[(r.source, r.target)]) for r in own]

    def marker(index: int) -> str:
        number = len(options.key) + 1
        route = own[index]
        where = "/".join((*prefix, "")) if prefix else ""
        text = " ⏎ ".join(texts[index][1].split("\n"))
        options.key.append(f"[{number}] {where}{route.source} → {where}{route.target}: {text}")
        return f"[{number}]"

    if options.edge_labels:
        place_labels(canvas, texts, rects, marker=marker, gap=1)
    else:
        place_labels(canvas, texts, rects)
    return canvas, node_boxes, routes + own


def _edge_text(
    pair: tuple[str, str],
    group: list[TopologyEdge],
    outgoing: list[TopologyEdge],
    prefix: Path,
    options: _Options,
) -> str:
    """The words beside one drawn edge: its branch labels (with `edge_labels`), else `#i` where needed;
    then the edge's note (top level only)."""
    text = ""
    if options.edge_labels:
        found = [e.label for e in group if e.label]
        text = " / ".join(visible(label).replace("\n", " ⏎ ") for label in dict.fromkeys(found))
    if not text:
        text = edge_label(group, outgoing)
    note = options.edge_notes.get(pair) if not prefix else None
    if note:
        text = f"{text} {visible(note)}".strip()
    return text


def _assign_lanes(lanes: list[_Lane]) -> None:
    """Interval colouring over row spans, shortest span first, so nested loops stack outward."""
    occupied: list[list[tuple[int, int]]] = []
    for lane in sorted(lanes, key=lambda ln: (ln.span[1] - ln.span[0], ln.span[0])):
        low, high = lane.span
        for index, used in enumerate(occupied):
            if all(high < a or low > b for a, b in used):
                used.append((low, high))
                lane.lane = index
                break
        else:
            occupied.append([(low, high)])
            lane.lane = len(occupied) - 1


def _other(end: _End) -> str:
    return end.lane.target if end.outgoing else end.lane.source


def _port_order(end: _End, key: str, seq: dict[str, tuple[int, int]]) -> tuple[int, int, int]:
    """Clockwise from the top of the box: ends leading up first (inner lanes first), then ends leading
    down (outer lanes first). Then no end's stub crosses a lane of its own box."""
    lane = end.lane
    other = _other(end)
    if other == key:  # a self-loop: leave first, arrive after
        return (1, -lane.lane, 0 if end.outgoing else 1)
    if seq[other] < seq[key]:
        return (0, lane.lane, 0)
    return (1, -lane.lane, 0)


def _slots(width: int) -> list[int]:
    """Box-relative columns right of the middle where a lane may meet the top or bottom border."""
    return [c for c in range(width - 2, width // 2 + 1, -2)]


def _attach(box: _Box, *, rightmost: bool, seq: dict[str, tuple[int, int]]) -> None:
    """Decide where each lane end meets the box: the right side (only the rightmost box of a row has
    one free), one end per content row; ends leading down that do not fit go to the bottom border,
    ends leading up to the top border. The box widens for border slots rather than grow taller."""
    ends = box.ends
    ups = sum(1 for e in ends if _port_order(e, box.node.key, seq)[0] == 0)
    downs = len(ends) - ups
    rows = max(box.content.height, 1) if rightmost else 0
    overflow = max(0, len(ends) - rows)
    bottoms = min(downs, overflow)
    tops = min(ups, overflow - bottoms)
    box.side = len(ends) - tops - bottoms
    while len(_slots(box.width)) < max(tops, bottoms):
        box.width += 1
    for end in ends[:tops]:
        end.where = "top"
    for end in ends[len(ends) - bottoms :]:
        end.where = "bottom"


def _place_columns(layers: list[list[str]], boxes: dict[str, _Box], margin: int = 0) -> None:
    """Centre each row on one axis; `margin` blank columns on the left leave room for labels."""
    widths = [sum(boxes[k].width for k in layer) + _COLUMN_GAP * (len(layer) - 1) for layer in layers]
    axis = max(widths, default=0) // 2 + 1 + margin
    for layer, width in zip(layers, widths, strict=True):
        col = axis - width // 2 if len(layer) > 1 else axis - boxes[layer[0]].width // 2
        for key in layer:
            box = boxes[key]
            box.col = col
            col += box.width + _COLUMN_GAP
            tops = _slots(box.width)
            top_ends = [e for e in box.ends if e.where == "top"]
            for end, slot in zip(top_ends, sorted(tops[: len(top_ends)]), strict=True):
                end.col = box.col + slot
            bottom_ends = [e for e in box.ends if e.where == "bottom"]
            for end, slot in zip(bottom_ends, tops, strict=False):
                end.col = box.col + slot


def _conflict(a: tuple[int, int, tuple[int, ...]], b: tuple[int, int, tuple[int, ...]]) -> bool:
    """Two horizontal runs may share a track unless they overlap; touching at a column where both
    drop into the same box (a fan-in) is fine."""
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    if lo > hi:
        return False
    return not (lo == hi and lo in a[2] and lo in b[2])


def _assign_tracks(channel: _Channel) -> None:
    """Lane stubs of the row above take the top tracks (rightmost first), lane stubs of the row below
    the bottom ones (leftmost first), buses first-fit between them: that order keeps stubs from
    crossing each other."""
    tracks: list[list[tuple[int, int, tuple[int, ...]]]] = []
    for end in sorted(channel.below, key=lambda e: -e.col):
        end.track = len(tracks)
        tracks.append([(end.col, _FAR, ())])
    for net in sorted(channel.nets, key=lambda n: (n.span[1] - n.span[0], n.span[0])):
        if net.span[0] == net.span[1]:
            continue  # straight down: no track
        run = (*net.span, net.drops)
        for index, used in enumerate(tracks):
            if not any(_conflict(run, other) for other in used):
                used.append(run)
                net.track = index
                break
        else:
            net.track = len(tracks)
            tracks.append([run])
    for end in sorted(channel.above, key=lambda e: e.col):
        end.track = len(tracks)
        tracks.append([(end.col, _FAR, ())])
    channel.tracks = len(tracks)


def _place_rows(layers: list[list[str]], boxes: dict[str, _Box], channels: list[_Channel]) -> None:
    row = 0
    for index, channel in enumerate(channels):
        channel.top = row
        row += channel.rows
        if index == len(layers):
            break
        for key in layers[index]:
            boxes[key].row = row
        row += max(boxes[k].height for k in layers[index])
    for box in boxes.values():
        side = 0
        for end in box.ends:
            if end.where == "side":
                end.row = box.row + 1 + side
                side += 1
            elif end.where == "bottom":
                end.row = channels[box.layer + 1].track_row(end.track)
            else:
                end.row = channels[box.layer].track_row(end.track)


def _paint_box(canvas: Canvas, box: _Box, style: BoxStyle, title: str) -> None:
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


def _is_executed(prefix: Path, source: str, target: str, options: _Options) -> bool:
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


def _paint_net_edge(
    canvas: Canvas,
    boxes: dict[str, _Box],
    channel: _Channel,
    net: _Net,
    target: str,
    group: list[TopologyEdge],
    prefix: Path,
    options: _Options,
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
    canvas.put(source.bottom, port, _BORDERS[_box_style((*prefix, net.source), options)][7])
    canvas.put(arrow, drop, "▼")
    return _route(prefix, net.source, target, group, executed, cells)


def _paint_lane(
    canvas: Canvas,
    boxes: dict[str, _Box],
    lane: _Lane,
    col: int,
    net: Hashable,
    prefix: Path,
    options: _Options,
) -> EdgeRoute:
    source, target = boxes[lane.source], boxes[lane.target]
    out, into = lane.out, lane.into
    executed = _is_executed(prefix, lane.source, lane.target, options)
    ports = _BORDERS[_box_style((*prefix, lane.source), options)]
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


def _mark_up(canvas: Canvas, lane: _Lane, col: int, net: Hashable) -> None:
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
