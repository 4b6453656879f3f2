"""The end of every timeline row can be scrolled to: interrupt reasons and resume notes sit at the end
of their rows and can be wider than the step columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.recording.format import BudgetRecord
from inspector.tui import make_app
from inspector.tui.session import TimelineRow
from inspector.tui.timeline import Columns, Timeline, format_row, header

pytestmark = pytest.mark.anyio

APPROVAL = Path(__file__).parents[2] / "fixtures" / "runs" / "approval.jsonl"


async def test_a_resume_note_at_the_end_of_its_row_can_be_scrolled_to() -> None:
    app = make_app(APPROVAL, start=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        timeline = app.query_one(Timeline)
        await pilot.pause()
        timeline.scroll_to(x=timeline.max_scroll_x, animate=False, immediate=True)
        await pilot.pause()
        rows = [timeline.render_line(y).text.rstrip() for y in range(4)]
        assert rows[2].endswith("(segment 1: steps and budget restart)"), rows[2]
        assert rows[1].endswith("⏸ interrupt: approve (rerun on resume)"), rows[1]


def test_call_counts_of_a_long_agent_run_stay_apart() -> None:
    budget = BudgetRecord(steps_used=99_986, steps_max=100_001, model_calls=49_993, tool_calls=49_992)
    columns = Columns.for_run(["chat", "tools"], budget)
    row = TimelineRow(99_985, 99_985, ("tools",), budget, 0.0, failed=False, ended=False)
    text = format_row(row, current=False, breakpoint=False, hit=False, columns=columns).plain
    assert " 49993 49992 " in text
    assert header(columns).index("tool") + 4 == text.index("49992") + 5  # right-aligned under it
    assert header(columns).index("step") + 4 == text.index("99985") + 5
    short = Columns.for_run(["chat", "tools"], BudgetRecord(steps_used=9, steps_max=9, model_calls=5))
    assert short.call_widths == (6, 5)  # a short run's columns as before
