"""A SQLite checkpointer (`langgraph-checkpoint-sqlite`'s `SqliteSaver`), read read-only with plain SQL.

`SqliteSaver` itself runs `PRAGMA journal_mode=WAL` and `CREATE TABLE IF NOT EXISTS` before every read,
so the tables are read here with SQL on a read-only connection (`_ReadOnly`), and the values decoded
with LangGraph's serializer (`decode`). A thread is read in the order of the tables' keys, one query
per table and namespace, the two walked in step (`stream`): each checkpoint is decoded, with its
pending writes, when the reader reaches it, so the first steps of a 10,000-checkpoint thread are
written out before the rest is read (not one query per checkpoint, as `SqliteSaver.list` makes, nor
the whole thread first). `outline` reads what choosing a branch and drawing the observed topology
need without decoding the checkpoints' values.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Container, Iterator, Mapping
from pathlib import Path
from typing import Any

from inspector.errors import RunFileError
from inspector.sources.langgraph.decode import (
    OUTLINED,
    SENDS,
    check_format,
    decode,
    metadata_of,
    outline_writes,
)
from inspector.sources.langgraph.history import Checkpoint, ThreadInfo

__all__ = ["SqliteCheckpointer", "is_sqlite_checkpointer"]

_SQLITE_HEADER = b"SQLite format 3\x00"
_OUTLINED = "(" + ", ".join(f"'{channel}'" for channel in OUTLINED) + ")"
_OUTLINE_WRITES = (
    "SELECT checkpoint_id, task_id, task_path, channel, type, value FROM ("
    "SELECT checkpoint_id, task_id, MIN(idx) AS idx, task_path, channel, NULL AS type, NULL AS value "
    f"FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND channel NOT IN {_OUTLINED} "
    "GROUP BY checkpoint_id, task_id "
    "UNION ALL SELECT checkpoint_id, task_id, idx, task_path, channel, type, value "
    f"FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND channel IN {_OUTLINED}"
    ") ORDER BY checkpoint_id, task_id, idx"
)
"""An outline's writes: each task's first (its path names it) and every interrupt and error, in the
order of the key (a task's other writes are its results, which the outline does not need)."""


def is_sqlite_checkpointer(path: str | Path) -> bool:
    """`path` is a SQLite file with a `checkpoints` table (checked read-only)."""
    file = Path(path)
    try:
        if not file.is_file():  # a FIFO would block the read; `read_run` names what it is instead
            return False
        with file.open("rb") as handle:
            if handle.read(16) != _SQLITE_HEADER:
                return False
    except OSError:
        return False
    try:
        with _ReadOnly(file) as db:
            found = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='checkpoints'")
            return found.fetchone() is not None
    except sqlite3.Error:
        return False


class _ReadOnly:
    """A read-only connection, closed on leaving (sqlite3's own context manager only commits).

    SQLite opens a database in WAL mode (as `SqliteSaver` leaves it) by creating its `-wal` and `-shm`
    files, even read-only. When there is no `-wal` file, everything is in the database file itself,
    so it is opened `immutable`: nothing is created beside it. With one (a writer is at work, or
    did not close), read-only through the write-ahead log, which exists already."""

    def __init__(self, path: Path) -> None:
        wal = path.with_name(path.name + "-wal").exists()
        mode = "mode=ro" if wal else "mode=ro&immutable=1"
        self.db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True)

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


