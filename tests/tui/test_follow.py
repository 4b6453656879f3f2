"""`--follow`: the app picks up steps appended to a run file while it is open."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui import make_app
from inspector.tui.timeline import Timeline
from tests.tui.conftest import SIZE, screen_text, split_after_steps

pytestmark = pytest.mark.anyio


async def test_follow_mode_shows_appended_steps_live(tmp_path: Path, react_run: Path) -> None:
    head, tail = split_after_steps(react_run, 3)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    app = make_app(live, follow=True, poll_interval=0.02)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert len(app.replay) == 3 and app.replay.cursor == 2
        assert "following" in screen_text(app)
        middle = tail.index(b"\n", len(tail) // 2) + 1
        with live.open("ab") as out:
            out.write(tail[:middle])
        await pilot.pause(0.2)
        grown = len(app.replay)
        assert 3 < grown < 9
        assert app.replay.cursor == grown - 1, "a cursor at the end follows new steps"
        assert app.query_one(Timeline).virtual_size.height == grown
        await pilot.press("home")
        with live.open("ab") as out:
            out.write(tail[middle:])
        await pilot.pause(0.2)
        assert len(app.replay) == 9
        assert app.replay.cursor == 0, "a cursor moved away from the end stays put"
        assert app.session.run.status == "ok"
        await pilot.press("end")
        assert app.replay.cursor == 8


async def test_without_follow_the_file_is_read_once(tmp_path: Path, react_run: Path) -> None:
    head, tail = split_after_steps(react_run, 3)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    app = make_app(live, poll_interval=0.02)
    async with app.run_test(size=SIZE) as pilot:
        with live.open("ab") as out:
            out.write(tail)
        await pilot.pause(0.1)
        assert len(app.replay) == 3
