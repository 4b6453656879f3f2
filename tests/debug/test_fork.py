"""Forks from a recorded step: exact rebuild, edits, model answers, refusals that write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fixtures.weather as weather
from graph_core.schema import Message
from inspector.debug.fork import parse_model_answer, parse_sets, plan_fork, run_fork
from inspector.errors import DebugError
from inspector.recording import read_run
from inspector.rundiff import diff_runs
from tests.debug.conftest import controller_for, lines_of

RUNAWAY = Path("fixtures/runs/runaway.jsonl")
STOP = '{"role": "assistant", "content": "It stopped raining; no need to check again."}'


def test_fork_the_runaway_at_step_4_with_an_answer_that_ends_the_loop(tmp_path: Path) -> None:
    out = tmp_path / "fork.jsonl"
    result = run_fork(plan_fork(RUNAWAY, 4, model_answer=parse_model_answer(STOP)), out)
    parent, fork = read_run(RUNAWAY), read_run(out)
    assert (parent.status, len(parent.steps)) == ("error", 13)
    assert (result.status, fork.status, len(fork.steps)) == ("ok", "ok", 5)
    assert fork.output == {"role": "assistant", "content": "It stopped raining; no need to check again."}
    assert [s.nodes for s in fork.steps] == [s.nodes for s in parent.steps[:5]]
    assert [s.budget.steps_used for s in fork.steps] == [1, 2, 3, 4, 5]
    assert fork.header.meta["fork"] == {
        "parent": str(RUNAWAY),
        "parent_run_id": "runaway",
        "step": 4,
        "model_answer": True,
        "scripted_models": ["chat"],  # replayed: were the fork to call it, its script would start over
    }
    assert fork.header.meta["target"] == "fixtures.runaway:agent"
    for i in range(4):  # the replayed steps rebuilt the recorded state exactly
        assert fork.state_at(i) == parent.state_at(i)
    diff = diff_runs(RUNAWAY, out)
    assert diff.fork_step == 4
    assert diff.divergence_text() == "step 4: different branch decision: A [chat -> tools], B [chat -> end]"


def test_steps_before_the_fork_call_no_model(tmp_path: Path) -> None:
    result = run_fork(plan_fork(RUNAWAY, 6), tmp_path / "fork.jsonl")
    # the target's scripted model answers step 6 with its first entry: steps 0..5 never called it
    fork = read_run(tmp_path / "fork.jsonl")
    assert fork.steps[6].node_runs[0].output["content"] == "Still raining, checking again (1)."
    assert result.status == "error" and len(fork.steps) == 13


def test_set_edits_apply_at_the_fork_step_and_are_recorded(tmp_path: Path) -> None:
    out = tmp_path / "fork.jsonl"
    sets = parse_sets(['input.tools.tool_calls[0].arguments="{\\"city\\": \\"Paris\\"}"'])
    result = run_fork(plan_fork(RUNAWAY, 3, sets=sets), out)
    assert [e.path for e in result.edits] == ["input.tools.tool_calls[0].arguments"]
    (line,) = lines_of(out, "edit")
    assert json.loads(line)["step"] == 3 and json.loads(line)["new"] == '{"city": "Paris"}'
    fork = read_run(out)
    assert fork.steps[3].node_runs[0].tools[0].output == "Paris: clear, 20°C"
    assert diff_runs(RUNAWAY, out).first_divergence.index == 3  # type: ignore[union-attr]


def test_fork_at_step_0_reruns_everything_live(tmp_path: Path) -> None:
    out = tmp_path / "fork.jsonl"
    run_fork(plan_fork(RUNAWAY, 0, model_answer=Message.assistant("Done.")), out)
    fork = read_run(out)
    assert fork.status == "ok" and [s.nodes for s in fork.steps] == [("chat",)]


def test_a_step_outside_the_run_is_refused() -> None:
    with pytest.raises(DebugError, match=r"step 13 is outside the run .*runaway.jsonl: it has steps 0\.\.12"):
        plan_fork(RUNAWAY, 13)
    with pytest.raises(DebugError, match="step -14 is outside the run"):
        plan_fork(RUNAWAY, -14)


def test_a_negative_step_counts_from_the_end_as_in_replay() -> None:
    assert plan_fork(RUNAWAY, -1).step == 12
    assert plan_fork(RUNAWAY, -13).step == 0


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("state.nope=1", r"path `state.nope`: `state` has no field `nope`"),
        ('state.messages[40].content="x"', r"`state.messages` has \d+ items .* no \[40\]"),
        ("state.messages[0].content=5", "messages.0.content: Input should be a valid string"),
    ],
)
def test_a_bad_path_or_value_is_refused_and_nothing_is_written(
    tmp_path: Path, item: str, message: str
) -> None:
    out = tmp_path / "fork.jsonl"
    with pytest.raises(DebugError, match=message):
        run_fork(plan_fork(RUNAWAY, 4, sets=parse_sets([item])), out)
    assert list(tmp_path.iterdir()) == []


def test_set_syntax_and_model_answers_are_checked_before_running() -> None:
    with pytest.raises(DebugError, match="write PATH=JSON"):
        parse_sets(["state.messages"])
    with pytest.raises(DebugError, match="the value is not valid JSON"):
        parse_sets(["state.x=Paris"])
    with pytest.raises(DebugError, match="must be an assistant message"):
        parse_model_answer('{"role": "user", "content": "hi"}')
    with pytest.raises(DebugError, match="not a valid message: tool_calls"):
        parse_model_answer('{"role": "assistant", "tool_calls": 3}')


def test_a_target_whose_topology_changed_is_refused_naming_the_difference(tmp_path: Path) -> None:
    changed = tmp_path / "changed.py"
    changed.write_text(
        "from fixtures.runaway import script\n"
        "from fixtures.weather import get_weather\n"
        "from graph_core.agents.react import ReActAgent\n"
        "from graph_core.models import ScriptedChatModel\n"
        "agent = ReActAgent(ScriptedChatModel(script()), tools=[get_weather], max_step=20)\n"
    )
    with pytest.raises(DebugError, match=r"topology mismatch: budget max_run_steps changed: 13 -> 20"):
        plan_fork(RUNAWAY, 4, target=f"{changed}:agent")


def test_a_rebuilt_state_that_differs_from_the_recording_is_refused(tmp_path: Path) -> None:
    edited = tmp_path / "edited.jsonl"
    lines = RUNAWAY.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])  # another question as the run's input: the replay cannot match the state
    header["input"] = [{"role": "user", "content": "Something else."}]
    lines[0] = json.dumps(header, separators=(",", ":")) + "\n"
    edited.write_text("".join(lines))
    with pytest.raises(
        DebugError, match=r"does not match the recording after step 0: state\.messages\[0\]\.content"
    ):
        run_fork(plan_fork(edited, 4), tmp_path / "fork.jsonl")
    assert not (tmp_path / "fork.jsonl").exists()


def test_a_recording_without_its_target_needs_one(tmp_path: Path) -> None:
    bare = tmp_path / "bare.jsonl"
    lines = RUNAWAY.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["meta"] = {}
    lines[0] = json.dumps(header, separators=(",", ":")) + "\n"
    bare.write_text("".join(lines))
    with pytest.raises(DebugError, match=r"does not name its TARGET .* pass --target"):
        plan_fork(bare, 4)
    assert plan_fork(bare, 4, target="fixtures.runaway:agent").step == 4


def test_an_adk_agent_whose_model_node_writes_the_state_forks_too(tmp_path: Path) -> None:
    out = tmp_path / "fork.jsonl"
    answer = Message.assistant("Take the early flight.")
    run_fork(plan_fork("fixtures/runs/adk.jsonl", 6, model_answer=answer), out)
    parent, fork = read_run("fixtures/runs/adk.jsonl"), read_run(out)
    # Init (step 0), the model node (step 1) and AfterToolCalls (step 4) append to the state themselves
    # and did not run: the states recorded after them lack those items, and the state is restored from
    # the recording at the next boundary, so the other steps, and the state step 6 starts from, match
    assert len(fork.state_at(1)["messages"]) == len(parent.state_at(1)["messages"]) - 1
    for i in (2, 3, 5):
        assert fork.state_at(i) == parent.state_at(i)
    assert fork.status == "ok" and fork.steps[6].node_runs[0].output["content"] == "Take the early flight."
    assert diff_runs("fixtures/runs/adk.jsonl", out).first_divergence.index == 6  # type: ignore[union-attr]


def test_a_recording_made_before_the_state_type_gained_a_field_forks(tmp_path: Path) -> None:
    """`adk_before_run_local_values.jsonl` is the ADK fixture as recorded before `AdkState` gained `extra`
    (run-local values): its states are read through today's type, the new field at its default."""
    old = Path(__file__).parent / "recordings" / "adk_before_run_local_values.jsonl"
    out = tmp_path / "fork.jsonl"
    run_fork(plan_fork(old, 6, model_answer=Message.assistant("Take the early flight.")), out)
    parent, fork = read_run(old), read_run(out)
    assert "extra" not in parent.state_at(2) and fork.state_at(2)["extra"] == {}
    for i in (2, 3, 5):
        assert fork.state_at(i) == parent.state_at(i) | {"extra": {}}
    assert fork.status == "ok" and fork.steps[6].node_runs[0].output["content"] == "Take the early flight."


