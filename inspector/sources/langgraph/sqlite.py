"""A SQLite checkpointer (`langgraph-checkpoint-sqlite`'s `SqliteSaver`), read read-only with plain SQL.

`SqliteSaver` itself runs `PRAGMA journal_mode=WAL` and `CREATE TABLE IF NOT EXISTS` before every read,
so the tables are read here with SQL on a read-only connection (`_ReadOnly`), and the values decoded
with LangGraph's serializer (`decode`). One query per table: a 10,000-checkpoint thread is read in
two passes, not one query per checkpoint as `SqliteSaver.list` would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspector.errors import RunFileError
from inspector.sources.langgraph.decode import check_format, decode, metadata_of
from inspector.sources.langgraph.history import Checkpoint, ThreadInfo

__all__ = ["SqliteCheckpointer", "is_sqlite_checkpointer"]

_SQLITE_HEADER = b"SQLite format 3\x00"


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

    def checkpoints(self, thread_id: str) -> list[Checkpoint]:
        """Every checkpoint of the thread, of every namespace, oldest first, with its pending writes."""
        try:
            with _ReadOnly(self.path) as db:
                rows = db.execute(
                    "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata "
                    "FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id",
                    (thread_id,),
                ).fetchall()
                writes: dict[tuple[str, str], list[tuple[str, str, str, Any]]] = {}
                for ns, checkpoint_id, task_id, task_path, channel, kind, blob in db.execute(
                    "SELECT checkpoint_ns, checkpoint_id, task_id, task_path, channel, type, value "
                    "FROM writes WHERE thread_id = ? ORDER BY checkpoint_id, task_id, idx",
                    (thread_id,),
                ):
                    writes.setdefault((ns, checkpoint_id), []).append(
                        (task_id, task_path or "", channel, decode(kind, blob))
                    )
        except sqlite3.Error as error:
            raise self._refused(error) from None
        out: list[Checkpoint] = []
        for ns, checkpoint_id, parent_id, kind, blob, meta in rows:
            decoded = decode(kind, blob)
            checkpoint: Mapping[str, Any] = decoded if isinstance(decoded, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
            metadata = metadata_of(meta)
            check_format(self.where, thread_id, checkpoint_id, checkpoint, metadata)
            out.append(_checkpoint(ns, checkpoint_id, parent_id, checkpoint, metadata, writes))
        return out

    def outline(self, thread_id: str) -> list[Checkpoint]:
        """The thread's top-level checkpoints without their values or writes (ids, parents, metadata:
        enough to choose a branch), the latest one's format checked: a quick look before `checkpoints`
        reads everything."""
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
        except sqlite3.Error as error:
            raise self._refused(error) from None
        out = [_checkpoint("", cid, parent, {}, metadata_of(meta), {}) for cid, parent, meta in rows]
        if out and latest is not None:
            check_format(self.where, thread_id, out[-1].id, decode(*latest), out[-1].metadata)
        return out

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
    writes: Mapping[tuple[str, str], list[tuple[str, str, str, Any]]],
) -> Checkpoint:
    step = metadata.get("step")
    return Checkpoint(
        id=checkpoint_id,
        parent_id=parent_id,
        step=step if isinstance(step, int) else 0,
        source=str(metadata.get("source", "")),
        values=dict(checkpoint.get("channel_values") or {}),
        writes=writes.get((ns, checkpoint_id), []),
        ts=str(checkpoint.get("ts", "")),
        ns=ns,
        metadata=metadata,
    )
