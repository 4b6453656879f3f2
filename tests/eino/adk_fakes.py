"""Test doubles for the ADK ports: Eino's gomock chat model and `namedTool`, as plain Python."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from graph_core.schema import Message, ToolInfo

Reply = Message | BaseException | Callable[[list[Message]], Message]


class RecordingModel:
    """Replies from a script (a message, an exception to raise, or a function of the input); records
    each call's messages and the tool names bound to the model it was called on (`.calls`, `.tools`).
    `repeat_last=True` repeats the last reply forever (gomock `.AnyTimes()`)."""

    def __init__(self, replies: Sequence[Reply], *, repeat_last: bool = False) -> None:
        self.replies = list(replies)
        self.repeat_last = repeat_last
        self.calls: list[list[Message]] = []
        self.tools: list[list[str]] = []
        self.bound: list[str] = []
        self._shared = self

    def with_tools(self, infos: Sequence[ToolInfo]) -> RecordingModel:
        bound = type(self).__new__(type(self))  # a subclass stays itself
        bound.__dict__.update(self.__dict__)
        bound.bound = [i.name for i in infos]
        return bound

    def generate(self, messages: Sequence[Message]) -> Message:
        shared = self._shared
        shared.calls.append(list(messages))
        shared.tools.append(list(self.bound))
        index = len(shared.calls) - 1
        if index >= len(shared.replies):
            if not shared.repeat_last:
                raise AssertionError(f"unexpected model call #{index + 1}")
            index = len(shared.replies) - 1
        reply = shared.replies[index]
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            return reply(list(messages))
        return reply.model_copy(deep=True)

    def stream(self, messages: Sequence[Message]) -> Iterator[Message]:
        yield self.generate(messages)


class NamedTool:
    """Eino's test `namedTool`: answers `<name> result`; `calls` counts its invocations."""

    def __init__(self, name: str, *, on_call: Callable[[], Any] | None = None) -> None:
        self.info = ToolInfo(name, f"{name} description")
        self.calls = 0
        self.on_call = on_call

    def invoke(self, arguments: str) -> str:
        self.calls += 1
        if self.on_call is not None:
            self.on_call()
        return f"{self.info.name} result"
