"""Ports of Eino's `adk/cancel_test.go` and `adk/cancel_edge_test.go` (cloudwego/eino ca0441ac0bce) for
the single ChatModelAgent: cancel modes, the outcome a cancel handle reports, timeout escalation. Go's
`WithCancel()` option and cancel function are `agent.cancel(mode, timeout=)` here; Go's sleeps are
gates, so the tests are deterministic."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from graph_core.agents.adk import AgentEvent, ChatModelAgent, MessageStream
from graph_core.agents.cancel import CancelError, Canceller, CancelMode, CancelOutcome
from graph_core.checkpoint.store import InMemoryCheckpointStore
from graph_core.errors import StreamCanceledError
from graph_core.interrupt import interrupt
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo
from tests.eino.cancel_fakes import WAIT, BlockingModel, SlowTool, cancel_errors, run_in_thread, tool_call


def test_with_cancel_with_tools_cancel_immediate_during_model_call() -> None:
    """cancel_test.go TestWithCancel_WithTools/CancelImmediate_DuringModelCall: an immediate cancel while
    the model runs succeeds and the run ends with a CancelError."""
    model = BlockingModel([tool_call(), Message.assistant("done")])
    agent = ChatModelAgent(
        name="TestAgent", model=model, tools=[SlowTool()], instruction="You are a test assistant"
    )
    thread, events = run_in_thread(agent)
    assert model.started.wait(WAIT)
    handle = agent.cancel()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    assert events and cancel_errors(events)


def test_with_cancel_with_tools_cancel_after_chat_model_duringtool_call() -> None:
    """cancel_test.go TestWithCancel_WithTools/CancelAfterChatModel_DuringToolCall: asked while the tool
    runs, the cancel takes effect after the next model call that asks for tools; the tool ran."""
    tool = SlowTool()
    model = ScriptedChatModel([tool_call(), tool_call()])
    agent = ChatModelAgent(name="TestAgent", model=model, tools=[tool])
    thread, events = run_in_thread(agent)
    assert tool.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL)
    tool.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert [e for e in events if e.error is None] and tool.calls >= 1
    assert [c.safe_point for c in cancel_errors(events)] == ["CancelCheck"]


def test_with_cancel_with_tools_cancel_after_tool_calls_completes_tool_execution() -> None:
    """cancel_test.go TestWithCancel_WithTools/CancelAfterToolCalls_CompletesToolExecution: the running
    tool completes, then the run stops after the tool round."""
    tool = SlowTool()
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([tool_call()]), tools=[tool])
    thread, events = run_in_thread(agent)
    assert tool.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_TOOL_CALLS)
    tool.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert [e.message.content for e in events if e.message is not None] == ["", "tool result"]
    assert tool.calls == 1
    assert [c.safe_point for c in cancel_errors(events)] == ["AfterToolCallsCancelCheck"]


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
    model = BlockingModel([Message.assistant("hello")])
    agent = ChatModelAgent(name="TestAgent", model=model)
    thread, events = run_in_thread(agent, streaming=True)
    assert model.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL, timeout=0.05)
    assert handle.wait(WAIT) is CancelOutcome.TIMEOUT
    thread.join(WAIT)
    assert not thread.is_alive()
    model.release.set()
    [error] = cancel_errors(events)
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
    model = BlockingModel([Message.assistant("hi")])
    agent = ChatModelAgent(name="TestAgent", model=model)
    thread, events = run_in_thread(agent)
    assert model.started.wait(WAIT)
    assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    assert cancel_errors(events)


def test_with_cancel_model_error() -> None:
    """cancel_edge_test.go TestWithCancel_ModelError: the model's failure is a non-cancel error event;
    a cancel afterwards reports EXECUTION_ENDED."""
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([RuntimeError("model failed")]))
    events = list(agent.run("hi"))
    assert any(e.error is not None and not isinstance(e.error, CancelError) for e in events)
    assert agent.cancel().wait(WAIT) is CancelOutcome.EXECUTION_ENDED


def test_with_cancel_with_checkpoint() -> None:
    """cancel_test.go TestWithCancel_WithCheckpoint: an immediate cancel of a run given a store and a
    checkpoint ID succeeds and ends the run with a CancelError, whose checkpoint is in the store."""
    store = InMemoryCheckpointStore()
    model = BlockingModel([tool_call()])
    agent = ChatModelAgent(
        name="TestAgent",
        model=model,
        tools=[SlowTool()],
        instruction="You are a test assistant",
        checkpoint_store=store,
    )
    thread, events = run_in_thread(agent, checkpoint_id="cancel-1")
    assert model.started.wait(WAIT)
    assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    [error] = cancel_errors(events)
    assert error.checkpoint_id == "cancel-1" and store.get("cancel-1") is not None


def test_agent_cancel_func_multiple_calls() -> None:
    """cancel_test.go TestAgentCancelFuncMultipleCalls: a cancel of a run without a store succeeds and
    the run's events drain to the end (the agent keeps its checkpoints in memory)."""
    model = BlockingModel([tool_call()])
    agent = ChatModelAgent(
        name="TestAgent", model=model, tools=[SlowTool()], instruction="You are a test assistant"
    )
    thread, events = run_in_thread(agent)
    assert model.started.wait(WAIT)
    assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    assert not thread.is_alive() and events


