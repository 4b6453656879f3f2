"""The committed fixture recordings (fixtures/runs) are current, readable and diagnosed as expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.runs import HERE, RUNS, record
from inspector.diagnostics import diagnose
from inspector.recording import read_run
from inspector.recording.schema import main as schema_main

EXPECTED = {
    "weather": ("ok", []),
    "report": ("ok", []),
    "parallel": ("ok", []),
    "runaway": ("error", ["budget-exhausted"]),
    "adk": ("ok", []),
    "streaming_pitfall": ("ok", ["unexecuted-tool-calls"]),
    "langgraph_react": ("ok", []),
    "langgraph_runaway": ("error", ["budget-exhausted"]),
    "langgraph_approval": ("ok", []),
}


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in ("t", "duration", "started_at")}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_untimed(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _normalised(path: Path) -> list[str]:
    """Lines without timings: tool calls run in parallel and read the injected clock in any order, but
    the recorder writes them in call order, so everything else must match exactly, line for line."""
    return [json.dumps(_untimed(json.loads(line))) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("fixture", RUNS, ids=[f.name for f in RUNS])
def test_committed_recordings_are_current(fixture: Any, tmp_path: Path) -> None:
    fresh = record(fixture, tmp_path / f"{fixture.name}.jsonl")
    committed = HERE / f"{fixture.name}.jsonl"
    assert _normalised(fresh) == _normalised(committed), "run `python3 -m fixtures.runs`"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_committed_recordings_read_and_diagnose(name: str) -> None:
    run = read_run(HERE / f"{name}.jsonl")
    status, codes = EXPECTED[name]
    assert run.status == status
    assert [d.code for d in diagnose(run)] == codes
    assert run.topology is not None and len(run.steps) > 0


def test_published_schema_is_current() -> None:
    assert schema_main(["--check"]) == 0, "run `python3 -m inspector.recording.schema`"


def test_every_fixture_line_matches_the_published_schema() -> None:
    from inspector.recording.format import decode_line

    for fixture in RUNS:
        for line in (HERE / f"{fixture.name}.jsonl").read_text().splitlines():
            decode_line(line.encode())