def test_a_stream_mode_recording_forks_in_stream_mode(tmp_path: Path) -> None:
    out = tmp_path / "fork.jsonl"
    run_fork(plan_fork("fixtures/runs/streaming_pitfall.jsonl", 0), out)
    fork = read_run(out)
    assert fork.header.meta["mode"] == "stream"
    assert [s.nodes for s in fork.steps] == [("chat",)]  # the pitfall again: text first, tool calls never run


def edited_weather_run(path: Path) -> Path:
    """The weather agent under the debugger: held before `tools`, its call edited to Paris, continued."""
    controller = controller_for(weather, path, breakpoints=["tools"])
    controller.start()
    controller.wait()
    controller.edit("input.tools.tool_calls[0].arguments", '{"city": "Paris"}')
    controller.resume()
    controller.join(10)
    assert controller.outcome == "ok"
    return path


@pytest.mark.parametrize("step", [0, 1, 2])
def test_every_step_of_a_run_edited_under_the_debugger_can_be_forked(tmp_path: Path, step: int) -> None:
    live = edited_weather_run(tmp_path / "live.jsonl")
    out = tmp_path / "fork.jsonl"
    answer = parse_model_answer('{"role": "assistant", "content": "Paris is clear."}')
    result = run_fork(plan_fork(live, step, model_answer=answer), out)
    fork = read_run(out)
    assert fork.status == "ok" and fork.output == {"role": "assistant", "content": "Paris is clear."}
    # the recorded edit (before step 1) is applied again when the fork rebuilds or runs through step 1
    assert result.replayed_edits == (1 if step >= 1 else 0)
    assert len(lines_of(out, "edit")) == result.replayed_edits
    if step == 2:
        assert fork.state_at(1) == read_run(live).state_at(1)
        assert fork.steps[1].node_runs[0].output[0]["content"] == "Paris: clear, 20°C"


