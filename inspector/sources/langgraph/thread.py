"""A checkpointer location opened by what it is, its threads listed, one thread opened as a run.

A location is a SQLite file written by `SqliteSaver` or a `postgresql://` URL of a `PostgresSaver`
database; both give the same small interface (`threads`, `checkpoints`, `stamp`, `close`, and `where`,
the location as messages may show it: a URL without its password), so nothing past `checkpointer()`
asks which it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from inspector.errors import RunFileError
from inspector.sources.langgraph.cache import cache_path, is_complete, write_behind, write_now
from inspector.sources.langgraph.history import (
    Branch,
    Checkpoint,
    ThreadInfo,
    choose_chain,
    missing_thread,
    subgraph_chains,
)
from inspector.sources.langgraph.postgres import PostgresCheckpointer, is_postgres_url
from inspector.sources.langgraph.sqlite import SqliteCheckpointer, is_sqlite_checkpointer

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


_VERSION = "2"
"""The reader's version, in the name of the run files it writes: a file an older reader wrote is
written again."""


class Checkpointer(Protocol):
    """What every checkpointer kind offers the readers."""

    where: str

    def threads(self) -> list[ThreadInfo]: ...
    def checkpoints(self, thread_id: str) -> list[Checkpoint]: ...
    def outline(self, thread_id: str) -> list[Checkpoint]: ...
    def stamp(self, thread_id: str) -> str: ...
    def close(self) -> None: ...


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
    chosen, branches = _choose(store, thread_id, top, branch=branch, checkpoint=checkpoint)
    return ThreadSelection(store.where, thread_id, chosen, branches, subgraph_chains(everything))


def _choose(
    store: Checkpointer, thread_id: str, top: list[Checkpoint], *, branch: int | None, checkpoint: str | None
) -> tuple[Branch, list[Branch]]:
    """The branch chosen among the top-level checkpoints, and every branch (a thread that has none
    does not exist: refused with the nearest ids)."""
    if not top:
        raise missing_thread(store.where, thread_id, store.threads())
    return choose_chain(store.where, thread_id, top, branch=branch, checkpoint=checkpoint)


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
    it holds now, the thread and the choices: a checkpointer written since gets a fresh file). With
    `behind`, a file not written yet is written by a forked process while the caller goes on (see
    `cache.write_behind`; `cache.converting(path)` says whether it still is)."""
    from inspector.sources.langgraph.run import write_thread_run

    with checkpointer(location) as store:
        shape = "" if topology is None else topology.model_dump_json()
        key = "\0".join((store.stamp(thread_id), thread_id, str(branch), str(checkpoint), shape, _VERSION))
        out = cache_path(key)
        if is_complete(out):  # this thread, as it is now, was written already
            return out
        if behind:  # what would be refused is refused here; the writer reads everything
            _choose(store, thread_id, store.outline(thread_id), branch=branch, checkpoint=checkpoint)
            selection = None
        else:
            selection = _select(store, thread_id, branch=branch, checkpoint=checkpoint)

    def write(path: Path) -> None:
        chosen = selection or select_thread(location, thread_id, branch=branch, checkpoint=checkpoint)
        write_thread_run(
            chosen.branch,
            path,
            thread_id=thread_id,
            topology=topology,
            subgraphs=chosen.subgraphs,
            meta=chosen.meta(),
        )

    if selection is None and write_behind(out, write):  # (forked once the connection is closed)
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
