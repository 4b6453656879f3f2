"""ADK agent callbacks (Eino `adk/callback.go`): a run's callback handlers hear about the agent itself,
with `RunInfo.kind == "Agent"`, besides the graph and nodes it runs.

`on_start(info, AgentCallbackInput)` when the run starts (its input messages, or `resume=True`), then at
once `on_end(info, AgentCallbackOutput)` whose `events` iterates the run's events as they happen (Eino
hands `OnEnd` an event iterator when `Run` returns, before the events exist). Every handler gets its own
iterator; one a handler does not read costs a queue of the run's events. An agent run under a
`parent_path` (an agent used as a tool) reports with that `RunInfo.path`, as its graph does.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from graph_core.agents.adk_run import AgentEvent
from graph_core.callbacks import RunInfo
from graph_core.schema import Message

__all__ = ["AGENT_KIND", "AgentCallbackInput", "AgentCallbackOutput"]

AGENT_KIND = "Agent"  # Eino `ComponentOfAgent`


@dataclass(frozen=True, slots=True)
class AgentCallbackInput:
    """What `on_start` gets: the run's input messages (empty on a resume), and whether it resumes."""

    messages: Sequence[Message]
    agent_type: str = "ChatModel"
    resume: bool = False


@dataclass(frozen=True, slots=True)
class AgentCallbackOutput:
    """What `on_end` gets: the run's events, as they happen, to the end of the run."""

    events: Iterator[AgentEvent]


class EventTee:
    """Copies a run's events to each listening handler's iterator; `close()` ends them all."""

    def __init__(
        self,
        handlers: Sequence[Any],
        agent_name: str,
        payload: AgentCallbackInput,
        path: tuple[str, ...] = (),
    ) -> None:
        self._queues: list[queue.SimpleQueue[AgentEvent | None]] = []
        info = RunInfo(None, agent_name, AGENT_KIND, path, graph_name=agent_name)
        for handler in handlers:
            on_start = getattr(handler, "on_start", None)
            if on_start is not None:
                on_start(info, payload)
        for handler in handlers:
            on_end = getattr(handler, "on_end", None)
            if on_end is not None:
                inbox: queue.SimpleQueue[AgentEvent | None] = queue.SimpleQueue()
                self._queues.append(inbox)
                on_end(info, AgentCallbackOutput(_drain(inbox)))

    def send(self, event: AgentEvent) -> None:
        for inbox in self._queues:
            inbox.put(event)

    def close(self) -> None:
        for inbox in self._queues:
            inbox.put(None)


def _drain(inbox: queue.SimpleQueue[AgentEvent | None]) -> Iterator[AgentEvent]:
    while (event := inbox.get()) is not None:
        yield event
