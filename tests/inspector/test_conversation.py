"""The conversation as a person reads it: every message attributed to the node and step that produced
it (the model's tool call to `chat`, not to the `tools` step whose pre-handler files it into the state),
the final answer (the run's output, never in the state) included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph_core.agents.react import ReActAgent
from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.cli import main
from inspector.conversation import Conversation
from inspector.recording import Recorder, read_run
from inspector.recording.synthetic import ReactState, react_topology, simulate_react

WEATHER = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"
APPROVAL = Path(__file__).parents[2] / "fixtures" / "runs" / "approval.jsonl"


def _who(said: list) -> list[tuple[str, int | None, int | None, bool]]:  # pyright: ignore[reportMissingTypeArgument, reportUnknownParameterType]
    return [(s.origin, s.position, s.state_index, s.final) for s in said]  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType]


def test_each_message_is_attributed_to_the_step_that_said_it() -> None:
    conversation = Conversation(read_run(WEATHER))
    # Step 0: chat answered with a tool call; the state does not hold it yet.
    assert _who(conversation.at(0)) == [("input", None, 0, False), ("chat", 0, None, False)]
    # Step 1: the tools pre-handler filed the call as messages[1]; it is still chat's, from step 0.
    assert _who(conversation.at(1)) == [
        ("input", None, 0, False),
        ("chat", 0, 1, False),
        ("tools", 1, None, False),
    ]
    # Step 2: the final answer is the run's output, in no state.
    said = conversation.at(2)
    assert _who(said) == [
        ("input", None, 0, False),
        ("chat", 0, 1, False),
        ("tools", 1, 2, False),
        ("chat", 2, None, True),
    ]
    assert said[-1].message["content"].startswith("It is raining lightly in Hangzhou")
    assert conversation.said_by(said[1].message, 2) == (0, "chat")


def test_messages_a_state_handler_added_are_attributed_to_the_step_that_first_held_them() -> None:
    # approval.jsonl: `draft` files the request and its draft into the state; the resumed `approve` adds
    # "Approved." (two segments; no node produced these messages as output, and the input is a string).
    run = read_run(APPROVAL)
    said = Conversation(run).at(len(run.steps) - 1)
    assert [(s.origin, s.position, s.node, s.state_index) for s in said] == [
        ("state", 0, "draft", 0),
        ("state", 0, "draft", 1),
        ("state", 2, "approve", 2),
    ]


def test_show_lists_the_conversation_with_who_said_what(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(WEATHER)]) == 0
    out = capsys.readouterr().out
    block = out[out.index("conversation (who said what, in reading order):") :].splitlines()
    assert block[1].startswith("  input         user: What's the weather in Hangzhou?")
    assert block[2] == '  step 0 chat   assistant: -> get_weather({"city": "Hangzhou"})'
    assert block[3].startswith("  step 1 tools  tool: Hangzhou: light rain")
    assert block[4].startswith("  step 2 chat   assistant: It is raining lightly")
    assert block[4].endswith("(final answer: the run's output)")
    step1 = out[out.index("step 1  tools") : out.index("step 2  chat")]
    assert "said by chat in step 0" in step1 and "tools said" not in step1


def test_show_json_carries_the_conversation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(WEATHER), "--json"]) == 0
    conversation = json.loads(capsys.readouterr().out)["conversation"]
    assert [(c["origin"], c["position"], c["final"]) for c in conversation] == [
        ("input", None, False),
        ("chat", 0, False),
        ("tools", 1, False),
        ("chat", 2, True),
    ]


def test_the_newest_messages_alone_match_the_whole_conversations_tail(tmp_path: Path) -> None:
    """`at(last=k)` reads only recent steps, and says the same as the whole conversation's last k."""
    path = tmp_path / "long.jsonl"
    recorder = Recorder(path, topology=react_topology(), clock=lambda: 0.0, run_id="long")
    simulate_react(recorder, 40)
    recorder.close()
    run = read_run(path)
    for position in (len(run.steps) - 1, len(run.steps) // 2, 3):
        whole = Conversation(run).at(position)
        for last in (1, 5, 30):
            assert Conversation(run).at(position, last=last) == whole[-last:]
    assert Conversation(run).at(len(run.steps) - 1, last=0) == []


def test_a_conversation_read_to_the_end_says_the_same_at_every_earlier_step() -> None:
    """The index of producers is kept as far as it was built: asked for an earlier step afterwards (a
    TUI moving back), it counts only the producers up to that step, as a fresh conversation does."""
    for path in (WEATHER, APPROVAL):
        run = read_run(path)
        ahead = Conversation(run)
        ahead.at(len(run.steps) - 1)
        for position in range(len(run.steps)):
            said = Conversation(run).at(position)
            assert ahead.at(position) == said
            fresh = Conversation(run)
            for s in said:
                assert ahead.said_by(s.message, position) == fresh.said_by(s.message, position)


def test_a_message_said_again_later_is_not_credited_to_the_later_step_when_reading_back(
    tmp_path: Path,
) -> None:
    """A model says "ok" at steps 0 and 2; at step 1 a handler files a second "ok" into the state. Read to
    the end first, the conversation at step 1 still finds no producer for that second copy up to step 1
    (the state holds it from step 1), as a conversation read only that far does."""
    path = tmp_path / "again.jsonl"
    recorder = Recorder(path, topology=react_topology(), clock=lambda: 0.0, run_id="again")
    state = ReactState()
    graph = RunInfo(node_key=None, name="ReActAgent", kind="Graph", graph_name="ReActAgent")
    recorder.on_start(graph, [])
    for step in range(3):
        node = "tools" if step == 1 else "chat"
        recorder.on_step_start(StepInfo(index=step, nodes=(node,), budget=Budget.of(step, 9)))
        info = RunInfo(node_key=node, name=node, kind="Lambda", path=(node,), step=step)
        recorder.on_start(info, None)
        said = Message.assistant("ok")
        state.messages.append(said)
        recorder.on_end(info, said if node == "chat" else None)
        recorder.on_step_end(StepInfo(index=step, nodes=(node,), budget=Budget.of(step + 1, 9), state=state))
    recorder.on_end(graph, None)
    recorder.close()
    run = read_run(path)
    ahead = Conversation(run)
    ahead.at(2)
    expected = [("chat", 0, 0, False), ("state", 1, 1, False)]
    assert _who(ahead.at(1)) == _who(Conversation(run).at(1)) == expected
    assert _who(ahead.at(2)) == _who(Conversation(run).at(2))


def test_a_window_moved_back_and_forth_says_what_the_whole_conversation_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One `Conversation` keeps what recent steps produced and reads back only as far as the window
    needs; moved step by step, jumped, and with its kept steps forgotten, it still says the same as
    the whole conversation's tail (the run's input included, when the window reaches it)."""
    import inspector.conversation as conversation

    monkeypatch.setattr(conversation, "MADE_KEPT", 12)
    path = tmp_path / "long.jsonl"
    recorder = Recorder(path, topology=react_topology(), clock=lambda: 0.0, run_id="long")
    simulate_react(recorder, 40)
    recorder.close()
    run = read_run(path)
    last = len(run.steps) - 1
    kept = Conversation(run)
    for position in (last, last - 1, last - 2, last - 1, 40, 41, 42, 7, 3, 2, last):
        whole = Conversation(run).at(position)
        for window in (10, 4, 30):
            assert kept.at(position, last=window) == whole[-window:], (position, window)
    assert any(said.origin == "input" for said in kept.at(3, last=30))
    monkeypatch.setattr(conversation, "MADE_KEPT", 1_000)
    fresh = Conversation(run)
    fresh.at(last, last=10)
    read = sorted(fresh._made)  # pyright: ignore[reportPrivateUsage]
    assert read == list(range(read[0], last + 1)) and len(read) <= 12  # back ~10 steps, not all 40


def test_a_graph_a_tool_runs_is_a_conversation_of_its_own(tmp_path: Path) -> None:
    # The tool invokes another agent; its run is recorded nested under the call (`tools`, `:c1`), and
    # what its model said reaches the outer conversation only as the tool's result.
    inner = ReActAgent(ScriptedChatModel([Message.assistant("Inner says rain.")], cycle=True), tools=[])

    @tool
    def ask_inner(question: str) -> str:
        """Ask the inner agent."""
        return inner.invoke([Message.user(question)]).content

    call = ToolCall("c1", "ask_inner", '{"question": "rain?"}')
    script = [Message.assistant("", tool_calls=[call]), Message.assistant("Take an umbrella.")]
    outer = ReActAgent(ScriptedChatModel(script), tools=[ask_inner])
    outer.invoke([Message.user("Umbrella?")], callbacks=[Recorder(tmp_path / "run.jsonl")])
    run = read_run(tmp_path / "run.jsonl")
    assert [tuple(r.path) for r in run.steps[1].nested] == [("tools", ":c1")]
    said = Conversation(run).at(len(run.steps) - 1)
    assert [(s.origin, s.message["role"], s.message.get("content")) for s in said] == [
        ("input", "user", "Umbrella?"),
        ("chat", "assistant", None),  # the call, without text
        ("tools", "tool", "Inner says rain."),
        ("chat", "assistant", "Take an umbrella."),
    ]
