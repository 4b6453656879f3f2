"""The run browser (`inspector replay FOLDER`) driven with Textual's pilot at 80x24 and 140x45: the list
fills from a worker as runs are read, sorts, filters with `/`, opens a run with Enter, comes back
from the replay app with Esc at the same row, and shows two marked runs' diff with `d`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from bench.catalog_runs import Expected, generate
from inspector.tui.run_browser import BrowsedReplayApp, BrowserState, DiffScreen, RunListApp
from inspector.tui.session import Session

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (140, 45)]


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, list[Expected]]:
    where = tmp_path / "runs"
    return where, generate(where, 8, rounds=(1, 3), nest=2)


async def _filled(app: RunListApp, pilot: object, count: int) -> DataTable[object]:
    table = app.query_one(DataTable)
    for _ in range(200):
        if app.state.done and table.row_count == count:
            break
        await asyncio.sleep(0.02)
    return table


@pytest.mark.parametrize("size", SIZES)
async def test_list_open_back_at_the_same_row(
    folder: tuple[Path, list[Expected]], tmp_path: Path, size: tuple[int, int]
) -> None:
    where, expected = folder
    state = BrowserState()
    app = RunListApp([str(where)], index=tmp_path / "index.sqlite", state=state)
    async with app.run_test(size=size) as pilot:
        table = await _filled(app, pilot, len(expected))
        assert table.row_count == len(expected)
        status = str(app.query_one("#status-line", Static).render())
        assert f"{len(expected)} of {len(expected)} runs" in status
        await pilot.press("down", "down", "down")
        chosen = app._shown[3].key  # pyright: ignore[reportPrivateUsage]
        await pilot.press("enter")
    assert app.return_value == chosen
    replay = BrowsedReplayApp(Session.open(Path(chosen)), path=chosen)
    async with replay.run_test(size=size) as pilot:
        await pilot.press("right", "escape")
    assert replay.back is True
    again = RunListApp([str(where)], index=tmp_path / "index.sqlite", state=state)
    async with again.run_test(size=size) as pilot:
        table = again.query_one(DataTable)
        assert table.row_count == len(expected)  # kept: nothing read again
        assert table.cursor_row == 3
        await pilot.press("q")
    assert again.return_value is None


@pytest.mark.parametrize("size", SIZES)
async def test_filter_sort_mark_and_diff(
    folder: tuple[Path, list[Expected]], tmp_path: Path, size: tuple[int, int]
) -> None:
    where, expected = folder
    app = RunListApp([str(where)], index=tmp_path / "index.sqlite")
    async with app.run_test(size=size) as pilot:
        table = await _filled(app, pilot, len(expected))
        await pilot.press("slash")
        await pilot.press(*"error", "enter")
        errors = [e for e in expected if e.status == "error"]
        assert table.row_count == len(errors)
        await pilot.press("slash", *["backspace"] * 5, "enter")
        assert table.row_count == len(expected)
        for _ in range(4):  # found -> started_at, path, status, steps
            await pilot.press("s")
        steps = [r.steps for r in app._shown]  # pyright: ignore[reportPrivateUsage]
        assert steps == sorted(steps)
        await pilot.press("space", "down", "space", "d")
        assert isinstance(app.screen, DiffScreen)
        text = str(app.screen.query_one("#diff-text", Static).render())
        assert "step" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, DiffScreen)
        await pilot.press("q")


async def test_runs_appear_while_the_catalog_is_read(
    folder: tuple[Path, list[Expected]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker posts each run as it is read: with reading slowed, the list answers keys and shows
    the first runs before the last is read."""
    import time

    from inspector.catalog.runfile import RunFileKind

    where, expected = folder
    original = RunFileKind.summarize

    def slow(self: RunFileKind, found: object, *, now: float) -> object:
        time.sleep(0.05)
        return original(self, found, now=now)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(RunFileKind, "summarize", slow)
    app = RunListApp([str(where)], index=tmp_path / "index.sqlite")
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(DataTable)
        seen_partial = False
        for _ in range(200):
            await asyncio.sleep(0.02)
            if 0 < table.row_count < len(expected):
                seen_partial = True
                assert "reading" in str(app.query_one("#status-line", Static).render())
                await pilot.press("down")  # keys are answered meanwhile
            if app.state.done:
                break
        assert seen_partial and table.row_count == len(expected)


@pytest.mark.parametrize("size", SIZES)
async def test_a_checkpointers_threads_and_a_trace_files_runs_open_and_diff(
    checkpointer: Path, trace_file: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    """One list of a checkpointer's threads and a trace file's runs: a thread opens in the replay app
    through the run file it is converted to, and a thread and a trace's run compare with `d`."""
    from inspector.catalog.catalog import record_run_file

    state = BrowserState()
    app = RunListApp([str(checkpointer), str(trace_file)], index=tmp_path / "index.sqlite", state=state)
    async with app.run_test(size=size) as pilot:
        table = await _filled(app, pilot, 5 + 5)
        assert table.row_count == 10
        shown = app._shown  # pyright: ignore[reportPrivateUsage]
        thread = next(row for row, r in enumerate(shown) if r.path.endswith("#ok-1"))
        weather = next(row for row, r in enumerate(shown) if r.path.endswith("#weather"))
        table.move_cursor(row=thread)
        await pilot.press("space")
        table.move_cursor(row=weather)
        await pilot.press("space", "d")
        assert isinstance(app.screen, DiffScreen)
        text = str(app.screen.query_one("#diff-text", Static).render())
        assert "step" in text
        await pilot.press("escape")
        table.move_cursor(row=thread)
        await pilot.press("enter")
    record = next(r for r in state.records if r.key == app.return_value)
    assert record.part == "ok-1" and record.kind == "langgraph"
    replay = BrowsedReplayApp(Session.open(record_run_file(record)), path=record.path)
    async with replay.run_test(size=size) as pilot:
        assert len(replay.session) == 3
        await pilot.press("right", "escape")
    assert replay.back is True


def test_replay_of_a_checkpointer_opens_the_browser(
    checkpointer: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`inspector replay DB` without --thread opens the run browser on its threads."""
    from inspector.cli import main
    from inspector.tui import run_browser

    browsed: list[list[str]] = []
    monkeypatch.setattr(run_browser, "browse", lambda sources, **_: browsed.append(list(sources)))
    assert main(["replay", str(checkpointer)]) == 0
    assert browsed == [[str(checkpointer)]]
