"""Ports of the ChatModelAgent's tool-call wrappers in a run (cloudwego/eino): the middlewares'
`wrap_tool_call` on enhanced tools (`adk/chatmodel_test.go` TestChatModelAgentRun/WrapToolCall_Enhanced*)
and the handlers' streaming tool wrappers with the streamed tool result event
(`adk/handler_test.go` TestToolCallWrapperHandlers/StreamingToolWrappersPipeline). Each test names its
Go test; the other subtests of these Go tests are in `test_adk_handlers.py`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from graph_core.agents.adk import (
    AgentEvent,
    AgentMiddleware,
    ChatModelAgent,
    ChatModelAgentMiddleware,
    ToolContext,
)
from graph_core.agents.adk_runner import Runner
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.multimodal import ToolOutputPart, ToolResult
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import ToolInput, ToolMiddleware
from tests.eino.adk_fakes import RecordingModel


class FakeEnhancedInvokableTool:
    """Eino's `fakeEnhancedInvokableToolForTest`."""

    info = ToolInfo("test_enhanced_invokable_tool", "test enhanced invokable tool")

    def invoke_enhanced(self, _arguments: str) -> ToolResult:
        return ToolResult([ToolOutputPart.of_text("enhanced invokable result")])


class FakeEnhancedStreamableTool:
    """Eino's `fakeEnhancedStreamableToolForTest`."""

    info = ToolInfo("test_enhanced_streamable_tool", "test enhanced streamable tool")

    def stream_enhanced(self, _arguments: str) -> Iterator[ToolResult]:
        return iter([ToolResult([ToolOutputPart.of_text("enhanced streamable result")])])


def _calls_then_done(tool: str) -> RecordingModel:
    call = Message.assistant("calling tool", tool_calls=[ToolCall("tc1", tool, "{}")])
    return RecordingModel([call, Message.assistant("done")], repeat_last=True)


def _run(agent: ChatModelAgent) -> list[AgentEvent]:
    return list(agent.run([Message.user("use tool")]))


def _role(event: AgentEvent) -> str | None:
    """Go's `event.Output.MessageOutput.Role`, for a whole message or a stream."""
    message = event.get_message()
    return None if message is None else message.role


def test_chat_model_agent_run_wrap_tool_call_enhanced_invokable_middleware() -> None:
    """chatmodel_test.go TestChatModelAgentRun/WrapToolCall_EnhancedInvokableMiddleware"""
    captured: list[str] = []

    def enhanced_invoke(next_ep: Callable[[ToolInput], ToolResult]) -> Callable[[ToolInput], ToolResult]:
        def endpoint(inp: ToolInput) -> ToolResult:
            captured.append(inp.name)
            return next_ep(inp)

        return endpoint

    tool = FakeEnhancedInvokableTool()
    agent = ChatModelAgent(
        name="TestAgent",
        description="Test EnhancedInvokable WrapToolCall middleware",
        instruction="You are a helpful assistant.",
        model=_calls_then_done(tool.info.name),
        tools=[tool],
        middlewares=[AgentMiddleware(wrap_tool_call=ToolMiddleware(enhanced_invoke=enhanced_invoke))],
    )
    events = _run(agent)
    assert captured, "EnhancedInvokable WrapToolCall middleware should have been invoked"
    assert captured == [tool.info.name]
    assert len(events) == 3
    assert _role(events[1]) == "tool"
    tool_message = events[1].get_message()
    assert tool_message is not None and [p.text for p in tool_message.user_input_multi_content] == [
        "enhanced invokable result"
    ]


def test_chat_model_agent_run_wrap_tool_call_enhanced_streamable_middleware() -> None:
    """chatmodel_test.go TestChatModelAgentRun/WrapToolCall_EnhancedStreamableMiddleware: a stream-only
    enhanced tool in an invoke run; its event is a streaming one (Go `IsStreaming`)."""
    invoked: list[bool] = []

    def enhanced_stream(
        next_ep: Callable[[ToolInput], Iterator[ToolResult]],
    ) -> Callable[[ToolInput], Iterator[ToolResult]]:
        def endpoint(inp: ToolInput) -> Iterator[ToolResult]:
            invoked.append(True)
            return next_ep(inp)

        return endpoint

    tool = FakeEnhancedStreamableTool()
    agent = ChatModelAgent(
        name="TestAgent",
        description="Test EnhancedStreamable WrapToolCall middleware",
        instruction="You are a helpful assistant.",
        model=_calls_then_done(tool.info.name),
        tools=[tool],
        middlewares=[AgentMiddleware(wrap_tool_call=ToolMiddleware(enhanced_stream=enhanced_stream))],
    )
    events = _run(agent)
    assert invoked, "EnhancedStreamable WrapToolCall middleware should have been invoked"
    assert len(events) == 3
    assert _role(events[1]) == "tool"
    assert events[1].is_streaming


class StreamingNamedTool:
    """Eino's `streamingNamedTool`: invokes and streams."""

    def __init__(self, name: str) -> None:
        self.info = ToolInfo(name, f"{name} description")

    def invoke(self, _arguments: str) -> str:
        return f"{self.info.name} result"

    def stream(self, _arguments: str) -> Iterator[str]:
        return iter([f"{self.info.name} stream result"])


