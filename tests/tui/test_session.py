"""The TUI's adapter over `Replay`, tested without Textual."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.diagnostics import Diagnostic
from inspector.recording import read_run
from inspector.replay import Replay
from inspector.tui.paths import EVERY, PathCounter
from inspector.tui.session import Session
from tests.tui.conftest import split_after_steps, synthetic


def test_path_at_matches_replay_in_any_order(react_run: Path) -> None:
    session = Session.open(react_run)
    replay = Replay(read_run(react_run))
    order = [0, 1, 2, 8, 3, 8, 5, 0, 7, 6]
    for i in order:
        so_far = session.path_at(i)
        nodes, edges = replay.executed_path(i)
        assert so_far.nodes == nodes, i
        assert so_far.edges == edges, i
        assert so_far.visits == replay.visit_counts(i), i


def test_path_at_uses_checkpoints_on_long_runs(tmp_path: Path) -> None:
    path = synthetic(tmp_path / "long.jsonl", 300, usage=False)
    session = Session.open(path)
    last = len(session) - 1
    assert session.path_at(last).visits == {"chat": 301, "tools": 300}
    counter = PathCounter(read_run(path))
    counter.at(last)
    assert counter.known(300, reach=300 - EVERY) is not None  # from the checkpoint at 256
    assert session.path_at(300).visits == Replay(read_run(path)).visit_counts(300)


def test_a_far_path_is_known_only_once_the_background_count_gets_near(tmp_path: Path) -> None:
    path = synthetic(tmp_path / "long.jsonl", 300, usage=False)
    replay = Replay(read_run(path))
    counter = PathCounter(read_run(path))
    last = len(counter) - 1
    assert counter.known(last, reach=100) is None  # 600 steps from anything known
    assert counter.known(50, reach=100) is not None  # near the start: walked on the spot
    slices = 0
    while not counter.count_for(0.0):  # a slice of no time still counts some steps
        slices += 1
        assert counter.counted < last
    assert slices > 1 and counter.done and counter.counted == last
    for i in (last, 555, 300, 17):
        so_far = counter.known(i, reach=EVERY)
        assert so_far is not None, i
        nodes, edges = replay.executed_path(i)
        assert (so_far.visits, so_far.nodes, so_far.edges) == (replay.visit_counts(i), nodes, edges), i


def test_ok_run_opens_at_start_error_run_at_the_stop(react_run: Path, error_run: Path) -> None:
    assert Session.open(react_run).opening_position() == 0
    assert Session.open(react_run).stop_report() is None
    session = Session.open(error_run)
    assert session.opening_position() == len(session) - 1
    report = session.stop_report()
    assert report is not None and report.status == "error"
    assert report.node_path == ("tools",)
    assert report.error is not None and "weather service unavailable" in (report.error.cause_message or "")
    assert any(d.code == "tool-failed" for d in report.diagnostics)
    assert report.unfinished_nodes == ("tools",)


def test_budget_cycle_comes_from_diagnostics(runaway_run: Path, react_run: Path) -> None:
    cycle = Session.open(runaway_run).budget_cycle()
    assert cycle is not None and "chat -> tools -> chat" in cycle
    assert Session.open(react_run).budget_cycle() is None


def test_reload_picks_up_appended_steps_and_keeps_breakpoints(tmp_path: Path, react_run: Path) -> None:
    data = react_run.read_bytes()
    head, _ = split_after_steps(react_run, 3)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    session = Session.open(live)
    assert len(session) == 3 and session.run.status == "incomplete"
    session.replay.go(-1)
    session.replay.add_breakpoint("tools")
    assert session.reload() is False  # nothing new yet
    live.write_bytes(data)
    assert session.reload() is True
    assert len(session) == 9 and session.run.status == "ok"
    assert session.replay.cursor == 8, "a cursor on the last step follows the end"
    assert session.replay.breakpoints == {"tools"}


@pytest.mark.anyio
async def test_long_runs_are_diagnosed_in_a_child_process(
    runaway_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import inspector.tui.session as session_module
    from inspector.tui import make_app

    monkeypatch.setattr(session_module, "SYNC_DIAGNOSE_LIMIT", 0)
    session = Session.open(runaway_run)
    assert session.diagnostics is None and session.budget_cycle() is None
    app = make_app(session)
    async with app.run_test(size=(120, 40)) as pilot:
        found = None
        for _ in range(100):
            found = _diagnostics(session)
            if found is not None:
                break
            await pilot.pause(0.05)
        assert found is not None
        assert [d.code for d in found] == ["budget-exhausted"]
        assert "chat -> tools -> chat" in (session.budget_cycle() or "")


def _diagnostics(session: Session) -> list[Diagnostic] | None:
    """Read through a call, so the type checker does not keep the earlier `is None` narrowing."""
    return session.diagnostics
