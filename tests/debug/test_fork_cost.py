"""A fork at step N costs work linear in N: the replayed steps' states are checked against the
recording by what grew since the last check, not whole (which made a fork at step 2,000 of a 10,001-step
run take 92 s). Work is counted as Python function calls in every thread, so a timing-free ratio."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from inspector.debug.fork import parse_model_answer, plan_fork, run_fork
from inspector.recording import Recorder, read_run
from inspector.target import load_target

STEPS = 451  # a runaway ReAct run: model, tools, model, ... until the step budget runs out
TARGET = f"""
from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall

script = [
    Message.assistant(f"Still raining ({{i}}).",
                      tool_calls=[ToolCall(f"call_{{i}}", "get_weather", '{{"city": "Hangzhou"}}')])
    for i in range({STEPS})
]
agent = ReActAgent(ScriptedChatModel(script, restart_on_new_conversation=True), tools=[get_weather],
                   max_step={STEPS})
"""
STOP = parse_model_answer('{"role": "assistant", "content": "It stopped raining."}')


@pytest.fixture(scope="module")
def long_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    folder = tmp_path_factory.mktemp("long")
    target = folder / "long_runaway.py"
    target.write_text(TARGET)
    spec = f"{target}:agent"
    path = folder / "run.jsonl"
    agent = load_target(spec).runnable
    with pytest.raises(Exception, match="exceeds max steps"):
        agent.invoke("Keep checking the weather.", callbacks=[Recorder(path, meta={"target": spec})])
    assert len(read_run(path).steps) == STEPS
    yield path, spec


def _calls_to_fork(run: Path, spec: str, step: int, out: Path) -> int:
    """Python function calls (all threads) made by planning and running a fork at `step` that ends
    one step later (a model answer without tool calls)."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call":
            count += 1

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        result = run_fork(plan_fork(run, step, target=spec, model_answer=STOP), out)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # pyright: ignore[reportArgumentType]
    assert (result.status, result.steps) == ("ok", step + 1)
    return count


def test_fork_work_grows_linearly_with_the_fork_step(long_run: tuple[Path, str], tmp_path: Path) -> None:
    run, spec = long_run
    near = _calls_to_fork(run, spec, 100, tmp_path / "fork100.jsonl")
    far = _calls_to_fork(run, spec, 400, tmp_path / "fork400.jsonl")
    # linear: 4x the steps, at most ~4x the work (plus a fixed part); with the square it was 11x
    print(f"fork work: step 100 {near:,} calls, step 400 {far:,} calls ({far / near:.1f}x)")
    assert far / near < 5, (near, far)
