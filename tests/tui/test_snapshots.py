"""SVG screenshots of the main screen (120x40, textual-dark) for three kinds of run.

Review changes with `pytest tests/tui/test_snapshots.py --snapshot-update` and a look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from inspector.tui import make_app
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.anyio


async def _screenshot(path: Path, *keys: str) -> str:
    app = make_app(path, theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*keys)
        await pilot.pause()
        return app.export_screenshot(title="inspector replay")


async def test_weather_run(weather_run: Path, svg_snapshot: SnapshotAssertion) -> None:
    assert await _screenshot(weather_run, "n", "n") == svg_snapshot


async def test_runaway_run_ended_by_the_budget(runaway_run: Path, svg_snapshot: SnapshotAssertion) -> None:
    assert await _screenshot(runaway_run) == svg_snapshot


async def test_error_run(error_run: Path, svg_snapshot: SnapshotAssertion) -> None:
    assert await _screenshot(error_run, "d") == svg_snapshot
