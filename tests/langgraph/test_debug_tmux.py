"""`inspector debug` on a LangGraph target in a real terminal (tmux): it holds at `--break tools`, an edit
at the pause changes the tool call, `c` runs to the end, and the recording is read back.

CI installs tmux (`.ci/run`); without it this test fails and says so rather than skipping.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.recording import read_run
from tests.debug.test_tmux import Terminal

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lg_terminal() -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed; CI installs it in .ci/run (apt-get install tmux)")
    term = Terminal(f"inspector-lgdebug-{uuid.uuid4().hex[:8]}")
    yield term
    subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True, timeout=30)


def test_debug_a_langgraph_agent_break_edit_continue_quit(lg_terminal: Terminal, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    command = (
        f"cd {shlex.quote(str(ROOT))} && {shlex.quote(sys.executable)} -m inspector debug "
        "fixtures.langgraph_react:agent --input 'Weather in Hangzhou?' --break tools "
        f"-o {shlex.quote(str(out))}; "
        "echo exit-$((40 + 2)) status $?"
    )
    env = {"TERM": "xterm-256color", "PATH": os.environ.get("PATH", "")}
    lg_terminal.tmux(
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
    lg_terminal.type(command)
    lg_terminal.keys("Enter")
    screen = lg_terminal.wait_for("paused before step 1")
    assert "breakpoint before tools" in screen and "run over" not in screen
    lg_terminal.keys("e")
    lg_terminal.wait_for("Edit: PATH = VALUE")
    lg_terminal.type('state.messages[-1].tool_calls[0].arguments = {"city": "Beijing"}')
    lg_terminal.keys("Enter")
    lg_terminal.wait_for("edited state.messages[-1].tool_calls[0].arguments")
    lg_terminal.keys("c")
    lg_terminal.wait_for("run over: ok")
    lg_terminal.keys("q")
    screen = lg_terminal.wait_for("exit-42 status")
    assert "exit-42 status 0" in screen
    assert f"recorded 3 steps to {out} (status ok; 1 edit)" in " ".join(screen.split())
    run = read_run(out)
    assert run.steps[1].node_runs[0].tools[0].output == "Beijing: sunny, 26°C, humidity 30%, wind 2 m/s"
    edits = [json.loads(line) for line in out.read_text().splitlines() if line.startswith('{"kind":"edit"')]
    assert [(e["step"], e["new"]) for e in edits] == [(1, '{"city": "Beijing"}')]
