"""The engine's reporting fast paths build the same facts as the plain constructors and call order.

`RunInfo`/`StepInfo` are built through their slots, budgets and branch decisions are reused within a
run, tools look callback methods up once per run, and an observed invoke-mode node skips the generic
before/after path. What observers receive must not change: these tests compare against constructed
objects and against the order Eino prescribes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from graph_core import END, START, Branch, Graph
from graph_core.agents.react import ReActAgent
from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.context import RunScope, notify_end, notify_start, run_info, scoped
from graph_core.errors import NodeRunError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from tests.helpers import wire


class _Log:
    def __init__(self, name: str, log: list[tuple[Any, ...]]) -> None:
        self.name = name
        self.log = log

    def on_start(self, info: RunInfo, input: Any) -> None:
        self.log.append((self.name, "start", info, input))

    def on_end(self, info: RunInfo, output: Any) -> None:
        self.log.append((self.name, "end", info, output))

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        self.log.append((self.name, "error", info, type(error).__name__))

    def on_step_start(self, step: StepInfo) -> None:
        self.log.append((self.name, "step_start", step))

    def on_step_end(self, step: StepInfo) -> None:
        self.log.append((self.name, "step_end", step))


def test_slot_built_run_info_equals_a_constructed_one() -> None:
    built = run_info("tools", "Tools", "Tool", ("tools",), 3, "g", "c1")
    assert built == RunInfo("tools", "Tools", "Tool", ("tools",), 3, "g", "c1")
    assert hash(built) == hash(RunInfo("tools", "Tools", "Tool", ("tools",), 3, "g", "c1"))
    assert run_info(None, "g", "Graph") == RunInfo(None, "g", "Graph")
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.step = 4  # type: ignore[misc]


def test_steps_report_the_same_facts_as_constructed_step_infos() -> None:
    log: list[tuple[Any, ...]] = []
    graph = Graph()
    graph.add_lambda_node("a", lambda x: x + 1)
    graph.add_lambda_node("b", lambda x: x * 2)
    graph.add_edge(START, "a")
    graph.add_branch("a", Branch(lambda x: "b" if x < 5 else END, ends=["b", END]))
    graph.add_edge("b", "a")
    compiled = graph.compile(name="loop", max_run_steps=20)
    assert compiled.invoke(0, callbacks=[_Log("h", log)]) == 7
    steps = [entry[2] for entry in log if entry[1] in ("step_start", "step_end")]
    assert steps[0] == StepInfo(0, ("a",), Budget(0, 20, 20), (), "loop")
    assert steps[1] == StepInfo(
        0, ("a",), Budget(1, 20, 19), (), "loop", None, (BranchDecision("a", 0, ("b",), (END,)),), ("b",)
    )
    ends = [s for s in steps[1::2]]
    assert ends[-1].ended and ends[-1].branches == (BranchDecision("a", 0, (END,), ("b",)),)
    assert all(s.budget.steps_used == s.index + 1 for s in ends)
    # the budget after a step is the one reported before the next, and equal decisions are shared
    assert steps[1].budget is steps[2].budget
    assert ends[0].branches[0] is ends[2].branches[0]  # "a" chose "b" in steps 0 and 2


def test_observed_nodes_keep_eino_order_and_report_errors() -> None:
    log: list[tuple[Any, ...]] = []

    def boom(x: int) -> int:
        raise ValueError("no")

    graph = Graph()
    graph.add_lambda_node("ok", lambda x: x + 1)
    graph.add_lambda_node("bad", boom)
    wire(graph, "ok", "bad")
    with pytest.raises(NodeRunError):
        graph.compile().invoke(1, callbacks=[_Log("first", log), _Log("second", log)])
    nodes = [(e[0], e[1], e[2].node_key) for e in log if e[1] in ("start", "end", "error")]
    assert nodes == [
        ("second", "start", None),
        ("first", "start", None),
        ("second", "start", "ok"),  # on_start in reverse registration order
        ("first", "start", "ok"),
        ("first", "end", "ok"),
        ("second", "end", "ok"),
        ("second", "start", "bad"),
        ("first", "start", "bad"),
        ("first", "error", "bad"),
        ("second", "error", "bad"),
        ("first", "error", None),
        ("second", "error", None),
    ]
    ok_start = next(e for e in log if e[1] == "start" and e[2].node_key == "ok")
    assert ok_start[2] == RunInfo("ok", "", "Lambda", ("ok",), 0, "")
    assert ok_start[3] == 1


def test_a_failing_on_start_skips_the_node_and_its_on_error() -> None:
    class Refuses:
        def on_start(self, info: RunInfo, input: Any) -> None:
            if info.node_key == "n":
                raise RuntimeError("refused")

    log: list[tuple[Any, ...]] = []
    ran: list[int] = []
    graph = Graph()
    graph.add_lambda_node("n", lambda x: ran.append(x) or x)
    wire(graph, "n")
    with pytest.raises(NodeRunError, match="refused"):
        graph.compile().invoke(1, callbacks=[_Log("h", log), Refuses()])
    assert ran == []
    assert [(e[1], e[2].node_key) for e in log if e[1] in ("start", "error")] == [
        ("start", None),
        ("error", None),
    ]


def test_tool_calls_report_through_the_run_callbacks() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    log: list[tuple[Any, ...]] = []
    model = ScriptedChatModel(
        [
            Message.assistant("", tool_calls=[ToolCall("c1", "add", '{"a": 1, "b": 2}')]),
            Message.assistant("3"),
        ]
    )
    ReActAgent(model, tools=[add]).invoke([Message.user("sum")], callbacks=[_Log("h", log)])
    tools = [(e[1], e[2], e[3]) for e in log if e[1] in ("start", "end") and e[2].kind == "Tool"]
    assert tools == [
        ("start", RunInfo("tools", "add", "Tool", ("tools",), 1, "ReActAgent", "c1"), '{"a": 1, "b": 2}'),
        ("end", RunInfo("tools", "add", "Tool", ("tools",), 1, "ReActAgent", "c1"), "3"),
    ]


def test_notify_looks_methods_up_per_callbacks_tuple() -> None:
    seen: list[str] = []

    class A:
        def on_start(self, info: RunInfo, input: Any) -> None:
            seen.append("a")

    class B:
        def on_end(self, info: RunInfo, output: Any) -> None:
            seen.append("b")

    info = RunInfo("n", "n", "Tool")
    extras: dict[str, Any] = {}
    with scoped(RunScope(callbacks=(A(),), extras=extras)):
        notify_start(info, 1)
        notify_end(info, 1)
    with scoped(RunScope(callbacks=(B(),), extras=extras)):  # same extras, other callbacks: looked up again
        notify_start(info, 1)
        notify_end(info, 1)
    notify_start(info, 1)  # outside any run: nothing
    assert seen == ["a", "b"]
