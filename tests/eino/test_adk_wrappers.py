"""Ports of `adk/wrappers_test.go` (cloudwego/eino), and of `adk/chatmodel_test.go`
TestChatModelAgent_ToolResultMiddleware_EmitsFinalResult: where the agent's event senders sit among
the model and tool wrappers. By default each is outermost (its event shows what every wrapper made of
the output); `EventSenderModelWrapper()` / `EventSenderToolWrapper()` listed among the handlers put it
at that position. Each test names its Go test."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from graph_core.agents.adk import (
    AgentEvent,
    ChatModelAgent,
    ChatModelAgentMiddleware,
    EventSenderModelWrapper,
    EventSenderToolWrapper,
    ModelContext,
    ModelRetryConfig,
    ToolContext,
)
from graph_core.agents.adk_runner import Runner
from graph_core.agents.adk_stream import drain
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.multimodal import ToolArgument, ToolOutputPart, ToolResult
from graph_core.schema import Message, ToolCall, ToolInfo, concat_messages
from graph_core.tools import ToolInput, ToolMiddleware


class StreamingModel:
    """Eino's `mockStreamingModel`: streams its chunks; `generate` gives their concatenation."""

    def __init__(self, chunks: Sequence[Message]) -> None:
        self.chunks = list(chunks)

    def generate(self, _messages: Sequence[Message]) -> Message:
        return concat_messages(self.chunks)

    def stream(self, _messages: Sequence[Message]) -> Iterator[Message]:
        return iter([c.model_copy() for c in self.chunks])


class WrapperHandler(ChatModelAgentMiddleware):
    """Eino's `testModelWrapperHandler`."""

    def __init__(self, wrap: Callable[[Any, ModelContext], Any]) -> None:
        self.wrap = wrap

    def wrap_model(self, model: Any, model_context: ModelContext) -> Any:
        return self.wrap(model, model_context)


