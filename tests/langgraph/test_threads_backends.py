"""Threads written by LangGraph itself on a SqliteSaver file and on a PostgresSaver database (a real
server, `postgres_cluster`), opened as runs by every command that reads one; reading leaves the
checkpointer as it was."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fixtures.langgraph_react import QUESTION
from inspector.cli import main
from inspector.recording import read_run
from inspector.snapshot.trajectory import trajectory
from inspector.sources import run_file_path
from inspector.sources.langgraph import list_threads, open_thread, run_source, shown
from tests.langgraph.thread_writers import THREADS, Backend, write_threads
from tests.postgres_cluster import PostgresCluster
from tests.tui.conftest import SIZE, screen_text


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test writes its threads' run files afresh, in its own temporary directory."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(cache))


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def written(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Backend, Any]]:
    """Every graph's threads on one checkpointer, written once per module, and LangGraph's own view."""
    if request.param == "sqlite":
        backend = Backend("sqlite", str(tmp_path_factory.mktemp("sqlite") / "checkpoints.sqlite"))
    else:
        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        backend = Backend("postgres", cluster.create_database("threads"))
    truth = write_threads(backend)
    yield backend, truth


def test_the_threads_are_listed_and_one_is_asked_for(
    written: tuple[Backend, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    backend, _ = written
    assert main(["show", backend.location]) == 2
    captured = capsys.readouterr()
    rows = {line.split()[0]: line.split()[1:3] for line in captured.out.splitlines()[3:]}
    assert set(rows) == set(THREADS)
    assert rows["react"] == ["5", "3"] and rows["forked"] == ["10", "5"]
    err = " ".join(captured.err.split())
    assert "pass --thread ID" in err and "Traceback" not in err
    assert list_threads(backend.location)[0].thread_id == "forked"  # the latest written first


def test_a_react_thread_is_the_agents_history(written: tuple[Backend, Any]) -> None:
    backend, _ = written
    run = open_thread(backend.location, "react")
    assert [step.nodes for step in run.steps] == [("agent",), ("tools",), ("agent",)]
    assert [m["role"] for m in run.state_at(2)["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert run.state_at(0)["messages"][0]["content"] == QUESTION
    assert run.status == "ok"


def test_a_subgraphs_steps_are_nested_under_its_parents_step(written: tuple[Backend, Any]) -> None:
    backend, truth = written
    run = open_thread(backend.location, "supervisor")
    assert [step.nodes for step in run.steps] == [("supervisor",), ("research",), ("supervisor",)]
    nested = [[inner.nodes for inner in run.nested_steps(i)] for i in range(len(run.steps))]
    assert nested == [[], [["search"], ["summarize"]], []]
    assert run.output == truth["supervisor"]


def test_a_map_reduce_thread_shows_each_send(written: tuple[Backend, Any]) -> None:
    backend, truth = written
    run = open_thread(backend.location, "map")
    # the nodes a step triggered run in the order of their names, as LangGraph prepares them
    assert [step.nodes for step in run.steps] == [("plan",), ("worker",), ("audit", "review"), ("report",)]
    workers = run.steps[1].node_runs
    assert sorted(str(w.input) for w in workers) == [str({"topic": t}) for t in "abc"]
    assert run.output == truth["map"]


def test_an_interrupted_thread_waits_and_a_resumed_one_finishes(written: tuple[Backend, Any]) -> None:
    backend, truth = written
    paused = open_thread(backend.location, "paused")
    assert paused.status == "interrupted"
    assert paused.interrupt is not None and paused.interrupt.rerun_nodes == ["approve"]
    approved = open_thread(backend.location, "approved")
    assert [step.nodes for step in approved.steps] == [("draft",), ("approve",)]
    assert approved.status == "ok" and approved.output == truth["approved"]


def test_a_forked_thread_is_shown_as_its_branches(
    written: tuple[Backend, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    backend, truth = written
    latest = open_thread(backend.location, "forked")
    assert latest.output == truth["forked-2"]
    assert [step.nodes for step in latest.steps][:2] == [("work",), ("(update)",)]
    first = open_thread(backend.location, "forked", branch=1)
    assert first.output == truth["forked-1"]
    assert [step.nodes for step in first.steps] == [("work",), ("work",), ("work",), ("finish",)]
    branches = latest.header.meta["langgraph_thread"]["branches"]
    assert [(b["branch"], b["forked_at"]) for b in branches] == [(1, 1), (2, 1)]
    upto = open_thread(backend.location, "forked", checkpoint=truth["forked-edit"])
    assert [step.nodes for step in upto.steps] == [("work",)]  # the history up to the forked checkpoint

    assert main(["show", backend.location, "--thread", "forked"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "has 2 branches; showing branch 2" in err and "--branch K" in err
    assert main(["show", backend.location, "--thread", "forked", "--branch", "1"]) == 0
    assert "work 3" in capsys.readouterr().out
    assert main(["show", backend.location, "--thread", "forked", "--branch", "3"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "no branch 3" in err and "branch 1: 6 checkpoints to step 4" in err and "Traceback" not in err


def test_show_diff_topology_and_snapshots_read_threads_and_write_nothing(
    written: tuple[Backend, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    backend, _ = written
    before = backend.fingerprint()
    location = backend.location
    assert main(["show", location, "--thread", "react"]) == 0
    assert "step 1  tools" in capsys.readouterr().out
    assert main(["diff", location, location, "--thread", "react", "--thread", "react-again"]) == 0
    assert main(["diff", location, location, "--thread", "react", "--thread", "beijing"]) == 1
    assert "first divergence" in capsys.readouterr().out
    assert main(["diff", location, location, "--thread", "forked", "--branch", "1", "--branch", "2"]) == 1
    capsys.readouterr()
    assert main(["topology", "fixtures.langgraph_react:agent", "--run", location, "--thread", "react"]) == 0
    assert "ended by agent -> end" in capsys.readouterr().out
    assert main(["topology", location, "--thread", "map", "-f", "json"]) == 0
    drawn = json.loads(capsys.readouterr().out)
    assert drawn["topology"]["name"] == "LangGraph thread (observed from checkpoints)"
    assert trajectory(open_thread(location, "react")) == trajectory(open_thread(location, "react-again"))
    assert backend.fingerprint() == before
    if backend.kind == "sqlite":
        assert not Path(f"{location}-wal").exists() and not Path(f"{location}-journal").exists()


@pytest.mark.anyio
async def test_replay_opens_a_thread_on_its_first_screen(written: tuple[Backend, Any]) -> None:
    from inspector.tui import make_app

    backend, _ = written
    before = backend.fingerprint()
    app = make_app(run_file_path(run_source(backend.location, "react")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
    assert "get_weather" in text and "light rain" in text
    assert backend.fingerprint() == before


def test_fork_runs_on_from_a_threads_step(
    written: tuple[Backend, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backend, _ = written
    out = tmp_path / "fork.jsonl"
    assert main(["fork", backend.location, "--thread", "react", "--step", "1", "-o", str(out)]) == 2
    assert "pass the graph's with --target" in " ".join(capsys.readouterr().err.split())
    target = "fixtures.langgraph_react:agent"
    command = [
        "fork",
        backend.location,
        "--thread",
        "react",
        "--step",
        "1",
        "-o",
        str(out),
        "--target",
        target,
    ]
    assert main(command) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert f"compare with `inspector diff {shown(backend.location)} --thread react {out}`" in said
    fork = read_run(out)
    assert [step.nodes for step in fork.steps] == [("agent",), ("tools",), ("agent",)]
    assert fork.status == "ok"
