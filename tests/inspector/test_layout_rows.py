"""Terminal drawing: nodes of one rank side by side, crossings, branch labels, the width fallback."""

from __future__ import annotations

from syrupy.assertion import SnapshotAssertion

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.layout import Drawing, draw, layout
from inspector.layout._canvas import Canvas, E, N, S, W
from tests.inspector.test_export_shapes import adk_topology, nested_topology, react_topology
from tests.inspector.test_layout import _cell


def _edge(source: str, target: str) -> TopologyEdge:
    return TopologyEdge(source=source, target=target)


def _branch(source: str, target: str, index: int = 0) -> TopologyEdge:
    return TopologyEdge(source=source, target=target, kind="branch", branch_index=index, branch_kind="single")


def _graph(keys: list[str], edges: list[TopologyEdge]) -> Topology:
    return build_topology(name="g", nodes=[TopologyNode(key=k, kind="Lambda") for k in keys], edges=edges)


def diamond() -> Topology:
    """start -> a, b, c -> d -> end."""
    fan = [_edge(START, k) for k in "abc"] + [_edge(k, "d") for k in "abc"]
    return _graph(["a", "b", "c", "d"], [*fan, _edge("d", END)])


def three_ends() -> Topology:
    """One branch with three ends, each ending the run."""
    ends = [_branch("route", k) for k in "xyz"] + [_edge(k, END) for k in "xyz"]
    return _graph(["route", "x", "y", "z"], [_edge(START, "route"), *ends])


def two_branches() -> Topology:
    """`n` has branch #0 (to x, y), branch #1 (to z) and a plain edge (to x); y skips a row."""
    edges = [_edge(START, "n"), _branch("n", "x", 0), _branch("n", "y", 0), _branch("n", "z", 1)]
    edges += [_edge("n", "x"), _edge("x", "y"), _edge("y", END), _edge("z", END)]
    return _graph(["n", "x", "y", "z"], edges)


def _rows(drawing: Drawing) -> dict[str, int]:
    return {box.key: box.row for box in drawing.nodes}


def _assert_routes_drawn(drawing: Drawing) -> None:
    for route in drawing.edges:
        for row, col in route.cells:
            assert _cell(drawing, row, col) != " ", (route.source, route.target, row, col)


def _assert_boxes_intact(drawing: Drawing) -> None:
    """Nothing (label, line) is drawn inside a box, and boxes never overlap."""
    for box in drawing.nodes:
        if len(box.path) > 1:
            continue
        inner = "".join(_cell(drawing, box.row + 1, c) for c in range(box.col + 1, box.col + box.width - 1))
        assert inner.strip() in (box.key, f"▸ {box.key}") or "▾" in drawing.lines[box.row], (box.key, inner)
        for other in drawing.nodes:
            if other is box or len(other.path) > 1:
                continue
            apart = (
                other.row >= box.row + box.height
                or box.row >= other.row + other.height
                or other.col >= box.col + box.width
                or box.col >= other.col + other.width
            )
            assert apart, (box.key, other.key)


