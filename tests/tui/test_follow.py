"""`--follow`: the app picks up steps appended to a run file while it is open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspector.tui import make_app
from inspector.tui.timeline import Timeline
from tests.tui.conftest import SIZE, screen_text, split_after_steps


async def settle(pilot: Any, ready: Callable[[], bool], timeout: float = 5.0) -> None:
    """Let follow-mode polls run until `ready()` holds (or `timeout` passes), so a busy machine that
    polls late does not fail a test that a fixed pause would."""
    waited = 0.0
    while not ready() and waited < timeout:
        await pilot.pause(0.02)
        waited += 0.02


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
        await settle(pilot, lambda: len(app.replay) > 3)
        grown = len(app.replay)
        assert 3 < grown < 9
        assert app.replay.cursor == grown - 1, "a cursor at the end follows new steps"
        assert app.query_one(Timeline).virtual_size.height == grown
        await pilot.press("home")
        with live.open("ab") as out:
            out.write(tail[middle:])
        await settle(pilot, lambda: len(app.replay) == 9)
        assert len(app.replay) == 9
        assert app.replay.cursor == 0, "a cursor moved away from the end stays put"
        assert app.session.run.status == "ok"
        await pilot.press("end")
        assert app.replay.cursor == 8


async def test_a_poll_while_the_app_closes_does_nothing(tmp_path: Path, react_run: Path) -> None:
    """The poll timer can fire after the screen's panes are removed (the app closing): a grown file is
    then left unread rather than failing on the missing timeline."""
    head, tail = split_after_steps(react_run, 3)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    app = make_app(live, follow=True, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.query_one("#main").remove()  # what closing does to the panes before the timer stops
        with live.open("ab") as out:
            out.write(tail)
        await app.poll()
        assert not app.query(Timeline)


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


async def test_follow_waits_for_a_file_that_does_not_exist_yet(tmp_path: Path, react_run: Path) -> None:
    head, tail = split_after_steps(react_run, 2)
    header_end = head.index(b"\n") + 1
    live = tmp_path / "later.jsonl"
    app = make_app(live, follow=True, poll_interval=0.02)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.waiting
        assert "waiting for later.jsonl" in screen_text(app)
        await pilot.press("n", "end", "d", "space")  # nothing to move through: no crash
        live.write_bytes(head[: header_end - 5])  # the header line, cut short: keep waiting
        await pilot.pause(0.1)
        assert app.waiting
        live.write_bytes(head[:header_end])  # a header and no steps yet: open it
        await settle(pilot, lambda: not app.waiting)
        assert not app.waiting and len(app.replay) == 0
        assert "no complete steps recorded" in screen_text(app)
        with live.open("ab") as out:
            out.write(head[header_end:])
        await settle(pilot, lambda: len(app.replay) == 2)
        assert len(app.replay) == 2 and app.replay.cursor == 1, "the cursor follows the end"
        with live.open("ab") as out:
            out.write(tail)
        await settle(pilot, lambda: len(app.replay) == 9)
        assert len(app.replay) == 9 and app.session.run.status == "ok"
        await pilot.press("q")
    assert app.return_code == 0


async def test_a_poll_without_growth_reads_nothing(tmp_path: Path, react_run: Path) -> None:
    app = make_app(react_run, follow=True, poll_interval=0.01)
    async with app.run_test(size=SIZE) as pilot:
        session = app.session
        run = session.run
        await pilot.pause(0.1)
        assert app.session is session and app.session.run is run, "no re-read without growth"


def test_without_follow_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such file"):
        make_app(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        make_app(empty)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"not a run\n")
    with pytest.raises(ValueError, match="not JSON"):
        make_app(bad, follow=True)  # a complete first line that is no header: not worth waiting for


async def test_a_corrupt_line_appended_in_the_middle_is_said_and_the_good_prefix_kept(
    tmp_path: Path, react_run: Path
) -> None:
    head, tail = split_after_steps(react_run, 3)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    app = make_app(live, follow=True, poll_interval=0.02)
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        assert len(app.replay) == 3
        with live.open("ab") as out:
            out.write(b'{"kind": "step", this is not JSON\n' + tail)
        await settle(pilot, lambda: app.session.problem is not None)
        bad = head.count(b"\n") + 1
        assert app.session.problem == f"line {bad} is corrupt"
        assert f"live.jsonl:{bad}:" in app.session.problem_detail
        assert len(app.replay) == 3 and app.replay.cursor == 2, "the steps read before it stay"
        status = screen_text(app).splitlines()[0]
        assert "stopped following: " in status and "following" not in status.replace("stopped following", "")
        assert "(showing the 3 steps read before it)" in screen_text(app)
