"""Statistics across runs: where a fleet spends its steps, time and tokens, which branches it takes,
how often it runs out of budget and in which cycle.

Computed from the runs' facts (`RunFacts`, one walk per file version, kept in the index), never from
the steps again. Percentiles are nearest-rank over every top-level execution's duration (p50 of
[1, 2, 3, 4] is 2), so they are values that occurred, and a recomputation gets the same numbers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.catalog.record import RunRecord

__all__ = ["FleetStats", "NodeStats", "fleet_stats", "percentile", "stats_text"]

TOP = 5


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile `p` (0-100) of `values`; None for none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class NodeStats:
    node: str
    visits: int = 0
    runs: int = 0
    p50: float | None = None
    p95: float | None = None
    max: float | None = None
    tokens: int = 0
    errors: int = 0


@dataclass
class FleetStats:
    """See the module docstring. `branches`: source -> target -> share of that source's decisions."""

    runs: int = 0
    nodes: list[NodeStats] = field(default_factory=lambda: [])
    branches: dict[str, dict[str, float]] = field(default_factory=lambda: {})
    branch_counts: dict[str, dict[str, int]] = field(default_factory=lambda: {})
    exhausted: int = 0
    cycles: dict[str, int] = field(default_factory=lambda: {})
    slowest: list[tuple[str, float]] = field(default_factory=lambda: [])
    costliest: list[tuple[str, int]] = field(default_factory=lambda: [])

    @property
    def exhaustion_rate(self) -> float:
        return self.exhausted / self.runs if self.runs else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "nodes": [vars(n) for n in self.nodes],
            "branches": {
                source: {
                    t: {"count": self.branch_counts[source][t], "share": share}
                    for t, share in targets.items()
                }
                for source, targets in self.branches.items()
            },
            "budget_exhausted": {"runs": self.exhausted, "rate": self.exhaustion_rate, "cycles": self.cycles},
            "slowest": [{"path": p, "duration": d} for p, d in self.slowest],
            "most_expensive": [{"path": p, "tokens": t} for p, t in self.costliest],
        }


def fleet_stats(records: Sequence[RunRecord]) -> FleetStats:
    """The statistics over `records` (those not walked, such as corrupt runs, count only as runs)."""
    stats = FleetStats(runs=len(records))
    durations: dict[str, list[float]] = {}
    nodes: dict[str, NodeStats] = {}
    cycles: Counter[str] = Counter()
    for record in records:
        facts = record.facts
        if facts is None:
            continue
        for key, node in facts.nodes.items():
            total = nodes.get(key)
            if total is None:
                total = nodes[key] = NodeStats(key)
            total.visits += node.visits
            total.runs += 1 if node.visits else 0
            total.tokens += node.tokens
            total.errors += node.errors
            durations.setdefault(key, []).extend(node.durations)
        for source, targets in facts.branches.items():
            counts = stats.branch_counts.setdefault(source, {})
            for target, count in targets.items():
                counts[target] = counts.get(target, 0) + count
        if "budget-exhausted" in facts.diagnostics:
            stats.exhausted += 1
            cycles[" -> ".join(facts.cycle) if facts.cycle else "(no cycle found)"] += 1
    for key in sorted(nodes):
        node = nodes[key]
        values = durations.get(key, [])
        node.p50, node.p95 = percentile(values, 50), percentile(values, 95)
        node.max = max(values) if values else None
        stats.nodes.append(node)
    for source in sorted(stats.branch_counts):
        counts = stats.branch_counts[source]
        whole = sum(counts.values())
        stats.branches[source] = {t: counts[t] / whole for t in sorted(counts)}
    stats.cycles = dict(cycles.most_common())
    timed = [(r.path, r.duration) for r in records if r.duration is not None]
    stats.slowest = sorted(timed, key=lambda pd: (-pd[1], pd[0]))[:TOP]
    stats.costliest = sorted(((r.path, r.tokens) for r in records), key=lambda pt: (-pt[1], pt[0]))[:TOP]
    return stats


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f}ms" if value < 1 else f"{value:.2f}s"


def stats_text(stats: FleetStats) -> str:
    """The statistics as text for a terminal."""
    lines = [f"{stats.runs} runs", "", "nodes"]
    rows = [["node", "visits", "runs", "p50", "p95", "max", "tokens", "errors"]]
    for n in stats.nodes:
        rows.append(
            [
                n.node,
                str(n.visits),
                str(n.runs),
                _seconds(n.p50),
                _seconds(n.p95),
                _seconds(n.max),
                str(n.tokens),
                str(n.errors),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        lines.append(
            "  "
            + "  ".join(
                c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)
            ).rstrip()
        )
    lines += ["", "branches"]
    if not stats.branches:
        lines.append("  (none taken)")
    for source, targets in stats.branches.items():
        taken = ", ".join(
            f"{t} {share:.1%} ({stats.branch_counts[source][t]})" for t, share in targets.items()
        )
        lines.append(f"  {source} -> {taken}")
    lines += ["", f"budget exhausted: {stats.exhausted} of {stats.runs} runs ({stats.exhaustion_rate:.1%})"]
    for cycle, count in stats.cycles.items():
        lines.append(f"  {count} in {cycle}")
    lines += ["", "slowest"]
    lines += [f"  {_seconds(d):>9}  {p}" for p, d in stats.slowest]
    lines += ["", "most expensive"]
    lines += [f"  {t:>9} tokens  {p}" for p, t in stats.costliest]
    return "\n".join(lines) + "\n"