def test_fan_out_and_fan_in_read_as_a_row(snapshot: SnapshotAssertion) -> None:
    drawing = layout(diamond())
    rows = _rows(drawing)
    assert rows["a"] == rows["b"] == rows["c"]
    assert rows[START] < rows["a"] < rows["d"] < rows[END]
    cols = [drawing.box(k).col for k in "abc"]
    assert cols == sorted(cols) and len(set(cols)) == 3
    for key in "abc":  # each arrives at the middle of its top, each leaves from the middle of its bottom
        box = drawing.box(key)
        assert _cell(drawing, box.row - 1, box.col + box.width // 2) == "▼"
        assert _cell(drawing, box.row + box.height - 1, box.col + box.width // 2) == "┬"
    _assert_routes_drawn(drawing)
    _assert_boxes_intact(drawing)
    assert drawing.text == snapshot


def test_branch_with_three_ends_is_one_dashed_bus(snapshot: SnapshotAssertion) -> None:
    drawing = layout(three_ends())
    rows = _rows(drawing)
    assert rows["x"] == rows["y"] == rows["z"]
    to_x = next(e for e in drawing.edges if (e.source, e.target) == ("route", "x"))
    assert "╌" in {_cell(drawing, r, c) for r, c in to_x.cells}
    assert "#" not in drawing.text, "one branch: the dashes say it all"
    _assert_routes_drawn(drawing)
    assert drawing.text == snapshot


def test_several_branches_are_labelled_beside_their_own_lines(snapshot: SnapshotAssertion) -> None:
    drawing = layout(two_branches())
    text = drawing.text
    assert text.count("#0") == 2 and text.count("#1") == 1  # n -> x (branch #0 and edge), n -> y, n -> z
    route_cells = {cell for route in drawing.edges for cell in route.cells}
    for row, line in enumerate(drawing.lines):
        col = line.find("#")
        while col >= 0:
            label = {(row, col), (row, col + 1)}
            assert not label & route_cells, "a label never sits on a line"
            col = line.find("#", col + 1)
    _assert_routes_drawn(drawing)
    _assert_boxes_intact(drawing)
    assert text == snapshot


def test_labels_are_skipped_rather_than_squeezed() -> None:
    # Branches #0/#1 straight below n in a stacked drawing: one short vertical each, room or not.
    topology = _graph(
        ["n", "a", "b"],
        [_edge(START, "n"), _branch("n", "a", 0), _branch("n", "b", 1), _edge("a", "b"), _edge("b", END)],
    )
    drawing = layout(topology, max_width=1)
    _assert_routes_drawn(drawing)
    _assert_boxes_intact(drawing)
    for line in drawing.lines:  # whatever was placed has a blank cell after it
        for at in [i for i, ch in enumerate(line) if ch == "#"]:
            assert line[at + 2 : at + 3] in ("", " ")


def test_too_wide_falls_back_to_one_node_per_row() -> None:
    wide = layout(diamond())
    width = max(len(line) for line in wide.lines)
    assert layout(diamond(), max_width=width) == wide
    stacked = layout(diamond(), max_width=width - 1)
    assert len(set(_rows(stacked).values())) == 6  # every node on a row of its own
    _assert_routes_drawn(stacked)
    _assert_boxes_intact(stacked)
    assert layout(diamond(), max_width=500) == wide


def test_crossings_of_unrelated_lines_are_hops_junctions_stay_junctions() -> None:
    canvas = Canvas()
    canvas.connect(0, 0, E | W, net="a")
    canvas.connect(0, 0, N | S, net="b")
    canvas.connect(1, 0, E | W, net="a")
    canvas.connect(1, 0, N | S, net="a")
    canvas.connect(2, 0, W | S, net="a")  # a corner meeting a straight line: a real join
    canvas.connect(2, 0, N | S, net="b")
    assert canvas.rows() == ["│", "┼", "┤"]
    drawing = layout(two_branches())
    assert "┼" not in drawing.text
    assert any("─┆─" in line for line in drawing.lines)  # z -> end passes under n -> y


def test_lanes_never_make_boxes_taller() -> None:
    for topology in (react_topology(), adk_topology(return_directly=True), two_branches()):
        drawing = layout(topology)
        assert {box.height for box in drawing.nodes} == {3}
        _assert_routes_drawn(drawing)


def test_nested_graph_with_side_by_side_rows_inside() -> None:
    outer = build_topology(
        name="outer",
        nodes=[TopologyNode(key="inner", kind="Graph", graph=diamond())],
        edges=[_edge(START, "inner"), _edge("inner", END)],
    )
    drawing = layout(outer, expand_nested=True)
    rows = {box.path: box.row for box in drawing.nodes}
    assert rows[("inner", "a")] == rows[("inner", "b")] == rows[("inner", "c")]
    box = drawing.box("inner")
    for key in "abcd":
        inner = drawing.box("inner", key)
        assert box.col < inner.col and inner.col + inner.width < box.col + box.width
    _assert_routes_drawn(drawing)
    assert draw(nested_topology(), expand_nested=True).count("▾") == 1


def test_side_by_side_drawing_is_deterministic() -> None:
    assert layout(two_branches(), highlight="x") == layout(two_branches(), highlight="x")