def test_with_cancel_streaming_cancel_immediate_during_model_stream() -> None:
    """cancel_test.go TestWithCancel_Streaming/CancelImmediate_DuringModelStream: in stream mode an
    immediate cancel while the model runs succeeds; the events end with a CancelError."""
    model = BlockingModel([tool_call()])
    agent = ChatModelAgent(
        name="TestAgent", model=model, tools=[SlowTool()], instruction="You are a test assistant"
    )
    thread, events = run_in_thread(agent, streaming=True)
    assert model.started.wait(WAIT)
    assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    assert events and cancel_errors(events)


def test_with_cancel_streaming_cancel_after_tool_calls() -> None:
    """cancel_test.go TestWithCancel_Streaming/CancelAfterToolCalls_Streaming: in stream mode a cancel
    asked while the tool runs takes effect after the tool round; the tool ran and events came first."""
    tool = SlowTool()
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([tool_call()], cycle=True), tools=[tool])
    thread, events = run_in_thread(agent, streaming=True)
    assert tool.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_TOOL_CALLS)
    tool.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert [e for e in events if not isinstance(e.error, CancelError)] and tool.calls >= 1
    assert [c.safe_point for c in cancel_errors(events)] == ["AfterToolCallsCancelCheck"]


def test_cancel_safe_point_never_fires_err_execution_ended() -> None:
    """cancel_test.go TestCancel_SafePointNeverFires_ErrExecutionEnded: an agent without tools never
    reaches the after-tool-calls safe point, so that cancel reports EXECUTION_ENDED once the run ends."""
    model = BlockingModel([Message.assistant("Final answer, no tool calls")])
    agent = ChatModelAgent(name="NoToolAgent", model=model, instruction="You are a test assistant")
    thread, events = run_in_thread(agent)
    assert model.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_TOOL_CALLS)
    model.release.set()
    assert handle.wait(WAIT) is CancelOutcome.EXECUTION_ENDED
    thread.join(WAIT)
    assert not cancel_errors(events)


def test_with_cancel_before_execution_starts() -> None:
    """cancel_edge_test.go TestWithCancel_BeforeExecutionStarts: a cancel asked through the run's
    canceller (Eino `WithCancel()`) before the run starts stops the run at its start: a CancelError
    event, the cancel settles, and neither the model nor the tool is called."""
    model = BlockingModel([tool_call("c1", "bt", '{"input":"x"}')], blocking=())
    tool = SlowTool("bt")
    agent = ChatModelAgent(name="TestAgent", model=model, tools=[tool])
    canceller = Canceller()
    handle = canceller.cancel()
    events = list(agent.run("hi", canceller=canceller))
    assert cancel_errors(events)
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    assert model.calls == 0 and tool.calls == 0


