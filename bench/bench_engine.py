"""Engine overhead per superstep: a one-node sync-lambda self-loop vs a plain Python loop doing the same work.

Target: <= 15 µs per superstep in invoke mode, flat from N=100 to N=10,000 (the per-step cost must not
grow with the run length). The baseline calls the same node function and the same branch condition in a
`while` loop, so the difference is what the engine adds per step: budget check, task, scope, routing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from graph_core import END, START, Branch, Graph

TARGET_US = 15.0
SIZES = (100, 1_000, 10_000)


def _step(x: int) -> int:
    return x + 1


def _graph(n: int) -> Callable[[int], int]:
    def cond(x: int) -> str:
        return END if x >= n else "loop"

    g = Graph()
    g.add_lambda_node("loop", _step)
    g.add_edge(START, "loop")
    g.add_branch("loop", Branch(cond, ["loop", END]))
    compiled = g.compile(max_run_steps=n)
    return compiled.invoke


def _baseline(n: int) -> Callable[[int], int]:
    def cond(x: int) -> str:
        return END if x >= n else "loop"

    def run(x: int) -> int:
        while True:
            x = _step(x)
            if cond(x) == END:
                return x

    return run


def _best_per_step(fn: Callable[[int], int], n: int, repeats: int) -> tuple[float, float]:
    """Best wall-clock and best CPU time per step over `repeats` runs, in µs."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        assert fn(0) == n
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_wall / n * 1e6, best_cpu / n * 1e6


def run() -> None:
    """Verdict on CPU time (other processes on a shared machine inflate wall time; both are printed)."""
    print(f"{'N':>7} {'engine wall':>12} {'engine cpu':>11} {'baseline cpu':>13} {'ratio':>7}  (µs/step)")
    costs: list[float] = []
    for n in SIZES:
        repeats = max(3, 30_000 // n)
        wall, cpu = _best_per_step(_graph(n), n, repeats)
        _, base = _best_per_step(_baseline(n), n, repeats)
        costs.append(cpu)
        print(f"{n:>7} {wall:>12.2f} {cpu:>11.2f} {base:>13.3f} {cpu / base:>6.0f}x")
    worst = max(costs)
    flatness = costs[-1] / costs[0]
    verdict = "OK" if worst <= TARGET_US and flatness < 1.5 else "MISSED"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"target: <= {TARGET_US:.0f} µs/step (cpu) and flat; worst {worst:.2f} µs/step, "
        f"N={SIZES[-1]}/N={SIZES[0]} = {flatness:.2f} -> {verdict} (load average {load:.1f})"
    )
