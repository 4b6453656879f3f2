"""Topology at scale: a synthetic 10,000-node graph (a chain with a branch and a back edge every 10 nodes).

Targets (issue 4): `CompiledGraph.topology()` plus each text export (JSON, DOT, Mermaid, networkx)
under 1 s at 10,000 nodes; the terminal drawing of a 200-node graph under 1 s. Also printed, with no
target: a node with 150 and 500 branch targets, and 100, 200 and 400 parallel nodes. Stacked one node
per row with a lane each, such a rank was a drawing of n^2 cells (issue 37: 400 parallel nodes, 7.3 s
and 1.4 GB); past `MAX_RANK` nodes in one rank it is now refused, and the bench prints the time to
refuse with its ratio to the size before (2.0 is linear). Baselines, measured in the same process:
pydantic's own `model_dump_json` for the exports (the cheapest possible serialisation of the same
model) and a plain `"\\n".join` of one line per node for the drawing.
"""

from __future__ import annotations

import time
from typing import Any

from bench.timing import best_time
from graph_core import END, START, Branch, Graph
from graph_core.topology import Topology
from inspector.errors import GraphTooWide
from inspector.export import from_json, to_dot, to_json, to_mermaid, to_networkx
from inspector.layout import draw
from inspector.layout._draw import MAX_RANK

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
        seconds = best_time(lambda fan=fan: _refused(fan), 1)
        print(f"draw a {n}-target fan-out: refused (more than {MAX_RANK} in one rank) in {seconds:.3f} s")
    _wide_ratios()


WIDE_SIZES = (100, 200, 400)


def wide(n: int) -> Topology:
    """n parallel nodes, each between START and END: one rank n nodes wide."""
    graph = Graph()
    for i in range(n):
        graph.add_lambda_node(f"p{i}", _identity)
        graph.add_edge(START, f"p{i}")
        graph.add_edge(f"p{i}", END)
    return graph.compile().topology()


def _refused(topology: Topology) -> None:
    try:
        draw(topology)
    except GraphTooWide:
        return
    raise AssertionError("a graph wider than MAX_RANK was drawn")


def _wide_ratios() -> None:
    """The text drawing of a wide graph (issue 37: 100 -> 200 -> 400 parallel nodes took 0.8 -> 2.1 ->
    7.3 s, 122 MB -> 1.4 GB): now refused past `MAX_RANK`, in time linear in the graph. Printed with the
    ratio to the size before (2.0 is linear), and the widest graph still drawn for scale."""
    before = None
    for n in WIDE_SIZES:
        topology = wide(n)
        seconds = best_time(lambda topology=topology: _refused(topology))
        ratio = "" if before is None else f"  ratio {seconds / before:.1f} to {n // 2}"
        print(f"draw {n} parallel nodes: refused in {seconds:.4f} s{ratio}")
        before = seconds
    widest = wide(MAX_RANK)
    seconds = best_time(lambda: draw(widest), 1)
    print(f"draw {MAX_RANK} parallel nodes (the most drawn, for scale): {seconds:.3f} s")
