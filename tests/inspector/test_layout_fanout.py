"""Wide fan-outs: the drawing's fast paths (early give-up on rows too wide, whole-route canvas writes,
sparse row rendering) give exactly what the cell-by-cell paths gave."""

from __future__ import annotations

import gc
import random

import pytest

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.layout import layout
from inspector.layout._canvas import Canvas, E, N, S, W
from inspector.layout._draw import _content, _draw_layers, _Options  # pyright: ignore[reportPrivateUsage]
from inspector.layout._order import node_layers


def fan_out(n: int) -> Topology:
    """`hub` branches to n targets, each ending the run."""
    keys = [f"t{i}" for i in range(n)]
    edges = [TopologyEdge(source=START, target="hub")]
    edges += [TopologyEdge(source="hub", target=k, kind="branch", branch_index=0) for k in keys]
    edges += [TopologyEdge(source=k, target=END) for k in keys]
    nodes = [TopologyNode(key=k, kind="Lambda") for k in ["hub", *keys]]
    return build_topology(name="fan", nodes=nodes, edges=edges)


def _options(max_width: int) -> _Options:
    return _Options(None, frozenset(), frozenset(), False, False, max_width)


@pytest.mark.parametrize("n", [3, 11, 12, 13, 30])
@pytest.mark.parametrize("max_width", [40, 120, 130])
def test_giving_up_early_matches_painting_then_measuring(n: int, max_width: int) -> None:
    topology = fan_out(n)
    layers = node_layers(topology)
    options = _options(max_width)
    contents = {node.key: _content(node, (), options) for node in topology.nodes}
    painted = _draw_layers(topology, layers, contents, (), options)
    assert painted is not None
    early = _draw_layers(topology, layers, contents, (), options, give_up_wider=max_width)
    if painted[0].width > max_width:
        stacked = layout(topology, max_width=max_width)
        assert len(stacked.lines) > len(painted[0].rows())  # the one-node-per-row drawing was kept
    else:
        assert early is not None and early[0].rows() == painted[0].rows()
        assert layout(topology, max_width=max_width).lines == tuple(painted[0].rows())


def test_a_wide_fan_out_is_stacked_with_every_target_reached() -> None:
    drawing = layout(fan_out(40))
    assert max(len(line) for line in drawing.lines) > 120  # its lanes: wider than max_width, as before
    keys = {box.key for box in drawing.nodes}
    assert keys == {"start", "hub", END, *(f"t{i}" for i in range(40))}
    rows = sorted({box.row for box in drawing.nodes})
    assert len(rows) == 43  # one node per row
    assert {(e.source, e.target) for e in drawing.edges} >= {("hub", f"t{i}") for i in range(40)}


def _random_route(rng: random.Random) -> list[tuple[int, int]]:
    row, col = rng.randrange(12), rng.randrange(12)
    cells = [(row, col)]
    for _ in range(rng.randrange(2, 20)):
        row += rng.choice((-1, 0, 1))
        col += rng.choice((-1, 0, 1)) if row == cells[-1][0] else 0
        if (row, col) != cells[-1]:
            cells.append((row, col))
    return cells


def _mask(a: tuple[int, int], b: tuple[int, int]) -> int:
    if b[0] != a[0]:
        return N if b[0] < a[0] else S
    return W if b[1] < a[1] else E


def test_whole_route_writes_match_cell_by_cell_connects() -> None:
    rng = random.Random(7)
    one, bulk = Canvas(), Canvas()
    for _ in range(60):
        cells = _random_route(rng)
        net = rng.choice(("a", "b", "c", None))
        dashed, heavy = rng.random() < 0.5, rng.random() < 0.3
        inner = cells[1:-1]
        masks = [_mask(c, p) | _mask(c, q) for p, c, q in zip(cells, cells[1:], cells[2:], strict=False)]
        for cell, mask in zip(inner, masks, strict=True):
            one.connect(*cell, mask, dashed=dashed, heavy=heavy, net=net)
        bulk.connect_cells(inner, masks, dashed=dashed, heavy=heavy, net=net)
    assert (one.height, one.width) == (bulk.height, bulk.width)
    assert one.rows() == bulk.rows()
    assert {cell: line.nets for cell, line in one.lines.items()} == {
        cell: line.nets for cell, line in bulk.lines.items()
    }


def test_rows_render_what_glyph_shows_cell_by_cell() -> None:
    canvas = Canvas()
    canvas.put(0, 0, "a漢b")
    canvas.connect(1, 0, E | W, net="x")
    canvas.connect(1, 1, E | W | S, net="x", heavy=True)
    canvas.connect(1, 1, N | S, net="y", dashed=True)
    canvas.connect(2, 1, N | S, net="y", dashed=True)
    canvas.put(2, 3, "▼")
    canvas.connect(-1, 2, N | S)  # off the canvas: never drawn
    expected = [
        "".join(canvas.glyph(r, c) for c in range(canvas.width)).rstrip() for r in range(canvas.height)
    ]
    assert canvas.rows() == expected
    assert canvas.rows()[0] == "a漢b"


@pytest.mark.parametrize("enabled", [True, False])
def test_layout_leaves_garbage_collection_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        layout(fan_out(3))
        assert gc.isenabled() is enabled
        with pytest.raises(Exception):  # noqa: B017 - whatever fails inside, the state comes back
            layout(object())
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
