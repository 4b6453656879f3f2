"""The pytest snapshot fixtures take LangGraph graphs and runs, as a user's project would use them."""

from __future__ import annotations

import pytest

# imported here so the in-process inner runs reuse them (pytester restores `sys.modules` after each)
import fixtures.langgraph_react  # noqa: F401
import inspector.adapters.langgraph
import inspector.snapshot.extension  # noqa: F401

pytest_plugins = ["pytester"]

PROJECT = """
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

from fixtures.langgraph_react import ScriptedToolModel, get_weather, react_agent
from inspector.adapters.langgraph import as_target
from inspector.recording import Recorder, read_run
from langchain_core.messages import AIMessage


class S(TypedDict):
    n: int


def build():
    g = StateGraph(S)
    g.add_node("plan", lambda s: {{"n": s["n"] + 1}})
    g.add_node("act", lambda s: {{"n": s["n"] + 1}})
    {extra}
    g.add_edge(START, "plan")
    g.add_edge("plan", "act")
    g.add_conditional_edges(
        "act", lambda s: "done" if s["n"] > 3 else "again", {{"again": "plan", "done": END}}
    )
    return g.compile()


def test_shape(topology_snapshot):
    assert topology_snapshot == build()


def test_behaviour(trajectory_snapshot, tmp_path):
    calls = [{{"id": "c1", "name": "get_weather", "args": {{"city": "Paris"}}}}]
    script = [AIMessage("", tool_calls=calls), AIMessage("Sunny.")][{answers}]
    agent = react_agent(ScriptedToolModel(responses=script), [get_weather])
    question = {{"messages": [{{"role": "user", "content": "Weather in Paris?"}}]}}
    as_target(agent).invoke(question, callbacks=[Recorder(tmp_path / "run.jsonl")])
    assert trajectory_snapshot == read_run(tmp_path / "run.jsonl")
"""


def _project(pytester: pytest.Pytester, *, extra: str = "", answers: str = ":") -> None:
    pytester.makepyfile(test_user=PROJECT.format(extra=extra, answers=answers))


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark")
    return pytester.runpytest(*quiet, *args)


def test_snapshots_of_a_langgraph_graph_and_run_pass_then_explain_changes(pytester: pytest.Pytester) -> None:
    _project(pytester)
    _run(pytester, "--snapshot-update").assert_outcomes(passed=2)
    snapshots = pytester.path / "__snapshots__" / "test_user"
    stored = (snapshots / "test_shape.topology.json").read_text()
    assert '"label": "again"' in stored and '"back_edge": true' in stored
    trajectory = (snapshots / "test_behaviour.trajectory.json").read_text()
    assert "agent" in trajectory and "tools" in trajectory
    _run(pytester).assert_outcomes(passed=2)

    review = 'g.add_node("review", lambda s: {})\n    g.add_edge("plan", "review")'
    _project(pytester, extra=review, answers="1:")
    result = _run(pytester)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*- node added: `review` (Lambda)*", "*- edge plan -> review added*"])
