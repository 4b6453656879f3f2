"""@tool: schema generation from signatures and docstrings, argument validation, result encoding."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from graph_core.errors import GraphError
from graph_core.tools import Tool, ToolArgumentsError, get_tool_call_id, tool


class Place(BaseModel):
    city: str
    country: str = "FR"


@tool
def get_weather(city: str, days: int = 1, unit: str = "C") -> dict[str, object]:
    """Get the weather forecast for a city.

    Longer explanation that belongs to the description.

    Args:
        city: Name of the city.
        days: Number of days
            to forecast.
        unit: C or F.

    Returns:
        A forecast.
    """
    return {"city": city, "days": days, "unit": unit}


def test_schema_comes_from_signature_and_docstring() -> None:
    info = get_weather.info
    assert info.name == "get_weather"
    assert (
        info.description
        == "Get the weather forecast for a city. Longer explanation that belongs to the description."
    )
    assert info.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Name of the city."},
            "days": {"type": "integer", "default": 1, "description": "Number of days to forecast."},
            "unit": {"type": "string", "default": "C", "description": "C or F."},
        },
        "required": ["city"],
    }


def test_decorator_options_and_annotated_fields() -> None:
    @tool(name="lookup", description="Find a place.")
    def find(place: Place, limit: Annotated[int, Field(ge=1, description="max results")] = 3) -> str:
        return f"{place.city}/{place.country}/{limit}"

    assert isinstance(find, Tool)
    assert find.info.name == "lookup"
    assert find.info.description == "Find a place."
    props = find.info.parameters["properties"]
    assert props["limit"]["description"] == "max results"
    assert props["limit"]["minimum"] == 1
    assert "$defs" in find.info.parameters
    assert find.invoke('{"place": {"city": "Lyon"}}') == "Lyon/FR/3"
    assert find(Place(city="Nice"), 2) == "Nice/FR/2"  # still a plain function when called directly


def test_no_parameters_accepts_empty_arguments() -> None:
    @tool
    def now() -> str:
        """The time."""
        return "noon"

    assert now.info.parameters == {"type": "object", "properties": {}}
    assert now.invoke("") == "noon"
    assert now.invoke("{}") == "noon"


def test_results_are_encoded_as_content() -> None:
    assert get_weather.invoke('{"city": "Paris"}') == '{"city":"Paris","days":1,"unit":"C"}'

    @tool
    def nothing() -> None:
        return None

    @tool
    def model() -> Place:
        return Place(city="Rome", country="IT")

    assert nothing.invoke("{}") == ""
    assert model.invoke("{}") == '{"city":"Rome","country":"IT"}'


def test_validation_error_names_tool_call_and_field() -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        get_weather.invoke('{"city": "Paris", "days": "many"}')
    err = caught.value
    assert isinstance(err, GraphError) and isinstance(err, ValueError)
    assert err.tool_name == "get_weather"
    assert err.field == "days"
    assert "`get_weather`" in str(err) and "field `days`" in str(err)


def test_missing_field_and_bad_json_and_non_object() -> None:
    with pytest.raises(ToolArgumentsError, match="field `city`: Field required") as caught:
        get_weather.invoke("{}")
    assert caught.value.field == "city"
    with pytest.raises(ToolArgumentsError, match="invalid JSON arguments for tool `get_weather`") as bad:
        get_weather.invoke('{"city": ')
    assert bad.value.field is None
    with pytest.raises(ToolArgumentsError, match="must be a JSON object, got list"):
        get_weather.invoke("[1, 2]")


def test_four_kinds_of_function_and_derived_surfaces() -> None:
    @tool
    async def shout(text: str) -> str:
        await asyncio.sleep(0)
        return text.upper()

    @tool
    def count(n: int) -> Iterator[str]:
        for i in range(n):
            yield f"{i},"

    @tool
    async def acount(n: int) -> AsyncIterator[str]:
        for i in range(n):
            await asyncio.sleep(0)
            yield f"{i};"

    assert (shout.kind, count.kind, acount.kind, get_weather.kind) == (
        "ainvoke",
        "stream",
        "astream",
        "invoke",
    )
    assert shout.invoke('{"text": "hi"}') == "HI"
    assert count.invoke('{"n": 3}') == "0,1,2,"
    assert acount.invoke('{"n": 2}') == "0;1;"
    assert list(count.stream('{"n": 2}')) == ["0,", "1,"]
    assert list(acount.stream('{"n": 2}')) == ["0;", "1;"]
    assert list(shout.stream('{"text": "a"}')) == ["A"]

    async def async_side() -> tuple[str, str, list[str], list[str]]:
        return (
            await count.ainvoke('{"n": 2}'),
            await get_weather.ainvoke('{"city": "X"}'),
            [c async for c in count.astream('{"n": 2}')],
            [c async for c in shout.astream('{"text": "b"}')],
        )

    assert asyncio.run(async_side()) == ("0,1,", '{"city":"X","days":1,"unit":"C"}', ["0,", "1,"], ["B"])


def test_stream_validates_before_first_read() -> None:
    @tool
    def count(n: int) -> Iterator[str]:
        yield str(n)

    with pytest.raises(ToolArgumentsError):
        count.stream('{"n": "x"}')


def test_tool_call_id_is_empty_outside_a_call() -> None:
    assert get_tool_call_id() == ""


def test_unsupported_signatures_are_rejected() -> None:
    def varargs(*names: str) -> str:
        return ""

    with pytest.raises(ValueError, match=r"\*args/\*\*kwargs"):
        tool(varargs)
    with pytest.raises(ValueError, match="needs a name"):
        tool(lambda: "x")
