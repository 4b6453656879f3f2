"""`ValueList`: a recorded history is a read-only view over the value table, shared by every step.

The view behaves as the list it stands for (sequence protocol, slicing, equality, JSON through
`json_default`, copies and pickles as a list) and value_reads values lazily: opening a step far into a long
recording value_reads the messages looked at, not the history before them.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.conversation import Conversation
from inspector.recording import Recorder, read_run
from inspector.recording.reader import Run
from inspector.recording.statediff import changes
from inspector.recording.synthetic import react_topology, simulate_react
from inspector.recording.valuelist import LISTS, ValueList, json_default, plain


class _Table:
    """A value table of `n` values (`{"id": i}`), counting value_reads."""

    def __init__(self, n: int) -> None:
        self.items: list[Any] = [{"id": i} for i in range(n)]
        self.read: list[int] = []

    def value(self, ref: int) -> Any:
        self.read.append(ref)
        return self.items[ref]

    def between(self, start: int, stop: int) -> list[Any]:
        self.read.extend(range(start, stop))
        return self.items[start:stop]


def _items(*ids: int) -> list[Any]:
    return [{"id": i} for i in ids]


def test_a_view_is_a_sequence_of_the_values_in_its_runs() -> None:
    table = _Table(10)
    view = ValueList(table, [(2, 5), (7, 9)])
    assert len(view) == 5 and bool(view) and not ValueList(table, [])
    assert view[0] == {"id": 2} and view[3] == {"id": 7} and view[-1] == {"id": 8}
    assert list(view) == _items(2, 3, 4, 7, 8)
    assert list(reversed(view)) == _items(8, 7, 4, 3, 2)
    assert {"id": 7} in view and {"id": 5} not in view
    assert view.index({"id": 4}) == 2 and view.count({"id": 8}) == 1
    assert isinstance(view, LISTS) and isinstance([], LISTS) and not isinstance((), LISTS)
    assert view.runs == ((2, 5), (7, 9))
    with pytest.raises(IndexError):
        view[5]
    with pytest.raises(IndexError):
        view[-6]
    with pytest.raises(TypeError):
        view["0"]  # pyright: ignore[reportArgumentType, reportCallIssue]


def test_slices_are_views_and_match_list_slices() -> None:
    table = _Table(20)
    view = ValueList(table, [(0, 4), (10, 16), (18, 20)])
    as_list = list(view)
    for start in (None, 0, 1, 3, 4, 5, 9, 11, 12, -1, -3, -20):
        for stop in (None, 0, 2, 4, 5, 10, 11, 12, -2, 40):
            part = view[start:stop]
            assert isinstance(part, ValueList)
            assert list(part) == as_list[start:stop], (start, stop)
            assert part == as_list[start:stop]
    assert view[::2] == as_list[::2] and view[::-1] == as_list[::-1]
    assert view[2:10][1:3] == as_list[2:10][1:3]


def test_equality_with_lists_and_views() -> None:
    table = _Table(10)
    view = ValueList(table, [(0, 3)])
    assert view == _items(0, 1, 2) and _items(0, 1, 2) == view
    assert view != _items(0, 1) and view != _items(0, 1, 3) and view != (*_items(0, 1, 2),)
    assert {"messages": view} == {"messages": _items(0, 1, 2)}
    assert view == ValueList(_Table(10), [(0, 3)])  # another table with the same values
    assert view != ValueList(table, [(0, 2)])
    before = len(table.read)
    assert view == ValueList(table, [(0, 3)])  # the same ids of the same table: nothing read
    assert view[:2] == ValueList(table, [(0, 2)])
    assert len(table.read) == before
    with pytest.raises(TypeError):
        hash(view)


def test_json_copies_and_pickles_give_the_list() -> None:
    table = _Table(5)
    view = ValueList(table, [(1, 4)])
    state = {"messages": view, "n": [view[:1]]}
    assert json.dumps(state, default=json_default) == json.dumps(
        {"messages": _items(1, 2, 3), "n": [_items(1)]}
    )
    with pytest.raises(TypeError, match="not JSON serializable"):
        json.dumps({"x": object()}, default=json_default)
    assert plain(state) == {"messages": _items(1, 2, 3), "n": [_items(1)]}
    assert type(plain(state)["messages"]) is list and type(plain(state)["n"][0]) is list
    untouched = {"a": [1, {"b": 2}]}
    assert plain(untouched) is untouched  # nothing to convert: nothing copied
    for made in (copy.copy(view), copy.deepcopy(view), pickle.loads(pickle.dumps(view)), view.copy()):
        assert type(made) is list and made == _items(1, 2, 3)
    assert copy.deepcopy(view)[0] is not table.items[1]
    assert view + [{"id": 9}] == [*_items(1, 2, 3), {"id": 9}]  # noqa: RUF005 (the operator is the subject)
    assert [{"id": 9}] + view == [{"id": 9}, *_items(1, 2, 3)]  # noqa: RUF005
    assert repr(view) == repr(_items(1, 2, 3))


def test_iteration_reads_only_as_far_as_it_is_taken() -> None:
    table = _Table(5000)
    view = ValueList(table, [(0, 5000)])
    it: Iterator[Any] = iter(view)
    assert next(it) == {"id": 0}
    assert len(table.read) < 1000  # a chunk read ahead, not the whole history
    assert len(view) == 5000 and view[-1] == {"id": 4999}
    assert len(table.read) < 1001


def test_changes_between_histories_see_an_append() -> None:
    table = _Table(10)
    old, new = ValueList(table, [(0, 3)]), ValueList(table, [(0, 5)])
    found = changes({"messages": old}, {"messages": new})
    assert [(c.path, c.op, c.new) for c in found] == [
        (("messages", 3), "appended", {"id": 3}),
        (("messages", 4), "appended", {"id": 4}),
    ]
    assert changes({"messages": old}, {"messages": _items(0, 1, 2)}) == []


# -- in a recording --------------------------------------------------------------------------------


def _recording(path: Path, rounds: int) -> Run:
    recorder = Recorder(path, topology=react_topology(), clock=lambda: 1_700_000_000.0, run_id="r")
    simulate_react(recorder, rounds)
    recorder.close()
    return read_run(path)


def test_a_state_far_into_a_long_run_reads_only_what_is_looked_at(
    tmp_path: Path, value_reads: list[int]
) -> None:
    run = _recording(tmp_path / "long.jsonl", 1500)
    value_reads.clear()  # opening may check a small file whole; from here on, only what is asked
    far = len(run.steps) - 10
    state = run.state_at(far)
    messages = state["messages"]
    assert isinstance(messages, ValueList)
    assert len(messages) > 1500 and value_reads == []  # the history is a range: nothing read to open it
    first, last = messages[0], messages[-1]
    assert first["role"] == "user" and last["role"] in ("assistant", "tool")
    assert len(value_reads) == 2
    # every step's history is a prefix of the same range, and values read once stay read
    before = run.state_at(far - 1)["messages"]
    assert before == messages[: len(before)] and before[0] is first
    assert len(value_reads) == 2


def test_the_view_holds_what_the_plain_state_holds(tmp_path: Path) -> None:
    run = _recording(tmp_path / "run.jsonl", 30)
    for step in run.steps:
        view_state, plain_state = run.state_at(step.position), step.state
        assert view_state == plain_state and plain_state == view_state
        assert type(plain_state["messages"]) is list
        assert json.dumps(view_state, default=json_default) == json.dumps(plain_state)


def test_the_conversation_tail_far_into_a_long_run_reads_about_what_it_shows(
    tmp_path: Path, value_reads: list[int]
) -> None:
    run = _recording(tmp_path / "long.jsonl", 1500)
    value_reads.clear()
    far = len(run.steps) - 10
    said = Conversation(run).at(far, last=20)
    assert len(said) == 20
    assert len(value_reads) < 200  # the shown messages and the recent steps' outputs, not 3,000 messages
