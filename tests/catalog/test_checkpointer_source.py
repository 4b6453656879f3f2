"""A LangGraph checkpointer as a catalog source: every thread LangGraph's `SqliteSaver` wrote is a run,
with the numbers `inspector show DB --thread ID` reads, filtered, summed up (`--stats` equals the
recomputation from the threads' run files), read again only when a thread changed, and never written to."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from inspector.catalog import Catalog
from inspector.catalog.catalog import holds_many
from inspector.catalog.checkpointer import CheckpointerKind
from inspector.cli import main
from inspector.recording import read_run
from inspector.sources.langgraph_threads import thread_run_file
from tests.catalog.conftest import THREADS, runs_json
from tests.catalog.recompute import recompute_stats


def test_every_thread_is_a_run_with_what_show_reads(
    checkpointer: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, runs = runs_json(capsys, str(checkpointer))
    assert code == 0
    assert sorted(run["path"] for run in runs) == sorted(f"{checkpointer}#{t}" for t in THREADS)
    for run in runs:
        assert run["kind"] == "langgraph"
        assert run["status"] == THREADS[run["part"]], run["part"]
        recorded = read_run(thread_run_file(checkpointer, run["part"]))  # what `show --thread` opens
        last = recorded.steps[-1].budget if recorded.steps else None
        assert run["steps"] == len(recorded.steps)
        assert run["model_calls"] == (last.model_calls if last else 0)
        assert run["tokens"] == ((last.total_tokens or 0) if last else 0)
        assert (run["run_id"], run["started_at"]) == (recorded.run_id, recorded.started_at)
    assert {run["part"]: run["steps"] for run in runs}["runaway"] == 12  # the recursion limit


@pytest.mark.parametrize(
    ("argv", "threads"),
    [
        (["--status", "interrupted"], {"runaway", "waiting"}),
        (["--visited", "tools"], {"ok-1", "ok-2", "runaway"}),
        (["--visited", "approve", "--status", "ok"], {"approved"}),
        (["--where", 'part == "ok-2"'], {"ok-2"}),
        (["--where", "tokens > 1000 and steps >= 10"], {"runaway"}),
        (["--graph", "*observed from checkpoints*"], set(THREADS)),
        (["--status", "error"], set()),
    ],
)
def test_filters_choose_threads(
    checkpointer: Path, capsys: pytest.CaptureFixture[str], argv: list[str], threads: set[str]
) -> None:
    code, runs = runs_json(capsys, str(checkpointer), *argv)
    assert {run["part"] for run in runs} == threads
    assert code == (0 if threads else 1)


def test_stats_equal_the_recomputation_from_the_threads_run_files(
    checkpointer: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["runs", str(checkpointer), "--stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    expected = recompute_stats(
        [(f"{checkpointer}#{t}", thread_run_file(checkpointer, t)) for t in sorted(THREADS)]
    )
    assert stats == expected
    assert {n["node"]: n["visits"] for n in stats["nodes"]}["agent"] == 2 * 2 + 6


def _checksum(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_thread_is_read_again_only_when_it_changed_and_the_database_is_never_written(
    checkpointer: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from fixtures import langgraph_react

    db = tmp_path / "copy.sqlite"
    shutil.copy(checkpointer, db)
    read: list[str] = []
    original = CheckpointerKind.summarize

    def counting(self: CheckpointerKind, found: object, *, now: float) -> object:
        read.append(found.part)  # pyright: ignore[reportAttributeAccessIssue]
        return original(self, found, now=now)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(CheckpointerKind, "summarize", counting)
    index = tmp_path / "index.sqlite"
    before = _checksum(db)
    Catalog(index=index).scan([str(db)], walk=True)
    assert sorted(read) == sorted(THREADS)
    read.clear()
    again = Catalog(index=index).scan([str(db)], walk=True)
    assert read == [] and all(r.facts is not None for r in again.records)
    assert _checksum(db) == before and not Path(f"{db}-wal").exists()
    conn = sqlite3.connect(db, check_same_thread=False)
    agent = langgraph_react.build_agent()
    agent.checkpointer = SqliteSaver(conn)
    agent.update_state({"configurable": {"thread_id": "ok-1"}}, {"messages": [("user", "Thanks!")]})
    conn.close()
    scan = Catalog(index=index).scan([str(db)])
    assert read == ["ok-1"]  # it went on (an update): more checkpoints; the others are as they were
    steps = next(r for r in scan.records if r.part == "ok-1").steps
    assert steps == len(read_run(thread_run_file(db, "ok-1")).steps) > 3


def test_a_folder_holding_a_checkpointer_lists_its_threads_with_the_runs(
    checkpointer: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(checkpointer, folder / "threads.sqlite")
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
    shutil.copy(fixtures / "weather.jsonl", folder / "weather.jsonl")
    code, runs = runs_json(capsys, str(folder))
    assert code == 0
    assert sorted(run["path"] for run in runs) == sorted(
        [str(folder / "weather.jsonl"), *(f"{folder / 'threads.sqlite'}#{t}" for t in THREADS)]
    )


def test_a_checkpointer_holds_many_runs_even_with_one_thread(checkpointer: Path, tmp_path: Path) -> None:
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
    assert holds_many(str(checkpointer))
    assert not holds_many(str(fixtures / "weather.jsonl"))
    assert not holds_many(str(tmp_path / "missing.sqlite"))
