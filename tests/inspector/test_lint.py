"""Lint: reachability, dead ends, never-chosen branch targets, cycles, budgets; and `inspector lint`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.tools import tool
from graph_core.topology import END, START, TopologyEdge, TopologyNode, TriggerMode, build_topology
from inspector.cli import main
from inspector.lint import Finding, has_errors, lint
from tests.inspector.test_export_shapes import adk_topology, nested_topology, react_topology


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return f"sunny in {city}"


def _codes(findings: list[Finding]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(f.severity, f.code, f.nodes) for f in findings]


def test_react_topology_reports_its_loop_and_budget() -> None:
    findings = lint(react_topology())
    assert _codes(findings) == [("info", "cycle", ("chat", "tools")), ("info", "step-budget", ())]
    assert "at most 6 time(s)" in findings[0].message  # 13 steps: 6 tool rounds plus the answer
    assert "13 superstep(s)" in findings[1].message
    assert not has_errors(findings)


def test_real_react_agent_without_return_directly_tools_notes_the_idle_direct_return() -> None:
    agent = ReActAgent(model=ScriptedChatModel([]), tools=[get_weather])
    findings = lint(agent)
    # Information, not a warning: every stock ReActAgent has this branch (a stock agent lints clean).
    assert ("info", "branch-target-never-chosen", ("tools", "direct_return")) in _codes(findings)
    assert not any(f.severity in ("error", "warning") for f in findings)
    direct = ReActAgent(
        model=ScriptedChatModel([]), tools=[get_weather], tool_return_directly=["get_weather"]
    )
    assert "branch-target-never-chosen" not in {f.code for f in lint(direct)}
    # A bare topology carries no agent knowledge: the hint must then be given explicitly.
    assert "branch-target-never-chosen" not in {f.code for f in lint(agent.compiled.topology())}
    hinted = lint(agent.compiled.topology(), never_chosen=[("tools", "direct_return")])
    assert "branch-target-never-chosen" in {f.code for f in hinted}


def test_adk_loop_is_reported_with_an_unlimited_budget() -> None:
    findings = lint(adk_topology())
    cycle = next(f for f in findings if f.code == "cycle")
    assert cycle.nodes == (
        "ChatModel",
        "CancelCheck",
        "ToolNode",
        "AfterToolCalls",
        "AfterToolCallsCancelCheck",
    )
    assert "effectively unlimited" in next(f for f in findings if f.code == "step-budget").message


def test_unreachable_and_dead_end_nodes_are_named() -> None:
    topology = build_topology(
        name="broken",
        nodes=[TopologyNode(key=k, kind="Lambda") for k in ("a", "orphan", "sink")],
        edges=[
            TopologyEdge(source=START, target="a"),
            TopologyEdge(source="a", target=END),
            TopologyEdge(source="a", target="sink", kind="branch"),
        ],
    )
    findings = lint(topology)
    assert ("error", "unreachable", ("orphan",)) in _codes(findings)
    assert ("warning", "cannot-reach-end", ("sink",)) in _codes(findings)
    assert findings[0].severity == "error"  # sorted by severity
    assert has_errors(findings)
    assert "`orphan` can never run" in str(findings[0])


def test_end_unreachable_and_budget_too_small_are_errors() -> None:
    chain = build_topology(
        name="long",
        nodes=[TopologyNode(key=k, kind="Lambda") for k in ("a", "b", "c")],
        edges=[
            TopologyEdge(source=s, target=t) for s, t in [(START, "a"), ("a", "b"), ("b", "c"), ("c", END)]
        ],
        max_run_steps=2,
    )
    assert ("error", "budget-too-small", ()) in _codes(lint(chain))
    assert "needs 3 supersteps but the budget is 2" in str(
        next(f for f in lint(chain) if f.code == "budget-too-small")
    )
    default = chain.model_copy(update={"max_run_steps": None})
    assert "13 superstep(s) (default: user nodes + 10)" in str(lint(default))
    no_end = build_topology(
        name="x", nodes=[TopologyNode(key="a", kind="Lambda")], edges=[TopologyEdge(source=START, target="a")]
    )
    assert ("error", "end-unreachable", (END,)) in _codes(lint(no_end))


def test_cycles_in_dag_mode_are_errors_and_nested_graphs_are_checked() -> None:
    dag = react_topology().model_copy(update={"trigger_mode": TriggerMode.ALL_PREDECESSOR})
    assert ("error", "dag-cycle", ("chat", "tools")) in _codes(lint(dag))
    findings = lint(nested_topology())
    nested = [f for f in findings if f.graph_path == ("agent",)]
    assert {f.code for f in nested} == {"cycle", "step-budget"}
    assert str(nested[0]).startswith("info: cycle: [agent] ")
    top_budget = next(f for f in findings if f.code == "step-budget" and f.graph_path == ())
    assert "DAG mode" in top_budget.message


def test_self_loop_is_a_cycle() -> None:
    topology = build_topology(
        name="loop",
        nodes=[TopologyNode(key="a", kind="Lambda")],
        edges=[
            TopologyEdge(source=START, target="a"),
            TopologyEdge(source="a", target="a"),
            TopologyEdge(source="a", target=END),
        ],
    )
    cycle = next(f for f in lint(topology) if f.code == "cycle")
    assert cycle.nodes == ("a",) and "each pass costs 1 superstep" in cycle.message


BROKEN = textwrap.dedent(
    """
    from graph_core.topology import START, END, TopologyEdge, TopologyNode, build_topology


    class Compiled:
        def topology(self):
            return build_topology(
                name="broken",
                nodes=[TopologyNode(key="a", kind="Lambda"), TopologyNode(key="orphan", kind="Lambda")],
                edges=[TopologyEdge(source=START, target="a"), TopologyEdge(source="a", target=END)],
            )

        def invoke(self, value):
            return value


    graph = Compiled()
    """
)


def test_cli_lint_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.py").write_text(BROKEN)
    assert main(["lint", f"{tmp_path / 'broken.py'}:graph"]) == 1
    out = capsys.readouterr().out
    assert "error: unreachable: node `orphan` can never run" in out
    assert out.rstrip().endswith("1 error(s), 0 warning(s), 1 info")
    (tmp_path / "agents.py").write_text(
        "from graph_core.agents.react import ReActAgent\n"
        "from graph_core.models import ScriptedChatModel\n"
        "agent = ReActAgent(model=ScriptedChatModel([]), tools=[])\n"
    )
    assert main(["lint", f"{tmp_path / 'agents.py'}:agent", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == "0 error(s), 0 warning(s), 3 info"  # a stock agent lints clean
    assert main(["lint", "no_such_module_xyz:agent"]) == 2
