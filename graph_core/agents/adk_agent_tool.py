"""An agent used as a tool (Eino `NewAgentTool`, `adk/agent_tool.go`).

At the ToolNode a sub-agent and a tool are both actions producing a result: `AgentTool(agent)` is a tool
named and described as its agent, taking `{"request": "..."}` (or `input_schema`, whose arguments JSON
the agent gets as is; or with `full_chat_history_as_input=True` the caller's conversation, see
`adk_history`), whose result is the text of the agent's last message (a streamed one read to the end).

The inner run shares its parent's session values. With the outer agent's `emit_internal_events=True` its
events also reach the outer run's events, their `run_path` prefixed with the outer run's (Eino
`ToolsConfig.EmitInternalEvents`); otherwise only the tool's result does. Actions of the inner agent
(exit, transfer, break loop) stay inside it.

**Its run is nested in the caller's.** As Eino's inner run takes the tool call's `ctx` (its callback
handlers and run path), the inner run reports to the outer run's callbacks under the tool call's node
path, `(..., "ToolNode", "<tool name>:<call id>")` (`tool_call_segment`): a recording keeps it as a
nested run of that call, and the agent's graph (`AgentTool.topology`) is drawn nested in the ToolsNode's
(`graph_core.describe`).

**Interrupts pass through.** When the inner agent interrupts, the tool interrupts the outer run as a
composite point (Eino `CompositeInterrupt`): the inner interrupt contexts hang under the tool call, so
the outer agent reports them at addresses such as `agent:outer;tool:inner:1;agent:inner;tool:t:1`, and
the inner agent's checkpoint is saved in the outer one (the tool's interrupt state). On resume the tool
puts that checkpoint back in the inner agent's store, resumes the inner run with the resume data aimed
at points inside it (re-addressed from the inner agent down), and goes on as before. An inner agent
that does not checkpoint itself (a custom agent interrupting at ADK level, `adk_interrupt`) is
checkpointed by the tool in a store of the call's own, as Eino's bridge store.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from graph_core.agents.adk_flow import FlowAgent, for_session
from graph_core.agents.adk_history import get_react_chat_history
from graph_core.agents.adk_interrupt import checkpoints_itself, resume_agent, run_agent
from graph_core.agents.adk_run import SINK, AgentEvent
from graph_core.agents.adk_runctx import iterate_in, new_run_ctx
from graph_core.checkpoint.store import InMemoryCheckpointStore
from graph_core.context import current_scope
from graph_core.errors import GraphBuildError, GraphRunError
from graph_core.interrupt import (
    InterruptContext,
    InterruptSignal,
    address_of,
    address_path,
    current_point,
    get_interrupt_state,
    scope_address,
)
from graph_core.schema import Message, ToolInfo
from graph_core.tools import get_tool_call_id

__all__ = ["AgentTool", "tool_call_segment"]


def tool_call_segment(tool_name: str, call_id: str) -> str:
    """The node-path segment an agent tool's inner run reports under, after its ToolsNode's key: the
    tool's name and the call's ID, so two calls of one agent tool in one step stay apart."""
    return f"{tool_name}:{call_id}"


class Agent(Protocol):
    """Eino's `Agent` interface as the runner and the agent tool use it."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def run(self, messages: Sequence[Message] | str | None, **options: Any) -> Iterator[AgentEvent]: ...


_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"request": {"type": "string", "description": "request to be processed"}},
    "required": ["request"],
}


