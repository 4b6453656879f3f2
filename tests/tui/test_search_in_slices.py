"""Search on a long run: the scan on the key is bounded (`SEARCH_SLICE_S`); the rest runs in slices
between which keys are answered, and the hits come out the same as a whole scan's."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui import app as app_module
from inspector.tui import make_app
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.anyio


async def test_a_search_longer_than_a_slice_moves_at_once_and_collects_every_hit(
    react_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "SEARCH_SLICE_S", 0.0)  # every slice finds one hit, then yields
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.search("tools")
        assert app.replay.cursor == 1  # the first hit after the cursor, before the scan is done
        assert app.hits == [1]
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.hits == app.replay.search("tools") == [1, 3, 5, 7]
        assert app.replay.cursor == 1  # collecting the rest does not move the cursor
        await pilot.press("right_square_bracket")
        assert app.replay.cursor == 3


async def test_a_new_search_replaces_one_still_collecting(
    react_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "SEARCH_SLICE_S", 0.0)
    app = make_app(react_run)
    async with app.run_test(size=SIZE) as pilot:
        app.search("tools")
        app.search("sunny, 22")
        for _ in range(200):  # the first search's worker is cancelled; wait for the second's
            if not any(w.group == "search" and w.is_running for w in app.workers):
                break
            await pilot.pause(0.01)
        await pilot.pause()
        assert app.hits == [5, 6]
