"""Compiled graphs used as nodes: nested, doubly nested, with an `output_schema`, over a list state, and
a child that routes its parent with `Command(graph=Command.PARENT)`.

Each factory returns a compiled graph; its source in langchain-ai/langgraph is named above it."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from tests.langgraph.corpus.case import Case

__all__ = [
    "CASES",
    "nested_graph",
    "nested_twice",
    "output_schema_subgraph",
    "parent_command",
    "parent_command_goto",
    "root_channel",
]


class InnerState(TypedDict):
    my_key: str
    my_other_key: str


class OuterState(TypedDict):
    my_key: str


# libs/langgraph/tests/test_pregel.py::test_nested_graph (without the `never_called` runnable in the state)
def nested_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    def up(state: InnerState) -> dict[str, Any]:
        return {"my_key": state["my_key"] + " there", "my_other_key": state["my_key"]}

    inner = StateGraph(InnerState)
    inner.add_node("up", up)
    inner.set_entry_point("up")
    inner.set_finish_point("up")

    def side(state: OuterState) -> dict[str, Any]:
        return {"my_key": state["my_key"] + " and back again"}

    graph = StateGraph(OuterState)
    graph.add_node("inner", inner.compile())
    graph.add_node("side", side)
    graph.set_entry_point("inner")
    graph.add_edge("inner", "side")
    graph.set_finish_point("side")
    return graph.compile()


class Log(TypedDict):
    messages: Annotated[list[str], operator.add]


def _entered(name: str) -> Any:
    def _node(state: Log) -> dict[str, Any]:
        return {"messages": [f"entered {name} node"]}

    return _node


# libs/langgraph/tests/test_pregel.py::test_debug_nested_subgraphs
def nested_twice() -> CompiledStateGraph[Any, Any, Any, Any]:
    grand_parent = StateGraph(Log)
    parent = StateGraph(Log)
    child = StateGraph(Log)
    child.add_node("c_one", _entered("c_one"))
    child.add_node("c_two", _entered("c_two"))
    child.add_edge(START, "c_one")
    child.add_edge("c_one", "c_two")
    child.add_edge("c_two", END)
    parent.add_node("p_one", _entered("p_one"))
    parent.add_node("p_two", child.compile())
    parent.add_edge(START, "p_one")
    parent.add_edge("p_one", "p_two")
    parent.add_edge("p_two", END)
    grand_parent.add_node("gp_one", _entered("gp_one"))
    grand_parent.add_node("gp_two", parent.compile())
    grand_parent.add_edge(START, "gp_one")
    grand_parent.add_edge("gp_one", "gp_two")
    grand_parent.add_edge("gp_two", END)
    return grand_parent.compile()


class Operands(TypedDict, total=False):
    a: int
    b: int
    result: int


class Output(TypedDict):
    result: int


# libs/langgraph/tests/test_pregel.py::test_multiple_subgraphs (the `add` subgraph, with an
# `output_schema`, used as a node of a parent that has one too, instead of invoked inside a node)
def output_schema_subgraph() -> CompiledStateGraph[Any, Any, Any, Any]:
    def add(state: Operands) -> dict[str, Any]:
        return {"result": state.get("a", 0) + state.get("b", 0)}

    add_subgraph = StateGraph(Operands, output_schema=Output).add_node(add).add_edge(START, "add").compile()

    def double(state: Operands) -> dict[str, Any]:
        return {"result": state.get("result", 0) * 2}

    return (
        StateGraph(Operands, output_schema=Output)
        .add_node("add_subgraph", add_subgraph)
        .add_node(double)
        .add_edge(START, "add_subgraph")
        .add_edge("add_subgraph", "double")
        .compile()
    )


# libs/langgraph/tests/test_pregel.py::test_get_graph_root_channel (a state that is one list channel)
def root_channel() -> CompiledStateGraph[Any, Any, Any, Any]:
    child_builder = StateGraph(list)  # pyright: ignore[reportArgumentType]  (a root channel: LangGraph allows it)
    child_builder.add_node("child_node", lambda state: state)
    child_builder.add_edge(START, "child_node")
    child_graph = child_builder.compile()
    graph_builder = StateGraph(list)  # pyright: ignore[reportArgumentType]
    graph_builder.add_node("child", child_graph)
    graph_builder.add_edge(START, "child")
    return graph_builder.compile()


class CustomParentState(MessagesState):
    user_name: str


# libs/langgraph/tests/test_pregel.py::test_parent_command (a tool as the child's node, updating the
# parent's state through `Command.PARENT`)
def parent_command() -> CompiledStateGraph[Any, Any, Any, Any]:
    @tool(return_direct=True)
    def get_user_name() -> Command[Any]:
        """Retrieve user name"""
        return Command(update={"user_name": "Meow"}, graph=Command.PARENT)

    subgraph_builder = StateGraph(MessagesState)
    subgraph_builder.add_node("tool", get_user_name)  # pyright: ignore[reportArgumentType, reportCallIssue]
    subgraph_builder.add_edge(START, "tool")
    subgraph = subgraph_builder.compile()
    builder = StateGraph(CustomParentState)
    builder.add_node("alice", subgraph)
    builder.add_edge(START, "alice")
    return builder.compile()


class Dialog(TypedDict):
    dialog_state: Annotated[list[str], operator.add]


# libs/langgraph/tests/test_pregel.py::test_parent_command_goto (subgraph_persist=False, no timeout)
def parent_command_goto() -> CompiledStateGraph[Any, Any, Any, Any]:
    def node_a_child(state: Dialog) -> dict[str, Any]:
        return {"dialog_state": ["a_child_state"]}

    def node_b_child(state: Dialog) -> Command[Any]:
        return Command(graph=Command.PARENT, goto="node_b_parent", update={"dialog_state": ["b_child_state"]})

    sub_builder = StateGraph(Dialog)
    sub_builder.add_node(node_a_child)
    sub_builder.add_node(node_b_child)
    sub_builder.add_edge(START, "node_a_child")
    sub_builder.add_edge("node_a_child", "node_b_child")
    sub_graph = sub_builder.compile()

    def node_b_parent(state: Dialog) -> dict[str, Any]:
        return {"dialog_state": ["node_b_parent"]}

    main_builder = StateGraph(Dialog)
    main_builder.add_node(node_b_parent)
    main_builder.add_edge(START, "subgraph_node")
    main_builder.add_node("subgraph_node", sub_graph, destinations=("node_b_parent",))
    return main_builder.compile(name="parent")


CASES = (
    Case("subgraphs", "nested_graph", {"my_key": "my value"}),
    Case("subgraphs", "nested_twice", {"messages": []}),
    Case("subgraphs", "output_schema_subgraph", {"a": 2, "b": 3}),
    Case("subgraphs", "root_channel", ["0"]),
    Case("subgraphs", "parent_command", {"messages": [("user", "get user name")]}),
    Case("subgraphs", "parent_command_goto", {"dialog_state": ["init_state"]}),
)
