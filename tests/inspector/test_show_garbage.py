"""`inspector show` reads with the cycle collector off: reading a run must leave no reference cycles,
or a long run's garbage would pile up until the command ends. Every fixture run and a long agent run
are walked as `show` walks them (text and JSON), and the collector must then find nothing to free."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.cli.show import summary, timeline
from inspector.diagnostics import Findings, diagnose
from inspector.recording import Recorder, read_run
from inspector.recording.synthetic import react_topology, simulate_react

FIXTURE_RUNS = sorted((Path(__file__).parents[2] / "fixtures" / "runs").glob("*.jsonl"))


def _text_walk(path: Path) -> Any:
    run = read_run(path)
    findings = Findings(run)
    timeline(run, findings)
    findings.finish()
    return run


def _json_walk(path: Path) -> Any:
    run = read_run(path)
    summary(run, diagnose(run))
    return run


def _long_agent_run(path: Path) -> Path:
    times = iter(range(1_000_000))
    recorder = Recorder(path, topology=react_topology(), clock=lambda: next(times) / 1000, run_id="long")
    simulate_react(recorder, 60)
    recorder.close()
    return path


@pytest.fixture
def collector_off() -> Iterator[list[object]]:
    """The collector off for the test's walk; yields the list that `_cyclic_garbage` fills."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


def _cyclic_garbage() -> Counter[str]:
    """What a full collection would free now, by type (the objects are kept aside, not freed)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    gc.set_debug(0)
    found = Counter(type(o).__qualname__ for o in gc.garbage)
    gc.garbage.clear()
    return found


@pytest.mark.parametrize("walk", [_text_walk, _json_walk], ids=["text", "json"])
@pytest.mark.parametrize("path", FIXTURE_RUNS, ids=[p.stem for p in FIXTURE_RUNS])
def test_reading_a_fixture_run_leaves_no_cycles(
    path: Path, walk: Callable[[Path], Any], collector_off: list[object]
) -> None:
    gc.collect()  # (what pytest let go of between setup and call: a previous failure's traceback)
    run = walk(path)  # held, so that only what the walk let go of counts
    assert _cyclic_garbage() == Counter()
    assert len(run.steps) >= 1  # (every fixture has steps: the walk read some)


@pytest.mark.parametrize("walk", [_text_walk, _json_walk], ids=["text", "json"])
def test_reading_a_long_agent_run_leaves_no_cycles(
    tmp_path: Path, walk: Callable[[Path], Any], collector_off: list[object]
) -> None:
    path = _long_agent_run(tmp_path / "long.jsonl")
    gc.collect()  # (what recording it left)
    run = walk(path)
    assert _cyclic_garbage() == Counter()
    assert len(run.steps) > 100  # more steps than the reader's caches hold: evicted steps count too


def test_a_tool_run_read_alone_puts_back_what_its_line_leaves_out(tmp_path: Path) -> None:
    """A tool run keeps its ToolsNode run's line, not the node run: with the run, the step and the
    ToolsNode run let go, it still reads its name and arguments (left out of its line, found in the
    model's call) and its start (an offset from the ToolsNode run's)."""
    tool = read_run(_long_agent_run(tmp_path / "long.jsonl")).steps[1].node_runs[0].tools[0]
    assert (tool.name, tool.input, tool.output) == ("get_weather", '{"city": "Paris", "n": 0}', "sunny, 20 C")
    assert (tool.started, tool.finished) == (0.007, 0.008)  # step 0.005, ToolsNode +0.001, tool +0.001


@pytest.mark.parametrize("args", [[], ["--json"]], ids=["text", "json"])
def test_show_turns_the_collector_back_on(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert gc.isenabled()
    assert main(["show", *args, str(FIXTURE_RUNS[0])]) == 0
    assert gc.isenabled()
    assert main(["show", *args, "no-such-run.jsonl"]) == 2  # also when it fails
    assert gc.isenabled()
    capsys.readouterr()
