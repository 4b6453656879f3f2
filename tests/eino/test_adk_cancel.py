"""Ports of Eino's `adk/cancel_test.go` and `adk/cancel_edge_test.go` (cloudwego/eino ca0441ac0bce) for
the single ChatModelAgent: cancel modes, the outcome a cancel handle reports, timeout escalation. Go's
`WithCancel()` option and cancel function are `agent.cancel(mode, timeout=)` here; Go's sleeps are
gates, so the tests are deterministic."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence

from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.cancel import CancelError, CancelMode, CancelOutcome
from graph_core.interrupt import interrupt
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo

WAIT = 10.0


class _BlockingModel:
    """Go `cancelTestChatModel`/`newBlockingChatModel`: calls listed in `blocking` wait for `release`."""

    def __init__(self, script: Sequence[Message], blocking: Sequence[int] = (0,)) -> None:
        self.inner = ScriptedChatModel(script)
        self.blocking = set(blocking)
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def with_tools(self, tools: Sequence[ToolInfo]) -> _BlockingModel:
        self.inner = self.inner.with_tools(tools)
        return self

    def generate(self, messages: list[Message]) -> Message:
        call = self.calls
        self.calls += 1
        if call in self.blocking:
            self.started.set()
            assert self.release.wait(WAIT)
        return self.inner.generate(messages)

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        yield self.generate(messages)


class _SlowTool:
    """Go `slowTool`/`slowToolWithSignal`: counts its calls; blocks until released."""

    def __init__(self) -> None:
        self.info = ToolInfo("slow_tool", "A slow tool for testing", {"type": "object"})
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def invoke(self, arguments: str) -> str:
        self.calls += 1
        self.started.set()
        assert self.release.wait(WAIT)
        return "tool result"


def _tool_call() -> Message:
    return Message.assistant(
        "", tool_calls=[ToolCall(id="call_1", name="slow_tool", arguments='{"input": "test"}')]
    )


def _run(agent: ChatModelAgent, **options: object) -> tuple[threading.Thread, list[AgentEvent]]:
    events: list[AgentEvent] = []
    thread = threading.Thread(target=lambda: events.extend(agent.run("Use the tool", **options)), daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread, events


def _cancel_errors(events: list[AgentEvent]) -> list[CancelError]:
    return [e.error for e in events if isinstance(e.error, CancelError)]


def test_with_cancel_with_tools_cancel_immediate_during_model_call() -> None:
    """cancel_test.go TestWithCancel_WithTools/CancelImmediate_DuringModelCall: an immediate cancel while
    the model runs succeeds and the run ends with a CancelError."""
    model = _BlockingModel([_tool_call(), Message.assistant("done")])
    agent = ChatModelAgent(
        name="TestAgent", model=model, tools=[_SlowTool()], instruction="You are a test assistant"
    )
    thread, events = _run(agent)
    assert model.started.wait(WAIT)
    handle = agent.cancel()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    assert events and _cancel_errors(events)


def test_with_cancel_with_tools_cancel_after_chat_model_during_tool_call() -> None:
    """cancel_test.go TestWithCancel_WithTools/CancelAfterChatModel_DuringToolCall: asked while the tool
    runs, the cancel takes effect after the next model call that asks for tools; the tool ran."""
    tool = _SlowTool()
    model = ScriptedChatModel([_tool_call(), _tool_call()])
    agent = ChatModelAgent(name="TestAgent", model=model, tools=[tool])
    thread, events = _run(agent)
    assert tool.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL)
    tool.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert [e for e in events if e.error is None] and tool.calls >= 1
    assert [c.safe_point for c in _cancel_errors(events)] == ["CancelCheck"]


def test_with_cancel_with_tools_cancel_after_tool_calls_completes_tool_execution() -> None:
    """cancel_test.go TestWithCancel_WithTools/CancelAfterToolCalls_CompletesToolExecution: the running
    tool completes, then the run stops after the tool round."""
    tool = _SlowTool()
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([_tool_call()]), tools=[tool])
    thread, events = _run(agent)
    assert tool.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_TOOL_CALLS)
    tool.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert [e.message.content for e in events if e.message is not None] == ["", "tool result"]
    assert tool.calls == 1
    assert [c.safe_point for c in _cancel_errors(events)] == ["AfterToolCallsCancelCheck"]


def test_with_cancel_after_completion() -> None:
    """cancel_edge_test.go TestWithCancel_AfterCompletion: a cancel after the run ended reports that
    the execution ended (Eino `ErrExecutionEnded`)."""
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([Message.assistant("done")]))
    assert [e.message.content for e in agent.run("hi") if e.message is not None] == ["done"]
    assert agent.cancel().wait(WAIT) is CancelOutcome.EXECUTION_ENDED


def test_with_cancel_after_error() -> None:
    """cancel_edge_test.go TestWithCancel_AfterError: likewise after a run that failed."""
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([RuntimeError("model exploded")]))
    events = list(agent.run("hi"))
    assert "model exploded" in str(events[-1].error)
    assert agent.cancel().wait(WAIT) is CancelOutcome.EXECUTION_ENDED


def test_with_cancel_timeout_escalation() -> None:
    """cancel_edge_test.go TestWithCancel_TimeoutEscalation: a safe-point cancel whose safe point is not
    reached in time escalates to immediate: the handle reports the timeout (Eino `ErrCancelTimeout`),
    the blocked model call is abandoned and the CancelError says it escalated."""
    model = _BlockingModel([Message.assistant("hello")])
    agent = ChatModelAgent(name="TestAgent", model=model)
    thread, events = _run(agent, streaming=True)
    assert model.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL, timeout=0.05)
    assert handle.wait(WAIT) is CancelOutcome.TIMEOUT
    thread.join(WAIT)
    assert not thread.is_alive()
    model.release.set()
    [error] = _cancel_errors(events)
    assert error.escalated and error.timeout == 0.05


class _InterruptingModel:
    """Go `interruptingChatModel`: the model call itself interrupts (a business interrupt)."""

    def generate(self, messages: list[Message]) -> Message:
        interrupt("need approval")
        raise AssertionError("unreachable")

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        yield self.generate(messages)


def test_with_cancel_after_business_interrupt() -> None:
    """cancel_edge_test.go TestWithCancel_AfterBusinessInterrupt: a run that ended at an interrupt of its
    own has ended: a cancel afterwards reports EXECUTION_ENDED."""
    agent = ChatModelAgent(name="TestAgent", model=_InterruptingModel())
    events = list(agent.run("hi", checkpoint_id="biz-interrupt-1"))
    assert any(e.action is not None and e.action.interrupted is not None for e in events)
    assert agent.cancel().wait(WAIT) is CancelOutcome.EXECUTION_ENDED


def test_with_cancel_no_checkpoint_store() -> None:
    """cancel_edge_test.go TestWithCancel_NoCheckpointStore: an agent built without a store still ends a
    cancelled run with a CancelError (the agent keeps its checkpoints in memory)."""
    model = _BlockingModel([Message.assistant("hi")])
    agent = ChatModelAgent(name="TestAgent", model=model)
    thread, events = _run(agent)
    assert model.started.wait(WAIT)
    assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    assert _cancel_errors(events)


def test_with_cancel_model_error() -> None:
    """cancel_edge_test.go TestWithCancel_ModelError: the model's failure is a non-cancel error event;
    a cancel afterwards reports EXECUTION_ENDED."""
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([RuntimeError("model failed")]))
    events = list(agent.run("hi"))
    assert any(e.error is not None and not isinstance(e.error, CancelError) for e in events)
    assert agent.cancel().wait(WAIT) is CancelOutcome.EXECUTION_ENDED
