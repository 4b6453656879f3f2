"""What a step asks of Textual: the node detail wraps as a `VerticalScroll` would and settles its
scrollbar in the step's one layout; the timeline redraws the two rows whose marker moved; box titles
and panes whose content did not change are not drawn again. Counted, not timed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from inspector.recording.reader import read_run
from inspector.tui import make_app
from inspector.tui.footer import KeyFooter
from inspector.tui.graph_pane import GraphPane
from inspector.tui.node_detail import NodeDetail, render_detail, rows_at_least
from inspector.tui.repaint import retitle
from inspector.tui.state_pane import StatePane
from inspector.tui.timeline import Timeline
from tests.tui.conftest import SIZE, synthetic

pytestmark = pytest.mark.anyio


class _Boxes(App[None]):
    """The node detail beside what it replaced: a `Static` in a `VerticalScroll`, both 24x8."""

    CSS = "VerticalScroll, NodeDetail { width: 24; height: 8; } Static { height: auto; }"

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static()
        yield NodeDetail(id="detail")


def _rows(widget: Widget, height: int) -> list[str]:
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, widget.size.width, height))]


@pytest.fixture
def run(tmp_path: Path) -> Any:
    return read_run(synthetic(tmp_path / "react.jsonl", 3))


async def test_node_detail_wraps_and_scrolls_as_a_vertical_scroll_did(run: Any) -> None:
    app = _Boxes()
    async with app.run_test(size=(60, 20)) as pilot:
        box, static, detail = app.query_one(VerticalScroll), app.query_one(Static), app.query_one(NodeDetail)
        for step in (run.steps[0], run.steps[1], run.steps[0]):  # long (scrolls), short, long again
            detail.show(step)
            static.update(render_detail(step))
            overflow = detail.virtual_size.height > 8
            assert detail.show_vertical_scrollbar == overflow, "decided with the text, before the layout"
            await pilot.pause()
            assert detail.show_vertical_scrollbar == box.show_vertical_scrollbar == overflow
            assert detail.scrollable_content_region.width == static.size.width
            assert [line.text.rstrip() for line in detail._lines] == _rows(static, static.size.height)  # pyright: ignore[reportPrivateUsage]
        assert _rows(detail, 8) == _rows(static, 8)


async def test_node_detail_showing_the_same_text_does_nothing(run: Any) -> None:
    app = _Boxes()
    async with app.run_test(size=(60, 20)) as pilot:
        detail = app.query_one(NodeDetail)
        assert detail.show(run.steps[1])
        await pilot.pause()
        wraps = detail.wraps
        assert not detail.show(run.steps[1])
        assert detail.wraps == wraps
        assert detail.show(run.steps[1], expand=True) or detail.wraps == wraps  # same text unclipped
        assert "step 1" in str(detail.render())


async def test_rows_at_least_never_exceeds_the_wrapped_rows() -> None:
    """The bound lets the detail wrap once when its text cannot fit; it must never overshoot."""
    texts = [
        "",
        "a b c d e f g h i j k l m n o p",
        "aaaa bbbb cccc dddd",
        "x" * 50,
        "日本語の文字列" * 6,
        "tab\there  and   spaces     everywhere " * 4,
        "line one\n\nline three " + "w" * 30,
        "é" * 40 + " " + "🙂" * 9,
    ]
    app = _Boxes()
    async with app.run_test(size=(60, 20)):
        detail = app.query_one(NodeDetail)
        for text in texts:
            visual = visualize(detail, Text(text), markup=False)
            for width in (3, 4, 7, 10, 22, 24, 80):
                rows = len(Visual.to_strips(detail, visual, width, None, detail.visual_style))
                assert rows_at_least(text, width) <= rows, (text, width)
        assert rows_at_least("x" * 50, 10) == 5 and rows_at_least("a\nb", 10) == 2


def test_retitle_assigns_only_new_words() -> None:
    widget = Widget()
    assert retitle(widget, title="graph", subtitle="counting visits… 5%")
    assert not retitle(widget, title="graph", subtitle="counting visits… 5%")
    assert retitle(widget, subtitle=Text("x expands"))
    assert widget.border_title == "graph" and widget.border_subtitle == "x expands"


def _count_rows(widget: Widget) -> list[int]:
    """Each row the widget is asked to draw from now on."""
    drawn: list[int] = []
    render_line = widget.render_line

    def counted(y: int) -> Strip:
        drawn.append(y)
        return render_line(y)

    widget.render_line = counted  # type: ignore[method-assign]
    return drawn


async def test_a_step_redraws_two_timeline_rows_and_a_mark_all(tmp_path: Path) -> None:
    app = make_app(synthetic(tmp_path / "react.jsonl", 4))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        timeline = app.query_one(Timeline)
        drawn = _count_rows(timeline)
        await pilot.press("n")
        await pilot.pause()
        assert sorted(drawn) == [0, 1], "the old cursor row and the new one"
        drawn.clear()
        await pilot.press("b")  # a breakpoint marks rows all over the run
        await pilot.pause()
        assert len(drawn) >= len(app.replay)


async def test_a_key_that_changes_nothing_draws_only_the_cursor_row(tmp_path: Path) -> None:
    app = make_app(synthetic(tmp_path / "react.jsonl", 4))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        await app.workers.wait_for_complete()  # the background walk's diagnostics are a change of their own
        await pilot.pause()
        panes: dict[str, list[int]] = {
            f"{type(w).__name__}#{w.id}": _count_rows(w)
            for w in app.screen.walk_children(Widget)
            if w.region.area  # on screen
        }
        await pilot.press("n")  # already at the last step: the same step shown again
        await pilot.pause()
        drawn = {name: rows for name, rows in panes.items() if rows}
        assert list(drawn) == ["Timeline#timeline"], drawn
        assert drawn["Timeline#timeline"] == [app.replay.cursor - round(app.query_one(Timeline).scroll_y)]


async def test_a_step_renders_only_the_graph_rows_it_changed(tmp_path: Path) -> None:
    app = make_app(synthetic(tmp_path / "react.jsonl", 4))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await pilot.pause()
        graph = app.query_one(GraphPane)
        assert graph.painted is not None
        before, shown = graph.rows_rendered, graph.render()
        await pilot.press("n")  # the highlight moves from one box to another, a count goes up
        await pilot.pause()
        rendered = graph.rows_rendered - before
        assert 0 < rendered < graph.painted.height, (rendered, graph.painted.height)
        assert graph.render() != shown
        assert "×" in graph.render().plain  # counts drawn beside the boxes
        before = graph.rows_rendered
        app.show_cursor()  # the same step again: the same drawing
        assert graph.rows_rendered == before


async def test_the_footer_keys_are_built_once_when_mounted(tmp_path: Path) -> None:
    app = make_app(synthetic(tmp_path / "react.jsonl", 4))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        keys = [key.action for key in footer.query(FooterKey)]
        assert footer.recomposes == 1, "built when mounted, not again when the timeline took focus"
        assert keys[:4] == ["help", "quit", "previous", "next"]
        await pilot.press("g", "2", "enter")
        await pilot.pause()
        assert app.replay.cursor == 2
        await pilot.press("slash", "t", "o", "o", "l", "enter")
        await pilot.pause()
        assert footer.recomposes == 1, "the same keys: not mounted again"
        assert [key.action for key in footer.query(FooterKey)] == keys
        # The state tree binds space too (a hidden key), so Textual lists the app's play key, which
        # takes it, earlier: the built keys are put in that order, not built again.
        app.query_one(StatePane).focus()
        await pilot.pause()
        shown = [key.action for key in footer.query(FooterKey)]
        assert shown[:5] == ["help", "quit", "previous", "next", "play"]
        app.query_one(Timeline).focus()
        await pilot.pause()
        assert [key.action for key in footer.query(FooterKey)] == keys
        assert footer.recomposes == 1
        app.bind("z", "first", description="First step")  # a key the footer did not show: built again
        app.screen.refresh_bindings()
        await pilot.pause()
        assert footer.recomposes == 2
        assert "first" in [key.action for key in footer.query(FooterKey)]


async def test_the_mouse_selects_the_graph_drawing_as_text(tmp_path: Path) -> None:
    app = make_app(synthetic(tmp_path / "react.jsonl", 4))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        graph = app.query_one(GraphPane)
        await pilot.mouse_down(graph, offset=(0, 0))
        await pilot.hover(graph, offset=(graph.size.width - 1, 2))
        await pilot.mouse_up(graph, offset=(graph.size.width - 1, 2))
        await pilot.pause()
        rows = graph.render().plain.split("\n")
        assert app.screen.get_selected_text() == "\n".join(rows[:3])


async def _screen_in(path: Path, theme: str, *, switch_to: str | None = None) -> str:
    app = make_app(path, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await pilot.pause()
        if switch_to is not None:
            app.theme = switch_to
            await pilot.pause()
        # colours and all; the id in the SVG is a hash of how the segments were made, not of the look
        return re.sub(r"terminal-\d+", "terminal", app.export_screenshot())


async def test_panes_drawn_row_by_row_take_a_new_theme_as_a_fresh_screen_does(tmp_path: Path) -> None:
    """The detail's and the graph's rows are kept between steps; a theme change must still reach them."""
    path = synthetic(tmp_path / "react.jsonl", 4)
    fresh = await _screen_in(path, "textual-light")
    assert await _screen_in(path, "textual-dark", switch_to="textual-light") == fresh
