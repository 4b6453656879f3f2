"""The catalog's index: one SQLite file (the standard library's `sqlite3`, WAL) per reader.

It maps a run's key (a run file's resolved path; `FILE#PART` for a run inside a file that holds many)
to the version it was read at (for a file: size, modification time in nanoseconds, inode and change
time, all from one `stat`; for a checkpointer's thread: its checkpoints) and what was read: the record
(from the header and tail) and, once the run was walked, its facts. A listing reads again only the
runs whose version changed, and opens no file whose version did not. The index is a cache: deleting it
loses nothing (the next listing reads every run again), one from another schema version is rebuilt
rather than trusted, a corrupt one is rebuilt with a one-line note. It lives in the user's cache
folder (`$XDG_CACHE_HOME/graph-inspector/runs.sqlite`, else `~/.cache/...`), never beside the runs, so
a read-only folder of runs is fine and nothing is written where the runs are. Two processes indexing
the same folder share it safely: WAL lets readers go on while one writes, writers wait for each other
(`timeout`), and a row written twice holds the same facts either way.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

__all__ = ["SCHEMA", "Index", "Row", "Version", "default_index_path"]

SCHEMA = 2
"""The index's layout; an index written with another one is rebuilt."""

Version = tuple[int, int, str]
Row = tuple[Version, dict[str, Any], str | None]
"""What the index holds for a run: its version, the record as JSON, the facts as JSON text (or None;
decoded only by a scan that needs them)."""

_decode = msgspec.json.Decoder(dict[str, Any])


def default_index_path() -> Path:
    """`$XDG_CACHE_HOME/graph-inspector/runs.sqlite`, `~/.cache/graph-inspector/runs.sqlite` without it."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "graph-inspector" / "runs.sqlite"


class Index:
    """See the module docstring. `path` None keeps the index in memory (nothing survives the process);
    `notes` collects the one-line notes for the user (an index rebuilt, a cache folder not writable)."""

    def __init__(self, path: Path | None, notes: list[str]) -> None:
        self.path = path
        self.notes = notes
        self._db = self._open()
        self._pending = 0

    # -- opening ----------------------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self.path is None:
            return self._prepare(sqlite3.connect(":memory:", check_same_thread=False))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            self.notes.append(
                f"the run index {self.path} cannot be opened ({exc}); this listing reads every run"
            )
            self.path = None
            return self._prepare(sqlite3.connect(":memory:", check_same_thread=False))
        try:
            return self._prepare(db)
        except sqlite3.DatabaseError as exc:
            db.close()
            return self._rebuild(f"was unreadable ({exc})")

    def _rebuild(self, why: str) -> sqlite3.Connection:
        assert self.path is not None
        self.notes.append(f"the run index {self.path} {why}: rebuilt it")
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")
        try:
            return self._prepare(sqlite3.connect(str(self.path), timeout=30, check_same_thread=False))
        except sqlite3.Error as exc:
            self.notes.append(
                f"the run index {self.path} cannot be rebuilt ({exc}); this listing reads every run"
            )
            self.path = None
            return self._prepare(sqlite3.connect(":memory:", check_same_thread=False))

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        if self.path is not None:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        found = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if found is not None and found[0] != str(SCHEMA) and self.path is not None:
            db.close()
            return self._rebuild(
                f"was written by another version (layout {found[0]}, this one reads {SCHEMA})"
            )
        with db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
            db.execute(
                "CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, "
                "ident TEXT, record TEXT NOT NULL, facts TEXT)"
            )
        return db

    # -- reading and writing ------------------------------------------------------------------------

    def rows(self, keys: Iterable[str]) -> dict[str, Row]:
        """What the index holds for `keys` (those it has)."""
        wanted = list(keys)
        out: dict[str, Row] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT key, size, mtime, ident, record, facts FROM runs WHERE key IN ({marks})"
            for key, size, mtime, ident, record, facts in self._db.execute(query, chunk):
                out[key] = ((size, mtime, ident), _decode.decode(record), facts)
        return out

    def put(self, key: str, version: Version, record: dict[str, Any], facts: dict[str, Any] | None) -> None:
        """Keep what was read from `key` at `version` (committed in batches, and by `commit`)."""
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                (key, *version, json.dumps(record), None if facts is None else json.dumps(facts)),
            )
        except sqlite3.Error as exc:  # a cache that cannot take it: the listing is still right
            if not any("could not be updated" in note for note in self.notes):
                self.notes.append(f"the run index {self.path} could not be updated ({exc})")
            return
        self._pending += 1
        if self._pending >= 200:
            self.commit()

    def commit(self) -> None:
        if self._pending:
            try:
                self._db.commit()
            except sqlite3.Error as exc:  # the cache failed: the listing itself is still right
                self.notes.append(f"the run index {self.path} could not be updated ({exc})")
                with contextlib.suppress(sqlite3.Error):
                    self._db.rollback()
            self._pending = 0

    def close(self) -> None:
        self.commit()
        self._db.close()
