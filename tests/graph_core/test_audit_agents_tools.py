"""Audit of `@tool` and the ToolsNode: defects found by a hostile read, each pinned by a test."""

from __future__ import annotations

import warnings

import pytest

from graph_core.tools import ToolArgumentsError, tool


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