class AgentTool:
    """An agent as a tool (Eino `NewAgentTool`); see the module docstring.

    `full_chat_history_as_input` is Eino's `WithFullChatHistoryAsInput()`, `input_schema` (a JSON
    Schema of the tool's parameters) its `WithAgentInputSchema`.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        full_chat_history_as_input: bool = False,
        input_schema: Mapping[str, Any] | None = None,
    ) -> None:
        self.agent = agent
        self.full_chat_history_as_input = full_chat_history_as_input
        self.input_schema = dict(input_schema) if input_schema is not None else None

    @property
    def info(self) -> ToolInfo:
        if not self.agent.name:
            raise GraphBuildError("agent tool requires a non-empty Name")
        if not self.agent.description:
            raise GraphBuildError("agent tool requires a non-empty Description")
        schema = self.input_schema if self.input_schema is not None else _REQUEST_SCHEMA
        return ToolInfo(self.agent.name, self.agent.description, dict(schema))

    def invoke(self, arguments: str) -> str:
        outer = SINK.get()
        session = outer.session if outer is not None else {}
        point = current_point()
        nested = self._nested_options()
        store = self._store()
        inputs: list[Message] | None = None
        if point is None:
            checkpoint_id = uuid.uuid4().hex
            inputs = self._input(arguments)
            events = run_agent(
                self.agent,
                inputs,
                store=store,
                session=session,
                checkpoint_id=checkpoint_id,
                **nested,
            )
        else:
            checkpoint_id, events = self._resume(store, session, nested)
        # The inner run is a run of its own sharing the caller's session values (Eino: a Runner with
        # `withSharedParentSession`), not a step of the caller's flow; its session keeps the agent's
        # own events, as the flow agent Eino's Runner wraps the agent in records them.
        inner_ctx = new_run_ctx(inputs, values=session)
        records = not isinstance(self.agent, FlowAgent)  # a flow agent records its events itself
        last: AgentEvent | None = None
        for event in iterate_in(inner_ctx, events):
            if event.error is not None:
                raise event.error
            interrupted = event.action is not None and event.action.interrupted is not None
            if records and not interrupted and event.run_path == (self.agent.name,):
                event, recorded = for_session(event)
                inner_ctx.session.add_event(recorded)
            if outer is not None and outer.emit_internal_events and not interrupted:
                outer.emit(replace(event, run_path=(*outer.run_path, *event.run_path)))
            last = event
        if last is not None and last.action is not None and last.action.interrupted is not None:
            self._interrupt(store, checkpoint_id, last)
        if last is None:
            raise GraphRunError("no event returned")
        message = last.get_message()
        return message.content if message is not None else ""

    # -- input -----------------------------------------------------------------------------------------

    def _input(self, arguments: str) -> list[Message]:
        if self.full_chat_history_as_input:
            return get_react_chat_history(self.agent.name)
        if self.input_schema is not None:
            return [Message.user(arguments)]
        request = json.loads(arguments)
        if not isinstance(request, dict):
            raise GraphRunError(f"agent tool '{self.agent.name}' expects a JSON object, got {arguments!r}")
        value: Any = request.get("request", "")  # pyright: ignore[reportUnknownMemberType]
        if not isinstance(value, str):
            raise GraphRunError(f"agent tool '{self.agent.name}': `request` must be a string, got {value!r}")
        return [Message.user(value)]

    # -- interrupt and resume --------------------------------------------------------------------------

    def _store(self) -> Any:
        """The agent's own store, or for an agent that does not checkpoint itself a store for this call
        (Eino's bridge store), where its ADK-level interrupt is saved (`adk_interrupt.run_agent`)."""
        own = getattr(self.agent, "checkpoint_store", None)
        return own if checkpoints_itself(self.agent) else InMemoryCheckpointStore()

    def _interrupt(self, store: Any, checkpoint_id: str, last: AgentEvent) -> None:
        """Interrupt the outer run at this call, the inner agent's points under it (Eino
        `CompositeInterrupt(ctx, "agent tool interrupt", data, ...)`)."""
        saved = store.get(checkpoint_id)
        if saved is None:
            raise GraphRunError("interrupt occurred but checkpoint data is missing")
        assert last.action is not None
        contexts: list[InterruptContext] = list(getattr(last.action.interrupted, "interrupt_contexts", []))
        here = self._address()
        raise InterruptSignal(
            "agent tool interrupt",
            state={"checkpoint_id": checkpoint_id, "checkpoint": saved},
            address=here,
            children=_signals(contexts, here),
        )

    def _address(self) -> str:
        scope = current_scope()
        return address_of(
            address_path(scope), (self.agent.name, get_tool_call_id()), root=scope_address(scope)
        )

    def _resume(
        self, store: Any, session: dict[str, Any], nested: dict[str, Any]
    ) -> tuple[str, Iterator[AgentEvent]]:
        saved = get_interrupt_state()
        if not isinstance(saved, dict) or "checkpoint_id" not in saved:
            raise GraphRunError(
                f"agent tool '{self.agent.name}' interrupt has happened, but cannot find interrupt state"
            )
        checkpoint_id: str = saved["checkpoint_id"]  # pyright: ignore[reportUnknownVariableType]
        if saved.get("checkpoint") is not None:  # pyright: ignore[reportUnknownMemberType]
            store.set(checkpoint_id, saved["checkpoint"])
        if getattr(self.agent, "resume", None) is None:
            raise GraphRunError(f"agent tool '{self.agent.name}': agent {self.agent.name!r} cannot resume")
        events = resume_agent(
            self.agent,
            checkpoint_id,
            store=store,
            resume_data=self._inner_resume_data(),
            session=session,
            **nested,
        )
        return checkpoint_id, events

    def _inner_resume_data(self) -> Any:
        """The resumed run's data for points inside this call, addressed from the inner agent down;
        data meant for every point (not a mapping of addresses) passes as it is."""
        point = current_point()
        targets = point.resume if point is not None else None
        if targets is None:
            return None
        if targets.everywhere:
            return targets.value
        prefix = point.address + ";" if point is not None else ""
        inner = {k[len(prefix) :]: v for k, v in targets.by_address.items() if k.startswith(prefix)}
        return inner or None

    # -- the nested run ---------------------------------------------------------------------------------

    def _nested_options(self) -> dict[str, Any]:
        """The outer run's callbacks and this call's node path, for the inner run (none outside a run,
        or in a run nobody listens to)."""
        scope = current_scope()
        if scope is None or not scope.callbacks:
            return {}
        segment = tool_call_segment(self.agent.name, get_tool_call_id())
        return {"callbacks": scope.callbacks, "parent_path": (*scope.path, segment)}

    def topology(self) -> Any:
        """The agent's graph (a `Topology`), or None for an agent that has none to show."""
        topology = getattr(self.agent, "topology", None)
        return topology() if callable(topology) else None

    def __repr__(self) -> str:
        return f"AgentTool({self.agent.name!r})"


def _signals(contexts: Sequence[InterruptContext], here: str) -> dict[str, InterruptSignal]:
    """The inner root causes and their parents as a tree of signals under the tool call's address."""
    by_address: dict[str, InterruptSignal] = {}
    top: dict[str, InterruptSignal] = {}
    for context in contexts:
        parent: InterruptSignal | None = None
        for link in context.outermost_first():
            signal = by_address.get(link.address)
            if signal is None:
                signal = InterruptSignal(link.info, address=f"{here};{link.address}")
                by_address[link.address] = signal
                if parent is None:
                    top[link.address] = signal
                else:
                    parent.children[link.address] = signal
            parent = signal
    return top
