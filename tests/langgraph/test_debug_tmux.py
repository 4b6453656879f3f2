"""`inspector debug` on a LangGraph target in a real terminal (tmux): it holds at `--break tools`, an edit
at the pause changes the tool call, `c` runs to the end, and the recording is read back
(`tests/terminal.py`).
"""

from __future__ import annotations

import json
from pathlib import Path

from inspector.recording import read_run
from tests.terminal import EXITED, Terminal


def test_debug_a_langgraph_agent_break_edit_continue_quit(terminal: Terminal, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    terminal.open(150, 45)
    terminal.run(
        "-m", "inspector", "debug", "fixtures.langgraph_react:agent", "--input", "Weather in Hangzhou?",
        "--break", "tools", "-o", str(out),
    )  # fmt: skip
    screen = terminal.wait_for("paused before step 1")
    assert "breakpoint before tools" in screen and "run over" not in screen
    terminal.keys("e")
    terminal.wait_for("Edit: PATH = VALUE")
    terminal.type('state.messages[-1].tool_calls[0].arguments = {"city": "Beijing"}')
    terminal.keys("Enter")
    terminal.wait_for("edited state.messages[-1].tool_calls[0].arguments")
    terminal.keys("c")
    terminal.wait_for("run over: ok")
    terminal.keys("q")
    screen = terminal.wait_for(EXITED)
    assert f"{EXITED} 0" in screen
    assert f"recorded 3 steps to {out} (status ok; 1 edit)" in " ".join(screen.split())
    run = read_run(out)
    assert run.steps[1].node_runs[0].tools[0].output == "Beijing: sunny, 26°C, humidity 30%, wind 2 m/s"
    edits = [json.loads(line) for line in out.read_text().splitlines() if line.startswith('{"kind":"edit"')]
    assert [(e["step"], e["new"]) for e in edits] == [(1, '{"city": "Beijing"}')]
