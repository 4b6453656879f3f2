"""Server-sent events of a streamed completion to message chunks, with tool-call delta assembly.

Sans-io: the client feeds it lines however it reads them (sync or async), so both paths share every
decision about what a chunk is and whether the stream ended properly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from graph_core.models.openai._errors import ChatModelStreamError
from graph_core.models.openai._secrets import Redactor, StreamMasker
from graph_core.models.openai._wire import (
    arguments_of,
    as_dict,
    check_arguments,
    error_text,
    provenance,
    reasoning_of,
    text_of,
    usage_of,
)
from graph_core.schema import Message, ToolCall

__all__ = ["StreamDecoder"]

_LINE_END = re.compile(r"\r\n|\r|\n")


class _LineSplitter:
    """Splits decoded text into SSE lines, which end only at CRLF, LF or CR.

    Not `str.splitlines` (nor httpx's `iter_lines`, built on it): that also splits at U+2028, U+2029 and
    NEL, which JSON may carry unescaped (vLLM and llama.cpp send them raw), cutting an event in half.
    """

    def __init__(self) -> None:
        self._pending: list[str] = []
        self._after_cr = False  # a CR ended the last piece: a LF starting the next one belongs to it

    def feed(self, text: str) -> list[str]:
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
            self._after_cr = False
        if not text:
            return []
        self._after_cr = text.endswith("\r")
        if "\r" not in text and "\n" not in text:
            self._pending.append(text)  # a long line in many pieces stays linear
            return []
        lines = _LINE_END.split("".join(self._pending) + text)
        self._pending = [lines.pop()]
        return lines

    def flush(self) -> list[str]:
        rest = "".join(self._pending)
        self._pending = []
        return [rest] if rest else []


class StreamDecoder:
    """Turns SSE lines of a Chat Completions stream into message chunks, and judges how the stream ended.

    Tool-call deltas keep the server's `index`, unless a different call ID arrives on an index another call
    holds (Ollama numbers every call 0): that opens a new index, which the server's index then means. Servers
    that omit `index` get one from the call ID (a new ID opens a new index, a missing ID continues the last
    call), which is what Appendix A concatenation needs.

    Text the server sends back (content, reasoning, tool-call arguments) goes through a `StreamMasker`
    each, so a credential it echoes is masked even when split across chunks.
    """

    def __init__(self, *, endpoint: str, status: int, redact: Redactor) -> None:
        self._endpoint = endpoint
        self._where = f"POST {endpoint} (HTTP {status})"
        self._redact = redact
        self._data: list[str] = []
        self._event = ""
        self._lines = _LineSplitter()
        self.events = 0
        self.chunks = 0
        self.done = False
        self._finished = False
        self._finish_reason: str | None = None
        self._provenance_sent = False
        self._index_of_id: dict[str, int] = {}
        self._index_of_server: dict[int, int] = {}
        self._last_index: int | None = None
        self._calls: dict[int, ToolCall] = {}
        self._content = StreamMasker(redact)
        self._reasoning = StreamMasker(redact)
        self._arguments: dict[int, StreamMasker] = {}

    def feed_text(self, text: str) -> Iterator[Message]:
        """Decoded body text as it arrives, cut anywhere; yields the chunks it completes.

        A generator, so chunks completed before a bad event in the same piece still reach the caller.
        """
        for line in self._lines.feed(text):
            yield from self.feed(line)

    def feed(self, line: str) -> list[Message]:
        """One line without its terminator; returns the chunks completed by it (usually zero or one)."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return []
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "error":  # llama.cpp's `error: {...}` line, which it follows with [DONE]
            raise self._server_error(value)
        return []

    def finish(self) -> list[Message]:
        """The connection ended cleanly: flush, then insist the stream actually completed."""
        chunks = [chunk for line in self._lines.flush() for chunk in self.feed(line)]
        chunks += self._dispatch()
        if not self.done and not self._finished:
            raise ChatModelStreamError(
                f"{self._where}: stream ended after {self.events} events without [DONE] or a finish reason "
                "(truncated response)",
                endpoint=self._endpoint,
            )
        held = self._held_chunk()
        if held is not None:
            chunks.append(held)
        if self.chunks + len(chunks) == 0:
            raise ChatModelStreamError(
                f"{self._where}: stream ended without any message chunk", endpoint=self._endpoint
            )
        for index in sorted(self._calls):
            check_arguments(
                self._calls[index],
                endpoint=self._endpoint,
                redact=self._redact,
                finish_reason=self._finish_reason,
            )
        return chunks

    def broken(self, reason: str) -> ChatModelStreamError:
        return ChatModelStreamError(
            f"{self._where}: stream broke off after {self.events} events: {self._redact(reason)}",
            endpoint=self._endpoint,
        )

    def _server_error(self, payload: str) -> ChatModelStreamError:
        """An error the server sent outside an event's `error` key: an `error` field or event."""
        try:
            data: Any = json.loads(payload)
        except json.JSONDecodeError:
            data = payload
        detail = error_text(data, self._redact) if isinstance(data, dict) else self._redact(payload)[:500]
        return ChatModelStreamError(f"{self._where}: server reported {detail}", endpoint=self._endpoint)

    def _dispatch(self) -> list[Message]:
        if not self._data:
            return []
        payload = "\n".join(self._data)
        event_name, self._data, self._event = self._event, [], ""
        if self.done:
            return []
        self.events += 1
        if event_name == "error":
            raise self._server_error(payload)
        if payload.strip() == "[DONE]":
            self.done = True
            return []
        try:
            data = json.loads(payload)
        except json.JSONDecodeError:
            raise ChatModelStreamError(
                f"{self._where}: malformed stream event {self.events}: {self._redact(payload)[:200]!r}",
                endpoint=self._endpoint,
            ) from None
        if not isinstance(data, dict):
            raise ChatModelStreamError(
                f"{self._where}: stream event {self.events} is not a JSON object", endpoint=self._endpoint
            )
        event: dict[str, Any] = data
        if event.get("error"):
            raise ChatModelStreamError(
                f"{self._where}: server reported {error_text(event, self._redact)}", endpoint=self._endpoint
            )
        chunk = self._chunk(event)
        if chunk is None:
            return []
        self.chunks += 1
        return [chunk]

    def _chunk(self, event: dict[str, Any]) -> Message | None:
        choices = event.get("choices")
        choice = as_dict(choices[0]) if isinstance(choices, list) and choices else {}
        delta = as_dict(choice.get("delta"))
        tool_calls = [self._tool_call(as_dict(item)) for item in delta.get("tool_calls") or []]
        finish = choice.get("finish_reason") or None
        if finish:
            self._finished = True
            self._finish_reason = str(finish)
        usage = usage_of(event)
        content = self._content.feed(text_of(delta.get("content")))
        reasoning = self._reasoning.feed(reasoning_of(delta))
        if finish:  # the text ends here: what was held back goes out with it
            content += self._content.flush()
            reasoning += self._reasoning.flush()
            tool_calls += self._held_arguments()
        if not (content or reasoning or tool_calls or finish or usage):
            return None
        extra: dict[str, Any] = {}
        if not self._provenance_sent:
            extra = provenance(event)
            self._provenance_sent = True
        return Message(
            "assistant",
            content,
            tool_calls=tool_calls,
            reasoning_content=reasoning,
            finish_reason=finish,
            usage=usage,
            extra=extra,
        )

    def _held_arguments(self) -> list[ToolCall]:
        """Tool-call argument text held back by the maskers, as deltas of their calls."""
        out: list[ToolCall] = []
        for index, masker in self._arguments.items():
            held = masker.flush()
            if held:
                out.append(ToolCall(index=index, arguments=held, type=self._calls[index].type))
        return out

    def _held_chunk(self) -> Message | None:
        """A last chunk for text still held back when the stream ended without a finish reason."""
        content, reasoning, calls = self._content.flush(), self._reasoning.flush(), self._held_arguments()
        if not (content or reasoning or calls):
            return None
        return Message("assistant", content, tool_calls=calls, reasoning_content=reasoning)

    def _tool_call(self, item: dict[str, Any]) -> ToolCall:
        function = as_dict(item.get("function"))
        call_id = str(item.get("id") or "")
        raw_index = item.get("index")
        if isinstance(raw_index, int):
            index = self._index_of_server.get(raw_index, raw_index)
            held = self._calls.get(index)
            if call_id and held is not None and held.id and held.id != call_id:
                # Another call already holds this index (Ollama sends every call as index 0): a new call.
                index = max(self._calls) + 1
                self._index_of_server[raw_index] = index
        elif call_id and call_id in self._index_of_id:
            index = self._index_of_id[call_id]
        elif call_id or self._last_index is None:
            index = max(self._calls, default=-1) + 1
        else:
            index = self._last_index
        if call_id:
            self._index_of_id.setdefault(call_id, index)
        self._last_index = index
        arguments = arguments_of(function)
        delta = ToolCall(
            id=call_id,
            name=str(function.get("name") or ""),
            arguments=arguments,
            index=index,
            type=str(item.get("type") or "function"),
        )
        merged = self._calls.setdefault(index, ToolCall(index=index))
        merged.id = merged.id or delta.id
        merged.name = merged.name or delta.name
        merged.arguments += arguments
        masker = self._arguments.get(index)
        if masker is None:
            masker = self._arguments[index] = StreamMasker(self._redact)
        delta.arguments = masker.feed(arguments)
        return delta
