"""The ADK `ChatModelAgent`'s model nodes: the ReAct graph's `ChatModel` (Eino's state model wrapper,
`typedStateModelWrapper` in `adk/wrappers.go`) and the no-tools chain's model.

One model call of the ReAct graph, top to bottom (Eino's order):

1. read the state's history and tool list; `before_chat_model` (middlewares) and
   `before_model_rewrite_state` (handlers) may rewrite them, and what they return is written back;
2. call the chain `failover -> retry -> event sender -> handlers' wrap_model -> model`
   (`graph_core.agents.adk_retry`), so the event of an accepted output is sent once, before step 3;
3. append the output to the history; `after_model_rewrite_state` (handlers) and `after_chat_model`
   (middlewares) see it, and the history they leave is written back; the node's output is the last
   message of that history, so a hook that replaces it with one carrying tool calls sends the run to
   the tools node (Eino: `state.Messages[len-1]`), while the event already sent keeps the model's.

Without hooks, retry or failover the node takes a short path with the same result: the model gets a
`HistoryView` of the state (O(1) per round) and its output is appended and reported.

The model call's options (`graph_core.call_options.node_options("ChatModel")`) are the run's chat model
options (`agent.run(..., options=[with_chat_model_options(...)])`), then `ChatModelOptions(tools=...)`
with the tool list of this call, as Eino's state model wrapper appends `model.WithTools` (state last,
so it wins), then what the retry layer adds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from graph_core.agents.adk_handlers import (
    ChatModelAgentState,
    EventSenderModelWrapper,
    Hooks,
    ModelContext,
)
from graph_core.agents.adk_retry import (
    CURRENT_MODEL,
    FailoverMemory,
    ModelFailoverConfig,
    ModelRetryConfig,
    RetryHooks,
    StreamEndpoint,
    StreamGate,
    with_failover,
    with_retry,
    with_stream_failover,
    with_stream_retry,
)
from graph_core.agents.adk_run import SINK, AdkState, AgentEvent
from graph_core.agents.adk_stream import MessageStream
from graph_core.call_options import ChatModelOptions, added_options
from graph_core.errors import GraphRunError
from graph_core.history import HistoryView
from graph_core.schema import Message, ToolInfo, concat_messages
from graph_core.state import process_state

__all__ = ["EventModel", "StateModel"]

Endpoint = Callable[[list[Message]], Message]


class _EndpointModel:
    """An endpoint seen as a model, for a handler's `wrap_model` (Eino `typedEndpointModel`): on the
    streaming path its `stream` is the inner stream endpoint, else its `generate` is the inner one."""

    def __init__(self, endpoint: Endpoint | None, stream_endpoint: StreamEndpoint | None = None) -> None:
        self._endpoint = endpoint
        self._stream_endpoint = stream_endpoint

    def generate(self, messages: Sequence[Message]) -> Message:
        if self._endpoint is None:
            assert self._stream_endpoint is not None
            return concat_messages(list(self._stream_endpoint(list(messages))))
        return self._endpoint(list(messages))

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        if self._stream_endpoint is None:
            return iter((self.generate(messages),))
        return self._stream_endpoint(list(messages))

    def with_tools(self, _tools: Sequence[ToolInfo]) -> _EndpointModel:
        return self


def _tee(chunks: Iterator[Message], stream: MessageStream, gate: StreamGate) -> Iterator[Message]:
    """Pass a model stream on, copying each chunk into its event's stream; the gate ends that stream."""
    try:
        for chunk in chunks:
            stream.put(chunk.model_copy())
            yield chunk
    except Exception as exc:
        gate.finish(stream, exc)
        raise
    gate.finish(stream, None)


def send_stream(agent_name: str, chunks: Iterator[Message], gate: StreamGate) -> Iterator[Message]:
    """The event sender on the streaming path (Eino `typedEventSenderModel.Stream`): the event is sent
    now, with a stream its reader sees fill as `chunks` are read."""
    sink = SINK.get()
    if sink is None:
        return chunks
    stream = sink.open_stream()
    sink.emit(AgentEvent(agent_name, message_stream=stream))
    return _tee(chunks, stream, gate)


