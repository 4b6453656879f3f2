"""`inspector diff`: output and exit status (0 equivalent, 1 different, 2 bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.cli import main
from inspector.recording import Recorder


def record(path: Path, cities: list[str]) -> str:
    script = [
        Message.assistant("", tool_calls=[ToolCall(f"c{i}", "get_weather", f'{{"city": "{c}"}}')])
        for i, c in enumerate(cities)
    ]
    agent = ReActAgent(ScriptedChatModel([*script, Message.assistant("Done.")]), tools=[get_weather])
    agent.invoke([Message.user("Weather?")], callbacks=[Recorder(path)])
    return str(path)


def test_equivalent_runs_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = record(tmp_path / "a.jsonl", ["Paris"])
    b = record(tmp_path / "b.jsonl", ["Paris"])
    assert main(["diff", a, b]) == 0
    out = capsys.readouterr().out
    assert "result: equivalent" in out


def test_different_runs_exit_1_and_name_the_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = record(tmp_path / "a.jsonl", ["Paris"])
    b = record(tmp_path / "b.jsonl", ["Paris", "Lyon"])
    assert main(["diff", a, b]) == 1
    out = capsys.readouterr().out
    assert "first divergence: step 2: different branch decision: A [chat -> end], B [chat -> tools]" in out
    assert "result: the runs differ" in out


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = record(tmp_path / "a.jsonl", ["Paris"])
    b = record(tmp_path / "b.jsonl", ["Lyon"])
    assert main(["diff", a, b, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["first_divergence"]["step"] == 0
    assert data["topology"] == {"same": True, "known": True, "changes": []}


def test_bad_input_exits_2_with_one_paragraph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = record(tmp_path / "a.jsonl", ["Paris"])
    not_a_run = tmp_path / "notes.txt"
    not_a_run.write_text("hello\n")
    assert main(["diff", a, str(tmp_path / "missing.jsonl")]) == 2
    assert main(["diff", a, str(not_a_run)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = " ".join(captured.err.split())
    assert "missing.jsonl: no such file" in err
    assert "notes.txt:1: the first line is not JSON" in err
    assert "Traceback" not in err


def test_console_script_exit_status(tmp_path: Path) -> None:
    import subprocess
    import sys

    a = record(tmp_path / "a.jsonl", ["Paris"])
    b = record(tmp_path / "b.jsonl", ["Lyon"])
    result = subprocess.run([sys.executable, "-m", "inspector", "diff", a, b], capture_output=True, text=True)
    assert result.returncode == 1
    assert "first divergence: step 0" in result.stdout
