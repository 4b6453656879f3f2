"""Threads written by LangGraph itself, on a SQLite file or a PostgreSQL database, for the thread tests.

`Backend` is one checkpointer location with the saver that writes it and a fingerprint of everything it
stores (to prove reading wrote nothing); `write_threads` runs the graphs the tests open: the ReAct
fixture, a supervisor with a subgraph, a map-reduce with `Send`, an `interrupt()` resumed with
`Command(resume=...)`, and a thread forked with `update_state` on an earlier checkpoint.
"""

from __future__ import annotations

import hashlib
import operator
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from fixtures.langgraph_react import QUESTION, build_agent
from tests.langgraph.graphs import fan_out, loop

__all__ = ["THREADS", "Backend", "config", "write_threads"]

_TABLES = {
    "sqlite": ("checkpoints", "writes"),
    "postgres": ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"),
}


def config(thread: str, **more: Any) -> Any:
    return {"configurable": {"thread_id": thread, **more}}


class Backend:
    """A checkpointer location: a SQLite file or a Postgres database URL."""

    def __init__(self, kind: str, location: str) -> None:
        self.kind = kind
        self.location = location

    @contextmanager
    def saver(self) -> Iterator[BaseCheckpointSaver[Any]]:
        """The saver LangGraph writes the location with (closed after: SQLite folds its log in)."""
        if self.kind == "sqlite":
            from langgraph.checkpoint.sqlite import SqliteSaver

            with closing(sqlite3.connect(self.location, check_same_thread=False)) as conn:
                yield SqliteSaver(conn)
            return
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection
        from psycopg.rows import dict_row

        with Connection.connect(
            self.location,
            autocommit=True,
            prepare_threshold=0,
            row_factory=dict_row,  # pyright: ignore[reportArgumentType]
        ) as conn:
            saver = PostgresSaver(conn)  # pyright: ignore[reportArgumentType]
            saver.setup()  # creates the tables, as every PostgresSaver user must once
            yield saver

    def fingerprint(self) -> str:
        """A digest of everything stored: the file's bytes, or every row of every table."""
        if self.kind == "sqlite":
            return hashlib.sha256(Path(self.location).read_bytes()).hexdigest()
        import psycopg

        digest = hashlib.sha256()
        with psycopg.connect(self.location) as conn:
            for table in _TABLES["postgres"]:
                rows = conn.execute(f"SELECT t::text FROM {table} t ORDER BY 1").fetchall()  # pyright: ignore[reportCallIssue, reportArgumentType]
                digest.update(repr(rows).encode())
        return digest.hexdigest()


class Team(TypedDict):
    task: str
    log: Annotated[list[str], operator.add]


def supervisor() -> StateGraph[Team, Any, Team, Team]:
    """`supervisor` sends the task to `research` (a compiled two-step subgraph) once, then ends."""

    def search(state: Team) -> dict[str, Any]:
        return {"log": [f"searched {state['task']}"]}

    def summarize(state: Team) -> dict[str, Any]:
        return {"log": ["summarized"]}

    research = StateGraph(Team)
    research.add_node("search", search)
    research.add_node("summarize", summarize)
    research.add_edge(START, "search")
    research.add_edge("search", "summarize")
    research.add_edge("summarize", END)

    def route(state: Team) -> dict[str, Any]:
        return {"log": ["supervised"]}

    graph = StateGraph(Team)
    graph.add_node("supervisor", route)
    graph.add_node("research", research.compile(name="research"))
    graph.add_edge(START, "supervisor")
    graph.add_conditional_edges(
        "supervisor", lambda s: END if "summarized" in s["log"] else "research", ["research", END]
    )
    graph.add_edge("research", "supervisor")
    return graph


class Approval(TypedDict):
    request: str
    log: Annotated[list[str], operator.add]


def approval() -> StateGraph[Approval, Any, Approval, Approval]:
    """`draft`, then `approve`, which asks a human with `interrupt()`."""

    def draft(state: Approval) -> dict[str, Any]:
        return {"log": [f"drafted {state['request']}"]}

    def approve(state: Approval) -> dict[str, Any]:
        answer = interrupt({"question": "approve?", "request": state["request"]})
        return {"log": [f"approved: {answer}"]}

    builder = StateGraph(Approval)
    builder.add_node("draft", draft)
    builder.add_node("approve", approve)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "approve")
    builder.add_edge("approve", END)
    return builder


THREADS = ("react", "react-again", "beijing", "supervisor", "map", "paused", "approved", "forked")


def write_threads(backend: Backend) -> dict[str, Any]:
    """Run every graph on `backend`, one thread each; what LangGraph says of them (`get_state`, and
    the forked thread's state on each branch) for the tests to compare with."""
    truth: dict[str, Any] = {}
    with backend.saver() as saver:
        agent = build_agent()
        agent.checkpointer = saver
        agent.invoke({"messages": [("user", QUESTION)]}, config("react"))
        agent.invoke({"messages": [("user", QUESTION)]}, config("react-again"))
        agent.invoke({"messages": [("user", "Weather in Beijing?")]}, config("beijing"))
        team = supervisor().compile(checkpointer=saver)
        truth["supervisor"] = team.invoke({"task": "tides", "log": []}, config("supervisor"))
        mapper = fan_out().compile(checkpointer=saver)
        truth["map"] = mapper.invoke({"topics": ["a", "b", "c"], "results": [], "summary": ""}, config("map"))
        human = approval().compile(checkpointer=saver)
        human.invoke({"request": "ship", "log": []}, config("paused"))
        human.invoke({"request": "ship", "log": []}, config("approved"))
        truth["approved"] = human.invoke(Command(resume="yes"), config("approved"))
        counter = loop(3).compile(checkpointer=saver)
        truth["forked-1"] = counter.invoke({"n": 0, "log": []}, config("forked"))
        history = list(counter.get_state_history(config("forked")))
        first = next(s for s in history if s.metadata is not None and s.metadata.get("step") == 1)
        edited = counter.update_state(first.config, {"n": 1, "log": ["edited"]}, as_node="work")
        truth["forked-2"] = counter.invoke(None, edited)
        truth["forked-edit"] = first.config.get("configurable", {})["checkpoint_id"]
    return truth
