"""A model handed a copy of the state's history every round: the copy is encoded from the history's
marker, gives what a fresh walk gives, and is not kept."""

from __future__ import annotations

from graph_core.schema import Message
from inspector.recording.encode import Encoder


def _history(n: int) -> list[Message]:
    return [Message.user("q")] + [Message.assistant(f"a{i}") for i in range(n - 1)]


def test_a_copy_of_the_history_gets_the_histories_marker_and_is_not_memoised() -> None:
    encoder = Encoder()
    history = _history(3)
    assert encoder.encode(history) == {"$refs": [[0, 3]]}
    kept = len(encoder._lists)  # pyright: ignore[reportPrivateUsage]
    for round_ in range(50):
        history.append(Message.assistant(f"more {round_}"))
        copy = list(history)
        assert encoder.encode(copy) == {"$refs": [[0, len(history)]]}
        assert encoder.encode(history) == {"$refs": [[0, len(history)]]}
    assert len(encoder._lists) == kept  # pyright: ignore[reportPrivateUsage]
    assert [ref for ref, _ in encoder.take_definitions()] == list(range(53))


def test_a_list_that_differs_from_the_history_is_walked() -> None:
    encoder = Encoder()
    history = _history(4)
    encoder.encode(history)
    other = list(history)
    other[1] = Message.assistant("edited")  # same length, same last message, one item different
    assert encoder.encode(other) == {"$refs": [[0, 1], [4, 5], [2, 4]]}


def test_a_list_of_equal_but_other_message_objects_is_walked() -> None:
    encoder = Encoder()
    history = _history(4)
    encoder.encode(history)
    equal_but_new = [m.model_copy() for m in history]  # equal values, other objects
    assert encoder.encode(equal_but_new) == {"$refs": [[4, 8]]}
    assert len(encoder.take_definitions()) == 8
