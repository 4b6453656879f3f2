"""`inspector debug` driven as a person would: in a real terminal (tmux), with keys, not Pilot.

CI installs tmux (`.ci/run`); without it this test fails and says so rather than skipping.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.recording import read_run

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    """One tmux server of our own (its own socket), one window of a fixed size."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "debug")

    def wait_for(self, text: str, timeout: float = 90.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen}")
            time.sleep(0.2)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "debug", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "debug", "-l", text)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed; CI installs it in .ci/run (apt-get install tmux)")
    term = Terminal(f"inspector-test-{uuid.uuid4().hex[:8]}")
    yield term
    subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True, timeout=30)


def test_debug_in_a_terminal_break_edit_continue_quit(terminal: Terminal, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    command = (
        f"cd {shlex.quote(str(ROOT))} && {shlex.quote(sys.executable)} -m inspector debug "
        f"fixtures.weather:agent --input 'Weather in Hangzhou?' --break tools -o {shlex.quote(str(out))}; "
        "echo exit-$((40 + 2)) status $?"
    )
    env = {"TERM": "xterm-256color", "PATH": os.environ.get("PATH", "")}
    terminal.tmux(
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "debug",
        "-x",
        "150",
        "-y",
        "45",
        *(arg for key, value in env.items() for arg in ("-e", f"{key}={value}")),
        "bash",
        "--norc",
        "--noprofile",
    )
    terminal.type(command)
    terminal.keys("Enter")
    screen = terminal.wait_for("paused before step 1")
    assert "breakpoint before tools" in screen
    terminal.keys("e")
    terminal.wait_for("Edit: PATH = VALUE")
    terminal.type('input.tools.tool_calls[0].arguments = {"city": "Paris"}')
    terminal.keys("Enter")
    terminal.wait_for("edited input.tools.tool_calls[0].arguments")
    terminal.keys("c")
    terminal.wait_for("run over: ok")
    terminal.keys("q")
    screen = terminal.wait_for("exit-42 status")  # not in the typed command line: the shell's output
    assert "exit-42 status 0" in screen
    assert f"recorded 3 steps to {out} (status ok; 1 edit)" in " ".join(screen.split())
    run = read_run(out)
    assert run.steps[1].node_runs[0].tools[0].output == "Paris: clear, 20°C"
    edits = [json.loads(line) for line in out.read_text().splitlines() if line.startswith('{"kind":"edit"')]
    assert [(e["step"], e["new"]) for e in edits] == [(1, '{"city": "Paris"}')]
