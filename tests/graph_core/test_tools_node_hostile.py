"""Audit of `@tool` and the ToolsNode: defects found by a hostile read, each pinned by a test."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import ToolArgumentsError, ToolInput, ToolMiddleware, ToolsNode, tool
from graph_core.tools.endpoint import AsyncInvokeEndpoint, InvokeEndpoint


def test_parameters_named_like_basemodel_attributes_work_without_warnings() -> None:
    # `schema`, `json`, `copy`... used to become fields of the pydantic arguments model, which warns
    # ("shadows an attribute in parent BaseModel"), an error wherever warnings are errors.
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @tool
        def lookup(schema: str, json: int = 1, copy: bool = False) -> str:
            """Look a table up.

            Args:
                schema: The database schema.
            """
            return f"{schema}/{json}/{copy}"

    assert lookup.invoke('{"schema": "public", "json": 2}') == "public/2/False"
    params = lookup.info.parameters
    assert list(params["properties"]) == ["schema", "json", "copy"]
    assert params["properties"]["schema"] == {"type": "string", "description": "The database schema."}
    assert params["required"] == ["schema"]


def test_parameter_named_model_config_is_a_normal_argument() -> None:
    # used to crash at call time: pydantic took the field for the model's configuration
    @tool
    def configure(model_config: str) -> str:
        return model_config

    assert configure.invoke('{"model_config": "strict"}') == "strict"
    assert list(configure.info.parameters["properties"]) == ["model_config"]


def test_underscore_parameter_is_described_and_passed() -> None:
    # used to be left out of the schema and silently ignored (pydantic treats `_x` as private)
    @tool
    def echo(_raw: str = "default") -> str:
        return _raw

    assert list(echo.info.parameters["properties"]) == ["_raw"]
    assert echo.invoke('{"_raw": "given"}') == "given"
    assert echo.invoke("{}") == "default"


def test_renamed_parameter_errors_name_the_parameter() -> None:
    @tool
    def lookup(schema: int) -> str:
        return str(schema)

    with pytest.raises(ToolArgumentsError) as info:
        lookup.invoke('{"schema": "x"}')
    assert info.value.field == "schema"
    assert "field `schema`" in str(info.value)


@tool
def echo_city(city: str) -> str:
    return f"city {city}"


def _same_id_calls(call_id: str) -> Message:
    return Message.assistant(
        tool_calls=[
            ToolCall(call_id, "echo_city", '{"city": "a"}'),
            ToolCall(call_id, "echo_city", '{"city": "b"}'),
        ]
    )


def _slots(rows: list[list[Message | None]]) -> list[str]:
    contents = ["", ""]
    for row in rows:
        assert len(row) == 2
        for slot, message in enumerate(row):
            if message is not None:
                contents[slot] += message.content
    return contents


@pytest.mark.parametrize("call_id", ["", "dup"])
@pytest.mark.parametrize("sequential", [False, True])
def test_stream_keeps_every_call_when_ids_repeat(call_id: str, sequential: bool) -> None:
    # Models that send empty (or repeated) call IDs: stream mode used to key the opened streams by ID,
    # so only the last call's result came out, in the wrong slot; invoke mode returned both.
    node = ToolsNode([echo_city], execute_sequentially=sequential)
    assert [m.content for m in node.invoke(_same_id_calls(call_id))] == ["city a", "city b"]
    assert _slots(list(node.stream(_same_id_calls(call_id)))) == ["city a", "city b"]

    async def collect() -> list[list[Message | None]]:
        return [row async for row in node.astream(_same_id_calls(call_id))]

    assert _slots(asyncio.run(collect())) == ["city a", "city b"]


def test_react_stream_gives_the_model_every_result_when_ids_are_empty() -> None:
    model = ScriptedChatModel([_same_id_calls(""), Message.assistant("done")])
    agent = ReActAgent(model, tools=[echo_city])
    assert [c.content for c in agent.stream("go")] == ["done"]
    assert [m.content for m in model.calls[-1] if m.role == "tool"] == ["city a", "city b"]


def _sync_only(tag: str, log: list[str]) -> ToolMiddleware:
    def wrap(next_ep: InvokeEndpoint) -> InvokeEndpoint:
        def endpoint(inp: ToolInput) -> str:
            log.append(f"{tag}>")
            return next_ep(inp) + tag

        return endpoint

    return ToolMiddleware(invoke=wrap)


def _async_only(tag: str, log: list[str]) -> ToolMiddleware:
    def wrap(next_ep: AsyncInvokeEndpoint) -> AsyncInvokeEndpoint:
        async def endpoint(inp: ToolInput) -> str:
            log.append(f"{tag}>")
            return await next_ep(inp) + tag

        return endpoint

    return ToolMiddleware(ainvoke=wrap)


def test_sync_only_and_async_only_middlewares_together() -> None:
    # Used to fail building the node with a bare AssertionError: neither a whole sync chain nor a whole
    # async chain existed. Each middleware now runs on its own side, in order, whatever the run's side.
    log: list[str] = []
    node = ToolsNode([echo_city], middlewares=[_sync_only("1", log), _async_only("2", log)])
    call = Message.assistant(tool_calls=[ToolCall("c1", "echo_city", '{"city": "a"}')])
    assert [m.content for m in node.invoke(call)] == ["city a21"]
    assert [m.content for m in asyncio.run(node.ainvoke(call))] == ["city a21"]
    assert _slots([[*row, None] for row in node.stream(call)]) == ["city a21", ""]
    assert log == ["1>", "2>"] * 3
