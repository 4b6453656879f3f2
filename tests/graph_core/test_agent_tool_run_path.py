"""An agent tool's inner run reports to the outer run's callbacks under its tool call's node path.

Eino's inner run takes the tool call's `ctx`, and with it the callback handlers and the run path; here
`AgentTool` hands the inner run the outer scope's callbacks and `parent_path=(..., "ToolNode",
"<tool name>:<call id>")`. Observers then see the inner graph as a nested graph of that call: every
`RunInfo.path` and `StepInfo.path` starts with it, and it has no step boundaries of its own (a debugger
holding the outer run between steps is not asked about the inner run's steps).
"""

from __future__ import annotations

from typing import Any

from fixtures.agent_tool import ANSWER, QUESTION, build_agent
from graph_core import END, START, Graph
from graph_core.agents.adk_callbacks import AGENT_KIND
from graph_core.callbacks import Boundary, RunInfo, StepInfo
from graph_core.schema import Message

CALL = ("ToolNode", "weather_expert:call_expert")


class Watcher:
    """Notes every callback's path; `on_step_boundary` makes it a boundary handler too."""

    def __init__(self) -> None:
        self.starts: list[tuple[tuple[str, ...], str | None, str]] = []
        self.steps: list[tuple[tuple[str, ...], int]] = []
        self.boundaries: list[int] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        self.starts.append((info.path, info.node_key, info.kind))

    def on_step_end(self, step: StepInfo) -> None:
        self.steps.append((step.path, step.index))

    def on_step_boundary(self, boundary: Boundary) -> None:
        self.boundaries.append(boundary.step)


def test_the_inner_run_reports_under_the_tool_calls_path() -> None:
    watcher = Watcher()
    assert build_agent().invoke([Message.user(QUESTION)], callbacks=[watcher]).content == ANSWER
    inner_steps = [(path, index) for path, index in watcher.steps if path]
    assert inner_steps == [(CALL, i) for i in range(7)]
    assert [index for path, index in watcher.steps if not path] == list(range(7))
    inner_starts = [(path, key, kind) for path, key, kind in watcher.starts if len(path) > 1]
    # the expert's agent callback and graph start come first, under the call's path, then its nodes
    assert inner_starts[:3] == [
        (CALL, None, AGENT_KIND),
        (CALL, None, "Graph"),
        ((*CALL, "Init"), "Init", "Lambda"),
    ]
    assert ((*CALL, "ToolNode"), "ToolNode", "Tool") in inner_starts  # the expert's get_weather call
    # the outer graph's own start is the only one with an empty path
    assert [kind for path, key, kind in watcher.starts if not path] == ["Graph"]


def test_the_inner_run_has_no_step_boundaries_of_its_own() -> None:
    watcher = Watcher()
    build_agent().invoke([Message.user(QUESTION)], callbacks=[watcher])
    assert watcher.boundaries == list(range(7))  # the outer run's seven steps, no more


def test_parent_path_prefixes_what_observers_see_of_any_run() -> None:
    graph = Graph()
    graph.add_lambda_node("a", lambda x: x + "a")
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    watcher = Watcher()
    assert graph.compile().invoke("x", callbacks=[watcher], parent_path=("outer", "call")) == "xa"
    assert watcher.starts == [(("outer", "call"), None, "Graph"), (("outer", "call", "a"), "a", "Lambda")]
    assert watcher.steps == [(("outer", "call"), 0)]
    assert watcher.boundaries == []


def test_a_run_that_fails_before_its_first_step_reports_under_its_parent_path() -> None:
    graph = Graph()
    graph.add_lambda_node("a", lambda x: x)
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    watcher = Watcher()
    errors: list[tuple[str, ...]] = []

    class Errors(Watcher):
        def on_error(self, info: RunInfo, error: BaseException) -> None:
            errors.append(info.path)

    try:
        graph.compile().invoke("x", callbacks=[watcher, Errors()], parent_path=("p",), checkpoint_id="cp")
    except Exception as exc:  # no checkpoint store: the run fails at setup
        assert "checkpoint store" in str(exc)
    else:
        raise AssertionError("the run should have failed")
    assert watcher.starts == [(("p",), None, "Graph")]
    assert errors == [("p",)]