def test_with_cancel_after_chat_model_with_tools() -> None:
    """cancel_edge_test.go TestWithCancel_AfterChatModel_WithTools: a cancel asked while the model runs
    takes effect once it returned tool calls (the after-chat-model safe point)."""
    model = BlockingModel([tool_call("c1", "bt", '{"input":"x"}')], cycle=True)
    tool = SlowTool("bt")
    agent = ChatModelAgent(name="TestAgent", model=model, tools=[tool])
    thread, events = run_in_thread(agent)
    assert model.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL)
    model.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert [c.safe_point for c in cancel_errors(events)] == ["CancelCheck"]
    assert tool.calls == 0


def test_with_cancel_cancel_immediate_stream_aborted() -> None:
    """cancel_edge_test.go TestWithCancel_CancelImmediate_StreamAborted: in stream mode an immediate
    cancel of a model blocked before its answer succeeds and ends the run with a CancelError (the Go
    test also bounds the time; here the model stays blocked until after the run ended)."""
    model = BlockingModel([Message.assistant("hello")])
    agent = ChatModelAgent(name="TestAgent", model=model)
    thread, events = run_in_thread(agent, streaming=True)
    assert model.started.wait(WAIT)
    assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert not thread.is_alive()
    model.release.set()
    assert cancel_errors(events)


def test_with_cancel_multiple_tools_concurrent() -> None:
    """cancel_edge_test.go TestWithCancel_MultipleToolsConcurrent: an after-tool-calls cancel waits for
    every concurrent tool call of the round: both complete once, then the run is cancelled."""
    tool1, tool2 = SlowTool("tool1"), SlowTool("tool2")
    calls = Message.assistant(
        "",
        tool_calls=[
            ToolCall(id="c1", name="tool1", arguments='{"input":"a"}'),
            ToolCall(id="c2", name="tool2", arguments='{"input":"b"}'),
        ],
    )
    agent = ChatModelAgent(
        name="TestAgent", model=ScriptedChatModel([calls], cycle=True), tools=[tool1, tool2]
    )
    thread, events = run_in_thread(agent)
    assert tool1.started.wait(WAIT) and tool2.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_TOOL_CALLS)
    tool1.release.set()
    tool2.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert (tool1.calls, tool2.calls) == (1, 1)
    assert [c.safe_point for c in cancel_errors(events)] == ["AfterToolCallsCancelCheck"]


class _StreamingTool:
    """Go `slowStreamingTool`: streams its first chunk, then blocks on a gate before the rest."""

    def __init__(self) -> None:
        self.info = ToolInfo("slow_tool", "A slow streaming tool", {"type": "object"})
        self.started = threading.Event()
        self.gate = threading.Event()

    def stream(self, arguments: str) -> Iterator[str]:
        yield "a"
        self.started.set()
        assert self.gate.wait(WAIT)
        yield from "bcdefghij"


def test_with_cancel_cancel_immediate_streamable_tool_aborted() -> None:
    """cancel_edge_test.go TestWithCancel_CancelImmediate_StreamableToolAborted: an immediate cancel
    while a streaming tool is blocked mid-stream succeeds, ends the run with a CancelError, and the tool
    event's message stream (received before the cancel) ends with `StreamCanceledError` (Go
    `ErrStreamCanceled`)."""
    tool = _StreamingTool()
    agent = ChatModelAgent(name="TestAgent", model=ScriptedChatModel([tool_call()], cycle=True), tools=[tool])
    events: list[AgentEvent] = []
    tool_stream_ready = threading.Event()
    stream_ends: list[BaseException | None] = []

    def read() -> None:
        for event in agent.run("Use the tool", streaming=True):
            events.append(event)
            message_stream = event.message_stream
            if isinstance(message_stream, MessageStream) and _first_role(message_stream) == "tool":
                tool_stream_ready.set()
                stream_ends.append(message_stream.drain()[1])

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    assert tool.started.wait(WAIT)
    try:
        assert tool_stream_ready.wait(WAIT), "the tool stream event was not received"
        assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
        thread.join(WAIT)
        assert not thread.is_alive()
    finally:
        tool.gate.set()
    assert len(stream_ends) == 1 and isinstance(stream_ends[0], StreamCanceledError)
    assert cancel_errors(events)


def _first_role(stream: MessageStream) -> str | None:
    for chunk in stream:
        return chunk.role
    return None
