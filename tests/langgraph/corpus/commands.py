"""Nodes that route with `Command(goto=...)` (declared with a `Command[Literal[...]]` return annotation
or `destinations=`), and `add_sequence`.

Each factory returns a compiled graph; its source in langchain-ai/langgraph is named above it."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from tests.langgraph.corpus.case import Case

__all__ = [
    "CASES",
    "add_sequence",
    "command_self_loop",
    "destinations_dict",
    "destinations_tuple",
    "named_sequence",
]


class Steps(TypedDict):
    foo: Annotated[list[str], operator.add]
    bar: str


def _step1(state: Steps) -> dict[str, Any]:
    return {"foo": ["step1"], "bar": "baz"}


def _step2(state: Steps) -> dict[str, Any]:
    return {"foo": ["step2"]}


# libs/langgraph/tests/test_pregel.py::test_add_sequence (unnamed steps)
def add_sequence() -> CompiledStateGraph[Any, Any, Any, Any]:
    def step1(state: Steps) -> dict[str, Any]:
        return _step1(state)

    def step2(state: Steps) -> dict[str, Any]:
        return _step2(state)

    builder = StateGraph(Steps)
    builder.add_sequence([step1, step2])
    builder.add_edge(START, "step1")
    return builder.compile()


# libs/langgraph/tests/test_pregel.py::test_add_sequence (named steps)
def named_sequence() -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(Steps)
    builder.add_sequence([("meow1", _step1), ("meow2", _step2)])
    builder.add_edge(START, "meow1")
    return builder.compile()


# libs/langgraph/tests/test_pregel.py::test_get_graph_self_loop (the node chose its way at random and
# called a subgraph inside; here it loops three times, then ends)
def command_self_loop() -> CompiledStateGraph[Any, Any, Any, Any]:
    def worker_node(state: MessagesState) -> Command[Literal["worker_node", "__end__"]]:
        rounds = len(state["messages"])
        next_node_name: Literal["worker_node", "__end__"] = "worker_node" if rounds < 3 else "__end__"
        return Command(update={"messages": [("ai", f"round {rounds}")]}, goto=next_node_name)

    self_loop_builder = StateGraph(MessagesState)
    self_loop_builder.add_node("worker_node", worker_node)
    self_loop_builder.add_edge(START, "worker_node")
    return self_loop_builder.compile()


class Letters(TypedDict):
    foo: Annotated[str, operator.add]


def _destinations_graph(destinations: Any) -> CompiledStateGraph[Any, Any, Any, Any]:
    def node_a(state: Letters) -> Command[Any]:
        value = state["foo"]
        goto = "node_b" if value == "a" else "node_c"
        return Command(update={"foo": value}, goto=goto, graph=Command.PARENT)

    subgraph = StateGraph(Letters).add_node(node_a).add_edge(START, "node_a").compile()

    def node_b(state: Letters) -> dict[str, Any]:
        return {"foo": "b"}

    def node_c(state: Letters) -> dict[str, Any]:
        return {"foo": "c"}

    builder = StateGraph(Letters)
    builder.add_edge(START, "child")
    builder.add_node("child", subgraph, destinations=destinations)
    builder.add_node(node_b)
    builder.add_node(node_c)
    return builder.compile()


# libs/langgraph/tests/test_pregel.py::test_node_destinations (destinations w/ tuples)
def destinations_tuple() -> CompiledStateGraph[Any, Any, Any, Any]:
    return _destinations_graph(("node_b", "node_c"))


# libs/langgraph/tests/test_pregel.py::test_node_destinations (destinations w/ dicts: labelled edges)
def destinations_dict() -> CompiledStateGraph[Any, Any, Any, Any]:
    return _destinations_graph({"node_b": "foo", "node_c": "bar"})


CASES = (
    Case("commands", "add_sequence", {"foo": []}),
    Case("commands", "named_sequence", {"foo": []}),
    Case("commands", "command_self_loop", {"messages": [("user", "go")]}),
    Case("commands", "destinations_tuple", {"foo": ""}),
    Case("commands", "destinations_dict", {"foo": ""}),
)
