"""A run file whose header line was cut off (a process stopped right after it started) says so."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.recording import Recorder, RunFileError, read_run
from inspector.recording.synthetic import react_topology, simulate_react


def _record(path: Path) -> Path:
    ticks = itertools.count()
    clock: Any = lambda: 1_700_000_000.0 + next(ticks) * 0.25  # noqa: E731
    simulate_react(Recorder(path, topology=react_topology(), clock=clock, run_id="r1"), 3)
    return path


def test_cut_off_header_says_the_run_was_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = _record(tmp_path / "full.jsonl").read_bytes()
    header_end = full.index(b"\n")
    for cut in (3, 40, header_end - 1):
        path = tmp_path / f"cut{cut}.jsonl"
        path.write_bytes(full[:cut])
        with pytest.raises(RunFileError) as info:
            read_run(path)
        assert "header is incomplete" in str(info.value) and "interrupted" in str(info.value)
        assert "not a graph-inspector run file" not in str(info.value)
        assert info.value.line_no == 1
    assert main(["show", str(path)]) == 2
    assert "header is incomplete" in capsys.readouterr().err


def test_a_file_that_is_not_a_run_is_still_named_so(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"hello")  # no newline, but not the start of a header either
    with pytest.raises(RunFileError, match="not a graph-inspector run file"):
        read_run(path)
