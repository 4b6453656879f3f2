"""Ports of Eino's `compose/tool_node_test.go` (cloudwego/eino ca0441ac0bce): the enhanced tools, whose
result is a `ToolResult` of parts that reaches the tool message's `user_input_multi_content`."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from graph_core.multimodal import ToolOutputPart
from graph_core.schema import Message, ToolCall, ToolInfo, ToolResult, concat_messages
from graph_core.tools import ToolInput, ToolMiddleware, ToolsNode


class _EnhancedInvokableTool:
    """Go `enhancedInvokableTool`: `InvokableRun(ctx, *ToolArgument) (*ToolResult, error)`."""

    def __init__(self, name: str, fn: Callable[[str], ToolResult]) -> None:
        self.info = ToolInfo(name, f"test {name}")
        self.fn = fn

    def invoke_enhanced(self, arguments: str) -> ToolResult:
        return self.fn(arguments)


class _EnhancedStreamableTool:
    """Go `enhancedStreamableTool`: `StreamableRun(ctx, *ToolArgument)` streams `*ToolResult`s."""

    def __init__(self, name: str, fn: Callable[[str], Iterator[ToolResult]]) -> None:
        self.info = ToolInfo(name, f"test {name}")
        self.fn = fn

    def stream_enhanced(self, arguments: str) -> Iterator[ToolResult]:
        return self.fn(arguments)


def _text(text: str) -> ToolResult:
    return ToolResult([ToolOutputPart(type="text", text=text)])


def _call(call_id: str, name: str, arguments: str) -> Message:
    return Message.assistant("", tool_calls=[ToolCall(call_id, name, arguments)])


def _stream_messages(node: ToolsNode, message: Message) -> list[Message]:
    """Go's `for { chunk, err := streamReader.Recv(); messages = append(messages, chunk...) }`: every
    non-nil slot of every chunk."""
    return [m for chunk in node.stream(message) for m in chunk if m is not None]


def _node() -> ToolsNode:
    invokable = _EnhancedInvokableTool(
        "enhanced_invokable_tool", lambda arguments: _text("invokable result: " + arguments)
    )
    streamable = _EnhancedStreamableTool(
        "enhanced_streamable_tool",
        lambda arguments: iter([_text("stream part 1: " + arguments), _text(" stream part 2")]),
    )
    return ToolsNode([invokable, streamable])


def test_enhanced_tool_node_enhanced_invokable_tool() -> None:
    """tool_node_test.go TestEnhancedToolNode/enhanced invokable tool: one tool message answering call1."""
    output = _node().invoke(_call("call1", "enhanced_invokable_tool", "test input"))
    assert len(output) == 1
    assert output[0].role == "tool"
    assert output[0].tool_call_id == "call1"
    # (beyond Go's asserts: where the result went)
    assert output[0].content == ""
    assert [p.text for p in output[0].user_input_multi_content] == ["invokable result: test input"]


def test_enhanced_tool_node_enhanced_streamable_tool() -> None:
    """tool_node_test.go TestEnhancedToolNode/enhanced streamable tool: two chunks, each a tool message
    for call2; concatenated, the first part's text holds the stream parts."""
    messages = _stream_messages(_node(), _call("call2", "enhanced_streamable_tool", "test stream"))
    message = concat_messages(messages)
    assert len(messages) == 2
    assert messages[0].role == "tool"
    assert messages[0].tool_call_id == "call2"
    assert "stream part" in message.user_input_multi_content[0].text
    # neighbouring text parts concatenate into one (Eino `concatUserMultiContent`)
    assert [p.text for p in message.user_input_multi_content] == ["stream part 1: test stream stream part 2"]


def test_enhanced_tool_conversion_invokable_auto_converts_to_streamable() -> None:
    """tool_node_test.go TestEnhancedToolConversion: an enhanced invokable-only tool streams one chunk."""
    tool = _EnhancedInvokableTool(
        "enhanced_only_invokable", lambda arguments: _text("enhanced: " + arguments)
    )
    messages = _stream_messages(ToolsNode([tool]), _call("call1", "enhanced_only_invokable", "test"))
    assert len(messages) == 1


class _Flags:
    invokable = False
    streamable = False


def _middleware_node(flags: _Flags) -> ToolsNode:
    tool = _EnhancedInvokableTool("enhanced_tool_with_middleware", lambda _: _text("result"))

    def enhanced_invoke(next_: Callable[[ToolInput], ToolResult]) -> Callable[[ToolInput], ToolResult]:
        def endpoint(inp: ToolInput) -> ToolResult:
            flags.invokable = True
            return next_(inp)

        return endpoint

    def enhanced_stream(
        next_: Callable[[ToolInput], Iterator[ToolResult]],
    ) -> Callable[[ToolInput], Iterator[ToolResult]]:
        def endpoint(inp: ToolInput) -> Iterator[ToolResult]:
            flags.streamable = True
            return next_(inp)

        return endpoint

    middleware = ToolMiddleware(enhanced_invoke=enhanced_invoke, enhanced_stream=enhanced_stream)
    return ToolsNode([tool], middlewares=[middleware])


def test_enhanced_tool_middleware_enhanced_invokable_middleware() -> None:
    """tool_node_test.go TestEnhancedToolMiddleware/enhanced invokable middleware: the enhanced
    invokable middleware wraps the enhanced invokable tool."""
    flags = _Flags()
    _middleware_node(flags).invoke(_call("call1", "enhanced_tool_with_middleware", "test"))
    assert flags.invokable


def test_enhanced_tool_middleware_enhanced_streamable_middleware() -> None:
    """tool_node_test.go TestEnhancedToolMiddleware/enhanced streamable middleware: the tool does not
    stream natively, so its stream surface is derived after its own (invokable) middleware and the
    streamable middleware is not called."""
    flags = _Flags()
    list(_middleware_node(flags).stream(_call("call2", "enhanced_tool_with_middleware", "test")))
    assert not flags.streamable
    assert flags.invokable  # (beyond Go's asserts: the derived stream went through the invoke chain)


class _BothTool(_EnhancedInvokableTool):
    """A tool with an enhanced and a text surface: Go's `enhancedInvokableTool` only has the enhanced
    one; the text one here shows which wins."""

    def invoke(self, arguments: str) -> str:
        return "regular result"


def test_enhanced_tool_priority_enhanced_tool_is_used_when_available() -> None:
    """tool_node_test.go TestEnhancedToolPriority/enhanced tool is used when available."""
    tool = _BothTool("test_tool", lambda _: _text("enhanced result"))
    output = ToolsNode([tool]).invoke(_call("call1", "test_tool", "test"))
    assert len(output) == 1
    assert "enhanced result" in output[0].user_input_multi_content[0].text
