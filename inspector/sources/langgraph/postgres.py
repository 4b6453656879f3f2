"""A Postgres checkpointer (`langgraph-checkpoint-postgres`'s `PostgresSaver`) at a `postgresql://` URL.

The connection is read-only (`default_transaction_read_only` for the session, and every transaction
begun `READ ONLY`), so no statement the inspector sends can write, and it gives up after a connect
timeout, naming the host and port. The URL's password is used to connect and nowhere else: messages,
run headers and cache names carry the URL with the password replaced by `***` (`redacted`).

The rows are read with `PostgresSaver.SELECT_SQL` (the saver's own join of a checkpoint with its
channel blobs and pending writes), not through `PostgresSaver.list`, whose writes drop the task path
that names each task's node; values are decoded as for SQLite (`decode`), a page of checkpoints at a
time in the order of the key (`stream`), so the first steps are written out before the rest is read.
A database whose schema migrations are newer than the installed `langgraph-checkpoint-postgres` knows
is refused, naming both.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from inspector.errors import RunFileError
from inspector.sources.langgraph.decode import (
    OUTLINED,
    SENDS,
    check_format,
    decode,
    installed,
    outline_writes,
)
from inspector.sources.langgraph.history import Checkpoint, ThreadInfo

__all__ = ["CONNECT_TIMEOUT", "PostgresCheckpointer", "is_postgres_url", "redacted"]

CONNECT_TIMEOUT = 5
"""Seconds to wait for the server before saying it does not answer."""

PAGE = 200
"""Checkpoints read per query when a thread is read step by step."""

_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: str) -> bool:
    """`location` names a Postgres database (`postgresql://` or `postgres://`)."""
    return location.startswith(_SCHEMES)


def redacted(url: str) -> str:
    """The URL with its password (in the user part or a `password=` parameter) replaced by `***`."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        if ":" in user:
            netloc = f"{user.split(':', 1)[0]}:***@{host}"
    query = "&".join(
        f"{k}=***" if k.lower() == "password" else f"{k}={v}" if sep else k
        for k, sep, v in (item.partition("=") for item in parts.query.split("&") if item)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _scrubbed(text: str, url: str) -> str:
    """An error message with any password of `url` in it replaced."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        password = conninfo_to_dict(url).get("password")
    except Exception:  # an unparsable URL has no password to look for
        return text
    return text.replace(str(password), "***") if password else text


class PostgresCheckpointer:
    """The threads of a Postgres checkpointer database, through one read-only connection."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = redacted(url)
        self._conn: Any = None

    def _connection(self) -> Any:
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _connect(self) -> Any:
        try:
            import psycopg
            from psycopg.conninfo import conninfo_to_dict
        except ImportError:
            raise RunFileError(
                f"{self.where}: reading a Postgres checkpointer needs psycopg and "
                "langgraph-checkpoint-postgres: pip install 'graph-inspector[langgraph]'"
            ) from None
        try:
            params = conninfo_to_dict(self.url)
        except psycopg.ProgrammingError as error:
            raise RunFileError(
                f"{self.where}: not a valid PostgreSQL URL ({_scrubbed(str(error), self.url)})"
            ) from None
        host = params.get("host") or "localhost"
        port = params.get("port") or 5432
        timeout = CONNECT_TIMEOUT
        try:
            conn = psycopg.connect(
                self.url,
                connect_timeout=timeout,
                options="-c default_transaction_read_only=on",
                application_name="graph-inspector (read-only)",
            )
        except psycopg.Error as error:
            reason = " ".join(_scrubbed(str(error), self.url).split())
            raise RunFileError(
                f"{self.where}: cannot connect to PostgreSQL at host {host} port {port} within "
                f"{timeout} s: {reason}"
            ) from None
        conn.read_only = True
        return conn

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        import psycopg

        conn = self._connection()
        try:
            with conn.cursor(binary=True) as cur:
                cur.execute(sql, params)
                rows = cur.fetchall()
            conn.rollback()  # nothing was written; ends the read-only transaction
            return rows
        except psycopg.errors.UndefinedTable:
            conn.rollback()
            raise RunFileError(
                f"{self.where}: is not a LangGraph checkpointer (it has no `checkpoints` table: "
                "PostgresSaver.setup() creates it)"
            ) from None
        except psycopg.Error as error:
            conn.rollback()
            reason = " ".join(_scrubbed(str(error), self.url).split())
            raise RunFileError(
                f"{self.where}: cannot be read as a LangGraph checkpointer ({reason})"
            ) from None

    def check_schema(self) -> None:
        """Refuse a schema migrated past what the installed `langgraph-checkpoint-postgres` knows."""
        from langgraph.checkpoint.postgres import PostgresSaver

        rows = self._query("SELECT MAX(v) FROM checkpoint_migrations")
        found = rows[0][0] if rows else None
        known = len(PostgresSaver.MIGRATIONS) - 1
        if isinstance(found, int) and found > known:
            mine = installed("langgraph-checkpoint-postgres")
            raise RunFileError(
                f"{self.where}: this checkpointer's schema is at migration {found}, written by a newer "
                f"langgraph-checkpoint-postgres than the installed {mine} "
                f"(which knows migrations up to {known}). Upgrade it "
                "(`pip install -U langgraph-checkpoint-postgres`) to open its threads."
            )

    def threads(self) -> list[ThreadInfo]:
        """The threads of the top-level graph, most recently written first."""
        self.check_schema()
        rows = self._query(
            "SELECT c.thread_id, t.n, c.metadata ->> 'step', c.checkpoint ->> 'ts' FROM checkpoints c JOIN "
            "(SELECT thread_id, COUNT(*) AS n, MAX(checkpoint_id) AS last FROM checkpoints "
            "WHERE checkpoint_ns = '' GROUP BY thread_id) t "
            "ON c.thread_id = t.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = t.last"
        )
        threads = [
            ThreadInfo(str(thread_id), int(n), _int(step), str(ts or "")) for thread_id, n, step, ts in rows
        ]
        threads.sort(key=lambda t: t.last_update, reverse=True)
        return threads

    def namespaces(self, thread_id: str) -> list[str]:
        """The subgraph namespaces the thread has checkpoints in."""
        rows = self._query(
            "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = %s AND checkpoint_ns != ''",
            (thread_id,),
        )
        return sorted(str(ns) for (ns,) in rows)

    def stream(
        self, thread_id: str, ns: str = "", wanted: Container[str] | None = None
    ) -> Iterator[Checkpoint]:
        """The checkpoints of one namespace of the thread, oldest first, each decoded with its channel
        blobs and pending writes (with `wanted`, only those whose ids it holds), read `PAGE` at a time
        in the order of the key: nothing waits for the whole thread, and no cursor stays open between
        pages (each page is its own read-only transaction)."""
        from langgraph.checkpoint.postgres import PostgresSaver

        after = ""
        while True:
            rows = self._query(
                PostgresSaver.SELECT_SQL
                + "WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id > %s "
                "ORDER BY checkpoint_id LIMIT %s",
                (thread_id, ns, after, PAGE),
            )
            for row in rows:
                if wanted is None or row[3] in wanted:
                    yield self._decoded(thread_id, row)
            if len(rows) < PAGE:
                return
            after = rows[-1][3]

    def _decoded(self, thread_id: str, row: Sequence[Any]) -> Checkpoint:
        _, checkpoint, ns, checkpoint_id, parent_id, metadata, blobs, pending = row
        metadata = dict(metadata or {})
        check_format(self.where, thread_id, checkpoint_id, checkpoint, metadata)
        values = dict(checkpoint.get("channel_values") or {})
        for channel, kind, blob in blobs or []:
            if bytes(kind).decode() != "empty":
                values[bytes(channel).decode()] = decode(bytes(kind).decode(), blob)
        ts = str(checkpoint.get("ts", ""))
        return Checkpoint.of(checkpoint_id, parent_id, metadata, values, _writes(pending or []), ts, ns)

    def checkpoints(self, thread_id: str) -> list[Checkpoint]:
        """Every checkpoint of the thread, of every namespace, oldest first, with its pending writes."""
        everything = [c for ns in ("", *self.namespaces(thread_id)) for c in self.stream(thread_id, ns)]
        return sorted(everything, key=lambda c: c.id)

    def outline(self, thread_id: str) -> list[Checkpoint]:
        """The thread's top-level checkpoints without their values: ids, parents, metadata and their
        pending writes' tasks and channels (`outline_writes`), each one's format checked. Enough to
        choose a branch and to draw the topology the thread shows before anything else is decoded."""
        rows = self._query(
            "SELECT checkpoint_id, parent_checkpoint_id, metadata, checkpoint -> 'v' FROM checkpoints "
            "WHERE thread_id = %s AND checkpoint_ns = '' ORDER BY checkpoint_id",
            (thread_id,),
        )
        found = self._query(
            "SELECT checkpoint_id, task_id, task_path, channel, idx, "
            "CASE WHEN channel = ANY(%s) THEN type END, CASE WHEN channel = ANY(%s) THEN blob END "
            "FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = ''",
            (list(OUTLINED), list(OUTLINED), thread_id),
        )
        found.sort(key=lambda r: (r[0], r[1], r[4]))  # as the checkpoints' own writes are ordered
        writes, pushed = outline_writes(
            (cid, str(task), path, channel, kind, None if blob is None else bytes(blob))
            for cid, task, path, channel, _, kind, blob in found
        )
        out: list[Checkpoint] = []
        for checkpoint_id, parent_id, metadata, version in rows:
            metadata = dict(metadata or {})
            check_format(self.where, thread_id, checkpoint_id, {"v": version}, metadata)
            sends = self._sends(thread_id, checkpoint_id) if checkpoint_id in pushed else {}
            out.append(
                Checkpoint.of(checkpoint_id, parent_id, metadata, sends, writes.get(checkpoint_id, []))
            )
        return out

    def _sends(self, thread_id: str, checkpoint_id: str) -> dict[str, Any]:
        """The `Send`s a checkpoint holds (its `__pregel_tasks` channel), which name its pushed tasks."""
        from langgraph.checkpoint.postgres import PostgresSaver

        rows = self._query(
            PostgresSaver.SELECT_SQL + "WHERE thread_id = %s AND checkpoint_ns = '' AND checkpoint_id = %s",
            (thread_id, checkpoint_id),
        )
        return {SENDS: self._decoded(thread_id, rows[0]).values.get(SENDS)} if rows else {}

    def stamp(self, thread_id: str) -> str:
        """What changes when the thread is written: its checkpoint and write counts and latest id."""
        rows = self._query(
            "SELECT (SELECT COUNT(*) FROM checkpoints WHERE thread_id = %s), "
            "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = %s), "
            "(SELECT COUNT(*) FROM checkpoint_writes WHERE thread_id = %s)",
            (thread_id, thread_id, thread_id),
        )
        return f"{self.where}\0{tuple(rows[0])}"

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _writes(pending: Sequence[Sequence[bytes]]) -> list[tuple[str, str, str, Any]]:
    """The pending writes of a checkpoint in the order SQLite's reader gives them (task, then index)."""
    rows: list[tuple[str, int, str, str, Any]] = []
    for task_id, channel, kind, blob, task_path, idx in pending:
        rows.append(
            (
                bytes(task_id).decode(),
                int(bytes(idx).decode()),
                bytes(task_path).decode(),
                bytes(channel).decode(),
                decode(bytes(kind).decode(), bytes(blob)),
            )
        )
    rows.sort(key=lambda r: (r[0], r[1]))
    return [(task_id, path, channel, value) for task_id, _, path, channel, value in rows]
