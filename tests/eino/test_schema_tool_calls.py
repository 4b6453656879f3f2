"""Eino's `schema/message_test.go` TestConcatToolCalls, ported as cloudwego/eino PR #962 has it (head
`d2198c40`, after the pinned commit ca0441ac; see docs/eino-conformance.md).

Eino's unexported `concatToolCalls` is graph_core's `concat_tool_calls`, which `concat_messages` uses.
Go's empty `Type` is written `type=""` here (graph_core's `ToolCall.type` defaults to "function").
"""

from __future__ import annotations

import pytest

from graph_core.schema import Message, ToolCall, concat_messages, concat_tool_calls


def test_atomic_field_in_first_chunk() -> None:
    """TestConcatToolCalls/atomic_field_in_first_chunk."""
    given = [
        ToolCall("tool_call_id", "tool_name", index=0, type="function"),
        ToolCall(arguments="call me please", index=0, type=""),
    ]
    assert concat_tool_calls(given) == [
        ToolCall("tool_call_id", "tool_name", "call me please", index=0, type="function")
    ]


def test_atomic_field_in_every_chunk() -> None:
    """TestConcatToolCalls/atomic_field_in_every_chunk."""
    given = [
        ToolCall("tool_call_id", "tool_name", index=0, type="function"),
        ToolCall("tool_call_id", "tool_name", "call me please", index=0, type="function"),
    ]
    assert concat_tool_calls(given) == [
        ToolCall("tool_call_id", "tool_name", "call me please", index=0, type="function")
    ]


def test_atomic_field_in_interval() -> None:
    """TestConcatToolCalls/atomic_field_in_interval."""
    given = [
        ToolCall("tool_call_id", "", index=0, type=""),
        ToolCall("", "", "call me please", index=0, type="function"),
        ToolCall("tool_call_id", "", "", index=0, type=""),
    ]
    expected = ToolCall("tool_call_id", "", "call me please", index=0, type="function")
    assert concat_tool_calls(given) == [expected]


def test_different_tool_id_same_index_split_into_separate_calls() -> None:
    """TestConcatToolCalls/different_tool_id_same_index_split_into_separate_calls (PR #962: at the pin
    this was `different_tool_id`, which expected the error "cannot concat ToolCalls with different tool
    id")."""
    given = [
        ToolCall("tool_call_id", "tool_a", '{"arg":"val_a"}', index=0, type="function"),
        ToolCall("tool_call_id_1", "tool_b", '{"arg":"val_b"}', index=0, type="function"),
    ]
    calls = concat_tool_calls(given)
    assert len(calls) == 2
    assert (calls[0].id, calls[0].name, calls[0].arguments) == ("tool_call_id", "tool_a", '{"arg":"val_a"}')
    assert (calls[1].id, calls[1].name, calls[1].arguments) == ("tool_call_id_1", "tool_b", '{"arg":"val_b"}')


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (ToolCall("tool_call_id", "tool_name", "call me please", index=0, type="function_1"), "tool type"),
        (ToolCall("tool_call_id", "tool_name_1", "call me please", index=0, type="function"), "tool name"),
    ],
    ids=["different_tool_type", "different_tool_name"],
)
def test_different_atomic_field_is_an_error(second: ToolCall, message: str) -> None:
    """TestConcatToolCalls/different_tool_type and /different_tool_name."""
    given = [ToolCall("tool_call_id", "tool_name", index=0, type="function"), second]
    with pytest.raises(ValueError, match=f"cannot concat ToolCalls with different {message}"):
        concat_tool_calls(given)


def test_multi_tool_call() -> None:
    """TestConcatToolCalls/multi_tool_call: unindexed calls pass through first, each index merges."""
    given = [
        ToolCall("tool_call_id", "", index=0, type=""),
        ToolCall("", "", "call me please", index=0, type="function"),
        ToolCall("tool_call_id", "", "", index=0, type=""),
        ToolCall("tool_call_id", "", index=1, type=""),
        ToolCall("", "", "call me please", index=1, type="function"),
        ToolCall("tool_call_id", "", "", index=1, type=""),
        ToolCall("22", "", index=None, type=""),
        ToolCall("44", "", index=None, type=""),
    ]
    assert concat_tool_calls(given) == [
        ToolCall("22", "", index=None, type=""),
        ToolCall("44", "", index=None, type=""),
        ToolCall("tool_call_id", "", "call me please", index=0, type="function"),
        ToolCall("tool_call_id", "", "call me please", index=1, type="function"),
    ]


def test_two_streamed_calls_sharing_an_index_concatenate_into_two_calls() -> None:
    """The #962 case as a provider streams it (qwen, deepseek): both calls at index 0, each call's
    argument deltas without an ID following the delta that named it; `concat_messages` (what a stream
    run's collect uses) gives two calls instead of raising."""
    chunks = [
        Message.assistant(tool_calls=[ToolCall("call_a", "get_weather", "", index=0)]),
        Message.assistant(tool_calls=[ToolCall("", "", '{"city": ', index=0)]),
        Message.assistant(tool_calls=[ToolCall("", "", '"Hangzhou"}', index=0)]),
        Message.assistant(tool_calls=[ToolCall("call_b", "get_time", "", index=0)]),
        Message.assistant(tool_calls=[ToolCall("", "", "{}", index=0)]),
    ]
    assert concat_messages(chunks).tool_calls == [
        ToolCall("call_a", "get_weather", '{"city": "Hangzhou"}', index=0),
        ToolCall("call_b", "get_time", "{}", index=1),
    ]