class SqliteCheckpointer:
    """The threads of one SQLite checkpointer file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.where = str(path)

    def _refused(self, error: sqlite3.Error) -> RunFileError:
        return RunFileError(
            f"{self.where}: cannot be read as a LangGraph checkpointer ({error}). A checkpointer database "
            "is the SQLite file LangGraph's SqliteSaver writes (with `checkpoints` and `writes` tables)."
        )

    def threads(self) -> list[ThreadInfo]:
        """The threads of the top-level graph, most recently written first."""
        try:
            with _ReadOnly(self.path) as db:
                rows = db.execute(
                    "SELECT c.thread_id, n, c.type, c.checkpoint, c.metadata FROM checkpoints c JOIN "
                    "(SELECT thread_id, COUNT(*) AS n, MAX(checkpoint_id) AS last FROM checkpoints "
                    "WHERE checkpoint_ns = '' GROUP BY thread_id) t "
                    "ON c.thread_id = t.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = t.last"
                ).fetchall()
        except sqlite3.Error as error:
            raise self._refused(error) from None
        threads: list[ThreadInfo] = []
        for thread_id, count, kind, blob, meta in rows:
            step = metadata_of(meta).get("step")
            decoded = decode(kind, blob)
            ts = str(decoded.get("ts", "")) if isinstance(decoded, Mapping) else ""  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            threads.append(
                ThreadInfo(str(thread_id), int(count), step if isinstance(step, int) else None, ts)
            )
        threads.sort(key=lambda t: t.last_update, reverse=True)
        return threads

    def namespaces(self, thread_id: str) -> list[str]:
        """The subgraph namespaces the thread has checkpoints in (read from the key's index only)."""
        try:
            with _ReadOnly(self.path) as db:
                rows = db.execute(
                    "SELECT DISTINCT checkpoint_ns FROM checkpoints "
                    "WHERE thread_id = ? AND checkpoint_ns != ''",
                    (thread_id,),
                ).fetchall()
        except sqlite3.Error as error:
            raise self._refused(error) from None
        return sorted(str(ns) for (ns,) in rows)

    def stream(
        self, thread_id: str, ns: str = "", wanted: Container[str] | None = None
    ) -> Iterator[Checkpoint]:
        """The checkpoints of one namespace of the thread, oldest first, each decoded with its pending
        writes as it is read (with `wanted`, only those whose ids it holds; the others are passed over
        undecoded). Both tables are read once, in step, in the order of their keys: nothing waits for
        the whole thread."""
        try:
            with _ReadOnly(self.path) as db:
                rows = db.execute(
                    "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
                    "WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id",
                    (thread_id, ns),
                )
                writes = db.execute(
                    "SELECT checkpoint_id, task_id, task_path, channel, type, value FROM writes "
                    "WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id, task_id, idx",
                    (thread_id, ns),
                )
                pending = next(writes, None)
                for checkpoint_id, parent_id, kind, blob, meta in rows:
                    found: list[tuple[str, str, str, Any]] = []
                    keep = wanted is None or checkpoint_id in wanted
                    while pending is not None and pending[0] <= checkpoint_id:
                        if keep and pending[0] == checkpoint_id:
                            _, task_id, task_path, channel, value_kind, value = pending
                            found.append((task_id, task_path or "", channel, decode(value_kind, value)))
                        pending = next(writes, None)
                    if keep:
                        yield self._decoded(thread_id, ns, checkpoint_id, parent_id, kind, blob, meta, found)
        except sqlite3.Error as error:
            raise self._refused(error) from None

    def _decoded(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        parent_id: str | None,
        kind: str | None,
        blob: bytes | None,
        meta: bytes | None,
        writes: list[tuple[str, str, str, Any]],
    ) -> Checkpoint:
        decoded = decode(kind, blob)
        checkpoint: Mapping[str, Any] = decoded if isinstance(decoded, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
        metadata = metadata_of(meta)
        check_format(self.where, thread_id, checkpoint_id, checkpoint, metadata)
        return _checkpoint(ns, checkpoint_id, parent_id, checkpoint, metadata, writes)

    def checkpoints(self, thread_id: str) -> list[Checkpoint]:
        """Every checkpoint of the thread, of every namespace, oldest first, with its pending writes."""
        everything = [c for ns in ("", *self.namespaces(thread_id)) for c in self.stream(thread_id, ns)]
        return sorted(everything, key=lambda c: c.id)

    def outline(self, thread_id: str) -> list[Checkpoint]:
        """The thread's top-level checkpoints without their values: ids, parents, metadata, and of their
        pending writes each task's first and every interrupt and error (`_OUTLINE_WRITES`), the latest
        checkpoint's format checked. Enough to choose a branch and to draw the topology the thread
        shows before anything else is decoded."""
        try:
            with _ReadOnly(self.path) as db:
                rows = db.execute(
                    "SELECT checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints "
                    "WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id",
                    (thread_id,),
                ).fetchall()
                latest = db.execute(
                    "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' "
                    "ORDER BY checkpoint_id DESC LIMIT 1",
                    (thread_id,),
                ).fetchone()
                writes, pushed = outline_writes(db.execute(_OUTLINE_WRITES, (thread_id, thread_id)))
                sends = {checkpoint_id: self._sends(db, thread_id, checkpoint_id) for checkpoint_id in pushed}
        except sqlite3.Error as error:
            raise self._refused(error) from None
        out = [_outlined(cid, parent, metadata_of(meta), writes, sends) for cid, parent, meta in rows]
        if out and latest is not None:
            check_format(self.where, thread_id, out[-1].id, decode(*latest), out[-1].metadata)
        return out

    @staticmethod
    def _sends(db: sqlite3.Connection, thread_id: str, checkpoint_id: str) -> dict[str, Any]:
        """The `Send`s a checkpoint holds (its `__pregel_tasks` channel), which name its pushed tasks."""
        row = db.execute(
            "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' "
            "AND checkpoint_id = ?",
            (thread_id, checkpoint_id),
        ).fetchone()
        decoded = decode(*row) if row is not None else None
        values = decoded.get("channel_values") if isinstance(decoded, Mapping) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        return {SENDS: values.get(SENDS)} if isinstance(values, Mapping) else {}  # pyright: ignore[reportUnknownMemberType]

    def stamp(self, thread_id: str) -> str:
        """What changes when the file is written: its size and time."""
        stat = self.path.stat()
        return f"{self.path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"

    def close(self) -> None:
        """Nothing stays open between reads."""


def _checkpoint(
    ns: str,
    checkpoint_id: str,
    parent_id: str | None,
    checkpoint: Mapping[str, Any],
    metadata: dict[str, Any],
    writes: list[tuple[str, str, str, Any]],
) -> Checkpoint:
    values = dict(checkpoint.get("channel_values") or {})
    return Checkpoint.of(
        checkpoint_id, parent_id, metadata, values, writes, str(checkpoint.get("ts", "")), ns
    )


def _outlined(
    checkpoint_id: str,
    parent_id: str | None,
    metadata: dict[str, Any],
    writes: Mapping[str, list[tuple[str, str, str, Any]]],
    sends: Mapping[str, dict[str, Any]],
) -> Checkpoint:
    """A checkpoint of an outline: no values but the `Send`s that name its pushed tasks."""
    return Checkpoint.of(
        checkpoint_id, parent_id, metadata, sends.get(checkpoint_id, {}), writes.get(checkpoint_id, [])
    )
