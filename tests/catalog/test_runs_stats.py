"""`inspector runs --stats` equals the same numbers recomputed from the raw run files (`read_run` over
each file, written here independently of the catalog's walk)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.catalog_runs import Expected
from inspector.cli import main
from tests.catalog.recompute import recompute_stats


@pytest.mark.parametrize("argv", [[], ["--status", "error"], ["--graph", "agents.triage:agent"]])
def test_stats_equal_the_recomputation_from_the_run_files(
    generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    folder, expected = generated
    capsys.readouterr()
    assert main(["runs", str(folder), "--stats", "--json", *argv]) == 0
    stats = json.loads(capsys.readouterr().out)
    chosen = [
        e.path
        for e in expected
        if ("--status" not in argv or e.status == "error") and ("--graph" not in argv or e.graph == argv[-1])
    ]
    assert stats == recompute_stats([(str(path), path) for path in chosen])
    assert stats["budget_exhausted"]["runs"] == sum(e.kind == "runaway" for e in expected if e.path in chosen)


def test_stats_from_the_index_equal_the_first(
    generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = generated
    outputs = []
    for _ in range(2):
        capsys.readouterr()
        assert main(["runs", str(folder), "--stats"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "budget exhausted: 6 of 30 runs (20.0%)" in outputs[0]
    assert "chat -> end" in outputs[0] and "tools -> chat 100.0%" in outputs[0]
