"""Ports of `adk/callback_test.go` (cloudwego/eino ca0441ac0bce): the helpers behind ADK agent callbacks
(copies of the event iterator, conversions of callback payloads, the agent's type, the callbacks run
option). Each test names its Go test and subtest."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.adk_callbacks import (
    AGENT_KIND,
    AgentCallbackInput,
    AgentCallbackOutput,
    common_options,
    conv_agent_callback_input,
    conv_agent_callback_output,
    copy_agent_callback_output,
    copy_event_iterator,
    get_agent_type,
    with_callbacks,
)
from graph_core.callbacks import RunInfo
from graph_core.schema import Message
from tests.eino.adk_fakes import RecordingModel


def _sent(events: list[AgentEvent]) -> Iterator[AgentEvent]:
    """Go `NewAsyncIteratorPair` fed by a goroutine: the events arrive from another thread."""
    inbox: queue.SimpleQueue[AgentEvent | None] = queue.SimpleQueue()

    def feed() -> None:
        for event in [*events, None]:
            inbox.put(event)

    threading.Thread(target=feed, daemon=True).start()
    return iter(inbox.get, None)


def test_copy_typed_event_iterator_n_0_returns_nil() -> None:
    """callback_test.go TestCopyTypedEventIterator/n=0 returns nil"""
    assert copy_event_iterator(_sent([AgentEvent("test")]), 0) is None


def test_copy_typed_event_iterator_n_1_returns_original_iterator() -> None:
    """callback_test.go TestCopyTypedEventIterator/n=1 returns original iterator"""
    events = _sent([AgentEvent("test")])
    result = copy_event_iterator(events, 1)
    assert result is not None and len(result) == 1 and result[0] is events


def test_copy_typed_event_iterator_n_gt_1_creates_n_independent_copies() -> None:
    """callback_test.go TestCopyTypedEventIterator/n>1 creates n independent copies"""
    events = [
        AgentEvent("agent1", message=Message.assistant("msg1")),
        AgentEvent("agent2", message=Message.assistant("msg2")),
    ]
    n = 3
    copies = copy_event_iterator(_sent(events), n)
    assert copies is not None and len(copies) == n
    received: list[list[AgentEvent]] = [[] for _ in range(n)]

    def consume(index: int) -> None:
        received[index].extend(copies[index])

    readers = [threading.Thread(target=consume, args=(i,)) for i in range(n)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(5)
    for got in received:
        assert len(got) == len(events), "every iterator should receive all events"
        assert [e.agent_name for e in got] == [e.agent_name for e in events]


def test_copy_typed_event_iterator_copies_a_streamed_output_for_each_reader() -> None:
    """callback.go copyTypedEventIterator copies each event (`copyTypedAgentEvent`): a streamed output,
    read once, reaches every copy whole"""
    stream = iter([Message.assistant("a"), Message.assistant("b")])
    copies = copy_event_iterator(iter([AgentEvent("s", message_stream=stream)]), 2)
    assert copies is not None
    for events in copies:
        [event] = list(events)
        message = event.get_message()
        assert event.is_streaming and message is not None and message.content == "ab"


def test_copy_agent_callback_output_nil_output() -> None:
    """callback_test.go TestCopyAgentCallbackOutput/nil output"""
    assert copy_agent_callback_output(None, 3) == [None, None, None]


def test_copy_agent_callback_output_output_with_nil_events() -> None:
    """callback_test.go TestCopyAgentCallbackOutput/output with nil Events"""
    out = AgentCallbackOutput(None)
    result = copy_agent_callback_output(out, 3)
    assert len(result) == 3 and all(r is out for r in result)


def test_copy_agent_callback_output_valid_output_with_events() -> None:
    """callback_test.go TestCopyAgentCallbackOutput/valid output with events"""
    result = copy_agent_callback_output(AgentCallbackOutput(_sent([AgentEvent("test")])), 2)
    assert len(result) == 2
    for r in result:
        assert r is not None and r.events is not None


def test_conv_agent_callback_input_valid() -> None:
    """callback_test.go TestConvAgentCallbackInput/valid AgentCallbackInput"""
    payload = AgentCallbackInput([Message.user("test")])
    assert conv_agent_callback_input(payload) is payload


def test_conv_agent_callback_input_invalid_type_returns_nil() -> None:
    """callback_test.go TestConvAgentCallbackInput/invalid type returns nil"""
    assert conv_agent_callback_input("invalid") is None


def test_conv_agent_callback_input_nil_returns_nil() -> None:
    """callback_test.go TestConvAgentCallbackInput/nil returns nil"""
    assert conv_agent_callback_input(None) is None


def test_conv_agent_callback_output_valid() -> None:
    """callback_test.go TestConvAgentCallbackOutput/valid AgentCallbackOutput"""
    output = AgentCallbackOutput(iter([]))
    assert conv_agent_callback_output(output) is output


def test_conv_agent_callback_output_invalid_type_returns_nil() -> None:
    """callback_test.go TestConvAgentCallbackOutput/invalid type returns nil"""
    assert conv_agent_callback_output("invalid") is None


def test_conv_agent_callback_output_nil_returns_nil() -> None:
    """callback_test.go TestConvAgentCallbackOutput/nil returns nil"""
    assert conv_agent_callback_output(None) is None


class _TyperAgent:
    """Go `mockTyperAgent`"""

    name = "test"
    description = "mock agent"

    def __init__(self, agent_type: str) -> None:
        self.agent_type = agent_type

    def get_type(self) -> str:
        return self.agent_type

    def run(self, messages: Any, **options: Any) -> Iterator[AgentEvent]:
        return iter([])


class _NonTyperAgent:
    """Go `mockNonTyperAgent`"""

    name = "test"
    description = "mock agent"

    def run(self, messages: Any, **options: Any) -> Iterator[AgentEvent]:
        return iter([])


def test_get_agent_type_agent_implementing_typer() -> None:
    """callback_test.go TestGetAgentType/agent implementing Typer"""
    assert get_agent_type(_TyperAgent("CustomType")) == "CustomType"


def test_get_agent_type_agent_not_implementing_typer() -> None:
    """callback_test.go TestGetAgentType/agent not implementing Typer"""
    assert get_agent_type(_NonTyperAgent()) == ""


class _Handler:
    def on_start(self, info: RunInfo, input: Any) -> None:
        pass


def test_with_callbacks_option() -> None:
    """callback_test.go TestWithCallbacksOption"""
    assert len(common_options([with_callbacks(_Handler())]).handlers) == 1


def test_with_multiple_callbacks_option() -> None:
    """callback_test.go TestWithMultipleCallbacksOption"""
    assert len(common_options([with_callbacks(_Handler(), _Handler())]).handlers) == 2


class _Starts:
    def __init__(self) -> None:
        self.agents: list[tuple[str, str]] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        payload = conv_agent_callback_input(input)
        if info.kind == AGENT_KIND and payload is not None:
            self.agents.append((info.name, payload.agent_type))


def test_designated_callbacks_apply_only_to_the_named_agent() -> None:
    """call_option.go DesignateAgent and flow.go filterOptions: an agent run applies the handlers of the
    options that name it or name no agent"""
    every, mine, other = _Starts(), _Starts(), _Starts()
    agent = ChatModelAgent(name="A", model=RecordingModel([Message.assistant("ok")]))
    callbacks = [every, with_callbacks(mine).designate_agent("A"), with_callbacks(other).designate_agent("B")]
    list(agent.run("q", callbacks=callbacks))
    assert every.agents == mine.agents == [("A", "ChatModel")]
    assert other.agents == []
