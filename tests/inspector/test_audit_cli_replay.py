"""`inspector replay` option and path checks: bad values are user errors before the screen takes over."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main


@pytest.mark.parametrize("poll", ["0", "-1", "nan", "inf", "soon"])
def test_a_poll_interval_that_is_not_a_positive_number_is_refused(
    poll: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--poll 0` would re-read the file in a busy loop; a negative or NaN interval is meaningless.
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(tmp_path / "run.jsonl"), "--follow", "--poll", poll])
    assert exited.value.code == 2
    assert "--poll" in capsys.readouterr().err


def test_a_negative_step_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Positions count from 0; `-1` silently opened somewhere undocumented.
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(tmp_path / "run.jsonl"), "--step", "-1"])
    assert exited.value.code == 2
    assert "--step" in capsys.readouterr().err


def test_following_a_directory_says_so_like_without_follow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path), "--follow"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "is a directory, not a run file" in err
    assert "Errno" not in err
