"""A tool result that is not a string fails as a ToolCallError naming the tool, the call and the value.

Eino's tools return `string` by type; here a duck-typed tool, a middleware or an unknown-tools handler can
hand back anything, which used to surface as pydantic's bare "1 validation error for Message".
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from graph_core.agents.react import ReActAgent
from graph_core.errors import NodeRunError
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools import ToolCallError, ToolInput, ToolMiddleware, ToolsNode, tool

INFO = ToolInfo("lookup", "d", {"type": "object", "properties": {}})


class IntTool:
    info = INFO

    def invoke(self, arguments: str) -> Any:
        return 42


class IntChunks:
    info = INFO

    def stream(self, arguments: str) -> Iterator[Any]:
        yield "a"
        yield 7


def call(name: str = "lookup", call_id: str = "c1") -> Message:
    return Message.assistant(tool_calls=[ToolCall(call_id, name, "{}")])


def run(node: ToolsNode, mode: str, message: Message) -> object:
    if mode == "invoke":
        return node.invoke(message)
    if mode == "stream":
        return list(node.stream(message))
    if mode == "ainvoke":
        return asyncio.run(node.ainvoke(message))

    async def drain() -> list[Any]:
        return [row async for row in node.astream(message)]

    return asyncio.run(drain())


MODES = ["invoke", "stream", "ainvoke", "astream"]


@pytest.mark.parametrize("mode", MODES)
def test_duck_typed_tool_returning_an_int_names_tool_call_and_value(mode: str) -> None:
    with pytest.raises(ToolCallError) as caught:
        run(ToolsNode([IntTool()]), mode, call())
    message = str(caught.value)
    assert "name:lookup id:c1" in message
    assert "int 42, not a str" in message
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("lookup", "c1")


@pytest.mark.parametrize("mode", MODES)
def test_streamed_chunk_that_is_not_a_string_is_named(mode: str) -> None:
    with pytest.raises(ToolCallError) as caught:
        run(ToolsNode([IntChunks()]), mode, call(call_id="c9"))
    assert "name:lookup id:c9" in str(caught.value)
    assert "int 7, not a str" in str(caught.value)


@tool
def lookup() -> str:
    """Returns a string; the middleware below spoils it."""
    return "ok"


def test_middleware_returning_a_dict_around_a_decorated_tool() -> None:
    def spoiling(nxt: Any) -> Any:
        return lambda inp: {"wrapped": nxt(inp)}

    spoil = ToolMiddleware(invoke=spoiling)
    with pytest.raises(ToolCallError, match=r"name:lookup id:c1.*dict \{'wrapped': 'ok'\}, not a str"):
        ToolsNode([lookup], middlewares=[spoil]).invoke(call())


def test_unknown_tools_handler_returning_a_number() -> None:
    node = ToolsNode([lookup], unknown_tools_handler=lambda name, arguments: 5)
    with pytest.raises(ToolCallError, match=r"name:missing id:c1.*int 5, not a str"):
        node.invoke(call("missing"))


def test_long_values_are_cut_in_the_message() -> None:
    class Big:
        info = INFO

        def invoke(self, arguments: str) -> Any:
            return list(range(10_000))

    with pytest.raises(ToolCallError) as caught:
        ToolsNode([Big()]).invoke(call())
    assert len(str(caught.value)) < 400


def test_agent_run_fails_with_the_tool_error_as_cause() -> None:
    model = ScriptedChatModel([call(), Message.assistant("done")])
    agent = ReActAgent(model=model, tools=[IntTool()])
    with pytest.raises(NodeRunError) as caught:
        agent.invoke([Message.user("hi")])
    assert isinstance(caught.value.__cause__, ToolCallError)
    assert "int 42, not a str" in str(caught.value.__cause__)


def test_string_results_still_pass_and_str_subclasses_are_kept() -> None:
    class Name(str):
        pass

    class Sub:
        info = INFO

        def invoke(self, arguments: str) -> Any:
            return Name("x")

    assert ToolsNode([Sub()]).invoke(call())[0].content == "x"
    mw = ToolMiddleware(invoke=lambda nxt: lambda inp: nxt(ToolInput(inp.name, inp.arguments, inp.call_id)))
    assert ToolsNode([lookup], middlewares=[mw]).invoke(call())[0].content == "ok"
