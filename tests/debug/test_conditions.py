"""Condition breakpoints and edit paths: what parses, what each means, and the errors that name a column."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core.agents.react import ReActState
from graph_core.schema import Message, ToolCall
from inspector.debug.conditions import View, parse_condition
from inspector.debug.paths import parse_path
from inspector.errors import DebugError

CALL = Message.assistant(tool_calls=[ToolCall("c1", "get_weather", '{"city": "Paris"}')])
STATE = ReActState(messages=[Message.user("hi"), CALL, Message.tool("rain", tool_call_id="c1")])


@pytest.mark.parametrize(
    ("text", "at_chat", "at_tools"),
    [
        ("len(messages) > 2", True, True),
        ("len(state.messages) == 3", True, True),
        ("calls(get_weather)", False, True),  # answered by the tool message: only before `tools`
        ("calls(search)", False, False),
        ("before(tools)", False, True),
        ("not before(tools)", True, False),
        ('state.messages[0].content == "hi"', True, True),
        ('messages[-1].role != "tool" or before(tools)', False, True),
        ("(before(chat) or before(tools)) and len(messages) < 3", False, False),
        ('input.tools.tool_calls[0].name == "get_weather"', False, True),
        ("len(messages[9].content) > 0", False, False),  # a path that does not exist: false, not an error
        ("state.return_directly_tool_call_id < 3", False, False),  # string vs number: not a match
    ],
)
def test_conditions_evaluate_over_the_state_and_the_pending_inputs(
    text: str, at_chat: bool, at_tools: bool
) -> None:
    condition = parse_condition(text)
    assert condition.holds(View(STATE, [("chat", [Message.tool("rain", tool_call_id="c1")])])) is at_chat
    assert condition.holds(View(STATE, [("tools", CALL)])) is at_tools


def test_the_calls_looked_at_are_a_pending_input_first() -> None:
    search = Message.assistant(tool_calls=[ToolCall("c2", "search", "{}")])
    assert parse_condition("calls(search)").holds(View(STATE, [("tools", search)]))
    assert not parse_condition("calls(get_weather)").holds(View(STATE, [("tools", search)]))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty condition at column 1"),
        ("len(messages) >", "expected a JSON value after the operator at column 16"),
        ("len(messages) > x", "`x` is not a JSON value (strings need double quotes) at column 17"),
        ('len(messages) > "6"', "`len(...)` compares with a number"),
        ("calls(get_weather", "expected `)`, found the end at column 18"),
        ("messages", "expected op, found the end"),
        ("len(messages) > 3 and", "expected a condition, found the end"),
        ("len(messages) > 3 junk", "unexpected `junk` at column 19"),
        ("len(messages) ? 3", "unexpected `?` at column 15"),
    ],
)
def test_conditions_that_do_not_parse_say_where(text: str, message: str) -> None:
    with pytest.raises(DebugError) as caught:
        parse_condition(text)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "root", "node", "segments"),
    [
        ("state.messages[-1].content", "state", None, ("messages", -1, "content")),
        ("messages[0]", "state", None, ("messages", 0)),
        ("input.tools.tool_calls[0].arguments", "input", "tools", ("tool_calls", 0, "arguments")),
        ('state["odd key"].x', "state", None, ("odd key", "x")),
    ],
)
def test_paths_parse(text: str, root: str, node: str | None, segments: tuple[object, ...]) -> None:
    path = parse_path(text)
    assert (path.root, path.node, path.segments) == (root, node, segments)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty path"),
        ("state..x", "expected a name after `.` at column 7"),
        ("input", "`input` needs a node key"),
        ("state.messages[x]", "unexpected `[` at column 15"),
    ],
)
def test_paths_that_do_not_parse_say_where(text: str, message: str) -> None:
    with pytest.raises(DebugError, match=None) as caught:
        parse_path(text)
    assert message in str(caught.value)


def test_calls_holds_for_the_last_message_of_the_state_while_its_calls_are_unanswered() -> None:
    asked = ReActState(messages=[Message.user("hi"), CALL])  # a tools node that reads the state runs next
    assert parse_condition("calls(get_weather)").holds(View(asked, [("tools", asked)]))
    assert not parse_condition("calls(get_weather)").holds(View(STATE, [("chat", STATE)]))


def test_calls_on_the_runaway_pauses_before_each_tools_step_only(tmp_path: Path) -> None:
    """The help's example: `c` runs on to the next round's tools step, it does not act like `s`."""
    import fixtures.runaway as runaway
    from tests.debug.conftest import controller_for

    controller = controller_for(runaway, tmp_path / "run.jsonl", conditions=["calls(get_weather)"])
    controller.start()
    paused: list[int] = []
    while (pause := controller.wait()) is not None and len(paused) < 4:
        paused.append(pause.step)
        assert pause.nodes == ("tools",)
        controller.resume()
    controller.abort()
    controller.join(10)
    assert paused == [1, 3, 5, 7]
