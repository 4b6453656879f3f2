"""What users plug into the ADK `ChatModelAgent`: handlers and middlewares (Eino `adk/handler.go`,
`AgentMiddleware` in `adk/chatmodel.go`).

Two kinds, as in Eino:

- `AgentMiddleware` (Eino's first kind, a record of optional parts): `additional_instruction` and
  `additional_tools` join the agent's; `before_chat_model(state)` and `after_chat_model(state)` see the
  model call's state (`ChatModelAgentState`, mutable: what they do to `messages` is kept);
  `wrap_tool_call` is a `ToolMiddleware` around every tool.
- `ChatModelAgentMiddleware` (Eino's handler interface; subclass it and override what you need; every
  method's default leaves things as they are): `before_agent` rewrites the run's instruction, tools and
  return-directly set (`ChatModelAgentContext`); `before_model_rewrite_state` / `after_model_rewrite_state`
  return the state the model call uses / the state after it; `wrap_model` wraps the model;
  `wrap_invokable_tool_call` / `wrap_streamable_tool_call` wrap a tool endpoint (`arguments -> result`)
  for one call (`ToolContext`: name and call ID); `wrap_enhanced_invokable_tool_call` /
  `wrap_enhanced_streamable_tool_call` wrap an enhanced tool's (`ToolArgument -> ToolResult`, or a
  stream of `ToolResult` chunks); each wrapper is asked only for the tools of its kind, as in Eino.
  `after_agent` sees the final state once the agent ends well (not after an error, an interrupt or
  running out of iterations).

Order, as in Eino: middlewares' instructions before handlers' `before_agent`; around a model call
`before_chat_model` (middlewares), then `before_model_rewrite_state` (handlers, first listed first),
the call, then `after_model_rewrite_state` (handlers), then `after_chat_model` (middlewares). Tool
wrappers: middlewares' `wrap_tool_call` first (outer), then handlers (first listed outermost).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph_core.agents.adk_run import AdkState
from graph_core.checkpoint.codec import encode_value
from graph_core.errors import CheckpointSerializationError, GraphRunError, StateLookupError
from graph_core.multimodal import ToolArgument, ToolResult
from graph_core.schema import Message, ToolInfo
from graph_core.state import process_state
from graph_core.tools import ToolInput, ToolMiddleware

__all__ = [
    "AgentMiddleware",
    "ChatModelAgentContext",
    "ChatModelAgentMiddleware",
    "ChatModelAgentState",
    "EventSenderModelWrapper",
    "EventSenderToolWrapper",
    "ModelContext",
    "ToolContext",
    "delete_run_local_value",
    "get_run_local_value",
    "handlers_to_tool_middlewares",
    "set_run_local_value",
]

InvokableToolEndpoint = Callable[[str], str]
StreamableToolEndpoint = Callable[[str], Iterator[str]]
EnhancedInvokableToolEndpoint = Callable[[ToolArgument], ToolResult]
EnhancedStreamableToolEndpoint = Callable[[ToolArgument], Iterator[ToolResult]]


@dataclass(slots=True)
class ChatModelAgentState:
    """The model call's view of the agent's state (Eino `ChatModelAgentState`)."""

    messages: list[Message]
    tool_infos: list[ToolInfo]


@dataclass(slots=True)
class ChatModelAgentContext:
    """What `before_agent` may rewrite for one run (Eino `ChatModelAgentContext`)."""

    instruction: str
    tools: list[Any]
    return_directly: set[str]


@dataclass(frozen=True, slots=True)
class ModelContext:
    """What `wrap_model` and the state hooks learn about the call (Eino `ModelContext`)."""

    tools: list[ToolInfo]
    model_retry_config: Any = None
    model_failover_config: Any = None


@dataclass(frozen=True, slots=True)
class ToolContext:
    """The call a tool wrapper wraps (Eino `ToolContext`)."""

    name: str
    call_id: str


@dataclass(frozen=True, slots=True)
class AgentMiddleware:
    """Eino `AgentMiddleware`; see the module docstring."""

    additional_instruction: str = ""
    additional_tools: tuple[Any, ...] = ()
    before_chat_model: Callable[[ChatModelAgentState], None] | None = None
    after_chat_model: Callable[[ChatModelAgentState], None] | None = None
    wrap_tool_call: ToolMiddleware | None = None


class ChatModelAgentMiddleware:
    """Eino `ChatModelAgentMiddleware` with `BaseChatModelAgentMiddleware`'s defaults; subclass it."""

    def before_agent(self, context: ChatModelAgentContext) -> ChatModelAgentContext:
        return context

    def after_agent(self, state: ChatModelAgentState) -> None:
        return None

    def before_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        return state

    def after_model_rewrite_state(
        self, state: ChatModelAgentState, model_context: ModelContext
    ) -> ChatModelAgentState:
        return state

    def wrap_model(self, model: Any, model_context: ModelContext) -> Any:
        return model

    def wrap_invokable_tool_call(
        self, endpoint: InvokableToolEndpoint, tool_context: ToolContext
    ) -> InvokableToolEndpoint:
        return endpoint

    def wrap_streamable_tool_call(
        self, endpoint: StreamableToolEndpoint, tool_context: ToolContext
    ) -> StreamableToolEndpoint:
        return endpoint

    def wrap_enhanced_invokable_tool_call(
        self, endpoint: EnhancedInvokableToolEndpoint, tool_context: ToolContext
    ) -> EnhancedInvokableToolEndpoint:
        return endpoint

    def wrap_enhanced_streamable_tool_call(
        self, endpoint: EnhancedStreamableToolEndpoint, tool_context: ToolContext
    ) -> EnhancedStreamableToolEndpoint:
        return endpoint


