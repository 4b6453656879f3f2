"""The replay TUI's `f` forks a LangGraph recording as it forks a graph_core one: a model answer typed at
the prompt, the fork beside its parent."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from inspector.recording import read_run
from inspector.tui import make_app
from inspector.tui.fork_screen import ForkScreen

pytestmark = pytest.mark.anyio


async def _until(pilot: Pilot[None], done: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def test_f_forks_the_react_recording_with_a_model_answer(tmp_path: Path) -> None:
    parent = tmp_path / "react.jsonl"
    shutil.copy("fixtures/runs/langgraph_react.jsonl", parent)
    app = make_app(parent)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("g", "2", "enter")
        await _until(pilot, lambda: app.replay.cursor == 2, "the cursor at step 2")
        await pilot.press("f")
        answer = '{"role": "assistant", "content": "Stay in."}'
        await pilot.press(*("space" if ch == " " else ch for ch in answer))
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, ForkScreen), "the fork beside its parent")
        summary = str(app.screen.query_one("#fork-diff").render())
        assert "react.fork-2.jsonl" in summary
    fork = read_run(tmp_path / "react.fork-2.jsonl")
    assert fork.status == "ok" and len(fork.steps) == 3
    assert fork.output["messages"][-1] == {"role": "assistant", "content": "Stay in."}
