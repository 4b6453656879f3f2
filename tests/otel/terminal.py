"""A real terminal for the TUI tests: one tmux server of our own, one window of a fixed size, a
command started in it and its screen read until some text appears.

CI installs tmux (`.ci/run`); without it these tests fail and say so rather than skipping.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    """One tmux server of our own (its own socket), one window of a fixed size."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, *command: str) -> None:
        """Run `command` (from the checkout's root, with this process's Python and environment)."""
        env = {"TERM": "xterm-256color", "PATH": os.environ.get("PATH", "")}
        for name in ("PYTHONPATH", "GRAPH_INSPECTOR_STATE_DIR", "INSPECTOR_CACHE_DIR", "HOME"):
            if name in os.environ:
                env[name] = os.environ[name]
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "replay", "-x", "160", "-y", "45")
        assignments = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
        words = [shlex.quote(sys.executable), *map(shlex.quote, command)]
        line = " ".join([f"cd {shlex.quote(str(ROOT))} &&", *assignments, *words])
        self.tmux("send-keys", "-t", "replay", line, "Enter")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "replay", *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "replay")

    def wait_for(self, text: str, timeout: float = 90.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen}")
            time.sleep(0.2)