class StreamConsumingModel:
    """Eino's `streamConsumingModelWrapper`: reads the inner stream whole and streams it as one chunk."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def generate(self, messages: list[Message]) -> Message:
        return self.inner.generate(messages)

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        return iter([concat_messages(list(self.inner.stream(messages)))])


class ContentModifyingModel:
    """Eino's `contentModifyingModelWrapper`: replaces the output's content."""

    def __init__(self, inner: Any, content: str) -> None:
        self.inner, self.content = inner, content

    def generate(self, messages: list[Message]) -> Message:
        return self.inner.generate(messages).model_copy(update={"content": self.content})

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        whole = concat_messages(list(self.inner.stream(messages)))
        return iter([whole.model_copy(update={"content": self.content})])


def _assistant_streams(events: list[AgentEvent]) -> list[list[Message]]:
    """The streaming events of the assistant (Go: `IsStreaming && Role == Assistant`), each read whole."""
    out: list[list[Message]] = []
    for event in events:
        if event.message_stream is not None:
            chunks, _ = drain(event.message_stream)
            if chunks and chunks[0].role == "assistant":
                out.append(chunks)
    return out


def _stream_run(agent: ChatModelAgent) -> list[AgentEvent]:
    return list(Runner(agent, enable_streaming=True).run([Message.user("test")]))


def _agent(model: Any, handlers: Sequence[ChatModelAgentMiddleware], **kwargs: Any) -> ChatModelAgent:
    return ChatModelAgent(name="TestAgent", model=model, handlers=handlers, **kwargs)


# -- TestWrapModelStreamChunksPreserved -------------------------------------------------------------------


def test_wrap_model_stream_chunks_preserved_with_noop_wrap_model() -> None:
    """wrappers_test.go TestWrapModelStreamChunksPreserved/
    AgentEventMessageStreamShouldPreserveChunksWithNoopWrapModel"""
    model = StreamingModel([Message.assistant("Hello "), Message.assistant("World")])
    agent = _agent(
        model, [WrapperHandler(lambda m, _mc: m)], model_retry_config=ModelRetryConfig(max_retries=3)
    )
    streams = _assistant_streams(_stream_run(agent))
    assert len(streams) >= 1
    assert [c.content for c in streams[0]] == ["Hello ", "World"]


def test_wrap_model_stream_chunks_reflect_user_middleware_modifications() -> None:
    """wrappers_test.go TestWrapModelStreamChunksPreserved/
    AgentEventMessageStreamShouldReflectUserMiddlewareModifications"""
    model = StreamingModel([Message.assistant("Hello "), Message.assistant("World")])
    agent = _agent(
        model,
        [WrapperHandler(lambda m, _mc: StreamConsumingModel(m))],
        model_retry_config=ModelRetryConfig(max_retries=3),
    )
    streams = _assistant_streams(_stream_run(agent))
    assert len(streams) >= 1
    assert [c.content for c in streams[0]] == ["Hello World"]


def test_wrap_model_stream_chunks_reflect_multiple_user_middleware_modifications() -> None:
    """wrappers_test.go TestWrapModelStreamChunksPreserved/
    AgentEventMessageStreamShouldReflectMultipleUserMiddlewareModifications"""
    model = StreamingModel([Message.assistant("Hello "), Message.assistant("World")])
    handlers = [WrapperHandler(lambda m, _mc: StreamConsumingModel(m)), WrapperHandler(lambda m, _mc: m)]
    agent = _agent(model, handlers, model_retry_config=ModelRetryConfig(max_retries=3))
    streams = _assistant_streams(_stream_run(agent))
    assert len(streams) >= 1
    assert [c.content for c in streams[0]] == ["Hello World"]


# -- TestEventSenderModelWrapperCustomPosition ------------------------------------------------------------


def test_user_configured_event_sender_skips_default_event_sender() -> None:
    """wrappers_test.go TestEventSenderModelWrapperCustomPosition/
    UserConfiguredEventSenderSkipsDefaultEventSender"""
    model = StreamingModel([Message.assistant("Hello "), Message.assistant("World")])
    streams = _assistant_streams(_stream_run(_agent(model, [EventSenderModelWrapper()])))
    assert len(streams) == 1  # no duplicate from the default event sender


def _assistant_messages(agent: ChatModelAgent) -> list[Message]:
    events = list(Runner(agent).run([Message.user("test")]))
    return [e.message for e in events if e.message is not None and e.message.role == "assistant"]


def test_event_sender_after_user_middleware_by_default() -> None:
    """wrappers_test.go TestEventSenderModelWrapperCustomPosition/EventSenderAfterUserMiddlewareByDefault"""
    model = StreamingModel([Message.assistant("Original")])
    messages = _assistant_messages(
        _agent(model, [WrapperHandler(lambda m, _mc: ContentModifyingModel(m, "Modified"))])
    )
    assert messages and messages[0].content == "Modified"


def test_event_sender_innermost_gets_original_output() -> None:
    """wrappers_test.go TestEventSenderModelWrapperCustomPosition/EventSenderInnermostGetsOriginalOutput"""
    model = StreamingModel([Message.assistant("Original")])
    handlers = [
        WrapperHandler(lambda m, _mc: ContentModifyingModel(m, "Modified")),
        EventSenderModelWrapper(),
    ]
    messages = _assistant_messages(_agent(model, handlers))
    assert messages and messages[0].content == "Original"


# -- TestEventSenderToolHandler (Invokable, Streamable) -----------------------------------------------------


class ToolCallingModel:
    """Eino's `mockToolCallingModel`: calls `tool` once, then answers "done"."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.calls = 0

    def with_tools(self, _infos: Sequence[ToolInfo]) -> ToolCallingModel:
        return self

    def generate(self, _messages: Sequence[Message]) -> Message:
        self.calls += 1
        if self.calls == 1:
            return Message.assistant(
                "calling tool", tool_calls=[ToolCall("tc-1", self.tool, '{"input":"test"}')]
            )
        return Message.assistant("done")

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        return iter([self.generate(messages)])


