"""Run sources: `open_run(path)` opens whatever holds a run, by what it is, and gives the same `Run`.

One module per kind, each with `claims(path, head) -> bool` and `open(path, lenient) -> Run`: `otlp`
(an OTLP trace: JSON lines as the Collector's file exporter writes them, or a protobuf dump), and the
run file itself (the fallback, `read_run`). Commands call `open_run` and never branch on the kind.
A LangGraph checkpointer's thread (`inspector.sources.langgraph`) needs a thread id besides the
location, so the CLI turns it into a run file first (`run_source`), which `open_run` then reads.
"""

from __future__ import annotations

from pathlib import Path

from inspector.recording.reader import Run, read_run

__all__ = ["open_run", "run_file_path"]

_HEAD = 4096


def open_run(path: str | Path, *, lenient: bool = False) -> Run:
    """The run at `path`: a run file, or an OTLP trace file (converted once to a cached run file)."""
    from inspector.sources import otlp

    head = _head(path)
    if head is not None and otlp.claims(Path(path), head):
        return otlp.open_trace(Path(path), lenient=lenient)
    return read_run(path, lenient=lenient)


def run_file_path(path: str | Path) -> Path:
    """A run file holding the run at `path`: `path` itself, or the converted trace (for readers that
    follow a file, such as the replay TUI)."""
    from inspector.sources import otlp

    head = _head(path)
    if head is not None and otlp.claims(Path(path), head):
        return otlp.converted(Path(path))
    return Path(path)


def _head(path: str | Path) -> bytes | None:
    """The first bytes of a regular file; None for anything else (a FIFO would block the read, a folder
    cannot be read): `read_run` then says what is wrong with it."""
    try:
        if not Path(path).is_file():
            return None
        with open(path, "rb") as file:
            return file.read(_HEAD)
    except OSError:
        return None  # read_run says what is wrong with it