class StateModel:
    """The ChatModel node's component: calls the model with the state's messages, not its input."""

    def __init__(
        self,
        model: Any,
        agent_name: str,
        *,
        raw_model: Any = None,
        tool_infos: Sequence[ToolInfo] = (),
        hooks: Hooks | None = None,
        retry: ModelRetryConfig | None = None,
        failover: ModelFailoverConfig | None = None,
    ) -> None:
        self.model = model  # bound to `tool_infos`
        self.raw_model = raw_model if raw_model is not None else model
        self.agent_name = agent_name
        self.tool_infos = list(tool_infos)
        self.hooks = hooks if hooks is not None and (hooks.handlers or hooks.middlewares) else None
        self.retry = retry
        self.failover = failover
        self._plain = self.hooks is None and retry is None and failover is None
        self._tools_option = ChatModelOptions(tools=tuple(self.tool_infos))

    # -- the short path ---------------------------------------------------------------------------------

    def _record(self, output: Message) -> Message:
        process_state(AdkState, lambda s: s.messages.append(output))
        sink = SINK.get()
        if sink is not None:
            sink.emit(AgentEvent(self.agent_name, message=output))
        return output

    def _report(self, output: Message) -> None:
        """The event sender: a copy, so hooks that edit the history after the call leave the event as
        the model gave it (Eino `copyMessage`); muted while a retry decision is pending."""
        sink = SINK.get()
        if sink is not None and not sink.suppress:
            sink.emit(AgentEvent(self.agent_name, message=output.model_copy()))

    @staticmethod
    def _history() -> HistoryView[Message]:
        """The state's history as it is at this call: a fixed `HistoryView` (Eino's slice header), O(1)
        per round where a copy cost O(history). The state list only grows at its end, so the view keeps
        showing the history of this call."""
        return process_state(AdkState, lambda s: HistoryView(s.messages))

    # -- the hooked path --------------------------------------------------------------------------------

    def _bound(self, infos: list[ToolInfo], model: Any = None) -> Any:
        if model is None:
            if infos == self.tool_infos:
                return self.model
            model = self.raw_model
        return model.with_tools(infos) if infos and hasattr(model, "with_tools") else model

    def _endpoint(self, infos: list[ToolInfo], mc: ModelContext) -> Endpoint:
        """The generate chain: `failover -> retry -> event sender -> handlers' wrap_model -> model`."""

        def raw(messages: list[Message]) -> Message:
            return self._bound(infos, CURRENT_MODEL.get()).generate(messages)

        def sender(inner: Endpoint) -> Endpoint:
            def send(messages: list[Message]) -> Message:
                output = inner(messages)
                self._report(output)
                return output

            return send

        endpoint: Endpoint = raw
        for handler in reversed(self._handlers()):
            if isinstance(handler, EventSenderModelWrapper):
                endpoint = sender(endpoint)
            else:
                endpoint = self._wrapped(handler, endpoint, mc)
        if not self._places_sender():
            endpoint = sender(endpoint)
        sink = SINK.get()
        if self.retry is not None:
            endpoint = with_retry(endpoint, self.retry, _retry_hooks(sink, self._report))
        if self.failover is not None:
            endpoint = with_failover(endpoint, self.failover, self._failover_memory())
        return endpoint

    def _handlers(self) -> list[Any]:
        return self.hooks.handlers if self.hooks else []

    def _places_sender(self) -> bool:
        """A handler places the event sender (Eino `NewEventSenderModelWrapper`), else it is outermost."""
        return any(isinstance(h, EventSenderModelWrapper) for h in self._handlers())

    def _failover_memory(self) -> FailoverMemory:
        sink = SINK.get()
        memory = sink.failover if sink is not None else None
        if memory is None:
            memory = FailoverMemory(self.raw_model)
            if sink is not None:
                sink.failover = memory
        return memory

    def _stream_endpoint(self, infos: list[ToolInfo], mc: ModelContext) -> StreamEndpoint:
        """The streaming chain: `failover -> retry -> event sender -> handlers' wrap_model -> model`,
        each attempt's stream sent in its own event as it comes."""

        def raw(messages: list[Message]) -> Iterator[Message]:
            return iter(self._bound(infos, CURRENT_MODEL.get()).stream(messages))

        gate = StreamGate(self.retry)

        def sender(inner: StreamEndpoint) -> StreamEndpoint:
            return lambda messages: send_stream(self.agent_name, inner(messages), gate)

        endpoint: StreamEndpoint = raw
        for handler in reversed(self._handlers()):
            if isinstance(handler, EventSenderModelWrapper):
                endpoint = sender(endpoint)
            else:
                endpoint = self._wrapped_stream(handler, endpoint, mc)
        if not self._places_sender():
            endpoint = sender(endpoint)
        if self.retry is not None:
            endpoint = with_stream_retry(endpoint, self.retry, gate, _retry_hooks(SINK.get(), self._report))
        if self.failover is not None:
            endpoint = with_stream_failover(endpoint, self.failover, self._failover_memory())
        return endpoint

    @staticmethod
    def _wrapped_stream(handler: Any, inner: StreamEndpoint, mc: ModelContext) -> StreamEndpoint:
        def endpoint(messages: list[Message]) -> Iterator[Message]:
            return iter(handler.wrap_model(_EndpointModel(None, inner), mc).stream(messages))

        return endpoint

    @staticmethod
    def _wrapped(handler: Any, inner: Endpoint, mc: ModelContext) -> Endpoint:
        def endpoint(messages: list[Message]) -> Message:
            return handler.wrap_model(_EndpointModel(inner), mc).generate(messages)

        return endpoint

    def _hooked(self, streaming: bool) -> Message:
        sink = SINK.get()
        messages = process_state(AdkState, lambda s: list(s.messages))
        infos = list(sink.tool_infos) if sink is not None and sink.tool_infos is not None else self.tool_infos
        state = ChatModelAgentState(messages, infos)
        mc = ModelContext(list(infos), self.retry, self.failover)
        if self.hooks is not None:
            state = self.hooks.before_model(state, mc)
            self._write(state)
        tools_option = (
            self._tools_option
            if state.tool_infos == self.tool_infos
            else ChatModelOptions(tools=tuple(state.tool_infos))
        )
        with added_options("ChatModel", tools_option):
            if streaming:
                output = concat_messages(list(self._stream_endpoint(state.tool_infos, mc)(state.messages)))
            else:
                output = self._endpoint(state.tool_infos, mc)(state.messages)
        if self.retry is not None and self.retry.should_retry is not None:
            state.messages = process_state(AdkState, lambda s: list(s.messages))  # a persisted rewrite
        state.messages = [*state.messages, output]
        if self.hooks is not None:
            state = self.hooks.after_model(state, mc)
        self._write(state)
        if not state.messages:
            raise GraphRunError("no messages left in state after model call")
        return state.messages[-1]

    @staticmethod
    def _write(state: ChatModelAgentState) -> None:
        def write(s: AdkState) -> None:
            s.messages = list(state.messages)

        process_state(AdkState, write)
        sink = SINK.get()
        if sink is not None:
            sink.tool_infos = list(state.tool_infos)

    # -- the component surface --------------------------------------------------------------------------

    def generate(self, _input: Any) -> Message:
        if self._plain:
            with added_options("ChatModel", self._tools_option):
                return self._record(self.model.generate(self._history()))
        return self._hooked(False)

    def stream(self, _input: Any) -> Iterator[Message]:
        # Eino concatenates the model stream here; streaming reaches users through events. The model is
        # called in the node's task (not when its output is read), so a cancel can abandon the call.
        if self._plain:
            with added_options("ChatModel", self._tools_option):
                chunks = send_stream(
                    self.agent_name, iter(self.model.stream(self._history())), StreamGate(None)
                )
                output = concat_messages(list(chunks))
            process_state(AdkState, lambda s: s.messages.append(output))
            return iter((output,))
        return iter((self._hooked(True),))

    async def agenerate(self, _input: Any) -> Message:
        if self._plain:
            with added_options("ChatModel", self._tools_option):
                return self._record(await self.model.agenerate(self._history()))
        return await asyncio.to_thread(self._hooked, False)


