"""A LangGraph state's lists are converted once and grown, by where they sit: a thread whose plain list
grows every step costs each step its new items (counted, not timed), and a list never extends the
conversion of another key's list, a list it replaced, or one whose items changed."""

from __future__ import annotations

import operator
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from graph_core.schema import Message
from inspector.adapters.langgraph import Neutralizer
from inspector.recording import read_run
from inspector.sources.langgraph import read_thread, write_thread_run


class _Log(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def _thread(db: Path, thread: str, steps: int) -> None:
    """A LangGraph thread of `steps` steps, each adding one line to a plain `operator.add` list."""
    graph = StateGraph(_Log)

    def work(state: _Log) -> dict[str, Any]:
        return {"n": state["n"] + 1, "log": [f"step {state['n'] + 1}"]}

    def again(state: _Log) -> str:
        return "work" if state["n"] < steps else END

    graph.add_node("work", work)
    graph.add_edge(START, "work")
    graph.add_conditional_edges("work", again, ["work", END])
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        app = graph.compile(checkpointer=SqliteSaver(conn))
        app.invoke(
            {"n": 0, "log": []}, {"configurable": {"thread_id": thread}, "recursion_limit": steps + 10}
        )


def _conversions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per value the neutralizer walks (a list item, a dict, a state)."""
    calls: list[int] = []
    original = Neutralizer._walk  # pyright: ignore[reportPrivateUsage]

    def counting(self: Neutralizer, value: Any, depth: int, where: Any, extend: bool) -> Any:
        calls.append(depth)
        return original(self, value, depth, where, extend)

    monkeypatch.setattr(Neutralizer, "_walk", counting)
    return calls


def test_a_growing_plain_list_costs_each_step_its_new_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "checkpoints.sqlite"
    _thread(db, "short", 100)
    _thread(db, "long", 200)
    walked = _conversions(monkeypatch)
    counts: dict[str, int] = {}
    for thread in ("short", "long"):
        walked.clear()
        out = write_thread_run(read_thread(db, thread), tmp_path / f"{thread}.jsonl", thread_id=thread)
        counts[thread] = len(walked)
        run = read_run(out)
        assert list(run.state_at(len(run.steps) - 1)["log"]) == [
            f"step {i}" for i in range(1, 101 if thread == "short" else 201)
        ]
    # linear: twice the steps, about twice the walks (every list copied whole each step: about 4x)
    assert counts["long"] <= 2.2 * counts["short"], counts


def test_two_keys_whose_lists_begin_alike_never_share_a_conversion() -> None:
    neutral = Neutralizer()
    hi = HumanMessage("hi")
    first = neutral.state({"a": ["x"], "b": ["x", "y"], "m": [hi], "k": [hi, AIMessage("yo")]})
    assert first["a"] == ["x"] and first["m"] == [Message.user("hi")]
    second = neutral.state({"a": ["x"], "b": ["x", "y", "z"], "m": [hi], "k": [hi, AIMessage("yo")]})
    assert second["a"] is first["a"] and first["a"] == ["x"]  # not extended by `b`'s items
    assert second["b"] is first["b"] and second["b"] == ["x", "y", "z"]
    assert second["m"] is first["m"] and [m.content for m in first["m"]] == ["hi"]
    assert [m.content for m in second["k"]] == ["hi", "yo"]


def test_graphs_at_other_paths_keep_their_own_lists() -> None:
    neutral = Neutralizer()
    top = neutral.state({"log": ["a"]})
    nested = neutral.state({"log": ["a", "b"]}, ("sub",))
    assert top["log"] == ["a"] and nested["log"] == ["a", "b"]


def test_a_list_replaced_by_a_shorter_one_is_converted_afresh() -> None:
    neutral = Neutralizer()
    long = neutral.state({"log": ["a", "b", "c"]})["log"]
    short = neutral.state({"log": ["a"]})["log"]
    assert short is not long and short == ["a"] and long == ["a", "b", "c"]
    grown = neutral.state({"log": ["a", "q"]})["log"]
    assert grown is short and grown == ["a", "q"] and long == ["a", "b", "c"]
    other = neutral.state({"log": ["z", "q", "r"]})["log"]  # not a prefix: a new conversion
    assert other is not grown and other == ["z", "q", "r"] and grown == ["a", "q"]


def test_a_list_edited_in_place_is_seen() -> None:
    neutral = Neutralizer()
    log = ["a", "b"]
    before = neutral.state({"log": log})["log"]
    log[0] = "edited"
    log.append("c")
    after = neutral.state({"log": log})["log"]
    assert after == ["edited", "b", "c"] and before == ["a", "b"]


def test_equal_items_of_another_type_are_not_taken_for_the_old_ones() -> None:
    neutral = Neutralizer()
    neutral.state({"ids": [1, 2]})  # equal by `==` as [True, 2]: the items' types tell them apart
    assert [type(x) for x in neutral.state({"ids": [True, 2, 3]})["ids"]] == [bool, int, int]
    neutral.state({"flags": [1, 0.0]})
    assert [type(x) for x in neutral.state({"flags": [True, 0.0, 2]})["flags"]] == [bool, float, int]
    signed = neutral.state({"flags": [True, -0.0, 2, 3]})["flags"]
    assert str(signed[1]) == "-0.0"


def test_lists_of_dicts_and_tuples_with_messages_inside() -> None:
    neutral = Neutralizer()
    hi, yo = HumanMessage("hi"), AIMessage("yo")
    pairs = neutral.state({"pairs": [("user", hi)]})["pairs"]
    grown = neutral.state({"pairs": [("user", hi), ("ai", yo)]})["pairs"]
    assert grown is pairs and grown == [("user", Message.user("hi")), ("ai", Message.assistant("yo"))]
    turn: dict[str, Any] = {"said": hi}
    rows = neutral.state({"rows": [turn]})["rows"]
    assert rows == [{"said": Message.user("hi")}]
    turn["said"] = yo  # a dict edited in place: its list is converted again, never reused stale
    again = neutral.state({"rows": [turn, {"said": hi}]})["rows"]
    assert again == [{"said": Message.assistant("yo")}, {"said": Message.user("hi")}]
    assert rows == [{"said": Message.user("hi")}]


def test_a_node_input_reuses_the_state_conversion_but_never_extends_it() -> None:
    neutral = Neutralizer()
    state = neutral.state({"log": ["a"]})["log"]
    assert neutral.node_input({"log": ["a"]})["log"] is state
    sent = neutral.node_input({"log": ["a", "extra"]})["log"]  # a `Send`'s input: not the state
    assert sent == ["a", "extra"] and state == ["a"]
    assert neutral.state({"log": ["a", "b"]})["log"] is state and state == ["a", "b"]
