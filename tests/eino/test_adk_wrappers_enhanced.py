"""Ports of `adk/wrappers_test.go` (cloudwego/eino): the handlers' enhanced tool wrappers
(`wrap_enhanced_invokable_tool_call`, `wrap_enhanced_streamable_tool_call`: `ToolArgument` in,
`ToolResult` out) as ToolsNode middlewares (`handlers_to_tool_middlewares`, Eino
`handlersToToolMiddlewares`). Each test names its Go test.

Go's endpoints return `(output, error)`; here an endpoint returns its result or raises, so "the error
propagates" is `pytest.raises` with the very exception object."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graph_core.agents.adk import ChatModelAgentMiddleware, ToolContext
from graph_core.agents.adk_handlers import handlers_to_tool_middlewares
from graph_core.multimodal import ToolArgument, ToolOutputPart, ToolResult
from graph_core.tools import ToolInput, ToolMiddleware

EnhancedInvoke = Callable[[ToolArgument], ToolResult]
EnhancedStream = Callable[[ToolArgument], Iterator[ToolResult]]


class EnhancedWrapperHandler(ChatModelAgentMiddleware):
    """Eino's `testEnhancedToolWrapperHandler`: wraps enhanced tool calls with the given functions."""

    def __init__(
        self,
        *,
        invokable: Callable[[EnhancedInvoke, ToolContext], EnhancedInvoke] | None = None,
        streamable: Callable[[EnhancedStream, ToolContext], EnhancedStream] | None = None,
    ) -> None:
        self.invokable = invokable
        self.streamable = streamable

    def wrap_enhanced_invokable_tool_call(
        self, endpoint: EnhancedInvoke, tool_context: ToolContext
    ) -> EnhancedInvoke:
        return endpoint if self.invokable is None else self.invokable(endpoint, tool_context)

    def wrap_enhanced_streamable_tool_call(
        self, endpoint: EnhancedStream, tool_context: ToolContext
    ) -> EnhancedStream:
        return endpoint if self.streamable is None else self.streamable(endpoint, tool_context)


class TextWrapperHandler(ChatModelAgentMiddleware):
    """Eino's `testToolWrapperHandler`: wraps text tool calls with the given functions."""

    def __init__(
        self,
        *,
        invokable: Callable[[Callable[[str], str], ToolContext], Callable[[str], str]] | None = None,
        streamable: Callable[[Callable[[str], Iterator[str]], ToolContext], Callable[[str], Iterator[str]]]
        | None = None,
    ) -> None:
        self.invokable = invokable
        self.streamable = streamable

    def wrap_invokable_tool_call(
        self, endpoint: Callable[[str], str], tool_context: ToolContext
    ) -> Callable[[str], str]:
        return endpoint if self.invokable is None else self.invokable(endpoint, tool_context)

    def wrap_streamable_tool_call(
        self, endpoint: Callable[[str], Iterator[str]], tool_context: ToolContext
    ) -> Callable[[str], Iterator[str]]:
        return endpoint if self.streamable is None else self.streamable(endpoint, tool_context)


def _invoke_around(before: Callable[[], None], after: Callable[[], None]) -> Callable[..., EnhancedInvoke]:
    """Eino's `newTestEnhancedInvokableToolCallWrapper`."""

    def wrap(endpoint: EnhancedInvoke, _tc: ToolContext) -> EnhancedInvoke:
        def wrapped(argument: ToolArgument) -> ToolResult:
            before()
            result = endpoint(argument)
            after()
            return result

        return wrapped

    return wrap


def _stream_around(before: Callable[[], None], after: Callable[[], None]) -> Callable[..., EnhancedStream]:
    """Eino's `newTestEnhancedStreamableToolCallWrapper`."""

    def wrap(endpoint: EnhancedStream, _tc: ToolContext) -> EnhancedStream:
        def wrapped(argument: ToolArgument) -> Iterator[ToolResult]:
            before()
            result = endpoint(argument)
            after()
            return result

        return wrapped

    return wrap


