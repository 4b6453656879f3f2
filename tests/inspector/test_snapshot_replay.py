"""Replaying an agent from a run file: recorded model answers and tool results, no LLM, no real tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.weather import QUESTION, build_agent, get_weather
from graph_core import get_resume_data, interrupt
from graph_core.agents.react import ReActAgent
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import was_interrupted
from graph_core.models import ScriptedChatModel
from graph_core.models.replay import ReplayChatModel, ReplayExhaustedError
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import tool
from inspector.recording import Recorder, read_run
from inspector.rundiff import diff_runs
from inspector.snapshot import first_divergence, replay_model_from_run, replay_tools_from_run, to_text
from inspector.snapshot.replay import ToolReplayError


# Stands in for a tool that must not be called during a replay (a paid API, say). Its description is the
# real tool's: the topology records descriptions, and a replay runs the same graph.
@tool(name="get_weather")
def broken_weather(city: str) -> str:
    """Get today's weather for a city.

    Args:
        city: The city name, for example "Hangzhou".
    """
    raise AssertionError("the real tool ran during a replay")


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "recorded.jsonl"
    build_agent().invoke([Message.user(QUESTION)], callbacks=[Recorder(path)])
    return path


def test_replay_reproduces_the_recorded_run(recorded: Path, tmp_path: Path) -> None:
    model = replay_model_from_run(recorded)
    assert len(model.answers) == 2
    agent = ReActAgent(model, tools=replay_tools_from_run(recorded, [broken_weather]))
    replayed = tmp_path / "replayed.jsonl"
    output = agent.invoke([Message.user(QUESTION)], callbacks=[Recorder(replayed)])
    assert output.content == read_run(recorded).output["content"]
    assert model.unused == 0
    assert to_text(replayed) == to_text(recorded)
    assert diff_runs(recorded, replayed).equivalent


def test_replay_tools_keep_the_real_tool_descriptions(recorded: Path) -> None:
    (replay,) = replay_tools_from_run(recorded, [get_weather])
    assert replay.info == get_weather.info
    (bare,) = replay_tools_from_run(recorded)
    assert bare.info.name == "get_weather"


def test_behaviour_change_shows_as_divergence_and_unused_answers(recorded: Path, tmp_path: Path) -> None:
    model = replay_model_from_run(recorded)
    changed = ReActAgent(
        model, tools=replay_tools_from_run(recorded, [get_weather]), tool_return_directly={"get_weather"}
    )
    replayed = tmp_path / "replayed.jsonl"
    changed.invoke([Message.user(QUESTION)], callbacks=[Recorder(replayed)])
    assert model.unused == 1  # the agent stopped calling the model early
    divergence = first_divergence(recorded, replayed)
    assert divergence is not None
    assert divergence.describe() == (
        "step 1: different branch decision: expected [tools -> chat], got [tools -> direct_return]"
    )


def test_more_model_calls_than_recorded_is_a_clear_error() -> None:
    model = ReplayChatModel([Message.assistant("only answer")], source="recording r.jsonl")
    model.generate([Message.user("hi")])
    with pytest.raises(
        ReplayExhaustedError, match=r"model call #2, but recording r.jsonl has only 1 model answer"
    ):
        model.generate([Message.user("hi"), Message.assistant("only answer")])


def test_tool_call_not_in_recording_is_a_clear_error(recorded: Path) -> None:
    (replay,) = replay_tools_from_run(recorded, [get_weather])
    assert replay.invoke('{"city": "Hangzhou"}').startswith("Hangzhou: light rain")
    with pytest.raises(
        ToolReplayError, match=r'called with \{"city": "Paris"\} but recording .* has no such call'
    ):
        replay.invoke('{"city": "Paris"}')
    with pytest.raises(ToolReplayError, match="no such call left"):
        replay.invoke('{"city": "Hangzhou"}')  # recorded once, used once
    replay.reset()
    assert replay.invoke('{"city": "Hangzhou"}').startswith("Hangzhou")


def test_tool_bound_copies_share_the_replay_position() -> None:
    model = ReplayChatModel([Message.assistant("a"), Message.assistant("b")])
    bound = model.with_tools([ToolInfo(name="t")])
    assert bound.generate([Message.user("x")]).content == "a"
    assert model.generate([Message.user("x"), Message.assistant("a")]).content == "b"
    assert model.unused == 0 and len(model.calls) == 2


def test_adk_agent_replay_is_equivalent_and_leaves_the_builtin_exit_tool_alone(tmp_path: Path) -> None:
    import fixtures.adk as adk
    from graph_core.agents.adk import ChatModelAgent

    def agent_on(model: object, tools: list[object]) -> ChatModelAgent:
        return ChatModelAgent(name="TripPlanner", model=model, tools=tools, exit=True)

    recorded = tmp_path / "adk.jsonl"
    original = agent_on(ScriptedChatModel(adk.script()), [adk.get_weather, adk.get_flights])
    list(original.run([Message.user(adk.QUESTION)], callbacks=[Recorder(recorded)]))

    tools = replay_tools_from_run(recorded, [adk.get_weather, adk.get_flights])
    assert [t.info.name for t in tools] == ["get_weather", "get_flights"]  # no stand-in for `exit`
    model = replay_model_from_run(recorded)
    replayed = tmp_path / "replayed.jsonl"
    list(agent_on(model, list(tools)).run([Message.user(adk.QUESTION)], callbacks=[Recorder(replayed)]))
    assert model.unused == 0
    assert diff_runs(recorded, replayed).equivalent


@tool(name="send")
def send_after_approval(to: str) -> str:
    """Pauses for a human at the first call; sends on a "yes"."""
    if not was_interrupted():
        interrupt({"question": f"send to {to}?"})
    return f"sent to {to}" if get_resume_data() == "yes" else "cancelled"


def _send_script() -> list[Message]:
    call = ToolCall(id="c1", name="send", arguments='{"to": "team"}')
    return [Message.assistant("", tool_calls=[call]), Message.assistant("sent, as approved")]


def test_interrupted_tool_calls_are_pauses_not_results(tmp_path: Path) -> None:
    """A two-segment recording: `send` interrupts (segment 0), then its resume sends (segment 1). The
    replay answers the call with the resumed segment's result instead of replaying the pause."""
    path = tmp_path / "approval.jsonl"
    agent = ReActAgent(ScriptedChatModel(_send_script()), tools=[send_after_approval])
    compiled = agent.graph.compile(name="ReActAgent", checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        compiled.invoke([Message.user("send it")], checkpoint_id="t1", callbacks=[Recorder(path)])
    compiled.invoke(None, checkpoint_id="t1", resume_data="yes", callbacks=[Recorder(path, resume=True)])
    run = read_run(path)
    assert [(s.segment, s.nodes) for s in run.steps] == [
        (0, ("chat",)),
        (0, ("tools",)),
        (1, ("tools",)),
        (1, ("chat",)),
    ]
    paused = run.steps[1].node_runs[0].tools[0]
    assert paused.error is not None and paused.error.type == "InterruptSignal", (
        "the recording holds the pause"
    )

    (replay,) = replay_tools_from_run(run, [send_after_approval])
    assert replay.invoke('{"to": "team"}') == "sent to team"
    with pytest.raises(ToolReplayError, match="no such call left"):
        replay.invoke('{"to": "team"}')  # one real result, not two

    model = replay_model_from_run(run)
    replayed = ReActAgent(model, tools=replay_tools_from_run(run, [send_after_approval]))
    assert replayed.invoke([Message.user("send it")]).content == "sent, as approved"
    assert model.unused == 0


def test_a_recording_that_stopped_at_the_pause_has_no_result_to_replay(tmp_path: Path) -> None:
    path = tmp_path / "stopped.jsonl"
    agent = ReActAgent(ScriptedChatModel(_send_script()), tools=[send_after_approval])
    compiled = agent.graph.compile(name="ReActAgent", checkpoint_store=InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        compiled.invoke([Message.user("send it")], checkpoint_id="t1", callbacks=[Recorder(path)])
    (replay,) = replay_tools_from_run(path, [send_after_approval])
    with pytest.raises(ToolReplayError, match=r"has no such call left \(recorded arguments: none\)"):
        replay.invoke('{"to": "team"}')
