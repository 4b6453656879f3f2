"""`inspector show` reading a run's timeline in parts (`--jobs`), the later parts in forked processes:
the lines and diagnostics are those of one walk, wherever the parts start (inside a segment, at its
first or last step, at an empty one), and `part_bounds` gives later parts fewer steps of their own."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

import inspector.cli.show as show
from inspector.cli import main
from inspector.diagnostics import Findings
from inspector.recording import Recorder, read_run
from inspector.recording.synthetic import react_topology, simulate_react

FIXTURE_RUNS = sorted((Path(__file__).parents[2] / "fixtures" / "runs").glob("*.jsonl"))


def _walk(path: Path, jobs: int) -> tuple[list[str], list[Any]]:
    run = read_run(path)
    findings = Findings(run)
    lines = show.timeline(run, findings, jobs=jobs)
    return lines, findings.finish()


@pytest.mark.parametrize("path", FIXTURE_RUNS, ids=[p.stem for p in FIXTURE_RUNS])
def test_every_split_of_a_fixture_run_reads_as_one_walk(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(show, "STEPS_A_PART", 1)  # parts of one step: every place a part can start
    whole = _walk(path, 1)
    steps = len(read_run(path).steps)
    for jobs in range(2, steps + 2):
        assert _walk(path, jobs) == whole, f"{jobs} parts"


def test_a_long_runaway_run_in_parts_reads_as_one_walk(tmp_path: Path) -> None:
    """Past `STEPS_A_PART` steps a part, as the command splits it; the budget ran out, so the findings
    name the cycle from the steps of every part."""
    path = tmp_path / "long.jsonl"
    ticks = itertools.count()
    recorder = Recorder(path, topology=react_topology(), clock=lambda: next(ticks) / 1000, run_id="long")
    simulate_react(recorder, 1_100, max_steps=2_101)
    recorder.close()
    whole = _walk(path, 1)
    assert [d.code for d in whole[1]] == ["budget-exhausted"]
    assert show.part_bounds(len(read_run(path).steps), 3)[1:-1]  # it is split
    assert _walk(path, 3) == whole


def test_later_parts_have_fewer_steps_of_their_own() -> None:
    bounds = show.part_bounds(20_000, 4)
    assert bounds[0] == 0 and bounds[-1] == 20_000
    sizes = [b - a for a, b in itertools.pairwise(bounds)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] > 0
    assert show.part_bounds(20_000, 2)[1] == 12_500  # 1 / (1 + 0.6): the second part catches up on the first
    assert show.part_bounds(1_999, 2) == [0, 1_999]  # too short for two parts
    assert show.part_bounds(0, 4) == [0, 0]


def test_jobs_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(FIXTURE_RUNS[0])
    assert main(["show", "--jobs", "1", path]) == 0
    one = capsys.readouterr().out
    assert main(["show", "--jobs", "3", path]) == 0
    assert capsys.readouterr().out == one
    with pytest.raises(SystemExit) as exit_:
        main(["show", "--jobs", "0", path])
    assert exit_.value.code == 2
    assert "`0` is not a number of processes" in capsys.readouterr().err