def _text(text: str) -> ToolResult:
    return ToolResult([ToolOutputPart.of_text(text)])


def _marking(flag: list[bool]) -> Callable[[Any, ToolContext], Any]:
    """A wrapper (of any kind) that records that it ran, then calls on."""

    def wrap(endpoint: Callable[[Any], Any], _tc: ToolContext) -> Callable[[Any], Any]:
        def wrapped(argument: Any) -> Any:
            flag.append(True)
            return endpoint(argument)

        return wrapped

    return wrap


def _all_wrappers_set(middleware: ToolMiddleware) -> bool:
    return all(
        w is not None
        for w in (
            middleware.invoke,
            middleware.stream,
            middleware.enhanced_invoke,
            middleware.enhanced_stream,
        )
    )


# -- TestHandlersToToolMiddlewaresEnhanced ------------------------------------------------------------------


def test_handlers_to_tool_middlewares_enhanced_only_enhanced_invokable_handler() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/OnlyEnhancedInvokableHandler"""
    called: list[bool] = []
    middlewares = handlers_to_tool_middlewares([EnhancedWrapperHandler(invokable=_marking(called))])
    assert len(middlewares) == 1
    assert _all_wrappers_set(middlewares[0])
    assert middlewares[0].enhanced_invoke is not None
    wrapped = middlewares[0].enhanced_invoke(lambda _inp: _text("test"))
    wrapped(ToolInput("test_tool", '{"input": "test"}', "call-1"))
    assert called == [True]


def test_handlers_to_tool_middlewares_enhanced_only_enhanced_streamable_handler() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/OnlyEnhancedStreamableHandler"""
    called: list[bool] = []
    middlewares = handlers_to_tool_middlewares([EnhancedWrapperHandler(streamable=_marking(called))])
    assert len(middlewares) == 1
    assert _all_wrappers_set(middlewares[0])
    assert middlewares[0].enhanced_stream is not None
    wrapped = middlewares[0].enhanced_stream(lambda _inp: iter([_text("test")]))
    wrapped(ToolInput("test_tool", '{"input": "test"}', "call-1"))
    assert called == [True]


def test_handlers_to_tool_middlewares_enhanced_mixed_handlers() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/MixedHandlers: four handlers, one wrapper
    kind each; each middleware's wrapper of that kind calls its handler's."""
    invokable: list[bool] = []
    streamable: list[bool] = []
    enhanced_invokable: list[bool] = []
    enhanced_streamable: list[bool] = []
    middlewares = handlers_to_tool_middlewares(
        [
            TextWrapperHandler(invokable=_marking(invokable)),
            TextWrapperHandler(streamable=_marking(streamable)),
            EnhancedWrapperHandler(invokable=_marking(enhanced_invokable)),
            EnhancedWrapperHandler(streamable=_marking(enhanced_streamable)),
        ]
    )
    assert len(middlewares) == 4
    inp = ToolInput("test", "{}", "1")
    assert middlewares[0].invoke is not None and middlewares[1].stream is not None
    assert middlewares[2].enhanced_invoke is not None and middlewares[3].enhanced_stream is not None
    middlewares[0].invoke(lambda _inp: "test")(inp)
    middlewares[1].stream(lambda _inp: iter(["test"]))(inp)
    middlewares[2].enhanced_invoke(lambda _inp: ToolResult())(inp)
    middlewares[3].enhanced_stream(lambda _inp: iter([ToolResult()]))(inp)
    assert invokable == streamable == enhanced_invokable == enhanced_streamable == [True]


def test_handlers_to_tool_middlewares_enhanced_no_handlers() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/NoHandlers"""
    assert len(handlers_to_tool_middlewares([])) == 0


