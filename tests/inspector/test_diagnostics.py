"""diagnose(run) on recordings of the fixtures and of small inline agents."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.diagnostics import diagnose
from inspector.recording import Recorder, read_run
from inspector.recording.synthetic import simulate_react


def _record(path: Path, fn: Any) -> Any:
    with contextlib.suppress(Exception):  # failing runs are what some of these tests record
        fn([Recorder(path)])
    return read_run(path)


def test_clean_run_has_no_diagnostics(tmp_path: Path) -> None:
    from fixtures.weather import build_agent

    run = _record(tmp_path / "r.jsonl", lambda cb: build_agent().invoke([Message.user("w")], callbacks=cb))
    assert diagnose(run) == []


def test_runaway_names_the_cycle_and_rounds(tmp_path: Path) -> None:
    from fixtures.runaway import build_agent

    run = _record(tmp_path / "r.jsonl", lambda cb: build_agent().invoke([Message.user("w")], callbacks=cb))
    [d] = diagnose(run)
    assert (d.severity, d.code, d.step) == ("error", "budget-exhausted", 12)
    assert "chat -> tools -> chat" in d.message and "after 6 rounds" in d.message and "13" in d.message
    assert d.nodes == ("chat", "tools", "chat")


def test_adk_max_iterations(tmp_path: Path) -> None:
    from graph_core.agents.adk import ChatModelAgent

    @tool
    def ping(n: int) -> str:
        """Ping."""
        return "pong"

    script = [Message.assistant("", tool_calls=[ToolCall(f"c{i}", "ping", '{"n": 1}')]) for i in range(9)]
    agent = ChatModelAgent(name="looper", model=ScriptedChatModel(script), tools=[ping], max_iterations=3)
    run = _record(tmp_path / "r.jsonl", lambda cb: agent.invoke([Message.user("go")], callbacks=cb))
    [d] = diagnose(run)
    assert d.code == "budget-exhausted" and "max iterations" in d.message and "after 3 rounds" in d.message
    assert d.nodes[0] == d.nodes[-1] == "ChatModel"


def test_first_chunk_pitfall_in_stream_mode(tmp_path: Path) -> None:
    from fixtures.streaming_pitfall import build_agent

    run = _record(
        tmp_path / "r.jsonl", lambda cb: list(build_agent().stream([Message.user("w")], callbacks=cb))
    )
    [d] = diagnose(run)
    assert d.code == "unexecuted-tool-calls" and d.severity == "warning" and d.step == 0
    assert "first-chunk" in d.message and "never ran" in d.message


def test_tool_failure(tmp_path: Path) -> None:
    @tool
    def get_weather(city: str) -> str:
        """Weather."""
        raise RuntimeError("service down")

    model = ScriptedChatModel(
        [Message.assistant("", tool_calls=[ToolCall("c1", "get_weather", '{"city": "x"}')])]
    )
    agent = ReActAgent(model=model, tools=[get_weather])
    run = _record(tmp_path / "r.jsonl", lambda cb: agent.invoke([Message.user("w")], callbacks=cb))
    found = diagnose(run)
    assert [d.code for d in found] == ["tool-failed"]
    assert "get_weather" in found[0].message and "service down" in found[0].message and found[0].step == 1


def test_empty_answer_ends_early(tmp_path: Path) -> None:
    agent = ReActAgent(model=ScriptedChatModel([Message.assistant("")]), tools=[])
    run = _record(tmp_path / "r.jsonl", lambda cb: agent.invoke([Message.user("w")], callbacks=cb))
    [d] = diagnose(run)
    assert d.code == "early-end" and d.step == 0


def test_incomplete_recording(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    simulate_react(Recorder(path), 2)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][:10])
    found = diagnose(read_run(path))
    assert [d.code for d in found] == ["incomplete"]


@pytest.mark.parametrize("max_steps", [3, 4])
def test_cycle_without_topology(tmp_path: Path, max_steps: int) -> None:
    path = tmp_path / "r.jsonl"
    simulate_react(Recorder(path), 5, max_steps=max_steps)  # no topology in the header
    [d] = diagnose(read_run(path))
    assert d.code == "budget-exhausted"
    assert d.nodes in (("chat", "tools", "chat"), ("tools", "chat", "tools"))


FIXTURE_RUNS = sorted((Path(__file__).parents[2] / "fixtures" / "runs").glob("*.jsonl"))


@pytest.mark.parametrize("path", FIXTURE_RUNS, ids=lambda p: p.stem)
def test_findings_fed_by_the_timeline_are_diagnose(path: Path) -> None:
    """`inspector show` hands each step to `Findings` as its timeline reads it, instead of a walk of
    its own: the result is `diagnose`'s, finding for finding."""
    from inspector.cli.show import timeline
    from inspector.diagnostics import Findings

    run = read_run(path)
    findings = Findings(run)
    timeline(run, findings)
    assert findings.finish() == diagnose(read_run(path))


def test_findings_take_every_step_once_in_order() -> None:
    from inspector.diagnostics import Findings

    run = read_run(Path(__file__).parents[2] / "fixtures" / "runs" / "runaway.jsonl")
    findings = Findings(run)
    with pytest.raises(ValueError, match="in order"):
        findings.add(1, run.steps[1])
    findings.add(0, run.steps[0])
    with pytest.raises(ValueError, match="were not added"):
        findings.finish()
