"""`inspector receive` + `inspector replay --follow`, as a person runs them: the receiver in a process
of its own, the replay TUI in a real terminal (tmux), and a run sending its spans step by step
(`OtlpRecorder`) while the test holds it in its second tool round. The TUI shows the steps that
arrived while the run is held, then the whole run once it ends.

CI installs tmux (`.ci/run`); without it this test fails and says so rather than skipping.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.otel.test_live_export import _blocking_agent  # pyright: ignore[reportPrivateUsage]
from tests.terminal import Terminal

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[str]:
    """The URL of an `inspector receive` process writing to tmp_path/runs."""
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "receive", "--port", "0", "-o", str(tmp_path / "runs")],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "receiving OTLP/HTTP on " in line, line
        yield line.split(" on ")[1].split("/v1/traces")[0]
    finally:
        process.terminate()
        process.wait(10)
        if process.stderr is not None:
            process.stderr.close()


@pytest.mark.timeout(300)
def test_replay_follow_shows_a_received_run_while_it_happens(
    terminal: Terminal, receiver: str, tmp_path: Path
) -> None:
    from inspector.otel.live import OtlpRecorder

    run_file = tmp_path / "runs" / "live-run.jsonl"
    terminal.start("-m", "inspector", "replay", "--follow", str(run_file))
    terminal.wait_for("waiting for")

    release = threading.Event()
    agent = _blocking_agent(release)
    sink = OtlpRecorder(receiver, timeout=5, run_id="live-run")
    thread = threading.Thread(target=lambda: agent.invoke("Hangzhou?", callbacks=[sink]), daemon=True)
    thread.start()
    try:
        held = terminal.wait_for("1  tools")  # the first tool round, shown while the run waits in the second
        assert "ReActAgent" not in held  # the root has not ended: the steps so far, as observed
    finally:
        release.set()
        thread.join(60)
    assert sink.shutdown() is None
    done = terminal.wait_for("ReActAgent")  # the root arrived: the run as recorded
    assert " ok " in done.splitlines()[0] and "4  chat" in done
    terminal.keys("q")
