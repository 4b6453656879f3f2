"""Ports of `compose/tool_alias_test.go` (cloudwego/eino): tool name and argument aliases of a ToolsNode.
Each test names its Go test."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from graph_core.multimodal import ToolOutputPart
from graph_core.schema import Message, ToolCall, ToolInfo, ToolResult
from graph_core.tools import ToolAliasConfig, ToolNotFoundError, ToolsNode, ToolsNodeOptions
from graph_core.tools.alias import remap_arguments


class FnTool:
    """Eino's test `newTool(info, fn)`: a tool from a ToolInfo and a function of the parsed arguments."""

    def __init__(self, info: ToolInfo, fn: Callable[[dict[str, object]], str]) -> None:
        self.info = info
        self.fn = fn

    def invoke(self, arguments: str) -> str:
        return self.fn(json.loads(arguments or "{}"))


def _params(**types: str) -> dict[str, object]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in types.items()}}


def _call(name: str, arguments: str, call_id: str = "call_1") -> Message:
    return Message.assistant("", tool_calls=[ToolCall(call_id, name, arguments)])


def test_tool_name_aliases() -> None:
    """tool_alias_test.go TestToolNameAliases"""
    search = FnTool(
        ToolInfo("search", "Search for information", _params(query="string")), lambda _a: "search result"
    )
    node = ToolsNode(
        [search], tool_aliases={"search": ToolAliasConfig(name_aliases=["search_v1", "query", "find"])}
    )
    output = node.invoke(_call("search_v1", '{"query": "test"}'))
    assert len(output) == 1
    assert output[0].tool_call_id == "call_1" and "search result" in output[0].content


def test_arguments_aliases() -> None:
    """tool_alias_test.go TestArgumentsAliases"""
    received: list[dict[str, object]] = []

    def run(args: dict[str, object]) -> str:
        received.append(args)
        return "result"

    search = FnTool(ToolInfo("search", "Search", _params(query="string", limit="integer")), run)
    aliases = {
        "search": ToolAliasConfig(
            arguments_aliases={"query": ["q", "search_term"], "limit": ["max_results", "count"]}
        )
    }
    ToolsNode([search], tool_aliases=aliases).invoke(_call("search", '{"q": "test", "max_results": 10}'))
    assert received == [{"query": "test", "limit": 10}]


_SEARCH = FnTool(ToolInfo("search", "Search"), lambda _a: "result")
_QUERY = FnTool(ToolInfo("query", "Query"), lambda _a: "result")


@pytest.mark.parametrize(
    ("tools", "aliases", "message"),
    [
        pytest.param(
            [_SEARCH, _QUERY],
            {
                "search": ToolAliasConfig(name_aliases=["find"]),
                "query": ToolAliasConfig(name_aliases=["find"]),
            },
            "conflicts with an alias already registered for",
            id="tool name alias conflict",
        ),
        pytest.param(
            [_SEARCH, _QUERY],
            {"search": ToolAliasConfig(name_aliases=["query"])},
            "conflicts with existing tool's canonical name",
            id="tool name alias conflicts with canonical name",
        ),
        pytest.param(
            [_SEARCH],
            {"search": ToolAliasConfig(arguments_aliases={"query": ["q"], "limit": ["q"]})},
            "conflicting arg alias",
            id="argument alias conflict",
        ),
        pytest.param(
            [FnTool(ToolInfo("search", "Search", _params(query="string", q="string")), lambda _a: "r")],
            {"search": ToolAliasConfig(arguments_aliases={"query": ["q"]})},
            "conflicts with existing schema property",
            id="arg alias conflicts with existing schema property",
        ),
    ],
)
def test_alias_conflict(tools: list[FnTool], aliases: dict[str, ToolAliasConfig], message: str) -> None:
    """tool_alias_test.go TestAliasConflict"""
    with pytest.raises(ValueError, match=message):
        ToolsNode(tools, tool_aliases=aliases)


def test_arguments_aliases_with_handler() -> None:
    """tool_alias_test.go TestArgumentsAliasesWithHandler: remapping, then the handler (given the
    canonical name), then the tool"""
    order: list[str] = []

    def handler(name: str, arguments: str) -> str:
        order.append("args_handler")
        assert name == "search"
        parsed = json.loads(arguments)
        assert "query" in parsed and "q" not in parsed
        return arguments

    def run(_args: dict[str, object]) -> str:
        order.append("tool_invoke")
        return "result"

    search = FnTool(ToolInfo("search", "Search", _params(query="string")), run)
    aliases = {"search": ToolAliasConfig(name_aliases=["find"], arguments_aliases={"query": ["q"]})}
    ToolsNode([search], tool_aliases=aliases, tool_arguments_handler=handler).invoke(
        _call("find", '{"q": "test"}')
    )
    assert order == ["args_handler", "tool_invoke"]