class EventSenderModelWrapper(ChatModelAgentMiddleware):
    """Eino `NewEventSenderModelWrapper()`: listed among the handlers, the model output's event is sent
    at this position of the model wrappers instead of outside them all (the default), so the handlers
    listed before it change the model's output without changing its event."""


class EventSenderToolWrapper(ChatModelAgentMiddleware):
    """Eino `NewEventSenderToolWrapper()`: listed among the handlers, a tool result's event is sent at
    this position of the tool wrappers instead of outside them all (the default)."""


def handler_tool_middleware(handler: ChatModelAgentMiddleware) -> ToolMiddleware:
    """A handler's tool wrappers as a ToolsNode middleware (Eino `handlersToToolMiddlewares`): each call
    asks the handler for a wrapped endpoint of `arguments -> result` (an enhanced tool's: `ToolArgument
    -> ToolResult`), then calls it with the call's arguments. The endpoint the handler wraps calls the
    next one with the arguments it is given, so a wrapper may rewrite them."""

    def wrap(
        ask: Callable[[Any, ToolContext], Callable[[Any], Any]],
        to_arguments: Callable[[Any], str],
        from_arguments: Callable[[str], Any],
    ) -> Callable[[Callable[[ToolInput], Any]], Callable[[ToolInput], Any]]:
        def middleware(next_ep: Callable[[ToolInput], Any]) -> Callable[[ToolInput], Any]:
            def endpoint(inp: ToolInput) -> Any:
                def inner(argument: Any) -> Any:
                    return next_ep(ToolInput(inp.name, to_arguments(argument), inp.call_id))

                wrapped = ask(inner, ToolContext(inp.name, inp.call_id))
                return wrapped(from_arguments(inp.arguments))

            return endpoint

        return middleware

    def text(arguments: str) -> str:
        return arguments

    def argument_text(argument: ToolArgument) -> str:
        return argument.text

    def argument(arguments: str) -> ToolArgument:
        return ToolArgument(text=arguments)

    return ToolMiddleware(
        invoke=wrap(handler.wrap_invokable_tool_call, text, text),
        stream=wrap(handler.wrap_streamable_tool_call, text, text),
        enhanced_invoke=wrap(handler.wrap_enhanced_invokable_tool_call, argument_text, argument),
        enhanced_stream=wrap(handler.wrap_enhanced_streamable_tool_call, argument_text, argument),
    )


