"""A checkpointer location opened by what it is, its threads listed, one thread opened as a run.

A location is a SQLite file written by `SqliteSaver` or a `postgresql://` URL of a `PostgresSaver`
database; both give the same small interface (`stream.Checkpointer`: `threads`, `outline`, `stream`,
`namespaces`, `checkpoints`, `stamp`, `close`, and `where`, the location as messages may show it: a URL
without its password), so nothing past `checkpointer()` asks which it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.errors import RunFileError
from inspector.sources.langgraph.cache import cache_path, is_complete, write_behind, write_now
from inspector.sources.langgraph.history import Branch, Checkpoint, ThreadInfo, subgraph_chains
from inspector.sources.langgraph.postgres import PostgresCheckpointer, is_postgres_url
from inspector.sources.langgraph.sqlite import SqliteCheckpointer, is_sqlite_checkpointer
from inspector.sources.langgraph.stream import Checkpointer, choose, plan_thread, write_streamed

if TYPE_CHECKING:
    from graph_core.topology import Topology
    from inspector.recording.reader import Run

__all__ = [
    "Checkpointer",
    "ThreadSelection",
    "checkpointer",
    "is_checkpointer",
    "list_threads",
    "open_thread",
    "read_thread",
    "select_thread",
    "thread_run_file",
]


_VERSION = "3"
"""The reader's version, in the name of the run files it writes: a file an older reader wrote is
written again."""


def is_checkpointer(location: str | Path) -> bool:
    """`location` is a `postgresql://` URL or a SQLite checkpointer file (nothing is connected to)."""
    return is_postgres_url(str(location)) or is_sqlite_checkpointer(location)


@contextmanager
def checkpointer(location: str | Path) -> Iterator[Checkpointer]:
    """The checkpointer at `location`, closed on leaving; refused when it is not one."""
    if is_postgres_url(str(location)):
        found: Checkpointer = PostgresCheckpointer(str(location))
    elif is_sqlite_checkpointer(location):
        found = SqliteCheckpointer(location)
    else:
        raise RunFileError(
            f"{location}: is not a LangGraph checkpointer. A checkpointer is the SQLite file LangGraph's "
            "SqliteSaver writes (with `checkpoints` and `writes` tables) or a postgresql:// URL of a "
            "PostgresSaver database; pass it with --thread ID."
        )
    try:
        yield found
    finally:
        found.close()


def list_threads(location: str | Path) -> list[ThreadInfo]:
    """The threads at `location` (id, checkpoints, last step, last update), most recently written first."""
    with checkpointer(location) as store:
        return store.threads()


class ThreadSelection:
    """One thread read and its branch chosen: the chain, every branch, the subgraph chains."""

    def __init__(
        self,
        where: str,
        thread_id: str,
        branch: Branch,
        branches: list[Branch],
        subgraphs: dict[str, list[Checkpoint]],
    ) -> None:
        self.where = where
        self.thread_id = thread_id
        self.branch = branch
        self.branches = branches
        self.subgraphs = subgraphs

    def meta(self) -> dict[str, Any]:
        """The header's `meta.langgraph_thread` fields besides the checkpoints."""
        return {
            "location": self.where,
            "branch": self.branch.number,
            "branches": [b.summary() for b in self.branches],
        }


def _select(
    store: Checkpointer, thread_id: str, *, branch: int | None, checkpoint: str | None
) -> ThreadSelection:
    everything = store.checkpoints(thread_id)
    top = [c for c in everything if not c.ns]
    chosen, branches = choose(store, thread_id, top, branch=branch, checkpoint=checkpoint)
    return ThreadSelection(store.where, thread_id, chosen, branches, subgraph_chains(everything))


def select_thread(
    location: str | Path, thread_id: str, *, branch: int | None = None, checkpoint: str | None = None
) -> ThreadSelection:
    """Read a thread and choose its branch (refused, with the nearest ids, when it does not exist)."""
    with checkpointer(location) as store:
        return _select(store, thread_id, branch=branch, checkpoint=checkpoint)


def read_thread(
    location: str | Path, thread_id: str, *, branch: int | None = None, checkpoint: str | None = None
) -> list[Checkpoint]:
    """The chosen history of a thread (by default the branch of its latest checkpoint), oldest first."""
    return list(select_thread(location, thread_id, branch=branch, checkpoint=checkpoint).branch.chain)


def thread_run_file(
    location: str | Path,
    thread_id: str,
    *,
    topology: Topology | None = None,
    branch: int | None = None,
    checkpoint: str | None = None,
    behind: bool = False,
) -> Path:
    """The run file of a thread, written under the temporary directory (named by the location, what
    it holds now, the thread and the choices: a checkpointer written since gets a fresh file), read
    step by step (`stream`). With `behind`, a file not written yet is written by a forked process
    while the caller goes on (see `cache.write_behind`; `cache.converting(path)` says whether it still
    is). What would be refused (no such thread, branch or checkpoint) is refused here, either way."""
    with checkpointer(location) as store:
        shape = "" if topology is None else topology.model_dump_json()
        key = "\0".join((store.stamp(thread_id), thread_id, str(branch), str(checkpoint), shape, _VERSION))
        out = cache_path(key)
        if is_complete(out):  # this thread, as it is now, was written already
            return out
        plan = plan_thread(store, thread_id, branch=branch, checkpoint=checkpoint, topology=topology)
        if not behind:
            return write_now(out, lambda path: write_streamed(store, plan, path))

    def write(path: Path) -> None:  # in the forked writer: a connection of its own
        with checkpointer(location) as store:
            write_streamed(store, plan, path)

    if write_behind(out, write):  # (forked once the connection is closed)
        return out
    return write_now(out, write)


def open_thread(
    location: str | Path,
    thread_id: str,
    *,
    target: str | None = None,
    branch: int | None = None,
    checkpoint: str | None = None,
    lenient: bool = False,
) -> Run:
    """A thread of the checkpointer at `location` as a `Run`, as `inspector show --thread` reads it
    (the graph's topology from `target` when given, else observed from the checkpoints)."""
    from inspector.recording import read_run

    topology = None
    if target is not None:
        from inspector.target import load_target

        topology = load_target(target).topology()
    path = thread_run_file(location, thread_id, topology=topology, branch=branch, checkpoint=checkpoint)
    return read_run(path, lenient=lenient)