class InvokableTool:
    """Eino's `invokableTestTool`."""

    def __init__(self, name: str, result: str) -> None:
        self.info = ToolInfo(name, "test tool")
        self.result = result

    def invoke(self, _arguments: str) -> str:
        return self.result


class StreamableTool:
    """Eino's `streamableTestTool`: streams its result as one chunk."""

    def __init__(self, name: str, result: str) -> None:
        self.info = ToolInfo(name, "test tool")
        self.result = result

    def stream(self, _arguments: str) -> Iterator[str]:
        return iter([self.result])


class ResultModifier(ChatModelAgentMiddleware):
    """Eino's `invokableResultModifier` / `streamableResultModifier`: replaces the tool's result."""

    def __init__(self, result: str) -> None:
        self.result = result

    def wrap_invokable_tool_call(
        self, endpoint: Callable[[str], str], tool_context: ToolContext
    ) -> Callable[[str], str]:
        def wrapped(arguments: str) -> str:
            endpoint(arguments)
            return self.result

        return wrapped

    def wrap_streamable_tool_call(
        self, endpoint: Callable[[str], Iterator[str]], tool_context: ToolContext
    ) -> Callable[[str], Iterator[str]]:
        def wrapped(arguments: str) -> Iterator[str]:
            list(endpoint(arguments))
            return iter([self.result])

        return wrapped


class EnhancedInvokableTool:
    """Eino's `enhancedInvokableTestTool`: its result as one text part."""

    def __init__(self, name: str, result: str) -> None:
        self.info = ToolInfo(name, "test tool")
        self.result = result

    def invoke_enhanced(self, _arguments: str) -> ToolResult:
        return ToolResult([ToolOutputPart.of_text(self.result)])


class EnhancedStreamableTool:
    """Eino's `enhancedStreamableTestTool`: streams its result as one chunk of one text part."""

    def __init__(self, name: str, result: str) -> None:
        self.info = ToolInfo(name, "test tool")
        self.result = result

    def stream_enhanced(self, _arguments: str) -> Iterator[ToolResult]:
        return iter([ToolResult([ToolOutputPart.of_text(self.result)])])


class EnhancedResultModifier(ChatModelAgentMiddleware):
    """Eino's `enhancedInvokableResultModifier` / `enhancedStreamableResultModifier`."""

    def __init__(self, result: str) -> None:
        self.result = ToolResult([ToolOutputPart.of_text(result)])

    def wrap_enhanced_invokable_tool_call(
        self, endpoint: Callable[[ToolArgument], ToolResult], tool_context: ToolContext
    ) -> Callable[[ToolArgument], ToolResult]:
        def wrapped(argument: ToolArgument) -> ToolResult:
            endpoint(argument)
            return self.result

        return wrapped

    def wrap_enhanced_streamable_tool_call(
        self, endpoint: Callable[[ToolArgument], Iterator[ToolResult]], tool_context: ToolContext
    ) -> Callable[[ToolArgument], Iterator[ToolResult]]:
        def wrapped(argument: ToolArgument) -> Iterator[ToolResult]:
            list(endpoint(argument))  # Go closes the inner stream
            return iter([self.result])

        return wrapped


def _tool_contents(tool: Any, handlers: Sequence[ChatModelAgentMiddleware], *, streaming: bool) -> list[str]:
    """Eino's `collectToolEvents` + `collectToolContent`: the tool result events' contents (a streamed
    event's chunks concatenated), or for a multimodal result its text parts."""
    agent = _agent(ToolCallingModel("test_tool"), handlers, tools=[tool])
    events = list(Runner(agent, enable_streaming=streaming).run([Message.user("test")]))
    contents: list[str] = []
    for event in events:
        message = event.get_message()
        if message is None or message.role != "tool":
            continue
        if message.content:
            contents.append(message.content)
        else:
            contents.extend(part.text for part in message.user_input_multi_content if part.text)
    return contents


