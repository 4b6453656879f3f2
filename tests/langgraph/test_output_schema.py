"""A graph built with `StateGraph(State, output_schema=Out)` records as its output what `invoke()`
returns (the output schema's keys); its steps keep the whole state, as LangGraph's checkpoints do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from inspector.adapters.langgraph import as_target
from inspector.recording import Recorder, read_run
from tests.langgraph.graphs import loop, with_output_schema

QUESTION: Any = {"question": "tides"}


def test_the_recorded_output_is_what_invoke_returns(tmp_path: Path) -> None:
    expected = with_output_schema().compile().invoke(QUESTION)
    assert expected == {"answer": "NOTES ON TIDES"}
    path = tmp_path / "run.jsonl"
    target = as_target(with_output_schema().compile(checkpointer=InMemorySaver()))
    returned = target.invoke(QUESTION, callbacks=[Recorder(path)], checkpoint_id="t")
    run = read_run(path)
    assert run.status == "ok"
    assert run.output == expected == returned
    assert run.steps[-1].state == {"question": "tides", "notes": "notes on tides", "answer": "NOTES ON TIDES"}


def test_without_an_output_schema_the_output_is_the_whole_state(tmp_path: Path) -> None:
    value: Any = {"n": 0, "log": []}
    path = tmp_path / "run.jsonl"
    as_target(loop().compile()).invoke(value, callbacks=[Recorder(path)])
    assert read_run(path).output == loop().compile().invoke(value)
