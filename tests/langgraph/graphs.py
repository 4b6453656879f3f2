"""Real LangGraph graphs the LangGraph tests build: a counting loop with a labelled conditional edge, a
graph with a compiled subgraph, a `Send` fan-out with a waiting join, and a hand-built ReAct loop whose
tool can fail. Each builder returns a `StateGraph`; tests compile them with or without a checkpointer."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, Send, interrupt

from fixtures.langgraph_react import ScriptedToolModel


class Counter(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def loop(limit: int = 3) -> StateGraph[Counter, Any, Counter, Counter]:
    """`START -> work -> (again: work | done: finish) -> END`: `work` runs until `n` reaches `limit`."""

    def work(state: Counter) -> dict[str, Any]:
        return {"n": state["n"] + 1, "log": [f"work {state['n'] + 1}"]}

    def finish(state: Counter) -> dict[str, Any]:
        return {"log": ["finish"]}

    graph = StateGraph(Counter)
    graph.add_node("work", work)
    graph.add_node("finish", finish)
    graph.add_edge(START, "work")
    graph.add_conditional_edges(
        "work", lambda s: "again" if s["n"] < limit else "done", {"again": "work", "done": "finish"}
    )
    graph.add_edge("finish", END)
    return graph


def nested() -> StateGraph[Counter, Any, Counter, Counter]:
    """`START -> prepare -> child -> END` where `child` is a compiled two-step subgraph."""

    def inner_a(state: Counter) -> dict[str, Any]:
        return {"n": state["n"] * 10, "log": ["inner a"]}

    def inner_b(state: Counter) -> dict[str, Any]:
        return {"n": state["n"] + 1, "log": ["inner b"]}

    child = StateGraph(Counter)
    child.add_node("inner_a", inner_a)
    child.add_node("inner_b", inner_b)
    child.add_edge(START, "inner_a")
    child.add_edge("inner_a", "inner_b")
    child.add_edge("inner_b", END)

    def prepare(state: Counter) -> dict[str, Any]:
        return {"n": state["n"] + 2, "log": ["prepare"]}

    graph = StateGraph(Counter)
    graph.add_node("prepare", prepare)
    graph.add_node("child", child.compile(name="child"))
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "child")
    graph.add_edge("child", END)
    return graph


class FanOut(TypedDict):
    topics: list[str]
    results: Annotated[list[str], operator.add]
    summary: str


def fan_out() -> StateGraph[FanOut, Any, FanOut, FanOut]:
    """`plan` sends one `worker` task per topic (`Send`), then `review` and `audit` run in parallel and
    `report` waits for both (a waiting edge)."""

    def plan(state: FanOut) -> dict[str, Any]:
        return {"results": []}

    def worker(task: dict[str, Any]) -> dict[str, Any]:
        return {"results": [f"notes on {task['topic']}"]}

    def review(state: FanOut) -> dict[str, Any]:
        return {"results": ["reviewed"]}

    def audit(state: FanOut) -> dict[str, Any]:
        return {"results": ["audited"]}

    def report(state: FanOut) -> dict[str, Any]:
        return {"summary": "; ".join(sorted(state["results"]))}

    graph = StateGraph(FanOut)
    graph.add_node("plan", plan)
    graph.add_node("worker", worker)  # pyright: ignore[reportArgumentType]  (its input is a `Send` task)
    graph.add_node("review", review)
    graph.add_node("audit", audit)
    graph.add_node("report", report)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges(
        "plan", lambda s: [Send("worker", {"topic": t}) for t in s["topics"]], ["worker"]
    )
    graph.add_edge("worker", "review")
    graph.add_edge("worker", "audit")
    graph.add_edge(["review", "audit"], "report")
    graph.add_edge("report", END)
    return graph


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


@tool
def lookup(city: str) -> str:
    """Look a city up; fails for Atlantis."""
    if city == "Atlantis":
        raise ValueError("no such city: Atlantis")
    return f"{city}: 18°C"


def call(i: int, city: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"id": f"call_{i}", "name": "lookup", "args": {"city": city}}])


def react_loop(script: list[Any]) -> StateGraph[Chat, Any, Chat, Chat]:
    """`START -> agent -> (tools | END)`, `tools -> agent` with a scripted model and `lookup`."""
    model = ScriptedToolModel(responses=script)

    def agent(state: Chat) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(Chat)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([lookup]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph


class Text(TypedDict):
    text: str


def _upper(state: Text) -> dict[str, Any]:
    return {"text": state["text"].upper()}


def _exclaim(state: Text) -> dict[str, Any]:
    return {"text": state["text"] + "!"}


def sequence() -> StateGraph[Text, Any, Text, Text]:
    """`add_sequence`: `START -> upper -> exclaim`, no edge out of `exclaim` (LangGraph ends there)."""
    graph = StateGraph(Text).add_sequence([("upper", _upper), ("exclaim", _exclaim)])
    graph.add_edge(START, "upper")
    return graph


def command_router() -> StateGraph[Text, Any, Text, Text]:
    """`route` returns `Command[Literal["upper", "exclaim"]]` (the destinations come from the return
    annotation); neither target has an edge out."""

    def route(state: Text) -> Command[Literal["upper", "exclaim"]]:
        return Command(goto="upper" if state["text"].islower() else "exclaim")

    graph = StateGraph(Text)
    graph.add_node("route", route)
    graph.add_node("upper", _upper)
    graph.add_node("exclaim", _exclaim)
    graph.add_edge(START, "route")
    return graph


def declared_destinations() -> StateGraph[Text, Any, Text, Text]:
    """`route` declares its `Command` targets with `destinations=` (a dict: the values are labels)."""

    def route(state: Text) -> Command[Any]:
        return Command(goto="exclaim", update={"text": state["text"] + "?"})

    graph = StateGraph(Text)
    graph.add_node("route", route, destinations={"upper": "quiet", "exclaim": "loud"})
    graph.add_node("upper", _upper)
    graph.add_node("exclaim", _exclaim)
    graph.add_edge(START, "route")
    return graph


def ask_human() -> StateGraph[Text, Any, Text, Text]:
    """`START -> ask`: `ask` waits at `interrupt()` and has no edge out (the smallest human-in-the-loop
    graph of LangGraph's docs)."""

    def ask(state: Text) -> dict[str, Any]:
        return {"text": str(interrupt({"question": state["text"]}))}

    graph = StateGraph(Text)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    return graph


class Research(TypedDict, total=False):
    question: str
    notes: str
    answer: str


class Answer(TypedDict):
    answer: str


def with_output_schema() -> StateGraph[Research, Any, Research, Answer]:
    """`START -> take_notes -> answer` over a state of three keys; `invoke()` returns only `answer`
    (`output_schema=Answer`)."""

    def take_notes(state: Research) -> dict[str, Any]:
        return {"notes": f"notes on {state.get('question', '')}"}

    def answer(state: Research) -> dict[str, Any]:
        return {"answer": state.get("notes", "").upper()}

    graph = StateGraph(Research, output_schema=Answer).add_sequence([take_notes, answer])
    graph.add_edge(START, "take_notes")
    return graph


__all__ = [
    "END",
    "Answer",
    "Chat",
    "Counter",
    "FanOut",
    "Research",
    "Text",
    "ask_human",
    "call",
    "command_router",
    "declared_destinations",
    "fan_out",
    "lookup",
    "loop",
    "nested",
    "react_loop",
    "sequence",
    "with_output_schema",
]
