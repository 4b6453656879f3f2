"""Audit: a SqliteCheckpointStore that cannot open its file says which file, keeping sqlite3's error type."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graph_core.checkpoint import SqliteCheckpointStore


def test_a_file_that_is_not_a_database_is_named(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello, not a database\n" * 10)
    with pytest.raises(sqlite3.DatabaseError, match=r"notes\.txt.*file is not a database"):
        SqliteCheckpointStore(path)


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "runs.db"
    with pytest.raises(sqlite3.OperationalError, match=r"missing.*runs\.db.*unable to open"):
        SqliteCheckpointStore(path)
