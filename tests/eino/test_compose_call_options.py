"""Ports of Eino's `compose/graph_call_options_test.go` (cloudwego/eino ca0441ac0bce): per-call component
options and callbacks, addressed to nodes with `designate_node` / `designate_node_with_path`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.call_options import (
    CallOption,
    ChatModelOptions,
    chat_model_options,
    node_options,
    with_callbacks,
    with_chat_model_options,
    with_lambda_options,
)
from graph_core.callbacks import RunInfo
from graph_core.errors import GraphRunError
from graph_core.schema import Message


class _TestModel:
    """Go `testModel`: each call checks its options (`checkOption`): two of them, top_p 1.0, and the
    model alternating "123" (node 2) and "456" (node 3)."""

    def __init__(self) -> None:
        self.idx = 0
        self.failures: list[str] = []

    def _check(self) -> None:
        options = node_options("ChatModel")
        merged = chat_model_options()
        expected = "123" if self.idx == 0 else "456"
        self.idx = 1 - self.idx
        if len(options) != 2 or merged.top_p != 1.0 or merged.model != expected:
            self.failures.append(f"{len(options)} options, merged {merged}, expected model {expected}")

    def generate(self, messages: list[Message]) -> Message:
        self._check()
        return Message.assistant()

    def stream(self, messages: list[Message]) -> Iterator[Message]:
        self._check()
        yield Message.assistant()


class _Counting:
    """Go's handler built with OnStartFn/OnEndFn: counts starts, and ends that follow a start."""

    def __init__(self) -> None:
        self.starts = 0
        self.ends = 0
        self._started = False

    def on_start(self, info: RunInfo, input: Any) -> None:
        self.starts += 1
        self._started = True

    def on_end(self, info: RunInfo, output: Any) -> None:
        if self._started:
            self.ends += 1
            self._started = False


def test_call_option() -> None:
    """graph_call_options_test.go TestCallOption: a lambda option for node 1, a model for each chat model
    node and a top_p for both, callbacks designated to node 3; through invoke, stream, collect and
    transform."""
    model = _TestModel()
    lambda_options: list[list[Any]] = []

    def one(messages: list[Message]) -> list[Message]:
        lambda_options.append(node_options())
        return messages

    graph = Graph()
    graph.add_lambda_node("1", one)
    graph.add_chat_model_node("2", model)
    graph.add_lambda_node("-", lambda message: [message])
    graph.add_chat_model_node("3", model)
    graph.add_edge(START, "1")
    graph.add_edge("1", "2")
    graph.add_edge("2", "-")
    graph.add_edge("-", "3")
    graph.add_edge("3", END)
    compiled = graph.compile()

    counting = _Counting()
    options = [
        with_chat_model_options(ChatModelOptions(model="123")).designate_node("2"),
        with_chat_model_options(ChatModelOptions(model="456")).designate_node("3"),
        with_chat_model_options(ChatModelOptions(top_p=1.0)),
        with_callbacks(counting).designate_node("3"),
        with_lambda_options("1").designate_node("1"),
    ]
    compiled.invoke([], options=options)
    assert model.failures == [], "invoke option fail"
    assert counting.starts == 1, "node callback fail"
    assert counting.ends == 1, "node callback fail"
    list(compiled.stream([], options=options))
    assert model.failures == [], "stream option fail"
    compiled.collect(iter([[]]), options=options)
    assert model.failures == [], "collect option fail"
    list(compiled.transform(iter([[]]), options=options))
    assert model.failures == [], "transform option fail"
    assert lambda_options == [["1"]] * 4  # Go's lambda fails the test on any other options


def test_call_options_one_by_one_common_option() -> None:
    """graph_call_options_test.go TestCallOptionsOneByOne/common_option: an option holds the component
    option values as given, one by one (Go's unexported `withComponentOption`)."""

    class Option:
        def __init__(self, uid: int) -> None:
            self.uid = uid

    value = Option(100)
    option = with_lambda_options(value)
    assert isinstance(option, CallOption)
    assert len(option.values) == 1
    assert option.values[0] is value
    assert option.values[0].uid == 100


class _StartNames:
    """Go's OnStartFn handlers of TestCallOptionInSubGraph: the names of what started, in order."""

    def __init__(self) -> None:
        self.names: list[tuple[str, str]] = []

    def on_start(self, info: RunInfo, input: Any) -> None:
        self.names.append((info.name, info.kind))


def _one_node_graph(key: str, name: str, suffix: str, seen: list[list[Any]]) -> Graph:
    def run(text: str) -> str:
        seen.append(node_options())
        return f"{text} {suffix}"

    graph = Graph()
    graph.add_lambda_node(key, run, name=name)
    graph.add_edge(START, key)
    return graph


