"""Callbacks: node and graph lifecycles, run info, handler order, scopes, nested graphs, step events."""

from __future__ import annotations

from typing import Any

import pytest

from graph_core import END, START, Branch, Graph
from graph_core.context import current_scope
from graph_core.errors import MaxStepsExceededError, NodeRunError
from tests.helpers import SYNC_ASYNC, run_in, wire


class Recorder:
    def __init__(self, tag: str = "", log: list[Any] | None = None) -> None:
        self.tag = tag
        self.log: list[Any] = [] if log is None else log

    def on_start(self, info: Any, value: Any) -> None:
        self.log.append(
            (self.tag + "start", info.node_key, info.name, info.kind, info.path, info.step, value)
        )

    def on_end(self, info: Any, value: Any) -> None:
        self.log.append((self.tag + "end", info.node_key, info.name, info.kind, info.path, info.step, value))

    def on_error(self, info: Any, error: BaseException) -> None:
        self.log.append((self.tag + "error", info.node_key, info.kind, info.path, type(error).__name__))

    def on_step_start(self, step: Any) -> None:
        self.log.append(("step_start", step.path, step.index, step.nodes))

    def on_step_end(self, step: Any) -> None:
        self.log.append(("step_end", step.path, step.index, step.nodes, step.next_nodes, step.ended))


@SYNC_ASYNC
def test_graph_and_node_events_in_order(how: str) -> None:
    g = Graph()
    g.add_lambda_node("a", lambda x: x + 1, name="Adder")
    g.add_passthrough_node("p")
    wire(g, "a", "p")
    rec = Recorder()
    assert run_in(g.compile(name="G"), 1, how, callbacks=[rec]) == 2
    assert rec.log == [
        ("start", None, "G", "Graph", (), None, 1),
        ("step_start", (), 0, ("a",)),
        ("start", "a", "Adder", "Lambda", ("a",), 0, 1),
        ("end", "a", "Adder", "Lambda", ("a",), 0, 2),
        ("step_end", (), 0, ("a",), ("p",), False),
        ("step_start", (), 1, ("p",)),  # passthrough: no node callbacks
        ("step_end", (), 1, ("p",), (), True),
        ("end", None, "G", "Graph", (), None, 2),
    ]


def test_on_start_runs_in_reverse_registration_order() -> None:
    log: list[Any] = []
    g = Graph()
    g.add_lambda_node("a", lambda x: x)
    wire(g, "a")
    g.compile().invoke(0, callbacks=[Recorder("1", log), Recorder("2", log)])
    assert [entry[0] for entry in log if entry[1] == "a"] == ["2start", "1start", "1end", "2end"]


@SYNC_ASYNC
def test_error_events(how: str) -> None:
    def fail(x: Any) -> Any:
        raise KeyError("nope")

    g = Graph()
    g.add_lambda_node("a", fail)
    wire(g, "a")
    rec = Recorder()
    with pytest.raises(NodeRunError):
        run_in(g.compile(), 0, how, callbacks=[rec])
    errors = [e for e in rec.log if e[0] == "error"]
    assert errors == [
        ("error", "a", "Lambda", ("a",), "KeyError"),
        ("error", None, "Graph", (), "NodeRunError"),
    ]


@SYNC_ASYNC
def test_scope_is_visible_inside_nodes(how: str) -> None:
    seen: list[Any] = []

    def look(x: Any) -> Any:
        scope = current_scope()
        assert scope is not None
        seen.append((scope.path, scope.step, scope.graph_name))
        return x

    g = Graph()
    g.add_lambda_node("a", look)
    g.add_lambda_node("b", look)
    wire(g, "a", "b")
    run_in(g.compile(name="G"), 0, how)
    assert seen == [(("a",), 0, "G"), (("b",), 1, "G")]


def nested_parent() -> Graph:
    inner = Graph()
    inner.add_lambda_node("i1", lambda x: x + "1")
    inner.add_lambda_node("i2", lambda x: x + "2")
    wire(inner, "i1", "i2")
    outer = Graph()
    outer.add_graph_node("sub", inner, name="Sub")
    outer.add_lambda_node("after", lambda x: x + "!")
    wire(outer, "sub", "after")
    return outer


