"""LangGraph `file.py:graph` TARGETs have stable identities: the same topology bytes on every call, node
functions by their qualname (docs/topology.md), two identical recordings equivalent, forks accepted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.recording import read_run

GRAPH = """
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class S(TypedDict):
    n: int


def write(state: S) -> dict:
    return {"n": state["n"] + 1}


def double(state: S) -> dict:
    return {"n": state["n"] * 2}


builder = StateGraph(S)
builder.add_node("write", write)
builder.add_node("double", double)
builder.add_edge(START, "write")
builder.add_edge("write", "double")
builder.add_edge("double", END)
graph = builder.compile()
"""


def _inspector(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": "random"}  # the old name came from hash(): random per process
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_the_topology_is_the_same_bytes_each_call_with_qualnames(tmp_path: Path) -> None:
    (tmp_path / "lg_graph.py").write_text(GRAPH)
    first, second = (
        _inspector("topology", "lg_graph.py:graph", "-f", "json", cwd=tmp_path) for _ in range(2)
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    nodes = json.loads(first.stdout)["topology"]["nodes"]
    assert {n["key"]: n["function"] for n in nodes} == {
        "start": None,
        "write": "write",
        "double": "double",
        "end": None,
    }


def test_two_recordings_are_equivalent_and_a_fork_is_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lg_graph.py").write_text(GRAPH)
    for name in ("a.jsonl", "b.jsonl"):
        done = _inspector(
            "record", "lg_graph.py:graph", "--input-json", '{"n": 1}', "-o", name, "-q", cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
    monkeypatch.chdir(tmp_path)
    assert main(["diff", "a.jsonl", "b.jsonl"]) == 0
    # recorded in another process (so trusted: recorded here), forked in this one: the topologies agree
    assert main(["fork", "a.jsonl", "--step", "1", "-o", "fork.jsonl"]) == 0
    assert read_run("fork.jsonl").status == "ok" and main(["diff", "a.jsonl", "fork.jsonl"]) == 0
