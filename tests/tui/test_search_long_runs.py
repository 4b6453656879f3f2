"""Search on a long run: the key reads steps on from the cursor for a bounded time and moves to the
first hit it meets; a child process collects every hit, which come out the same as a whole search's."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from inspector.tui import ReplayApp, make_app
from inspector.tui import search as search_module
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _long(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run counts as long here: searched as a 100,000-step one would be."""
    monkeypatch.setattr(search_module, "SEARCH_ON_KEY_STEPS", 0)


async def _collected(app: ReplayApp, pilot: Pilot[None]) -> None:
    """Wait until the search has every hit (its child process is done)."""
    for _ in range(600):
        if not app.finder.collecting:
            break
        await pilot.pause(0.05)
    assert not app.finder.collecting
    await pilot.pause()


async def test_a_search_moves_at_once_and_collects_every_hit_later(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.search("tools")
        assert app.replay.cursor == 1  # the first hit after the cursor, before the rest is collected
        assert app.hits == [1] and app.finder.collecting
        await pilot.press("right_square_bracket")  # still collecting: read on from the cursor
        assert app.replay.cursor == 3
        await _collected(app, pilot)
        assert app.hits == app.replay.search("tools") == [1, 3, 5, 7]
        assert app.replay.cursor == 3  # collecting the rest does not move the cursor
        await pilot.press("right_square_bracket")
        assert app.replay.cursor == 5


async def test_a_hit_too_far_for_the_key_is_moved_to_when_found(
    react_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "SEARCH_SLICE_S", 0.0)  # the key reads a single step
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.search("sunny, 22")  # a tool result of round 2, steps 5 and 6
        assert app.replay.cursor == 0 and app.hits == [] and app.finder.collecting
        await _collected(app, pilot)
        assert app.hits == [5, 6]
        assert app.replay.cursor == 5


async def test_a_hit_found_later_leaves_a_cursor_the_user_moved(
    react_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "SEARCH_SLICE_S", 0.0)
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.search("sunny, 22")
        await pilot.press("end")
        await _collected(app, pilot)
        assert app.hits == [5, 6]
        assert app.replay.cursor == 8


async def test_a_new_search_replaces_one_still_collecting(react_run: Path) -> None:
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.search("tools")
        app.search("sunny, 22")
        await _collected(app, pilot)
        assert app.hits == [5, 6]
        assert app.last_search == "sunny, 22"
