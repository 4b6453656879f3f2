"""`inspector show` marks interrupts, the checkpoint ID and the resumed run's origin."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core import END, START, Graph, get_resume_data, interrupt
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError
from graph_core.interrupt import was_interrupted
from inspector.cli.show import summary, timeline
from inspector.recording import Recorder, read_run


def _ask(text: str) -> str:
    if not was_interrupted():
        interrupt("ok?")
    return text + str(get_resume_data())


def test_interrupted_and_resumed_recordings(tmp_path: Path) -> None:
    graph = Graph(state=lambda: {"n": 1})
    graph.add_lambda_node("a", lambda t: t + "a")
    graph.add_lambda_node("ask", _ask)
    graph.add_edge(START, "a")
    graph.add_edge("a", "ask")
    graph.add_edge("ask", END)
    compiled = graph.compile(checkpoint_store=InMemoryCheckpointStore(), interrupt_before=["a"])
    first, second, third = tmp_path / "1.jsonl", tmp_path / "2.jsonl", tmp_path / "3.jsonl"
    with pytest.raises(InterruptError):
        compiled.invoke("x", checkpoint_id="cp", callbacks=[Recorder(first)])
    with pytest.raises(InterruptError):
        compiled.invoke(None, checkpoint_id="cp", callbacks=[Recorder(second)])
    assert compiled.invoke(None, checkpoint_id="cp", resume_data="!", callbacks=[Recorder(third)]) == "!"

    text = "\n".join(timeline(read_run(first)))
    assert "interrupted (before a), checkpoint cp" in text
    text = "\n".join(timeline(read_run(second)))
    assert "resumed from checkpoint cp" in text
    assert "ask interrupted:" in text and "interrupt: ask (rerun on resume)" in text
    assert "failed" not in text
    run = read_run(third)
    assert run.status == "ok" and summary(run, [])["resumed_from"] == "cp"
    assert summary(read_run(second), [])["interrupt"]["checkpoint_id"] == "cp"
