"""LangGraph checkpointer threads as runs: a SQLite file of `SqliteSaver` or a `postgresql://` URL of
`PostgresSaver`, read read-only, each thread opened as every command opens a run file.

- `list_threads(location)`: the threads (id, checkpoints, last step, last update), latest first;
- `open_thread(location, thread_id, ...)`: one thread as a `Run` (`thread_run_file` gives its run
  file, `read_thread` its checkpoints);
- `run_source(path, thread, ...)`: what the CLI reads for a RUN argument.

Modules: `sqlite` and `postgres` (the two kinds, one interface), `decode` (values and format checks),
`history` (branches, subgraph namespaces), `tasks` (what a checkpoint's writes say ran), `run` (the
run file), `stream` (a thread read step by step: its outline, then each checkpoint as its step is
written), `thread` (opening by location), `cli` (the options).
"""

from __future__ import annotations

from inspector.sources.langgraph.cli import (
    add_thread_options,
    converting,
    run_source,
    run_sources,
    shown,
    threads_text,
)
from inspector.sources.langgraph.history import Branch, Checkpoint, ThreadInfo
from inspector.sources.langgraph.postgres import is_postgres_url, redacted
from inspector.sources.langgraph.run import next_nodes, observed_topology, write_thread_run
from inspector.sources.langgraph.sqlite import is_sqlite_checkpointer
from inspector.sources.langgraph.thread import (
    checkpointer,
    is_checkpointer,
    list_threads,
    open_thread,
    read_thread,
    select_thread,
    thread_run_file,
)

__all__ = [
    "Branch",
    "Checkpoint",
    "ThreadInfo",
    "add_thread_options",
    "checkpointer",
    "converting",
    "is_checkpointer",
    "is_postgres_url",
    "is_sqlite_checkpointer",
    "list_threads",
    "next_nodes",
    "observed_topology",
    "open_thread",
    "read_thread",
    "redacted",
    "run_source",
    "run_sources",
    "select_thread",
    "shown",
    "thread_run_file",
    "threads_text",
    "write_thread_run",
]
