"""A scripted OpenAI-compatible server on 127.0.0.1 for tests: real sockets, real HTTP, real chunked SSE.

Each request pops the next `Reply` from the script and is recorded in `requests`, so tests can check both
what the client sent and how it copes with what came back (delays, dropped connections, error statuses).
Nothing here reaches the network.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ChatServer", "Recorded", "Reply", "completion", "delta_event", "tool_delta"]


@dataclass
class Reply:
    """One scripted answer. `events` makes it a chunked SSE stream; otherwise `body` is sent whole, as
    `content_type` (a proxy may label any body `text/event-stream`)."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=lambda: {})
    events: Sequence[str] | None = None
    done: bool = True
    drop_after: int | None = None
    split_events: bool = False
    delay: float = 0.0
    event_delay: float = 0.0
    hang_up: bool = False

    @classmethod
    def json(cls, data: Any, *, status: int = 200, headers: Mapping[str, str] | None = None) -> Reply:
        return cls(status=status, body=json.dumps(data).encode(), headers=dict(headers or {}))

    @classmethod
    def raw(cls, body: str, *, content_type: str, status: int = 200) -> Reply:
        """`body` sent byte for byte, as a server or proxy sent it."""
        return cls(status=status, body=body.encode(), content_type=content_type)

    @classmethod
    def sse(cls, events: Sequence[Any], **options: Any) -> Reply:
        """`events` are dicts (sent as JSON) or raw strings (sent verbatim as the data field)."""
        data = [e if isinstance(e, str) else json.dumps(e) for e in events]
        return cls(events=data, **options)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def completion(
    content: str | None = "",
    *,
    tool_calls: Sequence[Mapping[str, Any]] = (),
    finish_reason: str = "stop",
    usage: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """A non-streamed chat.completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        body["usage"] = dict(usage)
    return body


def delta_event(
    delta: Mapping[str, Any] | None = None,
    *,
    finish_reason: str | None = None,
    usage: Mapping[str, int] | None = None,
    no_choices: bool = False,
) -> dict[str, Any]:
    """One chat.completion.chunk event."""
    event: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model"}
    event["choices"] = (
        [] if no_choices else [{"index": 0, "delta": dict(delta or {}), "finish_reason": finish_reason}]
    )
    if usage is not None:
        event["usage"] = dict(usage)
    return event


def tool_delta(
    index: int | None, *, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> dict[str, Any]:
    """A tool-call delta item as servers send them (fields absent rather than empty)."""
    item: dict[str, Any] = {} if index is None else {"index": index}
    if id is not None:
        item["id"] = id
        item["type"] = "function"
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    if function:
        item["function"] = function
    return item


class _Server(ThreadingHTTPServer):
    """Closing joins every handler thread after cutting its connection, so nothing of a test's server
    outlives its `with` block (a handler still parked on a keep-alive socket would otherwise end during
    a later test and leave that test its garbage)."""

    daemon_threads = False
    block_on_close = True
    chat: ChatServer
    connections: list[socket.socket]

    def process_request(self, request: Any, client_address: Any) -> None:
        self.connections.append(request)
        super().process_request(request, client_address)

    def server_close(self) -> None:
        for connection in self.connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        super().server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out close their end early; that is the point of those tests, not a failure."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes; no 40 ms delayed-ACK stalls

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _chat(self) -> ChatServer:
        server = self.server
        assert isinstance(server, _Server)
        return server.chat

    def do_POST(self) -> None:
        chat = self._chat()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        chat.requests.append(
            Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw or b"{}"))
        )
        reply = chat.next_reply()
        if reply.delay and chat.stopping.wait(reply.delay):
            return
        if reply.hang_up:
            self.close_connection = True
            return
        if reply.events is None:
            self._send_whole(reply)
        else:
            self._send_stream(reply)

    def _send_whole(self, reply: Reply) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(reply.body)
        self.wfile.flush()

    def _send_stream(self, reply: Reply) -> None:
        assert reply.events is not None
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        payloads = [f"data: {e}\n\n" for e in reply.events]
        if reply.done:
            payloads.append("data: [DONE]\n\n")
        for number, payload in enumerate(payloads):
            if reply.drop_after is not None and number == reply.drop_after:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if reply.event_delay and self._chat().stopping.wait(reply.event_delay):
                return
            pieces = (
                [payload[: len(payload) // 2], payload[len(payload) // 2 :]]
                if reply.split_events
                else [payload]
            )
            for piece in pieces:
                data = piece.encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class ChatServer:
    """`with ChatServer([Reply...]) as server:` then point a model at `server.base_url`."""

    def __init__(self, replies: Sequence[Reply] = ()) -> None:
        self.replies: deque[Reply] = deque(replies)
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.chat = self
        self._server.connections = []
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02})

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def next_reply(self) -> Reply:
        with self._lock:
            if not self.replies:
                return Reply.json({"error": {"message": "test script exhausted"}}, status=500)
            return self.replies.popleft()

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