def _retry_hooks(sink: Any, report: Callable[[Message], None]) -> RetryHooks:
    def suppress(on: bool) -> None:
        if sink is not None:
            sink.suppress = on

    def set_history(messages: list[Message]) -> None:
        def write(s: AdkState) -> None:
            s.messages = messages

        process_state(AdkState, write)

    cancel = sink.interrupt_event if sink is not None else None
    return RetryHooks(suppress=suppress, report=report, set_history=set_history, cancel=cancel)


class EventModel:
    """The no-tools chain's model node: the model itself, each output also reported as an event.

    Unlike the ReAct graph's model node it reads its input (the chain has no state) and streams the
    model's chunks through; the event carries the concatenated message once the stream has ended.
    (With hooks, retry or failover the chain has a state, as in Eino, and its model node is a
    `StateModel`.)
    """

    def __init__(self, model: Any, agent_name: str) -> None:
        self.model = model
        self.agent_name = agent_name

    def _emit(self, output: Message) -> Message:
        sink = SINK.get()
        if sink is not None:
            sink.emit(AgentEvent(self.agent_name, message=output))
        return output

    def generate(self, messages: list[Message]) -> Message:
        return self._emit(self.model.generate(messages))

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        """The model's stream, opened in the node's task (its first chunk read there, as Eino's model
        `Stream` returns once the answer starts), so a cancel can abandon a model that has not answered.
        Its event is sent as it opens, carrying a stream the relay fills as the graph reads on."""
        chunks = send_stream(self.agent_name, iter(self.model.stream(messages)), StreamGate(None))
        first = next(chunks, None)
        return self._relay(first, chunks)

    @staticmethod
    def _relay(first: Message | None, rest: Iterator[Message]) -> Iterator[Message]:
        if first is None:
            return
        yield first
        yield from rest

    async def agenerate(self, messages: list[Message]) -> Message:
        agenerate = getattr(self.model, "agenerate", None)
        if agenerate is None:
            return await asyncio.to_thread(self.generate, messages)
        return self._emit(await agenerate(messages))
