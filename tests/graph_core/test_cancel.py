"""ADK cancel at safe points (eino-semantics §6.6): modes, timeout escalation, handle outcomes, resume."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.cancel import CancelError, CancelMode, CancelOutcome
from graph_core.errors import InterruptError
from graph_core.interrupt import get_resume_data, interrupt, was_interrupted
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import tool

WAIT = 5.0


class GatedModel:
    """A scripted model whose calls block until the test opens the gate (call `n` waits on gate `n`)."""

    def __init__(self, script: Sequence[Message], gated: Sequence[int] = (0,)) -> None:
        self.inner = ScriptedChatModel(script)
        self.gated = set(gated)
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.returned = threading.Event()  # a gated call answered (also one abandoned by a cancel)
        self.count = 0

    def with_tools(self, tools: Sequence[ToolInfo]) -> GatedModel:
        self.inner = self.inner.with_tools(tools)
        return self

    def generate(self, messages: list[Message]) -> Message:
        call = self.count
        self.count += 1
        if call in self.gated:
            self.entered.set()
            assert self.gate.wait(WAIT)
            answer = self.inner.generate(messages)
            self.returned.set()
            return answer
        return self.inner.generate(messages)

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        yield self.generate(messages)


class Gate:
    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()
        self.runs = 0


def _script() -> list[Message]:
    return [
        Message.assistant(tool_calls=[ToolCall(id="c1", name="lookup", arguments='{"q": "x"}')]),
        Message.assistant("done"),
    ]


def _agent(model: Any, gate: Gate | None = None) -> ChatModelAgent:
    @tool
    def lookup(q: str) -> str:
        """Looks things up."""
        if gate is not None:
            gate.runs += 1
            gate.entered.set()
            assert gate.open.wait(WAIT)
        return f"found {q}"

    return ChatModelAgent(name="agent", model=model, tools=[lookup])


def _collect(events: Iterator[AgentEvent]) -> tuple[threading.Thread, list[AgentEvent]]:
    out: list[AgentEvent] = []
    thread = threading.Thread(target=lambda: out.extend(events), daemon=True)
    thread.start()
    return thread, out


def _texts(events: list[AgentEvent]) -> list[str]:
    return [e.message.content for e in events if e.message is not None]


def test_cancel_after_chat_model_stops_in_cancel_check_and_resumes_with_the_saved_message() -> None:
    model = GatedModel(_script())
    gate = Gate()
    agent = _agent(model, gate)
    thread, events = _collect(agent.run("hi", checkpoint_id="c1"))
    assert model.entered.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL)
    model.gate.set()
    thread.join(WAIT)
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    error = events[-1].error
    assert isinstance(error, CancelError)
    assert str(error) == "agent canceled: mode=CancelAfterChatModel, escalated=false"
    assert error.safe_point == "CancelCheck" and error.checkpoint_id == "c1"
    assert gate.runs == 0  # no tool ran
    gate.open.set()
    resumed = list(agent.resume("c1"))
    assert _texts(resumed) == ["found x", "done"]
    assert gate.runs == 1 and model.count == 2  # the saved model message was reused


def test_cancel_after_tool_calls_stops_after_the_round() -> None:
    model = GatedModel(_script(), gated=())
    gate = Gate()
    agent = _agent(model, gate)
    thread, events = _collect(agent.run("hi", checkpoint_id="c2"))
    assert gate.entered.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_TOOL_CALLS)
    gate.open.set()
    thread.join(WAIT)
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    error = events[-1].error
    assert isinstance(error, CancelError) and error.safe_point == "AfterToolCallsCancelCheck"
    assert _texts(events) == ["", "found x"]
    resumed = list(agent.resume("c2"))
    assert _texts(resumed) == ["done"] and gate.runs == 1


def test_cancel_immediate_abandons_the_running_node_which_reruns_on_resume() -> None:
    """As Eino's CancelImmediate (a graph interrupt with timeout 0): the blocked tool call is abandoned
    at once, its ToolsNode becomes a rerun node, and the resume runs the tool again."""
    model = GatedModel(_script(), gated=())
    gate = Gate()
    agent = _agent(model, gate)
    thread, events = _collect(agent.run("hi", checkpoint_id="c3"))
    assert gate.entered.wait(WAIT)
    handle = agent.cancel()
    thread.join(WAIT)  # the run ends while the tool is still blocked
    assert not thread.is_alive()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    error = events[-1].error
    assert isinstance(error, CancelError) and error.mode == CancelMode.IMMEDIATE
    assert str(error) == "agent canceled: mode=CancelImmediate, escalated=false"
    assert isinstance(error.__cause__, InterruptError) and error.__cause__.info.rerun_nodes == ["ToolNode"]
    gate.open.set()
    assert _texts(list(agent.resume("c3"))) == ["found x", "done"]
    assert gate.runs == 2


def test_timeout_escalates_a_safe_point_cancel_to_immediate() -> None:
    model = GatedModel(_script())
    agent = _agent(model)
    thread, events = _collect(agent.run("hi", checkpoint_id="c4"))
    assert model.entered.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_TOOL_CALLS, timeout=0.01)
    request = handle._request  # pyright: ignore[reportPrivateUsage]
    assert request is not None
    deadline = threading.Event()
    while not request.escalated and not deadline.wait(0.01):
        pass
    thread.join(WAIT)  # the escalation abandoned the blocked model call: the run ended
    assert not thread.is_alive()
    assert handle.wait(WAIT) is CancelOutcome.TIMEOUT
    error = events[-1].error
    assert isinstance(error, CancelError) and error.escalated
    model.gate.set()
    assert model.returned.wait(WAIT)  # the abandoned call consumed the script's first answer
    # the rerun ChatModel asks the model again
    assert _texts(list(agent.resume("c4"))) == ["done"]


def test_run_that_ends_first_reports_execution_ended() -> None:
    model = GatedModel([Message.assistant("direct answer")])
    agent = _agent(model)
    assert agent.cancel().wait() is CancelOutcome.EXECUTION_ENDED  # nothing running
    thread, events = _collect(agent.run("hi"))
    assert model.entered.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL)  # the answer has no tool calls: never reached
    model.gate.set()
    thread.join(WAIT)
    assert handle.wait(WAIT) is CancelOutcome.EXECUTION_ENDED
    assert _texts(events) == ["direct answer"] and events[-1].error is None


def test_tool_interrupt_without_cancel_is_an_interrupted_action() -> None:
    @tool
    def confirm(item: str) -> str:
        """Asks the user."""
        if not was_interrupted():
            interrupt({"confirm": item})
        return f"{item}: {get_resume_data()}"

    script = [
        Message.assistant(tool_calls=[ToolCall(id="k", name="confirm", arguments='{"item": "buy"}')]),
        Message.assistant("ok"),
    ]
    agent = ChatModelAgent(name="a", model=ScriptedChatModel(script), tools=[confirm])
    events = list(agent.run("go", checkpoint_id="i1"))
    last = events[-1]
    assert last.action is not None and last.checkpoint_id == "i1"
    assert last.action.interrupted.rerun_nodes == ["ToolNode"]
    assert [c.address for c in last.action.interrupted.interrupt_contexts if c.is_root_cause] == [
        "agent:a;tool:confirm:k"  # Eino's ADK address: the agent, then the tool call
    ]
    assert _texts(list(agent.resume("i1", resume_data="yes"))) == ["buy: yes", "ok"]


@pytest.mark.parametrize("streaming", [False, True])
def test_cancelled_state_survives_in_the_checkpoint(streaming: bool) -> None:
    model = GatedModel(_script(), gated=())
    gate = Gate()
    agent = _agent(model, gate)
    thread, events = _collect(agent.run("hi", checkpoint_id="s", streaming=streaming))
    assert gate.entered.wait(WAIT)
    agent.cancel(CancelMode.AFTER_TOOL_CALLS)
    gate.open.set()
    thread.join(WAIT)
    assert isinstance(events[-1].error, CancelError)
    seen: list[Any] = []
    list(agent.resume("s", state_modifier=lambda st: seen.append(list(st.messages)), streaming=streaming))
    assert [m.role for m in seen[0]] == ["user", "assistant", "tool"]
