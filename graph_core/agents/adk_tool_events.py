"""The ADK `ChatModelAgent`'s tool event sender (Eino `typedEventSenderToolWrapper` in `adk/wrappers.go`):
one event per tool call, carrying the tool's result as the tool message the ToolsNode makes of it.

It is a ToolsNode middleware with all four wrappers, since the ToolsNode applies to each tool only the
wrappers of its kind:

- a text tool's result is a tool message with that text as `content`;
- an enhanced tool's `ToolResult` is a tool message with empty `content` and the result's parts in
  `user_input_multi_content` (Eino `ToMessageInputParts`); parts that cannot become message parts (a
  media part without its media) fail the call, as in Eino;
- a streamed result (a streaming tool, text or enhanced) is sent as a streaming event
  (`message_stream`, Eino's `IsStreaming` tool event) whose chunks are the tool's chunks as tool
  messages, filled as the ToolsNode reads the tool's stream and ended by the tool's end or error.

A streaming event is sent when the tool's first chunk arrives, not when the stream is opened, as Eino
does: a Python generator tool's body runs only as it is read, so up to its first `yield` it is where a
Go tool's `StreamableRun` is before it returns the stream, and an action it sends there
(`send_tool_gen_action`) rides on the event. A stream that fails before its first chunk sends no event
(the call failed, as an endpoint error in Eino). The return-directly call's event is held by the run
and sent once the round of tool calls is over, so it is always the last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from graph_core.agents.adk_run import SINK, AdkState, AgentEvent
from graph_core.agents.adk_stream import MessageStream
from graph_core.multimodal import ToolResult
from graph_core.schema import Message
from graph_core.state import process_state
from graph_core.tools import ToolInput, ToolMiddleware
from graph_core.tools.errors import not_text

__all__ = ["tool_event_middleware", "tool_result_message"]


def tool_result_message(inp: ToolInput, result: Any, what: str = "the result") -> Message:
    """The tool message for one call's result (or one chunk of it): text as `content`, a `ToolResult`
    as message parts (Eino `typedToolInvokeEvent`, `typedToolEnhancedInvokeEvent`); anything else is the
    ToolsNode's own "not a str" error, named as it would name it."""
    if isinstance(result, ToolResult):
        return Message.tool(
            "",
            tool_call_id=inp.call_id,
            tool_name=inp.name,
            user_input_multi_content=result.to_message_input_parts(),
        )
    if not isinstance(result, str):
        raise not_text(result, what)
    return Message.tool(result, tool_call_id=inp.call_id, tool_name=inp.name)


def _send(agent_name: str, inp: ToolInput, message: Message | None, stream: MessageStream | None) -> None:
    """Send the call's event with the action its tool attached, or hold it when it is the run's
    return-directly call."""
    sink = SINK.get()
    if sink is None:
        return
    event = AgentEvent(
        agent_name, message=message, message_stream=stream, action=sink.actions.pop(inp.call_id, None)
    )
    direct = process_state(AdkState, lambda s: s.return_directly_tool_call_id)
    with sink.lock:
        if direct and inp.call_id == direct:
            sink.held = event
            return
    sink.emit(event)


def _relay(agent_name: str, inp: ToolInput, chunks: Iterator[Any]) -> Iterator[Any]:
    """Pass the tool's stream on, copying each chunk into the call's streaming event."""
    sink = SINK.get()
    if sink is None:
        yield from chunks
        return
    stream: MessageStream | None = None
    try:
        for chunk in chunks:
            message = tool_result_message(inp, chunk, "a stream chunk")
            if stream is None:
                stream = sink.open_stream()
                _send(agent_name, inp, None, stream)
            stream.put(message)
            yield chunk
    except Exception as exc:
        if stream is not None:
            stream.close(exc)
        raise
    if stream is None:  # an empty stream: its event ends at once (Eino sends the stream it got)
        stream = sink.open_stream()
        _send(agent_name, inp, None, stream)
    stream.close()


def tool_event_middleware(agent_name: str) -> ToolMiddleware:
    """The tool event sender as a ToolsNode middleware (see the module docstring)."""

    def whole(next_ep: Callable[[ToolInput], Any]) -> Callable[[ToolInput], Any]:
        def endpoint(inp: ToolInput) -> Any:
            result = next_ep(inp)
            _send(agent_name, inp, tool_result_message(inp, result), None)
            return result

        return endpoint

    def streamed(next_ep: Callable[[ToolInput], Iterator[Any]]) -> Callable[[ToolInput], Iterator[Any]]:
        def endpoint(inp: ToolInput) -> Iterator[Any]:
            return _relay(agent_name, inp, iter(next_ep(inp)))

        return endpoint

    return ToolMiddleware(invoke=whole, stream=streamed, enhanced_invoke=whole, enhanced_stream=streamed)
