"""`diff_runs` on runs recorded in the test from scripted agents that differ at a known step."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.recording import Recorder, read_run
from inspector.rundiff import BudgetDelta, diff_runs


def call(city: str, call_id: str = "c1") -> Message:
    return Message.assistant("", tool_calls=[ToolCall(call_id, "get_weather", f'{{"city": "{city}"}}')])


def record(path: Path, script: list[Message | BaseException], *, max_step: int = 0) -> Path:
    agent = ReActAgent(ScriptedChatModel(script), tools=[get_weather], max_step=max_step)
    with contextlib.suppress(Exception):
        agent.invoke([Message.user("Weather in Paris?")], callbacks=[Recorder(path)])
    return path


def baseline(tmp_path: Path, name: str = "a.jsonl") -> Path:
    return record(tmp_path / name, [call("Paris"), Message.assistant("Sunny.")])


def test_two_recordings_of_the_same_behaviour_are_equivalent(tmp_path: Path) -> None:
    diff = diff_runs(baseline(tmp_path, "a.jsonl"), baseline(tmp_path, "b.jsonl"))
    assert diff.equivalent
    assert diff.first_divergence is None and diff.divergence_text() is None
    assert diff.steps == [] and diff.final_budget == []
    assert diff.to_text().endswith("first divergence: none\nresult: equivalent\n")


def test_extra_tool_round_diverges_at_step_2_branch(tmp_path: Path) -> None:
    a = baseline(tmp_path)
    b = record(tmp_path / "b.jsonl", [call("Paris"), call("Lyon", "c2"), Message.assistant("ok")])
    diff = diff_runs(a, b)
    assert not diff.equivalent
    assert diff.length == (3, 5)
    first = diff.first_divergence
    assert first is not None and first.index == 2
    assert first.nodes is None  # the same node ran; its decision differs
    assert first.branches == (["chat -> end"], ["chat -> tools"])
    assert first.tool_calls == ([], ['chat requested get_weather({"city": "Lyon"})'])
    assert diff.divergence_text() == "step 2: different branch decision: A [chat -> end], B [chat -> tools]"
    assert BudgetDelta("steps_used", 3, 5) in diff.final_budget
    assert BudgetDelta("model_calls", 2, 3) in diff.final_budget
    assert not diff.output_equal


def test_different_tool_arguments_diverge_at_step_0_with_state_differences_after(tmp_path: Path) -> None:
    a = baseline(tmp_path)
    b = record(tmp_path / "b.jsonl", [call("Lyon"), Message.assistant("Sunny.")])
    diff = diff_runs(a, b)
    assert diff.divergence_text() == (
        'step 0: different tool calls: A [chat requested get_weather({"city": "Paris"})], '
        'B [chat requested get_weather({"city": "Lyon"})]'
    )
    by_index = {s.index: s for s in diff.steps}
    assert by_index[1].tool_calls == (
        ['tools ran get_weather({"city": "Paris"})'],
        ['tools ran get_weather({"city": "Lyon"})'],
    )
    paths = {c.path_text for c in by_index[2].state}
    assert paths == {"messages[1].tool_calls[0].arguments", "messages[2].content"}
    assert diff.topology_changes == []


def test_budget_change_shows_as_topology_note_and_deltas(tmp_path: Path) -> None:
    a = baseline(tmp_path)
    b = record(tmp_path / "b.jsonl", [call("Paris"), Message.assistant("Sunny.")], max_step=20)
    diff = diff_runs(read_run(a), read_run(b))
    assert [c.describe() for c in diff.topology_changes] == ["budget max_run_steps changed: 13 -> 20"]
    assert diff.first_divergence is None  # same path through the graph
    assert not diff.equivalent
    assert diff.steps[0].budget == [BudgetDelta("steps_max", 13, 20), BudgetDelta("steps_remaining", 12, 19)]
    assert diff.steps[0].budget[0].describe() == "steps_max 13 -> 20 (+7)"
    text = diff.to_text()
    assert "topology: the runs come from different topologies (1 change)" in text
    assert "  - budget max_run_steps changed: 13 -> 20" in text


def test_failed_run_is_shorter_and_errors_are_compared(tmp_path: Path) -> None:
    a = baseline(tmp_path)
    b = record(tmp_path / "b.jsonl", [call("Paris"), RuntimeError("model down")])
    diff = diff_runs(a, b)
    assert diff.status == ("ok", "error")
    assert diff.error == (None, "NodeRunError at chat")
    assert not diff.equivalent
    assert "error: A none, B NodeRunError at chat" in diff.to_text()


def test_json_form_is_serialisable_and_complete(tmp_path: Path) -> None:
    a = baseline(tmp_path)
    b = record(tmp_path / "b.jsonl", [call("Paris"), call("Lyon", "c2"), Message.assistant("ok")])
    data = json.loads(json.dumps(diff_runs(a, b).to_dict()))
    assert data["equivalent"] is False
    assert data["first_divergence"] == {
        "step": 2,
        "description": "step 2: different branch decision: A [chat -> end], B [chat -> tools]",
    }
    assert data["steps"] == {"a": 3, "b": 5}
    assert data["step_differences"][0]["branches"] == {"a": ["chat -> end"], "b": ["chat -> tools"]}
    assert {"field": "steps_used", "a": 3, "b": 5, "delta": 2} in data["final_budget"]
