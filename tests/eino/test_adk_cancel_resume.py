"""Ports of the cancel-then-resume tests of Eino's `adk/cancel_test.go` and `adk/cancel_edge_test.go`
(cloudwego/eino ca0441ac0bce) for the single ChatModelAgent. As in Go, the resume runs on a second
agent (a new model) sharing the first one's checkpoint store; Go's sleeps are gates."""

from __future__ import annotations

import threading
from typing import Any

from graph_core.agents.adk import ChatModelAgent
from graph_core.agents.cancel import CancelError, CancelMode, CancelOutcome
from graph_core.checkpoint.store import InMemoryCheckpointStore
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolInfo
from tests.eino.cancel_fakes import (
    WAIT,
    BlockingModel,
    SlowTool,
    cancel_errors,
    errors,
    run_in_thread,
    tool_call,
)


def _agent(model: Any, tool: Any, store: InMemoryCheckpointStore) -> ChatModelAgent:
    return ChatModelAgent(
        name="TestAgent",
        model=model,
        tools=[tool],
        instruction="You are a test assistant",
        checkpoint_store=store,
    )


def _cancel_immediately_in_model(
    agent: ChatModelAgent, model: BlockingModel, checkpoint_id: str
) -> CancelError:
    """Run `agent` until its model blocks, cancel it at once; the run's CancelError."""
    thread, events = run_in_thread(agent, checkpoint_id=checkpoint_id)
    assert model.started.wait(WAIT)
    assert agent.cancel().wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    model.release.set()
    [error] = cancel_errors(events)
    return error


def _cancel_after_chat_model(agent: ChatModelAgent, model: BlockingModel, checkpoint_id: str) -> CancelError:
    """Run `agent` until its model blocks, ask a cancel after the chat model, release the model."""
    thread, events = run_in_thread(agent, checkpoint_id=checkpoint_id)
    assert model.started.wait(WAIT)
    handle = agent.cancel(CancelMode.AFTER_CHAT_MODEL)
    model.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    [error] = cancel_errors(events)
    assert error.safe_point == "CancelCheck"
    return error


def test_with_cancel_resume_cancel_then_resume() -> None:
    """cancel_test.go TestWithCancel_Resume/Cancel_ThenResume: a run cancelled while its model runs is
    resumed by a second agent on the same store; the resume has events and no error."""
    store = InMemoryCheckpointStore()
    tool = SlowTool(blocks=False)
    model = BlockingModel([tool_call()])
    _cancel_immediately_in_model(_agent(model, tool, store), model, "resume-cancel-test-1")
    agent2 = _agent(ScriptedChatModel([Message.assistant("Final response after resume")]), tool, store)
    events = list(agent2.resume("resume-cancel-test-1"))
    assert events and not errors(events)
    assert [e.message.content for e in events if e.message is not None] == ["Final response after resume"]


def test_with_cancel_resume_resume_then_cancel() -> None:
    """cancel_test.go TestWithCancel_Resume/Resume_ThenCancel: the resumed run, cancelled at once while
    its model runs, ends with a CancelError (here the cancel always wins: the model is released only
    after the cancel was asked, and an immediate cancel abandons it)."""
    store = InMemoryCheckpointStore()
    tool = SlowTool(blocks=False)
    model = BlockingModel([tool_call()])
    _cancel_immediately_in_model(_agent(model, tool, store), model, "resume-then-cancel-test-1")
    model2 = BlockingModel([tool_call()], cycle=True)
    agent2 = _agent(model2, tool, store)
    events: list[Any] = []
    thread = threading.Thread(
        target=lambda: events.extend(agent2.resume("resume-then-cancel-test-1")), daemon=True
    )
    thread.start()
    assert model2.started.wait(WAIT)
    handle = agent2.cancel()
    model2.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert not thread.is_alive() and cancel_errors(events)