def test_non_existent_tool_in_alias_config() -> None:
    """tool_alias_test.go TestNonExistentToolInAliasConfig: a config for a tool the node lacks is ignored"""
    node = ToolsNode([_SEARCH], tool_aliases={"missing": ToolAliasConfig(name_aliases=["m"])})
    output = node.invoke(_call("search", "{}"))
    assert len(output) == 1 and "result" in output[0].content


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param("", "", id="empty string"),
        pytest.param("  ", "  ", id="whitespace only"),
        pytest.param('"hello"', '"hello"', id="non-object JSON"),
        pytest.param("[1,2,3]", "[1,2,3]", id="JSON array"),
        pytest.param("{invalid", "{invalid", id="invalid JSON"),
    ],
)
def test_remap_args_edge_cases_unchanged(arguments: str, expected: str) -> None:
    """tool_alias_test.go TestRemapArgsEdgeCases (the five inputs left as they are)"""
    assert remap_arguments(arguments, {"q": "query"}) == expected


def test_remap_args_alias_and_canonical_both_present() -> None:
    """tool_alias_test.go TestRemapArgsEdgeCases/alias and canonical both present"""
    result = json.loads(remap_arguments('{"q": "alias_val", "query": "canonical_val"}', {"q": "query"}))
    assert result == {"q": "alias_val", "query": "canonical_val"}


def test_remap_args_unknown_fields_preserved() -> None:
    """tool_alias_test.go TestRemapArgsEdgeCases/unknown fields preserved"""
    result = json.loads(remap_arguments('{"q": "test", "unknown_field": 42}', {"q": "query"}))
    assert result == {"query": "test", "unknown_field": 42}


def test_canonical_name_call_with_alias_configured() -> None:
    """tool_alias_test.go TestCanonicalNameCallWithAliasConfigured"""
    search = FnTool(ToolInfo("search", "Search", _params(query="string")), lambda a: f"got {a['query']}")
    node = ToolsNode(
        [search],
        tool_aliases={"search": ToolAliasConfig(name_aliases=["find"], arguments_aliases={"query": ["q"]})},
    )
    output = node.invoke(_call("search", '{"query": "direct"}'))
    assert output[0].content == "got direct"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(ToolAliasConfig(name_aliases=[""]), "empty name alias", id="empty name alias"),
        pytest.param(
            ToolAliasConfig(arguments_aliases={"query": [""]}), "empty argument alias", id="empty arg alias"
        ),
        pytest.param(
            ToolAliasConfig(arguments_aliases={"": ["q"]}),
            "empty canonical argument key",
            id="empty canonical arg key",
        ),
    ],
)
def test_empty_alias_validation(config: ToolAliasConfig, message: str) -> None:
    """tool_alias_test.go TestEmptyAliasValidation"""
    with pytest.raises(ValueError, match=message):
        ToolsNode([_SEARCH], tool_aliases={"search": config})


def test_name_alias_same_as_canonical() -> None:
    """tool_alias_test.go TestNameAliasSameAsCanonical: listing the canonical name as an alias is allowed"""
    node = ToolsNode([_SEARCH], tool_aliases={"search": ToolAliasConfig(name_aliases=["search", "find"])})
    assert "result" in node.invoke(_call("find", "{}"))[0].content


def test_tool_name_aliases_stream() -> None:
    """tool_alias_test.go TestToolNameAliasesStream: a call by alias in stream mode"""
    search = FnTool(ToolInfo("search", "Search", _params(query="string")), lambda _a: "search result")
    node = ToolsNode([search], tool_aliases={"search": ToolAliasConfig(name_aliases=["find"])})
    chunks = list(node.stream(_call("find", '{"query": "x"}')))
    contents = [m.content for chunk in chunks for m in chunk if m is not None]
    assert "".join(contents) == "search result"


_WEATHER = FnTool(
    ToolInfo("weather", "Weather", _params(location="string")), lambda a: f"weather result: {a['location']}"
)


def _search_tool() -> FnTool:
    return FnTool(
        ToolInfo("search", "Search", _params(query="string")), lambda a: f"search result: {a['query']}"
    )


def test_tool_aliases_with_dynamic_tool_list() -> None:
    """tool_alias_test.go TestToolAliasesWithDynamicToolList"""
    search = _search_tool()
    node = ToolsNode(
        [search],
        tool_aliases={"search": ToolAliasConfig(name_aliases=["find"], arguments_aliases={"query": ["q"]})},
    )
    output = node.invoke(_call("find", '{"q": "dynamic"}'), options=ToolsNodeOptions(tool_list=[search]))
    assert len(output) == 1 and "search result: dynamic" in output[0].content


