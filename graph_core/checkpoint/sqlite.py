"""`SqliteCheckpointStore`: the embedded default for checkpoints that must survive the process.

Standard-library `sqlite3` in WAL mode with `synchronous=FULL`: a write is one `INSERT ... ON CONFLICT`
inside `BEGIN IMMEDIATE ... COMMIT`, so a reader (or a process started after this one was killed) sees
either the previous checkpoint or the new one, never a torn mix. One connection per store, shared by
threads behind a lock; several processes may open the same file.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from os import PathLike
from types import TracebackType

__all__ = ["SqliteCheckpointStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    id TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    written_at REAL NOT NULL
)
"""


class SqliteCheckpointStore:
    """Checkpoints in an SQLite file at `path` (created if missing). `clock` stamps `written_at`."""

    def __init__(
        self,
        path: str | PathLike[str],
        *,
        timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = str(path)
        self._clock = clock
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise type(exc)(f"cannot open checkpoint store {self.path!r}: {exc}") from exc
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute(_SCHEMA)
        except sqlite3.Error as exc:  # sqlite's own message does not say which file
            self._conn.close()
            raise type(exc)(f"cannot open checkpoint store {self.path!r}: {exc}") from exc

    def get(self, checkpoint_id: str) -> bytes | None:
        with self._lock:
            row = self._conn.execute("SELECT data FROM checkpoints WHERE id = ?", (checkpoint_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def set(self, checkpoint_id: str, data: bytes) -> None:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT INTO checkpoints (id, data, written_at) VALUES (?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET data = excluded.data, written_at = excluded.written_at",
                    (checkpoint_id, sqlite3.Binary(data), self._clock()),
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def delete(self, checkpoint_id: str) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM checkpoints WHERE id = ?", (checkpoint_id,))

    def ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT id FROM checkpoints ORDER BY id").fetchall()]

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteCheckpointStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteCheckpointStore({self.path!r})"
