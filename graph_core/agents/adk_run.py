"""What one run of the ADK `ChatModelAgent` shares: its state, the events it sends and the sink they go
to, the tool helpers that attach actions to them, and the node components that emit them.

Kept apart from `adk.py` (the agent: graph wiring, run loop, resume and cancel) because these are
reached from inside tools and nodes through a context variable, not through the agent object.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from graph_core.agents.adk_runctx import current_run_ctx
from graph_core.agents.adk_stream import MessageStream
from graph_core.agents.cancel import (
    Canceller,
    CancelRequest,
)
from graph_core.errors import ExceedMaxIterationsError, StreamCanceledError
from graph_core.schema import Message, ToolInfo, concat_messages
from graph_core.tools import ToolsNode, get_tool_call_id, tool
from graph_core.tools.index import ToolsNodeOptions

DEFAULT_MAX_ITERATIONS = 20


@dataclass(slots=True)
class BreakLoopAction:
    """Asks the loop workflow running the agent to stop (Eino `BreakLoopAction`, made by
    `new_break_loop_action`; for code, not for models). The loop that acts on it sets `done` and
    `current_iterations` (the 0-based iteration it stopped in), so loops further out ignore it."""

    from_: str = ""
    done: bool = False
    current_iterations: int = 0


@dataclass(frozen=True, slots=True)
class AgentAction:
    """What an agent asks the agents around it to do (Eino `AgentAction`): the ChatModelAgent ends
    its run on `exit`; a flow agent runs the agent named by `transfer_to_agent` next (see
    `adk_flow`); a loop workflow stops on `break_loop` (see `adk_workflow`)."""

    exit: bool = False
    interrupted: Any = None
    transfer_to_agent: str | None = None  # Eino `TransferToAgentAction.DestAgentName`
    break_loop: BreakLoopAction | None = None
    customized: Any = None
    # Eino `internalInterrupted`: the `InterruptSignal` behind an ADK-level interrupt (`adk_interrupt`),
    # which whoever runs the agent saves; `interrupted` is what the caller reads.
    internal_interrupted: Any = field(default=None, compare=False, repr=False)


def new_exit_action() -> AgentAction:
    """Eino `NewExitAction`."""
    return AgentAction(exit=True)


def new_transfer_to_agent_action(dest_agent_name: str) -> AgentAction:
    """Eino `NewTransferToAgentAction`."""
    return AgentAction(transfer_to_agent=dest_agent_name)


def new_break_loop_action(agent_name: str) -> AgentAction:
    """Eino `NewBreakLoopAction`: `agent_name` is the agent asking the loop to stop."""
    return AgentAction(break_loop=BreakLoopAction(from_=agent_name))


@dataclass(frozen=True, slots=True)
class ChatModelAgentResumeData:
    """Resume data aimed at the agent itself (its `agent:<name>` address; Eino
    `ChatModelAgentResumeData`): `history_modifier` rewrites the saved messages before the run goes on."""

    history_modifier: Callable[[list[Message]], list[Message]] | None = None


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """One thing that happened: a model output or tool result (`message`), a failure (`error`), an action.

    An agent may send its output as a stream instead (`message_stream`, Eino `MessageVariant` with
    `IsStreaming`); `get_message()` reads either. A ChatModelAgent's streaming run does so for its model
    outputs: a `MessageStream` sent when the model's stream opens (see `graph_core.agents.adk_stream`).
    `run_path` names the agents the event came through, outermost first (Eino `RunPath`): the run
    context's path in a flow or workflow (`adk_runctx`), the agent's name otherwise; an agent tool
    prefixes the caller's path to the inner events it forwards.
    """

    agent_name: str
    message: Message | None = None
    error: BaseException | None = None
    action: AgentAction | None = None
    checkpoint_id: str | None = None  # set on the event of an interrupted or cancelled run
    message_stream: Iterator[Message] | MessageStream | None = None
    run_path: tuple[str, ...] = ()

    @property
    def is_streaming(self) -> bool:
        return self.message_stream is not None

    def get_message(self) -> Message | None:
        """The message, or the stream's chunks concatenated (Eino `GetMessage`); a stream that ended with
        an error raises it. A plain iterator is read once; a `MessageStream` can be read again."""
        if self.message_stream is None:
            return self.message
        chunks = list(self.message_stream)
        return concat_messages(chunks) if chunks else None


def event_from_message(
    message: Message | None = None, stream: Iterator[Message] | None = None, *, agent_name: str = ""
) -> AgentEvent:
    """An output event for a whole message or a stream of chunks (Eino `EventFromMessage`)."""
    return AgentEvent(agent_name, message=message, message_stream=stream)


class AdkState(BaseModel):
    """The per-run state (Eino's `State`, the JSON-friendly part)."""

    agent_name: str = ""
    messages: list[Message] = Field(default_factory=lambda: [])
    remaining_iterations: int = DEFAULT_MAX_ITERATIONS
    has_return_directly: bool = False
    return_directly_tool_call_id: str = ""
    extra: dict[str, Any] = Field(default_factory=lambda: {})  # run-local values (Eino `State.Extra`)


@dataclass(slots=True)
class RunSink:
    """Where a run's events go; reached through a context variable so state stays JSON-only."""

    emit: Callable[[AgentEvent], None]
    actions: dict[str, AgentAction] = field(default_factory=lambda: {})
    held: AgentEvent | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    canceller: Canceller = field(default_factory=Canceller)
    # What the model-call hooks keep for the run (beside the JSON state): the tool list a
    # `before_model_rewrite_state` set, the retry layer's mute, the model that last succeeded
    # (failover), the session values `output_key` writes to, whether agent tools forward inner events.
    tool_infos: list[ToolInfo] | None = None
    suppress: bool = False
    failover: Any = None
    session: dict[str, Any] = field(default_factory=lambda: {})
    emit_internal_events: bool = False
    run_path: tuple[str, ...] = ()  # Eino RunPath of this run (its agent); forwarding prepends the caller's
    streams: list[MessageStream] = field(default_factory=lambda: [])
    after_tool_calls_hook: Callable[[], None] | None = None

    def open_stream(self) -> MessageStream:
        """A model output's event stream, ended by `end_streams` if the run abandons it."""
        stream = MessageStream()
        with self.lock:
            self.streams.append(stream)
        return stream

    def end_streams(self) -> None:
        """At the end of the run: end the event streams an abandoned model call left open."""
        with self.lock:
            streams, self.streams = self.streams, []
        for stream in streams:
            stream.close(StreamCanceledError())

    @property
    def interrupt_event(self) -> threading.Event:
        return self.canceller.interrupt_event

    @property
    def cancel(self) -> CancelRequest | None:
        return self.canceller.request


SINK: ContextVar[RunSink | None] = ContextVar("graph_core_adk_sink", default=None)


def send_tool_gen_action(action: AgentAction) -> None:
    """Inside a tool: attach `action` to this tool call's event (Eino `SendToolGenAction`)."""
    sink = SINK.get()
    if sink is not None:
        with sink.lock:
            sink.actions[get_tool_call_id()] = action


def _session() -> tuple[dict[str, Any], threading.Lock] | None:
    """The running ChatModelAgent's session values, else those of the run context (a custom agent
    run by a flow agent or a Runner)."""
    sink = SINK.get()
    if sink is not None:
        return sink.session, sink.lock
    ctx = current_run_ctx()
    if ctx is not None:
        return ctx.session.values, ctx.session.lock
    return None


def get_session_values() -> dict[str, Any]:
    """Inside an agent run: the run's session values (Eino `GetSessionValues`; `output_key` writes
    here; a `Runner` run starts with an empty session, an agent tool shares its parent's, the agents
    of a flow share one)."""
    found = _session()
    if found is None:
        return {}
    values, lock = found
    with lock:
        return dict(values)


def get_session_value(key: str) -> tuple[Any, bool]:
    """Inside an agent run: one session value and whether it exists (Eino `GetSessionValue`)."""
    found = _session()
    if found is None:
        return None, False
    values, lock = found
    with lock:
        return (values[key], True) if key in values else (None, False)


def add_session_values(values: dict[str, Any] | None) -> None:
    """Inside an agent run: set several session values (Eino `AddSessionValues`)."""
    found = _session()
    if found is not None and values:
        target, lock = found
        with lock:
            target.update(values)


def add_session_value(key: str, value: Any) -> None:
    """Inside an agent run: set one session value (Eino `AddSessionValue`); outside, nothing happens."""
    found = _session()
    if found is not None:
        values, lock = found
        with lock:
            values[key] = value


@tool(name="exit", description="Exit the agent process and return the final result.")
def exit_tool(final_result: str) -> str:
    """Exit the agent process and return the final result.

    Args:
        final_result: The final answer to return to the user.
    """
    send_tool_gen_action(AgentAction(exit=True))
    return final_result


class AgentToolsNode(ToolsNode):
    """The agent's ToolsNode; in stream mode it reads the tools' streams to the end in the node's task.

    A streamed result reaches users through its tool event, whose stream fills as the node reads the
    tool (`adk_tool_events`), so nothing is lost by not streaming through the graph; and a stream read
    later (by the node's post-handler, outside the task) could not be abandoned by an immediate cancel
    while a tool blocks mid-stream (`TestWithCancel_CancelImmediate_StreamableToolAborted`).
    """

    def stream(
        self, message: Message, *, options: ToolsNodeOptions | None = None
    ) -> Iterator[list[Message | None]]:
        return iter(list(super().stream(message, options=options)))


def with_history(
    data: ChatModelAgentResumeData, then: Callable[[AdkState], Any] | None
) -> Callable[[AdkState], Any] | None:
    """A resume's state modifier that first applies the agent's own `ChatModelAgentResumeData`."""
    modifier = data.history_modifier
    if modifier is None:
        return then

    def modify(state: AdkState) -> Any:
        state.messages = list(modifier(list(state.messages)))
        return then(state) if then is not None else None

    return modify


def unwrap_error(exc: BaseException) -> BaseException:
    """Surface ExceedMaxIterationsError itself when the engine wrapped it in a NodeRunError."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ExceedMaxIterationsError):
            return seen
        seen = seen.__cause__
    return exc
