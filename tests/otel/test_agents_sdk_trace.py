"""A real foreign trace: an OpenAI Agents SDK run (a handoff, then a function tool) on the loopback
OpenAI-compatible server, traced by `openinference-instrumentation-openai-agents`, exported by the
OpenTelemetry SDK (`tests/otel/foreign.py`), opened as an observed run by `show`, `diff` and
`topology`: the agents are the nodes, each turn a step, the handoff a branch decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main
from inspector.sources import open_run
from tests.otel.foreign import AGENT_USAGE, agents_sdk_trace


@pytest.fixture(scope="module")
def agents_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return agents_sdk_trace(tmp_path_factory.mktemp("trace") / "agents.json")


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))


def test_agents_are_nodes_turns_are_steps_and_a_handoff_is_a_branch(agents_trace: Path) -> None:
    run = open_run(agents_trace)
    assert run.graph_name == "Agent workflow (observed)"
    assert run.header.meta["observed"] is True
    assert [s.nodes for s in run.steps] == [("Triage",), ("Weather agent",), ("Weather agent",)]
    assert [(b.source, list(b.chosen)) for b in run.steps[0].branches] == [("Triage", ["Weather agent"])]
    budget = run.steps[-1].budget
    assert (budget.model_calls, budget.tool_calls) == (3, 1)
    assert budget.prompt_tokens == sum(p for p, _ in AGENT_USAGE)
    assert budget.completion_tokens == sum(c for _, c in AGENT_USAGE)
    tools = run.steps[1].node_runs[0].tools
    assert [(t.name, t.input, t.output) for t in tools] == [
        ("get_weather", {"city": "Hangzhou"}, "Sunny, 25 C in Hangzhou")
    ]
    assert not run.steps[0].node_runs[0].tools  # a handoff is no tool call
    assert run.topology is not None
    assert {(e.source, e.target) for e in run.topology.edges} == {
        ("start", "Triage"),
        ("Triage", "Weather agent"),
        ("Weather agent", "Weather agent"),
        ("Weather agent", "end"),
    }
    assert run.status == "ok"


def test_show_diff_and_topology_open_it(agents_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(agents_trace)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Agent workflow (observed)")
    assert "step 1  Weather agent" in out and "tool get_weather" in out
    assert "branch Triage -> Weather agent" in out
    assert main(["diff", str(agents_trace), str(agents_trace)]) == 0
    assert "result: equivalent" in capsys.readouterr().out
    assert main(["topology", str(agents_trace)]) == 0
    assert "Weather agent" in capsys.readouterr().out