def handlers_to_tool_middlewares(handlers: Sequence[ChatModelAgentMiddleware]) -> list[ToolMiddleware]:
    """One ToolsNode middleware per handler, in the handlers' order (first listed outermost), each with
    all four wrappers (Eino `handlersToToolMiddlewares`)."""
    return [handler_tool_middleware(handler) for handler in handlers]


@dataclass(slots=True)
class Hooks:
    """A run's handlers and middlewares, in the order they apply (built once per agent)."""

    handlers: list[ChatModelAgentMiddleware] = field(default_factory=lambda: [])
    middlewares: list[AgentMiddleware] = field(default_factory=lambda: [])

    @property
    def places_tool_event_sender(self) -> bool:
        return any(isinstance(h, EventSenderToolWrapper) for h in self.handlers)

    def tool_middlewares(self, event_sender: ToolMiddleware | None = None) -> list[ToolMiddleware]:
        """Middlewares' `wrap_tool_call`, then the handlers' tool wrappers; an `EventSenderToolWrapper`
        handler stands for `event_sender`."""
        legacy = [m.wrap_tool_call for m in self.middlewares if m.wrap_tool_call is not None]
        handlers = [
            event_sender if isinstance(h, EventSenderToolWrapper) else handler_tool_middleware(h)
            for h in self.handlers
            if event_sender is not None or not isinstance(h, EventSenderToolWrapper)
        ]
        return [*legacy, *(m for m in handlers if m is not None)]

    def before_model(self, state: ChatModelAgentState, mc: ModelContext) -> ChatModelAgentState:
        for m in self.middlewares:
            if m.before_chat_model is not None:
                m.before_chat_model(state)
        for h in self.handlers:
            state = h.before_model_rewrite_state(state, mc)
        return state

    def after_model(self, state: ChatModelAgentState, mc: ModelContext) -> ChatModelAgentState:
        for h in self.handlers:
            state = h.after_model_rewrite_state(state, mc)
        for m in self.middlewares:
            if m.after_chat_model is not None:
                m.after_chat_model(state)
        return state


# -- run-local values (Eino `SetRunLocalValue`, `GetRunLocalValue`, `DeleteRunLocalValue`) --------------


def _run_state(name: str, fn: Callable[[dict[str, Any]], Any]) -> Any:
    try:
        return process_state(AdkState, lambda state: fn(state.extra))
    except StateLookupError as exc:
        raise GraphRunError(
            f"{name} failed: must be called within a ChatModelAgent run() or resume() execution context"
        ) from exc


def check_run_local_value(key: str, value: Any) -> None:
    """A run-local value is saved in the agent's checkpoint, so it must be a value checkpoints can write
    (Eino checks gob encodability)."""
    try:
        encode_value(value, f"run-local value {key!r}")
    except CheckpointSerializationError as exc:
        raise CheckpointSerializationError(
            f"run-local value {key!r} of type `{type(value).__module__}.{type(value).__qualname__}` is not "
            "checkpoint-serializable: use a pydantic model, a dataclass or an enum (register it with "
            "graph_core.checkpoint.register_type for a stable name), or keep values that need not survive an "
            "interrupt in a contextvars.ContextVar instead"
        ) from exc


def set_run_local_value(key: str, value: Any) -> None:
    """Inside a handler of a running agent: set a value kept for this run only (in its state, so it
    survives an interrupt and resume), Eino `SetRunLocalValue`. Outside a run: GraphRunError."""
    check_run_local_value(key, value)
    _run_state("SetRunLocalValue", lambda extra: extra.__setitem__(key, value))


def get_run_local_value(key: str) -> tuple[Any, bool]:
    """`(value, True)` for a value set in this run, else `(None, False)` (Eino `GetRunLocalValue`)."""
    return _run_state("GetRunLocalValue", lambda extra: (extra.get(key), key in extra))


def delete_run_local_value(key: str) -> None:
    """Remove a run-local value (Eino `DeleteRunLocalValue`); a missing key is no error."""
    _run_state("DeleteRunLocalValue", lambda extra: extra.pop(key, None))