class StreamWrapperHandler(ChatModelAgentMiddleware):
    """Eino's `testToolWrapperHandler{wrapStreamableFn: newTestStreamableToolCallWrapper(before, after)}`."""

    def __init__(self, before: Callable[[], None], after: Callable[[], None]) -> None:
        self.before, self.after = before, after

    def wrap_streamable_tool_call(
        self, endpoint: Callable[[str], Iterator[str]], tool_context: ToolContext
    ) -> Callable[[str], Iterator[str]]:
        def wrapped(arguments: str) -> Iterator[str]:
            self.before()
            result = endpoint(arguments)
            self.after()
            return result

        return wrapped


def test_tool_call_wrapper_handlers_streaming_tool_wrappers_pipeline() -> None:
    """handler_test.go TestToolCallWrapperHandlers/StreamingToolWrappersPipeline: in a streaming run the
    handlers' streamable wrappers run first listed outermost, and the tool's result event is a stream
    (Go `IsStreaming && Role == Tool`)."""
    order: list[str] = []
    tool = StreamingNamedTool("streaming_tool")
    model = RecordingModel(
        [
            Message.assistant("Using tool", tool_calls=[ToolCall("call1", tool.info.name, "{}")]),
            Message.assistant("done"),
        ]
    )
    agent = ChatModelAgent(
        name="TestAgent",
        description="Test agent",
        model=model,
        tools=[tool],
        handlers=[
            StreamWrapperHandler(
                lambda: order.append("wrapper1-stream-before"), lambda: order.append("wrapper1-stream-after")
            ),
            StreamWrapperHandler(
                lambda: order.append("wrapper2-stream-before"), lambda: order.append("wrapper2-stream-after")
            ),
        ],
    )
    runner = Runner(agent, enable_streaming=True, checkpoint_store=InMemoryCheckpointStore())
    streamed_tool_results: list[Message] = []
    for event in runner.run([Message.user("test")]):
        if event.is_streaming and _role(event) == "tool":
            message = event.get_message()
            assert message is not None
            streamed_tool_results.append(message)
    assert streamed_tool_results, "Should have streaming tool result"
    assert [m.content for m in streamed_tool_results] == ["streaming_tool stream result"]
    assert order == [
        "wrapper1-stream-before",
        "wrapper2-stream-before",
        "wrapper2-stream-after",
        "wrapper1-stream-after",
    ], "Streaming wrappers should be called in correct order"


class ImageTool:
    """An enhanced tool answering with text and an image."""

    info = ToolInfo("draw", "draws")

    def invoke_enhanced(self, _arguments: str) -> ToolResult:
        image = ToolOutputPart.of_media("image", url="https://example.com/cat.png", mime_type="image/png")
        return ToolResult([ToolOutputPart.of_text("here:"), image])


def test_enhanced_tool_event_carries_the_result_as_message_parts() -> None:
    """Not an Eino test (Eino `typedToolEnhancedInvokeEvent`): an enhanced tool's event is the tool
    message the ToolsNode makes of its `ToolResult`: empty content, the parts as message input parts,
    the same message the state keeps."""
    agent = ChatModelAgent(name="TestAgent", model=_calls_then_done("draw"), tools=[ImageTool()])
    events = _run(agent)
    message = events[1].message
    assert message is not None and message.role == "tool" and message.content == ""
    assert [p.type for p in message.user_input_multi_content] == ["text", "image_url"]
    image = message.user_input_multi_content[1].image
    assert image is not None and image.url == "https://example.com/cat.png"
    assert (message.tool_call_id, message.tool_name) == ("tc1", "draw")


class FailingStreamTool:
    """Streams one chunk, then fails."""

    info = ToolInfo("flaky", "fails mid-stream")

    def stream(self, _arguments: str) -> Iterator[str]:
        yield "partial"
        raise RuntimeError("tool broke mid-stream")


def test_streamed_tool_event_ends_with_the_tool_error() -> None:
    """Not an Eino test: a tool stream that fails after its first chunk has sent its event; the event's
    stream gives that chunk, then raises the tool's error (Eino's copied stream carries the error), and
    the run ends with the failure."""
    agent = ChatModelAgent(name="TestAgent", model=_calls_then_done("flaky"), tools=[FailingStreamTool()])
    events = _run(agent)
    streamed = [e for e in events if e.is_streaming]
    assert len(streamed) == 1
    stream = streamed[0].message_stream
    assert stream is not None
    chunks: list[Message] = []
    try:
        for chunk in stream:
            chunks.append(chunk)
    except RuntimeError as exc:
        assert "tool broke mid-stream" in str(exc)
    else:
        raise AssertionError("the tool event's stream should end with the tool's error")
    assert [c.content for c in chunks] == ["partial"] and chunks[0].role == "tool"
    assert events[-1].error is not None


class NumberTool:
    """Answers a number, which is no tool message text."""

    info = ToolInfo("count", "counts")

    def invoke(self, _arguments: str) -> Any:
        return 5


class NumberStreamTool:
    info = ToolInfo("count", "counts")

    def stream(self, _arguments: str) -> Iterator[Any]:
        yield 5


def test_tool_event_of_a_non_text_result_is_the_tools_node_error() -> None:
    """Not an Eino test (Go types rule it out): a tool result that is not text fails the call with the
    ToolsNode's own "not a str" error naming the value, not a message-validation error of the event."""
    for tool, what in ((NumberTool(), "the result"), (NumberStreamTool(), "a stream chunk")):
        events = _run(ChatModelAgent(name="TestAgent", model=_calls_then_done("count"), tools=[tool]))
        error = events[-1].error
        assert error is not None and f"{what} is int 5, not a str" in str(error)
        assert not [e for e in events if e.is_streaming]
