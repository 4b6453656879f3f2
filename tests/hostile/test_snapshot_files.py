"""Snapshot files that are not what the plugin wrote: the failure says what is wrong and how to fix it.

A snapshot file that is not UTF-8, nests 5,000 levels deep, or is a directory used to fail the test
with a raw `UnicodeDecodeError`, `RecursionError` or `IsADirectoryError`. Run the way a user meets it:
a tiny project run by an inner pytest (as in tests/inspector/test_plugin.py), its stored snapshot
damaged in between.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# Imported here so the in-process inner runs reuse them (pytester restores `sys.modules` after a run).
import fixtures.weather  # noqa: F401
import graph_core.agents.react  # noqa: F401
import inspector.recording
import inspector.snapshot.extension  # noqa: F401

pytest_plugins = ["pytester"]

PROJECT = """
from fixtures.weather import get_weather
from graph_core import END, START, Graph
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message
from inspector.recording import Recorder, read_run


def build():
    g = Graph()
    g.add_lambda_node("plan", lambda x: x)
    g.add_edge(START, "plan")
    g.add_edge("plan", END)
    return g.compile()


def test_shape(topology_snapshot):
    assert topology_snapshot == build()


def test_behaviour(trajectory_snapshot, tmp_path):
    agent = ReActAgent(ScriptedChatModel([Message.assistant("Sunny.")]), tools=[get_weather])
    agent.invoke([Message.user("Weather in Paris?")], callbacks=[Recorder(tmp_path / "run.jsonl")])
    assert trajectory_snapshot == read_run(tmp_path / "run.jsonl")
"""

RAW_ERRORS = ("UnicodeDecodeError", "RecursionError", "IsADirectoryError", "Traceback")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark", *args
    )


def _stored(pytester: pytest.Pytester, test: str) -> Path:
    pytester.makepyfile(test_user=PROJECT)
    _run(pytester, "--snapshot-update").assert_outcomes(passed=2)
    kind = "topology" if test == "test_shape" else "trajectory"
    return pytester.path / "__snapshots__" / "test_user" / f"{test}.{kind}.json"


def _failure(pytester: pytest.Pytester) -> str:
    result = _run(pytester)
    result.assert_outcomes(failed=1, passed=1)
    out = result.stdout.str()
    for raw in RAW_ERRORS:
        assert raw not in out, raw
    return out


@pytest.mark.parametrize("test", ["test_shape", "test_behaviour"])
def test_a_snapshot_that_is_not_utf8_is_named_and_rewritten_on_update(
    pytester: pytest.Pytester, test: str
) -> None:
    stored = _stored(pytester, test)
    stored.write_bytes(b"\xff\xfe{" + stored.read_bytes()[1:])
    out = _failure(pytester)
    assert f"the snapshot file {stored} is not UTF-8 text (byte 0xff at offset 0)" in out
    assert "pytest --snapshot-update" in out
    _run(pytester, "--snapshot-update").assert_outcomes(passed=2)
    _run(pytester).assert_outcomes(passed=2)


@pytest.mark.parametrize("test", ["test_shape", "test_behaviour"])
def test_a_snapshot_5000_deep_is_named_and_rewritten_on_update(pytester: pytest.Pytester, test: str) -> None:
    stored = _stored(pytester, test)
    stored.write_text('{"a":' * 5000 + "1" + "}" * 5000, encoding="utf-8")
    out = _failure(pytester)
    assert f"the snapshot file {stored} nests arrays and objects more than 200 levels deep" in out
    assert "pytest --snapshot-update" in out
    _run(pytester, "--snapshot-update").assert_outcomes(passed=2)
    _run(pytester).assert_outcomes(passed=2)


def test_a_directory_in_place_of_a_snapshot_says_to_remove_it(pytester: pytest.Pytester) -> None:
    stored = _stored(pytester, "test_shape")
    stored.unlink()
    stored.mkdir()
    out = _failure(pytester)
    assert f"the snapshot file {stored} is a directory, not a snapshot file" in out
    assert "remove that directory, then run `pytest --snapshot-update`" in out
    updated = _run(pytester, "--snapshot-update")
    updated.assert_outcomes(failed=1, passed=1)  # a directory is never replaced: the person removes it
    assert "a directory stands in its place; remove it" in updated.stdout.str()
    assert stored.is_dir()
