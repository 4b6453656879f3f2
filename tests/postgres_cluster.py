"""A throwaway PostgreSQL cluster on loopback for the tests that read real `PostgresSaver` databases.

`initdb` in a temporary folder, `pg_ctl start` on 127.0.0.1 at a free port (and a unix socket in the
same folder), stopped and removed at the end. The server refuses to run as root (CI runs as root), so
there it runs as the `postgres` system user Debian's `postgresql` package creates, owning the folder.
The binaries are found on PATH or under /usr/lib/postgresql/*/bin; without them the tests fail with
what to install: a missing server is never a skipped test.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

__all__ = ["PostgresCluster", "PostgresClusterError", "running_cluster"]

_BASE = tempfile.gettempdir()
"""Where clusters go, taken at import: tests point `tempfile` at their own (root-only) folders later."""

_MISSING = (
    "PostgreSQL's server programs (initdb, pg_ctl) were not found on PATH nor under "
    "/usr/lib/postgresql/*/bin: install Debian's `postgresql` package (apt-get install -y postgresql), "
    "as .ci/run does"
)


class PostgresClusterError(RuntimeError):
    """The cluster could not be set up; the message says what to install or what the server said."""


def server_programs() -> Path:
    """The folder holding initdb and pg_ctl."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_major, reverse=True)
    if not candidates:
        raise PostgresClusterError(_MISSING)
    return Path(candidates[0]).parent


def _major(path: str) -> int:
    try:
        return int(Path(path).parent.parent.name.split(".")[0])
    except ValueError:
        return 0


def _free_port() -> int:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresCluster:
    """A running cluster: `url(database)` for a database on it, `create_database(name)`."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # pyright: ignore[reportCallIssue, reportArgumentType]
        return self.url(name)


def _as_server_user(command: list[str]) -> list[str]:
    """`command` as the `postgres` user when running as root (the server refuses root)."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


def _run(command: list[str], log: Path | None = None) -> None:
    done = subprocess.run(_as_server_user(command), capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        said = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        raise PostgresClusterError(
            f"`{' '.join(command)}` failed ({done.returncode}): {done.stderr.strip()[-2000:]} {said}".strip()
        )


@contextmanager
def running_cluster() -> Iterator[PostgresCluster]:
    """Start a cluster, yield it, stop it and remove its folder."""
    programs = server_programs()
    folder = Path(tempfile.mkdtemp(prefix="inspector-pg-", dir=_BASE))
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(folder, ignore_errors=True)
            raise PostgresClusterError(
                "running as root, and there is no `postgres` user to run the server as (Debian's "
                "`postgresql` package creates it): install it, or run the tests as another user"
            ) from None
        os.chown(folder, user.pw_uid, user.pw_gid)
    data, log = folder / "data", folder / "server.log"
    port = _free_port()
    try:
        _run([str(programs / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
              "--locale=C", "--no-sync"])  # fmt: skip
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        _run(
            [
                str(programs / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(log),
                "-w",
                "-t",
                "60",
                "start",
            ],
            log,
        )
        try:
            yield PostgresCluster(folder, port)
        finally:
            _run([str(programs / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], log)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
