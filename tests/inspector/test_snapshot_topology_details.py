"""Topology snapshots guard tools, schemas, models and branch labels, and a failure names the change the
way a reviewer would: "tool added: get_hotels", "model changed: gpt-4o-mini -> gpt-4o"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fixtures.weather  # imported once for the in-process inner runs, as in test_plugin
import graph_core.agents.react  # noqa: F401
import inspector.snapshot.extension  # noqa: F401
from graph_core import END, START, Branch, Graph
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.models.openai import OpenAIChatModel
from graph_core.tools import tool
from inspector.export import to_json
from inspector.snapshot import describe_topology_changes, diff_topologies

pytest_plugins = ["pytester"]


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return "sunny"


@tool(name="get_weather")
def get_weather_by_id(city: int) -> str:
    """Weather for a city."""
    return "sunny"


@tool(name="get_weather", description="Weather for a city, in Celsius.")
def get_weather_celsius(city: str, days: int = 1) -> str:
    return "sunny"


@tool
def get_hotels(city: str) -> str:
    """Hotels in a city."""
    return "none"


def _changes(old: Any, new: Any) -> list[str]:
    return describe_topology_changes(diff_topologies(old.compiled.topology(), new.compiled.topology()))


def _agent(*tools: Any, model: Any = None, **options: Any) -> ReActAgent:
    return ReActAgent(model=model or ScriptedChatModel([]), tools=list(tools), **options)


def test_a_tool_added_to_an_agent_is_named() -> None:
    assert _changes(_agent(get_weather), _agent(get_weather, get_hotels)) == [
        "model bound tools changed: get_weather -> get_weather, get_hotels (node `chat`)",
        "tool added: get_hotels (node `tools`)",
    ]
    assert (
        _changes(_agent(get_weather, get_hotels), _agent(get_weather))[-1]
        == "tool removed: get_hotels (node `tools`)"
    )


def test_a_parameter_type_change_is_named() -> None:
    assert _changes(_agent(get_weather), _agent(get_weather_by_id)) == [
        "tool get_weather: parameter city: type string -> integer"
    ]


def test_description_and_new_parameters_are_named() -> None:
    assert _changes(_agent(get_weather), _agent(get_weather_celsius)) == [
        "tool get_weather: description changed",
        "tool get_weather: parameter days added (integer, optional)",
    ]


def test_return_directly_and_tool_order_are_named() -> None:
    changes = _changes(
        _agent(get_weather, get_hotels), _agent(get_hotels, get_weather, tool_return_directly=["get_hotels"])
    )
    assert "tool get_hotels: now returns directly" in changes
    assert "tools of node `tools` reordered: get_weather, get_hotels -> get_hotels, get_weather" in changes


def test_a_model_change_is_named() -> None:
    old = _agent(get_weather, model=OpenAIChatModel(model="gpt-4o-mini", api_key="k"))
    new = _agent(get_weather, model=OpenAIChatModel(model="gpt-4o", api_key="k"))
    assert _changes(old, new) == ["model changed: gpt-4o-mini -> gpt-4o"]
    moved = _agent(
        get_weather, model=OpenAIChatModel(model="gpt-4o", api_key="k", base_url="http://localhost:8000/v1")
    )
    assert _changes(new, moved) == [
        "model base_url_host changed: api.openai.com -> localhost:8000 (node `chat`)"
    ]
    assert _changes(new, _agent(get_weather)) == [
        "model class changed: OpenAIChatModel -> ScriptedChatModel (node `chat`)",
        "model base_url_host changed: api.openai.com -> None (node `chat`)",
        "model changed: gpt-4o -> None",
    ]


def _labelled(label: str, fn: Any = None) -> Any:
    g = Graph()
    g.add_lambda_node("chat", fn or (lambda x: x))
    g.add_edge(START, "chat")
    g.add_branch("chat", Branch(lambda x: END, ["chat", END], labels={END: label}))
    return g.compile()


def test_a_branch_label_change_and_a_function_change_are_named() -> None:
    changes = diff_topologies(_labelled("final answer").topology(), _labelled("answer").topology())
    assert describe_topology_changes(changes) == [
        "branch chat -> end: label changed: 'final answer' -> 'answer'"
    ]

    def respond(x: Any) -> Any:
        return x

    changes = diff_topologies(_labelled("a").topology(), _labelled("a", respond).topology())
    assert describe_topology_changes(changes) == [
        "node `chat` function changed: '_labelled.<locals>.<lambda>' -> "
        "'test_a_branch_label_change_and_a_function_change_are_named.<locals>.respond'"
    ]


# -- through the pytest plugin, as a user meets it ---------------------------------------------------

AGENT_PROJECT = """
from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.tools import tool


@tool(description="Hotels in a city.")
def get_hotels(city: str) -> str:
    return "none"


def test_shape(topology_snapshot):
    assert topology_snapshot == ReActAgent(model=ScriptedChatModel([]), tools={tools})
"""


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark", *args
    )


def _snapshot_file(pytester: pytest.Pytester) -> Path:
    return pytester.path / "__snapshots__" / "test_user" / "test_shape.topology.json"


def test_adding_a_tool_fails_the_snapshot_and_names_the_tool(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=AGENT_PROJECT.format(tools="[get_weather]"))
    _run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    pytester.makepyfile(test_user=AGENT_PROJECT.format(tools="[get_weather, get_hotels]"))
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*topology changed (2 changes):*", "*- tool added: get_hotels (node `tools`)*"]
    )


def test_a_version_1_snapshot_fails_with_an_update_message_not_a_traceback(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=AGENT_PROJECT.format(tools="[get_weather]"))
    _run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    stored = json.loads(_snapshot_file(pytester).read_text())
    stored["version"] = 1  # what the previous release wrote: no tools, models, functions or labels
    for node in stored["topology"]["nodes"]:
        for field in ("tools", "model", "function"):
            node.pop(field)
    for edge in stored["topology"]["edges"]:
        edge.pop("label")
    _snapshot_file(pytester).write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    text = " ".join(result.stdout.str().split())
    assert "written in topology format version 1" in text and "update your snapshots" in text
    assert "pytest --snapshot-update" in text and "tool added: get_weather" in text
    assert "Traceback" not in result.stdout.str() and "TopologyFormatError" not in result.stdout.str()
    _run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    assert _snapshot_file(pytester).read_text() == to_json(
        ReActAgent(model=ScriptedChatModel([]), tools=[fixtures.weather.get_weather])
    )