@SYNC_ASYNC
def test_nested_graph_is_one_step_with_prefixed_paths(how: str) -> None:
    rec = Recorder()
    assert run_in(nested_parent().compile(), "x", how, callbacks=[rec]) == "x12!"
    steps = [e for e in rec.log if e[0].startswith("step_end")]
    assert steps == [
        ("step_end", ("sub",), 0, ("i1",), ("i2",), False),
        ("step_end", ("sub",), 1, ("i2",), (), True),
        ("step_end", (), 0, ("sub",), ("after",), False),
        ("step_end", (), 1, ("after",), (), True),
    ]
    starts = [(e[1], e[3], e[4], e[5]) for e in rec.log if e[0] == "start"]
    assert starts == [
        (None, "Graph", (), None),
        ("sub", "Graph", ("sub",), 0),
        ("i1", "Lambda", ("sub", "i1"), 0),
        ("i2", "Lambda", ("sub", "i2"), 1),
        ("after", "Lambda", ("after",), 1),
    ]


@SYNC_ASYNC
def test_nested_errors_prefix_the_parent_key(how: str) -> None:
    boom = ValueError("inner boom")

    def fail(x: Any) -> Any:
        raise boom

    inner = Graph()
    inner.add_lambda_node("1", fail)
    wire(inner, "1")
    outer = Graph()
    outer.add_graph_node("a", inner)
    wire(outer, "a")
    with pytest.raises(NodeRunError) as info:
        run_in(outer.compile(), 0, how)
    assert info.value.node_path == ["a", "1"]
    assert info.value.__cause__ is boom


@SYNC_ASYNC
def test_nested_graph_has_its_own_budget(how: str) -> None:
    inner = Graph()
    inner.add_lambda_node("n", lambda x: x + 1)
    inner.add_edge(START, "n")
    inner.add_branch("n", Branch(lambda x: END if x >= 3 else "n", ["n", END]))
    outer = Graph()
    outer.add_graph_node("sub", inner, compile_options={"max_run_steps": 3})
    wire(outer, "sub")
    compiled = outer.compile(max_run_steps=1)
    assert run_in(compiled, 0, how) == 3  # three inner steps, one outer step
    with pytest.raises(MaxStepsExceededError) as info:
        run_in(compiled, -1, how)
    assert info.value.path == ["sub"]


def test_step_info_reports_branch_decisions_and_state() -> None:
    infos: list[Any] = []

    class Obs:
        def on_step_end(self, step: Any) -> None:
            infos.append(step)

    g = Graph(state=lambda: {"count": 0})

    def bump(x: int, state: dict[str, int]) -> int:
        state["count"] += 1
        return x

    g.add_lambda_node("a", lambda x: x, post=bump)
    g.add_lambda_node("b", lambda x: x)
    g.add_lambda_node("c", lambda x: x)
    g.add_edge(START, "a")
    g.add_branch("a", Branch(lambda x: "b", ["b", "c"]))
    g.add_edge("b", END)
    g.add_edge("c", END)
    g.compile().invoke(1, callbacks=[Obs()])
    first = infos[0]
    assert first.state == {"count": 1}
    assert [(d.source, d.branch_index, d.chosen, d.skipped) for d in first.branches] == [
        ("a", 0, ("b",), ("c",))
    ]


@pytest.mark.parametrize("where", ["pre", "node", "post", "branch"])
def test_failing_step_still_ends_with_its_errors(where: str) -> None:
    ends: list[Any] = []

    class Obs:
        def on_step_end(self, step: Any) -> None:
            ends.append((step.index, step.nodes, step.errors, step.budget.steps_used))

    def fail(*args: Any) -> Any:
        raise RuntimeError(where)

    def ok(*args: Any) -> Any:
        return args[0]

    g = Graph(state=dict)
    g.add_lambda_node(
        "a",
        fail if where == "node" else ok,
        pre=fail if where == "pre" else None,
        post=fail if where == "post" else None,
    )
    g.add_edge(START, "a")
    g.add_branch("a", Branch(fail if where == "branch" else (lambda x: END), [END]))
    with pytest.raises(Exception, match=where):
        g.compile().invoke(1, callbacks=[Obs()])
    nodes = () if where == "pre" else ("a",)
    errors = () if where == "branch" else ("a",)
    assert ends == [(0, nodes, errors, 1)]
