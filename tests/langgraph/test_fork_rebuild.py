"""Forks of LangGraph recordings rebuild the run in LangGraph's own checkpoints: every step of real
graphs (a loop, a subgraph, a `Send` fan-out with a join, `Command(goto=...)` with declared
destinations) forks back to the recorded run, edits go past reducers, a fork of an edited fork replays
the edit, and a target that no longer computes what was recorded is refused naming the difference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.debug.fork import plan_fork, run_fork
from inspector.errors import DebugError
from inspector.recording import Recorder, read_run
from inspector.rundiff import diff_runs
from inspector.target import load_target

CASES: dict[str, Any] = {
    "tests.langgraph.graphs:loop": {"n": 0, "log": []},
    "tests.langgraph.graphs:nested": {"n": 1, "log": []},
    "tests.langgraph.graphs:fan_out": {"topics": ["a", "b", "c"], "results": [], "summary": ""},
    "tests.langgraph.graphs:command_router": {"text": "hi"},
    "tests.langgraph.graphs:declared_destinations": {"text": "hi"},
}


def _record(spec: str, graph_input: Any, path: Path) -> Path:
    target = load_target(spec)
    target.compiled.invoke(
        graph_input, callbacks=[Recorder(path, topology=target.topology(), meta={"target": spec})]
    )
    return path


@pytest.mark.parametrize("spec", sorted(CASES))
def test_every_step_forks_back_to_the_recorded_run(tmp_path: Path, spec: str) -> None:
    parent = _record(spec, CASES[spec], tmp_path / "parent.jsonl")
    steps = len(read_run(parent).steps)
    for step in range(steps):
        fork = tmp_path / f"fork-{step}.jsonl"
        result = run_fork(plan_fork(parent, step, target=spec), fork)
        assert (result.status, result.steps, result.edits) == ("ok", steps, [])
        diff = diff_runs(parent, fork)
        assert diff.first_divergence is None, (step, diff.first_divergence)
        assert read_run(fork).output == read_run(parent).output


def test_an_edit_before_the_join_reaches_it(tmp_path: Path) -> None:
    """Fan-out: three `worker` tasks (`Send`), then `review` and `audit`, then `report` waits for both.
    An edit before step 2 is made as the three workers, so both branches still run and join."""
    spec = "tests.langgraph.graphs:fan_out"
    parent = _record(spec, CASES[spec], tmp_path / "parent.jsonl")
    fork = tmp_path / "fork.jsonl"
    plan = plan_fork(parent, 2, target=spec, sets=[("state.results", ["only this"])])
    result = run_fork(plan, fork)
    run = read_run(fork)
    assert result.status == "ok" and [sorted(s.nodes) for s in run.steps] == [
        ["plan"],
        ["worker"],
        ["audit", "review"],
        ["report"],
    ]
    assert run.output["summary"] == "audited; only this; reviewed"
    assert [(e.step, e.path, e.old, e.new) for e in result.edits] == [
        (2, "state.results", ["notes on a", "notes on b", "notes on c"], ["only this"])
    ]


def test_a_fork_of_an_edited_fork_replays_the_edit(tmp_path: Path) -> None:
    spec = "tests.langgraph.graphs:loop"
    parent = _record(spec, CASES[spec], tmp_path / "parent.jsonl")  # work x3, finish
    first = tmp_path / "first.jsonl"
    run_fork(plan_fork(parent, 1, target=spec, sets=[("state.log", ["edited"])]), first)
    assert read_run(first).output == {"n": 3, "log": ["edited", "work 2", "work 3", "finish"]}
    second = tmp_path / "second.jsonl"
    result = run_fork(plan_fork(first, 3, target=spec), second)
    assert (result.replayed_edits, [e.path for e in result.edits]) == (1, ["state.log"])
    assert diff_runs(first, second).first_divergence is None
    assert read_run(second).output == read_run(first).output


def test_a_branch_that_now_decides_otherwise_is_refused(tmp_path: Path) -> None:
    """Recorded with `loop(limit=3)`; the target named now is `loop(limit=5)`: same topology, but after
    step 2 its branch would go on working where the recording finished."""
    spec = "tests.langgraph.graphs:loop"
    parent = _record(spec, CASES[spec], tmp_path / "parent.jsonl")
    module = tmp_path / "longer_loop.py"
    module.write_text("from tests.langgraph.graphs import loop\n\ngraph = loop(limit=5).compile()\n")
    with pytest.raises(DebugError) as caught:
        plan = plan_fork(parent, 3, target=f"{module}:graph")
        run_fork(plan, tmp_path / "fork.jsonl")
    assert (
        "the target does not replay the recording: before step 3 it would run [work], the recording ran "
        "[finish]"
    ) in str(caught.value)
    assert not (tmp_path / "fork.jsonl").exists()


COUNTER = """
import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class Counter(TypedDict):
    n: int
    log: Annotated[list[str], REDUCER]


def work(state: Counter) -> dict:
    return {"n": state["n"] + 1, "log": [f"work {state['n'] + 1}"]}


