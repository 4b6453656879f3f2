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
adds one line naming the line styles the drawing uses, then a `note:` line for each route the code
leaves to the run (a `Send` fan-out's size, a condition without a path map; `export._unknowns`).
`draw` turns both on; `layout` keeps them off
unless asked, so the TUI's pane (which reads `Drawing.lines` with geometry) stays as it was.
`node_notes` and `edge_notes` add short text (visit counts, `×3`) to top-level boxes and edges.

This module is the entry (`layout`, `draw`) and the assembly of one graph's drawing; the steps live
beside it: `_order` (rows), `_place` (lanes, ports, columns, tracks, rows), `_paint` (borders, lines,
arrows), `_labels` (edge text), `_footer` (key and legend), on the records of `_parts`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping
from typing import Any

from graph_core.topology import Topology, TopologyEdge, TopologyNode
from inspector.errors import GraphTooWide
from inspector.export import as_topology
from inspector.export._escape import visible
from inspector.export._unknowns import static_notes
from inspector.layout._canvas import Canvas, cell_width
from inspector.layout._footer import legend_line, trimmed
from inspector.layout._geometry import Drawing, EdgeRoute, NodeBox, Path
from inspector.layout._labels import edge_label, outgoing_edges, place_labels
from inspector.layout._order import node_layers
from inspector.layout._paint import box_style, mark_up, paint_box, paint_lane, paint_net_edge
from inspector.layout._parts import Box, Channel, Lane, Net, Options
from inspector.layout._place import assign_lanes, assign_tracks, attach, place_columns, place_rows, port_order

__all__ = ["MAX_RANK", "MAX_WIDTH", "Drawing", "EdgeRoute", "NodeBox", "draw", "layout"]


MAX_WIDTH = 120  # default widest drawing before rows are stacked one node each
MAX_RANK = 50
"""Most nodes one rank may hold. Past `MAX_WIDTH` a rank is stacked one node per row, each edge on a
lane of its own: a drawing of n^2 cells (400 parallel nodes took 7 s and 1.4 GB, the TUI's graph
pane 43 s and 2.3 GB at 300). A rank wider than this is refused with `GraphTooWide`, which names the
picture formats, before anything is drawn."""
_Options = Options  # the name tests that drive `_draw_layers` directly import


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
    options = Options(
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
        topology = as_topology(subject)
        canvas, nodes, edges = _draw_graph(topology, (), options)
        lines = canvas.rows()
        if options.margin:
            lines, nodes, edges = trimmed(lines, nodes, edges, options.margin)
        footer = list(options.key)
        if legend:
            footer.append(legend_line(edges, nodes, nested="nested" in options.styles))
            footer.extend(f"  note: {visible(note)}" for note in static_notes(topology))
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


def _label(node: TopologyNode, options: Options) -> str:
    text = node.key
    if options.show_names and node.name and node.name != node.key:
        text = f"{text} ({node.name})"
    return " ⏎ ".join(visible(part) for part in text.replace("\r\n", "\n").split("\n"))


def _content(
    node: TopologyNode, prefix: Path, options: Options
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


def _draw_graph(
    topology: Topology, prefix: Path, options: Options
) -> tuple[Canvas, list[NodeBox], list[EdgeRoute]]:
    """Side by side if it fits in `max_width`, else one node per row; `GraphTooWide` past `MAX_RANK`."""
    layers = node_layers(topology)
    widest = max(map(len, layers), default=0)
    if widest > MAX_RANK:
        raise GraphTooWide(widest, MAX_RANK)
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
    options: Options,
    *,
    give_up_wider: int | None = None,
    margin: int = 0,
) -> tuple[Canvas, list[NodeBox], list[EdgeRoute]] | None:
    """The drawing of `layers`; None, before anything is painted, when its boxes alone are wider than
    `give_up_wider` (a wide fan-out stacked one node per row anyway: painting its rows side by side
    first cost more than the drawing kept)."""
    seq = {key: (i, j) for i, layer in enumerate(layers) for j, key in enumerate(layer)}
    by_key = {node.key: node for node in topology.nodes}
    boxes: dict[str, Box] = {}
    for key, (layer, _) in seq.items():
        content, title = contents[key][0], contents[key][1]
        width = max(content.width, cell_width(title) + 2) + 4
        boxes[key] = Box(node=by_key[key], content=content, width=width, layer=layer)

    grouped: dict[tuple[str, str], list[TopologyEdge]] = {}
    for edge in topology.edges:
        if edge.source in seq and edge.target in seq:
            grouped.setdefault((edge.source, edge.target), []).append(edge)
    outgoing = outgoing_edges(topology)
    labels = {
        pair: _edge_text(pair, group, outgoing[pair[0]], prefix, options) for pair, group in grouped.items()
    }
    channels = [Channel() for _ in range(len(layers) + 1)]
    nets: dict[str, Net] = {}
    lanes: list[Lane] = []
    for (source, target), group in grouped.items():
        ls, lt = seq[source][0], seq[target][0]
        if lt == ls + 1 and not any(e.back_edge for e in group):
            net = nets.get(source)
            if net is None:
                net = nets[source] = Net(source, [])
                channels[lt].nets.append(net)
            net.targets.append((target, group))
            channels[lt].labelled = channels[lt].labelled or bool(labels[(source, target)])
        else:
            lanes.append(Lane(source, target, group, seq[target] <= seq[source], (min(ls, lt), max(ls, lt))))
    assign_lanes(lanes)
    for lane in lanes:
        boxes[lane.source].ends.append(lane.out)
        boxes[lane.target].ends.append(lane.into)
    for key, box in boxes.items():
        box.ends.sort(key=lambda end, key=key: port_order(end, key, seq))
        attach(box, rightmost=seq[key][1] == len(layers[seq[key][0]]) - 1, seq=seq)

    place_columns(layers, boxes, margin)
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
        assign_tracks(channel)
        channel.lead = int(any(not end.outgoing for end in channel.below))
        if index == 0:
            channel.rows = channel.tracks + 1 if channel.tracks else 0
        elif index == len(layers):
            channel.rows = channel.lead + channel.tracks
        else:
            channel.rows = channel.lead + max(channel.tracks, 1) + 1 + int(channel.labelled)
    place_rows(layers, boxes, channels)
    first_lane_col = max(b.right for b in boxes.values()) + 2

    canvas = Canvas()
    node_boxes: list[NodeBox] = []
    routes: list[EdgeRoute] = []
    rects: list[tuple[int, int, int, int]] = []
    for key, box in boxes.items():
        path = (*prefix, key)
        style = box_style(path, options)
        _, title, inner_boxes, inner_routes = contents[key]
        paint_box(canvas, box, style, title)
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
                own.append(paint_net_edge(canvas, boxes, channel, net, target, group, prefix, options))
    for number, lane in enumerate(lanes):
        col = first_lane_col + 2 * lane.lane
        own.append(paint_lane(canvas, boxes, lane, col, (*prefix, "lane", number), prefix, options))
    for number, lane in enumerate(lanes):
        if lane.up:
            mark_up(canvas, lane, first_lane_col + 2 * lane.lane, (*prefix, "lane", number))
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
    options: Options,
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
