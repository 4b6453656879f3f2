"""The replay screen at 80x24, 120x40 and 140x45 (Pilot): the lower panes share the width, the
timeline's rows come before the graph's spare columns (ADK keys and durations whole), notes wrap
instead of being cut, notifications keep off the budget bar, the help says when it goes on, and the
fork view has a status line and offers only keys that work there."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets._toast import Toast

from inspector.tui import make_app
from inspector.tui.app import ReplayApp
from inspector.tui.fork_screen import ForkScreen
from tests.tui.conftest import screen_text, stateless_dag

pytestmark = pytest.mark.anyio

RUNS = Path(__file__).parents[2] / "fixtures" / "runs"
SIZES = [(80, 24), (120, 40), (140, 45)]
IDS = [f"{w}x{h}" for w, h in SIZES]


def pane_lines(app: ReplayApp, selector: str) -> list[str]:
    region = app.screen.query_one(selector, Widget).region
    rows = screen_text(app).splitlines()[region.y : region.y + region.height]
    return [row[region.x : region.x + region.width] for row in rows]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_lower_panes_share_the_screen_width(size: tuple[int, int]) -> None:
    # At 120x40 each got 28 columns while the timeline above them stood 30 columns empty.
    app = make_app(RUNS / "weather.jsonl")
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.2)
        widths = [app.query_one(s).region.width for s in ("#state", "#messages-box", "#detail-box")]
        assert max(widths) - min(widths) <= 2
        assert min(widths) >= {80: 26, 120: 40, 140: 37}[size[0]]
        for selector in ("#state", "#messages-box", "#detail-box"):
            assert app.query_one(selector).region.height - 2 >= 5


@pytest.mark.parametrize("size", SIZES[1:], ids=IDS[1:])
async def test_adk_node_keys_and_durations_show_whole_with_their_header(size: tuple[int, int]) -> None:
    app = make_app(RUNS / "adk.jsonl")
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.2)
        timeline = "\n".join(pane_lines(app, "#timeline-box"))
        assert "AfterToolCallsCancelCheck " in timeline and "AfterToolCallsCancelChe…" not in timeline
        assert "iter  duration" in timeline
        assert "0.003s  ⏹" in timeline
        timeline_box = app.query_one("#timeline-box")
        assert timeline_box.region.width >= app.query_one("Timeline").row_width() + 2  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_no_state_note_wraps_instead_of_being_cut(size: tuple[int, int], tmp_path: Path) -> None:
    app = make_app(stateless_dag(tmp_path / "dag.jsonl"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        rows = [row[1:-1].strip(" ▅▁▃▆▇▂▄") for row in pane_lines(app, "#state")[1:-1]]
        assert " ".join(" ".join(rows).split()).startswith("(no state: this graph keeps none)")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_notifications_keep_off_the_budget_bar(size: tuple[int, int]) -> None:
    app = make_app(RUNS / "runaway.jsonl")
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.pause(0.2)
        app.notify("breakpoint on: a node with rather a long name to wrap", markup=False)
        await pilot.pause(0.3)
        toasts = list(app.screen.query(Toast))
        assert toasts
        budget = app.query_one("#budget").region
        for toast in toasts:
            assert not toast.region.overlaps(budget), (toast.region, budget)
            assert toast.region.height <= 3


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_help_says_when_its_list_goes_on(size: tuple[int, int]) -> None:
    app = make_app(RUNS / "weather.jsonl")
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.2)
        await pilot.press("question_mark")
        await pilot.pause(0.3)
        text = screen_text(app)
        box = app.screen.query_one("#help-keys")
        if box.max_scroll_y > 0:  # cut: the bottom border says so
            assert "↓ more below: ↑ ↓ PgUp PgDn scroll" in text
            await pilot.press("end")
            await pilot.pause(0.3)
            assert "end of the list" in screen_text(app)
            assert "Every action is also in the command palette" in screen_text(app)
        else:
            assert "↓ more below" not in text and "Every action is also in the command palette" in text
        if size == (80, 24):
            assert box.max_scroll_y > 0, "80x24 is too short for every key"


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_fork_view_has_a_status_line_and_offers_only_its_own_keys(
    size: tuple[int, int], tmp_path: Path
) -> None:
    parent = tmp_path / "runaway.jsonl"
    parent.write_bytes((RUNS / "runaway.jsonl").read_bytes())
    app = make_app(parent)
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.pause(0.2)
        app.go(4)
        await pilot.press("f")
        await pilot.pause(0.2)
        answer = '{"role": "assistant", "content": "It stopped raining."}'
        await pilot.press(*("space" if ch == " " else ch for ch in answer), "enter")
        deadline = time.monotonic() + 60
        while not isinstance(app.screen, ForkScreen):
            assert time.monotonic() < deadline, "the fork view never opened"
            await pilot.pause(0.1)
        await pilot.pause(0.3)
        lines = screen_text(app).splitlines()
        assert lines[0].startswith(" fork of runaway.jsonl at step 4 → runaway.fork-4.jsonl")
        footer = lines[-1]
        assert "Back to the run" in footer
        assert "Next step" not in footer and "Previous step" not in footer and "Help" not in footer
        assert "first divergence: step 4" in screen_text(app)
        toasts = [str(t.render()) for t in app.screen.query(Toast)]
        assert not toasts, toasts  # the `forking…` note would cover the result line
        await pilot.press("right")  # offered nowhere here, and does nothing
        await pilot.pause(0.1)
        assert isinstance(app.screen, ForkScreen) and app.replay.cursor == 4
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert "Next step" in screen_text(app).splitlines()[-1]
