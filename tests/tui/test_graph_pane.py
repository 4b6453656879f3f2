"""The graph pane: sized to the drawing, the active node kept in view, visit counts beside the boxes."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import ScrollableContainer

from graph_core.topology import START
from inspector.recording.synthetic import react_topology
from inspector.tui import make_app
from inspector.tui.app import GRAPH_MIN_WIDTH
from inspector.tui.graph_pane import GraphPane, count_gutter, paint_geometry
from inspector.tui.session import PathSoFar

pytestmark = pytest.mark.anyio


def _in_view(app: object) -> bool:
    from inspector.tui.app import ReplayApp

    assert isinstance(app, ReplayApp)
    box = app.query_one("#graph-box", ScrollableContainer)
    painted = app.query_one(GraphPane).painted
    assert painted is not None and painted.active is not None
    active, top = painted.active, round(box.scroll_y)
    return top <= active.y and active.bottom <= top + box.scrollable_content_region.height


async def test_active_node_stays_in_view_in_a_short_terminal(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=(100, 24)) as pilot:  # the pane shows ~8 of the drawing's ~24 rows
        box = app.query_one("#graph-box", ScrollableContainer)
        for keys in (("home",), ("n",), ("n",), ("end",), ("home",)):
            await pilot.press(*keys)
            await pilot.pause()
            assert _in_view(app), (keys, app.replay.cursor, box.scroll_y)
        assert box.max_scroll_y > 0, "the drawing is taller than the pane: the test means something"
        await pilot.press("n")
        await pilot.pause()
        tools_top = round(box.scroll_y)
        await pilot.press("p")
        await pilot.pause()
        assert round(box.scroll_y) < tools_top, "moving back to chat scrolls up"


async def test_the_end_of_a_run_brings_end_into_view(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=(100, 64)) as pilot:  # tall enough for chat down to END
        await pilot.press("end")
        await pilot.pause()
        box = app.query_one("#graph-box", ScrollableContainer)
        painted = app.query_one(GraphPane).painted
        assert painted is not None and painted.focus is not None and painted.active is not None
        assert painted.focus.bottom > painted.active.bottom, "the focus reaches down to END"
        assert painted.focus.bottom <= round(box.scroll_y) + box.scrollable_content_region.height
        assert _in_view(app)


async def test_pane_is_as_wide_as_the_drawing_when_the_terminal_allows(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        painted = app.query_one(GraphPane).painted
        assert painted is not None
        box = app.query_one("#graph-box", ScrollableContainer)
        # Wide layout: the graph gets the whole height, the drawing fits, so no scrollbar.
        assert box.outer_size.width == painted.width + 3  # border, a cell of air
        assert box.max_scroll_x == 0 and box.max_scroll_y == 0
        assert box.outer_size.height >= painted.height + 2
        await pilot.resize_terminal(60, 40)
        await pilot.pause()
        assert box.outer_size.width == max(GRAPH_MIN_WIDTH, 60 * 45 // 100) < painted.width + 5
        await pilot.press("n")
        await pilot.pause()
        assert _in_view(app) and box.max_scroll_x > 0, "a narrow pane scrolls sideways to the node"


def test_visit_counts_sit_left_of_their_boxes_in_a_fixed_gutter() -> None:
    topology = react_topology()
    so_far = PathSoFar(5, {"chat": 3, "tools": 12}, frozenset({START, "chat", "tools"}), frozenset())
    painted = paint_geometry(topology, active=("tools",), so_far=so_far, gutter=count_gutter(100))
    lines = painted.text.plain.split("\n")
    assert count_gutter(100) == 5
    chat_row = next(line for line in lines if "│ chat" in line or "║ chat" in line)
    tools_row = next(line for line in lines if "┃ tools" in line)
    assert chat_row.split("║")[0].rstrip().endswith("×3")
    assert tools_row.split("┃")[0].rstrip().endswith("×12")
    assert painted.active is not None and lines[painted.active.y + 1][painted.active.x] == "┃"
    # Same gutter with smaller counts: the boxes do not move.
    fewer = PathSoFar(0, {"chat": 1}, frozenset({START, "chat"}), frozenset())
    again = paint_geometry(topology, active=("tools",), so_far=fewer, gutter=count_gutter(100))
    assert again.active == painted.active
    # No count for a node never visited.
    assert "×" not in next(line for line in again.text.plain.split("\n") if "tools" in line)


def test_the_active_box_is_styled_whole_when_its_key_has_joined_emoji_and_marks() -> None:
    from rich.console import Console

    from graph_core.topology import END, TopologyEdge, TopologyNode, build_topology
    from inspector.tui.graph_pane import ACTIVE

    key = "\U0001f468\u200d\U0001f469\u200d\U0001f467 cafe\u0301"
    topology = build_topology(
        name="g",
        nodes=[TopologyNode(key=key, kind="Lambda")],
        edges=[TopologyEdge(source=START, target=key), TopologyEdge(source=key, target=END)],
    )
    so_far = PathSoFar(0, {key: 1}, frozenset({START, key}), frozenset())
    painted = paint_geometry(topology, active=(key,), so_far=so_far, gutter=count_gutter(9))
    assert painted.active is not None
    console = Console()
    lines = painted.text.split("\n")
    for row in range(painted.active.y, painted.active.bottom):
        line = lines[row]
        right = len(line.plain.rstrip()) - 1  # the box's right border ends its row
        assert line.get_style_at_offset(console, right) == console.get_style(ACTIVE), (row, line.plain)
    assert key in painted.text.plain


def test_a_visit_count_right_of_a_box_with_wide_characters_is_kept() -> None:
    from graph_core.topology import END, TopologyEdge, TopologyNode, build_topology

    wide = "漢字漢字"
    edges = [(START, wide), (START, "b"), (wide, END), ("b", END)]
    topology = build_topology(
        name="g",
        nodes=[TopologyNode(key=k, kind="Lambda") for k in (wide, "b")],
        edges=[TopologyEdge(source=a, target=b) for a, b in edges],
    )
    so_far = PathSoFar(0, {"b": 7, wide: 3}, frozenset({START, "b", wide}), frozenset())
    painted = paint_geometry(topology, active=("b",), so_far=so_far, gutter=3)
    row = next(line for line in painted.text.plain.split("\n") if wide in line)
    assert row.split(wide)[1].split("┃")[0].strip("║ ") == "×7", row
