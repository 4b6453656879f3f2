"""The maintenance commands answer --help without writing anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspector.recording import schema


def test_schema_help_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "schema.json"
    monkeypatch.setattr(schema, "SCHEMA_PATH", target)
    with pytest.raises(SystemExit) as info:
        schema.main(["--help"])
    assert info.value.code == 0 and "--check" in capsys.readouterr().out
    assert not target.exists()


def test_fixture_runs_help_writes_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fixtures.runs", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "outdir" in done.stdout
    assert list(tmp_path.iterdir()) == []
