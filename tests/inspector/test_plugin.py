"""The pytest plugin, exercised the way a user meets it: a tiny project run by an inner pytest.

The inner pytest runs in-process (fast) and loads the plugin through its `pytest11` entry point, as an
installed project would; syrupy comes the same way.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Imported here so the in-process inner runs reuse them: pytester restores `sys.modules` after each run,
# which would otherwise make every inner run import the engine and the agent fixtures again.
import fixtures.weather  # noqa: F401
import graph_core.agents.react  # noqa: F401
import inspector.recording
import inspector.snapshot.extension  # noqa: F401
from inspector.export import to_json

pytest_plugins = ["pytester"]

GRAPH_PROJECT = """
from graph_core import END, START, Branch, Graph


def ident(x):
    return x


def build():
    g = Graph()
    g.add_lambda_node("plan", ident)
    g.add_lambda_node("act", ident)
    {extra}
    g.add_edge(START, "plan")
    g.add_edge("plan", "act")
    g.add_branch("act", Branch(lambda x: END, {{"plan", END}}))
    return g.compile(max_run_steps={max_steps})


def test_shape(topology_snapshot):
    assert topology_snapshot == build()
"""

AGENT_PROJECT = """
from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from inspector.recording import Recorder, read_run

SCRIPT = {script}


def test_behaviour(trajectory_snapshot, tmp_path):
    agent = ReActAgent(ScriptedChatModel(SCRIPT), tools=[get_weather])
    agent.invoke([Message.user("Weather in Paris?")], callbacks=[Recorder(tmp_path / "run.jsonl")])
    assert trajectory_snapshot == read_run(tmp_path / "run.jsonl")
"""

ONE_TOOL_ROUND = (
    '[Message.assistant("", tool_calls=[ToolCall("c1", "get_weather", \'{"city": "Paris"}\')]), '
    'Message.assistant("Sunny.")]'
)
NO_TOOLS = '[Message.assistant("I cannot check the weather.")]'


def graph_project(pytester: pytest.Pytester, *, extra: str = "", max_steps: int = 10) -> None:
    pytester.makepyfile(test_user=GRAPH_PROJECT.format(extra=extra, max_steps=max_steps))


def topology_file(pytester: pytest.Pytester) -> Path:
    return pytester.path / "__snapshots__" / "test_user" / "test_shape.topology.json"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # Other installed plugins are switched off only to keep the inner runs fast (hypothesis' summary hook
    # alone costs over a second per run); ours and syrupy still load through their entry points.
    return pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark", *args
    )


def test_snapshot_created_then_passing(pytester: pytest.Pytester) -> None:
    graph_project(pytester)
    result = run(pytester, "--snapshot-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*1 snapshot generated*"])
    stored = topology_file(pytester).read_text(encoding="utf-8")
    assert stored.startswith('{\n  "format": "graph-inspector/topology"')
    # The stored file is exactly the canonical JSON of the graph the test built.
    namespace: dict[str, object] = {}
    exec(compile((pytester.path / "test_user.py").read_text(), "test_user.py", "exec"), namespace)
    assert stored == to_json(namespace["build"]())  # type: ignore[operator]

    result = run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*1 snapshot passed*"])


def test_missing_snapshot_fails_without_update(pytester: pytest.Pytester) -> None:
    graph_project(pytester)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*does not exist*"])
    assert not topology_file(pytester).exists()


def test_failing_run_explains_the_change_semantically(pytester: pytest.Pytester) -> None:
    graph_project(pytester)
    run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    graph_project(
        pytester, extra='g.add_lambda_node("review", ident)\n    g.add_edge("plan", "review")', max_steps=25
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*topology changed (3 changes):*",
            "*- budget max_run_steps changed: 10 -> 25*",
            "*- node added: `review` (Lambda)*",
            "*- edge plan -> review added*",
            "*pytest --snapshot-update*",
        ]
    )
    # The semantic message replaces syrupy's line diff (which would show raw JSON lines).
    explanation = result.stdout.str().split("assert [- snapshot] == [+ received]")[1]
    assert '"back_edge"' not in explanation


def test_edge_kind_and_back_edge_changes_are_named(pytester: pytest.Pytester) -> None:
    graph_project(pytester)
    run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    source = (pytester.path / "test_user.py").read_text()
    source = source.replace(
        'g.add_branch("act", Branch(lambda x: END, {"plan", END}))', 'g.add_edge("act", END)'
    )
    (pytester.path / "test_user.py").write_text(source)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*- `act -> end` changed kind: branch -> edge*", "*- branch act -> plan removed*"]
    )


def test_snapshot_update_rewrites_the_file(pytester: pytest.Pytester) -> None:
    graph_project(pytester)
    run(pytester, "--snapshot-update")
    before = topology_file(pytester).read_text()
    graph_project(pytester, max_steps=30)
    result = run(pytester, "--snapshot-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*1 snapshot updated*"])
    after = topology_file(pytester).read_text()
    assert after != before
    assert '"max_run_steps": 30' in after
    run(pytester).assert_outcomes(passed=1)


def test_unused_snapshot_is_reported_and_removed_on_update(pytester: pytest.Pytester) -> None:
    graph_project(pytester)
    source = (pytester.path / "test_user.py").read_text()
    pytester.makepyfile(
        test_user=source
        + "\n\ndef test_second(topology_snapshot):\n    assert topology_snapshot == build()\n"
    )
    run(pytester, "--snapshot-update").assert_outcomes(passed=2)
    second = topology_file(pytester).with_name("test_second.topology.json")
    assert second.exists()

    pytester.makepyfile(test_user=source)  # the second test is gone; its snapshot is now unused
    result = run(pytester)
    result.stdout.fnmatch_lines(["*1 snapshot unused*"])
    assert result.ret == 1

    result = run(pytester, "--snapshot-update")
    result.stdout.fnmatch_lines(["*1 unused snapshot deleted*"])
    assert not second.exists()
    assert topology_file(pytester).exists()


def test_trajectory_snapshot_reports_first_divergence(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_agent=AGENT_PROJECT.format(script=ONE_TOOL_ROUND))
    run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    stored = pytester.path / "__snapshots__" / "test_agent" / "test_behaviour.trajectory.json"
    assert '"nodes": ["tools"]' in stored.read_text()
    run(pytester).assert_outcomes(passed=1)  # a fresh run (new run id, new times) matches byte for byte

    pytester.makepyfile(test_agent=AGENT_PROJECT.format(script=NO_TOOLS))
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*trajectory diverges at step 0: different branch decision: "
            "expected [[]chat -> tools[]], got [[]chat -> end[]]*"
        ]
    )


def test_topology_and_trajectory_in_one_test_use_separate_files(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_both="""
from fixtures.weather import build_agent, QUESTION
from graph_core.schema import Message
from inspector.recording import Recorder, read_run


