"""A node with no way out ends a LangGraph run there: the topology draws that edge into END ("implicit
end"), `Command` destinations (declared with `destinations=` or a `Command[Literal[...]]` return
annotation) are labelled branch edges instead, `lint` passes graphs that finish, and recordings of those
graphs run the nodes LangGraph's own debug stream names."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from inspector.adapters.langgraph import as_target, langgraph_topology
from inspector.cli import main
from inspector.recording import Recorder, read_run
from tests.langgraph.graphs import ask_human, command_router, declared_destinations, sequence

Edge = tuple[str, str, str, str | None]

TRUTH: dict[str, tuple[Callable[[], Any], list[Edge]]] = {
    "sequence": (
        sequence,
        [
            ("start", "upper", "edge", None),
            ("upper", "exclaim", "edge", None),
            ("exclaim", "end", "edge", "implicit end"),
        ],
    ),
    "command_router": (
        command_router,
        [
            ("start", "route", "edge", None),
            ("route", "upper", "branch", "Command goto"),
            ("route", "exclaim", "branch", "Command goto"),
            ("upper", "end", "edge", "implicit end"),
            ("exclaim", "end", "edge", "implicit end"),
        ],
    ),
    "declared_destinations": (
        declared_destinations,
        [
            ("start", "route", "edge", None),
            ("route", "upper", "branch", "quiet"),
            ("route", "exclaim", "branch", "loud"),
            ("upper", "end", "edge", "implicit end"),
            ("exclaim", "end", "edge", "implicit end"),
        ],
    ),
    "ask_human": (
        ask_human,
        [("start", "ask", "edge", None), ("ask", "end", "edge", "implicit end")],
    ),
}


def _names(key: str) -> str:
    return {"__start__": "start", "__end__": "end"}.get(key, key)


@pytest.mark.parametrize("case", sorted(TRUTH))
def test_topology_edges_are_the_truth_and_the_ones_langgraph_draws(case: str) -> None:
    build, truth = TRUTH[case]
    topology = langgraph_topology(build())
    assert [(e.source, e.target, e.kind, e.label) for e in topology.edges] == truth
    drawn = {(_names(e.source), _names(e.target)) for e in build().compile().get_graph().edges}
    assert {(source, target) for source, target, _, _ in truth} == drawn


@pytest.mark.parametrize("case", sorted(TRUTH))
def test_lint_passes_a_graph_that_finishes(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["lint", f"tests.langgraph.graphs:{case}"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "cannot be reached" not in out


@pytest.mark.parametrize("case", sorted(TRUTH))
def test_topology_json_is_the_same_bytes_on_every_call(case: str) -> None:
    command = [sys.executable, "-m", "inspector", "topology", f"tests.langgraph.graphs:{case}", "-f", "json"]
    first, second = (subprocess.run(command, capture_output=True, check=True).stdout for _ in range(2))
    assert first == second and b"implicit end" in first


def _debug_tasks(graph: Any, value: Any, config: Any) -> list[tuple[str, ...]]:
    """The nodes of each superstep, as LangGraph's debug stream names its tasks."""
    steps: dict[int, list[str]] = {}
    for event in graph.stream(value, config, stream_mode="debug"):
        if event["type"] == "task":
            steps.setdefault(event["step"], []).append(event["payload"]["name"])
    return [tuple(sorted(steps[k])) for k in sorted(steps)]


@pytest.mark.parametrize(
    ("case", "value"),
    [
        ("sequence", {"text": "hi"}),
        ("command_router", {"text": "hi"}),
        ("command_router", {"text": "HI"}),
        ("declared_destinations", {"text": "hi"}),
    ],
)
def test_recorded_steps_are_the_debug_streams_tasks(case: str, value: Any, tmp_path: Path) -> None:
    build, _ = TRUTH[case]
    expected = _debug_tasks(build().compile(), value, None)
    graph = build().compile(checkpointer=InMemorySaver())
    path = tmp_path / "run.jsonl"
    as_target(graph).invoke(value, callbacks=[Recorder(path)], checkpoint_id="t")
    run = read_run(path)
    assert run.status == "ok"
    assert [tuple(sorted(s.nodes)) for s in run.steps] == expected
    assert run.output == build().compile().invoke(value)


def test_an_interrupted_graph_with_no_way_out_resumes_and_ends(tmp_path: Path) -> None:
    truth = ask_human().compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "truth"}}
    expected = _debug_tasks(truth, {"text": "Ship it?"}, config)
    expected += _debug_tasks(truth, Command(resume="yes"), config)
    graph = ask_human().compile(checkpointer=InMemorySaver())
    path = tmp_path / "run.jsonl"
    target = as_target(graph)
    with contextlib.suppress(Exception):  # the interrupt
        target.invoke({"text": "Ship it?"}, callbacks=[Recorder(path)], checkpoint_id="t")
    assert read_run(path).status == "interrupted"
    target.invoke(None, callbacks=[Recorder(path, resume=True)], checkpoint_id="t", resume_data="yes")
    run = read_run(path)
    assert run.status == "ok"
    assert [s.nodes for s in run.steps] == [("ask",)] == expected[-1:]
    assert run.output == {"text": "yes"}
