"""The names this module had before threads became the `inspector.sources.langgraph` package (kept
importable: see that package for what they do)."""

from __future__ import annotations

from inspector.sources.langgraph import (
    Checkpoint,
    ThreadInfo,
    add_thread_options,
    is_sqlite_checkpointer,
    list_threads,
    next_nodes,
    observed_topology,
    read_thread,
    run_source,
    run_sources,
    thread_run_file,
    threads_text,
    write_thread_run,
)

__all__ = [
    "Checkpoint",
    "ThreadInfo",
    "add_thread_options",
    "is_sqlite_checkpointer",
    "list_threads",
    "next_nodes",
    "observed_topology",
    "read_thread",
    "run_source",
    "run_sources",
    "thread_run_file",
    "threads_text",
    "write_thread_run",
]
