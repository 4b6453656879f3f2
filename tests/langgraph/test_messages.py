"""LangChain messages become graph_core `Message`s: roles, tool calls as JSON arguments, usage, errors."""

from __future__ import annotations

import json
from types import SimpleNamespace

from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage

from graph_core.schema import Message, TokenUsage, ToolCall
from inspector.adapters.langgraph import Neutralizer, to_message


def test_an_ai_message_with_tool_calls_and_usage() -> None:
    message = AIMessage(
        "Checking.",
        tool_calls=[{"id": "c1", "name": "get_weather", "args": {"city": "Zürich", "days": 2}}],
        usage_metadata={"input_tokens": 10, "output_tokens": 4, "total_tokens": 14},
    )
    converted = to_message(message)
    assert converted == Message.assistant(
        "Checking.",
        tool_calls=[ToolCall("c1", "get_weather", '{"city": "Zürich", "days": 2}')],
        usage=TokenUsage(prompt_tokens=10, completion_tokens=4, total_tokens=14),
    )
    assert json.loads(converted.tool_calls[0].arguments) == {"city": "Zürich", "days": 2}


def test_roles_tool_messages_and_content_blocks() -> None:
    assert to_message(HumanMessage("hi")) == Message.user("hi")
    assert to_message(SystemMessage("be brief")) == Message.system("be brief")
    assert to_message(ToolMessage("18°C", tool_call_id="c1", name="get_weather")) == Message.tool(
        "18°C", tool_call_id="c1", tool_name="get_weather"
    )
    blocks = AIMessage(content=[{"type": "text", "text": "a"}, {"type": "image_url", "image_url": "x"}, "b"])
    assert to_message(blocks).content == "ab"


def test_a_tool_error_message_is_marked() -> None:
    failed = to_message(ToolMessage("Error: boom", tool_call_id="c1", name="t", status="error"))
    assert failed.extra == {"status": "error"}
    assert to_message(ToolMessage("ok", tool_call_id="c1", name="t")).extra == {}


def test_the_neutralizer_converts_once_and_grows_one_list() -> None:
    neutral = Neutralizer()
    first, answer = HumanMessage("hi"), AIMessage("hello")
    state = {"messages": [first], "n": 1}
    before = neutral.state(state)
    assert before == {"messages": [Message.user("hi")], "n": 1}
    grown = neutral.state({"messages": [first, answer], "n": 2})
    assert grown["messages"] is before["messages"]  # the same list, extended: the recorder sees growth
    assert grown["messages"][0] is before["messages"][0]
    assert [m.content for m in grown["messages"]] == ["hi", "hello"]
    replaced = neutral.state({"messages": [first, AIMessage("other")]})
    assert replaced["messages"] is not grown["messages"]  # not a prefix of the last list: a new one
    assert [m.content for m in replaced["messages"]] == ["hi", "other"]


def test_a_history_copied_with_equal_messages_extends_the_same_conversion() -> None:
    neutral = Neutralizer()
    first, answer = HumanMessage("hi", id="h1"), AIMessage("hello", id="a1")
    before = neutral.state([first, answer])
    # a new list (a `Send` carries a copy of the state) whose prefix holds an equal copy of a message
    copied = neutral.state([first, answer.model_copy(), ToolMessage("18°C", tool_call_id="c1")])
    assert copied is before
    assert [m.role for m in copied] == ["user", "assistant", "tool"]
    edited = neutral.state([first, AIMessage("bye", id="a1")])  # the same id, other content: not a prefix
    assert edited is not before
    assert [m.content for m in edited] == ["hi", "bye"]


def test_objects_that_only_look_like_messages_convert_through_their_attributes() -> None:
    duck = SimpleNamespace(type="ai", content="quack", tool_calls=[{"id": "c1", "name": "swim", "args": {}}])
    assert to_message(duck) == Message.assistant("quack", tool_calls=[ToolCall("c1", "swim", "{}")])
    chat = to_message(ChatMessage(content="note", role="system"))
    assert chat == Message.system("note")
