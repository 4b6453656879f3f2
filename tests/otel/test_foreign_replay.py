"""Other frameworks' traces in the replay TUI, in a real terminal (tmux): the OpenAI Agents SDK run and
the LangGraph run (`tests/otel/foreign.py`) open as observed runs, their steps in the timeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.otel.foreign import agents_sdk_trace, langgraph_trace
from tests.terminal import Terminal


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("make", "title", "row"),
    [
        (agents_sdk_trace, "Agent workflow (observed)", "1  Weather agent"),
        (langgraph_trace, "LangGraph (observed)", "1  tools"),
    ],
    ids=["openai-agents-sdk", "langgraph"],
)
def test_replay_opens_a_foreign_trace(
    make: object, title: str, row: str, terminal: Terminal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
    assert callable(make)
    trace = make(tmp_path / "trace.json")
    terminal.start("-m", "inspector", "replay", str(trace))
    screen = terminal.wait_for(row)
    assert title in screen.splitlines()[0]
    terminal.keys("q")
