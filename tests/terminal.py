"""A real terminal for the TUI tests, driven as a person would (keys, not Pilot): one tmux server of
our own (its own socket), one window of a fixed size running a plain shell, an `inspector` command typed
into it and its screen read until some text appears.

The command runs from the checkout's root with this process's Python, without COLUMNS/LINES (a library
can export them to children; the app must take its size from the terminal), and is followed by
`echo exit-$((40 + 2)) status $?`: `wait_for(EXITED)` sees the shell's output, never the typed line.

CI installs tmux (`.ci/run`); without it these tests fail and say so rather than skipping.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["EXITED", "Terminal", "open_terminal"]

ROOT = Path(__file__).resolve().parents[1]
EXITED = "exit-42 status"
"""On screen once the typed command has ended; `exit-42 status 0` when it exited 0."""

_PASSED_ON = ("PATH", "PYTHONPATH", "HOME", "GRAPH_INSPECTOR_STATE_DIR", "INSPECTOR_CACHE_DIR")
_WINDOW = "term"


class Terminal:
    """One tmux server of our own, one window of a fixed size."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def open(self, width: int = 150, height: int = 45) -> None:
        """The window, `width` x `height`, running bash with this process's paths and state folders."""
        env = {"TERM": "xterm-256color"}
        env.update((name, os.environ[name]) for name in _PASSED_ON if name in os.environ)
        self.tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", _WINDOW, "-x", str(width), "-y", str(height),
            *(arg for key, value in env.items() for arg in ("-e", f"{key}={value}")),
            "bash", "--norc", "--noprofile",
        )  # fmt: skip

    def run(self, *argv: str) -> None:
        """Type `python ARGV` (e.g. `-m inspector replay run.jsonl`) and Enter."""
        words = " ".join(shlex.quote(word) for word in (sys.executable, *argv))
        root = shlex.quote(str(ROOT))
        self.type(f"cd {root} && env -u COLUMNS -u LINES {words}; echo exit-$((40 + 2)) status $?")
        self.keys("Enter")

    def start(self, *argv: str, width: int = 160, height: int = 45) -> None:
        """`open` then `run`: a command in a fresh window."""
        self.open(width, height)
        self.run(*argv)

    def keys(self, *keys: str) -> None:
        """Keys by tmux name (`Enter`, `Escape`, `q`)."""
        self.tmux("send-keys", "-t", _WINDOW, *keys)

    def type(self, text: str) -> None:
        """Text typed literally."""
        self.tmux("send-keys", "-t", _WINDOW, "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", _WINDOW)

    def wait_for(self, text: str, timeout: float = 90.0) -> str:
        """The screen, once `text` is on it."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen}")
            time.sleep(0.2)

    def wait_gone(self, text: str, timeout: float = 30.0) -> None:
        """Wait until `text` is off the screen (a terminal's escape key is read after a short delay)."""
        deadline = time.monotonic() + timeout
        while text in self.screen():
            assert time.monotonic() < deadline, f"{text!r} stayed on screen"
            time.sleep(0.1)


@contextmanager
def open_terminal(name: str) -> Iterator[Terminal]:
    """A terminal on a tmux server named after `name` and a random suffix, killed afterwards."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed; CI installs it in .ci/run (apt-get install tmux)")
    term = Terminal(f"inspector-{name}-{uuid.uuid4().hex[:8]}")
    try:
        yield term
    finally:
        subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True, timeout=30)