def test_dynamic_tool_list_alias_removed() -> None:
    """tool_alias_test.go TestDynamicToolListAliasRemoved: the alias's tool is not in the run's list"""
    node = ToolsNode(
        [_search_tool(), _WEATHER], tool_aliases={"search": ToolAliasConfig(name_aliases=["find"])}
    )
    with pytest.raises(ToolNotFoundError, match="not found"):
        node.invoke(_call("find", '{"query": "x"}'), options=ToolsNodeOptions(tool_list=[_WEATHER]))


def _global_node() -> tuple[ToolsNode, FnTool, dict[str, ToolAliasConfig]]:
    search = _search_tool()
    node = ToolsNode(
        [search, _WEATHER],
        tool_aliases={"search": ToolAliasConfig(name_aliases=["find"], arguments_aliases={"query": ["q"]})},
    )
    opt = {"search": ToolAliasConfig(name_aliases=["lookup"], arguments_aliases={"query": ["keyword"]})}
    return node, search, opt


def test_tool_aliases_option_overrides_global_in_invoke() -> None:
    """tool_alias_test.go TestToolAliasesOptionOverridesGlobal/opt ToolAliases overrides global in Invoke"""
    node, search, opt = _global_node()
    options = ToolsNodeOptions(tool_list=[search], tool_aliases=opt)
    output = node.invoke(_call("lookup", '{"keyword": "opt"}'), options=options)
    assert "search result: opt" in output[0].content
    with pytest.raises(ToolNotFoundError, match="not found"):
        node.invoke(_call("find", '{"q": "x"}'), options=options)


def test_tool_aliases_option_overrides_global_in_stream() -> None:
    """tool_alias_test.go TestToolAliasesOptionOverridesGlobal/opt ToolAliases overrides global in Stream"""
    node, search, opt = _global_node()
    chunks = list(
        node.stream(
            _call("lookup", '{"keyword": "s"}'),
            options=ToolsNodeOptions(tool_list=[search], tool_aliases=opt),
        )
    )
    assert "".join(m.content for chunk in chunks for m in chunk if m is not None) == "search result: s"


def test_tool_aliases_nil_option_falls_back_to_global_filtered() -> None:
    """tool_alias_test.go TestToolAliasesOptionOverridesGlobal/nil opt ToolAliases falls back to global
    filtered"""
    node, search, _opt = _global_node()
    output = node.invoke(_call("find", '{"q": "fallback"}'), options=ToolsNodeOptions(tool_list=[search]))
    assert "search result: fallback" in output[0].content


def test_tool_aliases_option_only_without_tool_list_replaces_global() -> None:
    """tool_alias_test.go TestToolAliasesOptionOverridesGlobal/opt ToolAliases only without ToolList
    replaces global"""
    node, _search, opt = _global_node()
    output = node.invoke(
        _call("lookup", '{"keyword": "only_alias"}'), options=ToolsNodeOptions(tool_aliases=opt)
    )
    assert "search result: only_alias" in output[0].content
    with pytest.raises(ToolNotFoundError, match="not found"):
        node.invoke(_call("find", '{"q": "x"}'), options=ToolsNodeOptions(tool_aliases=opt))


