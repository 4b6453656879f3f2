"""`ScriptedChatModel`: a deterministic chat model for tests, demos and fixtures (httpx's MockTransport).

Each call takes the next script entry: a `Message` (returned whole, or streamed as one chunk), a list of
`Message` chunks (streamed chunk by chunk, concatenated for `generate`), or an exception instance (raised).
The entry is taken when the call is made, not when its stream is first read, so the script order is the
call order even when streams are consumed late. Copies made by `with_tools` share the position and
`.calls`, because an agent binds tools to its model and the test still holds the original.

Returned messages are fresh copies of the script's, so running a script twice (`reset()` or `cycle=True`)
never hands out objects a previous run put into its state.

The call log `.calls` is bounded: it keeps the newest `keep_calls` message lists (default
`KEEP_CALLS`, 1,000; `keep_calls=None` keeps every one), so a model driven for 100,000 rounds holds
1,000 entries, not 100,000. A test's run makes far fewer calls than that, so its log lists them all.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Union

from graph_core.errors import GraphError
from graph_core.history import HistoryView
from graph_core.schema import Message, ToolInfo, concat_messages, shallow_copy, unvalidated

__all__ = ["KEEP_CALLS", "ScriptEntry", "ScriptExhaustedError", "ScriptedChatModel"]

KEEP_CALLS = 1_000
"""How many received message lists `.calls` keeps by default (the newest)."""

ScriptEntry = Union[Message, Sequence[Message], BaseException]  # noqa: UP007 (a runtime alias)


class ScriptExhaustedError(GraphError, IndexError):
    """The model was called more times than its script has entries."""


@dataclass
class _Cursor:
    """Shared between a model and its tool-bound copies."""

    position: int = 0
    calls: list[Sequence[Message]] = field(default_factory=lambda: [])
    lock: threading.Lock = field(default_factory=threading.Lock)
    keep: int | None = KEEP_CALLS  # the log's bound (None: unbounded)


def _validate(entry: object, index: int) -> ScriptEntry:
    if isinstance(entry, Message | BaseException):
        return entry
    if isinstance(entry, Sequence) and not isinstance(entry, str | bytes):
        chunks = list(entry)
        if not chunks:
            raise ValueError(f"script entry {index} is an empty chunk list; give at least one Message")
        for chunk in chunks:
            if not isinstance(chunk, Message):
                raise TypeError(
                    f"script entry {index} has a {type(chunk).__name__} chunk; chunks are Messages"
                )
        return chunks
    raise TypeError(
        f"script entry {index} is a {type(entry).__name__}; give a Message, a list of Message chunks, "
        "or an exception instance"
    )


class ScriptedChatModel:
    """A chat model that replays a script; see the module docstring.

    `cycle=True` starts the script again after its last entry; by default running past the end raises
    `ScriptExhaustedError`. `restart_on_new_conversation=True` rewinds to the first entry whenever a call
    receives no assistant message (the first model call of an agent run), so an agent object can be run
    again and again, even after a run that failed or stopped part-way; the fixtures use it. `tools` is
    what was bound by `with_tools` (empty for the original). `keep_calls` bounds `.calls` (the newest
    that many; None for no bound).
    """

    def __init__(
        self,
        script: Sequence[ScriptEntry],
        *,
        cycle: bool = False,
        restart_on_new_conversation: bool = False,
        name: str = "ScriptedChatModel",
        keep_calls: int | None = KEEP_CALLS,
    ) -> None:
        if keep_calls is not None and keep_calls < 0:
            raise ValueError(f"keep_calls must be None or at least 0, got {keep_calls}")
        self.script: tuple[ScriptEntry, ...] = tuple(_validate(e, i) for i, e in enumerate(script))
        self.cycle = cycle
        self.restart_on_new_conversation = restart_on_new_conversation
        self.name = name
        self.tools: tuple[ToolInfo, ...] = ()
        self._cursor = _Cursor(keep=keep_calls)

    # -- shared bookkeeping ------------------------------------------------------------------------------

    @property
    def calls(self) -> list[Sequence[Message]]:
        """The message lists received, one per call, across this model and its tool-bound copies.

        A list received is copied when the call comes in (the caller may change it afterwards). A
        `HistoryView` (what `ReActAgent` hands its model) is kept as it is: it is fixed-length, so it
        already is a record of what the call received, and keeping it costs O(1) where a copy of a
        history growing by two messages a round would cost O(K) per round and O(K squared) memory over
        K rounds. Such an entry is a read-only sequence, not a `list`: it compares equal to the list
        of the same messages, and `list(entry)` gives one.

        Only the newest `keep_calls` lists are kept (see the module docstring); `position` still counts
        every call."""
        return self._cursor.calls

    @property
    def position(self) -> int:
        """How many entries have been taken since the last `reset()` (not wrapped when cycling)."""
        return self._cursor.position

    @property
    def remaining(self) -> int | None:
        """Entries left before the script runs out; None when cycling."""
        return None if self.cycle else max(len(self.script) - self._cursor.position, 0)

    def reset(self) -> None:
        """Rewind to the first entry and forget the recorded calls."""
        with self._cursor.lock:
            self._cursor.position = 0
            self._cursor.calls.clear()

    def with_tools(self, tools: Sequence[ToolInfo]) -> ScriptedChatModel:
        """A copy bound to `tools` that shares the script position and `.calls`; `self` is unchanged."""
        bound = ScriptedChatModel.__new__(ScriptedChatModel)
        bound.script = self.script
        bound.cycle = self.cycle
        bound.restart_on_new_conversation = self.restart_on_new_conversation
        bound.name = self.name
        bound.tools = tuple(tools)
        bound._cursor = self._cursor
        return bound

    def _take(self, messages: Sequence[Message]) -> Message | Sequence[Message]:
        with self._cursor.lock:
            if self.restart_on_new_conversation and _new_conversation(messages):
                self._cursor.position = 0
                self._cursor.calls.clear()
            position = self._cursor.position
            if position >= len(self.script) and not (self.cycle and self.script):
                raise ScriptExhaustedError(
                    f"{self.name}: call #{position + 1} but the script has only {len(self.script)} "
                    f"entr{'y' if len(self.script) == 1 else 'ies'}; add entries, pass cycle=True, or reset()"
                )
            self._cursor.position = position + 1
            # a view is fixed-length already (the agent's history): kept as it is, O(1); else a copy
            calls = self._cursor.calls
            calls.append(messages if type(messages) is HistoryView else list(messages))
            keep = self._cursor.keep
            if keep is not None and len(calls) > keep:
                del calls[: len(calls) - keep]
            entry = self.script[position % len(self.script)]
        if isinstance(entry, BaseException):
            raise entry
        return entry

    @staticmethod
    def _chunks(entry: Message | Sequence[Message]) -> list[Message]:
        if isinstance(entry, Message):
            return [_fresh(entry)]
        return [_fresh(chunk) for chunk in entry]

    # -- the four surfaces ------------------------------------------------------------------------------

    def generate(self, messages: list[Message]) -> Message:
        entry = self._take(messages)
        if isinstance(entry, Message):
            return _fresh(entry)
        return concat_messages(self._chunks(entry))

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        return iter(self._chunks(self._take(messages)))

    async def agenerate(self, messages: list[Message]) -> Message:
        return self.generate(messages)

    def astream(self, messages: list[Message]) -> AsyncIterator[Message]:
        return _aiter(self._chunks(self._take(messages)))

    def __repr__(self) -> str:
        return f"ScriptedChatModel({len(self.script)} entries, position={self.position}, cycle={self.cycle})"


def _new_conversation(messages: Sequence[Message]) -> bool:
    """No assistant message yet: the first model call of an agent run."""
    for message in messages:  # noqa: SIM110 (no generator: this runs on every model call)
        if message.role == "assistant":
            return False
    return True


def _fresh(message: Message) -> Message:
    """A copy that shares nothing mutable with the script (20x cheaper than a pydantic deep copy)."""
    values = vars(message).copy()  # filled before the copy exists: pydantic's __setattr__ costs more
    values["tool_calls"] = [shallow_copy(call) for call in message.tool_calls]
    if message.usage is not None:
        values["usage"] = shallow_copy(message.usage)
    values["extra"] = dict(message.extra)
    return unvalidated(type(message), values, message.model_fields_set.copy())


async def _aiter(chunks: list[Message]) -> AsyncIterator[Message]:
    for chunk in chunks:
        yield chunk
