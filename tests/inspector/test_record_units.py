"""Units of the recording package: state deltas, changes, encoding and redaction."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from graph_core.schema import Message, ToolCall
from inspector.recording.encode import Encoder
from inspector.recording.redact import Redaction, make_redaction
from inspector.recording.statediff import Change, apply_delta, changes, delta, format_path

CASES: list[tuple[Any, Any]] = [
    ({"a": 1}, {"a": 2}),
    ({"a": 1, "b": 2}, {"a": 1}),
    ({"a": 1}, {"a": 1, "b": [1]}),
    ({"l": [1, 2]}, {"l": [1, 2, 3, 4]}),
    ({"l": [1, 2]}, {"l": [2]}),
    ({"l": [1, {"x": 1}]}, {"l": [1, {"x": 2}]}),
    ({"m": {"$refs": [[0, 3]]}}, {"m": {"$refs": [[0, 5]]}}),
    ({"m": {"$refs": [[0, 3]]}}, {"m": {"$refs": [[0, 3], [7, 9]]}}),
    ({"m": {"$refs": [[0, 3]]}}, {"m": {"$refs": [[1, 3]]}}),
    (None, {"a": 1}),
    ({"a": 1}, None),
    ([1], [1, 2]),
    ({"a": {"b": {"c": 1}}}, {"a": {"b": {"c": 1, "d": None}}}),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_delta_round_trips_and_leaves_old_alone(old: Any, new: Any) -> None:
    import copy

    before = copy.deepcopy(old)
    assert apply_delta(old, delta(old, new)) == new
    assert old == before


def test_list_growth_is_an_append() -> None:
    assert delta({"l": [1]}, {"l": [1, 2]}) == [["append", ["l"], [2]]]
    assert delta({"m": {"$refs": [[0, 3]]}}, {"m": {"$refs": [[0, 4]]}}) == [
        ["append", ["m"], {"$refs": [[3, 4]]}]
    ]
    assert delta({"a": 1}, {"a": 1}) == []


def test_changes_vocabulary() -> None:
    old = {"messages": [{"content": "a"}], "n": 1, "gone": True}
    new = {"messages": [{"content": "a"}, {"content": "b"}], "n": 2, "fresh": "x"}
    assert changes(old, new) == [
        Change(("messages", 1), "appended", None, {"content": "b"}),
        Change(("n",), "changed", 1, 2),
        Change(("fresh",), "added", None, "x"),
        Change(("gone",), "removed", True, None),
    ]
    assert format_path(("messages", 3, "content")) == "messages[3].content"
    assert format_path(()) == "(root)"


def test_messages_are_interned_once_and_lists_become_runs() -> None:
    encoder = Encoder()
    history = [Message.user("hi"), Message.assistant("", tool_calls=[ToolCall("c1", "f", "{}")])]
    first = encoder.encode({"messages": history})
    assert first == {"messages": {"$refs": [[0, 2]]}}
    assert [ref for ref, _ in encoder.take_definitions()] == [0, 1]
    history.append(Message.tool("ok", tool_call_id="c1"))
    assert encoder.encode(history) == {"$refs": [[0, 3]]}
    assert [value for _, value in encoder.take_definitions()] == [
        {"role": "tool", "content": "ok", "tool_call_id": "c1"}
    ]
    copy_with_prefix = [Message.system("be brief"), *history]
    assert encoder.encode(copy_with_prefix) == {"$refs": [[3, 4], [0, 3]]}


def test_changed_message_is_re_recorded() -> None:
    encoder = Encoder()
    message = Message.assistant("draft")
    assert encoder.encode(message) == {"$ref": 0}
    message.content = "final"
    assert encoder.encode(message) == {"$ref": 1}


def test_faithful_encodings() -> None:
    class Color(enum.Enum):
        RED = "red"

    @dataclass
    class Point:
        x: int
        y: int

    class Model(BaseModel):
        name: str
        point: Any = None

    encoder = Encoder()
    value = {
        "c": Color.RED,
        "p": Point(1, 2),
        "m": Model(name="n", point=Point(3, 4)),
        "t": (1, 2),
        3: {2, 1},
    }
    assert encoder.encode(value) == {
        "c": "red",
        "p": {"x": 1, "y": 2},
        "m": {"name": "n", "point": {"x": 3, "y": 4}},
        "t": [1, 2],
        "3": [1, 2],
    }


def test_redaction_specs() -> None:
    assert make_redaction(True).masks_key("X_API_KEY")
    assert make_redaction(True).masks_key("Proxy-Authorization")
    assert not make_redaction(True).masks_key("keyboard")
    assert not make_redaction(False).active
    assert make_redaction(["^token$"]).masks_key("TOKEN") and not make_redaction(["^token$"]).masks_key(
        "tokens"
    )
    custom = Redaction(mask="***")
    assert Encoder(redaction=custom).encode({"secret": 1}) == {"secret": "***"}
