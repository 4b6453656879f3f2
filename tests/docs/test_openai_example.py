"""The OpenAI example of docs/openai.md, run as written with no server listening: one line on stderr,
exit status 1, no traceback (it used to end in a 43-line one)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_examples import find_examples

ROOT = Path(__file__).parents[2]


def test_the_openai_example_without_a_server_ends_in_one_line(tmp_path: Path) -> None:
    (example,) = [e for e in find_examples(ROOT / "docs" / "openai.md") if "OpenAIChatModel(" in e.source]
    assert "127.0.0.1:11434" in example.source
    script = tmp_path / "example.py"
    script.write_text(example.source, encoding="utf-8")
    with socket.socket() as blocker:
        try:  # bound but not listening: connections are refused, and no server can take the port meanwhile
            blocker.bind(("127.0.0.1", 11434))
        except OSError:
            pytest.skip("something on this machine listens on 127.0.0.1:11434 (a real Ollama?)")
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(
        "the agent failed in node chat: POST http://127.0.0.1:11434/v1/chat/completions failed: ConnectError"
    )