def test_handlers_to_tool_middlewares_enhanced_handler_with_no_tool_wrappers() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/HandlerWithNoToolWrappers"""
    assert len(handlers_to_tool_middlewares([ChatModelAgentMiddleware()])) == 1


def test_handlers_to_tool_middlewares_enhanced_invokable_tool_call_error_propagation() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/EnhancedInvokableToolCallErrorPropagation"""
    expected = RuntimeError("test error")

    def failing(_endpoint: EnhancedInvoke, _tc: ToolContext) -> EnhancedInvoke:
        def wrapped(_argument: ToolArgument) -> ToolResult:
            raise expected

        return wrapped

    middleware = handlers_to_tool_middlewares([EnhancedWrapperHandler(invokable=failing)])[0]
    assert middleware.enhanced_invoke is not None
    wrapped = middleware.enhanced_invoke(lambda _inp: ToolResult())
    with pytest.raises(RuntimeError) as raised:
        wrapped(ToolInput("test", "{}", "1"))
    assert raised.value is expected


def test_handlers_to_tool_middlewares_enhanced_streamable_tool_call_error_propagation() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/EnhancedStreamableToolCallErrorPropagation"""
    expected = RuntimeError("test error")

    def failing(_endpoint: EnhancedStream, _tc: ToolContext) -> EnhancedStream:
        def wrapped(_argument: ToolArgument) -> Iterator[ToolResult]:
            raise expected

        return wrapped

    middleware = handlers_to_tool_middlewares([EnhancedWrapperHandler(streamable=failing)])[0]
    assert middleware.enhanced_stream is not None
    wrapped = middleware.enhanced_stream(lambda _inp: iter([]))
    with pytest.raises(RuntimeError) as raised:
        wrapped(ToolInput("test", "{}", "1"))
    assert raised.value is expected


def _recorder() -> tuple[list[str], Callable[[str], Callable[[], None]]]:
    order: list[str] = []

    def record(label: str) -> Callable[[], None]:
        return lambda: order.append(label)

    return order, record


def test_handlers_to_tool_middlewares_enhanced_multiple_enhanced_invokable_wrappers() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/MultipleEnhancedInvokableWrappers: the
    first handler's wrapper is outermost."""
    order, record = _recorder()
    middlewares = handlers_to_tool_middlewares(
        [
            EnhancedWrapperHandler(
                invokable=_invoke_around(record("handler1-before"), record("handler1-after"))
            ),
            EnhancedWrapperHandler(
                invokable=_invoke_around(record("handler2-before"), record("handler2-after"))
            ),
        ]
    )
    assert len(middlewares) == 2
    first, second = middlewares[0].enhanced_invoke, middlewares[1].enhanced_invoke
    assert first is not None and second is not None
    first(second(lambda _inp: ToolResult()))(ToolInput("test", "{}", "1"))
    assert order == ["handler1-before", "handler2-before", "handler2-after", "handler1-after"]


def test_handlers_to_tool_middlewares_enhanced_multiple_enhanced_streamable_wrappers() -> None:
    """wrappers_test.go TestHandlersToToolMiddlewaresEnhanced/MultipleEnhancedStreamableWrappers"""
    order, record = _recorder()
    middlewares = handlers_to_tool_middlewares(
        [
            EnhancedWrapperHandler(
                streamable=_stream_around(record("handler1-before"), record("handler1-after"))
            ),
            EnhancedWrapperHandler(
                streamable=_stream_around(record("handler2-before"), record("handler2-after"))
            ),
        ]
    )
    assert len(middlewares) == 2
    first, second = middlewares[0].enhanced_stream, middlewares[1].enhanced_stream
    assert first is not None and second is not None
    first(second(lambda _inp: iter([ToolResult()])))(ToolInput("test", "{}", "1"))
    assert order == ["handler1-before", "handler2-before", "handler2-after", "handler1-after"]


# -- TestEnhancedToolContextPropagation ---------------------------------------------------------------------


def _capturing(seen: list[ToolContext]) -> Callable[[Any, ToolContext], Any]:
    def wrap(endpoint: Any, tool_context: ToolContext) -> Any:
        seen.append(tool_context)
        return endpoint

    return wrap


