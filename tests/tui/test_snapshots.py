"""SVG screenshots of the main screen (textual-dark) at four terminal sizes, for the weather, runaway and
approval recordings, plus a run that failed in a tool.

The sizes span the layouts: 80x24 (narrow: the graph shares the top row with the timeline), 120x40,
140x45 and 200x60 (wide: the graph gets a full-height column). Review changes with
`pytest tests/tui/test_snapshots.py --snapshot-update` and a look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from fixtures.runs import RUNS, record
from inspector.tui import make_app
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.anyio

SIZES = ((80, 24), (120, 40), (140, 45), (200, 60))
RECORDINGS = {
    "weather": ("end",),  # the whole conversation, the final answer last
    "runaway": (),  # opens where the budget ran out
    "approval": (),  # opens at step 0 of two segments
}


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The three fixture runs recorded afresh (deterministic: injected clock and run ID)."""
    folder = tmp_path_factory.mktemp("runs")
    return {f.name: record(f, folder / f"{f.name}.jsonl") for f in RUNS if f.name in RECORDINGS}


async def _screenshot(path: Path, size: tuple[int, int], *keys: str) -> str:
    app = make_app(path, theme="textual-dark")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        return app.export_screenshot(title="inspector replay")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("name", list(RECORDINGS))
async def test_screen(
    name: str, size: tuple[int, int], recordings: dict[str, Path], svg_snapshot: SnapshotAssertion
) -> None:
    assert await _screenshot(recordings[name], size, *RECORDINGS[name]) == svg_snapshot


async def test_error_run(error_run: Path, svg_snapshot: SnapshotAssertion) -> None:
    assert await _screenshot(error_run, SIZE, "d") == svg_snapshot
