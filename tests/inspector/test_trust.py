"""The trust list (`inspector.trust`): where it lives, what the `Recorder` adds to it, how it is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph_core.schema import Message
from inspector.recording import Recorder, read_run
from inspector.target import locate_target
from inspector.trust import (
    MAX_ENTRIES,
    STATE_ENV,
    Consent,
    consent_for,
    read_trust_list,
    remember_run,
    trust_file,
)


def test_the_list_lives_in_the_state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STATE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    assert trust_file() == tmp_path / "home" / ".local" / "state" / "graph-inspector" / "trusted-runs.json"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert trust_file() == tmp_path / "xdg" / "graph-inspector" / "trusted-runs.json"
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "tests"))
    assert trust_file() == tmp_path / "tests" / "trusted-runs.json"


def _record(path: Path, **options: object) -> str:
    from fixtures.weather import build_agent

    build_agent().invoke([Message.user("Weather in Hangzhou?")], callbacks=[Recorder(path, **options)])  # type: ignore[arg-type]
    return read_run(path).run_id


def test_a_recorder_naming_its_target_adds_the_run_and_one_without_does_not(tmp_path: Path) -> None:
    before = len(read_trust_list().entries)
    _record(tmp_path / "script.jsonl")
    assert len(read_trust_list().entries) == before
    run_id = _record(tmp_path / "named.jsonl", meta={"target": "fixtures.weather:agent"})
    entry = read_trust_list().entries[0]
    assert (entry.run_id, entry.target) == (run_id, "fixtures.weather:agent")
    assert entry.origin == str(Path("fixtures/weather.py").resolve())
    assert consent_for(run_id, locate_target("fixtures.weather:agent")) is Consent.RECORDED_HERE


def test_a_state_folder_that_cannot_be_written_does_not_stop_a_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(STATE_ENV, str(blocker / "state"))
    _record(tmp_path / "run.jsonl", meta={"target": "fixtures.weather:agent"})
    assert read_run(tmp_path / "run.jsonl").status == "ok" and capsys.readouterr().err == ""


def test_the_list_keeps_the_newest_runs_and_leaves_no_temporary_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STATE_ENV, str(tmp_path))
    for i in range(MAX_ENTRIES + 5):
        remember_run(f"run-{i}", "fixtures.weather:agent")
    remember_run("run-3", "fixtures.weather:agent")  # again: moved to the front, not doubled
    entries = read_trust_list().entries
    assert len(entries) == MAX_ENTRIES and entries[0].run_id == "run-3"
    assert entries[1].run_id == f"run-{MAX_ENTRIES + 4}" and "run-4" not in {e.run_id for e in entries}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trusted-runs.json", "trusted-runs.json.lock"]
    assert json.loads(trust_file().read_text())["format"] == "graph-inspector/trusted-runs"


@pytest.mark.parametrize(
    "text", ["", "[1, 2]", '{"format": "graph-inspector/trusted-runs", "runs": [{"run_id": 3}]}', "[" * 5000]
)
def test_a_corrupt_list_reads_as_empty_with_a_note(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STATE_ENV, str(tmp_path))
    trust_file().write_text(text)
    read = read_trust_list()
    assert read.entries == [] and read.note is not None and "counts as empty" in read.note
    remember_run("r", "fixtures.weather:agent")  # replaced by a good list
    assert [e.run_id for e in read_trust_list().entries] == ["r"]
