"""Topology at scale: a synthetic 10,000-node graph (a chain with a branch and a back edge every 10 nodes).

Targets (issue 4): `CompiledGraph.topology()` plus each text export (JSON, DOT, Mermaid, networkx)
under 1 s at 10,000 nodes; the terminal drawing of a 200-node graph under 1 s. Also printed, with no
target: a node with 150 and 500 branch targets (too wide side by side, such a fan-out is stacked one
node per row with a lane per target, so the drawing itself holds about n^2 cells: printed with the size).
Baselines, measured in the same process: pydantic's own `model_dump_json` for the exports (the cheapest
possible serialisation of the same model) and a plain `"\\n".join` of one line per node for the drawing.
"""

from __future__ import annotations

import time
from typing import Any

from bench.timing import best_time
from graph_core import END, START, Branch, Graph
from graph_core.topology import Topology
from inspector.export import from_json, to_dot, to_json, to_mermaid, to_networkx
from inspector.layout import draw

TARGET_S = 1.0


def _identity(x: Any) -> Any:
    return x


def build(n: int) -> Any:
    """A compiled Pregel graph: chain n0 -> n1 -> ...; every 10th node branches to the next or back 5."""
    graph = Graph()
    for i in range(n):
        graph.add_lambda_node(f"n{i}", _identity)
    graph.add_edge(START, "n0")
    for i in range(n - 1):
        if i % 10 == 9 and i >= 5:
            graph.add_branch(f"n{i}", Branch(lambda _x, i=i: f"n{i + 1}", [f"n{i + 1}", f"n{i - 5}"]))
        else:
            graph.add_edge(f"n{i}", f"n{i + 1}")
    graph.add_edge(f"n{n - 1}", END)
    return graph.compile(max_run_steps=10 * n)


FAN_SIZES = (150, 500)


def fan_out(n: int) -> Topology:
    """One node branching to n targets, each ending the run."""
    graph = Graph()
    graph.add_lambda_node("hub", _identity)
    for i in range(n):
        graph.add_lambda_node(f"t{i}", _identity)
        graph.add_edge(f"t{i}", END)
    graph.add_edge(START, "hub")
    graph.add_branch("hub", Branch(lambda _x: "t0", [f"t{i}" for i in range(n)]))
    return graph.compile().topology()


def run() -> None:
    start = time.perf_counter()
    compiled = build(10_000)
    print(f"build+compile 10,000 nodes: {time.perf_counter() - start:.3f} s (setup, not a target)")
    topology = compiled.topology()
    print(f"{len(topology.nodes)} nodes, {len(topology.edges)} edges, {len(topology.back_edges)} back edges")
    baseline = best_time(topology.model_dump_json)
    text = to_json(topology)
    rows = [
        ("topology()", compiled.topology),
        ("to_json", lambda: to_json(topology)),
        ("from_json", lambda: from_json(text)),
        ("to_dot", lambda: to_dot(topology)),
        ("to_mermaid", lambda: to_mermaid(topology)),
        ("to_networkx", lambda: to_networkx(topology)),
    ]
    topology_s = best_time(compiled.topology)
    print(f"{'10,000 nodes':<14} {'seconds':>8} {'x model_dump_json':>18} {'+ topology()':>13}  target < 1 s")
    for name, fn in rows:
        seconds = best_time(fn)
        with_topology = seconds if name == "topology()" else seconds + topology_s
        verdict = "ok" if with_topology < TARGET_S else "MISSED"
        print(f"{name:<14} {seconds:8.3f} {seconds / baseline:18.1f} {with_topology:13.3f}  {verdict}")

    small = build(200).topology()
    naive = best_time(lambda: "\n".join(f"[{n.key}]" for n in small.nodes))
    seconds = best_time(lambda: draw(small))
    verdict = "ok" if seconds < TARGET_S else "MISSED"
    lines = draw(small).count("\n")
    ratio = seconds / naive
    print(f"draw 200 nodes: {seconds:.3f} s, {lines} lines, {ratio:.0f}x a one-line-per-node listing")
    print(f"  target < {TARGET_S:.0f} s  {verdict}")
    seconds = best_time(lambda: draw(topology), 1)
    print(f"draw 10,000 nodes (no target, for scale): {seconds:.3f} s")
    for n in FAN_SIZES:
        fan = fan_out(n)
        seconds = best_time(lambda fan=fan: draw(fan), 1)
        text = draw(fan)
        lines = text.count("\n")
        width = max(len(line) for line in text.splitlines())
        size = f"{lines} x {width} cells"
        print(f"draw a {n}-target fan-out (no target, for scale): {seconds:.3f} s ({size})")
