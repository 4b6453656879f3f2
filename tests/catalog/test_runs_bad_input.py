"""Bad input to `inspector runs`: files that are not runs, unreadable files, a corrupt run, a symlink
loop, source kinds not readable yet. No traceback, the rest still listed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from inspector.cli import main
from tests.catalog.conftest import runs_json

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "runs"


@pytest.fixture
def messy(tmp_path: Path) -> Path:
    where = tmp_path / "messy"
    (where / "deep" / "deeper").mkdir(parents=True)
    (where / "weather.jsonl").write_bytes((FIXTURES / "weather.jsonl").read_bytes())
    (where / "deep" / "runaway.jsonl").write_bytes((FIXTURES / "runaway.jsonl").read_bytes())
    (where / "notes.txt").write_text("hello\n", encoding="utf-8")
    (where / "deep" / "other.jsonl").write_text('{"kind": "something else"}\n', encoding="utf-8")
    lines = (FIXTURES / "weather.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[-2] = "{this is not json\n"
    (where / "deep" / "deeper" / "broken.jsonl").write_text("".join(lines), encoding="utf-8")
    os.symlink(where, where / "deep" / "deeper" / "loop")
    return where


def test_non_runs_are_skipped_and_counted_and_named_with_verbose(
    messy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", str(messy)]) == 0
    err = capsys.readouterr().err
    assert "skipped 2 files that are not runs (--verbose names them)" in err
    assert main(["runs", str(messy), "--verbose"]) == 0
    err = capsys.readouterr().err
    assert "not a run: " + str(messy / "notes.txt") in err
    assert "not a run: " + str(messy / "deep" / "other.jsonl") in err


def test_a_corrupt_run_is_listed_with_its_reason_and_the_rest_still_are(
    messy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, runs = runs_json(capsys, str(messy))
    assert code == 0
    by_name = {Path(run["path"]).name: run for run in runs}
    assert set(by_name) == {"weather.jsonl", "runaway.jsonl", "broken.jsonl"}  # the loop entered once
    assert by_name["broken.jsonl"]["status"] == "corrupt"
    assert "not JSON" in by_name["broken.jsonl"]["reason"]
    assert by_name["weather.jsonl"]["status"] == "ok"
    assert main(["runs", str(messy)]) == 0
    assert "corrupt: a line near the end is not JSON" in capsys.readouterr().out


def test_a_corrupt_middle_line_is_found_by_the_walk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (FIXTURES / "weather.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[3] = "{not json at all\n"
    (tmp_path / "bad.jsonl").write_text("".join(lines), encoding="utf-8")
    code, runs = runs_json(capsys, str(tmp_path / "bad.jsonl"), "--status", "corrupt", "--visited", "chat")
    assert code == 1 and runs == []
    code, runs = runs_json(capsys, str(tmp_path / "bad.jsonl"), "--diag", "x")
    code, runs = runs_json(capsys, str(tmp_path / "bad.jsonl"))
    assert runs[0]["status"] == "corrupt" and "line 4" in runs[0]["reason"]


def test_an_unreadable_file_is_named_and_the_rest_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    catalog = importlib.import_module("inspector.catalog.catalog")
    (tmp_path / "ok.jsonl").write_bytes((FIXTURES / "weather.jsonl").read_bytes())
    secret = tmp_path / "secret.jsonl"
    secret.write_bytes((FIXTURES / "weather.jsonl").read_bytes())

    def refusing(path: object, *args: object, **kwargs: object) -> object:
        if str(path) == str(secret):  # as chmod 0 would, for a user other than root
            raise PermissionError(13, "Permission denied")
        return open(path, *args, **kwargs)  # pyright: ignore[reportCallIssue, reportArgumentType]

    monkeypatch.setattr(catalog, "open", refusing, raising=False)
    capsys.readouterr()
    assert main(["runs", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    assert [Path(run["path"]).name for run in json.loads(captured.out)] == ["ok.jsonl"]
    assert f"cannot read {secret}: Permission denied" in captured.err


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("langgraph:checkpoints.sqlite", "checkpoints.sqlite: no such file or folder"),
        ("otlp:trace.json", "trace.json: no such file or folder"),
        ("mystery:x", "unknown source kind `mystery`"),
        ("postgresql://ana:secret@db/threads", "postgresql://ana:***@db/threads"),
        ("ftp://host/runs", "no source kind reads `ftp://` URLs"),
        ("no/such/folder", "no such file or folder"),
    ],
)
def test_sources_that_cannot_be_read_exit_2(
    source: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", source]) == 2
    err = capsys.readouterr().err
    assert words in " ".join(err.split()) and "Traceback" not in err
    assert "secret" not in err  # a URL's password is never shown


def test_files_of_no_kind_are_refused_when_named_and_skipped_in_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A SQLite database that is no checkpointer, a JSON file that is no trace: named, status 2 saying
    what the file is not (or, with the kind named, which kind it is not); in a folder, counted as not
    runs. A trace file whose lines are not OTLP is refused with the line, and named in a folder."""
    import sqlite3

    other = tmp_path / "app.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE users (name TEXT)")
    notes = tmp_path / "notes.json"
    notes.write_text('{"resourceSpan": []}\n', encoding="utf-8")
    for path in (other, notes):
        assert main(["runs", str(path)]) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert (
            "is not a run file (its first line is no run header), a LangGraph checkpointer nor an OTLP" in err
        )
    assert main(["runs", f"langgraph:{other}"]) == 2
    assert "is not one of the LangGraph checkpointers" in " ".join(capsys.readouterr().err.split())
    broken = tmp_path / "broken-trace.json"
    broken.write_text('{"resourceSpans": [{"scopeSpans": 7}]}\n', encoding="utf-8")
    assert main(["runs", str(broken)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{broken}:1: not an OTLP JSON trace line" in err and "Traceback" not in err
    (tmp_path / "ok.jsonl").write_bytes((FIXTURES / "weather.jsonl").read_bytes())
    assert main(["runs", str(tmp_path), "--verbose", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [Path(run["path"]).name for run in json.loads(out)] == ["ok.jsonl"]
    assert f"not a run: {other}" in err and f"not a run: {notes}" in err
    assert f"cannot read {broken}: " in err and "not an OTLP JSON trace line" in err
