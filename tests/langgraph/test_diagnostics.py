"""Diagnostics read LangGraph recordings as they read graph_core ones: the loop that spent
`recursion_limit`, tool calls that never ran, a tool that failed."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.graph import END

from fixtures import langgraph_runaway
from fixtures.runs import HERE
from inspector.adapters.langgraph import as_target
from inspector.diagnostics import diagnose
from inspector.lint import lint
from inspector.recording import Recorder, read_run
from tests.langgraph.graphs import call, react_loop


def test_recursion_limit_names_the_cycle_and_its_rounds() -> None:
    (finding,) = diagnose(read_run(HERE / "langgraph_runaway.jsonl"))
    assert finding.code == "budget-exhausted"
    assert finding.message == (
        "the step budget (12 supersteps) ran out in the cycle agent -> tools -> agent after 6 rounds"
    )
    assert finding.step == 11


def test_tool_calls_the_router_sent_to_end_never_ran(tmp_path: Path) -> None:
    answer = AIMessage(
        "Let me check.",
        tool_calls=[{"id": "c1", "name": "lookup", "args": {"city": "Paris"}}],
        usage_metadata={"input_tokens": 5, "output_tokens": 5, "total_tokens": 10},
    )
    builder = react_loop([answer])
    builder.branches["agent"].clear()  # a router that trusts text over tool calls

    def route(state: dict[str, Any]) -> str:
        return END if state["messages"][-1].content else "tools"

    builder.add_conditional_edges("agent", route, ["tools", END])
    path = tmp_path / "r.jsonl"
    as_target(builder.compile()).invoke(
        {"messages": [{"role": "user", "content": "?"}]}, callbacks=[Recorder(path)]
    )
    (finding,) = diagnose(read_run(path))
    assert finding.code == "unexecuted-tool-calls"
    assert finding.message.startswith(
        "`agent` answered with 1 tool call(s) (lookup) but the branch went to END"
    )


def test_a_failing_tool_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    graph = react_loop([call(1, "Atlantis"), AIMessage("never")]).compile()
    with contextlib.suppress(ValueError):
        as_target(graph).invoke({"messages": [{"role": "user", "content": "?"}]}, callbacks=[Recorder(path)])
    (finding,) = diagnose(read_run(path))
    assert finding.code == "tool-failed"
    assert finding.message == "tools node `tools` failed: ValueError: no such city: Atlantis"


def test_lint_counts_the_rounds_that_still_reach_end_and_the_runaway_went_one_more() -> None:
    """12 supersteps hold 5 agent -> tools rounds and the answer; the recorded runaway went around a
    sixth time and ran out. The lint's count is of rounds that can still finish, and says so."""
    cycle = next(f for f in lint(as_target(langgraph_runaway.agent).topology()) if f.code == "cycle")
    assert cycle.message.endswith(
        "budget of 12 a run can go around it at most 5 time(s) and still reach END."
    )
    (finding,) = diagnose(read_run(HERE / "langgraph_runaway.jsonl"))
    assert finding.message.endswith("after 6 rounds")
