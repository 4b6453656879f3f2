"""Timeline clip markers say "x expands": `x` shows a clipped interrupt reason or resume note whole on
its row (and on the timeline's border note), and `x` again clips it."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.recording.format import BudgetRecord
from inspector.tui import make_app
from inspector.tui.interrupts import InterruptMark
from inspector.tui.session import TimelineRow
from inspector.tui.timeline import Timeline, format_row

pytestmark = pytest.mark.anyio

APPROVAL = Path(__file__).parents[2] / "fixtures" / "runs" / "approval.jsonl"
LONG_ID = "cp-" + "0123456789" * 10
LONG_NODE = "approve_" + "x" * 100


def _row(*, interrupt: InterruptMark | None, resumed_from: str | None, segment: int) -> TimelineRow:
    budget = BudgetRecord(steps_used=1, steps_max=10, steps_remaining=9, model_calls=0, tool_calls=0)
    return TimelineRow(
        position=0,
        index=0,
        nodes=("a",),
        budget=budget,
        duration=None,
        failed=False,
        ended=False,
        interrupt=interrupt,
        resumed_from=resumed_from,
        segment=segment,
    )


def test_format_row_clips_unless_expanded() -> None:
    row = _row(interrupt=InterruptMark(kind="before", nodes=(LONG_NODE,)), resumed_from=LONG_ID, segment=1)
    clipped = format_row(row, current=False, breakpoint=False, hit=False).plain
    assert "x expands" in clipped and LONG_NODE not in clipped and LONG_ID not in clipped
    whole = format_row(row, current=False, breakpoint=False, hit=False, expand=True).plain
    assert "x expands" not in whole
    assert f"interrupt before {LONG_NODE}" in whole and f"resumed from {LONG_ID}" in whole


async def test_x_on_the_timeline_shows_a_clipped_resume_note_whole(tmp_path: Path) -> None:
    path = tmp_path / "approval.jsonl"
    path.write_text(APPROVAL.read_text().replace('"t1"', f'"{LONG_ID}"'))
    app = make_app(path, start=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        timeline = app.query_one(Timeline)
        assert timeline.has_focus

        def resumed_row() -> str:
            timeline.scroll_to(x=timeline.max_scroll_x, animate=False, immediate=True)
            return timeline.render_line(2).text.rstrip()

        await pilot.pause()
        assert "x expands)" in resumed_row() and LONG_ID not in resumed_row()
        await pilot.press("x")
        await pilot.pause()
        await pilot.pause()
        row = resumed_row()
        assert "x expands" not in row, row
        assert row.endswith(f"{LONG_ID[-20:]} (segment 1: steps and budget restart)"), row
        await pilot.press("x")
        await pilot.pause()
        assert "x expands)" in resumed_row()
