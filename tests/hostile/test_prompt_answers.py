"""Two answers to one prompt arriving together: the first wins, the app goes on.

Enter and Esc pressed close together on a slow 100 MB file crashed the replay TUI with
`ScreenStackError`: both keys queued while the app was busy, and the prompt was dismissed twice. Here
both key events are posted in one go, before the app handles either.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual import events

from inspector.tui import make_app
from inspector.tui.prompt import PromptScreen

pytestmark = pytest.mark.anyio

WEATHER = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"


@pytest.mark.parametrize(
    ("first", "second"), [("enter", "escape"), ("escape", "enter"), ("escape", "escape"), ("enter", "enter")]
)
async def test_enter_and_escape_together_answer_the_prompt_once(first: str, second: str) -> None:
    app = make_app(WEATHER)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("g", "1")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        app.post_message(events.Key(first, None))
        app.post_message(events.Key(second, None))
        await asyncio.sleep(0.3)  # (not pilot.pause: a crashed app never becomes idle again)
        assert app._exception is None  # pyright: ignore[reportPrivateUsage]
        assert not isinstance(app.screen, PromptScreen)
        await pilot.press("g", "2", "enter")  # the app still answers keys
        await pilot.pause()
        assert app.replay.cursor == 2
    assert app.return_code in (None, 0)