def test_call_option_in_sub_graph() -> None:
    """graph_call_options_test.go TestCallOptionInSubGraph: lambda options and callbacks designated to
    nodes three graphs deep; callbacks designated to a nested graph observe it and what runs inside."""
    seen: dict[str, list[list[Any]]] = {n: [] for n in ("child1", "child2", "parent", "grandparent")}
    child1 = _one_node_graph("1", "child1-1", "child1-1", seen["child1"])
    child1.add_edge("1", END)
    child2 = _one_node_graph("1", "child2-1", "child2-1", seen["child2"])
    child2.add_edge("1", END)
    parent = _one_node_graph("1", "parent-1", "parent-1", seen["parent"])
    parent.add_graph_node("2", child1, name="child1")
    parent.add_graph_node("3", child2, name="child2")
    parent.add_edge("1", "2")
    parent.add_edge("2", "3")
    parent.add_edge("3", END)
    grand = _one_node_graph("1", "grandparent-1", "grandparent-1", seen["grandparent"])
    grand.add_graph_node("2", parent, name="parent")
    grand.add_edge("1", "2")
    grand.add_edge("2", END)
    compiled = grand.compile(name="grandparent")

    grand_common, parent_common, grand1, child1_common, child2_cb = (_StartNames() for _ in range(5))
    result = compiled.invoke(
        "input",
        options=[
            with_callbacks(grand_common),
            with_callbacks(parent_common).designate_node_with_path(("2",)),
            with_callbacks(grand1).designate_node("1"),
            with_callbacks(child1_common).designate_node_with_path(("2", "2")),
            with_callbacks(child2_cb).designate_node_with_path(("2", "3", "1")),
            with_lambda_options("grandparent-1").designate_node_with_path(("1",)),
            with_lambda_options("parent-1").designate_node_with_path(("2", "1")),
            with_lambda_options("child1-1").designate_node_with_path(("2", "2", "1")),
            with_lambda_options("child2-1").designate_node_with_path(("2", "3", "1")),
        ],
    )
    assert result == "input grandparent-1 parent-1 child1-1 child2-1"
    assert seen == {
        "grandparent": [["grandparent-1"]],
        "parent": [["parent-1"]],
        "child1": [["child1-1"]],
        "child2": [["child2-1"]],
    }
    assert grand_common.names == [
        ("grandparent", "Graph"),
        ("grandparent-1", "Lambda"),
        ("parent", "Graph"),
        ("parent-1", "Lambda"),
        ("child1", "Graph"),
        ("child1-1", "Lambda"),
        ("child2", "Graph"),
        ("child2-1", "Lambda"),
    ]
    assert [n for n, _ in grand1.names] == ["grandparent-1"]
    assert [n for n, _ in parent_common.names] == [
        "parent",
        "parent-1",
        "child1",
        "child1-1",
        "child2",
        "child2-1",
    ]
    assert [n for n, _ in child1_common.names] == ["child1", "child1-1"]
    assert [n for n, _ in child2_cb.names] == ["child2-1"]


def _two_node_graph() -> Graph:
    inner = Graph()
    inner.add_lambda_node("x", lambda v: v)
    inner.add_edge(START, "x")
    inner.add_edge("x", END)
    graph = Graph()
    graph.add_lambda_node("a", lambda v: v)
    graph.add_graph_node("sub", inner)
    graph.add_edge(START, "a")
    graph.add_edge("a", "sub")
    graph.add_edge("sub", END)
    return graph


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (with_lambda_options(1).designate_node("nope"), "option has designated an unknown node: [nope]"),
        (
            with_lambda_options(1).designate_node_with_path(("a", "x")),
            "cannot designate sub path of a component",
        ),
        (
            with_chat_model_options(ChatModelOptions(model="m")).designate_node("a"),
            "option type[ChatModel] is different from which the designated node[[a]] expects[Lambda]",
        ),
        (with_lambda_options(1).designate_node_with_path(()), "call option has designated an empty path"),
        (with_callbacks(object()).designate_node_with_path(("sub", "y")), "unknown node: [sub y]"),
    ],
    ids=["unknown-node", "sub-path-of-a-component", "other-kind", "empty-path", "unknown-nested-node"],
)
def test_designations_are_checked_when_the_run_starts(option: CallOption, message: str) -> None:
    """Eino `extractOption`'s errors (the Go tests above only exercise valid designations)."""
    with pytest.raises(GraphRunError) as caught:
        _two_node_graph().compile().invoke(1, options=[option])
    assert message in str(caught.value)
