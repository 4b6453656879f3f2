"""The background walk: one child process diagnoses a run and counts its visits; what it hands back
is what counting and diagnosing in this process find."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from inspector.diagnostics import diagnose
from inspector.recording import read_run
from inspector.tui import background, make_app
from inspector.tui import paths as paths_module
from inspector.tui.paths import PathCounter, PathSoFar, path_from_json, path_to_json
from inspector.tui.session import Session
from inspector.tui.walker import FULL_COLLECTION_EVERY
from tests.tui.conftest import SIZE, synthetic

pytestmark = pytest.mark.anyio


@pytest.fixture
def long_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(paths_module, "EVERY", 20)  # the child is told the spacing
    monkeypatch.setattr(paths_module, "REACH", 40)  # a key walks at most 40 steps
    return synthetic(tmp_path / "long.jsonl", 150, usage=False, tool_error_round=140)  # fails in step 281


def _same(found: PathSoFar, direct: PathSoFar) -> None:
    assert (found.position, found.visits, found.nodes, found.edges, found.previous) == (
        direct.position,
        direct.visits,
        direct.nodes,
        direct.edges,
        direct.previous,
    )


async def _walk(counter: PathCounter | None, path: Path, *, diagnose: bool) -> list[background.Update]:
    return [u async for u in background.walk_separately(counter, str(path), lenient=False, diagnose=diagnose)]


async def test_counts_and_diagnostics_from_the_child_match_a_direct_walk(long_run: Path) -> None:
    run = read_run(long_run)
    counter = PathCounter(run)
    updates = await _walk(counter, long_run, diagnose=True)
    kinds = [u[0] for u in updates]
    assert kinds[-1] == "diagnostics" and set(kinds[:-1]) == {"paths"}
    direct = PathCounter(read_run(long_run))
    checkpoints: list[PathSoFar] = []
    for update in updates:
        if update[0] == "paths":
            checkpoints.extend(update[1])
            counter.adopt(update[1], update[2])
            _same(update[2], direct.at(update[2].position))
        else:
            assert update[1] == diagnose(run)
            assert any(d.code == "tool-failed" for d in update[1])
    last = len(run.steps) - 1
    assert last == 280
    assert [c.position for c in checkpoints] == list(range(0, last + 1, 20))
    for checkpoint in checkpoints:
        _same(checkpoint, direct.at(checkpoint.position))
    assert counter.done and counter.counted == last
    for i in (last, 279, 150, 41, 0):  # every position is now within one checkpoint's spacing
        known = counter.known(i, reach=20)
        assert known is not None, i
        _same(known, direct.at(i))


async def test_the_child_counts_on_from_where_the_count_stands(long_run: Path) -> None:
    counter = PathCounter(read_run(long_run))
    counter.count_to(130)
    assert counter.counted == 130
    updates = await _walk(counter, long_run, diagnose=False)
    assert updates and all(u[0] == "paths" for u in updates)
    handed = [c.position for u in updates if u[0] == "paths" for c in u[1]]
    assert handed == list(range(140, 281, 20))  # nothing it was told the count already has
    direct = PathCounter(read_run(long_run))
    for update in updates:
        if update[0] == "paths":
            counter.adopt(update[1], update[2])
    assert counter.done
    _same(counter.frontier, direct.at(280))
    known = counter.known(287, reach=20)
    assert known is not None
    _same(known, direct.at(287))


async def test_a_child_that_cannot_read_the_run_finds_no_diagnostics(tmp_path: Path) -> None:
    updates = await _walk(None, tmp_path / "gone.jsonl", diagnose=True)
    assert updates == [("diagnostics", [])]


async def test_the_session_takes_the_counts_in_and_reports_the_diagnostics(long_run: Path) -> None:
    session = Session.open(long_run)
    session.diagnostics = None  # as for a run too long to diagnose when opened
    assert session.path_known(280) is None
    found = [u async for u in session.walk_separately(count=True)]
    assert session.paths_done
    known = session.path_known(280)
    assert known is not None and known.visits == {"chat": 141, "tools": 140}
    assert found[-1] == ("diagnostics", diagnose(session.run))


def test_a_path_survives_json() -> None:
    path = PathSoFar(
        7, {"chat": 4, "tools": 3}, frozenset({"start", "chat"}), frozenset({("a", "b")}), ("x",)
    )
    assert path_from_json(path_to_json(path)) == path


async def test_the_app_tunes_the_collector_after_its_first_frame_and_puts_it_back(tmp_path: Path) -> None:
    before = gc.get_threshold()
    app = make_app(synthetic(tmp_path / "short.jsonl", 4))  # a short run too: Textual's objects
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.walker.frozen and gc.get_freeze_count() > 0
        assert gc.get_threshold() == (*before[:2], FULL_COLLECTION_EVERY)
    assert not app.walker.frozen and gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
