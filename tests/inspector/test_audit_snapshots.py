"""Defects found by a fresh-eyes audit of snapshots, replays and run diffs, one test (or a few) each."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.weather import QUESTION, build_agent
from graph_core.schema import Message
from inspector.recording import Recorder
from inspector.snapshot import replay_tools_from_run


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "recorded.jsonl"
    build_agent().invoke([Message.user(QUESTION)], callbacks=[Recorder(path)])
    return path


def test_replay_tools_for_an_agent_that_now_has_no_tools_are_none(recorded: Path) -> None:
    # The agent's tool list became empty: passing it must not bring the recorded tools back, or the
    # replay would hide exactly the change it exists to catch.
    assert replay_tools_from_run(recorded, []) == []
    assert replay_tools_from_run(recorded, ()) == []
    assert [t.info.name for t in replay_tools_from_run(recorded)] == ["get_weather"]
    assert [t.info.name for t in replay_tools_from_run(recorded, None)] == ["get_weather"]
