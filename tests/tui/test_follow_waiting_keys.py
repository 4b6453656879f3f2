"""Keys pressed while `--follow` waits for its run file: a screen opened on top of the waiting screen
(help, the command palette) must not receive the panes when the file appears."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui import make_app
from inspector.tui.help_screen import HelpScreen
from inspector.tui.timeline import Timeline
from tests.tui.conftest import SIZE, split_after_steps
from tests.tui.test_follow import settle

pytestmark = pytest.mark.anyio


async def test_help_open_while_waiting_then_the_file_appears(tmp_path: Path, react_run: Path) -> None:
    head, _ = split_after_steps(react_run, 2)
    live = tmp_path / "later.jsonl"
    app = make_app(live, follow=True, poll_interval=0.02)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        live.write_bytes(head)
        await pilot.pause(0.3)  # several polls see the file while help is on top
        assert isinstance(app.screen, HelpScreen), "the help screen stays as it was"
        assert not app.screen.query(Timeline), "the panes are not built on the help screen"
        await pilot.press("escape")
        await settle(pilot, lambda: not app.waiting)
        assert not app.waiting and len(app.replay) == 2
        assert app.screen is app.default_screen and app.query_one(Timeline).cursor == 1
        await pilot.press("left")
        assert app.replay.cursor == 0
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_palette_open_while_waiting_then_the_file_appears(tmp_path: Path, react_run: Path) -> None:
    head, _ = split_after_steps(react_run, 2)
    live = tmp_path / "later.jsonl"
    app = make_app(live, follow=True, poll_interval=0.02)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: app.screen is not app.default_screen)
        live.write_bytes(head)
        await pilot.pause(0.3)
        assert app.waiting, "nothing is built while the palette is open"
        await pilot.press("escape")
        await settle(pilot, lambda: not app.waiting)
        assert len(app.replay) == 2 and app.screen is app.default_screen
        app.query_one(Timeline)