def finish(state: Counter) -> dict:
    return {"log": ["finish"]}


builder = StateGraph(Counter)
builder.add_node("work", work)
builder.add_node("finish", finish)
builder.add_edge(START, "work")
builder.add_conditional_edges(
    "work", lambda s: "again" if s["n"] < 3 else "done", {"again": "work", "done": "finish"}
)
builder.add_edge("finish", END)
graph = builder.compile()
"""


def test_a_reducer_that_now_computes_otherwise_is_refused(tmp_path: Path) -> None:
    """Recorded with a `log` that adds up; the target named now keeps only the last write: the same
    topology, but the state rebuilt after step 1 is not the recorded one."""
    (tmp_path / "adds.py").write_text(COUNTER.replace("REDUCER", "operator.add"))
    (tmp_path / "keeps_last.py").write_text(COUNTER.replace("REDUCER", "lambda old, new: new"))
    parent = _record(f"{tmp_path / 'adds.py'}:graph", {"n": 0, "log": []}, tmp_path / "parent.jsonl")
    with pytest.raises(DebugError) as caught:
        run_fork(plan_fork(parent, 2, target=f"{tmp_path / 'keeps_last.py'}:graph"), tmp_path / "fork.jsonl")
    assert (
        "the rebuilt run does not match the recording after step 1: state.log has 1 items in the rebuilt "
        "run, 2 in the recording"
    ) in str(caught.value)
    assert not (tmp_path / "fork.jsonl").exists()


def test_the_users_checkpointer_is_left_alone(tmp_path: Path) -> None:
    """A graph compiled with its own checkpointer keeps it; the fork writes to a copy's memory only."""
    module = tmp_path / "saved_loop.py"
    module.write_text(
        "from langgraph.checkpoint.memory import InMemorySaver\n"
        "from tests.langgraph.graphs import loop\n\n"
        "graph = loop().compile(checkpointer=InMemorySaver())\n"
    )
    spec = f"{module}:graph"
    parent = _record(spec, {"n": 0, "log": []}, tmp_path / "parent.jsonl")
    plan = plan_fork(parent, 2, target=spec, sets=[("state.n", 7)])
    graph = plan.target.compiled.graph
    saver = graph.checkpointer
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "the user's own"}})
    before = [c.config for c in saver.list(None)]
    assert run_fork(plan, tmp_path / "fork.jsonl").status == "ok"
    assert [c.config for c in saver.list(None)] == before and graph.checkpointer is saver


def test_an_edit_after_a_command_goes_where_the_command_went(tmp_path: Path) -> None:
    """`route` returned `Command(goto="upper")`: an edit before step 1 is made as `route`, going to
    `upper` again (its edges cannot say so: a `Command`'s destination is chosen in the node)."""
    spec = "tests.langgraph.graphs:command_router"
    parent = _record(spec, CASES[spec], tmp_path / "parent.jsonl")
    fork = tmp_path / "fork.jsonl"
    result = run_fork(plan_fork(parent, 1, target=spec, sets=[("state.text", "yo")]), fork)
    assert result.status == "ok" and [list(s.nodes) for s in read_run(fork).steps] == [["route"], ["upper"]]
    assert read_run(fork).output == {"text": "YO"}


NOTES = """
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class Notes(TypedDict, total=False):
    text: str
    note: str


def draft(state: Notes) -> dict:
    return {"text": state["text"] + "."}


def sign(state: Notes) -> dict:
    return {"text": state["text"] + " (" + state.get("note", "unsigned") + ")"}


builder = StateGraph(Notes)
builder.add_node("draft", draft)
builder.add_node("sign", sign)
builder.add_edge(START, "draft")
builder.add_edge("draft", "sign")
builder.add_edge("sign", END)
graph = builder.compile()
"""


def test_a_declared_key_the_run_never_set_is_set_with_its_type_checked(tmp_path: Path) -> None:
    (tmp_path / "notes.py").write_text(NOTES)
    spec = f"{tmp_path / 'notes.py'}:graph"
    parent = _record(spec, {"text": "hi"}, tmp_path / "parent.jsonl")
    assert read_run(parent).output == {"text": "hi. (unsigned)"}
    fork = tmp_path / "fork.jsonl"
    result = run_fork(plan_fork(parent, 1, target=spec, sets=[("state.note", "Ann")]), fork)
    assert read_run(fork).output == {"text": "hi. (Ann)", "note": "Ann"}
    assert [(e.step, e.path, e.old, e.new) for e in result.edits] == [(1, "state.note", None, "Ann")]
    with pytest.raises(
        DebugError, match=r"`state.note` is declared as str: \(value\): Input should be a valid string"
    ):
        run_fork(plan_fork(parent, 1, target=spec, sets=[("state.note", 5)]), tmp_path / "bad.jsonl")
    with pytest.raises(
        DebugError, match=r"`state.note` has no value yet in this run, so nothing under it exists"
    ):
        run_fork(plan_fork(parent, 1, target=spec, sets=[("state.note.x", 5)]), tmp_path / "bad.jsonl")
    assert not (tmp_path / "bad.jsonl").exists()
