"""Engine overhead per superstep: a one-node sync-lambda self-loop vs a plain Python loop doing the same work.

Target: <= 15 µs per superstep in invoke mode, flat from N=100 to N=10,000 (the per-step cost must not
grow with the run length). The baseline calls the same node function and the same branch condition in a
`while` loop, so the difference is what the engine adds per step: budget check, task, scope, routing.
"""

from __future__ import annotations

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


def _best_per_step(fn: Callable[[int], int], n: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        assert fn(0) == n
        best = min(best, time.perf_counter() - start)
    return best / n * 1e6


def run() -> None:
    print(f"{'N':>7} {'engine µs/step':>15} {'baseline µs/step':>17} {'ratio':>8}")
    engine_costs: list[float] = []
    for n in SIZES:
        repeats = max(3, 30_000 // n)
        engine = _best_per_step(_graph(n), n, repeats)
        base = _best_per_step(_baseline(n), n, repeats)
        engine_costs.append(engine)
        print(f"{n:>7} {engine:>15.2f} {base:>17.3f} {engine / base:>7.0f}x")
    worst = max(engine_costs)
    flatness = engine_costs[-1] / engine_costs[0]
    verdict = "OK" if worst <= TARGET_US and flatness < 1.5 else "MISSED"
    print(
        f"target: <= {TARGET_US:.0f} µs/step and flat; worst {worst:.2f} µs/step, "
        f"N={SIZES[-1]}/N={SIZES[0]} = {flatness:.2f} -> {verdict}"
    )