def test_a_recorded_edit_that_no_longer_applies_is_named(tmp_path: Path) -> None:
    live = edited_weather_run(tmp_path / "live.jsonl")
    text = live.read_text().replace('"path":"input.tools.tool_calls[0].arguments"', '"path":"input.tools.x"')
    live.write_text(text)
    with pytest.raises(
        DebugError, match=r"the edit recorded before step 1 \(`input.tools.x`\) cannot be replayed"
    ):
        run_fork(plan_fork(live, 2), tmp_path / "fork.jsonl")


def test_a_state_mismatch_does_not_claim_the_target_changed_when_edits_explain_it(tmp_path: Path) -> None:
    live = edited_weather_run(tmp_path / "live.jsonl")
    # without the edit line the replay cannot rebuild Paris: the message names the replayed steps
    live.write_text(
        "".join(line for line in live.read_text().splitlines(keepends=True) if '"kind":"edit"' not in line)
    )
    with pytest.raises(DebugError) as caught:
        run_fork(plan_fork(live, 2), tmp_path / "fork.jsonl")
    assert "recorded outputs of steps 0..1 were replayed" in str(caught.value)
    assert "behaviour changed" not in str(caught.value)


def test_a_fork_carries_the_parents_counters_so_diff_shows_no_replay_artefacts(tmp_path: Path) -> None:
    out = tmp_path / "fork.jsonl"
    run_fork(plan_fork(RUNAWAY, 4, model_answer=parse_model_answer(STOP)), out)
    parent, fork = read_run(RUNAWAY), read_run(out)
    for i in range(4):  # the replayed steps called no tool, yet count as the parent counted
        assert fork.steps[i].budget == parent.steps[i].budget
    assert fork.steps[4].budget.tool_calls == parent.steps[3].budget.tool_calls == 2
    (step,) = (s for s in diff_runs(RUNAWAY, out).steps if s.index == 4)
    assert "tool_calls" not in [delta.field for delta in step.budget]


def test_show_marks_where_a_forks_scripted_model_started_its_script_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.cli import main

    parent = edited_weather_run(tmp_path / "live.jsonl")
    fresh = tmp_path / "fresh_weather.py"  # a target loaded afresh: its script has not been used yet
    fresh.write_text("from fixtures.weather import build_agent\nagent = build_agent()\n")
    out = tmp_path / "fork.jsonl"
    run_fork(plan_fork(parent, 2, target=f"{fresh}:agent"), out)
    assert read_run(out).header.meta["fork"]["scripted_models"] == ["chat"]
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = [i for i, line in enumerate(lines) if "started its script over" in line]
    assert len(marked) == 1  # the fork's first live call of the model, in step 2
    assert lines[marked[0] - 2].startswith("step 2  chat")
    # the script's first entry asks for Hangzhou's weather again, though the run had moved on to Paris
    assert lines[marked[0] - 1] == '    chat said: assistant: -> get_weather({"city": "Hangzhou"})'
