"""Defects found by a fresh-eyes audit of snapshots, replays and run diffs, one test (or a few) each."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.weather import QUESTION, build_agent
from graph_core.schema import Message
from inspector.recording import Recorder
from inspector.snapshot import replay_tools_from_run


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "recorded.jsonl"
    build_agent().invoke([Message.user(QUESTION)], callbacks=[Recorder(path)])
    return path


def test_replay_tools_for_an_agent_that_now_has_no_tools_are_none(recorded: Path) -> None:
    # The agent's tool list became empty: passing it must not bring the recorded tools back, or the
    # replay would hide exactly the change it exists to catch.
    assert replay_tools_from_run(recorded, []) == []
    assert replay_tools_from_run(recorded, ()) == []
    assert [t.info.name for t in replay_tools_from_run(recorded)] == ["get_weather"]
    assert [t.info.name for t in replay_tools_from_run(recorded, None)] == ["get_weather"]


pytest_plugins = ["pytester"]

REORDER_PROJECT = """
from graph_core import END, START, Graph

def ident(x):
    return x

def build():
    g = Graph()
    for key in {order}:
        g.add_lambda_node(key, ident)
    for source, target in {edges}:
        g.add_edge(source, target)
    return g.compile()

def test_shape(topology_snapshot):
    assert topology_snapshot == build()
"""


def _inner(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark", *args
    )


def test_topology_snapshot_names_an_order_only_change(pytester: pytest.Pytester) -> None:
    edges = [("start", "a"), ("start", "b"), ("a", "end"), ("b", "end")]
    pytester.makepyfile(test_user=REORDER_PROJECT.format(order=["a", "b"], edges=edges))
    _inner(pytester, "--snapshot-update").assert_outcomes(passed=1)
    reordered = [edges[1], edges[0], edges[3], edges[2]]
    pytester.makepyfile(test_user=REORDER_PROJECT.format(order=["b", "a"], edges=reordered))
    result = _inner(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*topology changed only in order (no node or edge was added, removed or changed):*",
            "*- node order: start, a, b, end -> start, b, a, end*",
            "*- edge order: start -> a, start -> b, a -> end, b -> end "
            "-> start -> b, start -> a, b -> end, a -> end*",
            "*pytest --snapshot-update*",
        ]
    )
