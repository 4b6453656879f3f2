"""The pytest plugin's `--inspector-report-dir`: a failing snapshot leaves pages a reviewer can open,
named in the failure. Run as a user's CI runs it: pytest in a subprocess, on a project of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROJECT = """
import os

from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.recording import Recorder, read_run

CALLS = int(os.environ.get("CALLS", "1"))
CALL = '{"city": "Paris"}'
SCRIPT = [Message.assistant(tool_calls=[ToolCall(f"c{i}", "get_weather", CALL)]) for i in range(CALLS)]
SCRIPT.append(Message.assistant("done"))


def test_behaviour(trajectory_snapshot, tmp_path):
    agent = ReActAgent(ScriptedChatModel(SCRIPT), tools=[get_weather])
    agent.invoke([Message.user("Weather in Paris?")], callbacks=[Recorder(tmp_path / "run.jsonl")])
    assert trajectory_snapshot == read_run(tmp_path / "run.jsonl")


def test_shape(topology_snapshot):
    assert topology_snapshot == ReActAgent(ScriptedChatModel(SCRIPT), tools=[get_weather] * (CALLS == 1))
"""


def _pytest(project: Path, *args: str, calls: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CALLS": str(calls)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=project, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


@pytest.mark.timeout(600)  # three inner pytest runs and a browser: minutes on a loaded machine
def test_failing_snapshots_leave_pages_named_in_the_failure(tmp_path: Path, open_page: Any) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_agent.py").write_text(PROJECT, encoding="utf-8")
    assert _pytest(project, "--snapshot-update", calls=1).returncode == 0
    passing = _pytest(project, "--inspector-report-dir", "pages", calls=1)
    assert passing.returncode == 0 and not (project / "pages").exists()  # pages only for failures

    failing = _pytest(project, "--inspector-report-dir", "pages", calls=2)
    assert failing.returncode == 1
    named = set(re.findall(r"(/\S+\.html)", failing.stdout))
    pages = project / "pages"
    assert named == {
        str(pages / "test_agent.py_test_behaviour.run.html"),
        str(pages / "test_agent.py_test_behaviour.diff.html"),
        str(pages / "test_agent.py_test_shape.topology.html"),
    }
    diff = open_page(pages / "test_agent.py_test_behaviour.diff.html")
    assert "step 2: different branch decision" in diff.locator(".divergence").inner_text()
    assert diff.locator("tr.divergent").count() == 2  # the stored and the received step 2
    run = open_page(pages / "test_agent.py_test_behaviour.run.html")
    assert run.locator("#timeline tbody tr").count() == 5
    topology = open_page(pages / "test_agent.py_test_shape.topology.html")
    assert "tool removed: get_weather" in topology.locator("header").inner_text()
    assert topology.locator("svg").count() == 2


@pytest.mark.timeout(600)  # two inner pytest runs: over the default 120 s on a loaded machine
def test_without_the_option_no_page_is_written(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_agent.py").write_text(PROJECT, encoding="utf-8")
    _pytest(project, "--snapshot-update", calls=1)
    failing = _pytest(project, calls=2)
    assert failing.returncode == 1
    assert "inspector report:" not in failing.stdout
    assert sorted(p.name for p in project.iterdir() if p.suffix == ".html") == []
