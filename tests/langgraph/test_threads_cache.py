"""The run files of threads: reused while the checkpointer is unchanged, written again when it changes,
and written behind `replay`'s screen by a forked process (a marker says so until it is done)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from inspector.errors import RunFileError
from inspector.recording import read_run
from inspector.sources.langgraph import converting, thread_run_file
from inspector.sources.langgraph.cache import cache_path, is_complete
from tests.langgraph.graphs import loop
from tests.langgraph.thread_writers import Backend, approval, config


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(cache))


def _db(tmp_path: Path, limit: int = 40) -> Backend:
    backend = Backend("sqlite", str(tmp_path / "db.sqlite"))
    with backend.saver() as saver:
        graph = loop(limit).compile(checkpointer=saver)
        settings: Any = {**config("t"), "recursion_limit": limit + 10}
        graph.invoke({"n": 0, "log": []}, settings)
    return backend


def test_a_run_file_written_behind_is_the_one_written_whole(tmp_path: Path) -> None:
    backend = _db(tmp_path)
    behind = thread_run_file(backend.location, "t", behind=True)
    deadline = time.monotonic() + 60
    while converting(behind) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not converting(behind) and is_complete(behind)
    text = behind.read_text()
    behind.unlink()
    whole = thread_run_file(backend.location, "t")
    assert whole == behind and whole.read_text() == text
    assert len(read_run(whole).steps) == 41


def test_a_changed_checkpointer_gets_a_fresh_run_file(tmp_path: Path) -> None:
    backend = _db(tmp_path)
    first = thread_run_file(backend.location, "t")
    assert thread_run_file(backend.location, "t") == first  # unchanged: reused
    with backend.saver() as saver:
        approval().compile(checkpointer=saver).invoke({"request": "x", "log": []}, config("other"))
    assert thread_run_file(backend.location, "t") != first


def test_a_marker_left_by_a_dead_writer_is_cleared_with_its_half_file(tmp_path: Path) -> None:
    out = cache_path("some thread")
    out.write_text('{"kind":"header"')
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    out.with_suffix(".converting").write_text(gone.stdout.strip())
    assert not converting(out)
    assert not out.exists() and not out.with_suffix(".converting").exists()
    live = cache_path("another")
    live.write_text("")
    live.with_suffix(".converting").write_text(str(os.getpid()))
    assert converting(live) and not is_complete(live)


def test_only_the_caches_files_are_ever_converting(tmp_path: Path) -> None:
    mine = tmp_path / "run.jsonl"  # a user's run file with a file of that name beside it: left alone
    mine.write_text("{}\n")
    (tmp_path / "run.converting").write_text("1")
    assert not converting(mine) and mine.exists()


def test_what_is_refused_is_refused_before_writing_behind(tmp_path: Path) -> None:
    backend = _db(tmp_path, limit=3)
    with pytest.raises(RunFileError, match="no thread `x`"):
        thread_run_file(backend.location, "x", behind=True)
    with pytest.raises(RunFileError, match="no branch 2"):
        thread_run_file(backend.location, "t", branch=2, behind=True)
    folder = Path(tempfile.gettempdir()) / "inspector-langgraph-threads"
    assert not list(folder.glob("*.converting")) and not list(folder.glob("*.jsonl"))


def test_the_wait_for_the_first_step_ends_once_it_is_written_behind_a_long_header(tmp_path: Path) -> None:
    """A 10,000-checkpoint thread's header is some 700 KB (its checkpoints listed): the wait used to
    look for two line ends in the file's first 64 KiB only, and so ran out its timeout every time."""
    from inspector.sources.langgraph.cache import _first_step  # pyright: ignore[reportPrivateUsage]

    out = cache_path("a long thread")
    out.with_suffix(".converting").write_text(str(os.getpid()))  # a writer at work: this process
    out.write_bytes(b'{"kind":"header","meta":"' + b"x" * 200_000 + b'"}\n{"kind":"step"}\n')
    start = time.monotonic()
    _first_step(out, timeout=20.0)
    assert time.monotonic() - start < 10.0
