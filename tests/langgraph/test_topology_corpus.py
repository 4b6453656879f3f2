"""The corpus of graphs from LangGraph's own tests and READMEs (`tests/langgraph/corpus/`), each held to
what LangGraph itself says: the topology's edges are `get_graph()`'s where that is exact (the hand-written
truth where it drops or invents edges), `inspector topology FILE.py:NAME -f json` gives the same bytes
in two processes, the recorded supersteps run the tasks of `stream(stream_mode="debug")`, the recorded
output is what `invoke()` returns, and `inspector lint` passes every graph that can finish."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command

from graph_core.errors import InterruptError
from inspector.adapters.langgraph import as_target, langgraph_topology
from inspector.cli import main
from inspector.recording import Recorder, Run, read_run
from tests.langgraph.corpus import CORPUS, Case

_CASES = [pytest.param(case, id=case.name) for case in CORPUS]
_LG_NAMES = {"__start__": "start", "__end__": "end"}
_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def test_the_corpus_holds_at_least_twenty_graphs_each_with_its_source() -> None:
    assert len(CORPUS) >= 20
    assert len({case.name for case in CORPUS}) == len(CORPUS)
    for case in CORPUS:
        source = Path(case.path.split(":")[0]).read_text(encoding="utf-8")
        above = source.split(f"\ndef {case.name}(")[0].splitlines()
        comment: list[str] = []
        while above and above[-1].startswith("#"):
            comment.insert(0, above.pop())
        assert comment and comment[0].startswith("# libs/"), (
            f"{case.name}: no source path in the comment above it"
        )


def _edges_drawn_by_langgraph(graph: Any) -> frozenset[tuple[str, str]]:
    return frozenset(
        (_LG_NAMES.get(str(e.source), str(e.source)), _LG_NAMES.get(str(e.target), str(e.target)))
        for e in graph.get_graph().edges
    )


def _nested_edges(topology: Any, prefix: str = "") -> set[tuple[str, str]]:
    """Every edge, nested graphs' as `graph/node` keys."""
    edges = {(f"{prefix}{e.source}", f"{prefix}{e.target}") for e in topology.edges}
    for node in topology.nodes:
        if node.graph is not None:
            edges |= _nested_edges(node.graph, f"{prefix}{node.key}/")
    return edges


@pytest.mark.parametrize("case", _CASES)
def test_topology_is_the_truth(case: Case) -> None:
    graph = case.build()
    topology = langgraph_topology(graph)
    truth = case.truth if case.truth is not None else _edges_drawn_by_langgraph(graph)
    assert {(e.source, e.target) for e in topology.edges} == truth
    # a compiled subgraph used as a node is nested, and its own edges are get_graph()'s of it
    for node in topology.nodes:
        if node.graph is not None:
            inner = graph.builder.nodes[node.key].runnable
            assert {(e.source, e.target) for e in node.graph.edges} == _edges_drawn_by_langgraph(inner)


def test_topology_json_is_the_same_bytes_in_two_processes() -> None:
    """`inspector topology tests/langgraph/corpus/M.py:NAME -f json` for every graph, in two processes
    (each loads the files afresh, with its own hash seed)."""
    script = (
        "import sys\n"
        "from inspector.cli import main\n"
        "from tests.langgraph.corpus import CORPUS\n"
        "for case in CORPUS:\n"
        "    print('=== ' + case.name, flush=True)\n"
        "    assert main(['topology', case.path, '-f', 'json']) == 0\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, check=True).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    documents = runs[0].decode().split("=== ")[1:]
    assert len(documents) == len(CORPUS)
    for text in documents:
        name, document = text.split("\n", 1)
        assert json.loads(document)["topology"]["nodes"], name
        assert "_inspector_target" not in document, name


def _segments(case: Case) -> list[Any]:
    """What each run of the case is started with: its input, then each resume."""
    return [case.input, *(Command(resume=value) for value in case.resumes)]


def _debug_steps(case: Case) -> list[tuple[str, ...]]:
    """The tasks of each superstep that finished, as LangGraph's debug stream names them (a step whose
    task stopped at `interrupt()` runs again on resume, so it is not one)."""
    graph = case.build()
    config: Any = {"configurable": {"thread_id": "truth"}}
    steps: list[tuple[str, ...]] = []
    for value in _segments(case):
        tasks: dict[int, list[str]] = {}
        interrupted: set[int] = set()
        for event in graph.stream(value, config, stream_mode="debug"):
            if event["type"] == "task":
                tasks.setdefault(event["step"], []).append(event["payload"]["name"])
            elif event["type"] == "task_result" and event["payload"].get("interrupts"):
                interrupted.add(event["step"])
        steps += [tuple(sorted(tasks[k])) for k in sorted(tasks) if k not in interrupted]
    return steps


def _record(case: Case, path: Path) -> Run:
    """Record the case's runs into one run file, each resume a segment of it."""
    target = as_target(case.build())
    for index, value in enumerate(_segments(case)):
        recorder = Recorder(path, resume=index > 0)
        resume = value.resume if isinstance(value, Command) else None
        with contextlib.suppress(InterruptError):
            target.invoke(
                None if resume is not None else value,
                callbacks=[recorder],
                checkpoint_id="t",
                resume_data=resume,
            )
    return read_run(path)


def _tasks(run: Run) -> list[tuple[str, ...]]:
    """Each recorded step's top-level node runs (a `Send` fan-out runs one node several times)."""
    return [tuple(sorted(r.node for r in step.node_runs if len(r.path) <= 1)) for step in run.steps]


@pytest.mark.parametrize("case", _CASES)
def test_recorded_supersteps_are_the_debug_streams_tasks(case: Case, tmp_path: Path) -> None:
    run = _record(case, tmp_path / "run.jsonl")
    assert _tasks(run) == _debug_steps(case)
    assert run.status == ("ok" if case.finishes else "interrupted")


def _plain(value: Any) -> Any:
    """A LangGraph value as a recording shows it: messages as (role, content, tool call names)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    if hasattr(value, "type") and hasattr(value, "content"):
        return (_ROLES[value.type], value.content, [c["name"] for c in getattr(value, "tool_calls", [])])
    return value


def _recorded(value: Any) -> Any:
    """A recorded value in the same terms (a message is a dict with `role`)."""
    if isinstance(value, dict) and "role" in value:
        names = [c["name"] for c in value.get("tool_calls", [])]  # pyright: ignore[reportUnknownVariableType]
        return (value["role"], value.get("content", ""), names)
    if isinstance(value, dict):
        return {k: _recorded(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_recorded(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


@pytest.mark.parametrize("case", _CASES)
def test_recorded_output_is_what_invoke_returns(case: Case, tmp_path: Path) -> None:
    run = _record(case, tmp_path / "run.jsonl")
    graph = case.build()
    config: Any = {"configurable": {"thread_id": "truth"}}
    returned: Any = None
    for value in _segments(case):
        returned = graph.invoke(value, config)
    if case.finishes:
        assert _recorded(run.output) == _plain(returned)
    else:  # stopped at an interrupt: the state it waits in
        assert _recorded(run.steps[-1].state) == _plain(graph.get_state(config).values)


@pytest.mark.parametrize("case", _CASES)
def test_lint_passes_every_graph_that_can_finish(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["lint", case.target])
    out = capsys.readouterr().out
    if case.finishes:
        assert status == 0, out
    else:
        assert status == 1 and "no run can finish" in out, out
