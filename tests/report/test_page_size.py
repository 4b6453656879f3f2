"""A page stays linear in the run: a long run's steps are held as compressed data, not written out twice."""

from __future__ import annotations

from pathlib import Path

from bench.bench_recording import _agent  # pyright: ignore[reportPrivateUsage]
from graph_core.schema import Message
from inspector.recording import Recorder, read_run
from inspector.report import run_page
from inspector.report.page import STATIC_ROW_LIMIT


def _page_size(tmp_path: Path, rounds: int) -> int:
    path = tmp_path / f"{rounds}.jsonl"
    _agent(rounds).invoke([Message.user("go")], callbacks=[Recorder(path)])
    return len(run_page(read_run(path)).encode("utf-8"))


def test_page_size_grows_linearly_with_the_run(tmp_path: Path) -> None:
    small, large = _page_size(tmp_path, 60), _page_size(tmp_path, 600)
    assert large < 12 * small, (small, large)


def test_a_long_run_lists_its_later_rows_through_the_script(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    _agent(600).invoke([Message.user("go")], callbacks=[Recorder(path)])
    page = run_page(read_run(path))
    assert page.count('<tr id="step-') == STATIC_ROW_LIMIT
    assert 'data-encoding="gzip-base64"' in page
    assert f"the page's script lists the other {1201 - STATIC_ROW_LIMIT}" in page
