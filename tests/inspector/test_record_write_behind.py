"""Steps written behind the run: the same bytes as written at once, whatever the next steps do.

While some node is slow (`SLOW_NODE_SECONDS`), the Recorder freezes each step and lets a background
thread encode and write it during the slow node's wait. These tests hold that path to the one that
writes each step at once: every fixture, an in-place edit of the history made while a step waits, a
real background thread, and an agent whose model waits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from fixtures.runs import RUNS, record
from graph_core.agents.react import ReActAgent
from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.recording import Recorder, read_run, write_behind
from inspector.recording import recorder as recorder_module
from inspector.recording.encode import Encoder
from inspector.recording.synthetic import react_topology
from tests.helpers import ping

ALWAYS, NEVER = 0.0, float("inf")


@pytest.fixture
def wakes(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The recorders handed to the background thread, which then runs as usual."""
    woken: list[Any] = []
    wake = write_behind.wake

    def counting(owner: Any) -> None:
        woken.append(owner)
        wake(owner)

    monkeypatch.setattr(write_behind, "wake", counting)
    return woken


@pytest.mark.parametrize("fixture", RUNS, ids=lambda f: f.name)
def test_every_fixture_is_the_same_bytes_written_behind_the_run_or_at_once(
    fixture: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wakes: list[Any]
) -> None:
    monkeypatch.setattr(recorder_module, "SLOW_NODE_SECONDS", ALWAYS)  # every node is slow
    behind = record(fixture, tmp_path / "behind.jsonl")
    woken = len(wakes)
    monkeypatch.setattr(recorder_module, "SLOW_NODE_SECONDS", NEVER)
    at_once = record(fixture, tmp_path / "at_once.jsonl")
    assert len(wakes) == woken
    committed = Path(__file__).parents[2] / "fixtures" / "runs" / f"{fixture.name}.jsonl"
    assert behind.read_bytes() == at_once.read_bytes() == committed.read_bytes()


@pytest.mark.parametrize("name", ["runaway", "adk"])
def test_the_looping_fixtures_do_write_behind_the_run(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wakes: list[Any]
) -> None:
    """The comparison above is not vacuous: the loops hand steps to the background thread (the short
    runs end before a slow node runs again, LangGraph's dict states are never the usual step)."""
    monkeypatch.setattr(recorder_module, "SLOW_NODE_SECONDS", ALWAYS)
    (fixture,) = [f for f in RUNS if f.name == name]
    record(fixture, tmp_path / "run.jsonl")
    assert len(wakes) >= 3


class _ChatState(BaseModel):
    messages: list[Message] = Field(default_factory=lambda: [])
    turns: int = 0


def _drive(path: Path, edit: Callable[[list[Message]], None], *, rounds: int = 4) -> None:
    """A ReAct run told to the Recorder by hand (chat, tools, chat, ...), every node slow by its clock.
    A chat step counts a turn (a new value: not the usual step, written at once); a tools step is the
    usual one, handed over. After step 3 (tools) `edit` changes the history in place, as a pre-handler
    of the next step could, while step 3 waits; it is written when step 4 ends."""
    ticks = iter(range(10_000))
    recorder = Recorder(path, topology=react_topology(), clock=lambda: next(ticks) * 0.01, run_id="wb")
    state = _ChatState(messages=[Message.user("go")])
    graph = RunInfo(node_key=None, name="ReActAgent", kind="Graph", graph_name="ReActAgent")
    recorder.on_start(graph, list(state.messages))
    for step in range(2 * rounds):
        node = "chat" if step % 2 == 0 else "tools"
        recorder.on_step_start(StepInfo(step, (node,), Budget.of(step, 99)))
        info = RunInfo(node_key=node, name=node, kind="Lambda", path=(node,), step=step)
        if node == "chat":
            recorder.on_start(info, state.messages)
            said = Message.assistant(f"call {step}", tool_calls=[ToolCall(f"c{step}", "ping", "{}")])
            recorder.on_end(info, said)
            state.messages.append(said)
        else:
            recorder.on_start(info, state.messages[-1])
            answer = [Message.tool(f"pong {step}", tool_call_id=f"c{step - 1}")]
            recorder.on_end(info, answer)
            state.messages.extend(answer)
        state.turns += node == "chat"
        nxt = ("tools",) if node == "chat" else ("chat",)
        recorder.on_step_end(StepInfo(step, (node,), Budget.of(step + 1, 99), state=state, next_nodes=nxt))
        if step == 3:
            edit(state.messages)
    recorder.on_end(graph, state.messages[-1])
    assert recorder.fault is None


def _trim(messages: list[Message]) -> None:
    del messages[:2]


def _replace_last(messages: list[Message]) -> None:
    messages[-1] = Message.assistant("said otherwise")


