"""Human-in-the-loop graphs that stop at `interrupt()` and are resumed with `Command(resume=...)`.

Each factory returns a graph compiled with an in-memory checkpointer (an interrupt needs one); its
source in langchain-ai/langgraph is named above it."""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import interrupt

from tests.langgraph.corpus.case import Case

__all__ = ["CASES", "human_agent_loop", "interrupt_loop"]


class Age(TypedDict, total=False):
    age: int
    other: str


# libs/langgraph/tests/test_pregel.py::test_interrupt_loop
def interrupt_loop() -> CompiledStateGraph[Any, Any, Any, Any]:
    def ask_age(state: Age) -> dict[str, Any]:
        """Ask an expert for help."""
        question = "How old are you?"
        value: str | None = None
        for _ in range(10):
            value = str(interrupt(question))
            if not value.isdigit() or int(value) < 18:
                question = "invalid response"
                value = None
            else:
                break
        return {"age": int(value or 0)}

    builder = StateGraph(Age)
    builder.add_node("node", ask_age)
    builder.add_edge(START, "node")
    return builder.compile(checkpointer=InMemorySaver())


class Foo(TypedDict):
    foo: str


# libs/langgraph/tests/test_pregel.py::test_get_graph_loop (`human -> agent -> human`, no way to END)
def human_agent_loop() -> CompiledStateGraph[Any, Any, Any, Any]:
    def human_node(state: Foo) -> dict[str, Any]:
        value = interrupt("who?")
        return {"foo": value}

    def agent_node(state: Foo) -> dict[str, Any]:
        return {"foo": "Hi " + state["foo"]}

    workflow = StateGraph(Foo)
    workflow.add_node("human", human_node)
    workflow.add_node("agent", agent_node)
    workflow.add_edge(START, "human")
    workflow.add_edge("human", "agent")
    workflow.add_edge("agent", "human")
    return workflow.compile(checkpointer=InMemorySaver())


CASES = (
    Case("interrupts", "interrupt_loop", {"other": ""}, resumes=("13", "15", "19")),
    # get_graph() adds a conditional `agent -> __end__` that no run can take (agent's one way out is
    # its edge back to human)
    Case(
        "interrupts",
        "human_agent_loop",
        {"foo": ""},
        resumes=("Bob", "Alice"),
        finishes=False,
        truth=frozenset({("start", "human"), ("human", "agent"), ("agent", "human")}),
    ),
)
