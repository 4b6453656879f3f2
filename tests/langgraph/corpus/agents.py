"""Tool-calling agents: LangGraph's prebuilt `create_react_agent`, LangChain v1's `create_agent`, and
the hand-built loop of a `ToolNode` with `tools_condition`, each on a scripted model (no network).

Each factory returns a compiled graph; its source is named above it."""

from __future__ import annotations

import warnings
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from fixtures.langgraph_react import ScriptedToolModel
from tests.langgraph.corpus.case import Case

__all__ = ["CASES", "create_agent_search", "react_agent_search", "tool_node_loop"]

QUESTION = {"messages": [{"role": "user", "content": "what is the weather in sf"}]}


def search(query: str) -> str:
    """Call to surf the web."""
    if "sf" in query.lower() or "san francisco" in query.lower():
        return "It's 60 degrees and foggy."
    return "It's 90 degrees and sunny."


def _script() -> list[BaseMessage]:
    """Two searches in one turn (two parallel tool tasks), then the answer."""
    return [
        AIMessage(
            "",
            tool_calls=[
                {"id": "call_1", "name": "search", "args": {"query": "weather in sf"}},
                {"id": "call_2", "name": "search", "args": {"query": "weather in la"}},
            ],
        ),
        AIMessage("Foggy and 60 degrees in SF."),
    ]


# libs/prebuilt/README.md ("Agents": `create_react_agent(model, tools)` with the `search` tool; a
# scripted model instead of ChatAnthropic)
def react_agent_search() -> CompiledStateGraph[Any, Any, Any, Any]:
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # it moved to langchain.agents.create_agent: the next case
        warnings.simplefilter("ignore")
        return create_react_agent(ScriptedToolModel(responses=_script()), [search])


# libs/prebuilt/tests/test_deprecation.py names `langchain.agents.create_agent` as create_react_agent's
# successor; the same agent built with it (langchain v1)
def create_agent_search() -> CompiledStateGraph[Any, Any, Any, Any]:
    from langchain.agents import create_agent

    return create_agent(ScriptedToolModel(responses=_script()), tools=[search])


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


# libs/prebuilt/README.md ("ToolNode" and `tools_condition`: the agent loop built by hand)
def tool_node_loop() -> CompiledStateGraph[Any, Any, Any, Any]:
    model = ScriptedToolModel(responses=_script())

    def agent(state: Chat) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(Chat)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([search]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


CASES = (
    Case("agents", "react_agent_search", QUESTION),
    Case("agents", "create_agent_search", QUESTION),
    Case("agents", "tool_node_loop", QUESTION),
)
