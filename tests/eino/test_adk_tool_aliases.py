"""Port of `adk/chatmodel_test.go` TestToolAliasesPropagation (cloudwego/eino ca0441ac0bce): the
ChatModelAgent's `tool_aliases` (Eino `ToolsConfig.ToolsNodeConfig.ToolAliases`) reach its ToolsNode,
also when a handler's `before_agent` changes the tools. Each test names its Go subtest."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from graph_core.agents.adk import ChatModelAgent, ChatModelAgentContext, ChatModelAgentMiddleware
from graph_core.schema import Message, ToolCall, ToolInfo
from graph_core.tools.alias import ToolAliasConfig
from tests.eino.adk_fakes import RecordingModel


class AliasCaptureTool:
    """Go `aliasCaptureTool`: keeps the arguments it was called with."""

    def __init__(self, name: str, params: dict[str, str]) -> None:
        properties = {key: {"type": "string", "description": desc} for key, desc in params.items()}
        self.info = ToolInfo(name, f"{name} tool", {"type": "object", "properties": properties})
        self.received_args = ""

    def invoke(self, arguments: str) -> str:
        self.received_args = arguments
        return "ok"


class ToolsHandler(ChatModelAgentMiddleware):
    """Go `testToolsHandler`: `before_agent` appends its tools."""

    def __init__(self, tools: Sequence[Any]) -> None:
        self.tools = list(tools)

    def before_agent(self, context: ChatModelAgentContext) -> ChatModelAgentContext:
        context.tools = [*context.tools, *self.tools]
        return context


def _model(name: str, arguments: str) -> RecordingModel:
    call = Message.assistant("", tool_calls=[ToolCall("call_1", name, arguments)])
    return RecordingModel([call, Message.assistant("done")], repeat_last=True)


GREP_ALIASES = {"grep": ToolAliasConfig(arguments_aliases={"pattern": ["grep_content"]})}


def test_tool_aliases_propagation_prepare_exec_context_propagates_tool_aliases() -> None:
    """chatmodel_test.go TestToolAliasesPropagation/prepareExecContext_propagates_ToolAliases"""
    tool = AliasCaptureTool("grep", {"pattern": "regex pattern", "path": "search path"})
    agent = ChatModelAgent(
        name="test",
        instruction="test",
        model=_model("grep", '{"grep_content": "TODO", "path": "/src"}'),
        tools=[tool],
        tool_aliases=GREP_ALIASES,
    )
    list(agent.run([Message.user("search for TODOs")]))
    assert tool.received_args, "tool should have been called"
    args = json.loads(tool.received_args)
    assert args["pattern"] == "TODO" and "grep_content" not in args and args["path"] == "/src"


def test_tool_aliases_propagation_apply_before_agent_preserves_tool_aliases() -> None:
    """chatmodel_test.go TestToolAliasesPropagation/
    applyBeforeAgent_preserves_ToolAliases_when_handler_modifies_tools"""
    tool = AliasCaptureTool("grep", {"pattern": "regex pattern"})
    extra = AliasCaptureTool("extra_tool", {"input": ""})
    agent = ChatModelAgent(
        name="test",
        instruction="test",
        model=_model("grep", '{"grep_content": "FIXME"}'),
        tools=[tool],
        tool_aliases=GREP_ALIASES,
        handlers=[ToolsHandler([extra])],
    )
    list(agent.run([Message.user("search for FIXMEs")]))
    assert tool.received_args, "tool should have been called"
    args = json.loads(tool.received_args)
    assert args["pattern"] == "FIXME" and "grep_content" not in args


def test_tool_aliases_propagation_name_alias_propagated_through_prepare_exec_context() -> None:
    """chatmodel_test.go TestToolAliasesPropagation/name_alias_propagated_through_prepareExecContext"""
    tool = AliasCaptureTool("grep", {"pattern": ""})
    agent = ChatModelAgent(
        name="test",
        instruction="test",
        model=_model("search_content", '{"pattern": "TODO"}'),
        tools=[tool],
        tool_aliases={"grep": ToolAliasConfig(name_aliases=["search_content"])},
    )
    list(agent.run([Message.user("search")]))
    assert tool.received_args, "tool should have been called via name alias 'search_content'"
    assert json.loads(tool.received_args)["pattern"] == "TODO"


def test_tool_aliases_propagation_handler_adds_tool_matching_aliases_with_no_initial_tools() -> None:
    """chatmodel_test.go TestToolAliasesPropagation/
    handler_adds_tool_matching_preexisting_ToolAliases_with_no_initial_tools"""
    tool = AliasCaptureTool("grep", {"pattern": "regex pattern"})
    agent = ChatModelAgent(
        name="test",
        instruction="test",
        model=_model("grep", '{"grep_content": "BUG"}'),
        tool_aliases=GREP_ALIASES,
        handlers=[ToolsHandler([tool])],
    )
    list(agent.run([Message.user("find bugs")]))
    assert tool.received_args, "tool added by handler should have been called"
    args = json.loads(tool.received_args)
    assert args["pattern"] == "BUG" and "grep_content" not in args