def test_event_sender_tool_handler_invokable_default_sends_event() -> None:
    """wrappers_test.go TestEventSenderToolHandler/Invokable/DefaultSendsEvent"""
    contents = _tool_contents(InvokableTool("test_tool", "invokable_output"), [], streaming=False)
    assert contents == ["invokable_output"]


def test_event_sender_tool_handler_invokable_user_configured_skips_default() -> None:
    """wrappers_test.go TestEventSenderToolHandler/Invokable/UserConfiguredSkipsDefault"""
    contents = _tool_contents(
        InvokableTool("test_tool", "invokable_output"), [EventSenderToolWrapper()], streaming=False
    )
    assert len(contents) == 1


def test_event_sender_tool_handler_invokable_innermost_gets_original_output() -> None:
    """wrappers_test.go TestEventSenderToolHandler/Invokable/InnermostGetsOriginalOutput"""
    handlers = [ResultModifier("modified_invokable_output"), EventSenderToolWrapper()]
    contents = _tool_contents(
        InvokableTool("test_tool", "original_invokable_output"), handlers, streaming=False
    )
    assert len(contents) >= 1 and "original_invokable_output" in contents


def test_event_sender_tool_handler_streamable_default_sends_event() -> None:
    """wrappers_test.go TestEventSenderToolHandler/Streamable/DefaultSendsEvent"""
    contents = _tool_contents(StreamableTool("test_tool", "streamable_output"), [], streaming=True)
    assert contents == ["streamable_output"]


def test_event_sender_tool_handler_streamable_user_configured_skips_default() -> None:
    """wrappers_test.go TestEventSenderToolHandler/Streamable/UserConfiguredSkipsDefault"""
    contents = _tool_contents(
        StreamableTool("test_tool", "streamable_output"), [EventSenderToolWrapper()], streaming=True
    )
    assert len(contents) == 1


def test_event_sender_tool_handler_streamable_innermost_gets_original_output() -> None:
    """wrappers_test.go TestEventSenderToolHandler/Streamable/InnermostGetsOriginalOutput"""
    handlers = [ResultModifier("modified_streamable_output"), EventSenderToolWrapper()]
    contents = _tool_contents(
        StreamableTool("test_tool", "original_streamable_output"), handlers, streaming=True
    )
    assert len(contents) >= 1 and "original_streamable_output" in contents


def test_event_sender_tool_handler_enhanced_invokable_default_sends_event() -> None:
    """wrappers_test.go TestEventSenderToolHandler/EnhancedInvokable/DefaultSendsEvent"""
    tool = EnhancedInvokableTool("test_tool", "enhanced_invokable_output")
    assert _tool_contents(tool, [], streaming=False) == ["enhanced_invokable_output"]


def test_event_sender_tool_handler_enhanced_invokable_user_configured_skips_default() -> None:
    """wrappers_test.go TestEventSenderToolHandler/EnhancedInvokable/UserConfiguredSkipsDefault"""
    tool = EnhancedInvokableTool("test_tool", "enhanced_invokable_output")
    assert len(_tool_contents(tool, [EventSenderToolWrapper()], streaming=False)) == 1


def test_event_sender_tool_handler_enhanced_invokable_innermost_gets_original_output() -> None:
    """wrappers_test.go TestEventSenderToolHandler/EnhancedInvokable/InnermostGetsOriginalOutput"""
    tool = EnhancedInvokableTool("test_tool", "original_enhanced_invokable_output")
    handlers = [EnhancedResultModifier("modified_enhanced_invokable_output"), EventSenderToolWrapper()]
    contents = _tool_contents(tool, handlers, streaming=False)
    assert len(contents) >= 1 and "original_enhanced_invokable_output" in contents


def test_event_sender_tool_handler_enhanced_streamable_default_sends_event() -> None:
    """wrappers_test.go TestEventSenderToolHandler/EnhancedStreamable/DefaultSendsEvent"""
    tool = EnhancedStreamableTool("test_tool", "enhanced_streamable_output")
    assert _tool_contents(tool, [], streaming=True) == ["enhanced_streamable_output"]


