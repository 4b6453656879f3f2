"""`inspector replay DB --thread ID`: the screen names the checkpointer and the thread it shows, not the
run file the thread was converted into under the temporary directory."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from inspector.sources import run_file_path
from inspector.sources.langgraph import run_source
from inspector.tui.notes import source_name
from tests.langgraph.graphs import loop
from tests.langgraph.thread_writers import Backend, config
from tests.tui.conftest import SIZE, screen_text


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(cache))


@pytest.mark.anyio
async def test_the_status_line_names_the_checkpointer_and_the_thread(tmp_path: Path) -> None:
    from inspector.tui import make_app

    backend = Backend("sqlite", str(tmp_path / "agents.sqlite"))
    with backend.saver() as saver:
        loop(3).compile(checkpointer=saver).invoke({"n": 0, "log": []}, config("night-shift"))
    source = Path(run_source(backend.location, "night-shift"))
    app = make_app(run_file_path(source))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = screen_text(app).splitlines()[0]
    assert status.split()[:3] == ["agents.sqlite", "--thread", "night-shift"]
    assert source.name not in status


def test_a_run_file_is_named_by_its_file_and_a_postgres_thread_by_its_url() -> None:
    url: Any = {"langgraph_thread": {"location": "postgresql://ann:***@db:5432/app", "thread_id": "t1"}}
    assert source_name("run.jsonl", None) == "run.jsonl"
    assert source_name("run.jsonl", {"other": 1}) == "run.jsonl"
    assert source_name("1a2b.jsonl", url) == "postgresql://ann:***@db:5432/app --thread t1"
