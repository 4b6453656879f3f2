"""Defects found by a fresh-eyes audit of snapshots, replays and run diffs, one test (or a few) each."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.approval import build as build_approval
from fixtures.weather import QUESTION, build_agent
from graph_core import END, START, Graph
from graph_core.agents.react import ReActAgent
from graph_core.checkpoint import InMemoryCheckpointStore
from graph_core.errors import InterruptError, NodeRunError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.cli import main
from inspector.recording import Recorder
from inspector.rundiff import diff_runs
from inspector.snapshot import first_divergence, replay_model_from_run, replay_tools_from_run, to_text
from inspector.snapshot.replay import ToolReplayError


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


def _approval_run(path: Path, answer: str | None) -> Path:
    """The approval flow interrupted, then (unless `answer` is None) resumed into the same file."""
    graph = build_approval(InMemoryCheckpointStore())
    with pytest.raises(InterruptError):
        graph.invoke("Tell the team", checkpoint_id="t", callbacks=[Recorder(path, checkpoint_id="t")])
    if answer is not None:
        recorder = Recorder(path, resume=True, checkpoint_id="t")
        graph.invoke(None, checkpoint_id="t", resume_data=answer, callbacks=[recorder])
    return path


def test_run_diff_of_resumed_runs_names_steps_as_show_does(tmp_path: Path) -> None:
    # Step indices restart in each segment (`inspector show` prints the resumed part as step 0, 1);
    # the diff said "step 2", a step no other view of the run has.
    yes = _approval_run(tmp_path / "yes.jsonl", "yes")
    no = _approval_run(tmp_path / "no.jsonl", "no")
    diff = diff_runs(yes, no)
    assert diff.divergence_text() == (
        "segment 1 step 0: different branch decision: A [approve -> send], B [approve -> discard]"
    )
    text = diff.to_text()
    assert "\nsegment 1 step 0:\n  branches:" in text
    assert "\nsegment 1 step 1:\n  nodes: A [send], B [discard]" in text
    assert "\nstep 2:" not in text
    first = diff.to_dict()["first_divergence"]
    assert first == {"step": 2, "segment": 1, "segment_index": 0, "description": diff.divergence_text()}
    assert [(s["segment"], s["segment_index"]) for s in diff.to_dict()["step_differences"]] == [
        (1, 0),
        (1, 1),
    ]

    interrupted = _approval_run(tmp_path / "int.jsonl", None)
    assert diff_runs(yes, interrupted).divergence_text() == (
        "segment 1 step 0: run B ended (interrupted) while run A went on (4 steps)"
    )


def test_run_diff_of_a_resumed_run_and_a_straight_run_names_both_places(tmp_path: Path) -> None:
    from fixtures.weather import build_agent as weather

    straight = tmp_path / "straight.jsonl"
    weather().invoke([Message.user(QUESTION)], callbacks=[Recorder(straight)])
    resumed = _approval_run(tmp_path / "yes.jsonl", "yes")
    diff = diff_runs(straight, resumed)
    text = diff.to_text()
    assert "\nsegment 0 step 0:\n" in text  # the same place in both runs
    assert "\nstep 2 (A segment 0 step 2, B segment 1 step 0):\n" in text
    assert (diff.divergence_text() or "").startswith("segment 0 step 0: ")


@pytest.mark.parametrize("subject", [build_agent(), 42, None, b"run.jsonl"])
def test_trajectory_of_something_that_is_not_a_run_says_what_it_expects(subject: object) -> None:
    # An agent handed to the trajectory fixture (meant for topology_snapshot) read as
    # "expected str, bytes or os.PathLike object, not ReActAgent", from deep inside pathlib.
    with pytest.raises(TypeError, match=r"a trajectory is taken from a `Run` or a run-file path, got"):
        to_text(subject)  # pyright: ignore[reportArgumentType]


def test_trajectory_of_a_dict_that_is_not_a_trajectory_is_refused() -> None:
    with pytest.raises(ValueError, match="not a trajectory document"):
        to_text({"steps": []})


@tool
def flaky(city: str) -> str:
    """A tool whose service was down when the run was recorded."""
    raise ValueError(f"service down for {city}")


def test_a_recorded_tool_failure_replays_as_the_same_failure(tmp_path: Path) -> None:
    # The replay raised ToolReplayError("tool `flaky` failed in the recording: ValueError: ..."), so the
    # trajectory of a faithful replay read `tools/flaky: ToolReplayError` where the recording has
    # `tools/flaky: ValueError`: the documented recipe failed on a run that behaved exactly the same.
    script = [
        Message.assistant("", tool_calls=[ToolCall("c1", "flaky", '{"city": "Paris"}')]),
        Message.assistant("unused"),
    ]
    recorded = tmp_path / "recorded.jsonl"
    with pytest.raises(NodeRunError):
        ReActAgent(ScriptedChatModel(script), tools=[flaky]).invoke(
            [Message.user("q")], callbacks=[Recorder(recorded)]
        )
    (replay_tool,) = replay_tools_from_run(recorded, [flaky])
    with pytest.raises(ToolReplayError) as caught:
        replay_tool.invoke('{"city": "Paris"}')
    assert type(caught.value).__name__ == "ValueError"
    assert str(caught.value) == "service down for Paris"

    replayed = tmp_path / "replayed.jsonl"
    with pytest.raises(NodeRunError):
        ReActAgent(replay_model_from_run(recorded), tools=replay_tools_from_run(recorded, [flaky])).invoke(
            [Message.user("q")], callbacks=[Recorder(replayed)]
        )
    assert first_divergence(recorded, replayed) is None
    assert to_text(replayed) == to_text(recorded)
    assert diff_runs(recorded, replayed).equivalent


def _failing_tool_run(path: Path, error: Exception) -> Path:
    @tool(name="flaky")
    def failing(city: str) -> str:
        """Fails with `error`."""
        raise error

    script = [
        Message.assistant("", tool_calls=[ToolCall("c1", "flaky", '{"city": "Paris"}')]),
        Message.assistant("unused"),
    ]
    with pytest.raises(NodeRunError):
        ReActAgent(ScriptedChatModel(script), tools=[failing]).invoke(
            [Message.user("q")], callbacks=[Recorder(path)]
        )
    return path


def test_run_diff_sees_a_tool_failing_differently(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Both runs end in NodeRunError at `tools`; only the tool's own error differs. The diff said
    # "equivalent" (exit 0) although the trajectories differ.
    a = _failing_tool_run(tmp_path / "a.jsonl", ValueError("down"))
    b = _failing_tool_run(tmp_path / "b.jsonl", KeyError("city"))
    diff = diff_runs(a, b)
    assert not diff.equivalent
    assert diff.divergence_text() == (
        "step 1: different failures: A [tools/flaky: ValueError; tools: ToolCallError], "
        "B [tools/flaky: KeyError; tools: ToolCallError]"
    )
    assert diff.to_dict()["step_differences"][0]["failures"] == {
        "a": ["tools/flaky: ValueError", "tools: ToolCallError"],
        "b": ["tools/flaky: KeyError", "tools: ToolCallError"],
    }
    assert main(["diff", str(a), str(b)]) == 1
    assert "  failures: A [tools/flaky: ValueError; tools: ToolCallError]" in capsys.readouterr().out
    assert diff_runs(a, _failing_tool_run(tmp_path / "c.jsonl", ValueError("other text"))).equivalent


def _failing_node_run(path: Path, error: Exception) -> Path:
    def fail(x: object) -> object:
        raise error

    graph = Graph()
    graph.add_lambda_node("first", lambda x: x)
    graph.add_lambda_node("boom", fail)
    graph.add_edge(START, "first")
    graph.add_edge("first", "boom")
    graph.add_edge("boom", END)
    with pytest.raises(NodeRunError):
        graph.compile().invoke(1, callbacks=[Recorder(path)])
    return path


def test_run_diff_compares_the_step_the_runs_died_in(tmp_path: Path) -> None:
    # A node that fails kills its step before it finishes; that step was not compared at all.
    a = _failing_node_run(tmp_path / "a.jsonl", ValueError("x"))
    b = _failing_node_run(tmp_path / "b.jsonl", KeyError("x"))
    diff = diff_runs(a, b)
    assert not diff.equivalent
    assert diff.divergence_text() == "step 1: different failures: A [boom: ValueError], B [boom: KeyError]"
    assert diff_runs(a, _failing_node_run(tmp_path / "c.jsonl", ValueError("y"))).equivalent
