"""Server-sent events of a streamed completion to message chunks, with tool-call delta assembly.

Sans-io: the client feeds it lines however it reads them (sync or async), so both paths share every
decision about what a chunk is and whether the stream ended properly.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

from graph_core.models.openai._errors import ChatModelStreamError
from graph_core.models.openai._secrets import Redactor, StreamMasker
from graph_core.models.openai._wire import (
    BODY_EXCERPT,
    IdSource,
    arguments_of,
    as_dict,
    check_arguments,
    choice_zero,
    error_text,
    new_call_id,
    provenance,
    reasoning_of,
    text_of,
    usage_of,
)
from graph_core.schema import Message, ToolCall

__all__ = ["StreamDecoder"]

_LINE_END = re.compile(r"\r\n|\r|\n")

_STRAY_LIMIT = 64 * 1024
"""How much text outside SSE fields the decoder keeps to quote: a bare JSON error body is far smaller."""


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

    Text the server sends back (content, refusal, reasoning, tool-call arguments) goes through a
    `StreamMasker` each, so a credential it echoes is masked even when split across chunks.

    What real servers send beyond that: only choice 0 of an `n > 1` stream is read; a `refusal` delta
    is answer text, marked in `extra["openai"]["refusal"]`; a legacy `function_call` delta is a tool
    call; a call still without an ID when the answer finishes gets one from `uuids`; lines that are no
    SSE field are kept (bounded), so a bare JSON error body on a 200 stream is quoted, not "truncated".
    """

    def __init__(self, *, endpoint: str, status: int, redact: Redactor, uuids: IdSource = uuid.uuid4) -> None:
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
        self._refusal = StreamMasker(redact)
        self._reasoning = StreamMasker(redact)
        self._arguments: dict[int, StreamMasker] = {}
        self._uuids = uuids
        self._legacy_index: int | None = None
        self._stray: list[str] = []
        self._stray_size = 0

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
        elif field not in ("id", "retry") and self._stray_size < _STRAY_LIMIT:
            self._stray.append(line)  # not SSE: a proxy passing a JSON error body on as a 200 stream
            self._stray_size += len(line)
        return []

    def finish(self) -> list[Message]:
        """The connection ended cleanly: flush, then insist the stream actually completed."""
        chunks = [chunk for line in self._lines.flush() for chunk in self.feed(line)]
        chunks += self._dispatch()
        if not self.done and not self._finished:
            raise self._unfinished()
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

    def _unfinished(self) -> ChatModelStreamError:
        """The stream ended early: quote what the server said outside the SSE format, if anything.

        A JSON error body sent as the stream (OpenAI's own error, passed on as a 200 by a proxy) is the
        server reporting that error, in its own words; other stray text is quoted after "truncated".
        """
        stray = "\n".join(self._stray).strip()
        try:
            data: Any = json.loads(stray) if stray else None
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and data.get("error"):
            return ChatModelStreamError(
                f"{self._where}: server reported {error_text(data, self._redact)} "
                "(a JSON error body instead of an event stream)",
                endpoint=self._endpoint,
            )
        said = f"; it sent instead: {self._redact(stray)[:BODY_EXCERPT]!r}" if stray else ""
        return ChatModelStreamError(
            f"{self._where}: stream ended after {self.events} events without [DONE] or a finish reason "
            f"(truncated response){said}",
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
        choice = choice_zero(event.get("choices")) or {}
        delta = as_dict(choice.get("delta"))
        tool_calls = [self._tool_call(as_dict(item)) for item in delta.get("tool_calls") or []]
        legacy = as_dict(delta.get("function_call"))
        if legacy:
            tool_calls.append(self._legacy_call(legacy))
        finish = choice.get("finish_reason") or None
        if finish:
            self._finished = True
            self._finish_reason = str(finish)
        usage = usage_of(event)
        content = self._content.feed(text_of(delta.get("content")))
        refusal = self._refusal.feed(text_of(delta.get("refusal")))
        reasoning = self._reasoning.feed(reasoning_of(delta))
        openai: dict[str, Any] = {}
        if finish:  # the text ends here: what was held back goes out with it
            content += self._content.flush()
            refusal += self._refusal.flush()
            reasoning += self._reasoning.flush()
            tool_calls += self._held_arguments()
            openai = self._fill_ids(tool_calls)
        if refusal:  # the refusal is the answer (content is null), marked so a reader can tell
            content += refusal
            openai["refusal"] = refusal
        if not (content or reasoning or tool_calls or finish or usage or openai):
            return None
        if not self._provenance_sent:
            openai = {**provenance(event).get("openai", {}), **openai}
            self._provenance_sent = True
        return Message(
            "assistant",
            content,
            tool_calls=tool_calls,
            reasoning_content=reasoning,
            finish_reason=finish,
            usage=usage,
            extra={"openai": openai} if openai else {},
        )

    def _held_arguments(self) -> list[ToolCall]:
        """Tool-call argument text held back by the maskers, as deltas of their calls."""
        out: list[ToolCall] = []
        for index, masker in self._arguments.items():
            held = masker.flush()
            if held:
                out.append(ToolCall(index=index, arguments=held, type=self._calls[index].type))
        return out

    def _fill_ids(self, deltas: list[ToolCall]) -> dict[str, Any]:
        """Give each call that has no ID by now one (`call_<uuid>`), sent in this chunk's delta of it.

        Done when the answer finishes, not when a call opens: a server may send the ID after the first
        delta, and continuation deltas often carry `"id": ""`. Returns the extras for this chunk: the
        server's (empty) IDs under `server_tool_call_ids`, and which call was a legacy `function_call`.
        """
        extras: dict[str, Any] = {}
        generated: dict[str, str] = {}
        for index in sorted(self._calls):
            call = self._calls[index]
            if call.id:
                continue
            call.id = new_call_id(self._uuids)
            delta = next((d for d in deltas if d.index == index), None)
            if delta is None:
                deltas.append(ToolCall(id=call.id, index=index, type=call.type))
            else:
                delta.id = call.id
            if index == self._legacy_index:
                extras["function_call"] = call.id
            else:
                generated[call.id] = ""
        if generated:
            extras["server_tool_call_ids"] = generated
        return extras

    def _held_chunk(self) -> Message | None:
        """A last chunk for text still held back, and IDs still missing, when the stream ended without a
        finish reason."""
        content, reasoning, calls = self._content.flush(), self._reasoning.flush(), self._held_arguments()
        refusal = self._refusal.flush()
        openai = self._fill_ids(calls)
        if refusal:
            openai["refusal"] = refusal
        if not (content or refusal or reasoning or calls or openai):
            return None
        return Message(
            "assistant",
            content + refusal,
            tool_calls=calls,
            reasoning_content=reasoning,
            extra={"openai": openai} if openai else {},
        )

    def _legacy_call(self, function: dict[str, Any]) -> ToolCall:
        """A delta of the legacy `function_call` (one call per answer): a tool call at an index of its own."""
        if self._legacy_index is None:
            self._legacy_index = max(self._calls, default=-1) + 1
        delta = ToolCall(
            name=str(function.get("name") or ""), arguments=arguments_of(function), index=self._legacy_index
        )
        return self._merge(self._legacy_index, delta)

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
        delta = ToolCall(
            id=call_id,
            name=str(function.get("name") or ""),
            arguments=arguments_of(function),
            index=index,
            type=str(item.get("type") or "function"),
        )
        return self._merge(index, delta)

    def _merge(self, index: int, delta: ToolCall) -> ToolCall:
        """Fold a delta into its call; the delta's arguments go out through the call's masker."""
        merged = self._calls.setdefault(index, ToolCall(index=index))
        merged.id = merged.id or delta.id
        merged.name = merged.name or delta.name
        merged.arguments += delta.arguments
        masker = self._arguments.get(index)
        if masker is None:
            masker = self._arguments[index] = StreamMasker(self._redact)
        delta.arguments = masker.feed(delta.arguments)
        return delta
