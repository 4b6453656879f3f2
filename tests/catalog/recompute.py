"""Statistics across runs recomputed from the raw run files, written independently of the catalog's
walk: what `inspector runs --stats` must equal."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

from inspector.diagnostics import diagnose
from inspector.recording import read_run

__all__ = ["recompute_stats"]


def _nearest_rank(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def recompute_stats(runs: list[tuple[str, Path]]) -> dict[str, Any]:
    """What `inspector runs --stats --json` must print for `runs` (each the path listed and the run file
    holding it), from `read_run` over each file."""
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
    for shown, path in runs:
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
        timed.append((shown, run.duration or 0.0))
        costs.append((shown, (run.steps[-1].budget.total_tokens or 0) if run.steps else 0))
    return {
        "runs": len(runs),
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
        "budget_exhausted": {"runs": exhausted, "rate": exhausted / len(runs), "cycles": dict(cycles)},
        "slowest": [{"path": p, "duration": d} for p, d in sorted(timed, key=lambda x: (-x[1], x[0]))[:5]],
        "most_expensive": [
            {"path": p, "tokens": t} for p, t in sorted(costs, key=lambda x: (-x[1], x[0]))[:5]
        ],
    }
