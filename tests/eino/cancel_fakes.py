"""Fakes for the ports of Eino's `adk/cancel_test.go` and `adk/cancel_edge_test.go`: models and tools
that block until released (Go's sleeps and `unblockCh`, here events, so the tests are deterministic),
and a helper that drains a run on a thread while the test cancels it."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from graph_core.agents.adk import AgentEvent, ChatModelAgent
from graph_core.agents.cancel import CancelError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo

WAIT = 10.0  # seconds; only reached when something is broken


class BlockingModel:
    """Go `cancelTestChatModel`/`newBlockingChatModel`: calls listed in `blocking` wait for `release`;
    with `cycle=True` the script repeats (Go's models answer the same message on every call)."""

    def __init__(
        self, script: Sequence[Message], blocking: Sequence[int] = (0,), *, cycle: bool = False
    ) -> None:
        self.inner = ScriptedChatModel(script, cycle=cycle)
        self.blocking = set(blocking)
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def with_tools(self, tools: Sequence[ToolInfo]) -> BlockingModel:
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


class SlowTool:
    """Go `slowTool`/`slowToolWithSignal`/`newBlockingTool`: counts its calls; blocks until released
    (`release` set from the start: it does not block)."""

    def __init__(self, name: str = "slow_tool", result: str = "tool result", *, blocks: bool = True) -> None:
        self.info = ToolInfo(name, "A slow tool for testing", {"type": "object"})
        self.result = result
        self.started = threading.Event()
        self.release = threading.Event()
        if not blocks:
            self.release.set()
        self.calls = 0
        self._lock = threading.Lock()

    def invoke(self, arguments: str) -> str:
        with self._lock:
            self.calls += 1
        self.started.set()
        assert self.release.wait(WAIT)
        return self.result


def tool_call(
    call_id: str = "call_1", name: str = "slow_tool", arguments: str = '{"input": "test"}'
) -> Message:
    return Message.assistant("", tool_calls=[ToolCall(id=call_id, name=name, arguments=arguments)])


def run_in_thread(agent: ChatModelAgent, **options: Any) -> tuple[threading.Thread, list[AgentEvent]]:
    """`agent.run("Use the tool", **options)` drained on a thread; join it, then read the events."""
    events: list[AgentEvent] = []
    thread = threading.Thread(target=lambda: events.extend(agent.run("Use the tool", **options)), daemon=True)
    thread.start()
    return thread, events


def cancel_errors(events: list[AgentEvent]) -> list[CancelError]:
    return [e.error for e in events if isinstance(e.error, CancelError)]


def errors(events: list[AgentEvent]) -> list[BaseException]:
    return [e.error for e in events if e.error is not None]
