"""ADK agent callbacks (Eino `adk/callback.go`, `adk/call_option.go`): a run's callback handlers hear
about the agent itself, with `RunInfo.kind == "Agent"`, besides the graph and nodes it runs.

`on_start(info, AgentCallbackInput)` when the run starts (its input messages, or `resume=True`), then at
once `on_end(info, AgentCallbackOutput)` whose `events` iterates the run's events as they happen (Eino
hands `OnEnd` an event iterator when `Run` returns, before the events exist). Every handler gets its own
copy of the iterator (`copy_event_iterator`); one a handler does not read costs a queue of the events.

Handlers are given in a run's `callbacks=[...]`, each a handler or a `with_callbacks(...)` option, which
`.designate_agent(name, ...)` limits to the named agents (Eino `WithCallbacks(...).DesignateAgent(...)`):
an agent run as a tool of another gets the outer run's handlers meant for it. An agent run
under a `parent_path` (an agent used as a tool) reports with that `RunInfo.path`, as its graph does.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from graph_core.agents.adk_run import AgentEvent
from graph_core.agents.adk_stream import MessageStream
from graph_core.callbacks import RunInfo
from graph_core.schema import Message

__all__ = [
    "AGENT_KIND",
    "AgentCallbackInput",
    "AgentCallbackOutput",
    "AgentRunOption",
    "common_options",
    "conv_agent_callback_input",
    "conv_agent_callback_output",
    "copy_agent_callback_output",
    "copy_event_iterator",
    "filter_options",
    "get_agent_type",
    "handlers_for",
    "nested_callbacks",
    "with_callbacks",
]

AGENT_KIND = "Agent"  # Eino `ComponentOfAgent`


@dataclass(frozen=True, slots=True)
class AgentCallbackInput:
    """What `on_start` gets: the run's input messages (empty on a resume), and whether it resumes."""

    messages: Sequence[Message]
    agent_type: str = "ChatModel"
    resume: bool = False


@dataclass(frozen=True, slots=True)
class AgentCallbackOutput:
    """What `on_end` gets: the run's events, as they happen, to the end of the run (None: no events)."""

    events: Iterator[AgentEvent] | None


def conv_agent_callback_input(value: Any) -> AgentCallbackInput | None:
    """`value` if it is an agent's callback input, else None (Eino `ConvAgentCallbackInput`), for a
    handler that hears about every kind of component."""
    return value if isinstance(value, AgentCallbackInput) else None


def conv_agent_callback_output(value: Any) -> AgentCallbackOutput | None:
    """`value` if it is an agent's callback output, else None (Eino `ConvAgentCallbackOutput`)."""
    return value if isinstance(value, AgentCallbackOutput) else None


def get_agent_type(agent: Any) -> str:
    """The agent's `get_type()` (Eino's `components.Typer`), or "" for an agent without one."""
    get_type = getattr(agent, "get_type", None)
    return str(get_type()) if callable(get_type) else ""


def copy_event_iterator(events: Iterator[AgentEvent], n: int) -> list[Iterator[AgentEvent]] | None:
    """`n` independent iterators over `events` (Eino `copyTypedEventIterator`): None for `n <= 0`, the
    iterator itself for 1; else a thread reads `events` and sends every reader its own copy of each."""
    if n <= 0:
        return None
    if n == 1:
        return [events]
    inboxes: list[queue.SimpleQueue[AgentEvent | None]] = [queue.SimpleQueue() for _ in range(n)]

    def pump() -> None:
        try:
            for event in events:
                stream = event.message_stream  # a MessageStream is read from its start by every reader
                streamed = stream is not None and not isinstance(stream, MessageStream)
                chunks = list(stream) if streamed and stream is not None else []
                for inbox in inboxes:
                    inbox.put(replace(event, message_stream=iter(chunks)) if streamed else replace(event))
        finally:
            for inbox in inboxes:
                inbox.put(None)

    threading.Thread(target=pump, name="agent-event-copies", daemon=True).start()
    return [_drain(inbox) for inbox in inboxes]


def copy_agent_callback_output(
    output: AgentCallbackOutput | None, n: int
) -> list[AgentCallbackOutput | None]:
    """One output per handler (Eino `copyAgentCallbackOutput`): without events, the same output `n` times."""
    if output is None or output.events is None:
        return [output] * n
    copies = copy_event_iterator(output.events, n) or []
    return [AgentCallbackOutput(events) for events in copies]


