"""A real foreign trace: the LangGraph ReAct fixture run under `openinference-instrumentation-langchain`,
exported by the OpenTelemetry SDK (`tests/otel/foreign.py`), opened as an observed run by `show`,
`diff` and `topology`."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main
from inspector.sources import open_run
from tests.otel.foreign import langgraph_trace


@pytest.fixture(scope="module", name="langgraph_trace")
def _langgraph_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return langgraph_trace(tmp_path_factory.mktemp("trace") / "langgraph.json")


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))


def test_langgraph_steps_and_nodes_come_from_its_metadata(langgraph_trace: Path) -> None:
    run = open_run(langgraph_trace)
    assert run.graph_name == "LangGraph (observed)"
    assert [s.nodes for s in run.steps] == [("agent",), ("tools",), ("agent",)]
    budget = run.steps[-1].budget
    assert (budget.model_calls, budget.tool_calls) == (2, 1)
    assert (budget.prompt_tokens, budget.completion_tokens) == (112 + 161, 18 + 41)
    assert [t.name for t in run.steps[1].node_runs[0].tools] == ["get_weather"]
    assert run.topology is not None
    assert {(e.source, e.target) for e in run.topology.edges} == {
        ("start", "agent"),
        ("agent", "tools"),
        ("tools", "agent"),
        ("agent", "end"),
    }


def test_show_diff_and_topology_open_it(langgraph_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(langgraph_trace)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("LangGraph (observed)")
    assert "step 1  tools" in out and "tool get_weather" in out
    assert main(["diff", str(langgraph_trace), str(langgraph_trace)]) == 0
    assert main(["topology", str(langgraph_trace)]) == 0
    assert "agent" in capsys.readouterr().out
