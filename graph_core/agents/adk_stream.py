"""The message stream an ADK agent event carries in streaming mode (Eino `MessageVariant.MessageStream`).

In a streaming run the model's output event is sent when the model's stream opens, before its chunks
exist, as Eino does: the reader of `AgentEvent.message_stream` gets each chunk as the model produces it
and then the stream's end, which is either clean (iteration stops) or an error raised by the iterator:
the model's own mid-stream error, or a `WillRetryError` when the retry layer (`adk_retry`) will try
again, so a consumer can drop what it showed of this attempt.

Unlike a Go `StreamReader` (one reader), every iterator of a `MessageStream` reads it from the first
chunk: the agent's callback handlers and the caller each see the whole stream. A stream the run
abandons (an immediate cancel) is ended with `StreamCanceledError` when the run ends, so no reader
waits forever.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from graph_core.errors import StreamCanceledError
from graph_core.schema import Message

__all__ = ["MessageStream", "StreamCanceledError", "drain"]


class MessageStream:
    """A thread-safe, replayable stream of message chunks ending cleanly or with an error."""

    def __init__(self) -> None:
        self._chunks: list[Message] = []
        self._error: BaseException | None = None
        self._done = False
        self._cond = threading.Condition()

    # -- the writer (the agent's event sender) ----------------------------------------------------------

    def put(self, chunk: Message) -> None:
        with self._cond:
            if self._done:
                return
            self._chunks.append(chunk)
            self._cond.notify_all()

    def close(self, error: BaseException | None = None) -> None:
        """End the stream, with `error` raised to its readers after the last chunk; only the first
        ending counts."""
        with self._cond:
            if self._done:
                return
            self._error = error
            self._done = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        with self._cond:
            return self._done

    # -- the readers ------------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[Message]:
        index = 0
        while True:
            with self._cond:
                while index >= len(self._chunks) and not self._done:
                    self._cond.wait()
                if index < len(self._chunks):
                    chunk = self._chunks[index]
                elif self._error is not None:
                    raise self._error
                else:
                    return
            index += 1
            yield chunk

    def drain(self) -> tuple[list[Message], BaseException | None]:
        """Read the whole stream: its chunks and the error it ended with (None when it ended cleanly)."""
        return drain(self)


def drain(chunks: Iterable[Message]) -> tuple[list[Message], Exception | None]:
    """Read a stream of chunks (an event's `message_stream`, a model's stream) to its end: the chunks
    and the error it ended with, None when it ended cleanly (Eino `typedConsumeStream`)."""
    seen: list[Message] = []
    try:
        for chunk in chunks:
            seen.append(chunk)
    except Exception as exc:
        return seen, exc
    return seen, None
