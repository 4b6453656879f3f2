"""The replay model over a recorded (synthetic) ReAct run."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from graph_core.schema import Message
from inspector.recording import Recorder, read_run
from inspector.recording.synthetic import react_topology, simulate_react
from inspector.replay import Replay


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


@pytest.fixture
def replay(tmp_path: Path) -> Replay:
    path = tmp_path / "run.jsonl"
    simulate_react(Recorder(path, topology=react_topology(), clock=_clock(), run_id="r1"), 3)
    return Replay(read_run(path))


def test_cursor_moves_and_clamps(replay: Replay) -> None:
    assert replay.cursor == 0 and replay.current is not None and replay.current.nodes == ("chat",)
    assert replay.forward() == 1
    assert replay.back() == 0
    assert replay.back() == 0
    assert replay.last() == 6
    assert replay.forward() == 6
    assert replay.go(3) == 3
    assert replay.go(-2) == 5
    assert replay.go(100) == 6
    assert replay.first() == 0


def test_state_at_and_messages_at(replay: Replay) -> None:
    assert len(replay.state_at(0)["messages"]) == 1
    assert len(replay.state_at(1)["messages"]) == 2
    messages = replay.messages_at(6)
    assert all(isinstance(m, Message) for m in messages)
    assert [m.role for m in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    assert messages[2].tool_call_id == "call_0"


def test_diff_shows_appends_and_changes(replay: Replay) -> None:
    changes = replay.diff(0, 2)
    assert [(c.path, c.op) for c in changes] == [(("messages", 1), "appended"), (("messages", 2), "appended")]
    assert changes[0].new["role"] == "assistant"
    first = replay.changes_at(0)
    assert [(c.path, c.op) for c in first] == [((), "added")]
    assert replay.diff(2, 0) == [
        type(changes[0])(("messages", 1), "removed", changes[0].new, None),
        type(changes[0])(("messages", 2), "removed", changes[1].new, None),
    ]
    assert replay.diff(3, 3) == []


def test_visit_counts_and_executed_path(replay: Replay) -> None:
    assert replay.visit_counts(0) == {"chat": 1}
    assert replay.visit_counts(6) == {"chat": 4, "tools": 3}
    nodes, edges = replay.executed_path(1)
    assert nodes == {"start", "chat", "tools"}
    assert edges == {("start", "chat"), ("chat", "tools")}
    nodes, edges = replay.executed_path(6)
    assert nodes == {"start", "chat", "tools", "end"}
    assert edges == {("start", "chat"), ("chat", "tools"), ("tools", "chat"), ("chat", "end")}


def test_budget_series(replay: Replay) -> None:
    series = replay.budget_series()
    assert [b.steps_remaining for b in series] == [6, 5, 4, 3, 2, 1, 0]
    assert [b.model_calls for b in series] == [1, 1, 2, 2, 3, 3, 4]


def test_visits_and_changes_navigation(replay: Replay) -> None:
    assert replay.next_visit("tools") == 1
    replay.go(3)
    assert replay.next_visit("tools") == 5
    assert replay.prev_visit("tools") == 1
    assert replay.prev_visit("chat") == 2
    assert replay.next_visit("direct_return") is None
    replay.go(0)
    assert replay.next_change("messages") == 1
    assert replay.next_change("return_directly_tool_call_id") is None
    assert replay.next_change(("messages", 3, "content")) == 3


def test_search_matches_nodes_messages_and_state(replay: Replay) -> None:
    assert replay.search("TOOLS") == [1, 3, 5]
    assert replay.search("sunny, 21") == [3, 4]  # the tool's output, then the history it joined
    assert replay.search("checking the weather") == [2, 3]  # model output, then appended to state
    assert replay.search("return_directly") == [0]
    assert replay.search("") == []


def test_breakpoints_on_nodes_and_predicates(replay: Replay) -> None:
    replay.add_breakpoint("tools")
    assert replay.continue_() == 1
    assert replay.continue_() == 3
    assert not replay.toggle_breakpoint("tools")
    assert replay.continue_() is None and replay.cursor == 3
    predicate = replay.add_predicate(lambda state: len(state["messages"]) >= 6)
    assert replay.continue_() == 5
    replay.remove_predicate(predicate)
    replay.add_predicate(lambda state: state["missing"])  # raises KeyError: never matches
    assert replay.continue_() is None
    assert replay.toggle_breakpoint("chat") and replay.breakpoints == {"chat"}
    assert replay.continue_() == 6


def test_empty_run(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"kind":"header","format":"graph-inspector-run","version":2,"run_id":"x","started_at":"t"}\n'
    )
    replay = Replay(read_run(path))
    assert replay.current is None and replay.forward() == 0 and replay.budget_series() == []
    assert replay.executed_path() == (set(), set())


def test_executed_path_is_the_same_incrementally_and_without_topology(tmp_path: Path, replay: Replay) -> None:
    path = tmp_path / "bare.jsonl"
    simulate_react(Recorder(path, clock=_clock(), run_id="r1"), 3)  # no topology: branch decisions decide
    bare = Replay(read_run(path))
    assert bare.run.topology is None
    for upto in (0, 1, 4, 6, 2, 5, 3):
        expected = Replay(replay.run).executed_path(upto)  # fresh: no memo
        assert replay.executed_path(upto) == expected
        assert bare.executed_path(upto) == expected


def test_nodes_at_and_budget_series_read_only_step_lines(replay: Replay) -> None:
    assert [replay.nodes_at(i) for i in range(len(replay))] == [("chat",), ("tools",)] * 3 + [("chat",)]
    assert replay.nodes_at(-1) == ("chat",)
