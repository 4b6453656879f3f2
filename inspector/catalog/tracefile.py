"""The OTLP trace-file source kind: every run in a trace file is a run.

A trace file (OTLP JSON lines as the OpenTelemetry Collector's file exporter or `inspector export`
writes them, or a protobuf dump) is parsed with `inspector.sources.otlp.read_spans`, its spans gathered
per run (our own runs by the run id on their root span, so the segments of a resumed run, one trace
each, stay one run; any other trace is a run of its own, observed), and each run made into a run file
by `inspector.sources.trace_run.trace_lines`, as `inspector show TRACE.json` does for a file's first run.
The run files and a small manifest are written once per version of the trace file into the OTLP cache
folder (`INSPECTOR_CACHE_DIR`, else the temporary folder), then summarized and opened like any run file.
A run is listed as `TRACE.json#RUN_ID` (our own) or `TRACE.json#TRACE_ID` (observed); a run whose spans
cannot be made into a run (no steps) is listed as corrupt with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.catalog.errors import CatalogError
from inspector.catalog.index import Version
from inspector.catalog.record import RunRecord
from inspector.catalog.runfile import summarize_file
from inspector.catalog.source import Found, stat_version

if TYPE_CHECKING:
    from inspector.sources.spans import TraceSpan

__all__ = ["TraceFileKind", "claims_trace"]

_PROTOBUF_SUFFIXES = (".pb", ".binpb", ".protobuf", ".otlp")


def claims_trace(path: Path, head: bytes) -> bool:
    """OTLP JSON (its first object is an export request) or a protobuf dump named by its suffix: the
    test `inspector.sources.otlp.claims` makes for a file named directly, without importing protobuf
    for every file a folder holds, and without its guess from a first newline byte (which a text file
    in a folder may start with too)."""
    text = head.lstrip()
    if text.startswith(b"{"):
        return text[1:].lstrip().startswith(b'"resourceSpans"')
    return path.suffix in _PROTOBUF_SUFFIXES


@dataclass(frozen=True)
class _Converted:
    """One run of a trace file: its part (run id or trace id), and its run file or why there is none."""

    part: str
    file: str
    reason: str


class TraceFileKind:
    """See the module docstring."""

    name = "otlp"
    description = (
        "OTLP trace files (OTLP JSON as the OpenTelemetry Collector's file exporter writes it, or a "
        "protobuf dump)"
    )
    schemes: tuple[str, ...] = ()
    listing = False

    def claims(self, path: Path, head: bytes) -> bool:
        return claims_trace(path, head)

    def runs_in(self, path: str, key: str, version: Version) -> Iterator[Found]:
        for run in _converted(key, version):
            yield Found(f"{path}#{run.part}", f"{key}#{run.part}", self.name, version, run.part, key)

    def runs_at(self, url: str) -> Iterator[Found]:
        raise CatalogError(f"{url}: trace files are files, not URLs (`inspector receive` takes OTLP/HTTP)")

    def summarize(self, found: Found, *, now: float) -> RunRecord:
        record = RunRecord(found.path, found.key, kind=self.name, part=found.part, where=found.where)
        try:
            run = _run(found, found.version)
        except CatalogError as exc:
            record.status, record.reason = "corrupt", str(exc)
            return record
        if run.reason:
            record.status, record.reason = "corrupt", run.reason
            return record
        summarize_file(run.file, record, now=now, grew_at=found.version[1] / 1e9)
        return record

    def open(self, found: Found) -> Any:
        from inspector.recording import read_run

        return read_run(self.run_file(found))

    def run_file(self, found: Found) -> Path:
        from inspector.errors import RunFileError

        try:
            version = stat_version(os.stat(found.where))
        except OSError as exc:
            raise RunFileError(f"cannot read the trace: {exc.strerror or exc}", path=found.where) from None
        run = _run(found, version)
        if run.reason:
            raise RunFileError(run.reason, path=found.where)
        return Path(run.file)


def _run(found: Found, version: Version) -> _Converted:
    for run in _converted(found.where, version):
        if run.part == found.part:
            return run
    raise CatalogError(f"{found.where} holds no run `{found.part}` any more")


def _converted(key: str, version: Version) -> list[_Converted]:
    """The runs of the trace file `key` at `version`, converted once (a manifest in the cache names
    their run files)."""
    from inspector.sources.otlp import cache_dir

    folder = cache_dir() / "catalog"
    digest = hashlib.blake2b(f"{key}\0{version}".encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    manifest = folder / f"{digest}.json"
    try:
        return [_Converted(**run) for run in json.loads(manifest.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError):
        pass  # not converted yet (or a manifest another version wrote): converted now
    runs = _convert(Path(key), folder, digest)
    folder.mkdir(parents=True, exist_ok=True)
    _write(manifest, json.dumps([vars(run) for run in runs]))
    return runs


def _convert(path: Path, folder: Path, digest: str) -> list[_Converted]:
    from inspector.errors import RunFileError
    from inspector.sources.otlp import read_spans
    from inspector.sources.trace_run import trace_lines

    try:
        spans = read_spans(path)
    except RunFileError as exc:
        raise CatalogError(" ".join(str(exc).split())) from None
    except OSError as exc:
        raise CatalogError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    out: list[_Converted] = []
    for part, group in _by_run(spans).items():
        try:
            lines = trace_lines(group, path)
        except RunFileError as exc:
            message = " ".join(str(exc).split()).removeprefix(f"{path}: ")
            out.append(_Converted(part, "", message))
            continue
        name = hashlib.blake2b(part.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        readable = "".join(c if c.isalnum() or c in "-_" else "_" for c in part)[:40]
        file = folder / f"{readable}.{digest[:16]}{name[:8]}.jsonl"  # the replay screen shows its name
        folder.mkdir(parents=True, exist_ok=True)
        _write(file, "".join(line + "\n" for line in lines))
        out.append(_Converted(part, str(file), ""))
    return out


def _by_run(spans: Sequence[TraceSpan]) -> dict[str, list[TraceSpan]]:
    """The spans of each run, in file order: our own runs' traces by the run id on their root span
    (a resumed run's segments are one trace each), any other trace on its own; a span exported twice
    is kept once."""
    from inspector.otel import names

    run_of: dict[str, str] = {}
    for span in spans:
        run_id = span.attributes.get(names.RUN_ID)
        if isinstance(run_id, str) and run_id and span.attributes.get(names.OPERATION) == names.OP_WORKFLOW:
            run_of.setdefault(span.trace_id, run_id)
    groups: dict[str, list[TraceSpan]] = {}
    seen: set[tuple[str, str]] = set()
    for span in spans:
        if (span.trace_id, span.span_id) in seen:
            continue
        seen.add((span.trace_id, span.span_id))
        groups.setdefault(run_of.get(span.trace_id, span.trace_id), []).append(span)
    return groups


def _write(path: Path, text: str) -> None:
    """Written aside and moved in: another process may read the same file meanwhile."""
    aside = path.with_name(f"{path.name}.{os.getpid()}.part")
    aside.write_text(text, encoding="utf-8")
    os.replace(aside, path)
