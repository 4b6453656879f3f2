"""Reliability: a run on the SQLite store is SIGKILLed right after a checkpoint is written; a new process
resumes it and finishes with exactly the output of an uninterrupted run, and no node runs twice except
the rerun node (the one that interrupted itself). Repeated at every checkpoint of the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")

CHILD = r"""
import json, os, signal, sys
from dataclasses import dataclass, field

from graph_core import END, START, Graph, process_state
from graph_core.checkpoint import SqliteCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import get_resume_data, interrupt, was_interrupted

db, log_path, kill_at, interrupts = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"


@dataclass
class Trail:
    seen: list[str] = field(default_factory=list)


class KillingStore(SqliteCheckpointStore):
    writes = 0

    def set(self, checkpoint_id: str, data: bytes) -> None:
        super().set(checkpoint_id, data)
        KillingStore.writes += 1
        if KillingStore.writes == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


def node(key: str):
    def run(text: str) -> str:
        with open(log_path, "a") as log:
            log.write(key + "\n")
        if key == "c" and interrupts and not was_interrupted():
            interrupt("approve c?")
        suffix = f"[{get_resume_data()}]" if key == "c" and interrupts else ""
        process_state(Trail, lambda s: s.seen.append(key))
        return text + key + suffix

    return run


graph = Graph(state=Trail)
for key in "abcde":
    graph.add_lambda_node(key, node(key))
graph.add_edge(START, "a")
for src, dst in zip("abcd", "bcde"):
    graph.add_edge(src, dst)
graph.add_edge("e", END)
options = dict(interrupt_after=["b"], interrupt_before=["d"]) if interrupts else {}
compiled = graph.compile(checkpoint_store=KillingStore(db), **options)
while True:
    try:
        out = compiled.invoke("x", checkpoint_id="run-1", resume_data="ok" if interrupts else None)
        break
    except InterruptError:
        continue
print(json.dumps(out))
"""


def _child(
    tmp: Path, db: Path, log: Path, kill_at: int, interrupts: bool = True
) -> subprocess.CompletedProcess[str]:
    script = tmp / "child.py"
    script.write_text(CHILD)
    args = [sys.executable, str(script), str(db), str(log), str(kill_at), "1" if interrupts else "0"]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(args, capture_output=True, text=True, timeout=30, env=env, check=False)


@pytest.mark.timeout(30)
def test_killed_runs_resume_to_the_uninterrupted_output(tmp_path: Path) -> None:
    # the same program, never killed: it passes its three checkpoints (after b, c interrupting itself,
    # before d) in one process
    whole = _child(tmp_path, tmp_path / "whole.db", tmp_path / "whole.log", 0)
    assert whole.returncode == 0, whole.stderr
    # c reruns with its input type's zero value as in Eino (no graph-interrupt context, so its input
    # "xab" is not persisted): compose/checkpoint_test.go TestPreHandlerInterrupt
    assert json.loads(whole.stdout) == "c[ok]de"
    expected_log = (tmp_path / "whole.log").read_text().split()
    assert expected_log == ["a", "b", "c", "c", "d", "e"]  # c is the rerun node
    plain = _child(tmp_path, tmp_path / "plain.db", tmp_path / "plain.log", 0, interrupts=False)
    assert json.loads(plain.stdout) == "xabcde"
    for kill_at in (1, 2, 3):
        db, log = tmp_path / f"k{kill_at}.db", tmp_path / f"k{kill_at}.log"
        killed = _child(tmp_path, db, log, kill_at)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert killed.stdout == ""
        resumed = _child(tmp_path, db, log, 0)
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout == whole.stdout
        assert log.read_text().split() == expected_log, f"kill after checkpoint {kill_at}"
