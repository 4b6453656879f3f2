"""Per-call options of the flow ReAct agent (Eino `flow/agent/react/option.go`) and its message future.

```python
option, future = with_message_future()
answer = agent.invoke(messages, options=[option, *with_tools(lookup), with_tool_options("verbose")])
for message in future.messages():   # what the model said and each tool answered, in order
    ...
```

`with_chat_model_options`, `with_tool_options`, `with_tool_list` and `with_tools` are `CallOption`s
for the agent's `chat` and `tools` nodes (every chat model and ToolsNode of the run: nested agents too,
as in Eino). `with_message_future()` is a callbacks option with a `MessageFuture` that collects the
run's messages: each chat model's answer and each tool's result, as whole messages in an invoke run
(`messages()`) or as message streams in a stream run (`message_streams()`). The future belongs to the
first graph it sees start (the run's top-level graph); that graph's end closes it, and its error is
raised by the iterator.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

from graph_core.call_options import (
    CallOption,
    ChatModelOptions,
    with_callbacks,
    with_tools_node_options,
)
from graph_core.call_options import with_chat_model_options as _chat_model_options
from graph_core.callbacks import RunInfo
from graph_core.multimodal import ToolResult
from graph_core.schema import Message
from graph_core.tools import ToolsNodeOptions

__all__ = [
    "MessageFuture",
    "with_chat_model_options",
    "with_message_future",
    "with_tool_list",
    "with_tool_options",
    "with_tools",
]


def with_tool_options(*options: Any) -> CallOption:
    """Options for the tools (Eino `WithToolOptions`); a tool reads them with `tool_options()`."""
    return with_tools_node_options(ToolsNodeOptions(tool_options=options))


def with_chat_model_options(*options: ChatModelOptions) -> CallOption:
    """Options for the chat model (Eino `WithChatModelOptions`)."""
    return _chat_model_options(*options)


def with_tool_list(*tools: Any) -> CallOption:
    """The tools of this run, replacing the agent's (Eino `WithToolList`)."""
    return with_tools_node_options(ToolsNodeOptions(tool_list=tools))


def with_tools(*tools: Any) -> list[CallOption]:
    """This run's tools for both the model (their `ToolInfo`s) and the ToolsNode (Eino `WithTools`)."""
    infos = [tool.info for tool in tools]
    return [_chat_model_options(ChatModelOptions(tools=infos)), with_tool_list(*tools)]


_END = object()


class _Error:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def _drain(items: queue.Queue[Any]) -> Iterator[Any]:
    while True:
        item = items.get()
        if item is _END:
            return
        if isinstance(item, _Error):
            raise item.error
        yield item


class MessageFuture:
    """The messages of one run, as the run produces them (Eino `MessageFuture`).

    `messages()` (invoke runs) and `message_streams()` (stream runs) wait until the run's graph started,
    then yield until it ended; the other one yields nothing. Both may be read on another thread while the
    run goes on.
    """

    def __init__(self) -> None:
        self._started = threading.Event()
        self._lock = threading.Lock()
        self._owner: tuple[str | None, tuple[str, ...]] | None = None
        self._messages: queue.Queue[Any] | None = None
        self._streams: queue.Queue[Any] | None = None

    def messages(self) -> Iterator[Message]:
        """Each message of an invoke run, in order (a stream run's are in `message_streams()`)."""
        self._started.wait()
        return iter(()) if self._messages is None else _drain(self._messages)

    def message_streams(self) -> Iterator[Iterator[Message]]:
        """Each message of a stream run as a stream of chunks, in order."""
        self._started.wait()
        return iter(()) if self._streams is None else _drain(self._streams)

    # -- ownership: the first graph to start ------------------------------------------------------

    def _claim(self, info: RunInfo, stream: bool) -> None:
        with self._lock:
            if self._owner is not None:
                return
            self._owner = (info.node_key, info.path)
            if stream:
                self._streams = queue.Queue()
            else:
                self._messages = queue.Queue()
        self._started.set()

    def _owns(self, info: RunInfo) -> bool:
        return info.kind == "Graph" and self._owner == (info.node_key, info.path)

    def _send(self, message: Message) -> None:
        if self._messages is not None:
            self._messages.put(message)
        elif self._streams is not None:
            self._streams.put(iter([message]))

    def _send_stream(self, stream: Iterator[Message]) -> None:
        if self._streams is not None:
            self._streams.put(stream)
        elif self._messages is not None:
            from graph_core.stream import collect

            self._messages.put(collect(stream))

    # -- callbacks ----------------------------------------------------------------------------------

    def on_start(self, info: RunInfo, input: Any) -> None:
        if info.kind == "Graph":
            self._claim(info, stream=False)

    def on_start_with_stream_input(self, info: RunInfo, input: Iterator[Any]) -> None:
        _close(input)
        if info.kind == "Graph":
            self._claim(info, stream=True)

    def on_end(self, info: RunInfo, output: Any) -> None:
        if info.kind == "ChatModel" and isinstance(output, Message):
            self._send(output)
        elif info.kind == "Tool":
            self._send(_tool_message(info, output))
        elif self._owns(info) and self._messages is not None:
            self._messages.put(_END)

    def on_end_with_stream_output(self, info: RunInfo, output: Iterator[Any]) -> None:
        if info.kind == "ChatModel":
            self._send_stream(output)
            return
        _close(output)
        if self._owns(info) and self._streams is not None:
            self._streams.put(_END)

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        if self._owns(info):
            target = self._messages if self._messages is not None else self._streams
            if target is not None:
                target.put(_Error(error))
                target.put(_END)


def _tool_message(info: RunInfo, output: Any) -> Message:
    """A tool's result as the tool message the ToolsNode makes of it."""
    if isinstance(output, ToolResult):
        return Message.tool(
            "",
            tool_call_id=info.tool_call_id,
            tool_name=info.name,
            user_input_multi_content=output.to_message_input_parts(),
        )
    return Message.tool(
        output if isinstance(output, str) else str(output),
        tool_call_id=info.tool_call_id,
        tool_name=info.name,
    )


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


def with_message_future() -> tuple[CallOption, MessageFuture]:
    """A callbacks option and the future it fills (Eino `WithMessageFuture`)."""
    future = MessageFuture()
    return with_callbacks(future), future