def test_enhanced_tool_context_propagation_tool_context_contains_correct_info() -> None:
    """wrappers_test.go TestEnhancedToolContextPropagation/ToolContextContainsCorrectInfo"""
    seen: list[ToolContext] = []
    handler = EnhancedWrapperHandler(invokable=_capturing(seen))
    middleware = handlers_to_tool_middlewares([handler])[0]
    assert middleware.enhanced_invoke is not None
    middleware.enhanced_invoke(lambda _inp: ToolResult())(
        ToolInput("my_tool", '{"key": "value"}', "call-123")
    )
    assert len(seen) == 1
    assert seen[0].name == "my_tool"
    assert seen[0].call_id == "call-123"


def test_enhanced_tool_context_propagation_streamable_tool_context_contains_correct_info() -> None:
    """wrappers_test.go TestEnhancedToolContextPropagation/StreamableToolContextContainsCorrectInfo"""
    seen: list[ToolContext] = []
    handler = EnhancedWrapperHandler(streamable=_capturing(seen))
    middleware = handlers_to_tool_middlewares([handler])[0]
    assert middleware.enhanced_stream is not None
    middleware.enhanced_stream(lambda _inp: iter([ToolResult()]))(
        ToolInput("stream_tool", '{"data": "test"}', "call-456")
    )
    assert len(seen) == 1
    assert seen[0].name == "stream_tool"
    assert seen[0].call_id == "call-456"


# -- TestBaseChatModelAgentMiddlewareEnhancedDefaults ------------------------------------------------------


def test_base_chat_model_agent_middleware_enhanced_defaults_invokable_returns_endpoint() -> None:
    """wrappers_test.go TestBaseChatModelAgentMiddlewareEnhancedDefaults/
    DefaultEnhancedInvokableReturnsEndpoint"""
    called: list[bool] = []

    def endpoint(_argument: ToolArgument) -> ToolResult:
        called.append(True)
        return ToolResult()

    wrapped = ChatModelAgentMiddleware().wrap_enhanced_invokable_tool_call(endpoint, ToolContext("test", "1"))
    wrapped(ToolArgument(text="{}"))
    assert called == [True]


def test_base_chat_model_agent_middleware_enhanced_defaults_streamable_returns_endpoint() -> None:
    """wrappers_test.go TestBaseChatModelAgentMiddlewareEnhancedDefaults/
    DefaultEnhancedStreamableReturnsEndpoint"""
    called: list[bool] = []

    def endpoint(_argument: ToolArgument) -> Iterator[ToolResult]:
        called.append(True)
        return iter([])

    wrapped = ChatModelAgentMiddleware().wrap_enhanced_streamable_tool_call(
        endpoint, ToolContext("test", "1")
    )
    wrapped(ToolArgument(text="{}"))
    assert called == [True]


# -- TestEnhancedToolArgumentsPropagation -------------------------------------------------------------------


def test_enhanced_tool_arguments_propagation_arguments_passed_correctly() -> None:
    """wrappers_test.go TestEnhancedToolArgumentsPropagation/ArgumentsPassedCorrectly"""
    captured: list[str] = []

    def wrap(endpoint: EnhancedInvoke, _tc: ToolContext) -> EnhancedInvoke:
        def wrapped(argument: ToolArgument) -> ToolResult:
            captured.append(argument.text)
            return endpoint(argument)

        return wrapped

    middleware = handlers_to_tool_middlewares([EnhancedWrapperHandler(invokable=wrap)])[0]
    assert middleware.enhanced_invoke is not None
    middleware.enhanced_invoke(lambda _inp: ToolResult())(
        ToolInput("test_tool", '{"name": "test", "value": 123}', "call-1")
    )
    assert captured == ['{"name": "test", "value": 123}']


