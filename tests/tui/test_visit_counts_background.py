"""Visit counts far into a long run: a key does not read every step before it; the graph says it is
counting (no counts, only the path known so far) until the background count reaches the cursor."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from inspector.tui import ReplayApp, make_app
from inspector.tui import paths as paths_module
from tests.tui.conftest import SIZE, screen_text, synthetic

pytestmark = pytest.mark.anyio


@pytest.fixture
def long_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(paths_module, "REACH", 40)  # a key walks at most 40 steps
    monkeypatch.setattr(paths_module, "EVERY", 20)  # from a checkpoint every 20
    return synthetic(tmp_path / "long.jsonl", 150, usage=False)  # 301 steps


async def test_a_far_jump_shows_counting_until_the_count_gets_there(long_run: Path) -> None:
    app = make_app(long_run)
    app.count_in_background = False  # the count is driven by hand below
    async with app.run_test(size=SIZE) as pilot:
        session = app.session
        await pilot.press("end")
        assert app.replay.cursor == 300
        assert session.paths_counted == -1  # the key counted nothing
        graph = app.query_one("#graph-box")
        assert str(graph.border_subtitle) == "counting visits… 0%"
        assert "×" not in screen_text(app)  # no counts shown while they are not known
        while not session.count_paths(0.0):
            pass
        app.show_cursor()
        await pilot.pause()
        assert not graph.border_subtitle
        assert "×151" in screen_text(app)  # chat ran 151 times by the last step


async def test_the_background_count_fills_the_graph_in(long_run: Path) -> None:
    app = make_app(long_run)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        await _counted(app, pilot)
        assert not app.query_one("#graph-box").border_subtitle
        assert "×151" in screen_text(app)
        await pilot.press("g", *"150", "enter")  # every position is in reach now
        assert not app.query_one("#graph-box").border_subtitle
        assert "×76" in screen_text(app)


async def _counted(app: ReplayApp, pilot: Pilot[None]) -> None:
    """Wait for the background count to reach the last step."""
    for _ in range(600):
        if app.session.paths_done:
            break
        await pilot.pause(0.05)
    assert app.session.paths_done
    await pilot.pause()
