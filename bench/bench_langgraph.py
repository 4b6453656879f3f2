"""LangGraph through the inspector: recording overhead, and topology export against `get_graph()`.

(a) Recording: a 100-round ReAct run (`create_react_agent` on a scripted model, one tool call per
round, 201 supersteps), run with plain `graph.invoke` and recorded through
`inspector.adapters.langgraph` with a `Recorder` writing to a temporary file, alternately, in this
process, in pairs whose order alternates. Target (issue 17): recorded <= 1.25x unrecorded, best of 15
runs each. The ratio is taken on the process's CPU time (all threads: LangGraph runs tools in a pool),
which other processes on a busy machine inflate far less than wall-clock time; wall-clock times, and
the median of the pairs' ratios (less flattering, less sensitive to one lucky run), are printed too.
(b) Topology: a 1,000-node chain. `langgraph_topology` (read from the builder) against LangGraph's own
`get_graph()`: time, and how many nodes and edges each keeps (`get_graph()` was measured to drop
edges of long chains).
"""

from __future__ import annotations

import gc
import itertools
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.graph import END, START, StateGraph

from bench.timing import best_time
from fixtures.langgraph_react import ScriptedToolModel, get_weather, react_agent
from inspector.adapters.langgraph import as_target, langgraph_topology
from inspector.recording import Recorder

ROUNDS = 100
CHAIN = 1_000
TARGET_RATIO = 1.25


def _script(rounds: int) -> list[BaseMessage]:
    calls: list[BaseMessage] = [
        AIMessage(
            f"Checking again ({i}).",
            tool_calls=[{"id": f"call_{i}", "name": "get_weather", "args": {"city": "Hangzhou"}}],
            usage_metadata={"input_tokens": 100 + i, "output_tokens": 20, "total_tokens": 120 + i},
        )
        for i in range(rounds)
    ]
    return [*calls, AIMessage("It stopped raining.")]


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(CPU seconds of this process, wall seconds) of one call, after a collection so that neither side
    pays for garbage the other left."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def _interleaved(
    plain: Callable[[], Any], recorded: Callable[[], Any], repeats: int
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(CPU, wall) of each run of each side, measured in pairs whose order alternates (plain first,
    then recorded first), so that drift in the machine's load and the cost of going second hit both."""
    base: list[tuple[float, float]] = []
    rec: list[tuple[float, float]] = []
    for i in range(repeats):
        if i % 2 == 0:
            base.append(_timed(plain))
            rec.append(_timed(recorded))
        else:
            rec.append(_timed(recorded))
            base.append(_timed(plain))
    return base, rec


def _recording(repeats: int = 15) -> None:
    graph = react_agent(ScriptedToolModel(responses=_script(ROUNDS)), [get_weather])
    config: Any = {"recursion_limit": 2 * ROUNDS + 10}
    question = {"messages": [{"role": "user", "content": "Tell me when it stops raining."}]}
    target = as_target(graph)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "run.jsonl"

        def plain() -> None:
            graph.invoke(question, config)

        def recorded() -> None:
            target.invoke(question, callbacks=[Recorder(path)], config=config)

        plain()  # warm up both paths (imports, caches)
        recorded()
        base, rec = _interleaved(plain, recorded, repeats)
        size = path.stat().st_size
    cpu_base, wall_base = min(c for c, _ in base), min(w for _, w in base)
    cpu_rec, wall_rec = min(c for c, _ in rec), min(w for _, w in rec)
    ratio = cpu_rec / cpu_base
    paired = statistics.median(r[0] / b[0] for b, r in zip(base, rec, strict=True))
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"(a) {ROUNDS}-round ReAct run, {2 * ROUNDS + 1} supersteps; interleaved pairs, best of {repeats} "
          f"each; process CPU / wall:")  # fmt: skip
    print(f"    unrecorded graph.invoke      {cpu_base * 1000:7.1f} / {wall_base * 1000:7.1f} ms  (baseline)")
    print(f"    recorded (adapter+Recorder)  {cpu_rec * 1000:7.1f} / {wall_rec * 1000:7.1f} ms  "
          f"run file {size / 1024:.0f} KiB")  # fmt: skip
    print(f"    ratio                        {ratio:7.2f}x CPU / {wall_rec / wall_base:.2f}x wall  "
          f"(median of the {repeats} pairs' CPU ratios: {paired:.2f}x)")  # fmt: skip
    print(f"    {verdict}: recorded / unrecorded = {ratio:.2f}x CPU, target <= {TARGET_RATIO}x")


class _S(TypedDict):
    x: int


def _chain(n: int) -> Any:
    graph = StateGraph(_S)
    names = [f"n{i}" for i in range(n)]
    for name in names:
        graph.add_node(name, lambda state: {})
    graph.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        graph.add_edge(a, b)
    graph.add_edge(names[-1], END)
    return graph.compile()


def _topology() -> None:
    graph = _chain(CHAIN)
    ours = langgraph_topology(graph)
    drawn = graph.get_graph()
    t_ours = best_time(lambda: langgraph_topology(graph), 3)
    t_theirs = best_time(graph.get_graph, 3)
    print(f"(b) {CHAIN:,}-node chain ({CHAIN + 2} nodes and {CHAIN + 1} edges with START and END):")
    print(f"    get_graph()           {t_theirs * 1000:8.1f} ms  (baseline)  "
          f"{len(drawn.nodes)} nodes, {len(drawn.edges)} edges")  # fmt: skip
    print(f"    langgraph_topology()  {t_ours * 1000:8.1f} ms  {t_ours / t_theirs:.2f}x  "
          f"{len(ours.nodes)} nodes, {len(ours.edges)} edges")  # fmt: skip


def run() -> None:
    _recording()
    _topology()
