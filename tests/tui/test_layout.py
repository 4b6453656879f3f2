"""The screen at every terminal size: the graph pane sized to its drawing, the timeline as tall as the
run, the footer's help and quit always on screen, the cursor row visible on open."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import ScrollableContainer

from inspector.tui import make_app
from inspector.tui.graph_pane import GraphPane
from inspector.tui.timeline import Timeline
from tests.tui.conftest import screen_text

pytestmark = pytest.mark.anyio

RUNS = Path(__file__).parents[2] / "fixtures" / "runs"


async def test_the_whole_graph_shows_at_140x45_without_scrolling() -> None:
    # Before: a 28x17 pane with END and the chat -> end edge off screen, beside a 110-column timeline.
    app = make_app(RUNS / "weather.jsonl")
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        box = app.query_one("#graph-box", ScrollableContainer)
        painted = app.query_one(GraphPane).painted
        assert painted is not None
        assert box.max_scroll_y == 0 and box.max_scroll_x == 0, "it fits: no scrolling"
        assert box.outer_size.width == painted.width + 3, "as wide as the drawing, border and a cell of air"
        assert "│ end │" in screen_text(app)
        timeline = app.query_one("#timeline-box")
        assert timeline.outer_size.height == 3 + 1 + 2, "three steps, the header, the border"


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40), (140, 45), (200, 60)])
async def test_help_and_quit_are_in_the_footer_at_every_width(size: tuple[int, int]) -> None:
    app = make_app(RUNS / "runaway.jsonl")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for _ in range(
            100
        ):  # the footer composes its keys once the bindings are known (a busy machine: later)
            if "^p palette" in screen_text(app).splitlines()[-1]:
                break
            await pilot.pause(0.05)
        footer = screen_text(app).splitlines()[-1]
        assert "? Help" in footer and "q Quit" in footer and "^p palette" in footer


async def test_a_run_opening_on_its_last_step_shows_that_row_at_80x24() -> None:
    # runaway.jsonl opens on step 12; the timeline used to show rows 0-5 until a key was pressed.
    app = make_app(RUNS / "runaway.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.replay.cursor == 12
        timeline = app.query_one(Timeline)

        def shown() -> bool:
            top = round(timeline.scroll_y)
            return top <= 12 < top + timeline.scrollable_content_region.height

        for _ in range(100):  # the screen settles over a few frames (later on a busy machine); no key pressed
            if shown():
                break
            await pilot.pause(0.05)
        assert shown()
        assert "││▶   12  chat" in screen_text(app)


async def test_a_narrow_screen_puts_the_graph_beside_the_timeline_and_scrolls_it() -> None:
    app = make_app(RUNS / "weather.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.query_one("#main").has_class("-wide")
        box = app.query_one("#graph-box", ScrollableContainer)
        assert box.max_scroll_y > 0, "the drawing is taller than the room: it scrolls"
        assert box.outer_size.height == app.query_one("#timeline-box").outer_size.height
        await pilot.resize_terminal(140, 45)
        await pilot.pause()
        assert app.query_one("#main").has_class("-wide")


async def test_the_timeline_columns_fit_the_run() -> None:
    app = make_app(RUNS / "approval.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        header = screen_text(app).splitlines()[2]
        assert "step  nodes   steps left model tool  duration" in header, "nodes as wide as `approve`"