def test_both(topology_snapshot, trajectory_snapshot, tmp_path):
    agent = build_agent()
    assert topology_snapshot == agent
    agent.invoke([Message.user(QUESTION)], callbacks=[Recorder(tmp_path / "r.jsonl")])
    assert trajectory_snapshot == tmp_path / "r.jsonl"
"""
    )
    run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    names = sorted(p.name for p in (pytester.path / "__snapshots__" / "test_both").iterdir())
    assert names == ["test_both.topology.json", "test_both.trajectory.json"]
    run(pytester).assert_outcomes(passed=1)


def test_project_not_using_the_plugin_is_unaffected(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert 1 + 1 == 2\n")
    result = run(pytester)
    result.assert_outcomes(passed=1)


def test_importing_the_plugin_loads_nothing_heavy() -> None:
    code = (
        "import sys, inspector.pytest_plugin\n"
        "heavy = [m for m in ('syrupy', 'graph_core', 'inspector.snapshot', 'inspector.recording', "
        "'networkx', 'graphviz', 'textual', 'pydantic') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


RECIPE_PROJECT = """
from pathlib import Path

from fixtures.weather import QUESTION, get_weather
from graph_core.agents.react import ReActAgent
from graph_core.schema import Message
from inspector.recording import Recorder
from inspector.snapshot import replay_model_from_run, replay_tools_from_run

RECORDING = Path(__file__).parent / "recordings" / "weather.jsonl"


def test_weather_agent_still_behaves(trajectory_snapshot, tmp_path):
    model = replay_model_from_run(RECORDING)
    agent = ReActAgent(model, tools=replay_tools_from_run(RECORDING, [get_weather]), max_step={max_step})
    replayed = tmp_path / "replayed.jsonl"
    agent.invoke([Message.user(QUESTION)], callbacks=[Recorder(replayed)])
    assert trajectory_snapshot == replayed
    assert model.unused == 0
"""


def test_documented_recipe_record_once_replay_in_ci(pytester: pytest.Pytester) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.recording import Recorder

    recordings = pytester.mkdir("recordings")
    build_agent().invoke([Message.user(QUESTION)], callbacks=[Recorder(recordings / "weather.jsonl")])

    pytester.makepyfile(test_recipe=RECIPE_PROJECT.format(max_step=0))
    run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    run(pytester).assert_outcomes(passed=1)

    pytester.makepyfile(test_recipe=RECIPE_PROJECT.format(max_step=30))  # a behaviour change
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*trajectory differs: max_run_steps: expected 13, got 30*"])