def test_tools_node_options_tool_list_through_the_graph() -> None:
    """tool_node_test.go TestToolsNodeOptions/tool_list (the per-run tool list given to the graph run;
    Go's `WithToolOption(WithAge(10))` per-call tool option has no graph_core counterpart)"""
    from graph_core import END, START, Graph

    graph = Graph()
    graph.add_tools_node("tools", ToolsNode([]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    compiled = graph.compile()
    echo = FnTool(
        ToolInfo("mock_tool", "echo", _params(name="string")), lambda a: json.dumps({"echo": f"{a['name']}"})
    )
    message = _call("mock_tool", '{"name": "jack"}')
    out = compiled.invoke(message, tools_node_options=ToolsNodeOptions(tool_list=[echo]))
    assert len(out) == 1 and json.loads(out[0].content) == {"echo": "jack"}
    chunks = list(compiled.stream(message, tools_node_options=ToolsNodeOptions(tool_list=[echo])))
    assert json.loads("".join(m.content for chunk in chunks for m in chunk if m is not None)) == {
        "echo": "jack"
    }
    with pytest.raises(Exception, match="not found"):
        compiled.invoke(message)


def test_tool_aliases_option_only_without_tool_list_in_stream() -> None:
    """tool_alias_test.go TestToolAliasesOptionOverridesGlobal/opt ToolAliases only without ToolList in
    Stream"""
    node, _search, opt = _global_node()
    chunks = list(
        node.stream(_call("lookup", '{"keyword": "only_stream"}'), options=ToolsNodeOptions(tool_aliases=opt))
    )
    assert (
        "".join(m.content for chunk in chunks for m in chunk if m is not None) == "search result: only_stream"
    )


def _weather_aliased_node() -> tuple[ToolsNode, FnTool]:
    search = _search_tool()
    aliases = {
        "search": ToolAliasConfig(name_aliases=["find"]),
        "weather": ToolAliasConfig(name_aliases=["forecast"], arguments_aliases={"location": ["loc"]}),
    }
    return ToolsNode([search], tool_aliases=aliases), search


def test_alias_config_for_tool_added_via_option_weather() -> None:
    """tool_alias_test.go TestAliasConfigForToolAddedViaOption/weather alias works when tool passed via
    option"""
    node, search = _weather_aliased_node()
    output = node.invoke(
        _call("forecast", '{"loc": "Beijing"}'), options=ToolsNodeOptions(tool_list=[search, _WEATHER])
    )
    assert "weather result: Beijing" in output[0].content


def test_alias_config_for_tool_added_via_option_search() -> None:
    """tool_alias_test.go TestAliasConfigForToolAddedViaOption/search alias still works with option tool
    list"""
    node, search = _weather_aliased_node()
    output = node.invoke(
        _call("find", '{"query": "test"}'), options=ToolsNodeOptions(tool_list=[search, _WEATHER])
    )
    assert "search result: test" in output[0].content


def test_option_with_tool_list_and_tool_aliases() -> None:
    """tool_alias_test.go TestOptionWithToolListAndToolAliases/opt aliases override global when both tool
    list and aliases provided"""
    search = _search_tool()
    node = ToolsNode([search], tool_aliases={"search": ToolAliasConfig(name_aliases=["find"])})
    opt = {"weather": ToolAliasConfig(name_aliases=["forecast"], arguments_aliases={"location": ["loc"]})}
    options = ToolsNodeOptions(tool_list=[search, _WEATHER], tool_aliases=opt)
    output = node.invoke(_call("forecast", '{"loc": "Shanghai"}'), options=options)
    assert "weather result: Shanghai" in output[0].content
    with pytest.raises(ToolNotFoundError, match="not found"):
        node.invoke(_call("find", '{"query": "test"}', "call_2"), options=options)


def test_tool_aliases_e2e() -> None:
    """tool_alias_test.go TestToolAliasesE2E: two calls by aliases with aliased arguments, one node"""
    search = FnTool(
        ToolInfo("search", "Search", _params(query="string", limit="integer")), lambda _a: "search result"
    )
    weather = FnTool(ToolInfo("weather", "Weather", _params(location="string")), lambda _a: "weather result")
    aliases = {
        "search": ToolAliasConfig(
            name_aliases=["search_v1", "query"],
            arguments_aliases={"query": ["q", "search_term"], "limit": ["max_results"]},
        ),
        "weather": ToolAliasConfig(
            name_aliases=["get_weather"], arguments_aliases={"location": ["loc", "city"]}
        ),
    }
    message = Message.assistant(
        "",
        tool_calls=[
            ToolCall("call_1", "search_v1", '{"q": "test", "max_results": 5}'),
            ToolCall("call_2", "get_weather", '{"city": "Beijing"}'),
        ],
    )
    output = ToolsNode([search, weather], tool_aliases=aliases).invoke(message)
    assert [m.tool_call_id for m in output] == ["call_1", "call_2"]
    assert "search result" in output[0].content and "weather result" in output[1].content


class _EnhancedSearch:
    """Go's `enhancedInvokableTool` named `search` with a `query` parameter: echoes the arguments it got."""

    info = ToolInfo(
        "search", "Enhanced search", {"type": "object", "properties": {"query": {"type": "string"}}}
    )

    def invoke_enhanced(self, arguments: str) -> ToolResult:
        return ToolResult([ToolOutputPart(type="text", text="enhanced: " + arguments)])


def test_enhanced_tool_with_aliases() -> None:
    """tool_alias_test.go TestEnhancedToolWithAliases: an enhanced tool called by a name alias with an
    argument alias; the result reaches the multi-part content."""
    node = ToolsNode(
        [_EnhancedSearch()],
        tool_aliases={"search": ToolAliasConfig(name_aliases=["find"], arguments_aliases={"query": ["q"]})},
    )
    output = node.invoke(Message.assistant("", tool_calls=[ToolCall("call_1", "find", '{"q": "test"}')]))
    assert len(output) == 1
    assert output[0].tool_call_id == "call_1"
    assert "enhanced:" in output[0].user_input_multi_content[0].text
    # (beyond Go's asserts, which its comment states: the argument alias was remapped)
    assert json.loads(output[0].user_input_multi_content[0].text.removeprefix("enhanced: ")) == {
        "query": "test"
    }
