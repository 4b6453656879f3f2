"""`inspector demo -o` with an output it cannot use: one clear message, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main


def test_demo_into_a_directory_is_refused_before_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It used to start the run, print the Recorder's "recording stopped: IsADirectoryError" warning,
    # then a second error with "[Errno 21]".
    assert main(["demo", "--headless", "-o", str(tmp_path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.count("inspector:") == 1
    assert "is a directory" in err and "run.jsonl" in err and "Errno" not in err


def test_demo_into_an_unwritable_path_is_refused_before_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["demo", "--headless", "-o", str(blocker / "run.jsonl")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.count("inspector:") == 1  # no "recording stopped" warning before the error
    assert "could not write the run file" in err and "Errno" not in err


def test_demo_without_output_leaves_no_folder_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each `inspector demo` used to leave an `inspector-demo-*` folder in the temp directory.
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["demo", "--headless"]) == 0
    assert main(["demo", "--headless", "--agent", "runaway"]) == 0
    printed = capsys.readouterr().out
    assert "status       ok" in printed and "removed on exit" in printed
    assert list(tmp_path.iterdir()) == []
