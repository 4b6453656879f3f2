"""Threads of a LangGraph SQLite checkpointer, written by real LangGraph graphs, opened as runs."""

from __future__ import annotations

import hashlib
import json
import operator
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from fixtures.langgraph_react import QUESTION, build_agent
from inspector.cli import main
from inspector.recording import read_run
from inspector.sources.langgraph_threads import list_threads, run_source, thread_run_file


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's thread runs in its own temporary directory."""
    cache = tmp_path / "tmp"
    cache.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(cache))


def _config(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


def _react_db(path: Path, *threads: tuple[str, str]) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    agent = build_agent()
    agent.checkpointer = SqliteSaver(conn)
    for thread, question in threads:
        agent.invoke({"messages": [("user", question)]}, _config(thread))
    conn.close()  # the write-ahead log is checkpointed into the file
    return path


class Approval(TypedDict):
    request: str
    log: Annotated[list[str], operator.add]


def _approval_graph(saver: SqliteSaver) -> Any:
    def draft(state: Approval) -> dict[str, Any]:
        return {"log": [f"drafted {state['request']}"]}

    def approve(state: Approval) -> dict[str, Any]:
        answer = interrupt({"question": "approve?", "request": state["request"]})
        return {"log": [f"approved: {answer}"]}

    builder = StateGraph(Approval)
    builder.add_node("draft", draft)
    builder.add_node("approve", approve)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "approve")
    builder.add_edge("approve", END)
    return builder.compile(checkpointer=saver)


def _checksum(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_react_thread_is_a_run_whose_steps_are_its_checkpoints(tmp_path: Path) -> None:
    db = _react_db(tmp_path / "db.sqlite", ("t1", QUESTION))
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        agent = build_agent()
        agent.checkpointer = SqliteSaver(conn)
        history = list(agent.get_state_history(_config("t1")))[::-1]  # oldest first
    run = read_run(thread_run_file(db, "t1"))
    after_start = [s for s in history if s.metadata is not None and s.metadata.get("step", -1) >= 1]
    assert [step.nodes for step in run.steps] == [("agent",), ("tools",), ("agent",)]
    assert len(run.steps) == len(after_start)
    roles = {"human": "user", "ai": "assistant", "tool": "tool"}
    for position, snapshot in enumerate(after_start):
        recorded = run.state_at(position)["messages"]
        expected = snapshot.values["messages"]
        assert [(m["role"], m.get("content", "")) for m in recorded] == [
            (roles[m.type], m.content) for m in expected
        ]
    assert run.status == "ok"
    thread = run.header.meta["langgraph_thread"]
    assert [c["step"] for c in thread["checkpoints"]] == [1, 2, 3]
    assert run.topology is not None and run.topology.name.endswith("(observed from checkpoints)")


def test_show_reads_a_thread_and_leaves_the_database_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _react_db(tmp_path / "db.sqlite", ("t1", QUESTION))
    before = _checksum(db)
    assert main(["show", str(db), "--thread", "t1"]) == 0
    out = capsys.readouterr().out
    assert "step 1  tools" in out and "light rain" in out
    assert main(["show", str(db), "--thread", "t1", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["steps"]) == 3
    assert _checksum(db) == before
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-journal").exists()


def test_show_with_the_target_uses_the_graphs_topology(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _react_db(tmp_path / "db.sqlite", ("t1", QUESTION))
    assert main(["show", str(db), "--thread", "t1", "--target", "fixtures.langgraph_react:agent"]) == 0
    out = capsys.readouterr().out
    assert "(observed from checkpoints)" not in out
    assert "branch agent -> tools" in out


def test_without_thread_the_threads_are_listed_and_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _react_db(tmp_path / "db.sqlite", ("t1", QUESTION), ("t2", "Weather in Beijing?"))
    assert main(["show", str(db)]) == 2
    captured = capsys.readouterr()
    rows = [line.split() for line in captured.out.splitlines()[3:]]
    assert sorted(row[:3] for row in rows) == [["t1", "5", "3"], ["t2", "5", "3"]]
    assert "pass --thread ID" in " ".join(captured.err.split()) and "Traceback" not in captured.err
    assert [t.thread_id for t in list_threads(db)] == ["t2", "t1"]  # the latest written first


def test_a_missing_thread_names_the_nearest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _react_db(tmp_path / "db.sqlite", ("thread-1", QUESTION))
    assert main(["show", str(db), "--thread", "thread-2"]) == 2
    err = capsys.readouterr().err
    err = " ".join(err.split())
    assert "no thread `thread-2`" in err and "the nearest: thread-1" in err


def test_a_file_that_is_no_checkpointer_is_refused_with_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    for path in (other, text):
        assert main(["show", str(path), "--thread", "t1"]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().split("\n\n")) == 1
        err = " ".join(err.split())
        assert "is not a LangGraph checkpointer" in err and "Traceback" not in err
    assert run_source(str(text), None) == str(text)  # a run file path is read as it is


def test_an_interrupted_thread_and_its_resume(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        graph = _approval_graph(SqliteSaver(conn))
        graph.invoke({"request": "ship", "log": []}, _config("paused"))
        graph.invoke({"request": "ship", "log": []}, _config("done"))
        graph.invoke(Command(resume="yes"), _config("done"))
    paused = read_run(thread_run_file(db, "paused"))
    assert paused.status == "interrupted"
    assert [step.nodes for step in paused.steps] == [("draft",)]
    assert paused.interrupt is not None and paused.interrupt.rerun_nodes == ["approve"]
    done = read_run(thread_run_file(db, "done"))
    assert done.status == "ok"
    assert [step.nodes for step in done.steps] == [("draft",), ("approve",)]
    assert done.output == {"request": "ship", "log": ["drafted ship", "approved: yes"]}


def test_a_thread_forked_by_update_state_reads_its_current_branch(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        graph = _approval_graph(SqliteSaver(conn))
        graph.invoke({"request": "ship", "log": []}, _config("t"))
        graph.update_state(_config("t"), {"log": ["edited by hand"]}, as_node="draft")
        values = graph.get_state(_config("t")).values
    run = read_run(thread_run_file(db, "t"))
    assert run.state_at(len(run.steps) - 1) == values
    assert [step.nodes for step in run.steps] == [("draft",), ("(update)",)]
    assert run.steps[-1].node_runs[0].output == {"log": ["edited by hand"]}
    assert run.status == "interrupted"  # the update left `approve` to run
    assert run.interrupt is not None and run.interrupt.before_nodes == ["approve"]


def test_diff_of_two_threads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _react_db(tmp_path / "db.sqlite", ("a", QUESTION), ("b", QUESTION), ("c", "Weather in Beijing?"))
    before = _checksum(db)
    assert main(["diff", str(db), str(db), "--thread", "a", "--thread", "b"]) == 0
    assert main(["diff", str(db), str(db), "--thread", "a", "--thread", "c"]) == 1
    assert "first divergence" in capsys.readouterr().out
    assert _checksum(db) == before


def test_a_value_the_serializer_cannot_decode_is_opaque(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        graph = _approval_graph(SqliteSaver(conn))
        graph.invoke({"request": "ship", "log": []}, _config("t"))
        # a write stored by a serializer this process does not know
        conn.execute("UPDATE writes SET type = 'custom-codec' WHERE channel = 'log'")
        conn.commit()
    run = read_run(thread_run_file(db, "t"))
    assert run.steps[0].node_runs[0].output == {"log": {"opaque": "custom-codec", "bytes": _log_bytes()}}


def _log_bytes() -> int:
    return len(JsonPlusSerializer().dumps_typed(["drafted ship"])[1])