def test_with_cancel_resume_safe_point() -> None:
    """cancel_edge_test.go TestWithCancel_Resume_SafePoint: a run cancelled at once is resumed; the
    resumed run, cancelled after the chat model, ends with a CancelError once its model asked for tools."""
    store = InMemoryCheckpointStore()
    model = BlockingModel([tool_call("c1", "bt", '{"input":"x"}')])
    _cancel_immediately_in_model(_agent(model, SlowTool("bt", "result"), store), model, "resume-sp-1")
    model2 = BlockingModel([tool_call("c1", "bt", '{"input":"x"}')], cycle=True)
    agent2 = _agent(model2, SlowTool("bt", "result", blocks=False), store)
    events: list[Any] = []
    thread = threading.Thread(target=lambda: events.extend(agent2.resume("resume-sp-1")), daemon=True)
    thread.start()
    assert model2.started.wait(WAIT)
    handle = agent2.cancel(CancelMode.AFTER_CHAT_MODEL)
    model2.release.set()
    assert handle.wait(WAIT) is CancelOutcome.SUCCESS
    thread.join(WAIT)
    assert [c.safe_point for c in cancel_errors(events)] == ["CancelCheck"]


def _targeted_resume(
    error: CancelError, store: InMemoryCheckpointStore, tool: Any, checkpoint_id: str
) -> None:
    """Go's `ResumeWithParams` with every interrupt context of the CancelError as a target (nil data)."""
    assert error.interrupt_contexts, "the CancelError has the interrupt contexts for a targeted resume"
    targets = {context.id: None for context in error.interrupt_contexts}
    agent2 = _agent(ScriptedChatModel([Message.assistant("resumed")], cycle=True), tool, store)
    events = list(agent2.resume(checkpoint_id, resume_data=targets))
    assert not errors(events)
    assert [e.message.content for e in events if e.message is not None and e.message.role == "assistant"][
        -1
    ] == ("resumed")


def test_with_cancel_targeted_resume_cancel_immediate() -> None:
    """cancel_edge_test.go TestWithCancel_TargetedResume_CancelImmediate: the CancelError of an immediate
    cancel lists interrupt contexts; resuming with all of them as targets completes with output."""
    store = InMemoryCheckpointStore()
    tool = SlowTool("st", "result", blocks=False)
    model = BlockingModel([tool_call("c1", "st", '{"input":"x"}')])
    error = _cancel_immediately_in_model(_agent(model, tool, store), model, "targeted-imm-1")
    _targeted_resume(error, store, tool, "targeted-imm-1")


def test_with_cancel_targeted_resume_safe_point() -> None:
    """cancel_edge_test.go TestWithCancel_TargetedResume_SafePoint: likewise for a cancel after the chat
    model (a stateful interrupt in CancelCheck): its contexts are listed and the targeted resume works."""
    store = InMemoryCheckpointStore()
    tool = SlowTool("st", "result", blocks=False)
    model = BlockingModel([tool_call("c1", "st", '{"input":"x"}')], cycle=True)
    error = _cancel_after_chat_model(_agent(model, tool, store), model, "targeted-sp-1")
    _targeted_resume(error, store, tool, "targeted-sp-1")


class _CallbackTool:
    """Go `callbackTool`: records that it was called."""

    def __init__(self) -> None:
        self.info = ToolInfo("my_tool", "callback tool", {"type": "object"})
        self.called = threading.Event()

    def invoke(self, arguments: str) -> str:
        self.called.set()
        return "ok"


def test_with_cancel_resume_cancel_after_chat_model_message_preserved() -> None:
    """cancel_edge_test.go TestWithCancel_Resume_CancelAfterChatModel_MessagePreserved
    (react_path_tool_call_preserved): the model's tool-call message, saved by the after-chat-model
    cancel, survives the checkpoint: on resume the tool runs, then the new model answers."""
    store = InMemoryCheckpointStore()
    tool = _CallbackTool()
    model = BlockingModel([tool_call("c1", "my_tool", '{"input":"x"}')], cycle=True)
    _cancel_after_chat_model(_agent(model, tool, store), model, "react-msg-preserved-1")
    assert not tool.called.is_set()
    agent2 = _agent(ScriptedChatModel([Message.assistant("done")]), tool, store)
    events = list(agent2.resume("react-msg-preserved-1"))
    assert not errors(events)
    assert tool.called.is_set(), "the tool-call message was lost"
