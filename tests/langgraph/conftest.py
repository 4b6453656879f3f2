"""Shared settings of the LangGraph tests, and the PostgreSQL cluster the Postgres checkpointer tests use."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.postgres_cluster import PostgresCluster, PostgresClusterError, running_cluster

_DATABASES = itertools.count(1)


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio (the TUI test opens a LangGraph recording in the app)."""
    return "asyncio"


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One throwaway cluster on loopback for the whole session (fails, never skips, without the server)."""
    problem = ""
    try:
        with running_cluster() as cluster:
            yield cluster
    except PostgresClusterError as error:
        problem = str(error)
    if problem:  # failed outside the handler: one message, not two chained
        pytest.fail(problem, pytrace=False)


@pytest.fixture
def postgres_url(postgres_cluster: PostgresCluster) -> str:
    """The URL of a new empty database, for one test."""
    return postgres_cluster.create_database(f"test_{next(_DATABASES)}")
