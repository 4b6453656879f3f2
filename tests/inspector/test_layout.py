"""Terminal drawing: snapshots of the agent shapes, plus geometry checks the TUI relies on."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from graph_core.topology import END, START, TopologyEdge, TopologyNode, build_topology
from inspector.layout import Drawing, draw, layout
from inspector.layout._canvas import cell_width
from tests.inspector.test_export_shapes import adk_topology, hostile_topology, nested_topology, react_topology

BOX_CHARS = set("╭╮╰╯─│├┬┏┓┗┛━┃┣┳╔╗╚╝═║╟╤")


def _cell(drawing: Drawing, row: int, col: int) -> str:
    """The character at a terminal cell (wide characters take two cells)."""
    line = drawing.lines[row]
    at = 0
    for ch in line:
        width = cell_width(ch)
        if at == col or (width == 2 and at + 1 == col):
            return ch
        at += width
    return " "


def test_react_agent_snapshot(snapshot: SnapshotAssertion) -> None:
    assert draw(react_topology()) == snapshot


def test_react_agent_with_highlight_and_executed_path_snapshot(snapshot: SnapshotAssertion) -> None:
    text = draw(
        react_topology(),
        highlight="tools",
        executed_nodes=[START, "chat", "tools"],
        executed_edges=[(START, "chat"), ("chat", "tools"), ("tools", "chat")],
    )
    assert text == snapshot


def test_adk_agent_snapshots(snapshot: SnapshotAssertion) -> None:
    assert draw(adk_topology()) == snapshot
    assert draw(adk_topology(return_directly=True)) == snapshot


def test_nested_graph_collapsed_and_expanded_snapshots(snapshot: SnapshotAssertion) -> None:
    collapsed = draw(nested_topology())
    expanded = draw(nested_topology(), expand_nested=True, highlight=("agent", "tools"))
    assert "▸ agent" in collapsed and "direct_return" not in collapsed
    assert "▾ agent" in expanded and "direct_return" in expanded
    assert collapsed == snapshot
    assert expanded == snapshot


def test_hostile_keys_snapshot(snapshot: SnapshotAssertion) -> None:
    assert draw(hostile_topology()) == snapshot


def test_drawing_is_deterministic() -> None:
    assert draw(react_topology(), highlight="chat") == draw(react_topology(), highlight="chat")
    assert layout(hostile_topology()) == layout(hostile_topology())


def test_react_picture_reads_like_the_issue_sketch() -> None:
    drawing = layout(react_topology(), highlight="tools")
    order = [box.key for box in sorted(drawing.nodes, key=lambda b: b.row)]
    assert order == [START, "chat", "tools", "direct_return", END]
    tools = drawing.box("tools")
    assert drawing.lines[tools.row].strip().startswith("┏") and tools.style == "highlight"
    back = next(e for e in drawing.edges if e.back_edge)
    assert (back.source, back.target) == ("tools", "chat")
    back_glyphs = {_cell(drawing, r, c) for r, c in back.cells}
    assert "▲" in "".join(drawing.lines)
    # dashed (a branch); it enters chat from below, since chat's one side row carries chat -> end
    assert back_glyphs >= {"▲", "┆", "╌"} and "◀" not in back_glyphs
    assert all(box.height == 3 for box in drawing.nodes), "no box grows for its lanes"
    spine = next(e for e in drawing.edges if (e.source, e.target) == (START, "chat"))
    assert [_cell(drawing, r, c) for r, c in spine.cells] == ["┬", "│", "▼"]


def test_node_boxes_frame_their_labels() -> None:
    drawing = layout(hostile_topology())
    for box in drawing.nodes:
        top = "".join(_cell(drawing, box.row, c) for c in range(box.col, box.col + box.width))
        assert top[0] == "╭" and top[-1] == "╮", (box.key, top)
        label_row = drawing.lines[box.row + 1]
        assert label_row.strip().startswith("│")
    assert "│ line ⏎ break │" in drawing.text
    assert "│ ünïcödé ✓ 漢字 │" in drawing.text


def test_every_edge_route_is_drawn_where_its_cells_say() -> None:
    for drawing in (
        layout(react_topology()),
        layout(adk_topology(return_directly=True)),
        layout(hostile_topology()),
    ):
        for route in drawing.edges:
            for row, col in route.cells:
                assert _cell(drawing, row, col) != " ", (route.source, route.target, row, col)


def test_executed_edges_are_heavy_and_executed_nodes_double() -> None:
    drawing = layout(react_topology(), executed_nodes=["chat"], executed_edges=[("tools", "chat")])
    back = next(e for e in drawing.edges if e.back_edge)
    assert back.executed
    line_glyphs = {_cell(drawing, r, c) for r, c in back.cells} - {"◀", "├", "┣"}
    assert line_glyphs <= set("┅┇┓┛┏┗╋┿╂▲"), line_glyphs
    assert drawing.box("chat").style == "executed"
    assert "╔" in drawing.lines[drawing.box("chat").row]


def test_nested_geometry_is_reported_in_outer_coordinates() -> None:
    drawing = layout(
        nested_topology(), expand_nested=True, executed_edges=[(("agent", "tools"), ("agent", "chat"))]
    )
    inner = drawing.box("agent", "chat")
    outer = drawing.box("agent")
    assert outer.row < inner.row < outer.row + outer.height
    assert "chat" in drawing.lines[inner.row + 1][inner.col :]
    drawn = [e for e in drawing.edges if e.executed]
    assert [(e.graph_path, e.source, e.target) for e in drawn] == [(("agent",), "tools", "chat")]


def test_all_components_self_loops_and_lanes_are_drawn() -> None:
    topology = build_topology(
        name="parts",
        nodes=[TopologyNode(key=k, kind="Lambda") for k in ("a", "b", "orphan", "z")],
        edges=[
            TopologyEdge(source=START, target="a"),
            TopologyEdge(source="a", target="a"),
            TopologyEdge(source="a", target="b"),
            TopologyEdge(source="b", target=END),
            TopologyEdge(source="orphan", target="z"),
        ],
    )
    drawing = layout(topology)
    assert [b.key for b in sorted(drawing.nodes, key=lambda b: b.row)] == [
        START,
        "a",
        "b",
        "orphan",
        "z",
        END,
    ]
    loop = next(e for e in drawing.edges if e.source == e.target == "a")
    glyphs = [_cell(drawing, r, c) for r, c in loop.cells]
    assert glyphs[0] == "├" and glyphs[-1] == "▲"  # leaves by the side, comes back in from below


def test_unknown_highlight_is_harmless_and_accepts_paths() -> None:
    assert draw(react_topology(), highlight="nope") == draw(react_topology())
    with pytest.raises(KeyError):
        layout(react_topology()).box("nope")
