"""Corrupt and cut-off run files: `--lenient` on show, replay and diff; messages that say what to do."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.recording import Recorder, RunFileError, read_run
from inspector.recording.synthetic import react_topology, simulate_react


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


def _record(path: Path, run_id: str = "r1") -> Path:
    simulate_react(Recorder(path, topology=react_topology(), clock=_clock(), run_id=run_id), 3)
    return path


def _corrupt(path: Path) -> int:
    """Insert a garbage line before the first step line; returns its 1-based line number."""
    lines = path.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith('{"kind":"step",'))
    lines.insert(index, "not json at all\n")
    path.write_text("".join(lines))
    return index + 1


def test_corrupt_line_message_names_the_python_and_the_cli_option(tmp_path: Path) -> None:
    path = _record(tmp_path / "run.jsonl")
    line_no = _corrupt(path)
    with pytest.raises(RunFileError) as info:
        read_run(path)
    message = str(info.value)
    assert info.value.line_no == line_no
    assert "read_run(path, lenient=True)" in message
    assert "--lenient" in message and "inspector show" in message and "inspector replay" in message
    assert "inspector diff" in message


def test_diff_lenient_skips_corrupt_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _record(tmp_path / "a.jsonl", "a")
    b = _record(tmp_path / "b.jsonl", "b")
    line_no = _corrupt(b)
    assert main(["diff", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert f"line {line_no}" in err and "--lenient" in err
    assert main(["diff", str(a), str(b), "--lenient"]) == 0
    captured = capsys.readouterr()
    assert "result: equivalent" in captured.out
    assert f"inspector: warning: {b}:{line_no}: skipped a corrupt line" in captured.err


def test_replay_lenient_opens_the_file_and_reports_skipped_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.tui.app import ReplayApp

    opened: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self, *a, **k: opened.append(self))  # pyright: ignore[reportUnknownLambdaType]
    monkeypatch.setattr("inspector.cli.terminal.has_terminal", lambda: True)  # the app's run is replaced
    path = _record(tmp_path / "run.jsonl")
    line_no = _corrupt(path)
    assert main(["replay", str(path)]) == 2
    assert "--lenient" in capsys.readouterr().err
    assert opened == []
    assert main(["replay", str(path), "--lenient"]) == 0
    assert "skipped a corrupt line" in capsys.readouterr().err
    (app,) = opened
    assert app.lenient
    assert app.session is not None and app.session.run.skipped_lines == [line_no]


def test_replay_follow_lenient_keeps_skipping_on_reload(tmp_path: Path) -> None:
    from inspector.tui import make_app

    path = _record(tmp_path / "run.jsonl")
    line_no = _corrupt(path)
    with pytest.warns(UserWarning, match="skipped a corrupt line"):
        app = make_app(path, follow=True, lenient=True)
    assert app.session is not None
    with path.open("a") as file:  # the file grows by a line that is no event: read leniently again
        file.write('{"kind":"note"}\n')
    last = len(path.read_bytes().splitlines())
    assert app.session.reload()  # a strict re-read would fail and keep the old run
    assert app.session.run.skipped_lines == [line_no, last]
