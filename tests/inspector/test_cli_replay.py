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


def test_a_step_the_run_does_not_have_is_refused_before_the_screen_opens(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `--step 999` on a 3-step run used to open at step 2 without a word.
    weather = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"
    for step in ("999", "3", "-4"):
        assert main(["replay", str(weather), "--step", step]) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert f"--step {step}: no step {step}: the run has 3 steps (0–2; -1 is the last)" in err


def test_a_step_that_is_not_a_number_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(tmp_path / "run.jsonl"), "--step", "last"])
    assert exited.value.code == 2
    assert "--step" in capsys.readouterr().err


def test_following_a_directory_says_so_like_without_follow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path), "--follow"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "is a directory, not a run file" in err
    assert "Errno" not in err
