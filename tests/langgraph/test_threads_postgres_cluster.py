"""The throwaway PostgreSQL cluster the thread tests run on: without the server's programs it fails with
what to install (a missing server is never a skipped test)."""

from __future__ import annotations

import pytest

from tests import postgres_cluster
from tests.postgres_cluster import PostgresCluster, PostgresClusterError, server_programs


def test_without_the_server_programs_the_cluster_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(postgres_cluster.shutil, "which", lambda name: None)
    monkeypatch.setattr(postgres_cluster.glob, "glob", lambda pattern: [])
    with pytest.raises(PostgresClusterError, match=r"apt-get install -y postgresql"):
        server_programs()


def test_the_cluster_listens_on_loopback_only(postgres_cluster: PostgresCluster) -> None:
    import psycopg

    with psycopg.connect(postgres_cluster.url()) as conn:
        row = conn.execute("SHOW listen_addresses").fetchone()
    assert row is not None and row[0] == "127.0.0.1"
