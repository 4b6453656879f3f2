"""The catalog's index: a second listing reads only what changed, a run being written shows as
running, deleting the index loses nothing, another version's or a corrupt index is rebuilt with a
note, two processes share it, and nothing is written beside the runs."""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bench.catalog_runs import Expected, generate
from inspector.catalog import Catalog
from inspector.catalog.runfile import RunFileKind
from inspector.cli import main
from tests.catalog.conftest import runs_json

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "weather.jsonl"


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, list[Expected]]:
    where = tmp_path / "runs"
    return where, generate(where, 6, rounds=(2, 4))


def _summaries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    original = RunFileKind.summarize

    def counting(self: RunFileKind, found: object, *, now: float) -> object:
        read.append(found.path)  # pyright: ignore[reportAttributeAccessIssue]
        return original(self, found, now=now)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(RunFileKind, "summarize", counting)
    return read


def test_second_listing_reads_only_what_changed(
    folder: tuple[Path, list[Expected]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where, expected = folder
    read = _summaries(monkeypatch)
    index = tmp_path / "index.sqlite"
    Catalog(index=index).scan([str(where)])
    assert len(read) == 6
    read.clear()
    Catalog(index=index).scan([str(where)])
    assert read == []
    changed = expected[2].path
    changed.write_text(FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    scan = Catalog(index=index).scan([str(where)])
    assert read == [str(changed)]
    assert next(r for r in scan.records if r.path == str(changed)).run_id == "weather"


def test_deleting_the_index_loses_nothing(
    folder: tuple[Path, list[Expected]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where, _ = folder
    index = tmp_path / "index.sqlite"
    _, first = runs_json(capsys, str(where), "--index", str(index), "--diag", "tool-failed")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    _, second = runs_json(capsys, str(where), "--index", str(index), "--diag", "tool-failed")
    assert first == second and first


def test_a_run_being_written_is_running_then_refreshed(tmp_path: Path) -> None:
    where = tmp_path / "runs"
    where.mkdir()
    lines = FIXTURE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = where / "live.jsonl"
    path.write_text("".join(lines[:4]), encoding="utf-8")
    index = tmp_path / "index.sqlite"
    old = path.stat().st_mtime + 3600  # an hour after the last write: not growing any more
    assert Catalog(index=index, clock=lambda: old).scan([str(where)]).records[0].status == "incomplete"
    with path.open("rb+") as held:  # a recorder holds its file locked while it writes
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        assert Catalog(index=index, clock=lambda: old).scan([str(where)]).records[0].status == "running"
    just_now = path.stat().st_mtime + 1
    record = Catalog(index=index, clock=lambda: just_now).scan([str(where)]).records[0]
    assert (record.status, record.steps) == ("running", 1)
    path.write_text("".join(lines), encoding="utf-8")
    record = Catalog(index=index, clock=lambda: just_now).scan([str(where)]).records[0]
    assert (record.status, record.steps, record.tokens) == ("ok", 3, 332)


def test_an_index_of_another_version_is_rebuilt_with_a_note(
    folder: tuple[Path, list[Expected]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where, _ = folder
    index = tmp_path / "index.sqlite"
    runs_json(capsys, str(where), "--index", str(index))
    with sqlite3.connect(index) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
        db.execute('UPDATE runs SET record = \'{"status": "ok", "steps": 12345}\'')
    capsys.readouterr()
    assert main(["runs", str(where), "--index", str(index), "--json"]) == 0
    captured = capsys.readouterr()
    assert "12345" not in captured.out
    assert captured.err.count("\n") == 1 and "another version" in captured.err and "rebuilt" in captured.err


def test_a_corrupt_index_is_rebuilt_with_a_note(
    folder: tuple[Path, list[Expected]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where, expected = folder
    index = tmp_path / "index.sqlite"
    index.write_bytes(b"this is not a database" * 100)
    capsys.readouterr()
    assert main(["runs", str(where), "--index", str(index), "--json"]) == 0
    captured = capsys.readouterr()
    assert "unreadable" in captured.err and "rebuilt" in captured.err and "Traceback" not in captured.err
    assert len(expected) == captured.out.count('"path"')


def test_the_default_index_is_in_the_cache_folder_and_nothing_is_written_beside_the_runs(
    folder: tuple[Path, list[Expected]], private_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where, _ = folder
    before = sorted(p.name for p in where.rglob("*"))
    os.chmod(where, 0o555)
    try:
        code, runs = runs_json(capsys, str(where), "--visited", "chat")
    finally:
        os.chmod(where, 0o755)
    assert code == 0 and len(runs) == 6
    assert sorted(p.name for p in where.rglob("*")) == before
    assert (private_cache / "graph-inspector" / "runs.sqlite").exists()


def test_two_processes_indexing_the_same_folder(tmp_path: Path) -> None:
    where = tmp_path / "runs"
    generate(where, 40, rounds=(2, 3))
    index = tmp_path / "index.sqlite"
    command = [
        sys.executable,
        "-m",
        "inspector",
        "runs",
        str(where),
        "--index",
        str(index),
        "--diag",
        "tool-failed",
        "--json",
    ]
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    assert outputs[0][0] == outputs[1][0]
    assert all(err == b"" for _, err in outputs)


def test_a_copy_of_a_folder_is_its_own_runs(
    folder: tuple[Path, list[Expected]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where, _ = folder
    copy = tmp_path / "copy"
    shutil.copytree(where, copy)
    _, runs = runs_json(capsys, str(where), str(copy))
    assert len(runs) == 12 and len({run["id"] for run in runs}) == 12


def test_walking_in_parts_gives_what_one_process_gives(tmp_path: Path) -> None:
    where = tmp_path / "runs"
    generate(where, 40, rounds=(2, 4))
    one = Catalog(index=None).scan([str(where)], walk=True, jobs=1).records
    two = Catalog(index=None).scan([str(where)], walk=True, jobs=2).records
    assert [r.to_json() for r in one] == [r.to_json() for r in two]
    assert [r.facts for r in one] == [r.facts for r in two]
    assert all(r.facts is not None for r in two)


def test_a_second_listing_opens_no_file_and_a_file_given_its_old_time_back_is_read_again(
    folder: tuple[Path, list[Expected]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index knows each file by one `stat` (size, modification time, inode, change time): a second
    listing opens none of them; a file rewritten to the same size and given its old modification time
    back (as `cp -p` or `touch -d` would) still changed, by its change time, and is read again."""
    import importlib

    catalog_module = importlib.import_module("inspector.catalog.catalog")
    where, expected = folder
    index = tmp_path / "index.sqlite"
    Catalog(index=index).scan([str(where)])
    opened: list[str] = []
    original = catalog_module.read_head

    def counting(path: str) -> bytes:
        opened.append(path)
        return original(path)

    monkeypatch.setattr(catalog_module, "read_head", counting)
    read = _summaries(monkeypatch)
    assert len(Catalog(index=index).scan([str(where)]).records) == len(expected)
    assert opened == [] and read == []
    target, run_id = expected[0].path, expected[0].run_id
    before = target.stat()
    text = target.read_text(encoding="utf-8")
    target.write_text(
        text.replace(f'"run_id":"{run_id}"', f'"run_id":"{run_id.upper()}"', 1), encoding="utf-8"
    )
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    scan = Catalog(index=index).scan([str(where)])
    assert read == [str(target)]
    assert next(r for r in scan.records if r.path == str(target)).run_id == run_id.upper()
