"""Plain-text commands show recorded text on one line each, and stop quietly when their reader goes away."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from inspector.cli import main
from inspector.cli.plain import one_line

HOSTILE_GRAPH = """
from graph_core import Graph, START, END

KEY = "two\\nlines \\x1b[31mred [bold]🚀"
g = Graph()
g.add_lambda_node(KEY, lambda x: x)
g.add_edge(START, KEY)
g.add_edge(KEY, END)
graph = g.compile()
"""

FIXTURE_RUN = Path(__file__).parent.parent / "fixtures" / "runs" / "runaway.jsonl"


def test_one_line_escapes_newlines_and_control_characters_but_keeps_markup_and_emoji() -> None:
    assert one_line("a\nb\r\nc\td\x1b[0m\x7f [bold]🚀") == "a ⏎ b ⏎ c    d\\x1b[0m\\x7f [bold]🚀"


def test_show_and_record_keep_a_hostile_node_key_on_its_line(tmp_path: Path, capsys: Any) -> None:
    source = tmp_path / "hostile.py"
    source.write_text(HOSTILE_GRAPH)
    out = tmp_path / "run.jsonl"
    assert main(["record", f"{source}:graph", "--input", "x", "-o", str(out)]) == 0
    progress = capsys.readouterr().err.splitlines()
    assert (
        progress[0] == "step 0: two ⏎ lines \\x1b[31mred [bold]🚀  (steps 1/11, 0 model calls, 0 tool calls)"
    )
    assert main(["show", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("(unnamed graph)  run ")
    assert lines[1] == "step 0  two ⏎ lines \\x1b[31mred [bold]🚀  [steps 1/11]" + lines[1][-8:]
    assert not any("\x1b" in line for line in lines)


def test_show_into_a_closed_pipe_exits_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "show", "--json", str(FIXTURE_RUN)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first write, like `| head -0`
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=30) == 141
    assert err == ""
