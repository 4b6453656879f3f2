"""A local OTLP/HTTP receiver: spans in (protobuf or JSON), one run file per trace out.

`Receiver` listens on loopback unless told otherwise, takes `POST /v1/traces` bodies up to
`max_bytes` (413 beyond), parses them with `opentelemetry-proto`, and after each request rewrites the
run file of every trace it touched (`DIR/<trace id>.jsonl`, replaced atomically), so
`inspector replay --follow` shows a run while its spans arrive. Spans of one of our own runs'
segments go to the file of its first trace, as one run with its segments.
"""

from __future__ import annotations

import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from inspector.errors import InspectorError
from inspector.otel import names as n
from inspector.sources.otlp import base64_ids, load_json, run_lines
from inspector.sources.spans import TraceSpan, from_proto

__all__ = ["MAX_BYTES", "Receiver"]

MAX_BYTES = 32 * 1024 * 1024


class Receiver:
    """Collects spans per run and writes each run's file under `folder` as they arrive."""

    def __init__(
        self, folder: Path, *, host: str = "127.0.0.1", port: int = 4318, max_bytes: int = MAX_BYTES
    ) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.spans: dict[str, list[TraceSpan]] = {}
        self.files: dict[str, str] = {}  # trace id -> the run's key (our runs: the run id)
        self.lock = threading.Lock()
        folder.mkdir(parents=True, exist_ok=True)
        try:
            self.server = ThreadingHTTPServer((host, port), self._handler())
        except OSError as exc:
            raise InspectorError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def serve_forever(self) -> None:
        self.server.serve_forever()

    def shutdown(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def take(self, request: ExportTraceServiceRequest) -> list[Path]:
        """Add a request's spans; returns the run files it rewrote."""
        with self.lock:
            touched: set[str] = set()
            for span in from_proto(request):
                self.spans.setdefault(span.trace_id, []).append(span)
                self._key(span)
                touched.add(self.files.get(span.trace_id, span.trace_id))
            written: list[Path] = []
            for key in sorted(touched):
                path = self.folder / f"{key}.jsonl"
                traces = [t for t in self.spans if self.files.get(t, t) == key]
                for trace in traces:  # spans that came before their run's root had the trace's file
                    if trace != key:
                        (self.folder / f"{trace}.jsonl").unlink(missing_ok=True)
                try:
                    lines = run_lines([s for t in traces for s in self.spans[t]], path)
                except InspectorError:
                    continue  # nothing to show yet (no steps so far)
                partial = path.with_suffix(".jsonl.part")
                partial.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
                os.replace(partial, path)
                written.append(path)
            return written

    def _key(self, span: TraceSpan) -> None:
        """Our own run's spans name their run (the root and the node spans, which arrive step by step
        while the root ends last): every segment (trace) of it goes to one file."""
        run_id = span.attributes.get(n.RUN_ID)
        if isinstance(run_id, str) and run_id:
            key = "".join(c if c.isalnum() or c in "-_." else "_" for c in run_id)[:100] or span.trace_id
            self.files[span.trace_id] = key

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/traces":
                    self._answer(404, b"only /v1/traces is received here")
                    return
                length = int(self.headers.get("Content-Length") or 0)
                if length > receiver.max_bytes:
                    self._answer(413, b"request too large")
                    return
                body = self.rfile.read(length)
                kind = (self.headers.get("Content-Type") or "").split(";")[0].strip()
                request = ExportTraceServiceRequest()
                try:
                    if kind == "application/json":
                        json_format.ParseDict(
                            base64_ids(load_json(body)), request, ignore_unknown_fields=True
                        )
                    else:
                        request.ParseFromString(body)
                except (ValueError, DecodeError, json_format.ParseError) as exc:
                    self._answer(400, f"not an OTLP trace export request: {exc}".encode()[:500])
                    return
                for path in receiver.take(request):
                    print(f"inspector: wrote {path}", file=sys.stderr, flush=True)
                answer = ExportTraceServiceResponse()
                if kind == "application/json":
                    self._answer(200, json_format.MessageToJson(answer).encode(), "application/json")
                else:
                    self._answer(200, answer.SerializeToString(), "application/x-protobuf")

            def _answer(self, status: int, body: bytes, kind: str = "text/plain") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
