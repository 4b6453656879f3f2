"""The end of every timeline row can be scrolled to: interrupt reasons and resume notes sit at the end
of their rows and can be wider than the step columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui import make_app
from inspector.tui.timeline import Timeline

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