@pytest.mark.parametrize("edit", [_trim, _replace_last])
def test_a_step_waiting_to_be_written_keeps_the_history_it_ended_with(
    edit: Callable[[list[Message]], None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waiting: list[Any] = []
    monkeypatch.setattr(write_behind, "wake", waiting.append)  # nothing runs in the background
    monkeypatch.setattr(recorder_module, "SLOW_NODE_SECONDS", ALWAYS)
    _drive(tmp_path / "behind.jsonl", edit)
    assert waiting, "no step was handed over: the test would compare the at-once path with itself"
    monkeypatch.setattr(recorder_module, "SLOW_NODE_SECONDS", NEVER)
    _drive(tmp_path / "at_once.jsonl", edit)
    assert (tmp_path / "behind.jsonl").read_bytes() == (tmp_path / "at_once.jsonl").read_bytes()
    run = read_run(tmp_path / "behind.jsonl")
    assert [m["content"] for m in run.steps[3].state["messages"]] == [
        "go",
        "call 0",
        "pong 1",
        "call 2",
        "pong 3",
    ]


def test_the_background_thread_writes_a_waiting_step_while_the_run_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wakes: list[Any]
) -> None:
    monkeypatch.setattr(recorder_module, "SLOW_NODE_SECONDS", ALWAYS)
    path = tmp_path / "run.jsonl"
    ticks = iter(range(10_000))
    recorder = Recorder(path, clock=lambda: next(ticks) * 0.01, run_id="bg")
    state = _ChatState(messages=[Message.user("go")])
    graph = RunInfo(node_key=None, name="g", kind="Graph", graph_name="g")
    recorder.on_start(graph, None)
    for step in range(3):
        recorder.on_step_start(StepInfo(step, ("chat",), Budget.of(step, 9)))
        info = RunInfo(node_key="chat", name="chat", kind="Lambda", path=("chat",), step=step)
        recorder.on_start(info, state.messages)
        said = Message.assistant(f"step {step}")
        recorder.on_end(info, said)
        state.messages.append(said)
        recorder.on_step_end(
            StepInfo(step, ("chat",), Budget.of(step + 1, 9), state=state, next_nodes=("chat",))
        )
    assert wakes, "the last step was not handed to the background thread"
    deadline = time.monotonic() + 10
    while b'"index":2' not in path.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.005)  # the run "waits"; nothing of the recorder is called meanwhile
    assert b'"index":2' in path.read_bytes()
    recorder.on_end(graph, None)
    assert [s.index for s in read_run(path).steps] == [0, 1, 2]


class _WaitingModel:
    """A scripted model whose every answer takes `wait` seconds of the injected clock `now`."""

    def __init__(self, inner: ScriptedChatModel, now: list[float], wait: float) -> None:
        self.inner, self.now, self.wait = inner, now, wait

    def generate(self, messages: Any) -> Message:
        self.now[0] += self.wait
        return self.inner.generate(messages)

    def stream(self, messages: Any) -> Iterator[Message]:
        self.now[0] += self.wait
        return self.inner.stream(messages)

    async def agenerate(self, messages: Any) -> Message:
        return self.generate(messages)

    def astream(self, messages: Any) -> Any:
        return self.inner.astream(messages)

    def with_tools(self, tools: Any) -> _WaitingModel:
        return _WaitingModel(self.inner.with_tools(tools), self.now, self.wait)


def _agent_run(path: Path, wait: float) -> None:
    rounds = 10
    script = [
        Message.assistant(f"round {i}", tool_calls=[ToolCall(f"c{i}", "ping", f'{{"n": {i}}}')])
        for i in range(rounds)
    ]
    script.append(Message.assistant("done"))
    now = [1_767_225_600.0]
    model = _WaitingModel(ScriptedChatModel(script), now, wait)
    agent = ReActAgent(model, tools=[ping], max_step=2 * rounds + 1)
    agent.invoke([Message.user("go")], callbacks=[Recorder(path, clock=lambda: now[0], run_id="agent")])


def test_an_agent_whose_model_waits_is_written_behind_and_an_instant_one_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wakes: list[Any]
) -> None:
    _agent_run(tmp_path / "instant.jsonl", 0.0)
    assert wakes == []
    _agent_run(tmp_path / "waiting.jsonl", 0.002)
    assert len(wakes) >= 5  # the tools steps are handed over before the model's next wait
    monkeypatch.setattr(recorder_module, "SLOW_NODE_SECONDS", NEVER)
    _agent_run(tmp_path / "at_once.jsonl", 0.002)
    assert (tmp_path / "waiting.jsonl").read_bytes() == (tmp_path / "at_once.jsonl").read_bytes()


def test_a_frozen_list_encodes_as_the_list_did_when_frozen() -> None:
    encoder = Encoder()
    history = [Message.user("go"), Message.assistant("a")]
    encoder.encode_list(history)
    encoder.take_definitions()
    history.append(Message.assistant("b"))
    longer = encoder.freeze_list(history, 3, 0)
    shorter = encoder.freeze_list(history, 2, 0)  # a node's input: a prefix of what is stored
    assert longer is not None and shorter is not None
    history[:] = [Message.user("other")]  # what happens to the list after freezing does not matter
    assert encoder.encode_frozen(longer) == {"$refs": [[0, 3]]}
    assert encoder.encode_frozen(shorter) == {"$refs": [[0, 2]]}
    assert encoder.take_definitions() == [(2, {"role": "assistant", "content": "b"})]
    fresh = Encoder().freeze_list([Message.user("x")], 1, 0)  # never stored: all of it is copied
    assert fresh is not None and fresh.base is None and len(fresh.tail) == 1
    assert encoder.freeze_list([Message.user("x"), {"not": "a message"}], 2, 0) is None
