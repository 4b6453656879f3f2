"""`inspector record --resume -o` with a file it cannot append to: one clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.approval import build
from graph_core.checkpoint import InMemoryCheckpointStore
from inspector.cli import main

STORE = InMemoryCheckpointStore()
graph = build(STORE)  # the TARGET below: an approval graph whose checkpoints outlive one command here


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_resume_into_a_file_that_does_not_exist_says_what_the_cli_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"{__name__}:graph"
    first = tmp_path / "first.jsonl"
    assert main(["record", target, "--input", "hi", "-o", str(first), "--checkpoint-id", "a1", "-q"]) == 0
    capsys.readouterr()
    missing = tmp_path / "other.jsonl"
    code = main(["record", target, "-o", str(missing), "--checkpoint-id", "a1", "--resume", "-q"])
    err = _err(capsys)
    assert code == 2
    assert not missing.exists()
    # The Recorder's own text points at its Python API and suggests "a new file", which --resume cannot do.
    assert "Recorder(" not in err and "new file" not in err
    assert "--resume appends" in err and "-o" in err
    # The checkpoint is still there: resuming into the right file works.
    assert main(["record", target, "-o", str(first), "--checkpoint-id", "a1", "--resume", "-q"]) == 0
