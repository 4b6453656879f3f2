"""An OTLP trace as a run source: OTLP JSON (the Collector file exporter's lines) or a protobuf dump.

The spans are read into `TraceSpan`s: JSON lines decoded by msgspec into structs of the wire form
(`otlp_json`), a protobuf dump parsed with `opentelemetry-proto` and its messages walked
(`spans.from_proto`); neither goes through `google.protobuf.json_format` (a millisecond a span). They
are then made into a run file (`trace_run`), written once to a cache folder keyed by the trace file's
bytes, and read with `read_run`: every command gets the same `Run` as from a recording.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspector.errors import RunFileError
from inspector.recording.reader import Run, read_run
from inspector.sources.otlp_json import read_json_line
from inspector.sources.spans import TraceSpan, from_proto
from inspector.sources.trace_run import trace_lines

__all__ = ["base64_ids", "claims", "converted", "load_json", "open_trace", "read_spans", "run_lines"]

_PROTOBUF_SUFFIXES = (".pb", ".binpb", ".protobuf", ".otlp")
CACHE_ENV = "INSPECTOR_CACHE_DIR"


def claims(path: Path, head: bytes) -> bool:
    """OTLP JSON (its first object is an export request) or a protobuf dump (by suffix, or a first
    byte that is protobuf field 1, which no JSON text starts with)."""
    text = head.lstrip()
    if text.startswith(b"{"):
        return text[1:].lstrip().startswith(b'"resourceSpans"')
    return path.suffix in _PROTOBUF_SUFFIXES or text[:1] == b"\n"


def read_spans(path: Path) -> list[TraceSpan]:
    """Every span in the file, in file order; a malformed line or a truncated dump is a `RunFileError`.

    The cycle collector is off meanwhile: a trace's spans are some fifty containers each, none in a
    cycle, and its passes over them (every 700 made) took more time than the parsing."""
    data = path.read_bytes()
    with _without_cycle_collection():
        if data.lstrip().startswith(b"{"):
            return _json_spans(path, data)
        return _proto_spans(path, data)


def _json_spans(path: Path, data: bytes) -> list[TraceSpan]:
    spans: list[TraceSpan] = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            spans.extend(read_json_line(line))
        except (ValueError, RecursionError) as exc:
            why = "it nests too deep" if isinstance(exc, RecursionError) else " ".join(str(exc).split())
            raise RunFileError(
                f"not an OTLP JSON trace line ({why[:200]}); each line must be one "
                "ExportTraceServiceRequest, as the OpenTelemetry Collector's file exporter writes",
                path=path,
                line_no=number,
            ) from None
    return spans


def _proto_spans(path: Path, data: bytes) -> list[TraceSpan]:
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(data)
    except DecodeError as exc:
        raise RunFileError(
            f"not an OTLP protobuf trace (an ExportTraceServiceRequest): {exc}; the dump may be truncated",
            path=path,
        ) from None
    return from_proto(request)


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def base64_ids(data: Any) -> Any:
    """OTLP/JSON writes ids as hex; the protobuf JSON mapping reads bytes as base64."""
    if not isinstance(data, dict):
        raise ValueError("a line is not a JSON object")
    for resource in data.get("resourceSpans", ()):  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        for scope in resource.get("scopeSpans", ()):  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            for span in scope.get("spans", ()):  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                for item in (span, *span.get("links", ())):  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                    for field in ("traceId", "spanId", "parentSpanId"):
                        value = item.get(field)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                        if isinstance(value, str) and value:
                            # already base64 when it is not hex (some writers use the plain mapping)
                            with contextlib.suppress(ValueError):
                                item[field] = base64.b64encode(bytes.fromhex(value)).decode()
    return data  # pyright: ignore[reportUnknownVariableType]


def load_json(raw: bytes) -> Any:
    """One OTLP JSON request. Explicit nulls (Phoenix's span export writes every unset field as
    `null`, which the protobuf mapping refuses) are dropped: unset is what they mean."""
    if b"null" not in raw:
        return json.loads(raw)
    return json.loads(raw, object_hook=_without_nulls)


def _without_nulls(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None}


def run_lines(spans: list[TraceSpan], path: Path) -> list[str]:
    """`trace_lines`, with spans whose attributes are not what their names promise (an
    `inspector.step` that is not a number, a topology that is not one) said in one paragraph."""
    try:
        return trace_lines(spans, path)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        why = " ".join(str(exc).split())[:200]
        raise RunFileError(
            f"the trace's spans do not make a run ({type(exc).__name__}: {why}); an attribute of a "
            "span has a value of the wrong kind",
            path=path,
        ) from None


def cache_dir() -> Path:
    """Where converted traces are kept (`INSPECTOR_CACHE_DIR`, else a folder in the temp directory)."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path(tempfile.gettempdir()) / f"inspector-otlp-{os.getuid()}"


def open_trace(path: Path, *, lenient: bool = False) -> Run:
    """The run in the trace file at `path`, converted once (per content) to a cached run file."""
    target = converted(path)
    try:
        run = read_run(target, lenient=lenient)
    except RunFileError as exc:
        if exc.path != target:
            raise
        where = f"{target}:{exc.line_no}: " if exc.line_no is not None else f"{target}: "
        raise RunFileError(
            f"the run made of this trace is malformed ({str(exc).removeprefix(where)}): the values of "
            "its spans' inspector.* attributes do not describe a run",
            path=path,
        ) from None
    run.path = path  # what the person opened, in what commands print (the converted file is a cache)
    return run


def converted(path: Path) -> Path:
    """The cached run file made from the trace file at `path` (made now if it is not there yet)."""
    try:
        digest = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    except OSError as exc:
        raise RunFileError(f"cannot read the trace: {exc.strerror or exc}", path=path) from None
    folder = cache_dir()
    target = folder / f"{digest}.jsonl"
    if not target.exists():
        lines = run_lines(read_spans(path), path)
        folder.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.part")
        partial.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        partial.replace(target)
    return target
