"""The commands that open a full-screen app, started without a terminal: refused, never a hang.

`timeout 20 inspector demo < /dev/null > out` was killed: Textual got no keys and wrote escape codes
forever. Each command now says "no terminal" and names the command that works without one (exit 2).
The commands run in a child process with stdin from /dev/null and stdout to a pipe, as a CI job or a
script would start them; a hang shows as the timeout.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

WEATHER = Path(__file__).parents[2] / "fixtures" / "runs" / "weather.jsonl"


def _without_terminal(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=cwd,
        env={**os.environ, "TERM": "xterm-256color"},
    )


@pytest.mark.parametrize(
    ("args", "instead"),
    [
        (["demo"], "no terminal: use `inspector demo --headless`"),
        (["replay", str(WEATHER)], f"no terminal: use `inspector show {WEATHER}`"),
        (
            ["debug", "fixtures.weather:agent", "--input", "hi", "-o", "live.jsonl"],
            "no terminal: use `inspector record",
        ),
    ],
    ids=["demo", "replay", "debug"],
)
def test_a_full_screen_command_without_a_terminal_is_refused(
    args: list[str], instead: str, tmp_path: Path
) -> None:
    done = _without_terminal(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    err = " ".join(done.stderr.split())
    assert err.startswith("inspector: error: ") and instead in err
    assert "Traceback" not in done.stderr and "\x1b" not in done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == [], "a refused command records nothing"


def test_a_bad_run_file_is_reported_before_the_missing_terminal(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a run\n")
    done = _without_terminal("replay", str(bad), cwd=tmp_path)
    assert done.returncode == 2 and "no terminal" not in done.stderr and "run file" in done.stderr


def test_a_pseudo_terminal_counts_as_a_terminal(tmp_path: Path) -> None:
    # What tmux and a person's terminal give: the check lets the app open there.
    controller, child = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from inspector.cli.terminal import has_terminal; print(has_terminal())"],
            stdin=child,
            stdout=child,
            stderr=child,
            timeout=30,
            cwd=tmp_path,
        )
        os.close(child)
        child = -1
        printed = os.read(controller, 1000).decode()
    finally:
        os.close(controller)
        if child != -1:
            os.close(child)
    assert done.returncode == 0 and printed.strip() == "True"
