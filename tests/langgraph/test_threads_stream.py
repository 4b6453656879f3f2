"""The step-by-step thread reader: each checkpoint decoded as LangGraph's own saver API reads it, each step
written as soon as the checkpoint after it is read, and the same run file, byte for byte, as writing the
thread read whole first, on every thread of a SqliteSaver file and a PostgresSaver database (the ReAct
agent, a subgraph's `checkpoint_ns`, a `Send` map-reduce, interrupted and resumed threads, a fork)."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from inspector.sources.langgraph import checkpointer, select_thread, write_thread_run
from inspector.sources.langgraph.history import Checkpoint
from inspector.sources.langgraph.stream import plan_thread, write_streamed
from tests.langgraph.thread_writers import THREADS, Backend, config, write_threads
from tests.postgres_cluster import PostgresCluster


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(cache))


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def written(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Backend:
    """Every graph's threads on one checkpointer, written once per module by LangGraph."""
    if request.param == "sqlite":
        backend = Backend("sqlite", str(tmp_path_factory.mktemp("sqlite") / "checkpoints.sqlite"))
    else:
        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        backend = Backend("postgres", cluster.create_database("streamed"))
    write_threads(backend)
    return backend


def _branches(backend: Backend, thread: str) -> list[int | None]:
    found = select_thread(backend.location, thread).branches
    return [None, *range(1, len(found) + 1)] if len(found) > 1 else [None]


@pytest.mark.parametrize("thread", THREADS)
def test_a_thread_read_step_by_step_is_the_thread_read_whole(
    written: Backend, thread: str, tmp_path: Path
) -> None:
    for branch in _branches(written, thread):
        whole = select_thread(written.location, thread, branch=branch)
        expected = write_thread_run(
            whole.branch,
            tmp_path / "whole.jsonl",
            thread_id=thread,
            subgraphs=whole.subgraphs,
            meta=whole.meta(),
        ).read_bytes()
        with checkpointer(written.location) as store:
            plan = plan_thread(store, thread, branch=branch)
            streamed = write_streamed(store, plan, tmp_path / "streamed.jsonl").read_bytes()
        assert streamed == expected, (thread, branch)


@pytest.fixture
def langgraph_saver(written: Backend, tmp_path: Path) -> Iterator[BaseCheckpointSaver[Any]]:
    """LangGraph's own saver on the same threads (a copy of a SQLite file: `SqliteSaver` writes to the
    file it opens, switching it to WAL mode and creating its tables)."""
    if written.kind == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        copy = tmp_path / "copy.sqlite"
        shutil.copy(written.location, copy)
        with closing(sqlite3.connect(copy, check_same_thread=False)) as conn:
            yield SqliteSaver(conn)
        return
    with written.saver() as saver:
        yield saver


def test_every_checkpoint_decodes_as_langgraphs_own_saver_reads_it(
    written: Backend, langgraph_saver: BaseCheckpointSaver[Any]
) -> None:
    compared = total = 0
    with checkpointer(written.location) as store:
        for thread in THREADS:
            total += len(store.checkpoints(thread))
            for ns in ("", *store.namespaces(thread)):
                mine = {c.id: c for c in store.stream(thread, ns)}
                theirs = list(langgraph_saver.list(config(thread, checkpoint_ns=ns)))
                assert sorted(mine) == sorted(_id(t.config) for t in theirs)
                for found in theirs:
                    checkpoint = mine[_id(found.config)]
                    parent = (found.parent_config or {}).get("configurable", {}).get("checkpoint_id")
                    assert checkpoint.parent_id == parent
                    assert checkpoint.values == found.checkpoint["channel_values"]
                    assert checkpoint.ts == found.checkpoint["ts"]
                    assert checkpoint.metadata == dict(found.metadata)
                    writes = [(task, channel, value) for task, _, channel, value in checkpoint.writes]
                    assert sorted(writes, key=_key) == sorted(found.pending_writes or [], key=_key)
                    compared += 1
    assert compared == total > 40  # every thread's checkpoints, the subgraph's among them


def _id(settings: Any) -> str:
    return settings["configurable"]["checkpoint_id"]


def _key(write: tuple[str, str, Any]) -> tuple[str, str, str]:
    return (write[0], write[1], repr(write[2]))


def test_each_step_is_written_before_the_rest_of_the_thread_is_read(written: Backend, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    lines_when_read: list[int] = []

    with checkpointer(written.location) as store:
        plan = plan_thread(store, "forked")
        reading = store.stream

        def watched(thread_id: str, ns: str = "", wanted: Any = None) -> Iterator[Checkpoint]:
            for checkpoint in reading(thread_id, ns, wanted):
                lines_when_read.append(out.read_bytes().count(b"\n") if out.exists() else 0)
                yield checkpoint

        store.stream = watched  # pyright: ignore[reportAttributeAccessIssue]
        write_streamed(store, plan, out)
    # the header once the input's checkpoint was read; a step once the checkpoint after the next is
    # read (the translator ends a step when the next one's tasks arrive): all but the last two steps
    # and the end are in the file before the last checkpoint is read
    assert len(lines_when_read) == len(plan.branch.chain) == 7
    assert lines_when_read == [0, 1, 1, 1, 2, 3, 4], lines_when_read
