"""`inspector runs --stats` equals the same numbers recomputed from the raw run files (`read_run` over
each file, written here independently of the catalog's walk)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench.catalog_runs import Expected
from inspector.cli import main
from inspector.diagnostics import diagnose
from inspector.recording import read_run


def _nearest_rank(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def _recompute(paths: list[Path]) -> dict[str, Any]:
    visits: Counter[str] = Counter()
    runs_visiting: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    durations: dict[str, list[float]] = {}
    branches: dict[str, Counter[str]] = {}
    exhausted = 0
    cycles: Counter[str] = Counter()
    timed: list[tuple[str, float]] = []
    costs: list[tuple[str, int]] = []
    for path in paths:
        run = read_run(path)
        seen: set[str] = set()
        previous = 0
        for step in run.steps:
            total = step.budget.total_tokens or 0
            for node in step.nodes:
                visits[node] += 1
                seen.add(node)
                tokens[node] += total - previous
            previous = total
            for node_run in step.node_runs:
                if node_run.duration is not None:
                    durations.setdefault(node_run.node, []).append(node_run.duration)
                errors[node_run.node] += node_run.error is not None
            for decision in step.branches:
                for target in decision.chosen:
                    branches.setdefault(decision.source, Counter())[target] += 1
        if run.unfinished is not None:
            for node in run.unfinished.nodes:
                visits[node] += 1
                seen.add(node)
            for node_run in run.unfinished.node_runs:
                if node_run.duration is not None:
                    durations.setdefault(node_run.node, []).append(node_run.duration)
                errors[node_run.node] += node_run.error is not None
        runs_visiting.update(seen)
        for diagnostic in diagnose(run):
            if diagnostic.code == "budget-exhausted":
                exhausted += 1
                cycles[" -> ".join(diagnostic.nodes)] += 1
        timed.append((str(path), run.duration or 0.0))
        costs.append((str(path), run.steps[-1].budget.total_tokens or 0))
    return {
        "runs": len(paths),
        "nodes": [
            {
                "node": node,
                "visits": visits[node],
                "runs": runs_visiting[node],
                "p50": _nearest_rank(durations.get(node, []), 50),
                "p95": _nearest_rank(durations.get(node, []), 95),
                "max": max(durations.get(node, [0.0])),
                "tokens": tokens[node],
                "errors": errors[node],
            }
            for node in sorted(visits)
        ],
        "branches": {
            source: {t: {"count": n, "share": n / sum(c.values())} for t, n in sorted(c.items())}
            for source, c in sorted(branches.items())
        },
        "budget_exhausted": {"runs": exhausted, "rate": exhausted / len(paths), "cycles": dict(cycles)},
        "slowest": [{"path": p, "duration": d} for p, d in sorted(timed, key=lambda x: (-x[1], x[0]))[:5]],
        "most_expensive": [
            {"path": p, "tokens": t} for p, t in sorted(costs, key=lambda x: (-x[1], x[0]))[:5]
        ],
    }


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
    assert stats == _recompute(chosen)
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