def test_enhanced_tool_arguments_reach_the_next_endpoint_rewritten() -> None:
    """Not an Eino test: what a wrapper passes on as the `ToolArgument` is what the next endpoint gets
    as the call's arguments (Eino's `Arguments: toolArgument.Text`)."""
    received: list[ToolInput] = []

    def wrap(endpoint: EnhancedInvoke, _tc: ToolContext) -> EnhancedInvoke:
        return lambda _argument: endpoint(ToolArgument(text='{"rewritten": true}'))

    def next_endpoint(inp: ToolInput) -> ToolResult:
        received.append(inp)
        return ToolResult()

    middleware = handlers_to_tool_middlewares([EnhancedWrapperHandler(invokable=wrap)])[0]
    assert middleware.enhanced_invoke is not None
    middleware.enhanced_invoke(next_endpoint)(ToolInput("t", "{}", "c1"))
    assert received == [ToolInput("t", '{"rewritten": true}', "c1")]


# -- TestEnhancedToolResultPropagation ----------------------------------------------------------------------


def test_enhanced_tool_result_propagation_result_passed_through_middleware() -> None:
    """wrappers_test.go TestEnhancedToolResultPropagation/ResultPassedThroughMiddleware"""
    expected = _text("original result")
    captured: list[ToolResult] = []

    def wrap(endpoint: EnhancedInvoke, _tc: ToolContext) -> EnhancedInvoke:
        def wrapped(argument: ToolArgument) -> ToolResult:
            result = endpoint(argument)
            captured.append(result)
            return result

        return wrapped

    middleware = handlers_to_tool_middlewares([EnhancedWrapperHandler(invokable=wrap)])[0]
    assert middleware.enhanced_invoke is not None
    output = middleware.enhanced_invoke(lambda _inp: expected)(ToolInput("test", "{}", "1"))
    assert captured == [expected]
    assert output == expected


def test_enhanced_tool_result_propagation_modified_result_propagated() -> None:
    """wrappers_test.go TestEnhancedToolResultPropagation/ModifiedResultPropagated"""
    modified = _text("modified result")

    def wrap(endpoint: EnhancedInvoke, _tc: ToolContext) -> EnhancedInvoke:
        def wrapped(argument: ToolArgument) -> ToolResult:
            endpoint(argument)
            return modified

        return wrapped

    middleware = handlers_to_tool_middlewares([EnhancedWrapperHandler(invokable=wrap)])[0]
    assert middleware.enhanced_invoke is not None
    output = middleware.enhanced_invoke(lambda _inp: _text("original"))(ToolInput("test", "{}", "1"))
    assert output == modified
    assert output.parts[0].text == "modified result"


# -- TestEnhancedToolEndpointErrorFromNext ------------------------------------------------------------------


def _raise(error: BaseException) -> Callable[[ToolInput], ToolResult]:
    def endpoint(_inp: ToolInput) -> ToolResult:
        raise error

    return endpoint


def test_enhanced_tool_endpoint_error_from_next_invokable() -> None:
    """wrappers_test.go TestEnhancedToolEndpointErrorFromNext/EnhancedInvokableNextError"""
    expected = RuntimeError("next endpoint error")
    handler = EnhancedWrapperHandler(invokable=lambda endpoint, _tc: lambda argument: endpoint(argument))
    middleware = handlers_to_tool_middlewares([handler])[0]
    assert middleware.enhanced_invoke is not None
    with pytest.raises(RuntimeError) as raised:
        middleware.enhanced_invoke(_raise(expected))(ToolInput("test", "{}", "1"))
    assert raised.value is expected


def test_enhanced_tool_endpoint_error_from_next_streamable() -> None:
    """wrappers_test.go TestEnhancedToolEndpointErrorFromNext/EnhancedStreamableNextError"""
    expected = RuntimeError("next endpoint error")
    handler = EnhancedWrapperHandler(streamable=lambda endpoint, _tc: lambda argument: endpoint(argument))
    middleware = handlers_to_tool_middlewares([handler])[0]
    assert middleware.enhanced_stream is not None

    def failing(_inp: ToolInput) -> Iterator[ToolResult]:
        raise expected

    with pytest.raises(RuntimeError) as raised:
        middleware.enhanced_stream(failing)(ToolInput("test", "{}", "1"))
    assert raised.value is expected
