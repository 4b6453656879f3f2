"""What is refused, and what is not, when a checkpointer is opened: one paragraph, exit 2, no traceback,
for a location that is no checkpointer, a server that does not answer, a thread or branch that does
not exist, a checkpoint of a newer LangGraph; a value no serializer here decodes is shown as opaque
bytes, and a password in a URL is never shown nor recorded."""

from __future__ import annotations

import socket
import sqlite3
import tempfile
import time
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from inspector.cli import main
from inspector.sources.langgraph import open_thread
from inspector.sources.langgraph.postgres import CONNECT_TIMEOUT, PostgresCheckpointer
from tests.langgraph.thread_writers import Backend, approval, config
from tests.postgres_cluster import PostgresCluster


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(cache))


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A checkpointer holding one interrupted approval thread, `t`."""
    if request.param == "sqlite":
        found = Backend("sqlite", str(tmp_path / "db.sqlite"))
    else:
        found = Backend("postgres", request.getfixturevalue("postgres_url"))
    with found.saver() as saver:
        approval().compile(checkpointer=saver).invoke({"request": "ship", "log": []}, config("thread-1"))
    return found


def _refusal(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().split("\n\n")) == 1 and "Traceback" not in err
    return " ".join(err.split())


def _execute(backend: Backend, sql: str) -> None:
    if backend.kind == "sqlite":
        with closing(sqlite3.connect(backend.location)) as conn:
            conn.execute(sql)
            conn.commit()
    else:
        with psycopg.connect(backend.location, autocommit=True) as conn:
            conn.execute(sql)  # pyright: ignore[reportCallIssue, reportArgumentType]


def test_a_missing_thread_names_the_nearest(backend: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", backend.location, "--thread", "thread-2"]) == 2
    assert "no thread `thread-2`" in (err := _refusal(capsys)) and "the nearest: thread-1" in err


def test_a_missing_checkpoint_is_refused(backend: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", backend.location, "--thread", "thread-1", "--checkpoint", "nope"]) == 2
    assert "`nope` is no checkpoint of thread `thread-1`" in _refusal(capsys)


def test_a_value_no_serializer_here_decodes_is_opaque(backend: Backend) -> None:
    writes = "writes" if backend.kind == "sqlite" else "checkpoint_writes"
    _execute(backend, f"UPDATE {writes} SET type = 'custom-codec' WHERE channel = 'log'")
    run = open_thread(backend.location, "thread-1")
    size = len(JsonPlusSerializer().dumps_typed(["drafted ship"])[1])
    assert run.steps[0].node_runs[0].output == {"log": {"opaque": "custom-codec", "bytes": size}}
    assert run.status == "interrupted"  # the rest of the thread is read as it is


def test_a_checkpoint_of_a_newer_langgraph_names_the_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = Backend("sqlite", str(tmp_path / "db.sqlite"))
    with db.saver() as saver:
        approval().compile(checkpointer=saver).invoke({"request": "ship", "log": []}, config("t"))
    serde = JsonPlusSerializer()
    with closing(sqlite3.connect(db.location)) as conn:
        checkpoint_id, kind, blob = conn.execute(
            "SELECT checkpoint_id, type, checkpoint FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1"
        ).fetchone()
        newer = {**serde.loads_typed((kind, blob)), "v": 99}
        kind, blob = serde.dumps_typed(newer)
        conn.execute(
            "UPDATE checkpoints SET type = ?, checkpoint = ?, metadata = json_set(metadata, "
            "'$.langgraph_version', '9.1.0') WHERE checkpoint_id = ?",
            (kind, blob, checkpoint_id),
        )
        conn.commit()
    assert main(["show", db.location, "--thread", "t"]) == 2
    err = _refusal(capsys)
    assert f"checkpoint `{checkpoint_id}` of thread `t` was written by LangGraph 9.1.0" in err
    assert "format v99" in err and "pip install -U langgraph" in err


def test_a_schema_of_a_newer_postgres_saver_is_refused(
    postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    backend = Backend("postgres", postgres_url)
    with backend.saver():
        pass
    _execute(backend, "INSERT INTO checkpoint_migrations (v) VALUES (999)")
    assert main(["show", postgres_url]) == 2
    err = _refusal(capsys)
    assert "schema is at migration 999" in err and "pip install -U langgraph-checkpoint-postgres" in err


def test_what_is_no_checkpointer_is_refused(
    postgres_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    broken = tmp_path / "broken.sqlite"
    with closing(sqlite3.connect(broken)) as conn:
        conn.execute("CREATE TABLE checkpoints (x)")  # the name, not the table SqliteSaver writes
        conn.commit()
    assert main(["show", str(other), "--thread", "t1"]) == 2
    assert "is not a LangGraph checkpointer, so --thread does not apply" in _refusal(capsys)
    assert main(["show", str(broken), "--thread", "t1"]) == 2
    assert "cannot be read as a LangGraph checkpointer" in _refusal(capsys)
    assert main(["show", postgres_url, "--thread", "t1"]) == 2  # a database without the saver's tables
    assert "is not a LangGraph checkpointer (it has no `checkpoints` table" in _refusal(capsys)


def _closed_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_server_that_does_not_answer_is_named_and_the_password_never_shown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = _closed_port()
    url = f"postgresql://alice:s3cr%40t-pw@127.0.0.1:{port}/app?sslmode=disable"
    start = time.monotonic()
    assert main(["show", url, "--thread", "t1"]) == 2
    assert time.monotonic() - start < CONNECT_TIMEOUT + 10
    captured = capsys.readouterr()
    err = _refusal_text(captured.err)
    assert f"cannot connect to PostgreSQL at host 127.0.0.1 port {port}" in err
    assert "postgresql://alice:***@127.0.0.1" in err
    assert "s3cr" not in captured.err + captured.out


def _refusal_text(err: str) -> str:
    assert len(err.strip().split("\n\n")) == 1 and "Traceback" not in err
    return " ".join(err.split())


def test_a_password_is_never_recorded_and_the_session_is_read_only(
    postgres_cluster: PostgresCluster, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    backend = Backend("postgres", postgres_url)
    with backend.saver() as saver:
        approval().compile(checkpointer=saver).invoke({"request": "ship", "log": []}, config("t"))
    secret = postgres_url.replace("postgres@", "postgres:hunter2@")  # the cluster trusts loopback
    before = backend.fingerprint()
    assert main(["show", secret]) == 2  # the listing names the location
    assert main(["show", secret, "--thread", "t", "--json"]) == 0
    assert "hunter2" not in "".join(capsys.readouterr())
    run = open_thread(secret, "t")
    assert run.header.meta["langgraph_thread"]["location"].startswith("postgresql://postgres:***@")
    cache = Path(tempfile.gettempdir()) / "inspector-langgraph-threads"
    assert all("hunter2" not in f.read_text() and "hunter2" not in f.name for f in cache.iterdir())
    reader = PostgresCheckpointer(secret)
    try:
        assert reader.threads()[0].thread_id == "t"
        conn = reader._connection()  # pyright: ignore[reportPrivateUsage]
        assert conn.execute("SHOW transaction_read_only").fetchone()[0] == "on"
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM checkpoints")
        conn.rollback()
    finally:
        reader.close()
    assert backend.fingerprint() == before


def test_a_server_that_never_answers_is_given_up_after_the_timeout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.sources.langgraph import postgres

    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT", 2)  # libpq's least
    with closing(socket.socket()) as silent:  # accepts connections and never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = int(silent.getsockname()[1])
        start = time.monotonic()
        assert (
            main(["show", f"postgresql://bob:pw@127.0.0.1:{port}/app?sslmode=disable", "--thread", "t"]) == 2
        )
        took = time.monotonic() - start
    assert 1.5 < took < 15
    err = _refusal_text(capsys.readouterr().err)
    assert f"cannot connect to PostgreSQL at host 127.0.0.1 port {port} within 2 s" in err
