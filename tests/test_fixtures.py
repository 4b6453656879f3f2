"""Every fixture loads as an `inspector` TARGET, runs as documented, and runs the same way twice."""

from __future__ import annotations

import pytest

from graph_core.callbacks import StepInfo
from graph_core.errors import MaxStepsExceededError
from inspector.target import load_target


class Trace:
    def __init__(self) -> None:
        self.nodes: list[tuple[str, ...]] = []
        self.tokens = 0

    def on_step_end(self, step: StepInfo) -> None:
        if not step.path:
            self.nodes.append(step.nodes)

    def on_end(self, info: object, output: object) -> None:
        usage = getattr(output, "usage", None)
        if getattr(info, "kind", None) == "ChatModel" and usage is not None:
            self.tokens += usage.total_tokens


def run_twice(spec: str, question: str) -> list[tuple[object, Trace]]:
    loaded = load_target(spec)
    assert loaded.is_agent
    results = []
    for _ in range(2):
        trace = Trace()
        results.append((loaded.runnable.invoke(question, callbacks=[trace]), trace))
    return results


@pytest.mark.parametrize("attr", ["agent", "build_agent"])
def test_weather(attr: str) -> None:
    from fixtures.weather import QUESTION

    (first, trace), (second, trace2) = run_twice(f"fixtures.weather:{attr}", QUESTION)
    assert first == second
    assert "umbrella" in first.content  # type: ignore[attr-defined]
    assert trace.nodes == trace2.nodes == [("chat",), ("tools",), ("chat",)]
    assert trace.tokens == 130 + 202


def test_report_returns_the_tool_message() -> None:
    from fixtures.report import QUESTION

    (out, trace), _ = run_twice("fixtures.report:agent", QUESTION)
    assert (out.role, out.tool_name) == ("tool", "download_report")  # type: ignore[attr-defined]
    assert trace.nodes == [("chat",), ("tools",), ("direct_return",)]


def test_parallel_calls_two_tools_in_one_round() -> None:
    from fixtures.parallel import QUESTION, agent

    (out, trace), _ = run_twice("fixtures.parallel:agent", QUESTION)
    assert "CA1702" in out.content  # type: ignore[attr-defined]
    assert trace.nodes == [("chat",), ("tools",), ("chat",)]
    model = agent.model
    assert [m.tool_call_id for m in model.calls[-1] if m.role == "tool"] == ["call_flights", "call_weather"]


def test_runaway_exhausts_the_default_budget_every_time() -> None:
    from fixtures.runaway import agent

    loaded = load_target("fixtures.runaway:agent")
    for _ in range(2):
        trace = Trace()
        with pytest.raises(MaxStepsExceededError, match="exceeds max steps"):
            loaded.runnable.invoke("go", callbacks=[trace])
        assert len(trace.nodes) == 13
        assert len(agent.model.calls) == 7


def test_streaming_pitfall_and_its_fix() -> None:
    from fixtures.streaming_pitfall import build_fixed_agent

    loaded = load_target("fixtures.streaming_pitfall:agent")
    for _ in range(2):
        chunks = list(loaded.runnable.stream("weather?"))
        assert "".join(c.content for c in chunks) == "Let me check the weather."
        assert any(c.tool_calls for c in chunks)
    fixed = build_fixed_agent()
    assert "".join(c.content for c in fixed.stream("weather?")) == "Light rain in Hangzhou: take an umbrella."
    assert loaded.runnable.invoke("weather?").content.startswith("Light rain")


def test_adk_agent_events_and_exit() -> None:
    loaded = load_target("fixtures.adk:agent")
    assert loaded.is_agent
    for _ in range(2):
        events = list(loaded.runnable.run("Plan my trip"))
        assert [e.error for e in events] == [None] * 5
        assert events[-1].action is not None and events[-1].action.exit
        assert events[-1].message is not None and events[-1].message.tool_name == "exit"
    topo = loaded.topology()
    assert "ToolNodeToEndConverter" in {n.key for n in topo.nodes}
