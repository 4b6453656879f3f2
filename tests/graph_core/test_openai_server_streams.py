"""Streams as real servers (vLLM, llama.cpp, Ollama) send them, byte for byte, via the sync and async paths.

The scripted `ChatServer` frames every event itself; these tests need control over every byte (raw U+2028,
non-`data` fields, chunk boundaries), so they use a tiny raw-socket server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from graph_core.models.openai import ChatModelStreamError, OpenAIChatModel
from graph_core.models.openai._errors import Redactor
from graph_core.models.openai._sse import StreamDecoder
from graph_core.schema import Message, ToolCall, concat_messages

SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"


class RawServer:
    """Answers each connection with the next script: raw byte pieces sent one `sendall` each, then close."""

    def __init__(self, scripts: Sequence[Sequence[bytes]]) -> None:
        self._scripts = list(scripts)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def _serve(self) -> None:
        for script in self._scripts:
            conn, _ = self._listener.accept()
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += conn.recv(65536)
                head, _, body = request.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                while len(body) < length:
                    body += conn.recv(65536)
                try:
                    for piece in script:
                        conn.sendall(piece)
                except OSError:
                    pass  # the client gave up early; that is what some tests check

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._thread.join(timeout=5)
        self._listener.close()


def event(delta: dict[str, Any] | None = None, finish_reason: str | None = None) -> bytes:
    """One `data:` event serialized as vLLM and llama.cpp do: non-ASCII characters raw, not escaped."""
    data = {
        "id": "c1",
        "model": "m",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
    }
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


DONE = b"data: [DONE]\n\n"


@pytest.fixture(params=["sync", "async"])
def collect(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Runs `model.stream` or `model.astream` to the end: the two paths must behave the same."""

    def run(model: OpenAIChatModel, received: list[Message]) -> Message:
        if request.param == "sync":
            received.extend(model.stream([Message.user("x")]))
        else:

            async def consume() -> None:
                async for chunk in model.astream([Message.user("x")]):
                    received.append(chunk)

            asyncio.run(consume())
        return concat_messages(received)

    yield run


def stream(pieces: Sequence[bytes], collect: Any, received: list[Message] | None = None) -> Message:
    with (
        RawServer([[SSE_HEAD, *pieces]]) as server,
        OpenAIChatModel(model="m", base_url=server.base_url, max_retries=0, timeout=5.0) as model,
    ):
        return collect(model, [] if received is None else received)


def test_unicode_line_separators_inside_json_do_not_split_the_event(collect: Any) -> None:
    # JSON may carry U+2028, U+2029 and NEL unescaped (vLLM, llama.cpp do); SSE lines end only at CR/LF.
    text = "a\u2028b\u2029c\x85d"
    message = stream([event({"content": text}), event(finish_reason="stop"), DONE], collect)
    assert message.content == text


def test_crlf_comments_event_fields_and_utf8_split_across_tcp_chunks(collect: Any) -> None:
    body = (
        b": keep-alive\r\nevent: message\r\nid: 1\r\n"
        + event({"content": "h\u00e9llo \u65e5\u672c"}).replace(b"\n", b"\r\n")
        + event(finish_reason="stop").replace(b"\n", b"\r")
        + DONE.replace(b"\n", b"\r\n")
    )
    message = stream([body[i : i + 3] for i in range(0, len(body), 3)], collect)
    assert message.content == "h\u00e9llo \u65e5\u672c"
    assert message.finish_reason == "stop"


def test_every_cut_of_a_crlf_stream_decodes_the_same() -> None:
    body = (event({"content": "a\u2028"}) + b"data: [DONE]\n\n").replace(b"\n", b"\r\n").decode()
    for cut in range(len(body) + 1):
        for second in range(cut, len(body) + 1):
            decoder = StreamDecoder(endpoint="e", status=200, redact=Redactor(None))
            pieces = [body[:cut], body[cut:second], body[second:]]
            chunks = [c for piece in pieces if piece for c in decoder.feed_text(piece)] + decoder.finish()
            assert [c.content for c in chunks] == ["a\u2028"], (cut, second)


def test_llama_cpp_error_line_is_raised_not_taken_for_a_complete_answer(collect: Any) -> None:
    # llama-server reports a failure mid-stream as an `error:` line, then still sends [DONE].
    error = b'error: {"code":500,"message":"context shift disabled","type":"server_error"}\n\n'
    received: list[Message] = []
    with pytest.raises(ChatModelStreamError, match="server_error: context shift disabled"):
        stream([event({"content": "partial"}) + error + DONE], collect, received)  # one piece
    assert [c.content for c in received] == ["partial"]


def test_an_event_named_error_is_raised_with_its_data(collect: Any) -> None:
    error = b'event: error\ndata: {"message":"upstream overloaded","code":"overloaded"}\n\n'
    with pytest.raises(ChatModelStreamError, match="overloaded: upstream overloaded"):
        stream([event({"content": "partial"}), error, DONE], collect)


def _call(
    index: int, *, id: str | None = None, name: str | None = None, arguments: str = ""
) -> dict[str, Any]:
    item: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if id is not None:
        item |= {"id": id, "type": "function"}
        item["function"]["name"] = name
    return item


def test_ollama_reusing_index_0_for_every_call_keeps_the_calls_apart(collect: Any) -> None:
    # Ollama sends each parallel call complete, every one with index 0 (ollama/ollama#15457).
    pieces = [
        event({"tool_calls": [_call(0, id="call_a", name="get_weather", arguments='{"city": "Paris"}')]}),
        event({"tool_calls": [_call(0, id="call_b", name="get_weather", arguments='{"city": "Rome"}')]}),
        event({"tool_calls": [_call(1, id="call_c", name="get_time", arguments='{"tz": ')]}),
        event({"tool_calls": [_call(1, arguments='"CET"}')]}),
        event(finish_reason="tool_calls"),
        DONE,
    ]
    message = stream(pieces, collect)
    assert message.tool_calls == [
        ToolCall(id="call_a", name="get_weather", arguments='{"city": "Paris"}', index=0),
        ToolCall(id="call_b", name="get_weather", arguments='{"city": "Rome"}', index=1),
        ToolCall(id="call_c", name="get_time", arguments='{"tz": "CET"}', index=2),
    ]


def test_an_id_arriving_after_the_first_delta_of_a_call_does_not_split_it(collect: Any) -> None:
    pieces = [
        event({"tool_calls": [{"index": 0, "function": {"name": "get_weather", "arguments": '{"ci'}}]}),
        event({"tool_calls": [{"index": 0, "id": "call_late", "function": {"arguments": 'ty": "Oslo"}'}}]}),
        event(finish_reason="tool_calls"),
        DONE,
    ]
    message = stream(pieces, collect)
    assert message.tool_calls == [
        ToolCall(id="call_late", name="get_weather", arguments='{"city": "Oslo"}', index=0)
    ]