@dataclass(frozen=True, slots=True)
class AgentRunOption:
    """Callback handlers for agent runs, for every agent or only the designated ones (Eino
    `AgentRunOption` made by `WithCallbacks`)."""

    handlers: tuple[Any, ...] = ()
    agent_names: tuple[str, ...] = ()

    def designate_agent(self, *names: str) -> AgentRunOption:
        """Apply only to the agents named (Eino `DesignateAgent`), added to those already named."""
        return replace(self, agent_names=(*self.agent_names, *names))

    def applies_to(self, agent_name: str) -> bool:
        return not self.agent_names or agent_name in self.agent_names


def with_callbacks(*handlers: Any) -> AgentRunOption:
    """Eino `WithCallbacks`: handlers that hear about agents (and the graphs and nodes they run)."""
    return AgentRunOption(handlers=tuple(handlers))


@dataclass(frozen=True, slots=True)
class AgentRunOptions:
    """The options gathered from a run's option list (Eino `getCommonOptions`)."""

    handlers: tuple[Any, ...] = ()


def common_options(options: Iterable[Any], agent_name: str | None = None) -> AgentRunOptions:
    """Gather the handlers of `options` (plain handlers and `AgentRunOption`s); given `agent_name`, only
    those meant for that agent."""
    handlers: list[Any] = []
    for option in options:
        if isinstance(option, AgentRunOption):
            if agent_name is None or option.applies_to(agent_name):
                handlers.extend(option.handlers)
        else:
            handlers.append(option)
    return AgentRunOptions(tuple(handlers))


def handlers_for(agent_name: str, callbacks: Iterable[Any]) -> list[Any]:
    """The handlers of a run's `callbacks` meant for the agent named `agent_name`."""
    return list(common_options(callbacks, agent_name).handlers)


def filter_options(agent_name: str, callbacks: Iterable[Any]) -> list[Any]:
    """The options of `callbacks` meant for `agent_name`, kept as options (Eino `filterOptions`): plain
    handlers and undesignated options, and the options designated to that agent."""
    return [o for o in callbacks if not isinstance(o, AgentRunOption) or o.applies_to(agent_name)]


def nested_callbacks(agent_name: str, callbacks: Iterable[Any]) -> list[Any]:
    """What a workflow agent hands the agents inside it (Eino `filterCallbackHandlersForNestedAgents`
    plus the handlers they inherit through the Go context): the handlers the workflow reported to,
    now for every agent inside, and the options designated to other agents, as they were."""
    options = list(callbacks)
    kept = [o for o in options if isinstance(o, AgentRunOption) and not o.applies_to(agent_name)]
    return [*handlers_for(agent_name, options), *kept]


class EventTee:
    """Calls the handlers' `on_start` and `on_end` for one agent run; `send` hands each event to every
    handler's copy of the run's events, `close()` ends them."""

    def __init__(
        self,
        handlers: Sequence[Any],
        agent_name: str,
        agent_type: str,
        payload: AgentCallbackInput,
        path: tuple[str, ...] = (),
    ) -> None:
        self._inbox: queue.SimpleQueue[AgentEvent | None] = queue.SimpleQueue()
        info = RunInfo(None, agent_name, AGENT_KIND, path, graph_name=agent_name)
        payload = replace(payload, agent_type=agent_type)
        for handler in handlers:
            on_start = getattr(handler, "on_start", None)
            if on_start is not None:
                on_start(info, payload)
        listeners = [h.on_end for h in handlers if getattr(h, "on_end", None) is not None]
        self._listening = bool(listeners)
        outputs = copy_agent_callback_output(AgentCallbackOutput(_drain(self._inbox)), len(listeners))
        for on_end, output in zip(listeners, outputs, strict=True):
            on_end(info, output)

    def send(self, event: AgentEvent) -> AgentEvent:
        """Hand `event` to the handlers; returns the event for the run's own reader (a streamed output
        is read once, so each side then gets its own iterator over the chunks)."""
        if not self._listening:
            return event
        if event.message_stream is None or isinstance(event.message_stream, MessageStream):
            self._inbox.put(event)  # a MessageStream is read from its start by every reader
            return event
        chunks = list(event.message_stream)
        self._inbox.put(replace(event, message_stream=iter(chunks)))
        return replace(event, message_stream=iter(chunks))

    def close(self) -> None:
        self._inbox.put(None)


def _drain(inbox: queue.SimpleQueue[AgentEvent | None]) -> Iterator[AgentEvent]:
    while (event := inbox.get()) is not None:
        yield event
