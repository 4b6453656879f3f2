"""Trajectories of real recorded runs: what they keep, what they drop, and how divergence is explained."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.recording import Recorder, read_run
from inspector.snapshot import first_divergence, from_text, to_text, trajectory


def call(city: str, call_id: str = "c1", name: str = "get_weather") -> Message:
    return Message.assistant("", tool_calls=[ToolCall(call_id, name, f'{{"city": "{city}"}}')])


def record(path: Path, script: list[object], *, max_step: int = 0) -> Path:
    agent = ReActAgent(ScriptedChatModel(script), tools=[get_weather], max_step=max_step)  # type: ignore[arg-type]
    with contextlib.suppress(Exception):
        agent.invoke([Message.user("Weather?")], callbacks=[Recorder(path)])
    return path


def one_round(tmp_path: Path, name: str = "run.jsonl", answer: str = "Sunny.") -> Path:
    return record(tmp_path / name, [call("Paris"), Message.assistant(answer)])


def test_trajectory_text_is_one_line_per_step(tmp_path: Path) -> None:
    text = to_text(read_run(one_round(tmp_path)))
    assert text == (
        "{\n"
        '  "format": "graph-inspector/trajectory",\n'
        '  "version": 1,\n'
        '  "graph": "ReActAgent",\n'
        '  "trigger_mode": "AnyPredecessor",\n'
        '  "max_run_steps": 13,\n'
        '  "status": "ok",\n'
        '  "error": null,\n'
        '  "steps": [\n'
        '    {"index": 0, "nodes": ["chat"], "branches": ["chat -> tools"], '
        '"messages": ["chat: assistant -> get_weather"], '
        '"budget": {"steps_used": 1, "steps_max": 13, "model_calls": 1, "tool_calls": 0}},\n'
        '    {"index": 1, "nodes": ["tools"], "branches": ["tools -> chat"], '
        '"messages": ["tools: tool get_weather"], '
        '"budget": {"steps_used": 2, "steps_max": 13, "model_calls": 1, "tool_calls": 1}},\n'
        '    {"index": 2, "nodes": ["chat"], "branches": ["chat -> end"], "messages": ["chat: assistant"], '
        '"budget": {"steps_used": 3, "steps_max": 13, "model_calls": 2, "tool_calls": 1}}\n'
        "  ]\n"
        "}\n"
    )
    assert from_text(text) == trajectory(read_run(tmp_path / "run.jsonl"))


def test_byte_stable_across_runs_and_ignores_text_ids_and_times(tmp_path: Path) -> None:
    a = one_round(tmp_path, "a.jsonl", answer="Sunny.")
    b = record(
        tmp_path / "b.jsonl", [call("Lyon", call_id="other-id"), Message.assistant("Rain, take a coat.")]
    )
    assert read_run(a).run_id != read_run(b).run_id
    assert to_text(a) == to_text(b)  # paths work as well as `Run`s
    allowed = {"index", "nodes", "branches", "messages", "failed", "budget", "unfinished"}
    assert all(set(step) <= allowed for step in trajectory(a)["steps"])
    assert first_divergence(a, b) is None


def test_divergence_at_a_branch_decision(tmp_path: Path) -> None:
    a = one_round(tmp_path, "a.jsonl")
    b = record(tmp_path / "b.jsonl", [Message.assistant("I will not look it up.")])
    divergence = first_divergence(a, b)
    assert divergence is not None
    assert divergence.step == 0
    assert divergence.describe() == (
        "step 0: different branch decision: expected [chat -> tools], got [chat -> end]"
    )


def test_divergence_in_tool_calls(tmp_path: Path) -> None:
    a = one_round(tmp_path, "a.jsonl")
    two = Message.assistant(
        "", tool_calls=[ToolCall("c1", "get_weather", "{}"), ToolCall("c2", "get_weather", "{}")]
    )
    b = record(tmp_path / "b.jsonl", [two, Message.assistant("ok")])
    divergence = first_divergence(a, b)
    assert divergence is not None
    assert divergence.describe() == (
        "step 0: different messages or tool calls: expected [chat: assistant -> get_weather], "
        "got [chat: assistant -> get_weather, get_weather]"
    )


def test_divergence_in_length_names_the_extra_step(tmp_path: Path) -> None:
    a = one_round(tmp_path, "a.jsonl")
    b = record(tmp_path / "b.jsonl", [call("Paris"), call("Lyon", "c2"), Message.assistant("ok")])
    divergence = first_divergence(a, b)
    assert divergence is not None
    # Step 2 is where they part: the recording answers, the new run calls a tool again.
    assert divergence.step == 2
    assert divergence.what == "different branch decision"


def test_budget_divergence_lists_only_the_fields_that_differ(tmp_path: Path) -> None:
    a = one_round(tmp_path, "a.jsonl")
    b = record(tmp_path / "b.jsonl", [call("Paris"), Message.assistant("ok")], max_step=20)
    divergence = first_divergence(a, b)
    assert divergence is not None
    assert divergence.describe() == "max_run_steps: expected 13, got 20"
    ta, tb = trajectory(a), trajectory(b)
    tb["max_run_steps"] = ta["max_run_steps"]
    divergence = first_divergence(ta, tb)
    assert divergence is not None
    assert divergence.describe() == "step 0: different budget: expected steps_max=13, got steps_max=20"


def test_failed_run_keeps_error_type_and_failed_node(tmp_path: Path) -> None:
    path = record(tmp_path / "e.jsonl", [call("Paris"), RuntimeError("model down at 12:03:44")])
    data = trajectory(path)
    assert data["status"] == "error"
    assert data["error"] == {"type": "NodeRunError", "node_path": "chat"}
    assert data["steps"][-1]["failed"] == ["chat: RuntimeError"]
    assert "12:03:44" not in to_text(path)  # error messages are not part of the trajectory


def test_from_text_rejects_other_documents() -> None:
    with pytest.raises(ValueError, match="not a trajectory document"):
        from_text('{"format": "something-else"}')
