"""Conditional edges with and without path maps, conditional entry points, loops between agents.

Each factory returns a compiled graph; its source in langchain-ai/langgraph is named above it."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph

from tests.langgraph.corpus.case import Case

__all__ = ["CASES", "conditional_entry", "no_path_map_callable", "no_path_map_function", "repeat_condition"]


class AgentState(TypedDict, total=False):
    input: str
    output: str
    steps: Annotated[list[str], operator.add]


# libs/langgraph/tests/test_pregel.py::test_conditional_entrypoint_graph_state
def conditional_entry() -> CompiledStateGraph[Any, Any, Any, Any]:
    def left(state: AgentState) -> AgentState:
        return {"output": state.get("input", "") + "->left"}

    def right(state: AgentState) -> AgentState:
        return {"output": state.get("input", "") + "->right"}

    def should_start(state: AgentState) -> str:
        return "go-right" if len(state.get("input", "")) > 10 else "go-left"

    workflow = StateGraph(AgentState)
    workflow.add_node("left", left)
    workflow.add_node("right", right)
    workflow.set_conditional_entry_point(should_start, {"go-left": "left", "go-right": "right"})
    workflow.add_conditional_edges("left", lambda data: END, {END: END})
    workflow.add_edge("right", END)
    return workflow.compile()


class Query(TypedDict, total=False):
    query: str


def _rewrite(state: Query) -> Query:
    return {"query": f"query: {state.get('query')}"}


def _analyze(state: Query) -> Query:
    return {"query": f"analyzed: {state.get('query')}"}


# libs/langgraph/tests/test_pregel.py::test_callable_in_conditional_edges_with_no_path_map
def no_path_map_callable() -> CompiledStateGraph[Any, Any, Any, Any]:
    class ChooseAnalyzer:
        def __call__(self, data: Query) -> str:
            return "analyzer"

    workflow = StateGraph(Query)
    workflow.add_node("rewriter", _rewrite)
    workflow.add_node("analyzer", _analyze)
    workflow.add_conditional_edges("rewriter", ChooseAnalyzer())
    workflow.set_entry_point("rewriter")
    return workflow.compile()


# libs/langgraph/tests/test_pregel.py::test_function_in_conditional_edges_with_no_path_map
def no_path_map_function() -> CompiledStateGraph[Any, Any, Any, Any]:
    def choose_analyzer(data: Query) -> str:
        return "analyzer"

    workflow = StateGraph(Query)
    workflow.add_node("rewriter", _rewrite)
    workflow.add_node("analyzer", _analyze)
    workflow.add_conditional_edges("rewriter", choose_analyzer)
    workflow.set_entry_point("rewriter")
    return workflow.compile()


class Team(TypedDict, total=False):
    sender: str
    turns: Annotated[list[str], operator.add]


# libs/langgraph/tests/test_pregel.py::test_repeat_condition (the router always said "hmm", a key its
# path maps lack; here it follows a script: call a tool, go on to the chart, then end)
def repeat_condition() -> CompiledStateGraph[Any, Any, Any, Any]:
    def researcher(state: Team) -> Team:
        return {"sender": "Researcher", "turns": ["Researcher"]}

    def chart(state: Team) -> Team:
        return {"sender": "Chart Generator", "turns": ["Chart Generator"]}

    def call_tool(state: Team) -> Team:
        return {"turns": ["Call Tool"]}

    def router(state: Team) -> str:
        turns = state.get("turns", [])
        if turns == ["Researcher"]:
            return "call_tool"
        if turns[-1] == "Researcher":
            return "continue"
        return "end"

    workflow = StateGraph(Team)
    workflow.add_node("Researcher", researcher)
    workflow.add_node("Chart Generator", chart)
    workflow.add_node("Call Tool", call_tool)
    workflow.add_conditional_edges(
        "Researcher",
        router,
        {"redo": "Researcher", "continue": "Chart Generator", "call_tool": "Call Tool", "end": END},
    )
    workflow.add_conditional_edges(
        "Chart Generator", router, {"continue": "Researcher", "call_tool": "Call Tool", "end": END}
    )
    workflow.add_conditional_edges(
        "Call Tool",
        lambda x: x["sender"],
        {"Researcher": "Researcher", "Chart Generator": "Chart Generator"},
    )
    workflow.set_entry_point("Researcher")
    return workflow.compile()


_NO_PATH_MAP = frozenset(
    {
        ("start", "rewriter"),
        ("rewriter", "rewriter"),
        ("rewriter", "analyzer"),
        ("rewriter", "end"),
        ("analyzer", "end"),
    }
)

CASES = (
    Case("branching", "conditional_entry", {"input": "what is weather in sf"}),
    # get_graph() draws `rewriter -> __end__` only, though every run goes on to `analyzer`: without a
    # path map the condition may name any node or END, so all are drawn (the legend says so)
    Case("branching", "no_path_map_callable", {"query": "what is weather in sf"}, truth=_NO_PATH_MAP),
    Case("branching", "no_path_map_function", {"query": "what is weather in sf"}, truth=_NO_PATH_MAP),
    Case("branching", "repeat_condition", {"turns": []}),
)