def test_event_sender_tool_handler_enhanced_streamable_user_configured_skips_default() -> None:
    """wrappers_test.go TestEventSenderToolHandler/EnhancedStreamable/UserConfiguredSkipsDefault"""
    tool = EnhancedStreamableTool("test_tool", "enhanced_streamable_output")
    assert len(_tool_contents(tool, [EventSenderToolWrapper()], streaming=True)) == 1


def test_event_sender_tool_handler_enhanced_streamable_innermost_gets_original_output() -> None:
    """wrappers_test.go TestEventSenderToolHandler/EnhancedStreamable/InnermostGetsOriginalOutput"""
    tool = EnhancedStreamableTool("test_tool", "original_enhanced_streamable_output")
    handlers = [EnhancedResultModifier("modified_enhanced_streamable_output"), EventSenderToolWrapper()]
    contents = _tool_contents(tool, handlers, streaming=True)
    assert len(contents) >= 1 and "original_enhanced_streamable_output" in contents


def test_event_sender_tool_handler_enhanced_default_reports_the_modified_output() -> None:
    """Not an Eino test: without an `EventSenderToolWrapper` among the handlers the event sender is
    outermost, so an enhanced tool's event shows what the handlers made of its result (the counterpart
    of `InnermostGetsOriginalOutput`)."""
    for tool, streaming in (
        (EnhancedInvokableTool("test_tool", "original"), False),
        (EnhancedStreamableTool("test_tool", "original"), True),
    ):
        assert _tool_contents(tool, [EnhancedResultModifier("modified")], streaming=streaming) == ["modified"]


# -- chatmodel_test.go TestChatModelAgent_ToolResultMiddleware_EmitsFinalResult ---------------------------


def _modifying(result: str) -> ToolMiddleware:
    def invoke(next_ep: Callable[[ToolInput], str]) -> Callable[[ToolInput], str]:
        def endpoint(inp: ToolInput) -> str:
            next_ep(inp)
            return result

        return endpoint

    def stream(next_ep: Callable[[ToolInput], Iterator[str]]) -> Callable[[ToolInput], Iterator[str]]:
        def endpoint(inp: ToolInput) -> Iterator[str]:
            list(next_ep(inp))
            return iter([result])

        return endpoint

    return ToolMiddleware(invoke=invoke, stream=stream)


def _emits_final_result(streaming: bool) -> list[str]:
    call = ToolCall("tool-call-1", "test_tool", '{"input": "test"}')

    class Model(ToolCallingModel):
        def generate(self, _messages: Sequence[Message]) -> Message:
            self.calls += 1
            return (
                Message.assistant("", tool_calls=[call])
                if self.calls == 1
                else Message.assistant("final response")
            )

    agent = ChatModelAgent(
        name="test_agent",
        model=Model("test_tool"),
        tools=[InvokableTool("test_tool", "original_result")],
        tool_middlewares=[_modifying("modified_by_middleware")],
    )
    runner = Runner(agent, enable_streaming=streaming, checkpoint_store=InMemoryCheckpointStore())
    contents: list[str] = []
    for event in runner.run([Message.user("call the tool")]):
        message = event.get_message()
        if message is not None and message.role == "tool":
            contents.append(message.content)
    return contents


def test_tool_result_middleware_emits_final_result_invoke() -> None:
    """chatmodel_test.go TestChatModelAgent_ToolResultMiddleware_EmitsFinalResult/Invoke"""
    contents = _emits_final_result(False)
    assert contents and all(c == "modified_by_middleware" for c in contents)


def test_tool_result_middleware_emits_final_result_stream() -> None:
    """chatmodel_test.go TestChatModelAgent_ToolResultMiddleware_EmitsFinalResult/Stream"""
    contents = _emits_final_result(True)
    assert contents and all(c == "modified_by_middleware" for c in contents)
