"""An OTLP/HTTP receiver on loopback for tests: parses each POST to /v1/traces as an
`ExportTraceServiceRequest` (opentelemetry-proto) and keeps the spans, with their resource's and
scope's requests, so a test can assert on every span and attribute that arrived."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span


@dataclass
class Received:
    requests: list[ExportTraceServiceRequest] = field(default_factory=lambda: [])
    paths: list[str] = field(default_factory=lambda: [])
    headers: list[dict[str, str]] = field(default_factory=lambda: [])
    status: int = 200
    url: str = ""

    @property
    def spans(self) -> list[Span]:
        return [
            span
            for request in self.requests
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]


def value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return tuple(value(x) for x in v.array_value.values)
    return getattr(v, kind) if kind else None


def attrs(item: Any) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in item.attributes}


@contextmanager
def otlp_receiver(status: int = 200) -> Iterator[Received]:
    received = Received(status=status)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.paths.append(self.path)
            received.headers.append({k.lower(): v for k, v in self.headers.items()})
            if received.status == 200:
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                received.requests.append(request)
            payload = ExportTraceServiceResponse().SerializeToString()
            self.send_response(received.status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    received.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()
