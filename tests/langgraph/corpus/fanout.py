"""Parallel branches, waiting edges (joins), deferred nodes and `Send` fan-out (map-reduce).

Each factory returns a compiled graph; its source in langchain-ai/langgraph is named above it. The
`sleep`s the originals use to order their streams are left out: the tests compare supersteps, in which
parallel nodes have no order."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, Send

from tests.langgraph.corpus.case import Case

__all__ = [
    "CASES",
    "concurrent_sends",
    "cond_edge_after_send",
    "defer_node",
    "list_edge_inputs",
    "parallel_nodes",
    "send_entry",
    "send_sequences",
    "waiting_edge",
    "waiting_edge_via_branch",
]


class Weather(TypedDict, total=False):
    locations: list[str]
    location: str
    results: Annotated[list[str], operator.add]


# libs/langgraph/tests/test_pregel.py::test_conditional_entrypoint_to_multiple_state_graph
def send_entry() -> CompiledStateGraph[Any, Any, Any, Any]:
    def get_weather(state: Weather) -> Weather:
        location = state.get("location", "")
        weather = "sunny" if len(location) > 2 else "cloudy"
        return {"results": [f"It's {weather} in {location}"]}

    def continue_to_weather(state: Weather) -> list[Send]:
        return [Send("get_weather", {"location": location}) for location in state.get("locations", [])]

    workflow = StateGraph(Weather)
    workflow.add_node("get_weather", get_weather)
    workflow.add_edge("get_weather", END)
    workflow.set_conditional_entry_point(continue_to_weather, path_map=["get_weather"])
    return workflow.compile()


class _Node:
    """A callable node named by its instance (the tests' `Node("1")`): appends its name to the list
    state, or `name|arg` for what a `Send` gave it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__name__ = name

    def __call__(self, state: Any) -> Any:
        update = [self.name] if isinstance(state, list) else ["|".join((self.name, str(state)))]
        if isinstance(state, Command):
            return [state, Command(update=update)]
        return update


def _route_to_three(state: Any) -> Literal["3"]:
    return "3"


# libs/langgraph/tests/test_pregel.py::test_cond_edge_after_send
def cond_edge_after_send() -> CompiledStateGraph[Any, Any, Any, Any]:
    def send_for_fun(state: Any) -> Any:
        return [Send("2", state), Send("2", state)]

    builder = StateGraph(Annotated[list, operator.add])  # pyright: ignore[reportArgumentType]
    builder.add_node(_Node("1"))
    builder.add_node(_Node("2"))
    builder.add_node(_Node("3"))
    builder.add_edge(START, "1")
    builder.add_conditional_edges("1", send_for_fun)
    builder.add_conditional_edges("2", _route_to_three)
    return builder.compile()


# libs/langgraph/tests/test_pregel.py::test_concurrent_emit_sends
def concurrent_sends() -> CompiledStateGraph[Any, Any, Any, Any]:
    def send_for_fun(state: Any) -> Any:
        return [Send("2", 1), Send("2", 2), "3.1"]

    def send_for_profit(state: Any) -> Any:
        return [Send("2", 3), Send("2", 4)]

    builder = StateGraph(Annotated[list, operator.add])  # pyright: ignore[reportArgumentType]
    for name in ("1", "1.1", "2", "3", "3.1"):
        builder.add_node(_Node(name))
    builder.add_edge(START, "1")
    builder.add_edge(START, "1.1")
    builder.add_conditional_edges("1", send_for_fun)
    builder.add_conditional_edges("1.1", send_for_profit)
    builder.add_conditional_edges("2", _route_to_three)
    return builder.compile()


# libs/langgraph/tests/test_pregel.py::test_send_sequences (a Send whose argument is a Command that
# sends again)
def send_sequences() -> CompiledStateGraph[Any, Any, Any, Any]:
    def send_for_fun(state: Any) -> Any:
        return [Send("2", Command(goto=Send("2", 3))), Send("2", Command(goto=Send("2", 4))), "3.1"]

    builder = StateGraph(Annotated[list, operator.add])  # pyright: ignore[reportArgumentType]
    for name in ("1", "2", "3", "3.1"):
        builder.add_node(_Node(name))
    builder.add_edge(START, "1")
    builder.add_conditional_edges("1", send_for_fun)
    builder.add_conditional_edges("2", _route_to_three)
    return builder.compile()


class Foo(TypedDict):
    foo: Annotated[list[str], operator.add]


# libs/langgraph/tests/test_pregel.py::test_conditional_state_graph_with_list_edge_inputs
def list_edge_inputs() -> CompiledStateGraph[Any, Any, Any, Any]:
    graph_builder = StateGraph(Foo)
    graph_builder.add_node("A", lambda state: {"foo": ["A"]})
    graph_builder.add_node("B", lambda state: {"foo": ["B"]})
    graph_builder.add_edge(START, "A")
    graph_builder.add_edge(START, "B")
    graph_builder.add_edge(["A", "B"], END)
    return graph_builder.compile()


def _sorted_add(x: list[str], y: list[str]) -> list[str]:
    return sorted(operator.add(x, y))


class Docs(TypedDict, total=False):
    query: str
    answer: str
    docs: Annotated[list[str], _sorted_add]


def _rewrite_query(state: Docs) -> Docs:
    return {"query": f"query: {state.get('query')}"}


def _analyzer_one(state: Docs) -> Docs:
    return {"query": f"analyzed: {state.get('query')}"}


def _retriever_one(state: Docs) -> Docs:
    return {"docs": ["doc1", "doc2"]}


def _retriever_two(state: Docs) -> Docs:
    return {"docs": ["doc3", "doc4"]}


def _qa(state: Docs) -> Docs:
    return {"answer": ",".join(state.get("docs", []))}


# libs/langgraph/tests/test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge
def waiting_edge() -> CompiledStateGraph[Any, Any, Any, Any]:
    workflow = StateGraph(Docs)
    workflow.add_node("rewrite_query", _rewrite_query)
    workflow.add_node("analyzer_one", _analyzer_one)
    workflow.add_node("retriever_one", _retriever_one)
    workflow.add_node("retriever_two", _retriever_two)
    workflow.add_node("qa", _qa)
    workflow.set_entry_point("rewrite_query")
    workflow.add_edge("rewrite_query", "analyzer_one")
    workflow.add_edge("analyzer_one", "retriever_one")
    workflow.add_edge("rewrite_query", "retriever_two")
    workflow.add_edge(["retriever_one", "retriever_two"], "qa")
    workflow.set_finish_point("qa")
    return workflow.compile()


# libs/langgraph/tests/test_pregel.py::test_in_one_fan_out_state_graph_defer_node (use_waiting_edge=False)
def defer_node() -> CompiledStateGraph[Any, Any, Any, Any]:
    workflow = StateGraph(Docs)
    workflow.add_node("rewrite_query", _rewrite_query)
    workflow.add_node("analyzer_one", _analyzer_one)
    workflow.add_node("retriever_one", _retriever_one)
    workflow.add_node("retriever_two", _retriever_two)
    workflow.add_node("qa", _qa, defer=True)
    workflow.set_entry_point("rewrite_query")
    workflow.add_edge("rewrite_query", "retriever_one")
    workflow.add_edge("rewrite_query", "analyzer_one")
    workflow.add_edge("analyzer_one", "retriever_two")
    workflow.add_edge("retriever_one", "qa")
    workflow.add_edge("retriever_two", "qa")
    workflow.set_finish_point("qa")
    return workflow.compile()


# libs/langgraph/tests/test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_via_branch
def waiting_edge_via_branch() -> CompiledStateGraph[Any, Any, Any, Any]:
    def rewrite_query_then(state: Docs) -> Literal["retriever_two"]:
        return "retriever_two"

    workflow = StateGraph(Docs)
    workflow.add_node("rewrite_query", _rewrite_query)
    workflow.add_node("analyzer_one", _analyzer_one)
    workflow.add_node("retriever_one", _retriever_one)
    workflow.add_node("retriever_two", _retriever_two)
    workflow.add_node("qa", _qa)
    workflow.set_entry_point("rewrite_query")
    workflow.add_edge("rewrite_query", "analyzer_one")
    workflow.add_edge("analyzer_one", "retriever_one")
    workflow.add_conditional_edges("rewrite_query", rewrite_query_then)
    workflow.add_edge(["retriever_one", "retriever_two"], "qa")
    workflow.set_finish_point("qa")
    return workflow.compile()


class Results(TypedDict):
    results: Annotated[list[str], operator.add]


# libs/langgraph/tests/test_pregel.py::test_parallel_node_execution (without its sleeps)
def parallel_nodes() -> CompiledStateGraph[Any, Any, Any, Any]:
    def slow_node(state: Results) -> dict[str, Any]:
        return {"results": ["slow"]}

    def fast_node(state: Results) -> dict[str, Any]:
        return {"results": ["fast"]}

    builder = StateGraph(Results)
    builder.add_node("slow", slow_node)
    builder.add_node("fast", fast_node)
    builder.add_edge(START, "slow")
    builder.add_edge(START, "fast")
    return builder.compile()


def _anywhere(source: str, nodes: tuple[str, ...]) -> set[tuple[str, str]]:
    """A condition without a path map may name any node or END."""
    return {(source, target) for target in (*nodes, "end")}


# get_graph() draws `1 -> __end__` (and `1.1 -> __end__`) where the condition sends to `2` (and names
# `3.1`), and drops everything past them; the truth is every target the condition may name
_AFTER_SEND = frozenset({("start", "1"), *_anywhere("1", ("1", "2", "3")), ("2", "3"), ("3", "end")})
_CONCURRENT = frozenset(
    {
        ("start", "1"),
        ("start", "1.1"),
        *_anywhere("1", ("1", "1.1", "2", "3", "3.1")),
        *_anywhere("1.1", ("1", "1.1", "2", "3", "3.1")),
        ("2", "3"),
        ("3", "end"),
        ("3.1", "end"),
    }
)
_SEQUENCES = frozenset(
    {("start", "1"), *_anywhere("1", ("1", "2", "3", "3.1")), ("2", "3"), ("3", "end"), ("3.1", "end")}
)

CASES = (
    Case("fanout", "send_entry", {"locations": ["sf", "nyc"]}),
    Case("fanout", "cond_edge_after_send", ["0"], truth=_AFTER_SEND),
    Case("fanout", "concurrent_sends", ["0"], truth=_CONCURRENT),
    Case("fanout", "send_sequences", ["0"], truth=_SEQUENCES),
    Case("fanout", "list_edge_inputs", {"foo": []}),
    Case("fanout", "waiting_edge", {"query": "what is weather in sf"}),
    Case("fanout", "defer_node", {"query": "what is weather in sf"}),
    Case("fanout", "waiting_edge_via_branch", {"query": "what is weather in sf"}),
    Case("fanout", "parallel_nodes", {"results": []}),
)
